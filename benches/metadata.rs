//! `ioz mdtest`'s per-operation overhead against a bare loop of the same
//! system calls on the same names.
//!
//! Each pair runs the release `ioz mdtest -n N -F` (its phases timed
//! barrier to barrier, every operation also timed alone into its
//! histogram) and a bare Rust loop that makes exactly ioz's calls on a
//! tree of its own with ioz's names (`mdtest_tree.0/file.mdtest.0.<i>`,
//! relative to a descriptor of the tree's directory): `openat(O_CREAT|
//! O_EXCL)` and `close` per file, then `fstatat`, then `openat` and
//! `close` (mdtest's read with -e 0), then `unlinkat`, each phase timed
//! as a whole. The ratio is ioz's rate over the bare loop's (1.0: parity).
//!
//! Target: the median ratio of the stat phase, the cheapest operation (so
//! the one where ioz's clock reads and histogram weigh most), at least
//! 0.95. The other phases are printed beside it. Exits 1 when stat misses.
//!
//! Run with `cargo bench --bench metadata` (or `benches/metadata.sh`).
//! Environment (all optional):
//! - IOZ_BENCH_ITEMS: the files per run (default 20000);
//! - IOZ_BENCH_PAIRS: pairs (default 7);
//! - IOZ_BENCH_DIR: where the trees go (default: the current directory;
//!   a tmpfs keeps the file system's own cost low and the comparison sharp);
//! - IOZ_BENCH_BIN: another ioz binary to measure instead of this build's.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod common;

use common::{env_num, ioz_binary, median};

const TARGET: f64 = 0.95;
const PHASES: [&str; 4] = ["file_creation", "file_stat", "file_read", "file_removal"];

/// ioz's rate of each phase (ops/s), from its saved run.
fn ioz_rates(dir: &Path, items: usize) -> [f64; 4] {
    let json = dir.join("ioz-bench-run.json");
    let status = Command::new(ioz_binary())
        .args(["mdtest", "-n", &items.to_string(), "-F", "-d"])
        .arg(dir)
        .arg("--json")
        .arg(&json)
        .args(["--no-history", "--quiet"])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("cannot start ioz");
    assert!(status.success(), "ioz mdtest failed");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&json).expect("the saved run")).expect("JSON");
    let _ = std::fs::remove_file(&json);
    let measurements = doc["metadata"]["measurements"]
        .as_array()
        .expect("measurements");
    PHASES.map(|phase| {
        let m = measurements
            .iter()
            .find(|m| m["op"] == phase)
            .unwrap_or_else(|| panic!("no {phase}"));
        m["items"].as_f64().unwrap() * 1e9 / m["elapsed_ns"].as_f64().unwrap()
    })
}

const CREATE_FLAGS: libc::c_int =
    libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW;
const READ_FLAGS: libc::c_int = libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW;

// The bare calls: what ioz's runner calls, with nothing around them.

fn openat(dir: libc::c_int, name: &CString, flags: libc::c_int) -> libc::c_int {
    // SAFETY: a NUL-terminated name in a directory descriptor we hold; the
    // mode is a plain integer.
    unsafe { libc::openat(dir, name.as_ptr(), flags, 0o644 as libc::c_uint) }
}

fn close(fd: libc::c_int) -> libc::c_int {
    // SAFETY: a descriptor opened here, closed once.
    unsafe { libc::close(fd) }
}

fn fstatat(dir: libc::c_int, name: &CString) -> libc::c_int {
    // SAFETY: an all-zero stat is a valid value for fstatat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated name in a directory descriptor we hold, and
    // a stat of our own.
    unsafe { libc::fstatat(dir, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) }
}

fn unlinkat(dir: libc::c_int, name: &CString) -> libc::c_int {
    // SAFETY: a NUL-terminated name in a directory descriptor we hold.
    unsafe { libc::unlinkat(dir, name.as_ptr(), 0) }
}

fn check(r: libc::c_int, what: &str) {
    assert!(r >= 0, "{what}: {}", std::io::Error::last_os_error());
}

/// The bare loops' rate of each phase (ops/s), on a tree of their own.
fn bare_rates(dir: &Path, items: usize) -> [f64; 4] {
    let root: PathBuf = dir.join("bare-mdtest-tree");
    std::fs::create_dir(&root).expect("the bare tree's directory");
    std::fs::create_dir(root.join("mdtest_tree.0")).expect("mdtest_tree.0");
    let c = CString::new(root.as_os_str().as_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    let fd = unsafe {
        libc::open(
            c.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    check(fd, "open the tree");
    let names: Vec<CString> = (0..items)
        .map(|i| CString::new(format!("mdtest_tree.0/file.mdtest.0.{i}")).unwrap())
        .collect();
    let phase = |call: &dyn Fn(&CString)| {
        let t = Instant::now();
        for name in &names {
            call(name);
        }
        items as f64 / t.elapsed().as_secs_f64()
    };
    let create = phase(&|n| {
        let f = openat(fd, n, CREATE_FLAGS);
        check(f, "create");
        check(close(f), "close");
    });
    let stat = phase(&|n| check(fstatat(fd, n), "stat"));
    let read = phase(&|n| {
        let f = openat(fd, n, READ_FLAGS);
        check(f, "open");
        check(close(f), "close");
    });
    let remove = phase(&|n| check(unlinkat(fd, n), "unlink"));
    check(close(fd), "close the tree");
    std::fs::remove_dir(root.join("mdtest_tree.0")).expect("rmdir");
    std::fs::remove_dir(&root).expect("rmdir");
    [create, stat, read, remove]
}

fn main() {
    // `cargo bench` passes --bench; anything else (a filter) is ignored.
    // Refused before anything runs when IOZ_BENCH_BIN names no file.
    ioz_binary();
    let items = env_num("IOZ_BENCH_ITEMS", 20_000) as usize;
    let pairs = env_num("IOZ_BENCH_PAIRS", 7) as usize;
    let dir = std::env::var_os("IOZ_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    let mut ratios: [Vec<f64>; 4] = Default::default();
    let mut ioz_all: [Vec<f64>; 4] = Default::default();
    let mut bare_all: [Vec<f64>; 4] = Default::default();
    for pair in 0..pairs {
        // Alternate which side goes first, so neither always meets a
        // cache the other warmed.
        let (ioz, bare) = if pair % 2 == 0 {
            let i = ioz_rates(&dir, items);
            (i, bare_rates(&dir, items))
        } else {
            let b = bare_rates(&dir, items);
            (ioz_rates(&dir, items), b)
        };
        for k in 0..4 {
            ratios[k].push(ioz[k] / bare[k]);
            ioz_all[k].push(ioz[k]);
            bare_all[k].push(bare[k]);
        }
    }
    println!(
        "ioz mdtest -n {items} -F against bare loops of its calls, {pairs} pairs (median ops/s)"
    );
    println!(
        "{:<14} {:>12} {:>12} {:>8}",
        "phase", "ioz", "bare", "ratio"
    );
    let mut stat_ratio = 0.0;
    for (k, phase) in PHASES.iter().enumerate() {
        let ratio = median(&ratios[k]);
        println!(
            "{:<14} {:>12.0} {:>12.0} {:>8.3}",
            phase,
            median(&ioz_all[k]),
            median(&bare_all[k]),
            ratio
        );
        if *phase == "file_stat" {
            stat_ratio = ratio;
        }
    }
    if stat_ratio < TARGET {
        println!("file_stat: {stat_ratio:.3} is below the target {TARGET}");
        std::process::exit(1);
    }
    println!("file_stat: {stat_ratio:.3}, within the target {TARGET}");
}
