//! ioz's throughput mode against a bare multi-threaded loop of the same
//! syscalls, and IOzone seed 002's strong-scaling sweep.
//!
//! Part 1 runs `ioz -t 2` and `ioz -l 1 -u 4` (threads with -T, then
//! processes; -x, so every worker moves its whole file) on cached files, in
//! interleaved pairs with a bare reference: N threads, each on its own file,
//! opening it and fsyncing it untimed, meeting at two std::sync::Barriers with
//! the release time read between them (as ioz does), then timing a loop of
//! sequential read(2)/write(2) calls of one record each with Instant; the
//! buffers are page aligned and writes cycle through the same pool of random
//! data ioz uses. The reference replays every phase of the ioz run (write,
//! rewrite, read, reread for each worker count) on the same files, so the page
//! cache has the same history. Per phase and worker count it prints the
//! median over the pairs of ioz "Children see" / reference sum of per-thread
//! rates, and ioz "Parent sees" / reference aggregate (all bytes over the time
//! from the release to the last thread's end).
//!
//! Part 2 is the strong-scaling sweep of IOzone seed 002: `ioz -T -x -+k -i 0
//! -i 1` with 1, 2, 4 and 8 threads and 8 B, 8 kB and 8 MB records at a fixed
//! total, printing "Children see" for write and read with the speedup over
//! one thread.
//!
//! Run with `cargo bench --bench throughput` (or `benches/throughput.sh`).
//! Environment (defaults in brackets):
//!   IOZ_BENCH_SIZE_MB            part 1 file per worker, MiB [64]
//!   IOZ_BENCH_RECORD_KB          part 1 record, KiB [64]
//!   IOZ_BENCH_PAIRS              part 1 interleaved pairs [5]
//!   IOZ_BENCH_MAX_WORKERS        part 1 sweep `-l 1 -u N` [4]
//!   IOZ_BENCH_SCALING_TOTAL_MB   part 2 total for 8 kB and 8 MB records, MiB [64]
//!   IOZ_BENCH_SCALING_TINY_KB    part 2 total for 8 B records, KiB [1024]
//!   IOZ_BENCH_SCALING_RUNS       part 2 runs per cell, median reported [3]
//!   IOZ_BENCH_DIR                where the files go [the current directory]
//!   IOZ_BENCH_BIN                another ioz binary to measure [this build's]

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Barrier;
use std::time::Instant;

mod common;

use common::{env_num, ioz_binary, median};
use ioz::data::buffer::{AlignedBuf, fill, write_window_bytes};
use ioz::model::config::DataPattern;
use ioz::model::plan::Cell;
use ioz::model::units::Size;

/// A ratio below this is flagged in the summary.
const FLAG_BELOW: f64 = 0.9;
/// Thread counts of the strong-scaling sweep.
const SCALING_THREADS: [u32; 4] = [1, 2, 4, 8];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Phase {
    Write,
    Rewrite,
    Read,
    Reread,
}

impl Phase {
    const ALL: [Phase; 4] = [Phase::Write, Phase::Rewrite, Phase::Read, Phase::Reread];

    fn name(self) -> &'static str {
        match self {
            Phase::Write => "write",
            Phase::Rewrite => "rewrite",
            Phase::Read => "read",
            Phase::Reread => "reread",
        }
    }

    /// The phase's words in ioz's "Children see throughput for  2 readers" lines.
    fn from_ioz_label(label: &str) -> Option<Phase> {
        match label {
            "initial writers" => Some(Phase::Write),
            "rewriters" => Some(Phase::Rewrite),
            "readers" => Some(Phase::Read),
            "re-readers" => Some(Phase::Reread),
            _ => None,
        }
    }

    fn writes(self) -> bool {
        matches!(self, Phase::Write | Phase::Rewrite)
    }
}

/// The per-worker files `BASE.0` … `BASE.{n-1}`; removes them when dropped,
/// however the bench ends.
struct Files {
    base: PathBuf,
    count: u32,
}

impl Files {
    fn path(&self, index: u32) -> PathBuf {
        worker_path(&self.base, index)
    }
}

/// ioz's name for worker `index`'s file: `BASE.index`.
fn worker_path(base: &Path, index: u32) -> PathBuf {
    let mut name = base.as_os_str().to_owned();
    name.push(format!(".{index}"));
    PathBuf::from(name)
}

impl Drop for Files {
    fn drop(&mut self) {
        for i in 0..self.count {
            let _ = std::fs::remove_file(self.path(i));
        }
    }
}

/// One phase of one worker count, as ioz printed it (KB/sec, KB = 1024 bytes).
#[derive(Clone, Copy, Debug)]
struct Rates {
    workers: u32,
    phase: Phase,
    children: f64,
    parent: f64,
}

/// Runs ioz and returns its standard output; panics if it fails.
fn run_ioz(args: &[String], base: &Path) -> String {
    let out = Command::new(ioz_binary())
        // Benchmark runs are not kept in the user's history.
        .env("IOZ_NO_HISTORY", "1")
        .args(args)
        .arg("-w")
        .arg("-f")
        .arg(base)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", ioz_binary()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        panic!(
            "ioz {} failed ({}):\n{stdout}\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    stdout
}

/// The "Children see" and "Parent sees" values of every phase block, in order.
fn parse_rates(stdout: &str) -> Vec<Rates> {
    // "\tChildren see throughput for  2 readers \t\t= 7032242.56 KB/sec"
    let parse = |line: &str, prefix: &str| -> Option<(u32, Phase, f64)> {
        let rest = line.trim_start().strip_prefix(prefix)?;
        let (label, value) = rest.split_once('=')?;
        let (workers, words) = label.trim().split_once(char::is_whitespace)?;
        let phase = Phase::from_ioz_label(words.trim())?;
        let value = value.split_whitespace().next()?.parse().ok()?;
        Some((workers.parse().ok()?, phase, value))
    };
    let mut rates: Vec<Rates> = Vec::new();
    for line in stdout.lines() {
        if let Some((workers, phase, children)) = parse(line, "Children see throughput for") {
            rates.push(Rates {
                workers,
                phase,
                children,
                parent: f64::NAN,
            });
        } else if let Some((workers, phase, parent)) = parse(line, "Parent sees throughput for") {
            let last = rates
                .last_mut()
                .filter(|r| r.workers == workers && r.phase == phase && r.parent.is_nan())
                .unwrap_or_else(|| panic!("Parent line without its Children line: {line:?}"));
            last.parent = parent;
        }
    }
    assert!(
        rates.iter().all(|r| !r.parent.is_nan()),
        "a Children line without its Parent line in:\n{stdout}"
    );
    rates
}

/// One thread's file and buffers in the bare reference, prepared untimed.
struct BareFile {
    path: CString,
    records: u64,
    record: usize,
    read_buf: AlignedBuf,
    pool: AlignedBuf,
}

impl BareFile {
    /// The same read buffer and write pool (size and data) as ioz's worker `index`.
    fn new(path: &Path, file_bytes: u64, record: u64, index: u32) -> BareFile {
        let cell = Cell {
            file_bytes,
            record_bytes: record,
        };
        let mut pool = AlignedBuf::zeroed(write_window_bytes(&cell, DataPattern::Random, false, 1));
        fill(&mut pool, DataPattern::Random, 1 + index as u64);
        BareFile {
            path: CString::new(path.as_os_str().as_bytes()).expect("path has a NUL byte"),
            records: cell.records(),
            record: record as usize,
            read_buf: AlignedBuf::zeroed(record as usize),
            pool,
        }
    }
}

/// When one thread's timed loop ran, and what it moved.
struct ThreadTime {
    bytes: u64,
    start: Instant,
    end: Instant,
}

#[cold]
#[inline(never)]
fn fail(what: &str, ret: isize) -> ! {
    panic!(
        "bare {what} returned {ret}: {}",
        std::io::Error::last_os_error()
    )
}

/// One thread of a bare phase: open and fsync (untimed), the barrier, the
/// timed loop, fsync and close (untimed).
fn bare_thread(
    f: &mut BareFile,
    phase: Phase,
    arrived: &Barrier,
    released: &Barrier,
) -> ThreadTime {
    let mut flags = libc::O_CLOEXEC | libc::O_CREAT;
    flags |= if phase.writes() {
        libc::O_RDWR
    } else {
        libc::O_RDONLY
    };
    if phase == Phase::Write {
        flags |= libc::O_TRUNC;
    }
    // SAFETY: path is a valid NUL-terminated string.
    let fd = unsafe { libc::open(f.path.as_ptr(), flags, 0o644 as libc::c_uint) };
    // SAFETY: plain syscall on our descriptor (or on -1, which fails harmlessly).
    let synced = fd >= 0 && unsafe { libc::fsync(fd) } == 0;
    let setup_error = (!synced).then(std::io::Error::last_os_error);
    // Meet the others even after a failure, so no thread waits forever.
    arrived.wait();
    released.wait();
    if let Some(e) = setup_error {
        panic!("bare open/fsync of {:?}: {e}", f.path);
    }
    let n = f.records;
    let rec = f.record;
    let buf = f.read_buf.as_mut_ptr().cast::<libc::c_void>();
    let pool = f.pool.as_ptr();
    let slots = (f.pool.len() / rec) as u64;
    let start = Instant::now();
    if phase.writes() {
        for i in 0..n {
            // SAFETY: slot i % slots lies inside the pool.
            let src = unsafe { pool.add((i % slots) as usize * rec) };
            // SAFETY: src..src+rec lies inside the pool.
            let r = unsafe { libc::write(fd, src.cast(), rec) };
            if r != rec as isize {
                fail("write", r);
            }
        }
    } else {
        for _ in 0..n {
            // SAFETY: buf holds rec bytes.
            let r = unsafe { libc::read(fd, buf, rec) };
            if r != rec as isize {
                fail("read", r);
            }
        }
    }
    let end = Instant::now();
    // SAFETY: plain syscalls on our descriptor, which is not used again.
    unsafe {
        if phase.writes() && libc::fsync(fd) < 0 {
            fail("fsync", -1);
        }
        if libc::close(fd) < 0 {
            fail("close", -1);
        }
    }
    ThreadTime {
        bytes: n * rec as u64,
        start,
        end,
    }
}

/// One bare phase with one thread per file, started together.
fn bare_phase(files: &mut [BareFile], phase: Phase) -> Rates {
    let workers = files.len();
    let arrived = Barrier::new(workers + 1);
    let released = Barrier::new(workers + 1);
    let (release, times) = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .iter_mut()
            .map(|f| {
                let (arrived, released) = (&arrived, &released);
                s.spawn(move || bare_thread(f, phase, arrived, released))
            })
            .collect();
        arrived.wait();
        let release = Instant::now();
        released.wait();
        let times: Vec<ThreadTime> = handles
            .into_iter()
            .map(|h| h.join().expect("a bare thread panicked"))
            .collect();
        (release, times)
    });
    let kb = |bytes: u64| bytes as f64 / 1024.0;
    let secs = |from: Instant, to: Instant| to.duration_since(from).as_nanos().max(1) as f64 / 1e9;
    let children = times
        .iter()
        .map(|t| kb(t.bytes) / secs(t.start, t.end))
        .sum();
    let last_end = times
        .iter()
        .map(|t| t.end)
        .max()
        .expect("at least one thread");
    let total: u64 = times.iter().map(|t| t.bytes).sum();
    Rates {
        workers: workers as u32,
        phase,
        children,
        parent: kb(total) / secs(release, last_end),
    }
}

/// Every phase, for each worker count in turn, as one ioz run does them.
fn bare_run(files: &Files, counts: &[u32], file_bytes: u64, record: u64) -> Vec<Rates> {
    let mut rates = Vec::new();
    for &n in counts {
        let mut bare: Vec<BareFile> = (0..n)
            .map(|i| BareFile::new(&files.path(i), file_bytes, record, i))
            .collect();
        for phase in Phase::ALL {
            rates.push(bare_phase(&mut bare, phase));
        }
    }
    rates
}

fn min_max(v: &[f64]) -> (f64, f64) {
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (min, max)
}

/// The pairs of one configuration, summarised per (worker count, phase).
struct RowStats {
    label: String,
    workers: u32,
    phase: Phase,
    /// Per pair: ioz children, reference children, ioz parent, reference parent.
    pairs: Vec<[f64; 4]>,
}

impl RowStats {
    fn column(&self, i: usize) -> Vec<f64> {
        self.pairs.iter().map(|p| p[i]).collect()
    }

    fn children_ratios(&self) -> Vec<f64> {
        self.pairs.iter().map(|p| p[0] / p[1]).collect()
    }

    fn parent_ratios(&self) -> Vec<f64> {
        self.pairs.iter().map(|p| p[2] / p[3]).collect()
    }
}

/// Part 1 for one configuration: interleaved pairs of ioz and the reference.
fn compare(
    files: &Files,
    threads: bool,
    counts: &[u32],
    size_mb: u64,
    record_kb: u64,
    pairs: usize,
) -> Vec<RowStats> {
    let mut args: Vec<String> = match counts {
        [n] => vec!["-t".into(), n.to_string()],
        _ => vec![
            "-l".into(),
            counts[0].to_string(),
            "-u".into(),
            counts[counts.len() - 1].to_string(),
        ],
    };
    args.extend(
        [
            "-s".to_string(),
            format!("{size_mb}m"),
            "-r".into(),
            format!("{record_kb}k"),
            "-i".into(),
            "0".into(),
            "-i".into(),
            "1".into(),
        ]
        .into_iter()
        .chain(threads.then(|| "-T".to_string()))
        .chain(["-x".to_string()]),
    );
    let mode = if threads { "threads" } else { "processes" };
    let what = match counts {
        [n] => format!("-t {n}"),
        _ => format!("-l {} -u {}", counts[0], counts[counts.len() - 1]),
    };
    let label = format!("{what} {mode}");
    println!();
    println!("{label}: ioz {} -w -f BASE", args.join(" "));
    let (file_bytes, record) = (size_mb << 20, record_kb << 10);
    let mut rows: Vec<RowStats> = counts
        .iter()
        .flat_map(|&workers| Phase::ALL.map(|phase| (workers, phase)))
        .map(|(workers, phase)| RowStats {
            label: label.clone(),
            workers,
            phase,
            pairs: Vec::with_capacity(pairs),
        })
        .collect();
    for p in 0..pairs {
        // Alternate which side goes first, so neither always follows the other.
        let (ioz, bare) = if p % 2 == 0 {
            let ioz = parse_rates(&run_ioz(&args, &files.base));
            (ioz, bare_run(files, counts, file_bytes, record))
        } else {
            let bare = bare_run(files, counts, file_bytes, record);
            (parse_rates(&run_ioz(&args, &files.base)), bare)
        };
        assert_eq!(
            ioz.len(),
            rows.len(),
            "ioz printed {} phase blocks, expected {}",
            ioz.len(),
            rows.len()
        );
        for ((row, i), b) in rows.iter_mut().zip(&ioz).zip(&bare) {
            assert!(
                (i.workers, i.phase) == (row.workers, row.phase)
                    && (b.workers, b.phase) == (row.workers, row.phase),
                "phase blocks out of order: ioz {i:?}, reference {b:?}, expected {} {:?}",
                row.workers,
                row.phase
            );
            row.pairs.push([i.children, b.children, i.parent, b.parent]);
        }
    }
    println!(
        "  {:<7} {:>2}  {:>11} {:>11} {:>6} {:>15}  {:>11} {:>11} {:>6} {:>15}",
        "phase",
        "N",
        "ioz chld",
        "ref sum",
        "ratio",
        "(min..max)",
        "ioz parent",
        "ref aggr",
        "ratio",
        "(min..max)"
    );
    for row in &rows {
        let (cr, pr) = (row.children_ratios(), row.parent_ratios());
        let ((cmin, cmax), (pmin, pmax)) = (min_max(&cr), min_max(&pr));
        println!(
            "  {:<7} {:>2}  {:>11.0} {:>11.0} {:>6.3} {:>15}  {:>11.0} {:>11.0} {:>6.3} {:>15}",
            row.phase.name(),
            row.workers,
            median(&row.column(0)),
            median(&row.column(1)),
            median(&cr),
            format!("({cmin:.2}..{cmax:.2})"),
            median(&row.column(2)),
            median(&row.column(3)),
            median(&pr),
            format!("({pmin:.2}..{pmax:.2})"),
        );
    }
    rows
}

/// Part 2: IOzone seed 002's strong-scaling sweep.
fn strong_scaling(files: &Files, total_mb: u64, tiny_kb: u64, runs: usize) {
    let records: [(&str, &str, u64, u64); 3] = [
        ("8 B", "8b", 8, tiny_kb << 10),
        ("8 kB", "8k", 8 << 10, total_mb << 20),
        ("8 MB", "8m", 8 << 20, total_mb << 20),
    ];
    println!();
    println!(
        "strong scaling (IOzone seed 002): ioz -t N -s TOTAL -r REC -T -x -+k -i 0 -i 1 -w -f BASE"
    );
    println!(
        "  fixed total per record size: {} for 8 kB and 8 MB records, {} for 8 B records \
         (smaller, so the 8-byte syscalls finish in seconds)",
        Size(total_mb << 20),
        Size(tiny_kb << 10)
    );
    println!("  \"Children see\" kB/s, median of {runs} runs; speedup = kB/s / kB/s with 1 thread");
    println!(
        "  {:<6} {:>8} {:>7} {:>10}  {:>12} {:>7}  {:>12} {:>7}",
        "record", "total", "threads", "per thread", "write kB/s", "speedup", "read kB/s", "speedup"
    );
    for (name, flag, record, total) in records {
        let mut base_rates: Option<(f64, f64)> = None;
        for n in SCALING_THREADS {
            let per_thread = (total / n as u64) / record * record;
            if per_thread == 0 {
                println!(
                    "  {name:<6} {:>8} {n:>7}  (less than one record per thread; skipped)",
                    Size(total)
                );
                continue;
            }
            let args: Vec<String> = [
                "-t",
                &n.to_string(),
                "-s",
                &format!("{}k", total >> 10),
                "-r",
                flag,
                "-T",
                "-x",
                "-+k",
                "-i",
                "0",
                "-i",
                "1",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect();
            let mut write = Vec::with_capacity(runs);
            let mut read = Vec::with_capacity(runs);
            for _ in 0..runs {
                let rates = parse_rates(&run_ioz(&args, &files.base));
                let get = |phase| {
                    rates
                        .iter()
                        .find(|r| r.workers == n && r.phase == phase)
                        .unwrap_or_else(|| panic!("no {phase:?} block for {n} threads"))
                        .children
                };
                write.push(get(Phase::Write));
                read.push(get(Phase::Read));
            }
            let (w, r) = (median(&write), median(&read));
            let (w1, r1) = *base_rates.get_or_insert((w, r));
            println!(
                "  {name:<6} {:>8} {n:>7} {:>10}  {w:>12.0} {:>7.2}  {r:>12.0} {:>7.2}",
                Size(total),
                Size(per_thread),
                w / w1,
                r / r1
            );
        }
    }
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: do no I/O then.
    if !std::env::args().any(|a| a == "--bench") {
        println!("throughput: run with `cargo bench --bench throughput`; skipped");
        return;
    }
    // Refused before anything runs when IOZ_BENCH_BIN names no file.
    ioz_binary();
    let size_mb = env_num("IOZ_BENCH_SIZE_MB", 64);
    let record_kb = env_num("IOZ_BENCH_RECORD_KB", 64);
    let pairs = env_num("IOZ_BENCH_PAIRS", 5) as usize;
    let max_workers = env_num("IOZ_BENCH_MAX_WORKERS", 4) as u32;
    let total_mb = env_num("IOZ_BENCH_SCALING_TOTAL_MB", 64);
    let tiny_kb = env_num("IOZ_BENCH_SCALING_TINY_KB", 1024);
    let runs = env_num("IOZ_BENCH_SCALING_RUNS", 3) as usize;
    assert!(
        record_kb <= size_mb << 10,
        "IOZ_BENCH_RECORD_KB={record_kb} exceeds IOZ_BENCH_SIZE_MB={size_mb}"
    );
    let dir = std::env::var_os("IOZ_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = std::fs::canonicalize(&dir)
        .unwrap_or_else(|e| panic!("IOZ_BENCH_DIR {}: {e}", dir.display()));
    let base = dir.join(format!("ioz-throughput-bench.{}.tmp", std::process::id()));
    let count = max_workers
        .max(2)
        .max(SCALING_THREADS[SCALING_THREADS.len() - 1]);
    for i in 0..count {
        let p = worker_path(&base, i);
        assert!(
            !p.exists(),
            "{} already exists; not touching it",
            p.display()
        );
    }
    let files = Files { base, count };

    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("ioz throughput mode vs bare multi-threaded syscall loop");
    println!("  ioz binary : {}", ioz_binary());
    println!("  files      : {}.0 … .{}", files.base.display(), count - 1);
    println!("  cpus       : {cpus}");
    println!(
        "  part 1     : {size_mb} MiB per worker, {record_kb} KiB records, -x, {pairs} interleaved pairs"
    );
    println!(
        "  columns    : medians over pairs, kB/s (kB = 1024 B); ratio = ioz / reference per pair"
    );
    println!("               chld = \"Children see\", ref sum = sum of per-thread rates,");
    println!(
        "               parent = \"Parent sees\", ref aggr = all bytes / (last end - release)"
    );

    let mut all = Vec::new();
    for threads in [true, false] {
        for counts in [vec![2], (1..=max_workers).collect::<Vec<u32>>()] {
            all.extend(compare(&files, threads, &counts, size_mb, record_kb, pairs));
        }
    }

    println!();
    let flagged: Vec<String> = all
        .iter()
        .flat_map(|r| {
            let c = median(&r.children_ratios());
            let p = median(&r.parent_ratios());
            [("children", c), ("parent", p)]
                .into_iter()
                .filter(|(_, v)| *v < FLAG_BELOW)
                .map(move |(which, v)| {
                    format!(
                        "{} N={} {} {which} {v:.3}",
                        r.label,
                        r.workers,
                        r.phase.name()
                    )
                })
        })
        .collect();
    if flagged.is_empty() {
        println!("every median ratio >= {FLAG_BELOW}");
    } else {
        println!("median ratios below {FLAG_BELOW}:");
        for f in &flagged {
            println!("  {f}");
        }
    }

    strong_scaling(&files, total_mb, tiny_kb, runs);
    drop(files);
}
