//! ioz fileop's and ioz mdtest's trees against a hostile neighbour (issue
//! 41): a directory of the tree exchanged for a symbolic link to someone
//! else's files named like ioz's, mid-run (`renameat2(RENAME_EXCHANGE)`
//! while ioz is held with SIGSTOP); a directory of someone else's
//! bind-mounted inside the tree before a Ctrl-C; control characters in
//! `-d`. Nothing of theirs is read through, removed or changed, the rest
//! of the tree is removed, and what was left is named in one line.

use std::ffi::CString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::fixtures::{IOZ, Test, list_dir, quietly, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_directory_swapped_for_a_link_mid_run_leads_nowhere => [Root],
        a_directory_swapped_for_a_link_leads_nowhere_without_root_either => [Root],
        a_bind_mount_inside_the_tree_is_left_whole => [Root],
        control_characters_in_the_directory_are_shown_escaped,
    ]
}

/// Someone else's directory of `n` files named as ioz's items are.
fn theirs(at: &Path, n: usize) -> PathBuf {
    fs::create_dir_all(at).unwrap();
    for i in 0..n {
        fs::write(at.join(format!("file.mdtest.0.{i}")), b"theirs").unwrap();
    }
    at.to_path_buf()
}

fn count_theirs(at: &Path, n: usize) -> usize {
    (0..n)
        .filter(|i| fs::read(at.join(format!("file.mdtest.0.{i}"))).is_ok_and(|b| b == b"theirs"))
        .count()
}

/// The tree ioz made in `dir` (`ioz-mdtest.N`), once it is there.
fn tree_in(dir: &Path, deadline: Instant) -> Option<PathBuf> {
    while Instant::now() < deadline {
        if let Some(name) = list_dir(dir)
            .into_iter()
            .find(|n| n.starts_with("ioz-mdtest."))
        {
            return Some(dir.join(name));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    None
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill takes a pid and a signal number.
    unsafe { libc::kill(child.id() as i32, sig) };
}

/// renameat2(RENAME_EXCHANGE): `a` and `b` trade places in one step.
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    let (a, b) = (
        CString::new(a.as_os_str().as_bytes()).unwrap(),
        CString::new(b.as_os_str().as_bytes()).unwrap(),
    );
    // SAFETY: two NUL-terminated paths.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// `ioz mdtest -F -n N -i 40` in `dir`/w, held once a creation phase has
/// made every file, its `mdtest_tree.0` exchanged for a link to someone
/// else's directory of files named like ioz's, then let go.
fn swap_mid_run(dir: &Path, as_nobody: bool) {
    let n = 3000;
    let w = dir.join("w");
    fs::create_dir(&w).unwrap();
    let foreign = theirs(&dir.join("theirs"), n);
    let link = w.join("link");
    std::os::unix::fs::symlink(&foreign, &link).unwrap();
    let mut command = Command::new(IOZ);
    command
        .args(["mdtest", "-F", "-n", &n.to_string(), "-i", "40", "-d"])
        .arg(&w)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if as_nobody {
        for p in [dir, &w, &foreign] {
            let _ = quietly("chown", &["nobody", p.to_str().unwrap()]);
        }
        let _ = quietly("chmod", &["755", dir.to_str().unwrap()]);
        command.uid(65534).gid(65534);
    }
    let child = command.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let tree = tree_in(&w, deadline).expect("the run's tree");
    let items = tree.join("mdtest_tree.0");
    // Held the moment a creation phase is complete: its stat, read and
    // removal phases are next.
    let mut held = false;
    while Instant::now() < deadline {
        if fs::read_dir(&items).map(|d| d.count()).unwrap_or(0) >= n {
            signal(&child, libc::SIGSTOP);
            held = true;
            break;
        }
    }
    assert!(held, "the creation phase never completed");
    exchange(&items, &link).unwrap();
    signal(&child, libc::SIGCONT);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        count_theirs(&foreign, n),
        n,
        "their files are all there: {stderr}"
    );
    assert_eq!(
        fs::read_dir(&foreign).unwrap().count(),
        n,
        "and nothing was added to them"
    );
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("ioz: ")).collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("replaced by a symbolic link") && l.contains("not followed")),
        "the run says what it met: {stderr}"
    );
    // The rest of the tree is gone; ioz's own items, moved out by the
    // exchange, sit where the link was (theirs to keep: ioz cannot know it).
    assert_eq!(list_dir(&w), ["link"], "{stderr}");
    assert!(fs::symlink_metadata(&link).unwrap().is_dir());
}

fn a_directory_swapped_for_a_link_mid_run_leads_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    swap_mid_run(dir.path(), false);
}

fn a_directory_swapped_for_a_link_leads_nowhere_without_root_either() {
    let dir = tempfile::tempdir().unwrap();
    swap_mid_run(dir.path(), true);
}

fn a_bind_mount_inside_the_tree_is_left_whole() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w");
    fs::create_dir(&w).unwrap();
    let n = 2000;
    let foreign = theirs(&dir.path().join("theirs"), n);
    let child = Command::new(IOZ)
        .args(["mdtest", "-n", "200000", "-F", "-i", "50", "-d"])
        .arg(&w)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let tree = tree_in(&w, deadline).expect("the run's tree");
    let mnt = tree.join("mnt");
    fs::create_dir(&mnt).unwrap();
    quietly(
        "mount",
        &["--bind", foreign.to_str().unwrap(), mnt.to_str().unwrap()],
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    signal(&child, libc::SIGINT);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let still = count_theirs(&mnt, n);
    let _ = quietly("umount", &[mnt.to_str().unwrap()]);
    assert_eq!(still, n, "every file in the mount is there: {stderr}");
    assert_eq!(count_theirs(&foreign, n), n);
    let named: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(&mnt.display().to_string()))
        .collect();
    assert_eq!(named.len(), 1, "the mount named once: {stderr}");
    assert!(
        named[0].contains("mounted there") && named[0].contains("not entered"),
        "{}",
        named[0]
    );
    // Everything else of the tree is gone: the mount point and the tree's
    // directory that holds it are all that is left.
    assert_eq!(list_dir(&tree), ["mnt"], "{stderr}");
    assert_eq!(list_dir(&mnt), Vec::<String>::new());
}

fn control_characters_in_the_directory_are_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let name = "d\u{1b}]0;PWNED\u{7}\nfake";
    fs::create_dir(dir.path().join(name)).unwrap();
    for command in ["fileop", "mdtest"] {
        let args: &[&str] = match command {
            "fileop" => &["fileop", "-f", "1", "-d", name],
            _ => &["mdtest", "-n", "2", "-d", name],
        };
        let out = Command::new(IOZ)
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(!text.contains('\u{1b}'), "{command}: an escape printed raw");
        assert!(!text.contains('\u{7}'), "{command}: a bell printed raw");
        assert!(
            !text.lines().any(|l| l.starts_with("fake")),
            "{command}: a forged line:\n{text}"
        );
        assert!(
            text.contains("\\x1b]0;PWNED"),
            "{command}: the name shown escaped:\n{text}"
        );
    }
}
