//! The ceilings of model/ceilings.rs, measured once before a run's first
//! pass (untimed; well under a second): one core's memcpy, a bare cached
//! read loop over a small file of ioz's own beside the test file (created
//! O_EXCL, marked as a test file is, removed after while the path still
//! leads to it), and the device's queue limits and link speed from sysfs.

use std::fs::{self, File, OpenOptions};
use std::hint::black_box;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::model::ceilings::{
    Ceilings, DeviceCeiling, pcie_bytes_per_sec, sata_bytes_per_sec, usb_bytes_per_sec,
};
use crate::model::environment::DeviceInfo;
use crate::system::sysfs::read_attr;
use crate::system::xattr::{self, Mark};

/// The cached read's file and record.
const READ_FILE: usize = 4 << 20;
const READ_RECORD: usize = 128 << 10;

/// The run's ceilings: `target` is its first test file, `device` the disk
/// under it (the environment's).
pub fn measure(target: &Path, device: Option<&DeviceInfo>) -> Ceilings {
    let mut c = Ceilings::default();
    let (best, dram) = memcpy_rates();
    c.memcpy_bytes_per_sec = Some(best.max(dram));
    c.memcpy_dram_bytes_per_sec = Some(dram);
    match cached_read_rate(target) {
        Ok(rate) => c.cached_read_bytes_per_sec = Some(rate),
        Err(why) => c.why.push(format!("no cached read ceiling: {why}")),
    }
    c.device = device.map(|d| device_ceiling(Path::new("/sys"), d));
    c
}

/// Bytes/s of one core's copies: the best of a 256 KiB buffer's (in the
/// CPU's caches) and the best of three copies of a 64 MiB buffer.
fn memcpy_rates() -> (f64, f64) {
    let rate = |size: usize, copies: usize, rounds: usize| {
        let src = vec![0x5au8; size];
        let mut dst = vec![0u8; size];
        dst.copy_from_slice(&src); // first touch, untimed
        let mut best = 0.0f64;
        for _ in 0..rounds {
            let t = Instant::now();
            for _ in 0..copies {
                dst.copy_from_slice(black_box(&src));
                black_box(&mut dst);
            }
            let secs = t.elapsed().as_secs_f64();
            if secs > 0.0 {
                best = best.max((size * copies) as f64 / secs);
            }
        }
        best
    };
    (rate(256 << 10, 64, 5), rate(64 << 20, 1, 3))
}

/// The path of the cached read's file: beside `target`, named after it and
/// this process.
fn read_file_path(target: &Path) -> Option<PathBuf> {
    let name = target.file_name()?.to_string_lossy().into_owned();
    Some(target.with_file_name(format!("{name}.ioz-ceiling.{}", std::process::id())))
}

/// A bare pread loop's bytes/s over a 4 MiB file of ioz's own beside
/// `target`, read twice, the second timed.
fn cached_read_rate(target: &Path) -> Result<f64, String> {
    if let Ok(meta) = fs::metadata(target)
        && !meta.is_file()
    {
        return Err("the target is not a regular file: no file of ioz's own beside it".into());
    }
    let path = read_file_path(target).ok_or("the target has no file name")?;
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    // Marked as ioz's, as a test file is (where the file system keeps marks).
    let _ = xattr::set(file.as_fd(), Mark::Owner);
    let rate = read_twice(&file);
    remove_if_same(&path, &file);
    rate.map_err(|e| format!("{}: {e}", path.display()))
}

fn read_twice(file: &File) -> io::Result<f64> {
    let mut buf = vec![0x3cu8; READ_RECORD];
    for at in (0..READ_FILE).step_by(READ_RECORD) {
        file.write_all_at(&buf, at as u64)?;
    }
    let mut pass = || -> io::Result<f64> {
        let t = Instant::now();
        for at in (0..READ_FILE).step_by(READ_RECORD) {
            file.read_exact_at(&mut buf, at as u64)?;
        }
        Ok(t.elapsed().as_secs_f64())
    };
    pass()?;
    let secs = pass()?;
    if secs <= 0.0 {
        return Err(io::Error::other("the clock did not move"));
    }
    Ok(READ_FILE as f64 / secs)
}

/// Unlinks `path` only while it leads to the file ioz created.
fn remove_if_same(path: &Path, file: &File) {
    let (Ok(ours), Ok(there)) = (file.metadata(), fs::symlink_metadata(path)) else {
        return;
    };
    if ours.dev() == there.dev() && ours.ino() == there.ino() {
        let _ = fs::remove_file(path);
    }
}

/// What sysfs under `sys` tells of `device`: its queue limits and its link
/// (a stacked device's: the sum of its disks' links, when each reports one).
pub fn device_ceiling(sys: &Path, device: &DeviceInfo) -> DeviceCeiling {
    let queue = sys.join("block").join(&device.name).join("queue");
    let number = |attr: &str| read_attr(queue.join(attr)).and_then(|v| v.parse::<u64>().ok());
    let (link, link_bytes_per_sec) = match link_of(sys, device) {
        Some((words, rate)) => (Some(words), Some(rate)),
        None => (None, None),
    };
    DeviceCeiling {
        name: device.name.clone(),
        rotational: device.rotational,
        max_sectors_kb: number("max_sectors_kb"),
        max_hw_sectors_kb: number("max_hw_sectors_kb"),
        link,
        link_bytes_per_sec,
    }
}

/// The link of a disk, or the sum of the links of the disks under a
/// stacked device.
fn link_of(sys: &Path, device: &DeviceInfo) -> Option<(String, f64)> {
    if device.underneath.is_empty() {
        return disk_link(sys, &device.name);
    }
    let links: Option<Vec<(String, f64)>> =
        device.underneath.iter().map(|d| link_of(sys, d)).collect();
    let links = links?;
    let words: Vec<String> = links.iter().map(|(w, _)| w.clone()).collect();
    Some((words.join(" + "), links.iter().map(|(_, r)| r).sum()))
}

/// The first bus above `/sys/block/NAME/device` that reports a link speed:
/// PCIe (current_link_speed, current_link_width), USB (speed, in Mb/s), or
/// a SATA port (ataN/linkM/ata_link/linkM/sata_spd).
fn disk_link(sys: &Path, name: &str) -> Option<(String, f64)> {
    let start = fs::canonicalize(sys.join("block").join(name).join("device")).ok()?;
    for dir in start.ancestors() {
        if !dir.starts_with(sys) || dir == sys {
            break;
        }
        if let Some(speed) = read_attr(dir.join("current_link_speed"))
            && let Some(width) =
                read_attr(dir.join("current_link_width")).and_then(|w| w.parse::<u32>().ok())
            && let Some(rate) = pcie_bytes_per_sec(&speed, width)
        {
            return Some((format!("{speed} x{width}"), rate));
        }
        if dir.join("idVendor").exists()
            && let Some(speed) = read_attr(dir.join("speed"))
            && let Some(rate) = usb_bytes_per_sec(&speed)
        {
            return Some((format!("{speed} Mb/s USB"), rate));
        }
        let base = dir.file_name()?.to_string_lossy();
        if base
            .strip_prefix("ata")
            .is_some_and(|n| n.parse::<u32>().is_ok())
            && let Some(spd) = sata_speed(dir)
            && let Some(rate) = sata_bytes_per_sec(&spd)
        {
            return Some((format!("{spd} SATA"), rate));
        }
    }
    None
}

/// An ata port's link speed: the first linkN/ata_link/linkN/sata_spd.
fn sata_speed(port: &Path) -> Option<String> {
    let mut links: Vec<PathBuf> = fs::read_dir(port)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("link"))
        })
        .collect();
    links.sort();
    links.iter().find_map(|l| {
        let name = l.file_name()?;
        read_attr(l.join("ata_link").join(name).join("sata_spd")).filter(|s| s != "<unknown>")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pcie_disk_is_read_from_the_device_above_it() {
        let sys = tempfile::tempdir().unwrap();
        let s = sys.path();
        let pci = s.join("devices/pci0000:00/0000:00:1d.0/0000:3d:00.0");
        let ctrl = pci.join("nvme/nvme0");
        fs::create_dir_all(&ctrl).unwrap();
        fs::write(pci.join("current_link_speed"), "8.0 GT/s PCIe\n").unwrap();
        fs::write(pci.join("current_link_width"), "4\n").unwrap();
        let block = s.join("block/nvme0n1");
        fs::create_dir_all(block.join("queue")).unwrap();
        fs::write(block.join("queue/max_sectors_kb"), "512\n").unwrap();
        std::os::unix::fs::symlink(&ctrl, block.join("device")).unwrap();
        let d = DeviceInfo {
            name: "nvme0n1".into(),
            rotational: Some(false),
            ..DeviceInfo::default()
        };
        let c = device_ceiling(s, &d);
        assert_eq!(c.max_sectors_kb, Some(512));
        assert_eq!(c.max_hw_sectors_kb, None);
        assert_eq!(c.link.as_deref(), Some("8.0 GT/s PCIe x4"));
        let want = 8e9 * 128.0 / 130.0 * 4.0 / 8.0;
        assert!((c.link_bytes_per_sec.unwrap() - want).abs() < 1.0);
        // A virtual disk with no bus above it: no link, no ceiling.
        let v = DeviceInfo {
            name: "vda".into(),
            ..DeviceInfo::default()
        };
        assert_eq!(device_ceiling(s, &v).link_bytes_per_sec, None);
    }

    #[test]
    fn the_cached_read_leaves_nothing_beside_the_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("iozone.tmp");
        let rate = cached_read_rate(&target).unwrap();
        assert!(rate > 0.0);
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
        // A file already at the name is not ioz's: it is left alone.
        let squatter = read_file_path(&target).unwrap();
        fs::write(&squatter, b"theirs").unwrap();
        assert!(
            cached_read_rate(&target)
                .unwrap_err()
                .contains("cannot create")
        );
        assert_eq!(fs::read(&squatter).unwrap(), b"theirs");
    }
}
