//! The ceilings a run's rates are held against, measured once at its start
//! (system/ceilings.rs): one core's memcpy bandwidth, a bare cached read
//! loop's rate on the target, and what sysfs tells of the target's device
//! (rotational, queue limits, the link's speed where the bus reports one).
//! model/impossible.rs holds a run's rates against them.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Ceilings {
    /// One core's memcpy, bytes/s: the best of a cache-resident buffer's
    /// copies and a 64 MiB buffer's (the fastest one core copies at all).
    pub memcpy_bytes_per_sec: Option<f64>,
    /// The 64 MiB buffer's alone (what memory, not the CPU's caches, gives).
    pub memcpy_dram_bytes_per_sec: Option<f64>,
    /// A bare pread loop over a small cached file of the run's own beside
    /// the test file, the second of two reads timed (the page cache's rate).
    pub cached_read_bytes_per_sec: Option<f64>,
    /// Why a ceiling could not be measured.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<String>,
    pub device: Option<DeviceCeiling>,
}

/// What sysfs tells of the target's whole disk.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DeviceCeiling {
    pub name: String,
    pub rotational: Option<bool>,
    /// queue/max_sectors_kb and queue/max_hw_sectors_kb: the largest
    /// request the kernel sends, and the device takes.
    pub max_sectors_kb: Option<u64>,
    pub max_hw_sectors_kb: Option<u64>,
    /// The bus's own words for its link ("8.0 GT/s PCIe x4", "6.0 Gbps",
    /// "480 Mb/s USB").
    pub link: Option<String>,
    /// The link's rate in bytes/s after its line encoding: no device behind
    /// it can move data faster.
    pub link_bytes_per_sec: Option<f64>,
}

/// "2.31 GB/s" (decimal units, as link speeds are given).
pub fn rate_words(bytes_per_sec: f64) -> String {
    if bytes_per_sec >= 1e9 {
        format!("{:.2} GB/s", bytes_per_sec / 1e9)
    } else {
        format!("{:.1} MB/s", bytes_per_sec / 1e6)
    }
}

/// A PCIe link's bytes/s from sysfs's current_link_speed ("8.0 GT/s PCIe")
/// and current_link_width ("4"): 8b/10b below 8 GT/s, 128b/130b from it.
pub fn pcie_bytes_per_sec(speed: &str, width: u32) -> Option<f64> {
    let gt: f64 = speed.split_whitespace().next()?.parse().ok()?;
    let encoding = if gt < 8.0 { 8.0 / 10.0 } else { 128.0 / 130.0 };
    Some(gt * 1e9 * encoding * f64::from(width) / 8.0)
}

/// A SATA link's bytes/s from ata_link's sata_spd ("6.0 Gbps"): 8b/10b.
pub fn sata_bytes_per_sec(spd: &str) -> Option<f64> {
    let gbps: f64 = spd.split_whitespace().next()?.parse().ok()?;
    Some(gbps * 1e9 * 0.8 / 8.0)
}

/// A USB device's bytes/s from its speed attribute (Mb/s: "480", "5000").
pub fn usb_bytes_per_sec(speed: &str) -> Option<f64> {
    let mbps: f64 = speed.trim().parse().ok()?;
    Some(mbps * 1e6 / 8.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_read_with_their_encodings() {
        let x4 = pcie_bytes_per_sec("8.0 GT/s PCIe", 4).unwrap();
        assert!((x4 - 8e9 * 128.0 / 130.0 * 4.0 / 8.0).abs() < 1.0);
        assert_eq!(
            pcie_bytes_per_sec("2.5 GT/s PCIe", 1),
            Some(2.5e9 * 0.8 / 8.0)
        );
        assert_eq!(sata_bytes_per_sec("6.0 Gbps"), Some(6e8));
        assert_eq!(usb_bytes_per_sec("480"), Some(6e7));
        assert_eq!(pcie_bytes_per_sec("Unknown", 4), None);
    }
}
