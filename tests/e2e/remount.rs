//! -U end to end on a small ext4 file system on a loop device: every pass
//! starts on a freshly mounted file system (ext4 counts its mounts in the
//! super block), which comes back with its options and every byte of its
//! files; what -U cannot cycle safely is refused before any I/O.
//!
//! Needs root, losetup and mkfs.ext4; without them the tests are listed as
//! ignored with the reason.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::fixtures::{
    self, Ext4, IOZ, Run, Test, Tmpfs, data_rows, ioz, is_root, list_dir, quietly, trials,
};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        every_pass_starts_on_a_freshly_mounted_file_system_that_keeps_its_options_and_files => [Ext4],
        a_relative_test_file_works_from_a_working_directory_inside_the_mount => [Ext4],
        a_tmpfs_is_refused_because_unmounting_would_destroy_it => [Tmpfs],
        a_directory_that_is_not_a_mount_point_is_refused => [Root],
        a_test_file_on_another_file_system_is_refused => [Ext4],
        a_mount_inside_it_or_a_process_using_it_is_refused_before_any_io => [Ext4, Tmpfs],
        a_mount_in_another_namespace_is_refused_since_it_would_keep_the_cache => [Ext4, Unshare],
        a_file_system_that_cannot_be_mounted_back_is_named_with_the_command_that_mounts_it => [Ext4],
        without_cap_sys_admin_it_is_refused_before_anything_else => [Unprivileged],
    ]
}

/// `sleep 60` started by `program args…`, killed on drop.
struct Sleeper(std::process::Child);

impl Sleeper {
    fn start(program: &[&str], cwd: &Path) -> Sleeper {
        let child = Command::new(program[0])
            .args(&program[1..])
            .args(["sleep", "60"])
            .current_dir(cwd)
            .stdin(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", program[0]));
        Sleeper(child)
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Waits until the process runs sleep (after whatever set it up).
    fn wait_for_sleep(&self) -> bool {
        let comm = format!("/proc/{}/comm", self.pid());
        for _ in 0..2000 {
            if fs::read_to_string(&comm).is_ok_and(|c| c.trim() == "sleep") {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        false
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The mount at `mnt` in this process's mountinfo: (source, per-mount options).
fn mounted_at(mnt: &Path) -> Option<(String, Vec<String>)> {
    let text = fs::read_to_string("/proc/self/mountinfo").unwrap();
    let mnt = mnt.to_str().unwrap();
    text.lines().rev().find_map(|line| {
        let fields: Vec<&str> = line.split(' ').collect();
        if fields.get(4) != Some(&mnt) {
            return None;
        }
        let sep = fields.iter().position(|f| *f == "-")?;
        Some((
            fields[sep + 2].to_string(),
            fields[5].split(',').map(String::from).collect(),
        ))
    })
}

/// Refused (see [`fixtures::refused`]) by -U; returns the line.
fn refused(run: &Run) -> &str {
    let line = fixtures::refused(run);
    assert!(line.starts_with("ioz: -U "), "{}", run.stderr);
    line
}

/// A foreign file with bytes that differ from offset to offset.
fn plant(path: &Path) -> Vec<u8> {
    let bytes: Vec<u8> = (0..300_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    fs::write(path, &bytes).unwrap();
    bytes
}

fn every_pass_starts_on_a_freshly_mounted_file_system_that_keeps_its_options_and_files() {
    let ext4 = Ext4::new("noatime");
    let foreign = plant(&ext4.mnt().join("keep.bin"));
    let mounts_before = ext4.mount_count();
    let test_file = ext4.mnt().join("t.tmp");
    let run = ioz(
        Path::new("/"),
        &[
            "-U",
            &ext4.mnt_str(),
            "-f",
            test_file.to_str().unwrap(),
            "-s",
            "1m",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
        ],
    );
    run.expect_code(0);
    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{}", run.stdout);
    assert_eq!(rows[0].len(), 6, "{}", run.stdout);
    assert_eq!(&rows[0][..2], &[1024, 64]);
    assert!(rows[0][2..].iter().all(|&kbs| kbs > 0), "{:?}", rows[0]);
    // One mount per pass: write, rewrite, read, reread.
    assert_eq!(ext4.mount_count(), mounts_before + 4);
    let (source, options) = mounted_at(&ext4.mnt()).expect("it is mounted again");
    assert_eq!(source, ext4.device);
    assert!(options.contains(&"noatime".to_string()), "{options:?}");
    assert!(options.contains(&"rw".to_string()), "{options:?}");
    assert_eq!(fs::read(ext4.mnt().join("keep.bin")).unwrap(), foreign);
    assert_eq!(list_dir(&ext4.mnt()), ["keep.bin", "lost+found"]);
}

fn a_relative_test_file_works_from_a_working_directory_inside_the_mount() {
    let ext4 = Ext4::new("nodev,nosuid");
    let mounts_before = ext4.mount_count();
    let run = ioz(
        &ext4.mnt(),
        &[
            "-U",
            &ext4.mnt_str(),
            "-f",
            "t.tmp",
            "-s",
            "256k",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "2",
        ],
    );
    run.expect_code(0);
    assert_eq!(data_rows(&run.stdout).len(), 1, "{}", run.stdout);
    // write, rewrite, random read, random write.
    assert_eq!(ext4.mount_count(), mounts_before + 4);
    let (_, options) = mounted_at(&ext4.mnt()).expect("it is mounted again");
    for o in ["nodev", "nosuid", "relatime"] {
        assert!(options.contains(&o.to_string()), "{o} in {options:?}");
    }
    assert_eq!(list_dir(&ext4.mnt()), ["lost+found"]);
}

fn a_tmpfs_is_refused_because_unmounting_would_destroy_it() {
    let _turn = fixtures::mounts::ext4_turn();
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("ram");
    let _tmpfs = Tmpfs::mount(&mnt, "size=4m");
    let foreign = plant(&mnt.join("keep.bin"));
    let file = mnt.join("t.tmp");
    let run = ioz(
        dir.path(),
        &[
            "-U",
            mnt.to_str().unwrap(),
            "-f",
            file.to_str().unwrap(),
            "-s",
            "64k",
        ],
    );
    let line = refused(&run);
    assert!(
        line.contains("tmpfs keeps its files in memory only"),
        "{line}"
    );
    assert!(mounted_at(&mnt).is_some());
    assert_eq!(fs::read(mnt.join("keep.bin")).unwrap(), foreign);
    assert_eq!(list_dir(&mnt), ["keep.bin"]);
}

fn a_directory_that_is_not_a_mount_point_is_refused() {
    // As root (declared in the list): for anyone else the root check comes first.
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    fs::create_dir(&sub).unwrap();
    let file = sub.join("t.tmp");
    let run = ioz(
        dir.path(),
        &[
            "-U",
            sub.to_str().unwrap(),
            "-f",
            file.to_str().unwrap(),
            "-s",
            "64k",
        ],
    );
    let line = refused(&run);
    assert!(line.contains("is not a mount point"), "{line}");
    assert!(list_dir(&sub).is_empty());
}

fn a_test_file_on_another_file_system_is_refused() {
    let ext4 = Ext4::new("relatime");
    let elsewhere = tempfile::tempdir().unwrap();
    let file = elsewhere.path().join("t.tmp");
    let run = ioz(
        elsewhere.path(),
        &[
            "-U",
            &ext4.mnt_str(),
            "-f",
            file.to_str().unwrap(),
            "-s",
            "64k",
        ],
    );
    let line = refused(&run);
    assert!(line.contains("is not on that file system"), "{line}");
    assert!(list_dir(elsewhere.path()).is_empty());
    assert_eq!(list_dir(&ext4.mnt()), ["lost+found"]);
}

fn a_mount_inside_it_or_a_process_using_it_is_refused_before_any_io() {
    let ext4 = Ext4::new("relatime");
    let file = ext4.mnt().join("t.tmp");
    let args = [
        "-U",
        &ext4.mnt_str(),
        "-f",
        file.to_str().unwrap(),
        "-s",
        "64k",
    ];

    let inner = ext4.mnt().join("inner");
    {
        let _tmpfs = Tmpfs::mount(&inner, "size=4m");
        let run = ioz(Path::new("/"), &args);
        let line = refused(&run);
        assert!(line.contains("inner is mounted inside it"), "{line}");
    }
    fs::remove_dir(&inner).unwrap();

    let sleeper = Sleeper::start(&["env"], &ext4.mnt());
    assert!(sleeper.wait_for_sleep());
    let run = ioz(Path::new("/"), &args);
    let line = refused(&run);
    assert!(
        line.contains(&format!(
            "process {} (sleep) has its working directory there",
            sleeper.pid()
        )),
        "{line}"
    );
    drop(sleeper);
    assert_eq!(list_dir(&ext4.mnt()), ["lost+found"]);
}

fn a_mount_in_another_namespace_is_refused_since_it_would_keep_the_cache() {
    let ext4 = Ext4::new("relatime");
    let unshare = ["unshare", "-m", "--propagation", "private"];
    let other = Sleeper::start(&unshare, Path::new("/"));
    assert!(other.wait_for_sleep(), "unshare -m did not start sleep");
    let file = ext4.mnt().join("t.tmp");
    let run = ioz(
        Path::new("/"),
        &[
            "-U",
            &ext4.mnt_str(),
            "-f",
            file.to_str().unwrap(),
            "-s",
            "64k",
        ],
    );
    let line = refused(&run);
    assert!(
        line.contains(&format!(
            "also mounted at {} in the mount namespace of process {} (sleep)",
            ext4.mnt_str(),
            other.pid()
        )),
        "{line}"
    );
    assert_eq!(list_dir(&ext4.mnt()), ["lost+found"]);
}

fn a_file_system_that_cannot_be_mounted_back_is_named_with_the_command_that_mounts_it() {
    let mut ext4 = Ext4::new("noatime");
    let foreign = plant(&ext4.mnt().join("keep.bin"));
    let mounts_before = ext4.mount_count();
    let test_file = ext4.mnt().join("t.tmp");
    // -+q 1: a second's pause after each pass, before the next remount.
    let child = Command::new(IOZ)
        .args(["-U", &ext4.mnt_str(), "-f", test_file.to_str().unwrap()])
        .args(["-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-+q", "1"])
        .current_dir("/")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // After the first remount, detach the loop device: the kernel defers it
    // while mounted and clears it at the next unmount, so mounting back fails.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while ext4.mount_count() == mounts_before && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    if ext4.mount_count() != mounts_before + 1 {
        let mut child = child;
        let _ = child.kill();
        let out = child.wait_with_output().unwrap();
        panic!(
            "no remount seen in 20 s (mount count {} → {}); ioz said:\n{}{}",
            mounts_before,
            ext4.mount_count(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    quietly("losetup", &["-d", &ext4.device]).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let command = format!(
        "mount -t ext4 -o rw,noatime {} {}",
        ext4.device,
        ext4.mnt_str()
    );
    assert!(
        stderr.contains(&format!(
            "the file system is UNMOUNTED: mount it back with: {command}"
        )),
        "{stderr}"
    );
    assert!(mounted_at(&ext4.mnt()).is_none());
    // The write pass was measured before the failure.
    assert_eq!(data_rows(&String::from_utf8_lossy(&out.stdout)).len(), 1);

    // Attach the image again (on whatever device is free) and run the command.
    ext4.device = quietly("losetup", &["-f", "--show", &ext4.image()]).unwrap();
    let command = format!(
        "mount -t ext4 -o rw,noatime {} {}",
        ext4.device,
        ext4.mnt_str()
    );
    quietly("sh", &["-c", &command]).unwrap();
    assert_eq!(fs::read(ext4.mnt().join("keep.bin")).unwrap(), foreign);
    // ioz could not reach its file to remove it; it is still marked as ioz's.
    assert_eq!(list_dir(&ext4.mnt()), ["keep.bin", "lost+found", "t.tmp"]);
    assert_eq!(fs::metadata(&test_file).unwrap().len(), 256 << 10);
}

fn without_cap_sys_admin_it_is_refused_before_anything_else() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.tmp");
    let args = ["-U", "/", "-f", file.to_str().unwrap(), "-s", "64k"];
    let run = if is_root() {
        // nobody may create the test file there: only -U is missing.
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o777)).unwrap();
        // Drop every capability and become nobody.
        fixtures::run(
            Command::new("setpriv")
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .args(["--inh-caps=-all", IOZ])
                .args(args)
                .current_dir(dir.path()),
        )
    } else {
        ioz(dir.path(), &args)
    };
    assert!(!run.stderr.contains("setpriv"), "{}", run.stderr);
    let line = refused(&run);
    assert_eq!(
        line,
        "ioz: -U needs root (CAP_SYS_ADMIN) to unmount and mount /"
    );
    assert!(list_dir(dir.path()).is_empty());
}
