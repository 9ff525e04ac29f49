#!/bin/sh
# Builds ioz in release mode and runs the metadata benchmark: ioz mdtest's
# phases and ioz fileop's operations against bare loops of mdtest's and
# fileop's own calls (and the peers themselves with IOZ_BENCH_MDTEST,
# IOZ_BENCH_FILEOP); exits 1 when a ratio is outside 0.90-1.10 (mdtest's
# stat: 0.95-1.10). Optional: IOZ_BENCH_ITEMS, IOZ_BENCH_FACTOR,
# IOZ_BENCH_PAIRS, IOZ_BENCH_DIR (see benches/metadata.rs).
set -eu
cd "$(dirname "$0")/.."
cargo build --release
exec cargo bench --bench metadata
