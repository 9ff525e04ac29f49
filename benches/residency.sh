#!/bin/sh
# Builds ioz in release mode and runs the residency benchmark (`-a -g 64m`
# with and without residency; exits 1 when the median ratio is above 1.01).
# Optional: IOZ_BENCH_PAIRS, IOZ_BENCH_ARGS, IOZ_BENCH_DIR (see benches/residency.rs).
set -eu
cd "$(dirname "$0")/.."
cargo build --release
exec cargo bench --bench residency
