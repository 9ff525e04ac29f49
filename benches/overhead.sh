#!/bin/sh
# Builds ioz in release mode and runs the overhead benchmark (ioz vs a bare
# syscall loop). Optional: IOZ_BENCH_SIZE_MB, IOZ_BENCH_PAIRS, IOZ_BENCH_DIR.
set -eu
cd "$(dirname "$0")/.."
cargo build --release
exec cargo bench --bench overhead
