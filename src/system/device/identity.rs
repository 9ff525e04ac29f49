//! What names a device for `--destroy-data`: its WWN, serial and
//! /dev/disk/by-id names, or its path where it has none of them.

use std::path::Path;

use super::{BlockDevice, dir_names, rdev_of};
use crate::system::sysfs::read_attr;

/// What `--destroy-data` may name a device by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// sysfs `wwid` (a WWN such as `naa.5000c500a1b2c3d4`, or an NVMe EUI).
    pub wwid: Option<String>,
    /// sysfs `serial`.
    pub serial: Option<String>,
    /// The device's names in /dev/disk/by-id, sorted.
    pub by_id: Vec<String>,
    /// Its paths (as given and under /dev): they name it only when it has
    /// none of the above, as loop devices do.
    pub paths: Vec<String>,
}

impl Identity {
    pub fn has_stable_id(&self) -> bool {
        self.wwid.is_some() || self.serial.is_some() || !self.by_id.is_empty()
    }

    /// Every spelling that names the device.
    pub fn names(&self) -> Vec<String> {
        if !self.has_stable_id() {
            return self.paths.clone();
        }
        let mut out: Vec<String> = self.wwid.iter().chain(&self.serial).cloned().collect();
        for name in &self.by_id {
            out.push(name.clone());
            out.push(format!("/dev/disk/by-id/{name}"));
            if let Some(hex) = name.strip_prefix("wwn-") {
                out.push(hex.to_string());
            }
        }
        out
    }

    /// Whether `given` names this device (exactly; hex in any case).
    pub fn matches(&self, given: &str) -> bool {
        let given = given.trim();
        !given.is_empty() && self.names().iter().any(|n| n.eq_ignore_ascii_case(given))
    }

    /// The name to suggest: the WWN, else a `wwn-` by-id name, else the
    /// serial, else another by-id name, else the path.
    pub fn suggestion(&self) -> String {
        self.wwid
            .clone()
            .or_else(|| self.by_id.iter().find(|n| n.starts_with("wwn-")).cloned())
            .or_else(|| self.serial.clone())
            .or_else(|| self.by_id.first().cloned())
            .or_else(|| self.paths.first().cloned())
            .unwrap_or_default()
    }
}

impl BlockDevice {
    /// What names the device, from sysfs and /dev/disk/by-id.
    pub fn identity(&self) -> Identity {
        let attr = |names: &[&str]| names.iter().find_map(|n| read_attr(self.sys.join(n)));
        let mut by_id: Vec<String> = dir_names(Path::new("/dev/disk/by-id"))
            .into_iter()
            .filter(|n| rdev_of(&Path::new("/dev/disk/by-id").join(n)) == Some(self.rdev()))
            .collect();
        by_id.sort();
        let mut paths = vec![self.path.display().to_string()];
        let dev = format!("/dev/{}", self.name);
        if rdev_of(Path::new(&dev)) == Some(self.rdev()) && !paths.contains(&dev) {
            paths.push(dev);
        }
        Identity {
            wwid: attr(&["wwid", "device/wwid"]),
            serial: attr(&["serial", "device/serial"]),
            by_id,
            paths,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_with_a_wwn_is_named_by_it_not_by_its_path() {
        let id = Identity {
            wwid: Some("naa.5000c500a1b2c3d4".into()),
            serial: Some("ZA1B2C3D".into()),
            by_id: vec![
                "ata-ST4000_ZA1B2C3D".into(),
                "wwn-0x5000c500a1b2c3d4".into(),
            ],
            paths: vec!["/dev/sdb".into()],
        };
        for ok in [
            "naa.5000c500a1b2c3d4",
            "ZA1B2C3D",
            "wwn-0x5000c500a1b2c3d4",
            "0x5000C500A1B2C3D4",
            "/dev/disk/by-id/ata-ST4000_ZA1B2C3D",
            " ZA1B2C3D ",
        ] {
            assert!(id.matches(ok), "{ok}");
        }
        for no in ["/dev/sdb", "sdb", "", "ZA1B2C3", "naa.5000c500a1b2c3d5"] {
            assert!(!id.matches(no), "{no}");
        }
        assert_eq!(id.suggestion(), "naa.5000c500a1b2c3d4");
        let by_id_only = Identity {
            by_id: vec!["ata-X".into(), "wwn-0x1".into()],
            ..Identity::default()
        };
        assert_eq!(by_id_only.suggestion(), "wwn-0x1");
    }

    #[test]
    fn a_loop_device_is_named_by_its_path() {
        let id = Identity {
            paths: vec!["/dev/loop3".into()],
            ..Identity::default()
        };
        assert!(!id.has_stable_id());
        assert!(id.matches("/dev/loop3"));
        assert!(!id.matches("/dev/loop30"));
        assert_eq!(id.suggestion(), "/dev/loop3");
    }
}
