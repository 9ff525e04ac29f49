//! Runs that end early: a full file system, SIGINT and SIGTERM.
//!
//! The tests on a small tmpfs need root; without it they are listed as
//! ignored with the reason.

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::fixtures::{IOZ, Test, Tmpfs, ioz, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_plan_larger_than_the_free_space_is_refused_before_any_io => [Tmpfs],
        a_disk_that_fills_up_mid_run_ends_the_run_cleanly => [Tmpfs],
        sigint_stops_the_run_with_status_130,
        sigterm_stops_the_run_with_status_143,
        a_reader_that_goes_away_after_the_header_is_not_success,
        a_full_standard_output_is_an_error_with_a_message => [DevFull],
        a_read_only_file_system_is_refused_before_any_io => [Tmpfs],
        sighup_stops_the_run_with_status_129,
        a_test_file_removed_mid_run_ends_it_with_one_clear_line,
        a_mount_point_that_disappears_mid_run_ends_it_cleanly => [Tmpfs],
        a_second_sigint_leaves_at_once_and_still_removes_the_file,
    ]
}

/// stderr without ioz's warnings.
fn errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| !l.starts_with("ioz: warning:"))
        .collect()
}

fn a_plan_larger_than_the_free_space_is_refused_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("mnt"), "size=256k");
    std::fs::write(mount.0.join("foreign"), b"keep me").unwrap();
    let target = mount.0.join("t.tmp");
    let run = ioz(
        dir.path(),
        &[
            "-s",
            "2m",
            "-r",
            "64k",
            "-i",
            "0",
            "-f",
            target.to_str().unwrap(),
        ],
    );
    run.expect_code(2);
    let lines = errors(&run.stderr);
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].contains("needs 2.0 MiB") && lines[0].contains("KiB is free there"),
        "{}",
        lines[0]
    );
    assert_eq!(run.stdout, "", "nothing runs");
    assert_eq!(list_dir(&mount.0), vec!["foreign"]);
}

fn a_disk_that_fills_up_mid_run_ends_the_run_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("mnt"), "size=12m");
    let target = mount.0.join("t.tmp");
    let target_text = target.to_str().unwrap().to_string();
    // 8-byte records make the write pass long (a million writes), so the disk
    // can be filled by someone else while it runs.
    let mut child = Command::new(IOZ)
        .args(["-s", "8m", "-r", "8b", "-i", "0", "-f", &target_text])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start ioz");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    assert!(
        lines.any(|l| l.unwrap_or_default().trim_start().starts_with("KB  reclen")),
        "no table header"
    );
    // Someone else's file takes every free byte.
    let filler = mount.0.join("filler");
    let mut f = std::fs::File::create(&filler).unwrap();
    let chunk = vec![0xa5u8; 64 << 10];
    let mut written = 0u64;
    while let Ok(n) = std::io::Write::write(&mut f, &chunk) {
        if n == 0 {
            break;
        }
        written += n as u64;
    }
    drop(f);
    let _rest: Vec<_> = lines.collect();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    let line = errors(&stderr)
        .into_iter()
        .find(|l| l.contains("No space left on device"))
        .unwrap_or_else(|| panic!("no ENOSPC line in:\n{stderr}"));
    for needle in [target_text.as_str(), "write", "offset"] {
        assert!(line.contains(needle), "{needle:?} missing from {line:?}");
    }
    assert_eq!(
        list_dir(&mount.0),
        vec!["filler"],
        "ioz's file was left, or the filler removed"
    );
    assert_eq!(
        std::fs::metadata(&filler).unwrap().len(),
        written,
        "the foreign file changed"
    );
}

/// Starts a run slow enough to be interrupted, waits until it is inside the
/// first timed pass, sends `signal`, and checks ioz stops on its own.
fn interrupt(signal: &str, name: &str, expected_code: i32) {
    let dir = tempfile::tempdir().unwrap();
    // 16384 O_SYNC writes of 4 KiB, then as many rewrites: seconds of work.
    let mut child = Command::new(IOZ)
        .args([
            "-a", "-n", "64m", "-g", "64m", "-z", "-y", "4k", "-q", "4k", "-i", "0", "-i", "1",
            "-o", "-f", "t.tmp",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start ioz");

    let stdout = child.stdout.take().unwrap();
    let (header_seen, header_wait) = mpsc::channel();
    let reader = thread::spawn(move || {
        let mut text = String::new();
        let mut lines = BufReader::new(stdout).lines();
        for line in lines.by_ref() {
            let line = line.unwrap_or_default();
            if line.trim_start().starts_with("KB  reclen") {
                let _ = header_seen.send(());
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    });
    let mut stderr_pipe = child.stderr.take().unwrap();
    let stderr_reader = thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr_pipe.read_to_string(&mut s);
        s
    });

    let _ = header_wait.recv_timeout(Duration::from_secs(10));
    thread::sleep(Duration::from_millis(300));
    let status = Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .expect("cannot run kill");
    assert!(status.success(), "kill -{signal} failed");

    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("ioz did not stop within 20 s of {name}");
        }
        thread::sleep(Duration::from_millis(20));
    };
    let stdout = reader.join().unwrap();
    let stderr = stderr_reader.join().unwrap();
    let context = format!("--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");

    assert_eq!(
        status.signal(),
        None,
        "ioz was killed by signal {:?} instead of exiting on its own\n{context}",
        status.signal()
    );
    assert_ne!(
        status.code(),
        Some(0),
        "the run finished before {name} arrived; make it slower\n{context}"
    );
    assert_eq!(status.code(), Some(expected_code), "{context}");
    assert!(
        stderr.contains(name),
        "stderr does not mention {name}\n{context}"
    );
    assert!(
        stderr.lines().all(|l| l.starts_with("ioz: ")),
        "unexpected stderr\n{context}"
    );
    assert!(
        !dir.path().join("t.tmp").exists(),
        "t.tmp was left behind\n{context}"
    );
    assert_eq!(list_dir(dir.path()), Vec::<String>::new(), "{context}");
}

fn sigint_stops_the_run_with_status_130() {
    interrupt("INT", "SIGINT", 130);
}

fn sigterm_stops_the_run_with_status_143() {
    interrupt("TERM", "SIGTERM", 143);
}

fn a_reader_that_goes_away_after_the_header_is_not_success() {
    let dir = tempfile::tempdir().unwrap();
    // 4096 O_SYNC writes and rewrites: the reader is gone long before the row.
    let mut child = Command::new(IOZ)
        .args(["-s", "16m", "-r", "4k", "-i", "0", "-o", "-f", "t.tmp"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start ioz");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert!(
        lines.any(|l| l.unwrap_or_default().trim_start().starts_with("KB  reclen")),
        "no table header"
    );
    drop(lines); // closes the read end of the pipe, as `sed '/reclen/q'` does
    let status = child.wait().unwrap();
    assert_eq!(
        status.signal(),
        None,
        "killed by signal {:?}",
        status.signal()
    );
    // The run could not deliver its results: like any stop by SIGPIPE, 128 + 13.
    assert_eq!(status.code(), Some(141));
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn a_full_standard_output_is_an_error_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(IOZ)
        .args(["-s", "64k", "-i", "0", "-f", "t.tmp"])
        .current_dir(dir.path())
        .stdout(full)
        .output()
        .expect("cannot start ioz");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot write the results to standard output")
            && err.contains("No space left"),
        "{err}"
    );
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn a_read_only_file_system_is_refused_before_any_io() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("ro"), "size=256k,ro");
    let target = mount.0.join("t.tmp");
    let run = ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "-f", target.to_str().unwrap()],
    );
    // Found by the check before the run (it was the first pass's create).
    let line = crate::fixtures::assert_refused(&run, "is on a read-only file system");
    assert!(line.contains(target.to_str().unwrap()), "{line}");
}

/// Starts `ioz args` in `dir` and returns it once the table header is out,
/// with the rest of stdout drained in the background.
fn start_after_header(dir: &Path, args: &[&str]) -> std::process::Child {
    let mut child = Command::new(IOZ)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start ioz");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    assert!(
        lines.any(|l| l.unwrap_or_default().trim_start().starts_with("KB  reclen")),
        "no table header"
    );
    thread::spawn(move || lines.for_each(drop));
    child
}

fn finish(child: std::process::Child) -> (Option<i32>, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn sighup_stops_the_run_with_status_129() {
    interrupt("HUP", "SIGHUP", 129);
}

fn a_test_file_removed_mid_run_ends_it_with_one_clear_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("foreign"), b"keep me").unwrap();
    // A million 8-byte writes: the file can be removed while they run.
    let child = start_after_header(
        dir.path(),
        &["-s", "8m", "-r", "8b", "-i", "0", "-i", "1", "-f", "t.tmp"],
    );
    // The header comes before the file is created: wait for it.
    let file = dir.path().join("t.tmp");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !file.exists() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(5));
    }
    std::fs::remove_file(&file).unwrap();
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(1), "{stderr}");
    let lines = errors(&stderr);
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("t.tmp") && lines[0].contains("No such file"),
        "{}",
        lines[0]
    );
    assert_eq!(list_dir(dir.path()), vec!["foreign"]);
    assert_eq!(
        std::fs::read(dir.path().join("foreign")).unwrap(),
        b"keep me"
    );
}

fn a_mount_point_that_disappears_mid_run_ends_it_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("mnt"), "size=16m");
    let target = mount.0.join("t.tmp");
    let child = start_after_header(
        dir.path(),
        &[
            "-s",
            "8m",
            "-r",
            "8b",
            "-i",
            "0",
            "-i",
            "1",
            "-f",
            target.to_str().unwrap(),
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !target.exists() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(5));
    }
    // Detach the file system under the running benchmark.
    let detached = Command::new("umount")
        .arg("-l")
        .arg(&mount.0)
        .status()
        .is_ok_and(|s| s.success());
    assert!(detached, "umount -l failed");
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(1), "{stderr}");
    let lines = errors(&stderr);
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains(target.to_str().unwrap()), "{}", lines[0]);
    assert_eq!(
        list_dir(&mount.0),
        Vec::<String>::new(),
        "a file appeared under the old mount point"
    );
}

fn a_second_sigint_leaves_at_once_and_still_removes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    // ioz's own file, kept by a first run.
    ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "-w", "--quiet", "-f", "t.tmp"],
    )
    .expect_code(0);
    // Hold a write lock on it, so that ioz's -W read lock waits (uninterruptibly
    // for the first SIGINT, which only asks it to stop at the next record).
    let held = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.path().join("t.tmp"))
        .unwrap();
    // SAFETY: a zeroed flock is valid; F_SETLK on our open descriptor.
    let locked = unsafe {
        let mut fl: libc::flock = std::mem::zeroed();
        fl.l_type = libc::F_WRLCK as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&held), libc::F_SETLK, &fl) == 0
    };
    assert!(locked, "cannot lock the test file");
    let child = start_after_header(
        dir.path(),
        &["-s", "64k", "-i", "1", "-W", "--quiet", "-f", "t.tmp"],
    );
    let pid = child.id().to_string();
    thread::sleep(Duration::from_millis(300));
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    thread::sleep(Duration::from_millis(300));
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let started = Instant::now();
    let (code, _) = finish(child);
    assert_eq!(code, Some(130));
    // Unstopped, it would wait for the lock as long as the test holds it;
    // a busy machine takes its time to end a process.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "ioz did not leave at once"
    );
    drop(held);
    assert_eq!(
        list_dir(dir.path()),
        Vec::<String>::new(),
        "the test file was left behind"
    );
}
