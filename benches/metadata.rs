//! `ioz mdtest` and `ioz fileop` against their peers' own calls.
//!
//! mdtest: each pair runs the release `ioz mdtest -n N -F` (its phases
//! timed barrier to barrier, every operation also timed alone into its
//! histogram) and a bare Rust loop that makes mdtest's calls as its trace
//! shows them (tests/fixtures/metadata/mdtest/strace-n12-z1-b2.txt): every
//! item named by its whole path from the directory (`DIR/test-dir.0-0/
//! mdtest_tree.0/file.mdtest.0.<i>`), `open(O_RDWR|O_CREAT, 0664)` and
//! `close`, then `stat`, then `open(O_RDWR)` and `close` (mdtest's read
//! with -e 0), then `unlink`, each phase timed as a whole.
//!
//! fileop: each pair runs `ioz fileop -f X` and a bare loop of fileop's
//! calls in fileop's order (tests/fixtures/metadata/fileop/strace-f2.txt:
//! `chdir` into each directory, one name at a time; each file created,
//! written, fsynced untimed and closed), every operation timed alone as
//! fileop times it. fileop's rate is an operation's count over the sum of
//! its times, which one preemption of a few milliseconds among a few
//! hundred operations of a microsecond doubles: the rates are printed, and
//! the ratio held to the target is that of the operations' median times
//! (ioz's histogram's p50 against the bare loop's median).
//!
//! The ratio is ioz's rate over the bare loop's (for fileop, the bare
//! loop's median time over ioz's). ioz must come within 0.90–1.10 of the
//! peer's calls in every phase and operation (faster by doing less is as
//! wrong as slower), and within 0.95 in mdtest's stat phase, the cheapest
//! (so the one where ioz's clock reads and histogram weigh most). Exits 1
//! when one misses.
//!
//! The peers themselves, when given (IOZ_BENCH_MDTEST, IOZ_BENCH_FILEOP:
//! their binaries), run beside in the same pairs, and their rates (mdtest's
//! SUMMARY mean, fileop's A row) are printed with ioz's ratio to them; no
//! target is held to them (their own loops add their own costs).
//!
//! Run with `cargo bench --bench metadata` (or `benches/metadata.sh`).
//! Environment (all optional):
//! - IOZ_BENCH_ITEMS: mdtest's files per run (default 20000);
//! - IOZ_BENCH_FACTOR: fileop's force factor (default 12);
//! - IOZ_BENCH_PAIRS: pairs (default 7);
//! - IOZ_BENCH_DIR: where the trees go (default: the current directory;
//!   a tmpfs keeps the file system's own cost low and the comparison sharp);
//! - IOZ_BENCH_BIN: another ioz binary to measure instead of this build's;
//! - IOZ_BENCH_MDTEST, IOZ_BENCH_FILEOP: the peers' binaries.

use std::ffi::{CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod common;

use common::{env_num, ioz_binary, load_average, median};

const LOW: f64 = 0.90;
const HIGH: f64 = 1.10;
const STAT_LOW: f64 = 0.95;
const PHASES: [&str; 4] = ["file_creation", "file_stat", "file_read", "file_removal"];
/// mdtest's SUMMARY rows for those phases.
const PHASE_ROWS: [&str; 4] = ["File creation", "File stat", "File read", "File removal"];
/// fileop's operations, in its table's column order.
const FILEOP_OPS: [&str; 15] = [
    "mkdir", "chdir", "rmdir", "create", "open", "read", "write", "close", "stat", "access",
    "chmod", "readdir", "link", "unlink", "delete",
];

// The bare calls, each the one system call (or C's opendir/readdir/closedir)
// and nothing around it.

fn sys_open(path: &CStr, flags: libc::c_int, mode: libc::mode_t) -> libc::c_int {
    // SAFETY: a NUL-terminated path; the mode is a plain integer.
    unsafe { libc::open(path.as_ptr(), flags, mode as libc::c_uint) }
}

fn sys_close(fd: libc::c_int) -> libc::c_int {
    // SAFETY: a descriptor opened here, closed once.
    unsafe { libc::close(fd) }
}

fn sys_stat(path: &CStr) -> libc::c_int {
    // SAFETY: an all-zero stat is a valid value for stat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a stat of our own.
    unsafe { libc::stat(path.as_ptr(), &mut st) }
}

fn sys_unlink(path: &CStr) -> libc::c_int {
    // SAFETY: a NUL-terminated path.
    unsafe { libc::unlink(path.as_ptr()) }
}

fn sys_mkdir(path: &CStr) -> libc::c_int {
    // SAFETY: a NUL-terminated path.
    unsafe { libc::mkdir(path.as_ptr(), 0o755) }
}

fn sys_rmdir(path: &CStr) -> libc::c_int {
    // SAFETY: a NUL-terminated path.
    unsafe { libc::rmdir(path.as_ptr()) }
}

fn sys_chdir(path: &CStr) -> libc::c_int {
    // SAFETY: a NUL-terminated path.
    unsafe { libc::chdir(path.as_ptr()) }
}

fn sys_write1(fd: libc::c_int) -> libc::c_int {
    let byte = [0xA5u8];
    // SAFETY: one byte of our own.
    unsafe { libc::write(fd, byte.as_ptr().cast(), 1) as libc::c_int }
}

fn sys_read1(fd: libc::c_int) -> libc::c_int {
    let mut byte = [0u8];
    // SAFETY: one byte of our own.
    unsafe { libc::read(fd, byte.as_mut_ptr().cast(), 1) as libc::c_int }
}

fn sys_fsync(fd: libc::c_int) -> libc::c_int {
    // SAFETY: a descriptor opened here.
    unsafe { libc::fsync(fd) }
}

fn sys_access(path: &CStr) -> libc::c_int {
    // SAFETY: a NUL-terminated path.
    unsafe { libc::access(path.as_ptr(), libc::W_OK) }
}

fn sys_chmod(path: &CStr) -> libc::c_int {
    // SAFETY: a NUL-terminated path.
    unsafe { libc::chmod(path.as_ptr(), 0o644) }
}

fn sys_link(from: &CStr, to: &CStr) -> libc::c_int {
    // SAFETY: two NUL-terminated paths.
    unsafe { libc::link(from.as_ptr(), to.as_ptr()) }
}

/// fileop's readdir: opendir, one readdir, closedir.
fn sys_readdir_once() -> libc::c_int {
    // SAFETY: a NUL-terminated path.
    let d = unsafe { libc::opendir(c".".as_ptr()) };
    if d.is_null() {
        return -1;
    }
    // SAFETY: the stream just opened, read once and closed once.
    unsafe {
        libc::readdir(d);
        libc::closedir(d)
    }
}

fn check(r: libc::c_int, what: &str) {
    assert!(r >= 0, "{what}: {}", std::io::Error::last_os_error());
}

fn run_ok(command: &mut Command, what: &str) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A saved run's metadata measurements: op → ops/s.
fn saved_rates(json: &Path) -> Vec<(String, f64)> {
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json).expect("the saved run")).expect("JSON");
    let _ = std::fs::remove_file(json);
    doc["metadata"]["measurements"]
        .as_array()
        .expect("measurements")
        .iter()
        .map(|m| {
            (
                m["op"].as_str().unwrap().to_string(),
                m["items"].as_f64().unwrap() * 1e9 / m["elapsed_ns"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn rate_of(rates: &[(String, f64)], op: &str) -> f64 {
    rates
        .iter()
        .find(|(o, _)| o == op)
        .unwrap_or_else(|| panic!("no {op}"))
        .1
}

// ---- mdtest ----

/// ioz's rate of each phase (ops/s), from its saved run.
fn ioz_mdtest(dir: &Path, items: usize) -> [f64; 4] {
    let json = dir.join("ioz-bench-run.json");
    run_ok(
        Command::new(ioz_binary())
            .args(["mdtest", "-n", &items.to_string(), "-F", "-d"])
            .arg(dir)
            .arg("--json")
            .arg(&json)
            .args(["--no-history", "--quiet"]),
        "ioz mdtest",
    );
    let rates = saved_rates(&json);
    PHASES.map(|p| rate_of(&rates, p))
}

/// mdtest's own SUMMARY means, when its binary is given.
fn peer_mdtest(binary: &str, dir: &Path, items: usize) -> [f64; 4] {
    let out = run_ok(
        Command::new(binary)
            .args(["-n", &items.to_string(), "-F", "-d"])
            .arg(dir.join("peer-md")),
        "mdtest",
    );
    PHASE_ROWS.map(|row| {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(row))
            .unwrap_or_else(|| panic!("mdtest printed no {row} row:\n{out}"));
        let numbers: Vec<f64> = line
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .collect();
        numbers[2]
    })
}

/// The bare loops' rate of each phase (ops/s): mdtest's calls on whole
/// paths, on a tree of their own.
fn bare_mdtest(dir: &Path, items: usize) -> [f64; 4] {
    let base: PathBuf = dir.join("test-dir.0-0");
    let tree = base.join("mdtest_tree.0");
    std::fs::create_dir_all(&tree).expect("the bare tree");
    let names: Vec<CString> = (0..items)
        .map(|i| {
            CString::new(
                tree.join(format!("file.mdtest.0.{i}"))
                    .as_os_str()
                    .as_bytes(),
            )
            .unwrap()
        })
        .collect();
    let phase = |call: &dyn Fn(&CStr)| {
        let t = Instant::now();
        for name in &names {
            call(name);
        }
        items as f64 / t.elapsed().as_secs_f64()
    };
    let create = phase(&|n| {
        let f = sys_open(n, libc::O_RDWR | libc::O_CREAT, 0o664);
        check(f, "create");
        check(sys_close(f), "close");
    });
    let stat = phase(&|n| check(sys_stat(n), "stat"));
    let read = phase(&|n| {
        let f = sys_open(n, libc::O_RDWR, 0);
        check(f, "open");
        check(sys_close(f), "close");
    });
    let remove = phase(&|n| check(sys_unlink(n), "unlink"));
    std::fs::remove_dir(&tree).expect("rmdir");
    std::fs::remove_dir(&base).expect("rmdir");
    [create, stat, read, remove]
}

// ---- fileop ----

/// ioz's rate of each of fileop's operations (ops/s), and each one's
/// median time (ns).
fn ioz_fileop(dir: &Path, x: usize) -> ([f64; 15], [f64; 15]) {
    let json = dir.join("ioz-bench-fileop.json");
    run_ok(
        Command::new(ioz_binary())
            .args(["fileop", "-f", &x.to_string(), "-d"])
            .arg(dir)
            .arg("--json")
            .arg(&json)
            .args(["--no-history", "--quiet"]),
        "ioz fileop",
    );
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("the saved run")).expect("JSON");
    let rates = saved_rates(&json);
    let measurements = doc["metadata"]["measurements"]
        .as_array()
        .expect("measurements");
    let p50 = FILEOP_OPS.map(|op| {
        let m = measurements.iter().find(|m| m["op"] == op).expect("the op");
        m["latency"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["percent"] == 50.0)
            .expect("p50")["ns"]
            .as_f64()
            .unwrap()
    });
    (FILEOP_OPS.map(|op| rate_of(&rates, op)), p50)
}

/// fileop's own A row, when its binary is given.
fn peer_fileop(binary: &str, dir: &Path, x: usize) -> [f64; 15] {
    let out = run_ok(
        Command::new(binary)
            .args(["-f", &x.to_string(), "-d"])
            .arg(dir),
        "fileop",
    );
    let row = out
        .lines()
        .find(|l| l.starts_with('A'))
        .unwrap_or_else(|| panic!("fileop printed no A row:\n{out}"));
    let numbers: Vec<f64> = row
        .split_whitespace()
        .skip(2)
        .filter_map(|w| w.parse().ok())
        .collect();
    std::array::from_fn(|k| numbers[k])
}

/// fileop's calls, each timed alone (CLOCK_MONOTONIC before and after, as
/// fileop's clock does), in fileop's order, in `dir`.
struct BareFileop {
    /// Each operation's times, ns.
    times: Vec<Vec<f64>>,
}

impl BareFileop {
    fn timed(&mut self, op: usize, call: impl FnOnce() -> libc::c_int, what: &str) -> libc::c_int {
        let t = Instant::now();
        let r = call();
        self.times[op].push(t.elapsed().as_nanos() as f64);
        check(r, what);
        r
    }
}

fn c(s: String) -> CString {
    CString::new(s).unwrap()
}

fn chdir(name: &CStr) {
    check(sys_chdir(name), "chdir");
}

fn bare_fileop(dir: &Path, x: usize) -> ([f64; 15], [f64; 15]) {
    let here = std::env::current_dir().unwrap();
    let top = dir.join("bare-fileop");
    std::fs::create_dir(&top).unwrap();
    std::env::set_current_dir(&top).unwrap();
    let up = c("..".into());
    let mut b = BareFileop {
        times: (0..15).map(|_| Vec::with_capacity(x * x * x * 2)).collect(),
    };
    let l1 = |i| c(format!("fileop_L1_{i}"));
    let l2 = |i, j| c(format!("fileop_L1_{i}_L2_{j}"));
    let leaf = |i, j, k| c(format!("fileop_dir_{i}_{j}_{k}"));
    let file = |i, j, k| c(format!("fileop_file_{i}_{j}_{k}"));
    let link = |i, j, k| c(format!("fileop_file_{i}_{j}_{k}L"));
    let mkdir = sys_mkdir;
    // The directory test.
    for i in 0..x {
        let n = l1(i);
        b.timed(0, || mkdir(&n), "mkdir");
        chdir(&l1(i));
        for j in 0..x {
            let n = l2(i, j);
            b.timed(0, || mkdir(&n), "mkdir");
            chdir(&l2(i, j));
            for k in 0..x {
                let n = leaf(i, j, k);
                b.timed(0, || mkdir(&n), "mkdir");
                chdir(&leaf(i, j, k));
                chdir(&up);
            }
            chdir(&up);
        }
        chdir(&up);
    }
    let cd = sys_chdir;
    for i in 0..x {
        let n = l1(i);
        b.timed(1, || cd(&n), "chdir");
        for j in 0..x {
            let n = l2(i, j);
            b.timed(1, || cd(&n), "chdir");
            for k in 0..x {
                let n = leaf(i, j, k);
                b.timed(1, || cd(&n), "chdir");
                chdir(&up);
            }
            chdir(&up);
        }
        chdir(&up);
    }
    let rmdir = sys_rmdir;
    for i in 0..x {
        chdir(&l1(i));
        for j in 0..x {
            chdir(&l2(i, j));
            for k in 0..x {
                chdir(&leaf(i, j, k));
                chdir(&up);
                let n = leaf(i, j, k);
                b.timed(2, || rmdir(&n), "rmdir");
            }
            chdir(&up);
            let n = l2(i, j);
            b.timed(2, || rmdir(&n), "rmdir");
        }
        chdir(&up);
        let n = l1(i);
        b.timed(2, || rmdir(&n), "rmdir");
    }
    // The file test, directory by directory.
    let each = |b: &mut BareFileop, body: &mut dyn FnMut(&mut BareFileop, usize, usize)| {
        for i in 0..x {
            chdir(&l1(i));
            for j in 0..x {
                chdir(&l2(i, j));
                body(b, i, j);
                chdir(&up);
            }
            chdir(&up);
        }
    };
    for i in 0..x {
        check(mkdir(&l1(i)), "mkdir");
        chdir(&l1(i));
        for j in 0..x {
            check(mkdir(&l2(i, j)), "mkdir");
            chdir(&l2(i, j));
            for k in 0..x {
                let name = file(i, j, k);
                let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC;
                let fd = b.timed(3, || sys_open(&name, flags, 0o600), "creat");
                b.timed(6, || sys_write1(fd), "write");
                check(sys_fsync(fd), "fsync");
                b.timed(7, || sys_close(fd), "close");
            }
            chdir(&up);
        }
        chdir(&up);
    }
    each(&mut b, &mut |b, i, j| {
        for k in 0..x {
            let n = file(i, j, k);
            b.timed(8, || sys_stat(&n), "stat");
        }
    });
    each(&mut b, &mut |b, i, j| {
        for k in 0..x {
            let name = file(i, j, k);
            let fd = b.timed(4, || sys_open(&name, libc::O_RDONLY, 0), "open");
            b.timed(5, || sys_read1(fd), "read");
            check(sys_close(fd), "close");
        }
    });
    each(&mut b, &mut |b, i, j| {
        for k in 0..x {
            let n = file(i, j, k);
            b.timed(9, || sys_access(&n), "access");
        }
    });
    each(&mut b, &mut |b, i, j| {
        for k in 0..x {
            let n = file(i, j, k);
            b.timed(10, || sys_chmod(&n), "chmod");
        }
    });
    each(&mut b, &mut |b, _, _| {
        b.timed(11, sys_readdir_once, "readdir");
    });
    each(&mut b, &mut |b, i, j| {
        for k in 0..x {
            let (f, l) = (file(i, j, k), link(i, j, k));
            b.timed(12, || sys_link(&f, &l), "link");
        }
    });
    each(&mut b, &mut |b, i, j| {
        for k in 0..x {
            let n = link(i, j, k);
            b.timed(13, || sys_unlink(&n), "unlink");
        }
    });
    for i in 0..x {
        chdir(&l1(i));
        for j in 0..x {
            chdir(&l2(i, j));
            for k in 0..x {
                let n = file(i, j, k);
                b.timed(14, || sys_unlink(&n), "delete");
            }
            chdir(&up);
            check(rmdir(&l2(i, j)), "rmdir");
        }
        chdir(&up);
        check(rmdir(&l1(i)), "rmdir");
    }
    std::env::set_current_dir(here).unwrap();
    std::fs::remove_dir(&top).unwrap();
    let rates =
        std::array::from_fn(|k| b.times[k].len() as f64 * 1e9 / b.times[k].iter().sum::<f64>());
    (rates, std::array::from_fn(|k| median(&b.times[k])))
}

/// One row of the table: ioz's and the bare loop's medians, the median
/// ratio, the peer's median and ioz's ratio to it when it ran; whether the
/// ratio is within [low, HIGH].
fn row(name: &str, ioz: &[f64], bare: &[f64], ratios: &[f64], peer: &[f64], low: f64) -> bool {
    let ratio = median(ratios);
    let peer_part = if peer.is_empty() {
        String::new()
    } else {
        format!(
            " {:>12.0} {:>8.3}",
            median(peer),
            median(ioz) / median(peer)
        )
    };
    let ok = (low..=HIGH).contains(&ratio);
    println!(
        "{:<14} {:>12.0} {:>12.0} {:>8.3}{peer_part}{}",
        name,
        median(ioz),
        median(bare),
        ratio,
        if ok { "" } else { "  MISS" }
    );
    ok
}

fn main() {
    // `cargo bench` passes --bench; anything else (a filter) is ignored.
    // Refused before anything runs when IOZ_BENCH_BIN names no file.
    ioz_binary();
    let peer = |var: &str| {
        std::env::var_os(var).map(|p| {
            let p = p.to_string_lossy().into_owned();
            if !Path::new(&p).is_file() {
                eprintln!("{var}={p}: no such file");
                std::process::exit(2);
            }
            p
        })
    };
    let (mdtest, fileop) = (peer("IOZ_BENCH_MDTEST"), peer("IOZ_BENCH_FILEOP"));
    let items = env_num("IOZ_BENCH_ITEMS", 20_000) as usize;
    let factor = env_num("IOZ_BENCH_FACTOR", 12) as usize;
    let pairs = env_num("IOZ_BENCH_PAIRS", 7) as usize;
    let dir = std::env::var_os("IOZ_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let dir = std::path::absolute(dir).unwrap();
    let mut ok = true;

    let mut ioz_all: [Vec<f64>; 4] = Default::default();
    let mut bare_all: [Vec<f64>; 4] = Default::default();
    let mut ratios: [Vec<f64>; 4] = Default::default();
    let mut peer_all: [Vec<f64>; 4] = Default::default();
    for pair in 0..pairs {
        // Alternate which side goes first, so neither always meets a
        // cache the other warmed.
        let (ioz, bare) = if pair % 2 == 0 {
            let i = ioz_mdtest(&dir, items);
            (i, bare_mdtest(&dir, items))
        } else {
            let b = bare_mdtest(&dir, items);
            (ioz_mdtest(&dir, items), b)
        };
        let theirs = mdtest.as_deref().map(|m| peer_mdtest(m, &dir, items));
        for k in 0..4 {
            ratios[k].push(ioz[k] / bare[k]);
            ioz_all[k].push(ioz[k]);
            bare_all[k].push(bare[k]);
            if let Some(t) = theirs {
                peer_all[k].push(t[k]);
            }
        }
    }
    println!(
        "ioz mdtest -n {items} -F against mdtest's calls, {pairs} pairs (median ops/s; load {})",
        load_average()
    );
    println!(
        "{:<14} {:>12} {:>12} {:>8}{}",
        "phase",
        "ioz",
        "calls",
        "ratio",
        if mdtest.is_some() {
            "       mdtest   ioz/it"
        } else {
            ""
        }
    );
    for (k, phase) in PHASES.iter().enumerate() {
        let low = if *phase == "file_stat" { STAT_LOW } else { LOW };
        ok &= row(
            phase,
            &ioz_all[k],
            &bare_all[k],
            &ratios[k],
            &peer_all[k],
            low,
        );
    }

    let mut ioz_all = vec![Vec::new(); 15];
    let mut bare_all = vec![Vec::new(); 15];
    let mut ratios = vec![Vec::new(); 15];
    let mut peer_all = vec![Vec::new(); 15];
    for pair in 0..pairs {
        let ((ioz, ioz_p50), (bare, bare_p50)) = if pair % 2 == 0 {
            let i = ioz_fileop(&dir, factor);
            (i, bare_fileop(&dir, factor))
        } else {
            let b = bare_fileop(&dir, factor);
            (ioz_fileop(&dir, factor), b)
        };
        let theirs = fileop.as_deref().map(|f| peer_fileop(f, &dir, factor));
        for k in 0..15 {
            ratios[k].push(bare_p50[k] / ioz_p50[k]);
            ioz_all[k].push(ioz[k]);
            bare_all[k].push(bare[k]);
            if let Some(t) = theirs {
                peer_all[k].push(t[k]);
            }
        }
    }
    println!(
        "\nioz fileop -f {factor} against fileop's calls, {pairs} pairs (median of fileop's A, ops/s; \
         ratio: of the operations' median times; load {})",
        load_average()
    );
    println!(
        "{:<14} {:>12} {:>12} {:>8}{}",
        "operation",
        "ioz",
        "calls",
        "ratio",
        if fileop.is_some() {
            "       fileop   ioz/it"
        } else {
            ""
        }
    );
    for (k, op) in FILEOP_OPS.iter().enumerate() {
        ok &= row(op, &ioz_all[k], &bare_all[k], &ratios[k], &peer_all[k], LOW);
    }
    if !ok {
        println!("\nMISS: a ratio is outside {LOW}–{HIGH} (mdtest's stat: {STAT_LOW}–{HIGH})");
        std::process::exit(1);
    }
    println!("\nevery ratio within {LOW}–{HIGH} (mdtest's stat: {STAT_LOW}–{HIGH})");
}
