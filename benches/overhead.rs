//! ioz's overhead against a bare loop of the same syscalls on the same file.
//!
//! For each of reread, read, rewrite and random read, this runs interleaved
//! pairs of (the release `ioz` binary, a bare Rust loop of libc
//! read/write/lseek) on one cached test file with 4 KiB records, and compares
//! the kB/s of each pair. The bare side replays every pass of the ioz run
//! (e.g. write, rewrite, read, reread for `-i 0 -i 1`) so the page cache has
//! the same history when the measured pass runs; only that pass is compared. The bare loop uses what ioz's timed loop uses: a
//! page-aligned 4 KiB read buffer, a 1 MiB page-aligned pool of random bytes
//! (write i sends pool slot i % 256), IOzone's random permutation for random
//! read, an lseek only where the next offset is not the file position, and an
//! untimed open/fsync before and fsync/close after the loop.
//!
//! Run with `cargo bench --bench overhead` (or `benches/overhead.sh`).
//! Environment: IOZ_BENCH_SIZE_MB (default 256), IOZ_BENCH_PAIRS (default 7),
//! IOZ_BENCH_DIR (default: the current directory).

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use ioz::data::buffer::{AlignedBuf, fill};
use ioz::data::pattern::random_permutation;
use ioz::model::config::DataPattern;

const IOZ: &str = env!("CARGO_BIN_EXE_ioz");
const RECORD: usize = 4096;
const POOL_BYTES: usize = 1 << 20;
const TARGET: f64 = 0.97;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Test {
    Reread,
    Read,
    Rewrite,
    RandomRead,
}

impl Test {
    const ALL: [Test; 4] = [Test::Reread, Test::Read, Test::Rewrite, Test::RandomRead];

    fn name(self) -> &'static str {
        match self {
            Test::Reread => "reread",
            Test::Read => "read",
            Test::Rewrite => "rewrite",
            Test::RandomRead => "random read",
        }
    }

    /// The `-i` tests of the ioz run that measures this one.
    fn ioz_tests(self) -> &'static [u32] {
        match self {
            Test::Reread | Test::Read => &[0, 1],
            Test::Rewrite => &[0],
            Test::RandomRead => &[0, 2],
        }
    }

    /// This test's column among the columns of `ioz_tests`.
    fn column(self) -> &'static str {
        match self {
            Test::Reread => "reread",
            Test::Read => "read",
            Test::Rewrite => "rewrite",
            Test::RandomRead => "randread",
        }
    }
}

/// The table columns each `-i` test fills, in table order.
fn columns_of(test: u32) -> [&'static str; 2] {
    match test {
        0 => ["write", "rewrite"],
        1 => ["read", "reread"],
        2 => ["randread", "randwrite"],
        _ => unreachable!("the bench only runs -i 0, 1 and 2"),
    }
}

/// kB/s as ioz computes it: kB = 1024 bytes, truncated.
fn kbps(bytes: u64, secs: f64) -> u64 {
    ((bytes as f64 / secs) as u64) >> 10
}

fn env_num(name: &str, default: u64) -> u64 {
    match std::env::var(name) {
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => n,
            _ => panic!("{name}={v:?}: expected a positive integer"),
        },
        Err(_) => default,
    }
}

/// Removes the benchmark file when the bench ends, however it ends.
struct FileGuard(PathBuf);

impl Drop for FileGuard {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs ioz on the benchmark file and returns the kB/s in `test`'s column.
fn run_ioz(path: &Path, size_mb: u64, tests: &[u32], column: &str) -> u64 {
    let mut cmd = Command::new(IOZ);
    cmd.args(["-s", &format!("{size_mb}m"), "-r", "4k"]);
    for t in tests {
        cmd.args(["-i", &t.to_string()]);
    }
    cmd.arg("-w").arg("-f").arg(path);
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {IOZ}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        panic!(
            "ioz failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The data row follows the header line "KB reclen write …". Blank columns
    // (tests not run) vanish when split on whitespace, leaving KB, reclen and
    // the columns of the tests that ran, in table order.
    let mut lines = stdout.lines();
    lines
        .by_ref()
        .find(|l| l.split_whitespace().take(2).eq(["KB", "reclen"]))
        .unwrap_or_else(|| panic!("no table header in ioz output:\n{stdout}"));
    let row: Vec<&str> = lines
        .find(|l| !l.trim().is_empty())
        .unwrap_or_else(|| panic!("no data row in ioz output:\n{stdout}"))
        .split_whitespace()
        .collect();
    let names: Vec<&str> = tests.iter().flat_map(|&t| columns_of(t)).collect();
    let expected_kb = (size_mb << 10).to_string();
    assert!(
        row.len() == 2 + names.len() && row[0] == expected_kb && row[1] == "4",
        "unexpected ioz data row {row:?} for columns {names:?}"
    );
    let idx = names.iter().position(|n| *n == column).expect("column");
    row[2 + idx]
        .parse()
        .unwrap_or_else(|_| panic!("bad {column} value {:?}", row[2 + idx]))
}

/// The passes of ioz's tests 0, 1 and 2, in the order ioz runs them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum BarePass {
    Write,
    Rewrite,
    Read,
    Reread,
    RandomRead,
    RandomWrite,
}

impl BarePass {
    fn of_test(test: u32) -> [BarePass; 2] {
        match test {
            0 => [BarePass::Write, BarePass::Rewrite],
            1 => [BarePass::Read, BarePass::Reread],
            2 => [BarePass::RandomRead, BarePass::RandomWrite],
            _ => unreachable!("the bench only runs -i 0, 1 and 2"),
        }
    }
}

/// The bare loop's inputs, prepared once, before any clock starts.
struct Bare {
    path: CString,
    records: u64,
    read_buf: AlignedBuf,
    pool: AlignedBuf,
    /// Byte offsets of the random passes, in IOzone's order.
    random_offsets: Vec<u64>,
}

#[cold]
#[inline(never)]
fn fail(what: &str, ret: isize) -> ! {
    panic!(
        "bare {what} returned {ret}: {}",
        std::io::Error::last_os_error()
    )
}

impl Bare {
    fn new(path: &Path, file_bytes: u64) -> Bare {
        let records = file_bytes / RECORD as u64;
        let mut pool = AlignedBuf::zeroed(POOL_BYTES);
        fill(&mut pool, DataPattern::Random, 0x5eed);
        Bare {
            path: CString::new(path.as_os_str().as_bytes()).expect("path has a NUL byte"),
            records,
            read_buf: AlignedBuf::zeroed(RECORD),
            pool,
            random_offsets: random_permutation(records)
                .into_iter()
                .map(|r| r * RECORD as u64)
                .collect(),
        }
    }

    /// One pass over the whole file, opened, fsynced, then closed as ioz does;
    /// returns its kB/s. Only the loop is timed.
    fn pass(&mut self, pass: BarePass) -> u64 {
        let writable = matches!(
            pass,
            BarePass::Write | BarePass::Rewrite | BarePass::RandomWrite
        );
        let mut flags = libc::O_CLOEXEC;
        flags |= if writable {
            libc::O_RDWR
        } else {
            libc::O_RDONLY
        };
        if pass == BarePass::Write {
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
        let n = self.records;
        let buf = self.read_buf.as_mut_ptr().cast::<libc::c_void>();
        let pool = self.pool.as_ptr();
        let slots = (POOL_BYTES / RECORD) as u64;
        let start = Instant::now();
        match pass {
            BarePass::Read | BarePass::Reread => {
                for _ in 0..n {
                    // SAFETY: buf holds RECORD bytes.
                    let r = unsafe { libc::read(fd, buf, RECORD) };
                    if r != RECORD as isize {
                        fail("read", r);
                    }
                }
            }
            BarePass::Write | BarePass::Rewrite => {
                for i in 0..n {
                    // SAFETY: slot i % slots lies inside the pool.
                    let src = unsafe { pool.add((i % slots) as usize * RECORD) };
                    // SAFETY: src..src+RECORD lies inside the pool.
                    let r = unsafe { libc::write(fd, src.cast(), RECORD) };
                    if r != RECORD as isize {
                        fail("write", r);
                    }
                }
            }
            BarePass::RandomRead | BarePass::RandomWrite => {
                let reads = pass == BarePass::RandomRead;
                let mut position = 0u64;
                for (i, &offset) in self.random_offsets.iter().enumerate() {
                    if offset != position {
                        // SAFETY: plain syscall on our descriptor.
                        let r = unsafe { libc::lseek(fd, offset as libc::off_t, libc::SEEK_SET) };
                        if r < 0 {
                            fail("lseek", r as isize);
                        }
                    }
                    let r = if reads {
                        // SAFETY: buf holds RECORD bytes.
                        unsafe { libc::read(fd, buf, RECORD) }
                    } else {
                        // SAFETY: slot i % slots lies inside the pool.
                        let src = unsafe { pool.add((i as u64 % slots) as usize * RECORD) };
                        // SAFETY: src..src+RECORD lies inside the pool.
                        unsafe { libc::write(fd, src.cast(), RECORD) }
                    };
                    if r != RECORD as isize {
                        fail(if reads { "read" } else { "write" }, r);
                    }
                    position = offset + RECORD as u64;
                }
            }
        }
        let secs = start.elapsed().as_nanos().max(1) as f64 / 1e9;
        // SAFETY: plain syscalls on our descriptor, which is not used again.
        unsafe {
            if writable && libc::fsync(fd) < 0 {
                fail("fsync", -1);
            }
            if libc::close(fd) < 0 {
                fail("close", -1);
            }
        }
        kbps(n * RECORD as u64, secs)
    }

    /// Replays the passes of the ioz run that measures `test`, in ioz's order,
    /// so the file's page cache has the same history (a read after writes
    /// finds freshly written pages; a reread finds pages read once, which the
    /// kernel then activates); returns the kB/s of `test`'s pass.
    fn run(&mut self, test: Test) -> u64 {
        let mut result = None;
        for &t in test.ioz_tests() {
            for (pass, column) in BarePass::of_test(t).into_iter().zip(columns_of(t)) {
                let kbps = self.pass(pass);
                if column == test.column() {
                    result = Some(kbps);
                }
            }
        }
        result.expect("the test's pass is among its run's passes")
    }
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    if s.len() % 2 == 1 {
        s[m]
    } else {
        (s[m - 1] + s[m]) / 2.0
    }
}

struct Summary {
    test: Test,
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
    let size_mb = env_num("IOZ_BENCH_SIZE_MB", 256);
    let pairs = env_num("IOZ_BENCH_PAIRS", 7) as usize;
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
    println!("  ioz binary : {IOZ}");
    println!("  file       : {}", path.display());
    println!(
        "  size       : {size_mb} MiB, 4 KiB records ({} records), {pairs} pairs per test",
        file_bytes / RECORD as u64
    );
    println!("  ratio      : ioz kB/s / bare kB/s per pair; pass if median >= {TARGET:.2}");

    // Let ioz create (and mark) the file, and cache it; discard the numbers.
    run_ioz(&path, size_mb, &[0, 1], "reread");
    let mut bare = Bare::new(&path, file_bytes);

    let mut summaries = Vec::new();
    for test in Test::ALL {
        let tests = test.ioz_tests();
        let flags: Vec<String> = tests.iter().map(|t| format!("-i {t}")).collect();
        println!();
        println!(
            "{} (ioz -s {size_mb}m -r 4k {} -w; column {})",
            test.name(),
            flags.join(" "),
            test.column()
        );
        println!(
            "  {:>4}  {:>12}  {:>12}  {:>7}",
            "pair", "ioz kB/s", "bare kB/s", "ratio"
        );
        let mut ratios = Vec::with_capacity(pairs);
        for p in 1..=pairs {
            let i = run_ioz(&path, size_mb, tests, test.column());
            let b = bare.run(test);
            let r = i as f64 / b as f64;
            ratios.push(r);
            println!("  {p:>4}  {i:>12}  {b:>12}  {r:>7.3}");
        }
        let s = Summary {
            test,
            median: median(&ratios),
            min: ratios.iter().copied().fold(f64::INFINITY, f64::min),
            max: ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        };
        println!(
            "  median ratio {:.3} (min {:.3}, max {:.3})  target {TARGET:.2}  {}",
            s.median,
            s.min,
            s.max,
            verdict(s.median)
        );
        summaries.push(s);
    }
    drop(guard);

    println!();
    println!(
        "summary (median of per-pair ioz/bare ratios, {pairs} pairs, {size_mb} MiB, 4 KiB records)"
    );
    println!(
        "  {:<12}  {:>6}  {:>6}  {:>6}  {:>6}  verdict",
        "test", "median", "min", "max", "target"
    );
    for s in &summaries {
        println!(
            "  {:<12}  {:>6.3}  {:>6.3}  {:>6.3}  {:>6.2}  {}",
            s.test.name(),
            s.median,
            s.min,
            s.max,
            TARGET,
            verdict(s.median)
        );
    }
    let all = summaries.iter().all(|s| s.median >= TARGET);
    println!("overall: {}", if all { "PASS" } else { "FAIL" });
    // A missed target fails the benchmark, so a script or CI sees it.
    if !all {
        std::process::exit(1);
    }
}

fn verdict(median: f64) -> &'static str {
    if median >= TARGET { "PASS" } else { "FAIL" }
}
