#!/bin/sh
# Builds ioz in release mode and runs the peers benchmark: fio (Debian's
# package, installed with apt-get when missing and possible) beside ioz on
# the same cells in interleaved pairs: cached psync 4 KiB, 64 KiB and 1 MiB
# write, read, random read and random write (fio with --invalidate=0),
# O_DIRECT io_uring random read and write at depth 1 and 32, four workers
# against numjobs=4; fio's JSON read through ioz's importer, the two set
# side by side with ioz compare. Exits 1 when a cell's median ioz/fio is
# below 0.97. Optional: IOZ_BENCH_PAIRS, IOZ_BENCH_SIZE_MB,
# IOZ_BENCH_DIRECT_MB, IOZ_BENCH_DIR, IOZ_BENCH_BIN (see benches/peers.rs).
set -eu
cd "$(dirname "$0")/.."
if ! command -v fio >/dev/null 2>&1; then
    echo "fio is missing: installing it" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y fio >/dev/null 2>&1 ||
            { apt-get update >/dev/null && apt-get install -y fio >/dev/null; }
    else
        sudo apt-get install -y fio >/dev/null
    fi
fi
cargo build --release
exec cargo bench --bench peers
