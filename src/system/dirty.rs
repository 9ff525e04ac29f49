//! `--interval`'s view of the page cache: `Dirty` and `Writeback` from
//! /proc/meminfo and the requests the target's block device has in flight
//! (the ninth field of its sysfs `stat`), read under `root` ("/" on a run,
//! a fixture tree in tests) by the interval keeper, never by a timed loop.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::model::intervals::CacheSample;
use crate::system::device;
use crate::system::environment::parse_meminfo_bytes;

/// Where the samples are read from, found once before the pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheProbe {
    meminfo: PathBuf,
    /// The `stat` file of the target's block device (none on tmpfs, NFS…).
    device_stat: Option<PathBuf>,
}

impl CacheProbe {
    /// The probe for a pass on `target` (a file, or a block device used in
    /// place): its device is the one the file system under it lives on.
    pub fn for_target(root: &Path, target: &Path) -> CacheProbe {
        let device = device::rdev_of(target)
            .or_else(|| holding_device(target))
            .map(device::major_minor);
        CacheProbe {
            meminfo: root.join("proc/meminfo"),
            device_stat: device
                .map(|(major, minor)| root.join(format!("sys/dev/block/{major}:{minor}/stat")))
                .filter(|stat| stat.exists()),
        }
    }

    /// The page cache and the device now; `None` when /proc/meminfo cannot
    /// be read.
    pub fn sample(&self) -> Option<CacheSample> {
        let meminfo = fs::read_to_string(&self.meminfo).ok()?;
        Some(CacheSample {
            dirty_bytes: parse_meminfo_bytes(&meminfo, "Dirty")?,
            writeback_bytes: parse_meminfo_bytes(&meminfo, "Writeback")?,
            in_flight: self
                .device_stat
                .as_ref()
                .and_then(|stat| parse_in_flight(&fs::read_to_string(stat).ok()?)),
        })
    }
}

/// The device of the file system that holds `path` (or, before the file is
/// made, its directory).
fn holding_device(path: &Path) -> Option<u64> {
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let meta = fs::metadata(path).or_else(|_| fs::metadata(parent)).ok()?;
    Some(meta.dev())
}

/// The requests in flight of a sysfs block `stat` line: its ninth number.
pub fn parse_in_flight(stat: &str) -> Option<u64> {
    stat.split_whitespace().nth(8)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/environment")
    }

    #[test]
    fn a_sample_holds_dirty_writeback_and_the_device_s_requests_in_flight() {
        let root = fixture();
        // The fixture's dm-0, as the target's device when its number is 252:0.
        let probe = CacheProbe {
            meminfo: root.join("proc/meminfo"),
            device_stat: Some(root.join("sys/dev/block/252:0/stat")),
        };
        assert_eq!(
            probe.sample(),
            Some(CacheSample {
                dirty_bytes: 524_288 << 10,
                writeback_bytes: 2_048 << 10,
                in_flight: Some(17),
            })
        );
    }

    #[test]
    fn a_file_system_without_a_block_device_has_no_requests_to_count() {
        let root = fixture();
        let probe = CacheProbe::for_target(&root, Path::new("/proc/self/status"));
        assert_eq!(probe.device_stat, None);
        assert_eq!(probe.sample().map(|s| s.in_flight), Some(None));
        let gone = CacheProbe::for_target(Path::new("/nonexistent-root"), Path::new("x"));
        assert_eq!(gone.sample(), None);
    }

    #[test]
    fn in_flight_is_the_ninth_number() {
        let line =
            "  576263 94056 117133754 653766 1469230 220159 569754488 3181656 3 309544 3958765";
        assert_eq!(parse_in_flight(line), Some(3));
        assert_eq!(parse_in_flight("1 2 3"), None);
    }
}
