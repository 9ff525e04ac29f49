//! Whether something uses a device right now: mounted (it or a partition),
//! swap, held by another device (dm, md), or refusing an exclusive open.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::{BlockDevice, dir_names, major_minor, rdev_of};
use crate::system::mountinfo::{self, Mount};

/// The file names in /proc/swaps (the first column after the header), with
/// the kernel's octal escapes (`\040` for a space) undone.
pub fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(|name| String::from_utf8_lossy(&mountinfo::unescape(name)).into_owned())
        .collect()
}

/// Which part of a device a device number names.
enum Part<'a> {
    Whole,
    Partition(&'a str),
}

impl BlockDevice {
    /// Ways the device (or a partition of it) is in use right now; these are
    /// never overridden.
    pub fn uses(&self) -> Vec<String> {
        let parts = self.partitions();
        let mut out = Vec::new();
        let mounts = mountinfo::read().unwrap_or_default();
        let mounted = self.mounted_at(&mounts, &parts);
        if !mounted.is_empty() {
            out.push(format!("is mounted ({})", mounted.join(", ")));
        }
        for s in parse_swaps(&fs::read_to_string("/proc/swaps").unwrap_or_default()) {
            match self.part_at(&parts, Path::new(&s)) {
                Some(Part::Whole) => out.push("is in use as swap".to_string()),
                Some(Part::Partition(part)) => {
                    out.push(format!("has a partition in use as swap ({part})"))
                }
                None => {}
            }
        }
        let holders = dir_names(&self.sys.join("holders"));
        if !holders.is_empty() {
            out.push(format!("is held by {}", holders.join(", ")));
        }
        for (part, _, _) in &parts {
            let h = dir_names(&self.sys.join(part).join("holders"));
            if !h.is_empty() {
                out.push(format!("has a partition held by {} ({part})", h.join(", ")));
            }
        }
        if out.is_empty() && is_busy(&self.path) {
            out.push("is in use (the kernel refused an exclusive open: busy)".to_string());
        }
        out
    }

    /// Where, among `mounts`, the device or one of its `parts` (name, major,
    /// minor) is mounted: "at /mnt", "sda1 at /boot". Matched by device
    /// number, or by the mount source, since btrfs shows an anonymous one.
    pub(in crate::system) fn mounted_at(
        &self,
        mounts: &[Mount],
        parts: &[(String, u32, u32)],
    ) -> Vec<String> {
        let mut mounted: Vec<String> = Vec::new();
        for m in mounts {
            let hit = self.part_numbered(parts, m.dev).or_else(|| {
                m.source
                    .as_bytes()
                    .starts_with(b"/dev/")
                    .then(|| self.part_at(parts, Path::new(&m.source)))
                    .flatten()
            });
            match hit {
                Some(Part::Whole) => mounted.push(format!("at {}", m.mount_point.display())),
                Some(Part::Partition(part)) => {
                    mounted.push(format!("{part} at {}", m.mount_point.display()))
                }
                None => {}
            }
        }
        mounted.dedup();
        mounted
    }

    /// The part of this device that the device number (major, minor) names.
    fn part_numbered<'a>(
        &self,
        parts: &'a [(String, u32, u32)],
        dev: (u32, u32),
    ) -> Option<Part<'a>> {
        if dev == (self.major, self.minor) {
            return Some(Part::Whole);
        }
        parts
            .iter()
            .find(|(_, a, b)| (*a, *b) == dev)
            .map(|(n, _, _)| Part::Partition(n.as_str()))
    }

    /// The part of this device that the device node at `path` is.
    fn part_at<'a>(&self, parts: &'a [(String, u32, u32)], path: &Path) -> Option<Part<'a>> {
        rdev_of(path).and_then(|r| self.part_numbered(parts, major_minor(r)))
    }
}

/// Whether an exclusive open of the block device at `path` fails because
/// something holds it: a mount (in any mount namespace), swap, md or dm.
pub fn is_busy(path: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    let r = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL)
        .open(path);
    matches!(r, Err(e) if e.raw_os_error() == Some(libc::EBUSY))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn swaps_are_parsed() {
        let swaps = "Filename\tType\tSize\tUsed\tPriority\n/dev/sda3 partition 1 0 -2\n/swap\\040file file 1 0 -3\n/a\\134b\\0 file 1 0 -4\n";
        assert_eq!(parse_swaps(swaps), ["/dev/sda3", "/swap file", "/a\\b\\0"]);
        assert!(parse_swaps("Filename\tType\n").is_empty());
    }

    #[test]
    fn a_device_is_mounted_by_number_whole_or_by_partition() {
        let dir = tempfile::tempdir().unwrap();
        let dev = fake(&dir.path().join("fake0"), &dir.path().join("dev"));
        let parts = vec![("fake0p1".to_string(), 4095, 1)];
        let mounts = mountinfo::parse(
            "42 27 4095:1000000 / /tmp/my\\040mnt rw,relatime - ext4 /dev/ioz-absent rw\n\
             43 27 4095:1 / /boot rw - vfat /dev/ioz-absent1 rw\n\
             44 27 4095:1 / /boot rw - vfat /dev/ioz-absent1 rw\n\
             45 27 8:1 / /other rw - ext4 /dev/ioz-absent2 rw\n",
        );
        assert_eq!(
            dev.mounted_at(&mounts, &parts),
            ["at /tmp/my mnt", "fake0p1 at /boot"]
        );
        assert!(dev.mounted_at(&mounts[3..], &parts).is_empty());
    }

    /// A device whose sysfs directory is `sys` (a temporary tree).
    fn fake(sys: &Path, path: &Path) -> BlockDevice {
        BlockDevice {
            path: path.to_path_buf(),
            major: 4095,
            minor: 1_000_000,
            name: "fake0".into(),
            sys: sys.to_path_buf(),
            size: 1 << 30,
        }
    }

    #[test]
    fn partitions_and_holders_come_from_sysfs() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("fake0");
        let file = dir.path().join("dev");
        fs::write(&file, b"").unwrap();
        fs::create_dir_all(sys.join("holders")).unwrap();
        fs::create_dir_all(sys.join("queue")).unwrap();
        let dev = fake(&sys, &file);
        assert!(dev.partitions().is_empty());
        assert!(dev.uses().is_empty());

        for (n, minor) in [("fake0p2", "2"), ("fake0p1", "1")] {
            fs::create_dir_all(sys.join(n).join("holders")).unwrap();
            fs::write(sys.join(n).join("partition"), minor).unwrap();
            fs::write(sys.join(n).join("dev"), format!("4095:{minor}\n")).unwrap();
        }
        assert_eq!(
            dev.partitions(),
            [("fake0p1".into(), 4095, 1), ("fake0p2".into(), 4095, 2)]
        );
        assert!(dev.uses().is_empty());

        fs::create_dir(sys.join("fake0p2/holders/dm-3")).unwrap();
        assert_eq!(dev.uses(), ["has a partition held by dm-3 (fake0p2)"]);
        fs::create_dir(sys.join("holders/md0")).unwrap();
        assert_eq!(dev.uses()[0], "is held by md0");
    }
}
