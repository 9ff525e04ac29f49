//! Issue 11, items 7 to 9: a standard error (or output) that cannot be
//! written never panics; one Ctrl-C in throughput mode with processes is one
//! stop, however it is delivered; worker processes die with their parent.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::fixtures::captured::Captured;
use crate::fixtures::{IOZ, Test, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        refusals_into_an_unwritable_stderr_exit_2_without_a_panic => [DevFull],
        a_warning_into_an_unwritable_stderr_does_not_end_the_run => [DevFull],
        failed_runs_with_an_unwritable_stderr_exit_1_and_leave_no_file => [DevFull],
        an_interrupted_run_with_an_unwritable_stderr_exits_130_and_leaves_no_file => [DevFull],
        help_and_version_into_a_full_or_closed_stdout_are_not_panics => [DevFull],
        one_ctrl_c_to_the_process_group_is_one_stop_with_the_phases_so_far_saved,
        one_ctrl_c_while_the_workers_wait_is_one_stop_with_the_phases_so_far_saved,
        a_second_ctrl_c_ends_a_run_with_worker_processes_at_once,
        one_stop_delivered_twice_is_one_stop,
        a_worker_killed_before_the_barrier_ends_the_run_with_its_name,
        worker_processes_die_with_their_parent_and_remove_its_files,
    ]
}

/// A standard stream that cannot be written.
#[derive(Clone, Copy, Debug)]
enum Broken {
    /// /dev/full: every write fails with ENOSPC.
    Full,
    /// A pipe whose reader is gone: EPIPE (Rust ignores SIGPIPE).
    ClosedPipe,
}

const BROKEN: [Broken; 2] = [Broken::Full, Broken::ClosedPipe];

impl Broken {
    fn stdio(self) -> Stdio {
        match self {
            Broken::Full => File::options()
                .write(true)
                .open("/dev/full")
                .expect("cannot open /dev/full")
                .into(),
            Broken::ClosedPipe => {
                let (reader, writer) = std::io::pipe().expect("cannot create a pipe");
                drop(reader);
                writer.into()
            }
        }
    }
}

/// Runs `ioz args` in `dir` with the given stdout and stderr; its status.
fn status_with(dir: &Path, args: &[&str], stdout: Stdio, stderr: Stdio) -> ExitStatus {
    Command::new(IOZ)
        .args(args)
        .current_dir(dir)
        .stdout(stdout)
        .stderr(stderr)
        .status()
        .expect("cannot start ioz")
}

/// The exit code, or a failure naming the signal that killed ioz (a panic
/// is 101, an abort SIGABRT).
fn code(status: ExitStatus, what: &str) -> i32 {
    assert_eq!(status.signal(), None, "{what}: killed by a signal");
    let code = status.code().unwrap();
    assert_ne!(code, 101, "{what}: ioz panicked");
    code
}

fn refusals_into_an_unwritable_stderr_exit_2_without_a_panic() {
    let cases: [(&str, &[&str]); 3] = [
        ("a bad size", &["-s", "0"]),
        ("an unknown option", &["-+Q"]),
        (
            "a foreign test file",
            &["-s", "64k", "-i", "0", "-f", "foreign"],
        ),
    ];
    for broken in BROKEN {
        for (case, args) in cases {
            let dir = tempfile::tempdir().unwrap();
            fs::write(dir.path().join("foreign"), b"keep me").unwrap();
            let what = format!("{case}, stderr {broken:?}");
            let status = status_with(dir.path(), args, Stdio::null(), broken.stdio());
            assert_eq!(code(status, &what), 2, "{what}");
            assert_eq!(list_dir(dir.path()), vec!["foreign"], "{what}");
            assert_eq!(fs::read(dir.path().join("foreign")).unwrap(), b"keep me");
        }
    }
}

fn a_warning_into_an_unwritable_stderr_does_not_end_the_run() {
    for broken in BROKEN {
        let dir = tempfile::tempdir().unwrap();
        // 64 kB fits in RAM: the run warns that it measures the page cache.
        let out = Command::new(IOZ)
            .args(["-s", "64k", "-i", "0", "-i", "1", "-f", "t.tmp"])
            .current_dir(dir.path())
            .stderr(broken.stdio())
            .output()
            .expect("cannot start ioz");
        let what = format!("stderr {broken:?}");
        assert_eq!(code(out.status, &what), 0, "{what}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("ioz test complete."), "{what}: {stdout}");
        assert_eq!(list_dir(dir.path()), Vec::<String>::new(), "{what}");
    }
}

fn failed_runs_with_an_unwritable_stderr_exit_1_and_leave_no_file() {
    // Neither the results nor the line saying they were lost can be written.
    let dir = tempfile::tempdir().unwrap();
    let status = status_with(
        dir.path(),
        &["-s", "64k", "-i", "0", "-f", "t.tmp"],
        Broken::Full.stdio(),
        Broken::Full.stdio(),
    );
    assert_eq!(code(status, "stdout and stderr full"), 1);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());

    // An I/O error mid-run (the test file removed under ioz), said to no one.
    for broken in BROKEN {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("foreign"), b"keep me").unwrap();
        // A million 8-byte writes: the file can be removed while they run.
        let child = Command::new(IOZ)
            .args(["-s", "8m", "-r", "8b", "-i", "0", "-i", "1", "-f", "t.tmp"])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(broken.stdio())
            .spawn()
            .expect("cannot start ioz");
        let mut child = Reaped(child);
        let file = dir.path().join("t.tmp");
        child.until(Duration::from_secs(10), "t.tmp created", || file.exists());
        fs::remove_file(&file).unwrap();
        let what = format!("a removed test file, stderr {broken:?}");
        let status = child.wait_for(Duration::from_secs(30), &what);
        assert_eq!(code(status, &what), 1, "{what}");
        assert_eq!(list_dir(dir.path()), vec!["foreign"], "{what}");
        assert_eq!(fs::read(dir.path().join("foreign")).unwrap(), b"keep me");
    }
}

fn an_interrupted_run_with_an_unwritable_stderr_exits_130_and_leaves_no_file() {
    for broken in BROKEN {
        let dir = tempfile::tempdir().unwrap();
        // A million 8-byte writes and rewrites: seconds of work.
        let mut child = Command::new(IOZ)
            .args(["-s", "8m", "-r", "8b", "-i", "0", "-f", "t.tmp"])
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(broken.stdio())
            .spawn()
            .expect("cannot start ioz");
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut child = Reaped(child);
        let file = dir.path().join("t.tmp");
        let drain = thread::spawn(move || lines.for_each(drop));
        child.until(Duration::from_secs(10), "t.tmp created", || file.exists());
        send(child.0.id() as i32, libc::SIGINT);
        let what = format!("SIGINT, stderr {broken:?}");
        let status = child.wait_for(Duration::from_secs(30), &what);
        drain.join().unwrap();
        assert_ne!(
            status.code(),
            Some(0),
            "{what}: the run ended before SIGINT"
        );
        assert_eq!(code(status, &what), 130, "{what}");
        assert_eq!(list_dir(dir.path()), Vec::<String>::new(), "{what}");
    }
}

fn help_and_version_into_a_full_or_closed_stdout_are_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    for (option, what) in [("-h", "the help"), ("-v", "the version")] {
        // A full device: status 1 and one line saying so.
        let out = Command::new(IOZ)
            .arg(option)
            .current_dir(dir.path())
            .stdout(Broken::Full.stdio())
            .output()
            .expect("cannot start ioz");
        assert_eq!(code(out.status, option), 1, "{option} > /dev/full");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "ioz: cannot write {what} to standard output: \
                 No space left on device (os error 28)\n"
            )
        );
        // A reader gone: as if SIGPIPE had stopped it, silently.
        let out = Command::new(IOZ)
            .arg(option)
            .current_dir(dir.path())
            .stdout(Broken::ClosedPipe.stdio())
            .output()
            .expect("cannot start ioz");
        assert_eq!(code(out.status, option), 141, "{option} | (closed)");
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Both broken: the status alone tells.
        let status = status_with(
            dir.path(),
            &[option],
            Broken::Full.stdio(),
            Broken::Full.stdio(),
        );
        assert_eq!(code(status, option), 1, "{option} > /dev/full 2>&1");
    }
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

/// Sends `signal` to `pid` (a process group when negative).
fn send(pid: i32, signal: i32) {
    // SAFETY: kill has no memory-safety preconditions.
    let sent = unsafe { libc::kill(pid, signal) };
    assert_eq!(sent, 0, "kill({pid}, {signal}) failed");
}

/// A child ioz, killed and reaped if the test ends before it does.
struct Reaped(Child);

impl Reaped {
    /// Starts `ioz args` in `dir` in a process group of its own, as a shell
    /// starts a job: a terminal's Ctrl-C goes to that whole group.
    fn job(dir: &Path, args: &[&str], stdout: Stdio, stderr: Stdio) -> Reaped {
        let child = Command::new(IOZ)
            .args(args)
            .current_dir(dir)
            .process_group(0)
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .expect("cannot start ioz");
        Reaped(child)
    }

    fn pid(&self) -> i32 {
        self.0.id() as i32
    }

    /// Polls `done` every 5 ms while ioz runs; panics if ioz ends first or
    /// after `limit`.
    fn until(&mut self, limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + limit;
        while !done() {
            if let Some(status) = self.0.try_wait().unwrap() {
                panic!("ioz ended ({status}) before {what}");
            }
            assert!(Instant::now() < deadline, "no {what} after {limit:?}");
            thread::sleep(Duration::from_millis(5));
        }
    }

    /// How ioz ended; panics if it still runs after `limit`.
    fn wait_for(&mut self, limit: Duration, what: &str) -> ExitStatus {
        let deadline = Instant::now() + limit;
        loop {
            if let Some(status) = self.0.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: ioz still runs after {limit:?}"
            );
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// The live (not zombie) processes whose parent is `parent`.
pub(crate) fn children_of(parent: i32) -> Vec<i32> {
    fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| matches!(stat(pid), Some((state, ppid)) if ppid == parent && state != 'Z'))
        .collect()
}

/// The state letter and parent of `pid`, from /proc/PID/stat.
fn stat(pid: i32) -> Option<(char, i32)> {
    let text = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // "pid (comm) S ppid …": comm may hold spaces and parentheses.
    let mut fields = text[text.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some((state, ppid))
}

fn alive(pid: i32) -> bool {
    matches!(stat(pid), Some((state, _)) if state != 'Z')
}

/// Worker processes that must not outlive the test, whatever it finds: on a
/// build where they do, they are killed here (if they are still ioz).
struct Workers(Vec<i32>);

impl Workers {
    /// The worker processes of `ioz`, once there are `count` of them.
    fn of(ioz: &mut Reaped, count: usize) -> Workers {
        let parent = ioz.pid();
        let mut workers = Vec::new();
        ioz.until(Duration::from_secs(20), "its worker processes", || {
            workers = children_of(parent);
            workers.len() >= count
        });
        Workers(workers)
    }

    fn left(&self) -> Vec<i32> {
        self.0.iter().copied().filter(|&p| alive(p)).collect()
    }

    /// Waits up to `limit` for every worker to be gone; those left.
    fn left_after(&self, limit: Duration) -> Vec<i32> {
        let deadline = Instant::now() + limit;
        while !self.left().is_empty() && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(10));
        }
        self.left()
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        for pid in self.left() {
            let cmdline = fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            if String::from_utf8_lossy(&cmdline).contains("ioz") {
                send(pid, libc::SIGKILL);
            }
        }
    }
}

/// A POSIX write lock on the whole of `path`, held until the file is
/// closed; with `wait`, until it is granted.
fn lock(path: &Path, wait: bool) -> Option<File> {
    let file = File::options().read(true).write(true).open(path).unwrap();
    let command = if wait { libc::F_SETLKW } else { libc::F_SETLK };
    // SAFETY: a zeroed flock is valid; fcntl on our open descriptor.
    let locked = unsafe {
        let mut fl: libc::flock = std::mem::zeroed();
        fl.l_type = libc::F_WRLCK as libc::c_short;
        fl.l_whence = libc::SEEK_SET as libc::c_short;
        libc::fcntl(std::os::fd::AsRawFd::as_raw_fd(&file), command, &fl) == 0
    };
    locked.then_some(file)
}

/// A run stopped by one SIGINT: status 130, said once, no worker lost, the
/// first phase (the writers) printed and saved with the run, and nothing
/// else left in `dir`.
fn assert_one_stop(dir: &Path, status: ExitStatus, stdout: &str, stderr: &str, context: &str) {
    let context =
        format!("{context}: {status}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    assert_ne!(
        status.code(),
        Some(0),
        "the run ended before SIGINT: {context}"
    );
    assert_eq!(status.code(), Some(130), "{context}");
    assert!(!stderr.contains("without a report"), "{context}");
    assert!(stderr.contains("ioz: stopped by SIGINT"), "{context}");
    assert!(stdout.contains("initial writers"), "{context}");
    let saved: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(saved["status"]["interrupted"], 2, "{context}");
    let phases = saved["throughput"].as_array().unwrap();
    assert!(!phases.is_empty(), "no phase saved: {context}");
    assert_eq!(phases[0]["pass"], "write", "{context}");
    assert_eq!(list_dir(dir), vec!["run.json"], "{context}");
}

/// Ctrl-C in a terminal signals the whole foreground process group: ioz and
/// its workers. Each worker then gets SIGINT twice (the terminal's and the
/// one ioz passes on), which must still be one stop. Here the workers are
/// in their timed loop: ten trials, eight to the group and two to ioz alone
/// (whether a worker handles the two apart is a race).
fn one_ctrl_c_to_the_process_group_is_one_stop_with_the_phases_so_far_saved() {
    for trial in 0..10 {
        let to_group = trial % 5 != 4;
        let dir = tempfile::tempdir().unwrap();
        // -J 1: a millisecond's busy wait before each of the 256 records of
        // a phase, so a phase lasts a quarter of a second with the workers
        // on the CPU.
        let args = [
            "-t", "2", "-s", "1m", "-r", "4k", "-J", "1", "-i", "0", "-i", "1", "--json",
            "run.json", "-f", "w",
        ];
        let mut ioz = Reaped::job(dir.path(), &args, Stdio::piped(), Stdio::piped());
        let output = Captured::of(&mut ioz.0, "initial writers");
        output.wait_for_marker();
        // Into the second phase.
        thread::sleep(Duration::from_millis(50));
        send(if to_group { -ioz.pid() } else { ioz.pid() }, libc::SIGINT);
        let how = if to_group {
            "the process group"
        } else {
            "ioz alone"
        };
        let status = ioz.wait_for(Duration::from_secs(30), how);
        let (stdout, stderr) = output.finish();
        let context = format!("trial {trial}, SIGINT to {how}");
        assert_one_stop(dir.path(), status, &stdout, &stderr, &context);
    }
}

/// The same with the workers asleep, where each signal is handled as it
/// comes: worker 0 waits for the -W lock the test holds on its file, worker
/// 1 at the barrier. Before, each took the second SIGINT as a second Ctrl-C
/// and left, and ioz failed ("worker 0 ended without a report") or waited
/// for it forever.
fn one_ctrl_c_while_the_workers_wait_is_one_stop_with_the_phases_so_far_saved() {
    for to_group in [true, false] {
        let how = if to_group {
            "the process group"
        } else {
            "ioz alone"
        };
        let dir = tempfile::tempdir().unwrap();
        // Six phases, each holding the -W lock on its files while it runs.
        let args = [
            "-t", "2", "-s", "2m", "-r", "4k", "-i", "0", "-i", "1", "-i", "2", "-W", "--json",
            "run.json", "-f", "w",
        ];
        let mut ioz = Reaped::job(dir.path(), &args, Stdio::piped(), Stdio::piped());
        let output = Captured::of(&mut ioz.0, "initial writers");
        output.wait_for_marker();
        // Granted between two phases: the next one waits for it.
        let held = lock(&dir.path().join("w.0"), true).expect("cannot lock w.0");
        let workers = Workers::of(&mut ioz, 2);
        thread::sleep(Duration::from_millis(300));
        send(if to_group { -ioz.pid() } else { ioz.pid() }, libc::SIGINT);
        thread::sleep(Duration::from_millis(300));
        assert!(
            ioz.0.try_wait().unwrap().is_none(),
            "{how}: ioz ended while its worker still waited for the lock"
        );
        // Worker 0 gets the lock, arrives, and both stop at once.
        drop(held);
        let status = ioz.wait_for(Duration::from_secs(20), how);
        let (stdout, stderr) = output.finish();
        assert_one_stop(dir.path(), status, &stdout, &stderr, how);
        assert_eq!(
            workers.left_after(Duration::from_secs(1)),
            Vec::<i32>::new()
        );
    }
}

/// One stop often reaches ioz twice: `timeout -s INT` sends its signal to
/// ioz and then to ioz's process group, and a terminal's Ctrl-C reaches
/// ioz and a parent that passes it on. Handled one by one, the second was
/// taken for a second Ctrl-C and ioz left at once: exit 130 with no
/// closing line, no JSON, no history, its workers left to die (2 runs in 8
/// of `timeout -s INT 4 ioz -s 400m -r 1 -i 0 -i 1 -t 4`). Here the two
/// copies come 5 to 80 ms apart, so that they are handled one by one; then
/// `timeout` itself, a few times (bounded: about ten seconds).
fn one_stop_delivered_twice_is_one_stop() {
    let args = [
        "-t", "2", "-s", "1m", "-r", "4k", "-J", "1", "-i", "0", "-i", "1", "--json", "run.json",
        "-f", "w",
    ];
    for gap_ms in [5, 20, 80] {
        let dir = tempfile::tempdir().unwrap();
        let mut ioz = Reaped::job(dir.path(), &args, Stdio::piped(), Stdio::piped());
        let output = Captured::of(&mut ioz.0, "initial writers");
        output.wait_for_marker();
        let workers = Workers::of(&mut ioz, 2);
        thread::sleep(Duration::from_millis(50));
        send(ioz.pid(), libc::SIGINT);
        thread::sleep(Duration::from_millis(gap_ms));
        send(ioz.pid(), libc::SIGINT);
        let status = ioz.wait_for(Duration::from_secs(30), "two SIGINTs");
        let (stdout, stderr) = output.finish();
        let context = format!("SIGINT twice, {gap_ms} ms apart");
        assert_one_stop(dir.path(), status, &stdout, &stderr, &context);
        assert_eq!(
            workers.left_after(Duration::from_secs(1)),
            Vec::<i32>::new(),
            "{context}"
        );
    }
    for trial in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        // Its own status rather than timeout's 124.
        let out = Command::new("timeout")
            .args(["--preserve-status", "-s", "INT", "0.9", IOZ])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        if out.status.code() == Some(0) {
            // Done before the second: nothing to stop (a slow machine).
            continue;
        }
        let context = format!("timeout, trial {trial}: {}\n{stdout}\n{stderr}", out.status);
        assert_eq!(out.status.code(), Some(130), "{context}");
        assert!(stderr.contains("ioz: stopped by SIGINT"), "{context}");
        assert!(
            stdout.contains("ioz test interrupted by SIGINT."),
            "{context}"
        );
        let saved: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(dir.path().join("run.json")).unwrap())
                .unwrap();
        assert_eq!(saved["status"]["interrupted"], 2, "{context}");
        assert_eq!(list_dir(dir.path()), vec!["run.json"], "{context}");
    }
}

/// Worker processes held at a lock (-W) do not stop at a first Ctrl-C
/// until they can; a second one ends ioz at once, and its workers with it,
/// whether it reaches the group or ioz alone.
fn a_second_ctrl_c_ends_a_run_with_worker_processes_at_once() {
    for to_group in [true, false] {
        let how = if to_group {
            "the process group"
        } else {
            "ioz alone"
        };
        let dir = tempfile::tempdir().unwrap();
        // ioz's own files, kept by a first run.
        let kept = Command::new(IOZ)
            .args([
                "-t", "2", "-s", "64k", "-i", "0", "-w", "--quiet", "-f", "w",
            ])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(kept.success());
        // Worker 0's -W read lock waits for this one.
        let held = lock(&dir.path().join("w.0"), false).expect("cannot lock w.0");
        // Output to nowhere: a pipe left open by a stray worker would hang the test.
        let args = [
            "-t", "2", "-s", "64k", "-i", "1", "-W", "--quiet", "-f", "w",
        ];
        let mut ioz = Reaped::job(dir.path(), &args, Stdio::null(), Stdio::null());
        let workers = Workers::of(&mut ioz, 2);
        thread::sleep(Duration::from_millis(300));
        let target = if to_group { -ioz.pid() } else { ioz.pid() };
        send(target, libc::SIGINT);
        thread::sleep(Duration::from_millis(300));
        assert!(
            ioz.0.try_wait().unwrap().is_none(),
            "{how}: one SIGINT ended ioz"
        );
        send(target, libc::SIGINT);
        let status = ioz.wait_for(Duration::from_secs(5), how);
        assert_eq!(status.code(), Some(130), "{how}");
        assert_eq!(
            workers.left_after(Duration::from_secs(3)),
            Vec::<i32>::new(),
            "{how}: workers left"
        );
        drop(held);
        assert_eq!(list_dir(dir.path()), Vec::<String>::new(), "{how}");
    }
}

/// A worker process killed before the barrier never arrives: the phase
/// ends with one line naming it, instead of waiting for it forever.
fn a_worker_killed_before_the_barrier_ends_the_run_with_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let kept = Command::new(IOZ)
        .args([
            "-t", "2", "-s", "64k", "-i", "0", "-w", "--quiet", "-f", "w",
        ])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(kept.success());
    let held = lock(&dir.path().join("w.0"), false).expect("cannot lock w.0");
    let args = [
        "-t", "2", "-s", "64k", "-i", "1", "-W", "--quiet", "-f", "w",
    ];
    let mut ioz = Reaped::job(dir.path(), &args, Stdio::null(), Stdio::piped());
    let mut stderr = ioz.0.stderr.take().unwrap();
    let workers = Workers::of(&mut ioz, 2);
    thread::sleep(Duration::from_millis(300));
    // Worker 0 (forked first) is the one waiting for the lock.
    let first = *workers.0.iter().min().unwrap();
    send(first, libc::SIGKILL);
    let status = ioz.wait_for(Duration::from_secs(10), "a worker killed");
    let mut text = String::new();
    let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
    assert_eq!(status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!(
            "ioz: worker 0 (pid {first}) ended without a report"
        )),
        "{text}"
    );
    assert_eq!(
        workers.left_after(Duration::from_secs(3)),
        Vec::<i32>::new()
    );
    drop(held);
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

/// `kill -9` of ioz mid-phase: its worker processes stop within moments,
/// remove the run's files and leave; nothing keeps writing.
fn worker_processes_die_with_their_parent_and_remove_its_files() {
    let dir = tempfile::tempdir().unwrap();
    // O_SYNC 4 kB writes of two 64 MB files: seconds of work.
    let args = [
        "-t", "2", "-s", "64m", "-r", "4k", "-i", "0", "-o", "-f", "w",
    ];
    let mut ioz = Reaped::job(dir.path(), &args, Stdio::null(), Stdio::null());
    let workers = Workers::of(&mut ioz, 2);
    let file = dir.path().join("w.0");
    ioz.until(Duration::from_secs(20), "1 MB written", || {
        fs::metadata(&file).is_ok_and(|m| m.len() >= 1 << 20)
    });
    send(ioz.pid(), libc::SIGKILL);
    let status = ioz.wait_for(Duration::from_secs(5), "kill -9");
    assert_eq!(status.signal(), Some(libc::SIGKILL));
    let left = workers.left_after(Duration::from_secs(3));
    let sizes = || -> Vec<(String, u64)> {
        list_dir(dir.path())
            .into_iter()
            .map(|n| {
                let len = fs::metadata(dir.path().join(&n)).map_or(0, |m| m.len());
                (n, len)
            })
            .collect()
    };
    let before = sizes();
    thread::sleep(Duration::from_millis(500));
    let after = sizes();
    assert_eq!(
        left,
        Vec::<i32>::new(),
        "workers still running 3 s after their parent died; files {before:?} then {after:?}"
    );
    assert_eq!(after, before, "a file still grows");
    assert_eq!(
        after,
        Vec::<(String, u64)>::new(),
        "the run's files were left"
    );
}
