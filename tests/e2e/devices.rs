//! Block devices as targets, end to end on loop devices: a blank one is used in
//! place; one holding a file system or swap, a mounted one, a mismatched
//! --destroy-data and a run larger than the device are refused before any I/O.
//!
//! Needs root and working loop devices; without them the tests are listed
//! as ignored with the reason.

use std::fs;
use std::path::Path;

use crate::fixtures::{LoopDevice, Mounted, Run, Test, ioz, quietly, refused, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_blank_device_is_written_in_place_and_never_removed => [LoopDevice],
        a_run_larger_than_the_device_is_refused_with_the_sizes => [LoopDevice],
        a_file_system_is_refused_unless_its_destruction_is_asked_for => [LoopDevice, Ext4],
        a_blank_device_refuses_a_destroy_data_for_another_device => [LoopDevice],
        a_mounted_device_is_refused_even_with_destroy_data => [LoopDevice, Ext4],
        a_swap_signature_is_refused => [LoopDevice, Mkswap],
        a_device_given_by_a_link_is_checked_as_a_device => [LoopDevice, Mkswap],
    ]
}

const DEVICE_BYTES: u64 = 64 << 20;

fn run(args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    ioz(dir.path(), args)
}

fn has_ext_magic(dev: &LoopDevice) -> bool {
    dev.bytes_at(1080, 2) == [0x53, 0xef]
}

fn a_blank_device_is_written_in_place_and_never_removed() {
    let dev = LoopDevice::new(DEVICE_BYTES);
    let d = dev.path();
    let json = dev.dir().join("run.json");
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

fn a_run_larger_than_the_device_is_refused_with_the_sizes() {
    let dev = LoopDevice::new(DEVICE_BYTES);
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

fn a_file_system_is_refused_unless_its_destruction_is_asked_for() {
    let dev = LoopDevice::new(DEVICE_BYTES);
    let d = dev.path();
    quietly("mkfs.ext4", &["-q", "-F", d]).unwrap();
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

fn a_blank_device_refuses_a_destroy_data_for_another_device() {
    let dev = LoopDevice::new(DEVICE_BYTES);
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

fn a_mounted_device_is_refused_even_with_destroy_data() {
    let dev = LoopDevice::new(DEVICE_BYTES);
    let d = dev.path();
    quietly("mkfs.ext4", &["-q", "-F", d]).unwrap();
    let mounted = Mounted::new(d);
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

fn a_swap_signature_is_refused() {
    let dev = LoopDevice::new(DEVICE_BYTES);
    let d = dev.path();
    quietly("mkswap", &[d]).unwrap();
    let r = run(&["-s", "1m", "-i", "0", "-f", d]);
    let line = refused(&r);
    assert!(line.contains("swap area"), "{line}");
    assert_eq!(dev.bytes_at(4086, 10), b"SWAPSPACE2");
}

fn a_device_given_by_a_link_is_checked_as_a_device() {
    let dev = LoopDevice::new(DEVICE_BYTES);
    let d = dev.path();
    quietly("mkswap", &[d]).unwrap();
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
