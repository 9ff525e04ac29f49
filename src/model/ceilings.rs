//! The ceilings a run's rates are held against, measured once at its start
//! (system/ceilings.rs): one core's memcpy bandwidth, a bare cached read
//! loop's rate on the target, and what sysfs tells of the target's device
//! (rotational, queue limits, the link's speed where the bus reports one).
//! A cell whose measured regime is "device" with a rate above the device's
//! link, or any rate above what the cores that ran it can copy, is
//! impossible: [`impossible`] names it with both numbers, from the saved
//! run alone (`ioz report RUN.json` recomputes it).

use serde::{Deserialize, Serialize};

use crate::model::residency::MeasuredRegime;
use crate::model::result::RunResult;
use crate::model::units::kb_number;
use crate::model::workload::Pass;

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

/// A rate no measurement of this run could have given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Impossible {
    pub pass: Pass,
    /// Where: "65536 kB/64 kB" or "4 workers".
    pub place: String,
    pub bytes_per_sec: f64,
    /// "memcpy" or "device link".
    pub ceiling: String,
    pub ceiling_bytes_per_sec: f64,
}

impl Impossible {
    pub fn words(&self) -> String {
        format!(
            "{} at {}: {} is above the {} ceiling of {}: impossible",
            self.pass.name(),
            self.place,
            rate_words(self.bytes_per_sec),
            self.ceiling,
            rate_words(self.ceiling_bytes_per_sec)
        )
    }
}

/// "2.31 GB/s" (decimal units, as link speeds are given).
pub fn rate_words(bytes_per_sec: f64) -> String {
    if bytes_per_sec >= 1e9 {
        format!("{:.2} GB/s", bytes_per_sec / 1e9)
    } else {
        format!("{:.1} MB/s", bytes_per_sec / 1e6)
    }
}

/// One rate held against the ceilings: `parallel` is how many cores could
/// have copied at once (a phase's workers, at most the CPUs).
fn held(
    ceilings: &Ceilings,
    (pass, place): (Pass, String),
    rate: f64,
    regime: Option<MeasuredRegime>,
    parallel: u32,
) -> Option<Impossible> {
    let over = |ceiling: &str, limit: f64| {
        (rate > limit).then(|| Impossible {
            pass,
            place: place.clone(),
            bytes_per_sec: rate,
            ceiling: ceiling.to_string(),
            ceiling_bytes_per_sec: limit,
        })
    };
    let memcpy = ceilings
        .memcpy_bytes_per_sec
        .and_then(|m| over("memcpy", m * f64::from(parallel.max(1))));
    let link = ceilings
        .device
        .as_ref()
        .and_then(|d| d.link_bytes_per_sec)
        .filter(|_| matches!(regime, Some(MeasuredRegime::Device { .. })))
        .and_then(|l| over("device link", l));
    memcpy.or(link)
}

/// Every rate of the run above a ceiling it saved (none for a run saved
/// without ceilings). In cluster mode each rank's own cells are held (the
/// sum of the ranks ran on many machines).
pub fn impossible(result: &RunResult) -> Vec<Impossible> {
    let Some(ceilings) = &result.ceilings else {
        return Vec::new();
    };
    let cpus = result.environment.cpu_count.max(1);
    let mut found = Vec::new();
    if result.config.throughput.is_some() {
        for p in &result.throughput {
            let bytes: u64 = p.results.iter().map(|w| w.bytes).sum();
            let secs = p.results.iter().map(|w| w.elapsed_ns).max().unwrap_or(0) as f64 / 1e9;
            if secs <= 0.0 {
                continue;
            }
            let regime = p.residency().and_then(|r| r.regime(p.pass));
            let place = (p.pass, format!("{} workers", p.workers));
            found.extend(held(
                ceilings,
                place,
                bytes as f64 / secs,
                regime,
                p.workers.min(cpus),
            ));
        }
    } else {
        let rows = result.ranks.first().map_or(&result.cells, |r| &r.cells);
        for m in rows.iter().flat_map(|c| &c.measurements) {
            if m.elapsed_ns == 0 {
                continue;
            }
            let regime = m.residency.as_ref().and_then(|r| r.regime(m.pass));
            let place = format!(
                "{} kB/{} kB",
                kb_number(m.file_bytes),
                kb_number(m.record_bytes)
            );
            found.extend(held(
                ceilings,
                (m.pass, place),
                m.bytes_per_sec(),
                regime,
                m.workers.min(cpus),
            ));
        }
    }
    found
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
    use crate::model::residency::{PageCounts, Residency, ResidencySource};
    use crate::model::result::sample_result;

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

    fn run_with(rate_bytes: u64, cached: u64, ceilings: Ceilings) -> RunResult {
        let config = crate::cli::test_config(&["-i", "0", "-i", "1", "-s", "64k", "-r", "4k"]);
        let passes = [Pass::Write, Pass::Rewrite, Pass::Read, Pass::Reread];
        let cells = crate::model::result::sample_cells(&config, &passes, |_, _| rate_bytes);
        let mut r = sample_result(config, cells);
        for m in r.cells.iter_mut().flat_map(|c| &mut c.measurements) {
            m.residency = Some(Residency {
                source: ResidencySource::Cachestat,
                why: None,
                start: Some(PageCounts {
                    pages: 100,
                    cached,
                    ..PageCounts::default()
                }),
                end: Some(PageCounts {
                    pages: 100,
                    cached: 100,
                    dirty: Some(0),
                    writeback: Some(0),
                    ..PageCounts::default()
                }),
            });
        }
        r.ceilings = Some(ceilings);
        r
    }

    fn ceilings(memcpy: f64, link: Option<f64>) -> Ceilings {
        Ceilings {
            memcpy_bytes_per_sec: Some(memcpy),
            device: Some(DeviceCeiling {
                link_bytes_per_sec: link,
                ..DeviceCeiling::default()
            }),
            ..Ceilings::default()
        }
    }

    #[test]
    fn a_rate_above_memcpy_is_impossible_whatever_its_regime() {
        let r = run_with(2_000_000_000, 100, ceilings(1e9, None));
        let found = impossible(&r);
        assert!(!found.is_empty());
        assert!(found.iter().all(|i| i.ceiling == "memcpy"));
        assert_eq!(found[0].bytes_per_sec, 2e9);
        assert_eq!(found[0].ceiling_bytes_per_sec, 1e9);
        assert!(
            found[0]
                .words()
                .contains("2.00 GB/s is above the memcpy ceiling of 1.00 GB/s")
        );
        assert!(impossible(&run_with(900_000_000, 100, ceilings(1e9, None))).is_empty());
    }

    #[test]
    fn only_a_device_read_is_held_against_the_link() {
        // Cold at the start: the reads are "device", the writes are not.
        let cold = run_with(700_000_000, 0, ceilings(1e10, Some(6e8)));
        let found = impossible(&cold);
        assert!(!found.is_empty());
        assert!(found.iter().all(|i| i.ceiling == "device link"));
        assert!(
            found
                .iter()
                .all(|i| i.pass.direction() != crate::model::workload::Direction::Write)
        );
        // Cached: the same rate is the page cache's, not the device's.
        assert!(impossible(&run_with(700_000_000, 100, ceilings(1e10, Some(6e8)))).is_empty());
        // No ceilings saved: nothing is judged.
        let mut old = cold.clone();
        old.ceilings = None;
        assert!(impossible(&old).is_empty());
    }
}
