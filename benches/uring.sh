#!/bin/sh
# io_uring random-read benchmark: fio against ioz, same settings.
#
#   fio --ioengine=io_uring --direct=1 --rw=randread --bs=4k --iodepth=32
#       --numjobs=1 --runtime=10 --time_based --filename=F
#   ioz -s 256m -r 4k -i 2 -I --engine io_uring --iodepth 32 -O -w -f F
#
# on one 256 MiB file, interleaved (fio, ioz, fio, ioz, …), and prints the
# median IOPS of each. Not a like-for-like workload, and the table says so:
# fio reads random offsets (with repeats) for 10 s; ioz's random-read pass
# reads every 4 KiB record of the file exactly once in IOzone's permutation
# (65536 reads), however long that takes. `ioz -i 2` also runs the random
# write pass after the read; only the read is compared.
#
# Needs fio (installed with apt-get when missing and possible) and a file
# system that takes O_DIRECT (not tmpfs before Linux 6.6).
# Optional: IOZ_BENCH_DIR (default target/uring-bench), IOZ_BENCH_RUNS (3),
# IOZ_BENCH_RUNTIME (fio seconds, 10), IOZ_BENCH_DEPTH (32).
set -eu
cd "$(dirname "$0")/.."

dir=${IOZ_BENCH_DIR:-target/uring-bench}
runs=${IOZ_BENCH_RUNS:-3}
runtime=${IOZ_BENCH_RUNTIME:-10}
depth=${IOZ_BENCH_DEPTH:-32}

if ! command -v fio >/dev/null 2>&1; then
    echo "fio is missing: installing it" >&2
    if [ "$(id -u)" = 0 ]; then
        apt-get install -y fio >/dev/null 2>&1 ||
            { apt-get update >/dev/null && apt-get install -y fio >/dev/null; }
    else
        sudo apt-get install -y fio >/dev/null
    fi
fi

cargo build --release --quiet
ioz=$PWD/target/release/ioz
mkdir -p "$dir"
file=$dir/uring-bench.dat
csv=$dir/ioz.csv
log=$dir/log.txt
: >"$log"

# The 256 MiB file, written once by ioz itself (so later ioz runs may use it
# without --force), outside any measurement.
rm -f "$file"
"$ioz" -s 256m -r 1m -i 0 -I -w -f "$file" >>"$log" 2>&1

fio_iops() {
    # Terse output, field 8: read IOPS.
    fio --name=randread --ioengine=io_uring --direct=1 --rw=randread --bs=4k \
        --iodepth="$depth" --numjobs=1 --runtime="$runtime" --time_based \
        --filename="$file" --output-format=terse 2>>"$log" | tee -a "$log" |
        cut -d';' -f8
}

ioz_iops() {
    # ops_per_sec of the random_read row of --csv; -O also prints it.
    "$ioz" -s 256m -r 4k -i 2 -I --engine io_uring --iodepth "$depth" -O -w \
        -f "$file" --csv "$csv" >>"$log" 2>&1
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
             $col["pass"] == "random_read" { print $col["ops_per_sec"], $col["elapsed_ns"] }' "$csv"
}

median() {
    sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

fio_all=
ioz_all=
ioz_secs=
i=1
while [ "$i" -le "$runs" ]; do
    f=$(fio_iops)
    set -- $(ioz_iops)
    echo "run $i: fio $f IOPS, ioz $1 IOPS (random-read pass $(awk "BEGIN { printf \"%.2f\", $2 / 1e9 }") s)" >&2
    fio_all="$fio_all $f"
    ioz_all="$ioz_all $1"
    ioz_secs="$ioz_secs $(awk "BEGIN { printf \"%.2f\", $2 / 1e9 }")"
    i=$((i + 1))
done
rm -f "$file"

fio_med=$(printf '%s\n' $fio_all | median)
ioz_med=$(printf '%s\n' $ioz_all | median)
secs_med=$(printf '%s\n' $ioz_secs | median)
echo
echo "4 KiB random read, O_DIRECT, io_uring, depth $depth, 1 job, 256 MiB file, $runs interleaved runs"
echo "| tool | what it does | runs (IOPS) | median IOPS |"
echo "| --- | --- | --- | --- |"
echo "| fio $(fio --version | sed 's/^fio-//') | random offsets for ${runtime} s (time_based) |$fio_all | $fio_med |"
echo "| ioz | every record once, IOzone's permutation (median ${secs_med} s) |$ioz_all | $ioz_med |"
awk "BEGIN { r = $ioz_med / $fio_med; printf \"ioz / fio = %.3f (%s)\n\", r, (r >= 1 ? \"target met: ioz >= fio\" : \"target missed: ioz < fio\") }"
echo "(details in $log)"
# A missed target fails the benchmark, so a script or CI sees it.
awk "BEGIN { exit !($ioz_med >= $fio_med) }"
