//! A run's rates held against the ceilings it measured at its start
//! (model/ceilings.rs): a cell whose measured regime is "device" with a rate
//! above the device's link, or any rate above what the cores that ran it
//! can copy, is impossible; [`impossible`] names it with both numbers, from
//! the saved run alone (`ioz report RUN.json` recomputes it).

use serde::{Deserialize, Serialize};

use crate::model::ceilings::{Ceilings, rate_words};
use crate::model::residency::MeasuredRegime;
use crate::model::result::RunResult;
use crate::model::units::kb_number;
use crate::model::workload::Pass;

/// "1 worker", "4 workers".
pub fn workers_words(n: u32) -> String {
    if n == 1 {
        "1 worker".into()
    } else {
        format!("{n} workers")
    }
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
            let place = (p.pass, workers_words(p.workers));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ceilings::DeviceCeiling;
    use crate::model::residency::{PageCounts, Residency, ResidencySource};
    use crate::model::result::sample_result;

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
