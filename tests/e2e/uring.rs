//! `--engine io_uring` end to end: every test it applies to at depths 1 and
//! 32, files the synchronous engine's (block for block: see
//! `same_file_as_sync`), O_DIRECT, throughput workers, and the message when
//! the kernel refuses io_uring.
//!
//! Where io_uring is unavailable here, the tests that need it are listed as
//! ignored with the reason.

use std::collections::BTreeSet;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use crate::fixtures::{self, IOZ, Run, Test, ioz, skip, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        every_test_runs_at_depth_1_and_32_with_every_pass_measured => [IoUring],
        files_are_the_sync_engine_s_block_for_block => [IoUring],
        iozone_data_matches_too => [IoUring],
        o_direct_at_depth_32 => [IoUring, ODirect],
        throughput_workers_use_their_own_rings => [IoUring],
        a_refused_io_uring_is_one_clear_error_not_a_fallback,
        refused_fixed_buffers_fall_back_to_plain_requests_with_one_warning => [IoUring],
    ]
}

/// The io_uring tests: write/rewrite, read/reread, random read/write,
/// backward, stride, random mix, pwrite/repwrite, pread/repread.
const TESTS: [&str; 8] = ["0", "1", "2", "3", "5", "8", "9", "10"];

/// `-i N` for each of `tests`.
fn test_args(tests: &[&str]) -> Vec<String> {
    tests
        .iter()
        .flat_map(|t| ["-i".into(), t.to_string()])
        .collect()
}

/// Runs ioz in `dir` with `args` (strings).
fn run(dir: &Path, args: &[String]) -> Run {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    ioz(dir, &args)
}

/// One measurement row of `--csv`: (test, pass, file_bytes, bytes, kib_per_sec).
fn csv_rows(path: &Path) -> Vec<(String, String, u64, u64, u64)> {
    let text = std::fs::read_to_string(path).expect("the --csv file");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no {name} column in {header:?}"))
    };
    let (t, p, fb, b, k) = (
        col("test"),
        col("pass"),
        col("file_bytes"),
        col("bytes"),
        col("kib_per_sec"),
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let num = |i: usize| f[i].parse::<u64>().unwrap_or_else(|_| panic!("{l}"));
            (f[t].to_string(), f[p].to_string(), num(fb), num(b), num(k))
        })
        .collect()
}

/// The (test, pass) pairs of a csv.
fn passes(rows: &[(String, String, u64, u64, u64)]) -> BTreeSet<(String, String)> {
    rows.iter().map(|r| (r.0.clone(), r.1.clone())).collect()
}

fn every_test_runs_at_depth_1_and_32_with_every_pass_measured() {
    let dir = tempfile::tempdir().unwrap();
    let base = |engine: &[&str], csv: &str| {
        let mut a: Vec<String> = ["-s", "1m", "-r", "4k", "-f", "t.tmp", "--csv", csv]
            .iter()
            .map(|s| s.to_string())
            .collect();
        a.extend(test_args(&TESTS));
        a.extend(engine.iter().map(|s| s.to_string()));
        a
    };
    run(dir.path(), &base(&["--engine", "sync"], "sync.csv")).expect_code(0);
    let expected = passes(&csv_rows(&dir.path().join("sync.csv")));
    assert_eq!(expected.len(), 13, "{expected:?}");
    for depth in ["1", "32"] {
        let csv = format!("uring{depth}.csv");
        let r = run(
            dir.path(),
            &base(&["--engine", "io_uring", "--iodepth", depth], &csv),
        );
        r.expect_code(0);
        // The table row has KB, reclen and one number per pass.
        let rows = fixtures::data_rows(&r.stdout);
        assert_eq!(rows.len(), 1, "{}", r.stdout);
        assert_eq!(rows[0].len(), 2 + 13, "{}", r.stdout);
        assert!(rows[0].iter().all(|&v| v > 0), "{}", r.stdout);
        let rows = csv_rows(&dir.path().join(&csv));
        assert_eq!(passes(&rows), expected, "depth {depth}");
        for (test, pass, file_bytes, bytes, kib) in &rows {
            assert_eq!(bytes, file_bytes, "depth {depth}: {test} {pass}");
            assert!(*kib > 0, "depth {depth}: {test} {pass}");
        }
    }
}

/// Runs `tests` with `engine` in a fresh directory, keeping the file (-w);
/// returns its bytes.
fn file_after(tests: &[&str], engine: &[&str], extra: &[&str]) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = ["-s", "2m", "-r", "4k", "-w", "-f", "t.tmp"]
        .iter()
        .chain(engine)
        .chain(extra)
        .map(|s| s.to_string())
        .collect();
    args.extend(test_args(tests));
    let r = run(dir.path(), &args);
    r.expect_code(0);
    std::fs::read(dir.path().join("t.tmp")).unwrap()
}

/// Bytes of a file block, and of the stamp that opens it (the default
/// data's: src/data/stamp.rs).
const BLOCK: usize = 4096;
const STAMP: usize = 8;

/// Whether `file` is what the synchronous engine wrote (`sync`), as far as
/// the default data fixes it. Each 4 KiB block opens with a stamp naming
/// its place in the file, the same whichever engine wrote it: so every
/// block must carry the sync file's stamp (each record went to its offset).
/// The bytes after the stamp come from the write window's slot the write
/// used; writes in flight take successive slots (two in flight never share
/// one), so a random write's record may come from another slot than the
/// synchronous engine's: the rest of the block must be the rest of one of
/// the sync file's blocks (the window's data, not zeros or a torn write).
/// With depth 1 (nothing in flight) the files are equal byte for byte.
fn same_file_as_sync(file: &[u8], sync: &[u8]) -> Result<(), String> {
    if file.len() != sync.len() {
        return Err(format!("{} bytes, sync {}", file.len(), sync.len()));
    }
    let bodies: BTreeSet<&[u8]> = sync
        .chunks(BLOCK)
        .map(|b| &b[STAMP.min(b.len())..])
        .collect();
    for (i, (got, want)) in file.chunks(BLOCK).zip(sync.chunks(BLOCK)).enumerate() {
        let stamp = STAMP.min(got.len());
        if got[..stamp] != want[..stamp] {
            return Err(format!("block {i} has another block's stamp"));
        }
        if !bodies.contains(&got[stamp..]) {
            return Err(format!("block {i} holds data the sync engine never wrote"));
        }
    }
    Ok(())
}

fn files_are_the_sync_engine_s_block_for_block() {
    // The last writing pass decides the file: each of them in turn, with the
    // default random data (every record differs, so order and place matter).
    // Record rewrite (-i 4) writes one record over and over from changing
    // pool slots: the last write must win, as one at a time.
    for tests in [
        &["0"][..],
        &["0", "2"],
        &["0", "8"],
        &["9"],
        &["0", "4"],
        &["0", "1", "2", "3", "5", "8"],
    ] {
        let sync = file_after(tests, &["--engine", "sync"], &[]);
        for depth in ["1", "32"] {
            let uring = file_after(tests, &["--engine", "io_uring", "--iodepth", depth], &[]);
            if depth == "1" {
                assert!(uring == sync, "tests {tests:?} depth 1: contents differ");
            }
            if let Err(e) = same_file_as_sync(&uring, &sync) {
                panic!("tests {tests:?} depth {depth}: {e}");
            }
        }
    }
}

fn iozone_data_matches_too() {
    let tests = ["0", "2", "9"];
    let sync = file_after(&tests, &["--data", "iozone"], &[]);
    let uring = file_after(
        &tests,
        &[
            "--data",
            "iozone",
            "--engine",
            "io_uring",
            "--iodepth",
            "32",
        ],
        &[],
    );
    assert!(uring == sync, "contents differ");
}

fn o_direct_at_depth_32() {
    let tests = ["0", "1", "2", "8"];
    let uring = file_after(
        &tests,
        &["--engine", "io_uring", "--iodepth", "32"],
        &["-I"],
    );
    let sync = file_after(&tests, &["--engine", "sync"], &["-I"]);
    if let Err(e) = same_file_as_sync(&uring, &sync) {
        panic!("{e}");
    }
}

fn throughput_workers_use_their_own_rings() {
    let dir = tempfile::tempdir().unwrap();
    let r = ioz(
        dir.path(),
        &[
            "-t",
            "2",
            "-s",
            "512k",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "-i",
            "2",
            "--engine",
            "io_uring",
            "--iodepth",
            "8",
        ],
    );
    r.expect_code(0);
    for label in [
        "initial writers",
        "readers",
        "random readers",
        "random writers",
    ] {
        let line = format!(" 2 {label} \t");
        assert!(r.stdout.contains(&line), "{label}: {}", r.stdout);
    }
}

/// Runs ioz with io_uring_setup refused by a seccomp filter (EPERM), as a
/// container runtime's default profile does.
fn ioz_without_io_uring(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(IOZ);
    cmd.args(args).current_dir(dir);
    // SAFETY: only async-signal-safe prctl calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let mut filter = [
                // A = seccomp_data.nr
                libc::sock_filter {
                    code: (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16,
                    jt: 0,
                    jf: 0,
                    k: 0,
                },
                libc::sock_filter {
                    code: (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16,
                    jt: 0,
                    jf: 1,
                    k: libc::SYS_io_uring_setup as u32,
                },
                libc::sock_filter {
                    code: (libc::BPF_RET | libc::BPF_K) as u16,
                    jt: 0,
                    jf: 0,
                    k: libc::SECCOMP_RET_ERRNO | libc::EPERM as u32,
                },
                libc::sock_filter {
                    code: (libc::BPF_RET | libc::BPF_K) as u16,
                    jt: 0,
                    jf: 0,
                    k: libc::SECCOMP_RET_ALLOW,
                },
            ];
            let prog = libc::sock_fprog {
                len: filter.len() as u16,
                filter: filter.as_mut_ptr(),
            };
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                || libc::prctl(
                    libc::PR_SET_SECCOMP,
                    libc::SECCOMP_MODE_FILTER,
                    &prog as *const libc::sock_fprog,
                ) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    fixtures::run(&mut cmd)
}

fn a_refused_io_uring_is_one_clear_error_not_a_fallback() {
    let dir = tempfile::tempdir().unwrap();
    let r = ioz_without_io_uring(
        dir.path(),
        &[
            "-s",
            "4m",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "-i",
            "2",
            "--engine",
            "io_uring",
            "--iodepth",
            "16",
            "-f",
            "t.tmp",
        ],
    );
    r.expect_code(1);
    // Warnings aside (the file fits in RAM), one line says why.
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("ioz: warning"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", r.stderr);
    assert!(
        lines[0].contains(
            "io_uring is not available on this system (io_uring_setup: Operation not permitted)"
        ),
        "{}",
        r.stderr
    );
    assert!(
        fixtures::data_rows(&r.stdout).is_empty(),
        "no results: {}",
        r.stdout
    );
    // The file ioz created for the run is gone.
    assert!(!dir.path().join("t.tmp").exists());
    // The same filter leaves the other engines alone.
    ioz_without_io_uring(
        dir.path(),
        &["-s", "64k", "-r", "4k", "-i", "0", "-f", "t.tmp"],
    )
    .expect_code(0);
}

/// RLIMIT_MEMLOCK for [`ioz_with_little_memlock`]: room for the rings of a
/// few workers (the kernel counts them too, and frees a closed one's a little
/// later), not for the loop's buffers (the read slots and a pool of 1–2 MiB).
const MEMLOCK_KIB: u64 = 512;

/// Runs ioz as a user without CAP_IPC_LOCK whose RLIMIT_MEMLOCK is
/// [`MEMLOCK_KIB`]: the kernel then refuses to register (pin) its buffers,
/// as it does for an ordinary user with a small limit.
fn ioz_with_little_memlock(dir: &Path, args: &[String]) -> Run {
    let mut cmd = Command::new(IOZ);
    cmd.args(args).current_dir(dir);
    // SAFETY: only async-signal-safe prctl/setrlimit calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            // CAP_IPC_LOCK (14) exempts root from the limit; out of the
            // bounding set, the exec'd ioz does not get it. Without
            // CAP_SETPCAP this fails, and ioz has no CAP_IPC_LOCK anyway.
            libc::prctl(libc::PR_CAPBSET_DROP, 14, 0, 0, 0);
            let limit = libc::rlimit {
                rlim_cur: MEMLOCK_KIB * 1024,
                rlim_max: MEMLOCK_KIB * 1024,
            };
            if libc::setrlimit(libc::RLIMIT_MEMLOCK, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    fixtures::run(&mut cmd)
}

/// The lines of `stderr` that say the buffers were not registered.
fn refusals(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.contains("io_uring did not register"))
        .collect()
}

fn refused_fixed_buffers_fall_back_to_plain_requests_with_one_warning() {
    let tests = ["0", "1", "2", "8"];
    let sync = file_after(&tests, &["--engine", "sync"], &[]);
    let dir = tempfile::tempdir().unwrap();
    let mut args: Vec<String> = [
        "-s",
        "2m",
        "-r",
        "4k",
        "-w",
        "-f",
        "t.tmp",
        "--engine",
        "io_uring",
        "--iodepth",
        "32",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(test_args(&tests));
    let r = ioz_with_little_memlock(dir.path(), &args);
    if r.code == Some(1) && r.stderr.contains("io_uring is not available") {
        // The kernel counted the ring itself against the limit: as a user
        // other than root, with the rings of this user's other processes
        // (other tests running at the same time). Nothing to fall back from.
        skip(format!(
            "under RLIMIT_MEMLOCK = {MEMLOCK_KIB} KiB the kernel refused the ring itself: {}",
            r.stderr.lines().last().unwrap_or_default()
        ));
    }
    r.expect_code(0);
    let told = refusals(&r.stderr);
    if told.is_empty() {
        skip(format!(
            "this kernel registered the buffers despite RLIMIT_MEMLOCK = {MEMLOCK_KIB} KiB"
        ));
    }
    // One line for the whole run (four passes), with the reason and the limit.
    assert_eq!(told.len(), 1, "{}", r.stderr);
    assert!(
        told[0].starts_with("ioz: warning: io_uring did not register the ")
            && told[0].contains(&format!(
                "(IORING_REGISTER_BUFFERS: Out of memory; RLIMIT_MEMLOCK is {MEMLOCK_KIB} KiB)"
            ))
            && told[0].ends_with("plain reads and writes instead of fixed-buffer ones"),
        "{}",
        told[0]
    );
    // Every pass was measured, and the file is the synchronous engine's.
    assert_eq!(fixtures::data_rows(&r.stdout).len(), 1, "{}", r.stdout);
    let file = std::fs::read(dir.path().join("t.tmp")).unwrap();
    if let Err(e) = same_file_as_sync(&file, &sync) {
        panic!("not the sync engine's file: {e}");
    }

    // Forked throughput workers, phase after phase: still one warning.
    let r = ioz_with_little_memlock(
        dir.path(),
        &[
            "-t",
            "3",
            "-s",
            "512k",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "-i",
            "2",
            "--engine",
            "io_uring",
            "--iodepth",
            "8",
            "-F",
            "a.tmp",
            "b.tmp",
            "c.tmp",
        ]
        .map(String::from),
    );
    r.expect_code(0);
    assert_eq!(refusals(&r.stderr).len(), 1, "{}", r.stderr);
    assert!(r.stdout.contains(" 3 random readers \t"), "{}", r.stdout);
}
