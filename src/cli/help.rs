//! `ioz -h` and `ioz -v`.

pub fn version_text() -> String {
    format!(
        "ioz {} — a file-system benchmark, command-line compatible with IOzone\n",
        env!("CARGO_PKG_VERSION")
    )
}

pub const HELP_TEXT: &str = "\
Usage: ioz [options]
Sizes are in kB unless they end in k, m or g (1 kB = 1024 bytes).

Modes
  -a            auto mode: file sizes 64k..512m, record sizes 4k..16m, tests 0-7
  -A            auto mode with tests 0 and 1 only and no crossover
  -z            auto mode: use every record size (no crossover at 16 MiB files)
  -n SIZE       auto mode: smallest file size (default 64k)
  -g SIZE       auto mode: largest file size (default 512m)
  -y SIZE       auto mode: smallest record size (default 4k)
  -q SIZE       auto mode: largest record size (default 16m)
  -+x N         auto mode: size multiplier (default 2)
  -s SIZE       file size (default 512k); repeat for a list of sizes
  -r SIZE       record size (default 4k, at most 16m); repeat for a list

Tests (-i N, repeatable; default 0-7)
  0 write/rewrite   1 read/reread        2 random read/write   3 backward read
  4 record rewrite  5 stride read (-j)   6 fwrite/frewrite     7 fread/freread
  8 random mix (-+p percent reads, default 50; -+B in order)
  9 pwrite/repwrite 10 pread/repread     11 pwritev/repwritev  12 preadv/repreadv
  -E            add tests 9 and 10
  -j N          stride of test 5 in records (default 17)
  -+n           skip the second pass (rewrite, reread, ...)
  -X F / -Y F   replay telemetry file F: test 0 writes / test 1 reads its lines
                `offset size [delay_ms]` (bytes, ms; # comments) in order; the
                file size is the largest offset+size, and reclen shows 0

I/O and timing
  -f PATH       test file (default ./ioz.tmp)
  -w            keep the test file at the end
  -e            include fsync in the timing
  -c            include close in the timing
  -o            O_SYNC writes         -+D  O_DSYNC writes
  -+r           O_RSYNC|O_SYNC on every open
  -I            O_DIRECT (fails clearly if the file system refuses it)
  -W            lock the file while reading/writing

Engines, caches and checks
  --engine NAME sync, psync, vec, stdio, mmap, aio or io_uring for tests 0-5, 8-10
  --iodepth N   operations in flight for aio and io_uring
  -B            mmap files          -D / -G  msync MS_ASYNC / MS_SYNC per record
  -+A N         madvise on mmap files (0 normal .. 4 willneed)
  -Z            write a page with write() before each write pass (mix with mmap)
  -H N / -k N   POSIX async I/O with N in flight (with / without copying)
  --drop-caches[=all]  evict the file's pages before each read pass (untimed);
                =all also drops every clean page of the machine (root)
  -U MNT        unmount and mount back the file system at MNT (holding the
                test file) before every pass, untimed: a cold cache (root)
  -p            evict the CPU caches before each pass (untimed)
  -S KB / -L B  CPU cache size and line size (header lines; -p's size)
  -J MS         busy-wait MS ms before every I/O (not counted in the rates)
  -K            disrupt reads: before every 100th record of test 1 (and of the
                throughput readers) read 1 byte at 0 and at 4096 (a page, -I)
  -m            the buffer slides through a 16 MiB area, a record per I/O
  -+E           read-only tests (-i 1, 2, 3, 5, 7, 10, 12) on an existing file
                named with -f, which ioz never writes, truncates or removes
  -+q S         sleep S seconds after every test     -+N  never truncate
  -V N          write byte N everywhere and check every byte read
  -+d           check every byte read against a per-word pattern
  -+w P         dedup data: P percent of the 4 KiB chunks dedupable, the rest
                unique and incompressible (built in memory before the clock)
  -+y P         of those, P percent the same in every record of every file
  -+C P         of those, P percent the same across files, unique within one
  -+S N / -+W N dedup seed (default 1) / add N to the worker number in the data
  -+l / -+L     lock each record (fcntl) / and share one file in throughput mode

Throughput mode
  -t N          N workers (processes; -T for threads), each on its own file
  -l N / -u N   run every worker count from N to M
  -F F1 F2 ...  the workers' files (default: the -f path with .0, .1, ...)
  -x            no stonewalling      -d US  start worker i i*US µs late
  -C            a line per worker    -P CPU bind workers from CPU upward
  -+k           divide the file size among the workers   -+V share one file
  -+K N / -+F   test 8: workers below N only read, the rest only write / and
                those writers truncate their files first
  -r 8b         record sizes in bytes (an ioz extension)

Output
  -R            Excel-style report after the table
  -N            microseconds per operation      -O  operations per second
  -Q            offset/latency files per pass (wol.dat, rol.dat, ...) in the
                current directory, appended
  -+u           CPU utilisation: -R CPU blocks, throughput CPU lines
  -M            include uname in the header
  -h            this help                       -v  version

Results (written at the end of the run, also when it stops early)
  -b FILE       spreadsheet: .xls/.wks in IOzone's layout, or .xlsx (implies -R)
  --json FILE   the whole run as JSON (schema in schema/run.schema.json)
  --csv FILE    one row per measurement
  --html FILE   a self-contained HTML report with tables and plots
  --plots DIR   PNG and SVG plots, one per test pass
  --quiet       no progress bar (it only shows on a terminal) and no warnings

ioz report RUN.json [--text] [-R] [-b F] [--json F] [--csv F] [--html F] [--plots D]
              renders a saved run again without measuring (--text is the default)

ioz's own options
  --force       use an existing file that ioz did not create (it will be
                overwritten and, without -w, deleted)
  --destroy-data=ID
                allow writing to a block device that holds data (a file system,
                partition table, LVM, RAID, LUKS or swap): ID is its WWN or
                serial, or its path when it has none; repeat for several
  --data KIND   written data: random (incompressible, default) or iozone
                (IOzone's mostly-zero buffer, for like-for-like comparisons)

Exit status: 0 done, 1 I/O error, 2 bad command line, 128+N stopped by signal N.
";
