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
    pub rotational: Option<bool>,
    /// The active I/O scheduler (the bracketed one in queue/scheduler).
    pub scheduler: Option<String>,
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
