//! The test file is ioz's alone, from the check before the run to its
//! removal at the end: a file or link put in its place between passes is
//! never written, truncated or removed; an owner mark someone else could
//! have set is not believed; a second run on the same file or device is
//! refused naming the first; a test file the run could not create is
//! refused before the header; a file ioz could not remove is named on the
//! last line.
//!
//! The swaps happen during `-+q 2`'s pause between passes. Tests on loop
//! devices, tmpfs mounts, immutable directories and other users' files need
//! root; without it they are listed as ignored with the reason.

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::fixtures::{IOZ, LoopDevice, Test, Tmpfs, assert_refused, ioz, quietly, skip, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_file_put_in_place_of_the_test_file_is_neither_written_nor_removed,
        a_link_put_in_place_of_the_test_file_is_not_followed,
        a_second_ctrl_c_never_unlinks_a_file_put_in_place_of_the_test_file,
        a_worker_file_replaced_between_phases_is_left_alone,
        a_device_link_pointed_elsewhere_between_passes_is_not_written => [LoopDevice],
        a_mark_set_by_another_user_is_not_trusted_by_root => [Root],
        a_mark_on_a_file_others_may_write_is_not_trusted,
        a_second_run_on_the_same_file_is_refused_naming_the_first,
        a_second_run_on_a_worker_file_is_refused_naming_the_parent,
        a_second_run_on_the_same_device_is_refused_naming_the_first => [LoopDevice],
        a_test_file_in_a_missing_directory_is_refused_before_the_header,
        a_test_file_name_ending_in_a_slash_is_refused,
        a_test_file_in_an_immutable_directory_is_refused => [Root],
        a_test_file_on_a_read_only_mount_is_refused => [Tmpfs],
        a_file_too_short_for_the_reads_is_refused_with_plus_e,
        a_test_file_that_cannot_be_removed_is_named_on_the_last_line => [Tmpfs],
        worker_files_that_cannot_be_removed_are_all_named_on_the_last_line => [Tmpfs],
    ]
}

/// `ioz args…` started in `dir`, its output collected in the background.
fn start(dir: &Path, args: &[&str]) -> Child {
    Command::new(IOZ)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start ioz")
}

/// Waits for the run to end: its exit status and stderr.
fn finish(child: Child) -> (Option<i32>, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Waits until `path` holds `bytes` bytes (the first pass has written it),
/// then a moment more for the pass to close it: the run is now in -+q's pause.
fn wait_for_size(path: &Path, bytes: u64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while fs::metadata(path).map_or(true, |m| m.len() < bytes) {
        assert!(
            Instant::now() < deadline,
            "{} never held {bytes} bytes",
            path.display()
        );
        thread::sleep(Duration::from_millis(5));
    }
    thread::sleep(Duration::from_millis(300));
}

/// Puts `content` at `path` the way an editor saves: a new file renamed over it.
fn replace_with_file(path: &Path, content: &[u8]) {
    let fresh = path.with_extension("fresh");
    fs::write(&fresh, content).unwrap();
    fs::rename(&fresh, path).unwrap();
}

/// stderr without ioz's warnings.
fn errors(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| !l.starts_with("ioz: warning:"))
        .collect()
}

/// The one error line of a run that found its file changed.
fn changed_line(code: Option<i32>, stderr: &str, path: &str, found: &str) {
    assert_eq!(code, Some(1), "{stderr}");
    let lines = errors(stderr);
    assert_eq!(lines.len(), 1, "{stderr}");
    let line = lines[0];
    for part in [path, "the test file changed under ioz", "expected ", found] {
        assert!(line.contains(part), "{part:?} missing from {line:?}");
    }
}

fn a_file_put_in_place_of_the_test_file_is_neither_written_nor_removed() {
    let dir = tempfile::tempdir().unwrap();
    let child = start(
        dir.path(),
        &["-s", "64k", "-i", "0", "-i", "1", "-+q", "2", "-f", "t.tmp"],
    );
    let file = dir.path().join("t.tmp");
    wait_for_size(&file, 64 << 10);
    replace_with_file(&file, b"precious");
    let inode = fs::metadata(&file).unwrap().ino();
    let (code, stderr) = finish(child);
    changed_line(
        code,
        &stderr,
        "t.tmp",
        &format!("found inode {inode} on device"),
    );
    // Not truncated, not rewritten, not removed.
    assert_eq!(fs::read(&file).unwrap(), b"precious");
}

fn a_second_ctrl_c_never_unlinks_a_file_put_in_place_of_the_test_file() {
    let dir = tempfile::tempdir().unwrap();
    let child = start(
        dir.path(),
        &["-s", "64k", "-i", "0", "-i", "1", "-+q", "5", "-f", "t.tmp"],
    );
    let file = dir.path().join("t.tmp");
    wait_for_size(&file, 64 << 10);
    replace_with_file(&file, b"precious");
    // Two Ctrl-Cs: the second leaves at once, removing ioz's files — but
    // only while the path still leads to the file ioz made.
    let pid = child.id() as i32;
    for _ in 0..2 {
        // SAFETY: kill(2) on the child we started and still wait for.
        unsafe { libc::kill(pid, libc::SIGINT) };
        thread::sleep(Duration::from_millis(200));
    }
    let (code, _) = finish(child);
    assert_eq!(code, Some(130), "the second Ctrl-C ends ioz at once");
    assert_eq!(fs::read(&file).unwrap(), b"precious");
}

fn a_link_put_in_place_of_the_test_file_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    fs::write(&victim, b"precious").unwrap();
    let child = start(
        dir.path(),
        &["-s", "64k", "-i", "0", "-i", "1", "-+q", "2", "-f", "t.tmp"],
    );
    let file = dir.path().join("t.tmp");
    wait_for_size(&file, 64 << 10);
    let link = dir.path().join("t.link");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    fs::rename(&link, &file).unwrap();
    let (code, stderr) = finish(child);
    changed_line(code, &stderr, "t.tmp", "found a symbolic link");
    assert_eq!(fs::read(&victim).unwrap(), b"precious");
    assert!(
        fs::symlink_metadata(&file)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

fn a_worker_file_replaced_between_phases_is_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let child = start(
        dir.path(),
        &[
            "-t", "2", "-s", "64k", "-i", "0", "-i", "1", "-+q", "2", "-F", "a.tmp", "b.tmp",
        ],
    );
    let b = dir.path().join("b.tmp");
    wait_for_size(&b, 64 << 10);
    replace_with_file(&b, b"precious");
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(1), "{stderr}");
    let lines = errors(&stderr);
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("worker 1")
            && lines[0].contains("b.tmp")
            && lines[0].contains("the test file changed under ioz"),
        "{}",
        lines[0]
    );
    assert_eq!(fs::read(&b).unwrap(), b"precious");
    // ioz's own file went.
    assert!(!dir.path().join("a.tmp").exists());
}

fn a_device_link_pointed_elsewhere_between_passes_is_not_written() {
    let first = LoopDevice::new(8 << 20);
    let second = LoopDevice::new(8 << 20);
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("disk");
    std::os::unix::fs::symlink(first.path(), &link).unwrap();
    let child = start(
        dir.path(),
        &["-s", "1m", "-i", "0", "-i", "1", "-+q", "2", "-f", "disk"],
    );
    // The write pass has reached the first device's end of the file.
    let deadline = Instant::now() + Duration::from_secs(20);
    while first
        .bytes_at((1 << 20) - 4096, 4096)
        .iter()
        .all(|&b| b == 0)
    {
        assert!(Instant::now() < deadline, "the write pass never ended");
        thread::sleep(Duration::from_millis(5));
    }
    thread::sleep(Duration::from_millis(300));
    let moved = dir.path().join("disk.new");
    std::os::unix::fs::symlink(second.path(), &moved).unwrap();
    fs::rename(&moved, &link).unwrap();
    let (code, stderr) = finish(child);
    changed_line(code, &stderr, "disk", "found block device");
    assert!(
        second.bytes_at(0, 1 << 20).iter().all(|&b| b == 0),
        "ioz wrote to the device the link was pointed to"
    );
}

/// Marks `path` as ioz's the way any user can: the xattr syscall, run as
/// `uid` in a child process. False when the file system has no user xattrs.
fn mark_as(path: &Path, uid: u32) -> bool {
    let c = CString::new(path.as_os_str().as_bytes()).unwrap();
    let set = || {
        // SAFETY: the two strings are NUL-terminated and outlive the call,
        // and the value is 3 live bytes.
        unsafe {
            libc::setxattr(
                c.as_ptr(),
                c"user.ioz.owner".as_ptr(),
                b"ioz".as_ptr().cast(),
                3,
                0,
            )
        }
    };
    // SAFETY: geteuid has no preconditions.
    if uid == unsafe { libc::geteuid() } {
        return set() == 0;
    }
    // SAFETY: the child makes only system calls (setgid, setuid, setxattr,
    // _exit), which are safe after fork in a threaded process.
    match unsafe { libc::fork() } {
        0 => {
            // SAFETY: plain system calls; _exit never returns.
            unsafe {
                let ok = libc::setgid(uid) == 0 && libc::setuid(uid) == 0 && set() == 0;
                libc::_exit(i32::from(!ok));
            }
        }
        pid if pid > 0 => {
            let mut status = 0;
            // SAFETY: waits for our own child into a live int.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0
        }
        _ => panic!("fork failed"),
    }
}

fn a_mark_set_by_another_user_is_not_trusted_by_root() {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let file = dir.path().join("theirs.dat");
    fs::write(&file, b"precious").unwrap();
    // A file of nobody's, which only nobody may write…
    std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    // …marked by nobody, as ioz marks its own.
    if !mark_as(&file, 65534) {
        skip("no user extended attributes in the temporary directory");
    }
    let run = ioz(dir.path(), &["-s", "64k", "-i", "0", "-f", "theirs.dat"]);
    let line = assert_refused(
        &run,
        "theirs.dat carries ioz's mark but belongs to uid 65534",
    );
    assert!(line.contains("--force"), "{line}");
    assert_eq!(fs::read(&file).unwrap(), b"precious");
}

fn a_mark_on_a_file_others_may_write_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shared.log");
    fs::write(&file, b"precious").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o666)).unwrap();
    // SAFETY: geteuid has no preconditions.
    if !mark_as(&file, unsafe { libc::geteuid() }) {
        skip("no user extended attributes in the temporary directory");
    }
    let run = ioz(dir.path(), &["-s", "64k", "-i", "0", "-f", "shared.log"]);
    assert_refused(
        &run,
        "shared.log carries ioz's mark but others may write it (mode 666)",
    );
    assert_eq!(fs::read(&file).unwrap(), b"precious");
}

/// Starts a long first run (with -W: its fcntl locks live beside the run
/// lock) and waits until it has written its file.
fn first_run(dir: &Path, extra: &[&str]) -> Child {
    let mut args = vec!["-s", "64k", "-i", "0", "-i", "1", "-+q", "2", "-W"];
    args.extend_from_slice(extra);
    start(dir, &args)
}

fn a_second_run_on_the_same_file_is_refused_naming_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let first = first_run(dir.path(), &["-f", "t.tmp"]);
    wait_for_size(&dir.path().join("t.tmp"), 64 << 10);
    let second = ioz(dir.path(), &["-s", "64k", "-i", "0", "-f", "t.tmp"]);
    let line = assert_refused(&second, "t.tmp is in use by another run");
    assert!(
        line.contains(&format!("process {} (ioz)", first.id())),
        "{line}"
    );
    let (code, stderr) = finish(first);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!dir.path().join("t.tmp").exists());
}

fn a_second_run_on_a_worker_file_is_refused_naming_the_parent() {
    let dir = tempfile::tempdir().unwrap();
    let first = first_run(dir.path(), &["-t", "2", "-F", "a.tmp", "b.tmp"]);
    wait_for_size(&dir.path().join("b.tmp"), 64 << 10);
    let second = ioz(dir.path(), &["-s", "64k", "-i", "0", "-f", "b.tmp"]);
    let line = assert_refused(&second, "b.tmp is in use by another run");
    assert!(
        line.contains(&format!("process {} (ioz)", first.id())),
        "{line}"
    );
    let (code, stderr) = finish(first);
    assert_eq!(code, Some(0), "{stderr}");
}

fn a_second_run_on_the_same_device_is_refused_naming_the_first() {
    let dev = LoopDevice::new(8 << 20);
    let dir = tempfile::tempdir().unwrap();
    let first = first_run(dir.path(), &["-f", dev.path()]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while dev
        .bytes_at((64 << 10) - 4096, 4096)
        .iter()
        .all(|&b| b == 0)
    {
        assert!(Instant::now() < deadline, "the write pass never ended");
        thread::sleep(Duration::from_millis(5));
    }
    let second = ioz(dir.path(), &["-s", "64k", "-i", "0", "-f", dev.path()]);
    let line = assert_refused(&second, "is in use by another run");
    assert!(
        line.contains(dev.path()) && line.contains(&format!("process {} (ioz)", first.id())),
        "{line}"
    );
    let (code, stderr) = finish(first);
    assert_eq!(code, Some(0), "{stderr}");
}

fn a_test_file_in_a_missing_directory_is_refused_before_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(dir.path(), &["-s", "64k", "-i", "0", "-f", "nodir/x"]);
    assert_refused(
        &run,
        "cannot create the test file nodir/x: the directory nodir does not exist",
    );
    let run = ioz(
        dir.path(),
        &["-t", "2", "-s", "64k", "-i", "0", "-F", "nodir/a", "b"],
    );
    assert_refused(&run, "nodir/a");
}

fn a_test_file_name_ending_in_a_slash_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(dir.path(), &["-s", "64k", "-i", "0", "-f", "x/"]);
    assert_refused(&run, "the test file x/ ends in a slash");
}

/// `chattr +i` on a directory, undone on drop.
struct Immutable<'a>(&'a Path);

impl Drop for Immutable<'_> {
    fn drop(&mut self) {
        let _ = quietly("chattr", &["-i", self.0.to_str().unwrap()]);
    }
}

fn a_test_file_in_an_immutable_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    if let Err(e) = quietly("chattr", &["+i", locked.to_str().unwrap()]) {
        skip(format!("cannot make a directory immutable here: {e}"));
    }
    let _undo = Immutable(&locked);
    let run = ioz(&locked, &["-s", "64k", "-i", "0", "-f", "t.tmp"]);
    assert_refused(
        &run,
        "cannot create the test file t.tmp: cannot write in .: operation not permitted",
    );
}

fn a_test_file_on_a_read_only_mount_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("ro"), "size=256k,ro");
    let target = mount.0.join("t.tmp");
    let run = ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "-f", target.to_str().unwrap()],
    );
    assert_refused(&run, "is on a read-only file system");
}

fn a_file_too_short_for_the_reads_is_refused_with_plus_e() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("small"), b"abc").unwrap();
    let run = ioz(dir.path(), &["-+E", "-i", "1", "-s", "64k", "-f", "small"]);
    assert_refused(&run, "-+E: small holds 3 bytes but the test reads 65536");
    assert_eq!(fs::read(dir.path().join("small")).unwrap(), b"abc");
}

/// Remounts `mount` read-only once its files are closed (a file open for
/// writing keeps the kernel from it).
fn remount_read_only(mount: &Path) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match quietly("mount", &["-o", "remount,ro", mount.to_str().unwrap()]) {
            Ok(_) => return,
            Err(e) if Instant::now() > deadline => panic!("cannot remount read-only: {e}"),
            Err(_) => thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// The last line of stderr.
fn last_line(stderr: &str) -> &str {
    stderr.lines().last().unwrap_or_default()
}

fn a_test_file_that_cannot_be_removed_is_named_on_the_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("mnt"), "size=1m");
    let target = mount.0.join("t.tmp");
    let child = start(
        dir.path(),
        &[
            "-s",
            "64k",
            "-i",
            "0",
            "-+q",
            "2",
            "-f",
            target.to_str().unwrap(),
        ],
    );
    wait_for_size(&target, 64 << 10);
    remount_read_only(&mount.0);
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(1), "{stderr}");
    let last = last_line(&stderr);
    for part in [
        "ioz: left the test file ",
        target.to_str().unwrap(),
        "behind: cannot remove it: Read-only file system",
    ] {
        assert!(
            last.contains(part),
            "{part:?} missing from {last:?}\n{stderr}"
        );
    }
    assert!(target.exists());
    let _ = quietly("mount", &["-o", "remount,rw", mount.0.to_str().unwrap()]);
}

fn worker_files_that_cannot_be_removed_are_all_named_on_the_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let mount = Tmpfs::mount(&dir.path().join("mnt"), "size=1m");
    let (a, b) = (mount.0.join("a.tmp"), mount.0.join("b.tmp"));
    let child = start(
        dir.path(),
        &[
            "-t",
            "2",
            "-s",
            "64k",
            "-i",
            "0",
            "-+q",
            "2",
            "-F",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
        ],
    );
    wait_for_size(&a, 64 << 10);
    wait_for_size(&b, 64 << 10);
    remount_read_only(&mount.0);
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(1), "{stderr}");
    let last = last_line(&stderr);
    assert!(
        last.starts_with("ioz: left 2 test files behind")
            && last.contains(a.to_str().unwrap())
            && last.contains(b.to_str().unwrap())
            && last.contains("Read-only file system"),
        "{stderr}"
    );
    let _ = quietly("mount", &["-o", "remount,rw", mount.0.to_str().unwrap()]);
}
