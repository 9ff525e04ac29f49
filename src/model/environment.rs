//! The machine and target a run measured, as data: kernel, CPU and caches,
//! memory, and the file system and device under the test file. Captured by
//! `system::environment`, shown by the reports.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub hostname: String,
    /// `uname -srvm`.
    pub kernel: String,
    pub cpu_model: String,
    /// Online logical CPUs.
    pub cpu_count: u32,
    /// CPU caches of CPU 0, from sysfs.
    pub cpu_caches: Vec<CpuCache>,
    pub memory_bytes: u64,
    pub target: TargetEnvironment,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuCache {
    pub level: u32,
    /// "Data", "Instruction" or "Unified".
    pub kind: String,
    pub size_bytes: u64,
}

/// Where the test file lives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TargetEnvironment {
    /// The test file's path as given.
    pub path: String,
    pub mount_point: String,
    pub fs_type: String,
    pub mount_options: String,
    /// The mount's source (e.g. /dev/vda1, tmpfs, server:/export).
    pub source: String,
    /// The block device behind the source, when there is one.
    pub device: Option<DeviceInfo>,
}

impl TargetEnvironment {
    /// The test file is a block device used in place (no file system).
    pub fn is_raw_device(&self) -> bool {
        self.fs_type.is_empty() && self.mount_point.is_empty() && self.device.is_some()
    }

    /// What the file system row of a report shows: the type, or for a raw
    /// block device that there is none; "" when unknown.
    pub fn file_system_words(&self) -> String {
        if self.is_raw_device() {
            "none (raw block device)".to_string()
        } else {
            self.fs_type.clone()
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// Kernel name of the whole disk (vda, nvme0n1, sda).
    pub name: String,
    pub model: Option<String>,
    /// The kernel's rotational flag (queue/rotational), as it reports it.
    pub rotational: Option<bool>,
    /// The active I/O scheduler (the bracketed one in queue/scheduler).
    pub scheduler: Option<String>,
    /// The kernel driver of the disk (virtio_blk, nvme, sd), from sysfs;
    /// `None` when it has none (loop, device mapper) or the run predates it.
    #[serde(default)]
    pub driver: Option<String>,
}

/// Drivers of disks a hypervisor makes up: they tell nothing of the medium
/// behind them, and report rotational unless told otherwise.
const VIRTUAL_DRIVERS: [(&str, &str); 3] = [
    ("virtio_blk", "virtio"),
    ("vbd", "Xen"),
    ("xen_blkfront", "Xen"),
];

impl DeviceInfo {
    /// The kind of virtual disk this is ("virtio", "Xen"), when its driver
    /// says so, or for a run saved before ioz recorded the driver, its name
    /// (the kernel names virtio disks vdX and Xen's xvdX).
    pub fn virtual_kind(&self) -> Option<&'static str> {
        if let Some(driver) = self.driver.as_deref() {
            return VIRTUAL_DRIVERS
                .iter()
                .find(|(name, _)| *name == driver)
                .map(|(_, kind)| *kind);
        }
        let letters = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_lowercase());
        if self.name.strip_prefix("xvd").is_some_and(letters) {
            Some("Xen")
        } else if self.name.strip_prefix("vd").is_some_and(letters) {
            Some("virtio")
        } else {
            None
        }
    }

    /// What the reports say of the rotational flag: the kernel's word, and for
    /// a virtual disk that it says nothing of the medium; `None` when unknown.
    pub fn rotational_words(&self) -> Option<String> {
        let flag = self.rotational?;
        let reported = if flag {
            "rotational (queue/rotational = 1)"
        } else {
            "non-rotational (queue/rotational = 0)"
        };
        let driver = self
            .driver
            .as_deref()
            .map(|d| format!(" ({d})"))
            .unwrap_or_default();
        Some(match self.virtual_kind() {
            None => if flag { "yes" } else { "no" }.to_string(),
            Some(kind) => format!(
                "the kernel reports {reported} for this {kind} disk{driver}; a virtual disk \
                 does not show the medium behind it"
            ),
        })
    }
}

impl Environment {
    /// The largest last-level (data or unified) cache, in bytes.
    pub fn last_level_cache_bytes(&self) -> Option<u64> {
        self.cpu_caches
            .iter()
            .filter(|c| c.kind != "Instruction")
            .max_by_key(|c| (c.level, c.size_bytes))
            .map(|c| c.size_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk(name: &str, driver: Option<&str>, rotational: Option<bool>) -> DeviceInfo {
        DeviceInfo {
            name: name.into(),
            model: None,
            rotational,
            scheduler: None,
            driver: driver.map(str::to_string),
        }
    }

    #[test]
    fn a_virtual_disk_is_described_as_the_kernel_reports_it() {
        let virtio = disk("vda", Some("virtio_blk"), Some(true));
        assert_eq!(virtio.virtual_kind(), Some("virtio"));
        let words = virtio.rotational_words().unwrap();
        assert_eq!(
            words,
            "the kernel reports rotational (queue/rotational = 1) for this virtio disk \
             (virtio_blk); a virtual disk does not show the medium behind it"
        );
        let word = |d: DeviceInfo| d.rotational_words();
        assert_eq!(
            word(disk("nvme0n1", Some("nvme"), Some(false))).as_deref(),
            Some("no")
        );
        assert_eq!(
            word(disk("sda", Some("sd"), Some(true))).as_deref(),
            Some("yes")
        );
        assert_eq!(word(disk("vda", Some("virtio_blk"), None)), None);
        // A device mapper or loop device over a virtio disk has no driver of its own.
        assert_eq!(word(disk("dm-0", None, Some(true))).as_deref(), Some("yes"));
    }

    #[test]
    fn a_run_saved_without_the_driver_is_judged_by_the_disk_s_name() {
        let old = r#"{"name":"vda","model":null,"rotational":true,"scheduler":null}"#;
        let d: DeviceInfo = serde_json::from_str(old).unwrap();
        assert_eq!(d.driver, None);
        assert_eq!(
            d.rotational_words().as_deref(),
            Some(
                "the kernel reports rotational (queue/rotational = 1) for this virtio disk; \
                 a virtual disk does not show the medium behind it"
            )
        );
        assert_eq!(disk("xvdb", None, Some(true)).virtual_kind(), Some("Xen"));
        assert_eq!(disk("vda1x", None, Some(true)).virtual_kind(), None);
        assert_eq!(disk("sda", None, Some(true)).virtual_kind(), None);
    }
}
