//! -U end to end on a small ext4 file system on a loop device: every pass
//! starts on a freshly mounted file system (ext4 counts its mounts in the
//! super block), which comes back with its options and every byte of its
//! files; what -U cannot cycle safely is refused before any I/O.
//!
//! Needs root, losetup and mkfs.ext4; without them each test says why it
//! skips and passes.

mod common;

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{IOZ, Run, data_rows, ioz, list_dir};

const IMAGE_BYTES: u64 = 32 << 20;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Runs a command quietly; the reason it failed, if it did.
fn quietly(program: &str, args: &[&str]) -> Result<String, String> {
    match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        Ok(o) => Err(format!(
            "{program} failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("cannot run {program}: {e}")),
    }
}

/// An ext4 image on a loop device, mounted on a temporary directory; on drop
/// (even after a failed assertion) unmounted and detached.
struct Ext4 {
    dir: tempfile::TempDir,
    device: String,
    /// One mounted image at a time: a test that unshares a mount namespace
    /// copies every mount there is, and would make another test's file
    /// system "also mounted elsewhere" (which ioz rightly refuses).
    _serial: std::sync::MutexGuard<'static, ()>,
}

static ONE_IMAGE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

const IMAGE: &str = "ext4.img";

impl Ext4 {
    fn new(test: &str, options: &str) -> Option<Ext4> {
        if !is_root() {
            eprintln!("skipping {test}: needs root to mount");
            return None;
        }
        let serial = ONE_IMAGE_AT_A_TIME
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join(IMAGE);
        fs::File::create(&image)
            .unwrap()
            .set_len(IMAGE_BYTES)
            .unwrap();
        let image = image.to_str().unwrap();
        if let Err(why) = quietly("mkfs.ext4", &["-q", "-F", image]) {
            eprintln!("skipping {test}: {why}");
            return None;
        }
        let device = match quietly("losetup", &["-f", "--show", image]) {
            Ok(d) if d.starts_with("/dev/") => d,
            Ok(d) => {
                eprintln!("skipping {test}: losetup printed {d:?}");
                return None;
            }
            Err(why) => {
                eprintln!("skipping {test}: {why}");
                return None;
            }
        };
        let fs = Ext4 {
            dir,
            device,
            _serial: serial,
        };
        fs::create_dir(fs.mnt()).unwrap();
        if let Err(why) = quietly(
            "mount",
            &["-o", options, &fs.device, fs.mnt().to_str().unwrap()],
        ) {
            eprintln!("skipping {test}: {why}");
            return None;
        }
        Some(fs)
    }

    fn mnt(&self) -> PathBuf {
        self.dir.path().join("mnt")
    }

    fn image(&self) -> String {
        self.dir.path().join(IMAGE).to_str().unwrap().to_string()
    }

    fn mnt_str(&self) -> String {
        self.mnt().to_str().unwrap().to_string()
    }

    /// How many times the file system was mounted: s_mnt_count (little-endian
    /// u16 at byte 0x34 of the super block, which starts at byte 1024).
    fn mount_count(&self) -> u16 {
        let mut b = [0u8; 2];
        fs::File::open(&self.device)
            .unwrap()
            .read_exact_at(&mut b, 1024 + 0x34)
            .unwrap();
        u16::from_le_bytes(b)
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        let _ = quietly("umount", &[self.mnt().to_str().unwrap()]);
        let _ = quietly("losetup", &["-d", &self.device]);
    }
}

/// A tmpfs mounted on `dir`, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn new(test: &str, dir: &Path) -> Option<Tmpfs> {
        fs::create_dir_all(dir).unwrap();
        match quietly(
            "mount",
            &[
                "-t",
                "tmpfs",
                "-o",
                "size=4m",
                "tmpfs",
                dir.to_str().unwrap(),
            ],
        ) {
            Ok(_) => Some(Tmpfs(dir.to_path_buf())),
            Err(why) => {
                eprintln!("skipping {test}: {why}");
                None
            }
        }
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = quietly("umount", &[self.0.to_str().unwrap()]);
    }
}

/// `sleep 60` started by `program args…`, killed on drop.
struct Sleeper(std::process::Child);

impl Sleeper {
    fn start(test: &str, program: &[&str], cwd: &Path) -> Option<Sleeper> {
        match Command::new(program[0])
            .args(&program[1..])
            .args(["sleep", "60"])
            .current_dir(cwd)
            .stdin(Stdio::null())
            .spawn()
        {
            Ok(child) => Some(Sleeper(child)),
            Err(e) => {
                eprintln!("skipping {test}: cannot run {}: {e}", program[0]);
                None
            }
        }
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

/// Exit 2 with one line on stderr, nothing on stdout; returns the line.
fn refused(run: &Run) -> &str {
    run.expect_code(2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("ioz: -U "), "{}", run.stderr);
    run.stderr.trim_end()
}

/// A foreign file with bytes that differ from offset to offset.
fn plant(path: &Path) -> Vec<u8> {
    let bytes: Vec<u8> = (0..300_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
    fs::write(path, &bytes).unwrap();
    bytes
}

#[test]
fn every_pass_starts_on_a_freshly_mounted_file_system_that_keeps_its_options_and_files() {
    let Some(ext4) = Ext4::new("remount_each_pass", "noatime") else {
        return;
    };
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

#[test]
fn a_relative_test_file_works_from_a_working_directory_inside_the_mount() {
    let Some(ext4) = Ext4::new("remount_relative", "nodev,nosuid") else {
        return;
    };
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

#[test]
fn a_tmpfs_is_refused_because_unmounting_would_destroy_it() {
    if !is_root() {
        eprintln!("skipping remount_tmpfs: needs root to mount");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("ram");
    let Some(_tmpfs) = Tmpfs::new("remount_tmpfs", &mnt) else {
        return;
    };
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

#[test]
fn a_directory_that_is_not_a_mount_point_is_refused() {
    if !is_root() {
        eprintln!("skipping remount_not_a_mount_point: the root check comes first");
        return;
    }
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

#[test]
fn a_test_file_on_another_file_system_is_refused() {
    let Some(ext4) = Ext4::new("remount_elsewhere", "relatime") else {
        return;
    };
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

#[test]
fn a_mount_inside_it_or_a_process_using_it_is_refused_before_any_io() {
    let Some(ext4) = Ext4::new("remount_busy", "relatime") else {
        return;
    };
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
        let Some(_tmpfs) = Tmpfs::new("remount_busy", &inner) else {
            return;
        };
        let run = ioz(Path::new("/"), &args);
        let line = refused(&run);
        assert!(line.contains("inner is mounted inside it"), "{line}");
    }
    fs::remove_dir(&inner).unwrap();

    let sleeper = Sleeper::start("remount_busy", &["env"], &ext4.mnt()).unwrap();
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

#[test]
fn a_mount_in_another_namespace_is_refused_since_it_would_keep_the_cache() {
    let Some(ext4) = Ext4::new("remount_namespace", "relatime") else {
        return;
    };
    let unshare = ["unshare", "-m", "--propagation", "private"];
    let Some(other) = Sleeper::start("remount_namespace", &unshare, Path::new("/")) else {
        return;
    };
    if !other.wait_for_sleep() {
        eprintln!("skipping remount_namespace: unshare -m did not start sleep");
        return;
    }
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

#[test]
fn a_file_system_that_cannot_be_mounted_back_is_named_with_the_command_that_mounts_it() {
    let Some(mut ext4) = Ext4::new("remount_failure", "noatime") else {
        return;
    };
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

#[test]
fn without_cap_sys_admin_it_is_refused_before_anything_else() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.tmp");
    let args = ["-U", "/", "-f", file.to_str().unwrap(), "-s", "64k"];
    let run = if is_root() {
        // Drop every capability and become nobody, when setpriv can.
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .args(["--inh-caps=-all", IOZ])
            .args(args)
            .current_dir(dir.path())
            .output();
        match out {
            Ok(o) => Run {
                code: o.status.code(),
                stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
                stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
            },
            Err(e) => {
                eprintln!("skipping remount_not_root: cannot run setpriv: {e}");
                return;
            }
        }
    } else {
        ioz(dir.path(), &args)
    };
    if run.stderr.contains("setpriv") {
        eprintln!("skipping remount_not_root: {}", run.stderr.trim());
        return;
    }
    let line = refused(&run);
    assert_eq!(
        line,
        "ioz: -U needs root (CAP_SYS_ADMIN) to unmount and mount /"
    );
    assert!(list_dir(dir.path()).is_empty());
}
