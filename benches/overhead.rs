//! ioz against a bare loop of the same syscalls on the same cached file.
//!
//! For every measured test and record size this runs interleaved pairs of
//! (the release `ioz` binary, a bare Rust loop of libc calls) on one test
//! file and compares each pair's rates (ioz / bare, so 1.0 is parity and
//! more is ioz faster). The bare side replays every pass of the ioz run
//! (write and rewrite, then the measured test's passes) so the page cache
//! has the same history when the measured pass runs; only that pass is
//! compared. Like ioz it opens and fsyncs each pass untimed, and fsyncs and
//! closes it untimed after the loop.
//!
//! - Reads (read, reread, random read, backward read, stride read, pread)
//!   read into one page-aligned buffer with the syscalls ioz makes: `read`
//!   with an `lseek` only where the next offset is not the file position,
//!   or `pread`, in ioz's (IOzone's) orders.
//! - Writes (write, rewrite, random write, record rewrite, fwrite, frewrite,
//!   pwrite) do what IOzone does: the same syscalls, every record from one
//!   record-sized buffer written once before the clock. ioz runs with
//!   `--data iozone`, IOzone's one buffer, so that both sides write the same
//!   data and the ratio is the loop's own cost. The default data (a 1 MiB
//!   window with every 4 KiB block stamped; src/data/stamp.rs) costs 3-4 %
//!   more at 4 KiB records (fwrite 0.963-0.965, frewrite 0.959-0.964 with it
//!   over 20 pairs, 1.002 and 0.998 without), by design; `benches/parity.rs`
//!   shows that cost (its comparison 4) and docs/measuring-ioz.md explains it. fwrite uses
//!   a stdio stream with a one-record `setvbuf` buffer, as both do.
//!
//! Target: every median ratio >= 0.97. The benchmark prints a table of the
//! medians and exits 1 when any misses.
//!
//! Run with `cargo bench --bench overhead` (or `benches/overhead.sh`).
//! Environment (all optional):
//! - IOZ_BENCH_SIZE_MB: the file, in MiB (default 64);
//! - IOZ_BENCH_PAIRS: pairs per test and record size (default 15);
//! - IOZ_BENCH_CLOCK: `wall` (default: the pass's elapsed time, as ioz
//!   reports it) or `cpu` (the pass's user+system CPU time, getrusage
//!   around the loop on both sides: steadier on a busy machine, where other
//!   processes take the CPU away mid-pass);
//! - IOZ_BENCH_WRITE_RECORDS: the write tests' record sizes (default
//!   `4k,64k,1m,16m`); IOZ_BENCH_READ_RECORDS: the read tests' (default `4k`);
//! - IOZ_BENCH_TESTS: only these tests (comma-separated names, e.g.
//!   `write,record rewrite`);
//! - IOZ_BENCH_DIR: where the file goes (default: the current directory);
//! - IOZ_BENCH_BIN: another ioz binary to measure instead of this build's.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod common;

use common::{
    Clock, Timing, cpu_now_ns, env_num, fail, ioz_binary, json_name, load_average, median,
};
use ioz::data::buffer::{AlignedBuf, fill};
use ioz::data::pattern::{random_permutation, strided};
use ioz::model::config::DataPattern;
use ioz::model::workload::{Direction, Pass, TestId};

const TARGET: f64 = 0.97;
/// IOzone's stride (-j) default, which ioz's stride read uses.
const STRIDE: u64 = 17;

/// A measured test: the `-i` test that holds it and its pass there.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Test {
    Read,
    Reread,
    RandomRead,
    BackwardRead,
    StrideRead,
    Pread,
    Write,
    Rewrite,
    RandomWrite,
    RecordRewrite,
    Fwrite,
    Frewrite,
    Pwrite,
}

impl Test {
    const READS: [Test; 6] = [
        Test::Read,
        Test::Reread,
        Test::RandomRead,
        Test::BackwardRead,
        Test::StrideRead,
        Test::Pread,
    ];
    const WRITES: [Test; 7] = [
        Test::Write,
        Test::Rewrite,
        Test::RandomWrite,
        Test::RecordRewrite,
        Test::Fwrite,
        Test::Frewrite,
        Test::Pwrite,
    ];

    fn name(self) -> &'static str {
        match self {
            Test::Read => "read",
            Test::Reread => "reread",
            Test::RandomRead => "random read",
            Test::BackwardRead => "backward read",
            Test::StrideRead => "stride read",
            Test::Pread => "pread",
            Test::Write => "write",
            Test::Rewrite => "rewrite",
            Test::RandomWrite => "random write",
            Test::RecordRewrite => "record rewrite",
            Test::Fwrite => "fwrite",
            Test::Frewrite => "frewrite",
            Test::Pwrite => "pwrite",
        }
    }

    /// The pass's name in ioz's JSON.
    fn pass(self) -> Pass {
        match self {
            Test::Read => Pass::Read,
            Test::Reread => Pass::Reread,
            Test::RandomRead => Pass::RandomRead,
            Test::BackwardRead => Pass::BackwardRead,
            Test::StrideRead => Pass::StrideRead,
            Test::Pread => Pass::Pread,
            Test::Write => Pass::Write,
            Test::Rewrite => Pass::Rewrite,
            Test::RandomWrite => Pass::RandomWrite,
            Test::RecordRewrite => Pass::RecordRewrite,
            Test::Fwrite => Pass::Fwrite,
            Test::Frewrite => Pass::Frewrite,
            Test::Pwrite => Pass::Pwrite,
        }
    }

    /// The `-i` tests of the ioz run that measures this one: test 0 makes
    /// the file, then the test that holds the pass.
    fn ioz_tests(self) -> &'static [u32] {
        match self.pass().test().number() {
            0 => &[0],
            1 => &[0, 1],
            2 => &[0, 2],
            3 => &[0, 3],
            4 => &[0, 4],
            5 => &[0, 5],
            6 => &[0, 6],
            9 => &[0, 9],
            10 => &[0, 10],
            t => unreachable!("no bench run for test {t}"),
        }
    }
}

/// A size as ioz's -r takes it ("4k", "1m").
fn parse_size(s: &str) -> u64 {
    let s = s.trim().to_ascii_lowercase();
    let (num, unit) = match s.chars().last() {
        Some('k') => (&s[..s.len() - 1], 1 << 10),
        Some('m') => (&s[..s.len() - 1], 1 << 20),
        _ => (&s[..], 1),
    };
    num.parse::<u64>()
        .unwrap_or_else(|_| panic!("bad record size {s:?}"))
        * unit
}

fn record_sizes(name: &str, default: &str) -> Vec<u64> {
    let list = std::env::var(name).unwrap_or_else(|_| default.to_string());
    list.split(',').map(parse_size).collect()
}

fn size_label(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{}m", bytes >> 20)
    } else {
        format!("{}k", bytes >> 10)
    }
}

/// Removes the benchmark file when the bench ends, however it ends.
struct FileGuard(PathBuf);

impl Drop for FileGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_file(self.0.with_extension("json"));
    }
}

/// Runs ioz on the benchmark file and returns the timing of `test`'s pass.
fn run_ioz(path: &Path, size_mb: u64, record: u64, test: Test) -> Timing {
    let json = path.with_extension("json");
    let mut cmd = Command::new(ioz_binary());
    // Benchmark runs are not kept in the user's history.
    cmd.env("IOZ_NO_HISTORY", "1");
    cmd.args(["-s", &format!("{size_mb}m"), "-r", &size_label(record)]);
    for t in test.ioz_tests() {
        cmd.args(["-i", &t.to_string()]);
    }
    // IOzone's data, as the bare loop writes (see the module).
    cmd.args(["--data", "iozone", "-w"]);
    cmd.arg("-f").arg(path).arg("--json").arg(&json);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", ioz_binary()));
    if !out.status.success() {
        panic!(
            "ioz failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let text = std::fs::read_to_string(&json).expect("ioz's JSON");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("ioz's JSON parses");
    let m = doc["cells"][0]["measurements"]
        .as_array()
        .expect("measurements")
        .iter()
        .find(|m| m["pass"] == json_name(test.pass()))
        .unwrap_or_else(|| panic!("no {} pass in ioz's JSON", json_name(test.pass())));
    let num = |k: &str| m[k].as_u64().unwrap_or_else(|| panic!("no {k} in {m}"));
    Timing {
        bytes: num("bytes"),
        wall_ns: num("elapsed_ns"),
        cpu_ns: num("cpu_user_ns") + num("cpu_system_ns"),
    }
}

/// The bare loop's inputs, prepared once per record size, before any clock.
struct Bare {
    path: CString,
    record: usize,
    records: u64,
    /// Where reads land.
    read_buf: AlignedBuf,
    /// IOzone's one write buffer: a record, written once.
    write_buf: AlignedBuf,
    /// Byte offsets of the random passes (IOzone's permutation), the stride
    /// read and the backward read, in order.
    random: Vec<u64>,
    stride: Vec<u64>,
    backward: Vec<u64>,
}

impl Bare {
    fn new(path: &Path, file_bytes: u64, record: u64) -> Bare {
        let records = file_bytes / record;
        let mut write_buf = AlignedBuf::zeroed(record as usize);
        fill(&mut write_buf, DataPattern::Random, 0x5eed);
        let offsets = |v: Vec<u64>| v.into_iter().map(|r| r * record).collect();
        Bare {
            path: CString::new(path.as_os_str().as_bytes()).expect("path has a NUL byte"),
            record: record as usize,
            records,
            read_buf: AlignedBuf::zeroed(record as usize),
            write_buf,
            random: offsets(random_permutation(records)),
            stride: offsets(strided(records, STRIDE)),
            backward: offsets((0..records).rev().collect()),
        }
    }

    /// One pass over the file, opened and fsynced untimed, then fsynced (a
    /// writer) and closed untimed; returns its timing.
    fn pass(&mut self, pass: Pass) -> Timing {
        let mut flags = libc::O_CLOEXEC;
        // IOzone's access modes (the random passes open read-write).
        flags |= if (pass.direction() == Direction::Write) || pass == Pass::RandomRead {
            libc::O_RDWR
        } else {
            libc::O_RDONLY
        };
        if pass == Pass::Write {
            // IOzone's creat(): the file ioz kept is cut, as ioz cuts it.
            flags |= libc::O_TRUNC;
        }
        // No O_CREAT: the file must be the one ioz created.
        // SAFETY: path is a valid NUL-terminated string.
        let fd = unsafe { libc::open(self.path.as_ptr(), flags) };
        if fd < 0 {
            fail("open", fd as isize);
        }
        // SAFETY: plain syscall on our descriptor.
        if unsafe { libc::fsync(fd) } < 0 {
            fail("fsync", -1);
        }
        let timing = match pass {
            Pass::Fwrite | Pass::Frewrite => self.stdio_writes(fd),
            _ => self.syscalls(fd, pass),
        };
        if matches!(pass, Pass::Fwrite | Pass::Frewrite) {
            // The stream closed the descriptor.
            return timing;
        }
        // SAFETY: plain syscalls on our descriptor, which is not used again.
        unsafe {
            if (pass.direction() == Direction::Write) && libc::fsync(fd) < 0 {
                fail("fsync", -1);
            }
            if libc::close(fd) < 0 {
                fail("close", -1);
            }
        }
        timing
    }

    /// The timed loop of a pass made of read/write/lseek or pread/pwrite.
    fn syscalls(&mut self, fd: libc::c_int, pass: Pass) -> Timing {
        let rec = self.record;
        let n = self.records;
        let buf = self.read_buf.as_mut_ptr().cast::<libc::c_void>();
        let src = self.write_buf.as_ptr().cast::<libc::c_void>();
        let sequential: Vec<u64>;
        let offsets: &[u64] = match pass {
            Pass::RandomRead | Pass::RandomWrite => &self.random,
            Pass::StrideRead => &self.stride,
            Pass::BackwardRead => &self.backward,
            Pass::RecordRewrite => {
                sequential = vec![0; n as usize];
                &sequential
            }
            _ => {
                sequential = (0..n).map(|r| r * rec as u64).collect();
                &sequential
            }
        };
        let positional = matches!(
            pass,
            Pass::Pread | Pass::Repread | Pass::Pwrite | Pass::Repwrite
        );
        let reads = !(pass.direction() == Direction::Write);
        let cpu0 = cpu_now_ns();
        let start = Instant::now();
        let mut position = 0u64;
        for &offset in offsets {
            let r = if positional {
                if reads {
                    // SAFETY: buf holds a record.
                    unsafe { libc::pread(fd, buf, rec, offset as libc::off_t) }
                } else {
                    // SAFETY: src holds a record.
                    unsafe { libc::pwrite(fd, src, rec, offset as libc::off_t) }
                }
            } else {
                if offset != position {
                    // SAFETY: plain syscall on our descriptor.
                    let r = unsafe { libc::lseek(fd, offset as libc::off_t, libc::SEEK_SET) };
                    if r < 0 {
                        fail("lseek", r as isize);
                    }
                }
                position = offset + rec as u64;
                if reads {
                    // SAFETY: buf holds a record.
                    unsafe { libc::read(fd, buf, rec) }
                } else {
                    // SAFETY: src holds a record.
                    unsafe { libc::write(fd, src, rec) }
                }
            };
            if r != rec as isize {
                fail(if reads { "read" } else { "write" }, r);
            }
        }
        let wall_ns = start.elapsed().as_nanos() as u64;
        Timing {
            bytes: n * rec as u64,
            wall_ns,
            cpu_ns: cpu_now_ns() - cpu0,
        }
    }

    /// fwrite of every record through a stream with a one-record buffer;
    /// then, untimed, fflush, fsync and fclose (which closes `fd`).
    fn stdio_writes(&mut self, fd: libc::c_int) -> Timing {
        let rec = self.record;
        // SAFETY: fd is open read-write; the stream owns it from here.
        let stream = unsafe { libc::fdopen(fd, c"r+".as_ptr()) };
        if stream.is_null() {
            fail("fdopen", -1);
        }
        let mut stdio_buf = AlignedBuf::zeroed(rec);
        // SAFETY: a fresh stream; the buffer outlives it (closed below).
        if unsafe { libc::setvbuf(stream, stdio_buf.as_mut_ptr().cast(), libc::_IOFBF, rec) } != 0 {
            fail("setvbuf", -1);
        }
        let src = self.write_buf.as_ptr().cast::<libc::c_void>();
        let cpu0 = cpu_now_ns();
        let start = Instant::now();
        for _ in 0..self.records {
            // SAFETY: src holds a record; the stream is open.
            let n = unsafe { libc::fwrite(src, 1, rec, stream) };
            if n != rec {
                fail("fwrite", n as isize);
            }
        }
        let wall_ns = start.elapsed().as_nanos() as u64;
        let cpu_ns = cpu_now_ns() - cpu0;
        // SAFETY: the stream is open and not used after fclose.
        unsafe {
            if libc::fflush(stream) != 0 || libc::fsync(fd) < 0 {
                fail("fflush/fsync", -1);
            }
            if libc::fclose(stream) != 0 {
                fail("fclose", -1);
            }
        }
        drop(stdio_buf);
        Timing {
            bytes: self.records * rec as u64,
            wall_ns,
            cpu_ns,
        }
    }

    /// Replays the passes of the ioz run that measures `test`, in ioz's
    /// order, so the page cache has the same history; returns the timing
    /// of `test`'s pass.
    fn run(&mut self, test: Test) -> Timing {
        let mut result = None;
        for &t in test.ioz_tests() {
            for &pass in TestId::from_number(t.into())
                .expect("a test number")
                .passes()
            {
                let timing = self.pass(pass);
                if pass == test.pass() {
                    result = Some(timing);
                }
            }
        }
        result.expect("the test's pass is among its run's passes")
    }
}

/// One cell of the table: a test at a record size.
struct Outcome {
    test: Test,
    record: u64,
    median: f64,
    min: f64,
    max: f64,
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: do no I/O then.
    if !std::env::args().any(|a| a == "--bench") {
        println!("overhead: run with `cargo bench --bench overhead`; skipped");
        return;
    }
    // Refused before anything runs when IOZ_BENCH_BIN names no file.
    ioz_binary();
    let size_mb = env_num("IOZ_BENCH_SIZE_MB", 64);
    let pairs = env_num("IOZ_BENCH_PAIRS", 15) as usize;
    let clock = Clock::from_env();
    let only: Option<Vec<String>> = std::env::var("IOZ_BENCH_TESTS")
        .ok()
        .map(|v| v.split(',').map(|t| t.trim().to_string()).collect());
    let selected = |t: &Test| {
        only.as_ref()
            .is_none_or(|o| o.iter().any(|n| n == t.name()))
    };
    let read_records = record_sizes("IOZ_BENCH_READ_RECORDS", "4k");
    let write_records = record_sizes("IOZ_BENCH_WRITE_RECORDS", "4k,64k,1m,16m");
    let dir = std::env::var_os("IOZ_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = std::fs::canonicalize(&dir)
        .unwrap_or_else(|e| panic!("IOZ_BENCH_DIR {}: {e}", dir.display()));
    let path = dir.join(format!("ioz-overhead-bench.{}.tmp", std::process::id()));
    assert!(
        !path.exists(),
        "{} already exists; not touching it",
        path.display()
    );
    let guard = FileGuard(path.clone());
    let file_bytes = size_mb << 20;

    println!("ioz overhead vs bare syscall loop");
    println!("  ioz binary : {}", ioz_binary());
    println!("  file       : {} ({size_mb} MiB)", path.display());
    println!(
        "  pairs      : {pairs} per test and record size, interleaved, the order swapped each pair"
    );
    println!(
        "  clock      : {} (IOZ_BENCH_CLOCK=wall|cpu)",
        match clock {
            Clock::Wall => "wall: each pass's elapsed time",
            Clock::Cpu => "cpu: each pass's user+system CPU time (getrusage)",
        }
    );
    println!("  reads      : bare read/lseek/pread loops into one buffer");
    println!("  writes     : bare loops from one record-sized buffer written once (IOzone's)");
    println!(
        "  data       : ioz --data iozone, the loops' data (the default data's cost: parity 4)"
    );
    println!("  ratio      : ioz rate / bare rate per pair; pass if the median >= {TARGET:.2}");
    println!("  load       : {} (1, 5, 15 min)", load_average());

    let mut cells: Vec<(Test, u64)> = Vec::new();
    for &rec in &read_records {
        cells.extend(
            Test::READS
                .iter()
                .filter(|t| selected(t))
                .map(|&t| (t, rec)),
        );
    }
    for &rec in &write_records {
        cells.extend(
            Test::WRITES
                .iter()
                .filter(|t| selected(t))
                .map(|&t| (t, rec)),
        );
    }

    let mut outcomes = Vec::new();
    let mut bare: Option<Bare> = None;
    for (test, record) in cells {
        assert!(
            file_bytes >= record,
            "a {size_mb} MiB file is smaller than a {} record",
            size_label(record)
        );
        if bare.as_ref().is_none_or(|b| b.record as u64 != record) {
            // Let ioz create (and mark) the file, and cache it; discard the numbers.
            run_ioz(&path, size_mb, record, Test::Reread);
            bare = Some(Bare::new(&path, file_bytes, record));
        }
        let bare = bare.as_mut().expect("made above");
        let tests: Vec<String> = test.ioz_tests().iter().map(|t| format!("-i {t}")).collect();
        println!();
        println!(
            "{} at {} (ioz -s {size_mb}m -r {} {} -w)",
            test.name(),
            size_label(record),
            size_label(record),
            tests.join(" ")
        );
        println!(
            "  {:>4}  {:>12}  {:>12}  {:>7}",
            "pair", "ioz MB/s", "bare MB/s", "ratio"
        );
        let mut ratios = Vec::with_capacity(pairs);
        for p in 1..=pairs {
            // The order swapped every pair, so that what the first run of a
            // pair leaves (or a drift of the machine) falls on both sides.
            let (i, b) = if p % 2 == 1 {
                let i = run_ioz(&path, size_mb, record, test).rate(clock);
                (i, bare.run(test).rate(clock))
            } else {
                let b = bare.run(test).rate(clock);
                (run_ioz(&path, size_mb, record, test).rate(clock), b)
            };
            let r = i / b;
            ratios.push(r);
            // bytes per ns = GB/s; shown in MB/s.
            println!(
                "  {p:>4}  {:>12.0}  {:>12.0}  {r:>7.3}",
                i * 1000.0,
                b * 1000.0
            );
        }
        let o = Outcome {
            test,
            record,
            median: median(&ratios),
            min: ratios.iter().copied().fold(f64::INFINITY, f64::min),
            max: ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        };
        println!(
            "  median ratio {:.3} (min {:.3}, max {:.3})  target {TARGET:.2}  {}",
            o.median,
            o.min,
            o.max,
            verdict(o.median)
        );
        outcomes.push(o);
    }
    drop(guard);

    println!();
    println!(
        "summary: median of {pairs} per-pair ioz/bare ratios, {size_mb} MiB file, {} clock, load {}",
        clock.name(),
        load_average()
    );
    let mut records: Vec<u64> = outcomes.iter().map(|o| o.record).collect();
    records.sort_unstable();
    records.dedup();
    print!("  {:<15}", "test");
    for r in &records {
        print!("  {:>6}", size_label(*r));
    }
    println!();
    let mut tests: Vec<Test> = Vec::new();
    for o in &outcomes {
        if !tests.contains(&o.test) {
            tests.push(o.test);
        }
    }
    for t in tests {
        print!("  {:<15}", t.name());
        for r in &records {
            match outcomes.iter().find(|o| o.test == t && o.record == *r) {
                Some(o) => print!(
                    "  {:>5.3}{}",
                    o.median,
                    if o.median >= TARGET { " " } else { "!" }
                ),
                None => print!("  {:>6}", "-"),
            }
        }
        println!();
    }
    let missed: Vec<&Outcome> = outcomes.iter().filter(|o| o.median < TARGET).collect();
    for o in &missed {
        println!(
            "  below target: {} at {}: {:.3} < {TARGET:.2}",
            o.test.name(),
            size_label(o.record),
            o.median
        );
    }
    println!(
        "overall: {} ({} of {} at or above {TARGET:.2}; `!` marks a miss)",
        if missed.is_empty() { "PASS" } else { "FAIL" },
        outcomes.len() - missed.len(),
        outcomes.len()
    );
    // A missed target fails the benchmark, so a script or CI sees it.
    if !missed.is_empty() {
        std::process::exit(1);
    }
}

fn verdict(median: f64) -> &'static str {
    if median >= TARGET { "PASS" } else { "FAIL" }
}
