#!/bin/sh
# Builds ioz in release mode and runs the metadata benchmark (ioz mdtest's
# phases vs bare loops of the same system calls; exits 1 when the stat
# phase's median ratio is below 0.95). Optional: IOZ_BENCH_ITEMS,
# IOZ_BENCH_PAIRS, IOZ_BENCH_DIR (see benches/metadata.rs).
set -eu
cd "$(dirname "$0")/.."
cargo build --release
exec cargo bench --bench metadata
