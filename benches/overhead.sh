#!/bin/sh
# Builds ioz in release mode and runs the overhead benchmark (ioz vs bare
# syscall loops; exits 1 when a median ratio is below 0.97). Optional:
# IOZ_BENCH_SIZE_MB, IOZ_BENCH_PAIRS, IOZ_BENCH_CLOCK (wall|cpu),
# IOZ_BENCH_TESTS, IOZ_BENCH_READ_RECORDS, IOZ_BENCH_WRITE_RECORDS,
# IOZ_BENCH_DIR (see benches/overhead.rs).
set -eu
cd "$(dirname "$0")/.."
cargo build --release
exec cargo bench --bench overhead
