#!/bin/sh
# Builds ioz in release mode and runs the throughput benchmark (ioz -t/-l/-u
# against a bare multi-threaded syscall loop, then IOzone seed 002's
# strong-scaling sweep). Optional: IOZ_BENCH_SIZE_MB, IOZ_BENCH_RECORD_KB,
# IOZ_BENCH_PAIRS, IOZ_BENCH_MAX_WORKERS, IOZ_BENCH_SCALING_TOTAL_MB,
# IOZ_BENCH_SCALING_TINY_KB, IOZ_BENCH_SCALING_RUNS, IOZ_BENCH_DIR.
set -eu
cd "$(dirname "$0")/.."
cargo build --release
exec cargo bench --bench throughput
