#!/bin/sh
# Builds ioz in release mode and runs the interval benchmark (--interval
# 100ms against without on a cached 4 KiB read; exits 1 when a median ratio
# is below 0.99). Optional: IOZ_BENCH_SIZE_MB, IOZ_BENCH_PAIRS,
# IOZ_BENCH_CLOCK (wall|cpu), IOZ_BENCH_DIR (see benches/intervals.rs).
set -eu
cd "$(dirname "$0")/.."
cargo build --release
exec cargo bench --bench intervals
