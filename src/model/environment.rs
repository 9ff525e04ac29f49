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
    /// MemAvailable when the run began: what the page cache could grow to
    /// without swapping. Not a setting: it is never compared between runs.
    #[serde(default)]
    pub memory_available_bytes: Option<u64>,
    /// The page-cache and memory tunables.
    #[serde(default)]
    pub page_cache: PageCacheSettings,
    /// CPU frequency, NUMA, virtualisation and the kernel's mitigations.
    #[serde(default)]
    pub platform: Platform,
    /// The socket buffer sysctls a network file system's transfers go through.
    #[serde(default)]
    pub sockets: SocketBuffers,
    /// The files the run writes beside its test files (result files, the
    /// history) and the file system each lands on: `--rules io500` keeps
    /// them off the file system under test.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub result_places: Vec<FilePlace>,
}

/// A file the run writes beside its test files, and the file system it
/// lands on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FilePlace {
    /// What the file is: a result format's key ("json", "csv"…) or "history".
    pub role: String,
    pub path: String,
    /// The mount holding it, and that file system's device ("major:minor").
    pub mount_point: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_system: Option<String>,
}

/// /proc/sys/vm and what decides how long written data stays in memory.
/// `None`: could not be read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PageCacheSettings {
    pub dirty_ratio: Option<u64>,
    pub dirty_background_ratio: Option<u64>,
    /// vm.dirty_bytes: when not 0 it replaces dirty_ratio.
    pub dirty_bytes: Option<u64>,
    /// vm.dirty_background_bytes: when not 0 it replaces dirty_background_ratio.
    pub dirty_background_bytes: Option<u64>,
    pub dirty_expire_centisecs: Option<u64>,
    pub dirty_writeback_centisecs: Option<u64>,
    pub vfs_cache_pressure: Option<u64>,
    pub swappiness: Option<u64>,
    /// The active word of /sys/kernel/mm/transparent_hugepage/enabled.
    pub transparent_hugepages: Option<String>,
    /// SwapTotal of /proc/meminfo (0: no swap).
    pub swap_total_bytes: Option<u64>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Platform {
    /// cpu0's cpufreq scaling_governor (`None` also when the kernel has no
    /// cpufreq driver, as in most virtual machines).
    pub cpu_governor: Option<String>,
    /// Online NUMA nodes.
    pub numa_nodes: Option<u32>,
    /// The hypervisor the system reports ("none" when it reports none),
    /// with where it said so.
    pub hypervisor: Option<String>,
    /// The container the system reports ("none" when it reports none).
    pub container: Option<String>,
    /// virtio-balloon free page reporting.
    pub free_page_reporting: Option<FreePageReporting>,
    /// /sys/devices/system/cpu/vulnerabilities, one entry a file, by name.
    pub mitigations: Vec<Mitigation>,
}

/// A virtio balloon that reports free pages hands blocks of 2^order pages
/// back to the host; a later write that gets its page-cache folios from
/// such a block waits for the host to fault them in again (measured: 2-8 MiB
/// records an order of magnitude slower than 256 KiB-1 MiB ones).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct FreePageReporting {
    /// A balloon device negotiated VIRTIO_BALLOON_F_REPORTING.
    pub active: bool,
    /// page_reporting_order: the smallest block reported, in pages (log2).
    pub order: Option<u32>,
    /// The page size the order counts.
    pub page_bytes: u64,
}

impl FreePageReporting {
    /// The smallest block handed back to the host, in bytes.
    pub fn block_bytes(&self) -> Option<u64> {
        self.page_bytes.checked_shl(self.order?)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mitigation {
    /// The file's name: spectre_v2, meltdown, …
    pub name: String,
    /// Its text: "Not affected", "Mitigation: …", "Vulnerable".
    pub state: String,
}

/// net.core and net.ipv4 socket buffer sysctls.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SocketBuffers {
    pub wmem_max: Option<u64>,
    pub rmem_max: Option<u64>,
    /// min, default and max, as the kernel lists them.
    pub tcp_wmem: Option<String>,
    pub tcp_rmem: Option<String>,
}

/// What a network file system's mount options say of its transport.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkMount {
    /// The negotiated protocol version (vers=, version=).
    pub version: Option<String>,
    /// The transport (proto= for NFS, trans= for 9p; rdma for SMB).
    pub protocol: Option<String>,
    pub rsize: Option<u64>,
    pub wsize: Option<u64>,
    /// The server's address (addr=), when the options name it.
    pub server: Option<String>,
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
    /// A network file system's transport, from its mount options.
    #[serde(default)]
    pub network: Option<NetworkMount>,
    /// The file system's device ("major:minor", shared by every mount of
    /// it); absent for a raw device and in runs saved before ioz kept it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_system: Option<String>,
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
    /// queue/read_ahead_kb.
    #[serde(default)]
    pub read_ahead_kb: Option<u64>,
    /// queue/nr_requests: the queue depth the scheduler keeps.
    #[serde(default)]
    pub nr_requests: Option<u64>,
    #[serde(default)]
    pub logical_block_bytes: Option<u64>,
    #[serde(default)]
    pub physical_block_bytes: Option<u64>,
    /// queue/write_cache: "write back" or "write through".
    #[serde(default)]
    pub write_cache: Option<String>,
    /// Whether the device takes discards (queue/discard_max_bytes > 0).
    #[serde(default)]
    pub discard: Option<bool>,
    /// A device mapper device's name (dm/name: vg-root, cryptroot).
    #[serde(default)]
    pub mapper_name: Option<String>,
    /// A loop device's backing file (loop/backing_file).
    #[serde(default)]
    pub backing_file: Option<String>,
    /// A stacked device's (dm, md, bcache) devices below it (slaves/ in
    /// sysfs); a loop device's, the device holding its backing file.
    #[serde(default)]
    pub underneath: Vec<DeviceInfo>,
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
            ..DeviceInfo::default()
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
