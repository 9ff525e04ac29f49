//! Block devices as targets, end to end on loop devices: a blank one is used in
//! place; one holding a file system or swap, a mounted one, a mismatched
//! --destroy-data and a run larger than the device are refused before any I/O.
//!
//! Needs root and working loop devices; without them each test says why it
//! skips and passes.

mod common;

use std::fs;
use std::os::unix::fs::{FileExt, FileTypeExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{Run, ioz};

const DEVICE_BYTES: u64 = 64 << 20;

/// A 64 MiB sparse file attached to a loop device, detached on drop.
struct Loop {
    _dir: tempfile::TempDir,
    backing: PathBuf,
    device: String,
}

impl Loop {
    /// `None` (after printing why) when loop devices cannot be used here.
    fn new(test: &str) -> Option<Loop> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipping {test}: needs root for loop devices");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let backing = dir.path().join("disk.img");
        fs::File::create(&backing)
            .unwrap()
            .set_len(DEVICE_BYTES)
            .unwrap();
        let out = match Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&backing)
            .stdin(Stdio::null())
            .output()
        {
            Ok(o) => o,
            Err(e) => {
                eprintln!("skipping {test}: cannot run losetup: {e}");
                return None;
            }
        };
        let device = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if !out.status.success() || !device.starts_with("/dev/") {
            eprintln!(
                "skipping {test}: losetup -f --show failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return None;
        }
        Some(Loop {
            _dir: dir,
            backing,
            device,
        })
    }

    fn path(&self) -> &str {
        &self.device
    }

    /// The backing file's bytes at `offset` (what the device holds there).
    fn bytes_at(&self, offset: u64, len: usize) -> Vec<u8> {
        let mut buf = vec![0u8; len];
        fs::File::open(&self.backing)
            .unwrap()
            .read_exact_at(&mut buf, offset)
            .unwrap();
        buf
    }

    fn is_block_device(&self) -> bool {
        fs::metadata(&self.device).is_ok_and(|m| m.file_type().is_block_device())
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup")
            .args(["-d", &self.device])
            .stdin(Stdio::null())
            .status();
    }
}

/// A file system mounted on a temporary directory, unmounted on drop.
struct Mounted {
    dir: tempfile::TempDir,
}

impl Mounted {
    fn new(device: &str) -> Option<Mounted> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .arg(device)
            .arg(dir.path())
            .stdin(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Mounted { dir })
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg(self.dir.path())
            .stdin(Stdio::null())
            .status();
    }
}

/// Runs `program args… device` quietly; false (after printing why) when it
/// is missing or fails.
fn tool(test: &str, program: &str, args: &[&str], device: &str) -> bool {
    match Command::new(program)
        .args(args)
        .arg(device)
        .stdin(Stdio::null())
        .output()
    {
        Ok(o) if o.status.success() => true,
        Ok(o) => {
            eprintln!(
                "skipping {test}: {program} failed: {}",
                String::from_utf8_lossy(&o.stderr).trim()
            );
            false
        }
        Err(e) => {
            eprintln!("skipping {test}: cannot run {program}: {e}");
            false
        }
    }
}

fn run(args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    ioz(dir.path(), args)
}

/// Exit 2 with one line on stderr, nothing on stdout; returns the line.
fn refused(run: &Run) -> &str {
    run.expect_code(2);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("ioz: "), "{}", run.stderr);
    run.stderr.trim_end()
}

fn has_ext_magic(dev: &Loop) -> bool {
    dev.bytes_at(1080, 2) == [0x53, 0xef]
}

#[test]
fn a_blank_device_is_written_in_place_and_never_removed() {
    let Some(dev) = Loop::new("a_blank_device_is_written_in_place_and_never_removed") else {
        return;
    };
    let d = dev.path();
    let json = dev._dir.path().join("run.json");
    let run = run(&[
        "-s",
        "8m",
        "-r",
        "64k",
        "-i",
        "0",
        "-i",
        "1",
        "-f",
        d,
        "--json",
        json.to_str().unwrap(),
    ]);
    run.expect_code(0);
    // The environment describes the device, not the devtmpfs its node is on.
    let saved: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let target = &saved["environment"]["target"];
    assert_eq!(target["fs_type"], "", "{target}");
    assert_eq!(target["source"], d, "{target}");
    let name = Path::new(d).file_name().unwrap().to_str().unwrap();
    assert_eq!(target["device"]["name"], name, "{target}");
    assert!(run.stdout.contains("8192      64"), "{}", run.stdout);
    assert!(dev.is_block_device(), "{d} is gone");
    // The data went to the device (random data, not zeros).
    assert!(dev.bytes_at(0, 4096).iter().any(|&b| b != 0));
    assert!(dev.bytes_at(8 << 20, 4096).iter().all(|&b| b == 0));

    // Throughput mode: two workers on the one device, which stays.
    let run2 = self::run(&["-t", "2", "-s", "4m", "-r", "64k", "-i", "0", "-F", d, d]);
    run2.expect_code(0);
    assert!(dev.is_block_device(), "{d} is gone");
}

#[test]
fn a_run_larger_than_the_device_is_refused_with_the_sizes() {
    let Some(dev) = Loop::new("a_run_larger_than_the_device_is_refused_with_the_sizes") else {
        return;
    };
    let d = dev.path();
    let r = run(&["-s", "128m", "-i", "0", "-f", d]);
    let line = refused(&r);
    assert!(line.contains(d), "{line}");
    assert!(line.contains("65536 kB (67108864 bytes)"), "{line}");
    assert!(line.contains("131072 kB (134217728 bytes)"), "{line}");

    // Two workers' 40 MiB files on the one 64 MiB device do not fit.
    let r = run(&["-t", "2", "-s", "40m", "-i", "0", "-F", d, d]);
    let line = refused(&r);
    assert!(line.contains("2 files of 40960 kB"), "{line}");
    assert!(line.contains("81920 kB"), "{line}");
    assert!(dev.bytes_at(0, 65536).iter().all(|&b| b == 0));
}

#[test]
fn a_file_system_is_refused_unless_its_destruction_is_asked_for() {
    let test = "a_file_system_is_refused_unless_its_destruction_is_asked_for";
    let Some(dev) = Loop::new(test) else {
        return;
    };
    let d = dev.path();
    if !tool(test, "mkfs.ext4", &["-q", "-F"], d) {
        return;
    }
    let args = ["-s", "8m", "-r", "64k", "-i", "0", "-i", "1", "-f", d];
    let r = run(&args);
    let line = refused(&r);
    assert!(line.contains(&format!("ioz: {d} holds an ext")), "{line}");
    assert!(line.contains("ext4"), "{line}");
    assert!(line.contains(&format!("--destroy-data={d}")), "{line}");
    assert!(has_ext_magic(&dev), "the file system was touched");

    // --destroy-data naming another device is refused too.
    let other = format!("{d}9");
    let mut wrong = args.to_vec();
    let flag = format!("--destroy-data={other}");
    wrong.push(&flag);
    let r = run(&wrong);
    let line = refused(&r);
    assert!(
        line.contains(&format!("--destroy-data={other} does not name {d}")),
        "{line}"
    );
    assert!(has_ext_magic(&dev), "the file system was touched");

    // Naming the device destroys it.
    let mut right = args.to_vec();
    let flag = format!("--destroy-data={d}");
    right.push(&flag);
    run(&right).expect_code(0);
    assert!(!has_ext_magic(&dev));
    assert!(dev.is_block_device());
}

#[test]
fn a_blank_device_refuses_a_destroy_data_for_another_device() {
    let Some(dev) = Loop::new("a_blank_device_refuses_a_destroy_data_for_another_device") else {
        return;
    };
    let d = dev.path();
    let r = run(&[
        "-s",
        "1m",
        "-i",
        "0",
        "-f",
        d,
        "--destroy-data=/dev/loop-none",
    ]);
    let line = refused(&r);
    assert!(line.contains("does not name"), "{line}");
    assert!(dev.bytes_at(0, 65536).iter().all(|&b| b == 0));
    // A regular file as the target: nothing to destroy.
    let r = run(&["-s", "64k", "-i", "0", "--destroy-data", d]);
    let line = refused(&r);
    assert!(line.contains("names no device"), "{line}");
}

#[test]
fn a_mounted_device_is_refused_even_with_destroy_data() {
    let test = "a_mounted_device_is_refused_even_with_destroy_data";
    let Some(dev) = Loop::new(test) else {
        return;
    };
    let d = dev.path();
    if !tool(test, "mkfs.ext4", &["-q", "-F"], d) {
        return;
    }
    let Some(mounted) = Mounted::new(d) else {
        eprintln!("skipping {test}: cannot mount {d}");
        return;
    };
    fs::write(mounted.dir.path().join("precious"), b"keep me").unwrap();
    let flag = format!("--destroy-data={d}");
    for extra in [None, Some(flag.as_str())] {
        let mut args = vec!["-s", "1m", "-i", "0", "-f", d];
        args.extend(extra);
        let r = run(&args);
        let line = refused(&r);
        assert!(line.contains(&format!("{d} is mounted")), "{line}");
        assert!(
            line.contains(&mounted.dir.path().display().to_string()),
            "{line}"
        );
    }
    assert_eq!(
        fs::read(mounted.dir.path().join("precious")).unwrap(),
        b"keep me"
    );
    drop(mounted);
    assert!(has_ext_magic(&dev));
}

#[test]
fn a_swap_signature_is_refused() {
    let test = "a_swap_signature_is_refused";
    let Some(dev) = Loop::new(test) else {
        return;
    };
    let d = dev.path();
    if !tool(test, "mkswap", &[], d) {
        return;
    }
    let r = run(&["-s", "1m", "-i", "0", "-f", d]);
    let line = refused(&r);
    assert!(line.contains("swap area"), "{line}");
    assert_eq!(dev.bytes_at(4086, 10), b"SWAPSPACE2");
}

#[test]
fn a_device_given_by_a_link_is_checked_as_a_device() {
    let test = "a_device_given_by_a_link_is_checked_as_a_device";
    let Some(dev) = Loop::new(test) else {
        return;
    };
    let d = dev.path();
    if !tool(test, "mkswap", &[], d) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("disk");
    std::os::unix::fs::symlink(d, &link).unwrap();
    let link = link.to_str().unwrap();
    let r = ioz(dir.path(), &["-s", "1m", "-i", "0", "-f", link]);
    let line = refused(&r);
    assert!(line.contains("swap area"), "{line}");
    let flag = format!("--destroy-data={d}");
    ioz(dir.path(), &["-s", "1m", "-i", "0", "-f", link, &flag]).expect_code(0);
    assert!(Path::new(link).exists());
    assert!(dev.is_block_device());
}
