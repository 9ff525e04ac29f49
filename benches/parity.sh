#!/bin/sh
# Builds ioz in release mode and runs the parity benchmark (ioz's auto grid
# against IOzone's loop cell by cell, the CPU of a cached 4 KiB read against
# a bare pread loop, read against reread at 4 MiB records; exits 1 when a
# target is missed). Optional: IOZ_BENCH_PAIRS, IOZ_BENCH_SIZE_MB,
# IOZ_BENCH_CLOCK (wall|cpu), IOZ_BENCH_DIR (see benches/parity.rs).
set -eu
cd "$(dirname "$0")/.."
cargo build --release
exec cargo bench --bench parity
