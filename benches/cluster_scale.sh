#!/bin/sh
# Builds ioz in release mode with MPI and runs the cluster scale benchmark
# (8 to 128 ranks of this machine, oversubscribed, in every mode: wall, RSS,
# bytes in gathers, reductions and broadcasts, messages; a fit extended to
# 1,000 and 10,000 ranks). Needs Open MPI (apt-get install libopenmpi-dev
# openmpi-bin). Optional: IOZ_BENCH_RANKS (the largest count), IOZ_BENCH_DIR.
set -eu
cd "$(dirname "$0")/.."
cargo build --release --features mpi --bin ioz
cp target/release/ioz target/ioz-mpi-release
IOZ_BENCH_BIN="$PWD/target/ioz-mpi-release" exec cargo bench --bench cluster_scale
