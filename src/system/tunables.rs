//! The kernel settings that change storage results, read from /proc/sys and
//! /sys under `root` ("/" on a run; a fixture tree in tests): the page-cache
//! sysctls and transparent huge pages, the socket buffers, the CPU
//! frequency governor, NUMA nodes, the CPU vulnerabilities' mitigations and
//! virtio-balloon free page reporting. Every file is world-readable; one
//! that cannot be read stays `None`.

use std::fs;
use std::path::Path;

use crate::model::environment::{
    FreePageReporting, Mitigation, PageCacheSettings, Platform, SocketBuffers,
};
use crate::system::sysfs::{parse_cpu_list_count, read_attr};

/// The virtio device id of a memory balloon.
const VIRTIO_ID_BALLOON: &str = "0x0005";
/// VIRTIO_BALLOON_F_REPORTING: the balloon reports free pages to the host.
const VIRTIO_BALLOON_F_REPORTING: usize = 5;

fn number(path: impl AsRef<Path>) -> Option<u64> {
    read_attr(path)?.parse().ok()
}

/// The word in brackets of a choice file ("always [madvise] never").
fn chosen(path: impl AsRef<Path>) -> Option<String> {
    let text = read_attr(path)?;
    text.split_whitespace()
        .find_map(|w| w.strip_prefix('[')?.strip_suffix(']'))
        .map(str::to_string)
}

/// The vm sysctls and transparent huge pages (swap is /proc/meminfo's,
/// filled by the caller that reads it).
pub fn page_cache(root: &Path) -> PageCacheSettings {
    let vm = root.join("proc/sys/vm");
    PageCacheSettings {
        dirty_ratio: number(vm.join("dirty_ratio")),
        dirty_background_ratio: number(vm.join("dirty_background_ratio")),
        dirty_bytes: number(vm.join("dirty_bytes")),
        dirty_background_bytes: number(vm.join("dirty_background_bytes")),
        dirty_expire_centisecs: number(vm.join("dirty_expire_centisecs")),
        dirty_writeback_centisecs: number(vm.join("dirty_writeback_centisecs")),
        vfs_cache_pressure: number(vm.join("vfs_cache_pressure")),
        swappiness: number(vm.join("swappiness")),
        transparent_hugepages: chosen(root.join("sys/kernel/mm/transparent_hugepage/enabled")),
        swap_total_bytes: None,
    }
}

pub fn sockets(root: &Path) -> SocketBuffers {
    let net = root.join("proc/sys/net");
    // tcp_wmem's three numbers are tab-separated: shown with single spaces.
    let triple = |name: &str| {
        read_attr(net.join("ipv4").join(name))
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
    };
    SocketBuffers {
        wmem_max: number(net.join("core/wmem_max")),
        rmem_max: number(net.join("core/rmem_max")),
        tcp_wmem: triple("tcp_wmem"),
        tcp_rmem: triple("tcp_rmem"),
    }
}

/// The governor, NUMA nodes, mitigations and free page reporting (the
/// hypervisor and container are `system::virt`'s).
pub fn platform(root: &Path, page_bytes: u64) -> Platform {
    let cpu = root.join("sys/devices/system/cpu");
    Platform {
        cpu_governor: read_attr(cpu.join("cpu0/cpufreq/scaling_governor")),
        numa_nodes: read_attr(root.join("sys/devices/system/node/online"))
            .and_then(|l| parse_cpu_list_count(&l)),
        hypervisor: None,
        container: None,
        free_page_reporting: free_page_reporting(root, page_bytes),
        mitigations: mitigations(&cpu.join("vulnerabilities")),
    }
}

fn mitigations(dir: &Path) -> Vec<Mitigation> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut list: Vec<Mitigation> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            Some(Mitigation {
                name: e.file_name().to_str()?.to_string(),
                state: read_attr(e.path())?,
            })
        })
        .collect();
    list.sort_by(|a, b| a.name.cmp(&b.name));
    list
}

/// Whether a virtio balloon reports free pages, and from which order.
/// `None` when sysfs has no bus directory to tell; off when no balloon
/// negotiated the feature.
fn free_page_reporting(root: &Path, page_bytes: u64) -> Option<FreePageReporting> {
    let order = read_attr(root.join("sys/module/page_reporting/parameters/page_reporting_order"))
        .and_then(|o| o.parse().ok());
    let bus = root.join("sys/bus");
    if !bus.is_dir() {
        return None;
    }
    let active = fs::read_dir(bus.join("virtio/devices"))
        .map(|entries| {
            entries.filter_map(Result::ok).any(|e| {
                let dir = e.path();
                read_attr(dir.join("device")).as_deref() == Some(VIRTIO_ID_BALLOON)
                    && feature_bit(&read_attr(dir.join("features")).unwrap_or_default())
            })
        })
        .unwrap_or(false);
    Some(FreePageReporting {
        active,
        order,
        page_bytes,
    })
}

/// A virtio device's features file: one '0' or '1' per bit, bit 0 first.
fn feature_bit(features: &str) -> bool {
    features.as_bytes().get(VIRTIO_BALLOON_F_REPORTING) == Some(&b'1')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/environment")
    }

    #[test]
    fn the_page_cache_sysctls_and_huge_pages_are_read() {
        let p = page_cache(&fixture());
        assert_eq!(
            p,
            PageCacheSettings {
                dirty_ratio: Some(20),
                dirty_background_ratio: Some(10),
                dirty_bytes: Some(0),
                dirty_background_bytes: Some(0),
                dirty_expire_centisecs: Some(3000),
                dirty_writeback_centisecs: Some(500),
                vfs_cache_pressure: Some(100),
                swappiness: Some(60),
                transparent_hugepages: Some("madvise".into()),
                swap_total_bytes: None,
            }
        );
        assert_eq!(
            page_cache(Path::new("/nonexistent-ioz")),
            PageCacheSettings::default()
        );
    }

    #[test]
    fn the_socket_buffers_are_read_with_single_spaces() {
        let s = sockets(&fixture());
        assert_eq!(s.wmem_max, Some(212_992));
        assert_eq!(s.rmem_max, Some(4_194_304));
        assert_eq!(s.tcp_wmem.as_deref(), Some("4096 16384 4194304"));
        assert_eq!(s.tcp_rmem.as_deref(), Some("4096 131072 6291456"));
    }

    #[test]
    fn a_balloon_with_reporting_and_the_platform_are_read() {
        let p = platform(&fixture(), 4096);
        let fpr = p.free_page_reporting.clone().unwrap();
        assert!(fpr.active);
        assert_eq!(fpr.order, Some(9));
        assert_eq!(fpr.block_bytes(), Some(2 << 20));
        assert_eq!(p.cpu_governor.as_deref(), Some("performance"));
        assert_eq!(p.numa_nodes, Some(2));
        let names: Vec<&str> = p.mitigations.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["meltdown", "spectre_v2"]);
        assert_eq!(p.mitigations[0].state, "Not affected");
        // No sysfs at all: unknown, not off.
        let none = platform(Path::new("/nonexistent-ioz"), 4096);
        assert_eq!(none.free_page_reporting, None);
        assert_eq!(none.numa_nodes, None);
        assert!(none.mitigations.is_empty());
    }

    #[test]
    fn the_reporting_bit_is_the_sixth_character() {
        assert!(feature_bit("011001010000"));
        assert!(!feature_bit("011000010000"));
        assert!(!feature_bit("0110"));
        assert!(!feature_bit(""));
    }

    #[test]
    fn a_balloon_without_reporting_is_off() {
        let root = tempfile::tempdir().unwrap();
        let dev = root.path().join("sys/bus/virtio/devices/virtio0");
        fs::create_dir_all(&dev).unwrap();
        fs::write(dev.join("device"), "0x0005\n").unwrap();
        fs::write(dev.join("features"), "0110000000\n").unwrap();
        let fpr = free_page_reporting(root.path(), 4096).unwrap();
        assert!(!fpr.active);
        assert_eq!(fpr.order, None);
    }
}
