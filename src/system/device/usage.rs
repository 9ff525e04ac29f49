//! Whether something uses a device right now: mounted (it or a partition),
//! swap, held by another device (dm, md), or refusing an exclusive open.

use std::fs;
use std::path::Path;

use super::{BlockDevice, dir_names, major_minor, rdev_of};

/// Undoes the octal escapes (`\040` for a space) of /proc/self/mountinfo and /proc/swaps.
pub fn unescape_octal(s: &str) -> String {
    String::from_utf8_lossy(&crate::system::mountinfo::unescape(s)).into_owned()
}

/// One line of /proc/self/mountinfo, reduced to what the checks need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    pub major: u32,
    pub minor: u32,
    pub mount_point: String,
    pub source: String,
}

/// Parses /proc/self/mountinfo; malformed lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    crate::system::mountinfo::parse(text)
        .into_iter()
        .map(|m| Mount {
            major: m.dev.0,
            minor: m.dev.1,
            mount_point: m.mount_point.to_string_lossy().into_owned(),
            source: m.source.to_string_lossy().into_owned(),
        })
        .collect()
}

/// The file names in /proc/swaps (the first column after the header).
pub fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(unescape_octal)
        .collect()
}

impl BlockDevice {
    /// Ways the device (or a partition of it) is in use right now; these are
    /// never overridden.
    pub fn uses(&self) -> Vec<String> {
        let parts = self.partitions();
        let mut out = Vec::new();
        let ours = |major: u32, minor: u32| -> Option<Option<&str>> {
            if (major, minor) == (self.major, self.minor) {
                return Some(None);
            }
            parts
                .iter()
                .find(|(_, a, b)| (*a, *b) == (major, minor))
                .map(|(n, _, _)| Some(n.as_str()))
        };
        let rdev_ours = |path: &Path| {
            rdev_of(path).and_then(|r| {
                let (a, b) = major_minor(r);
                ours(a, b)
            })
        };
        // Mounted: by major:minor, or by the mount source (btrfs reports an
        // anonymous major:minor).
        let mut mounted: Vec<String> = Vec::new();
        for m in parse_mountinfo(&fs::read_to_string("/proc/self/mountinfo").unwrap_or_default()) {
            let hit = ours(m.major, m.minor).or_else(|| {
                m.source
                    .starts_with("/dev/")
                    .then(|| rdev_ours(Path::new(&m.source)))
                    .flatten()
            });
            match hit {
                Some(None) => mounted.push(format!("at {}", m.mount_point)),
                Some(Some(part)) => mounted.push(format!("{part} at {}", m.mount_point)),
                None => {}
            }
        }
        mounted.dedup();
        if !mounted.is_empty() {
            out.push(format!("is mounted ({})", mounted.join(", ")));
        }
        for s in parse_swaps(&fs::read_to_string("/proc/swaps").unwrap_or_default()) {
            match rdev_ours(Path::new(&s)) {
                Some(None) => out.push("is in use as swap".to_string()),
                Some(Some(part)) => out.push(format!("has a partition in use as swap ({part})")),
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
        if out.is_empty() && self.busy() {
            out.push("is in use (the kernel refused an exclusive open: busy)".to_string());
        }
        out
    }

    /// Whether an exclusive open fails because something holds the device.
    fn busy(&self) -> bool {
        use std::os::unix::fs::OpenOptionsExt;
        let r = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL)
            .open(&self.path);
        matches!(r, Err(e) if e.raw_os_error() == Some(libc::EBUSY))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn mountinfo_and_swaps_are_parsed() {
        let text = "42 27 7:0 / /tmp/my\\040mnt rw,relatime - ext4 /dev/loop0 rw\n\
                    36 35 0:31 / /data rw shared:1 master:2 - btrfs /dev/sdb2 rw\n\
                    garbage\n";
        let m = parse_mountinfo(text);
        assert_eq!(
            m,
            [
                Mount {
                    major: 7,
                    minor: 0,
                    mount_point: "/tmp/my mnt".into(),
                    source: "/dev/loop0".into()
                },
                Mount {
                    major: 0,
                    minor: 31,
                    mount_point: "/data".into(),
                    source: "/dev/sdb2".into()
                }
            ]
        );
        let swaps = "Filename\tType\tSize\tUsed\tPriority\n/dev/sda3 partition 1 0 -2\n/swap\\040file file 1 0 -3\n";
        assert_eq!(parse_swaps(swaps), ["/dev/sda3", "/swap file"]);
        assert_eq!(unescape_octal("a\\134b\\0"), "a\\b\\0");
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
