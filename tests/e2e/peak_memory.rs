//! Peak memory: a run holds what its largest cell needs, not the buffers of
//! cells already finished.

use std::mem::MaybeUninit;
use std::process::{Command, Stdio};

use crate::fixtures::{IOZ, Test, Tmpfs, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![a_run_holds_only_the_buffers_of_its_largest_cell => [Tmpfs],]
}

const MIB: u64 = 1024 * 1024;

/// Runs `ioz args…` in `dir` and returns its exit status and its peak
/// resident memory in bytes (the kernel's count for that one process).
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped by wait4, which also gives its own peak"
)]
fn peak_rss(dir: &std::path::Path, args: &[&str]) -> (i32, u64) {
    let child = Command::new(IOZ)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start ioz");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    let mut usage = MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: pid is our own child, not yet waited for (the Child is never
    // waited on); status and usage are valid for writing.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, usage.as_mut_ptr()) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    // SAFETY: wait4 succeeded, so it filled usage.
    let usage = unsafe { usage.assume_init() };
    assert!(
        libc::WIFEXITED(status),
        "ioz did not exit: status {status:#x}"
    );
    // ru_maxrss is in KiB on Linux.
    (libc::WEXITSTATUS(status), usage.ru_maxrss as u64 * 1024)
}

/// Five cells, records of 1 to 16 MiB, with the stdio tests: each cell
/// holds a write pool, a read buffer and a stdio buffer of one record. The
/// run must peak where its largest cell alone does (58 MiB for a debug
/// build, 52 MiB optimised). glibc used to keep freed buffers of the earlier
/// cells in its heap (its mapping threshold grows with the first large
/// free): 8 to 33 MiB more, depending on the lengths of the paths; now none.
fn a_run_holds_only_the_buffers_of_its_largest_cell() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("mnt"), "size=64m");
    let tests = ["-i", "0", "-i", "1", "-i", "6", "-i", "7", "-f", "t.tmp"];
    let run = |records: &[&str]| {
        let mut args = vec!["-s", "16m"];
        for r in records {
            args.extend(["-r", r]);
        }
        args.extend(tests);
        let (code, peak) = peak_rss(&mount.0, &args);
        assert_eq!(code, 0, "ioz {args:?}");
        peak
    };
    let largest_alone = run(&["16m"]);
    let all = run(&["1m", "2m", "4m", "8m", "16m"]);
    assert!(
        all <= largest_alone + 3 * MIB,
        "peak resident memory {} MiB for five cells, {} MiB for the largest alone",
        all / MIB,
        largest_alone / MIB
    );
}
