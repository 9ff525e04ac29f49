//! What a stonewalled phase counted while all its workers ran. Each worker
//! counts the bytes it moved until it learned that the first worker had
//! finished; on one machine it learns at its next operation. Across ranks
//! the news travels as a message, and a rank cut off from the others (or
//! never scheduled) learns late, or never before its workers finish: its
//! workers' bytes were then moved, in part, after the others had stopped.
//! Rank 0 measures when each rank learned ([`RankTiming::stop_reached_after_ns`],
//! on its clock), and the bytes of the ranks that learned too late are left
//! out of what was counted while all ran, and named.
//!
//! A rank that had not started yet was not running either: where every
//! rank's start is known on rank 0's clock, only the bytes moved between
//! the last rank's start and the first finish count, each rank's bytes
//! taken as moved at an even rate from its start to the first finish. So
//! ranks that never overlapped (the last one starting after the first one
//! finished) count 0 %, and one that started half-way through the others'
//! phase counts all of its bytes and the others half of theirs.

use std::collections::HashMap;

use crate::model::result::{Client, PhaseResult};
use crate::model::skew::RankTiming;

/// Learning of the first finish this long after it is still "at once":
/// the ranks look for the news once a millisecond, and on loaded cores a
/// rank may wait its turn to run.
const LEAST_GRACE_NS: u64 = 100_000_000;

/// Or this share of the time to the first finish, if longer.
const GRACE_SHARE: f64 = 0.10;

/// A rank whose workers ran on after the first finish, not told in time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RanOn {
    pub client: Client,
    /// How long after the first finish it learned of it, or its workers
    /// ended.
    pub after_ns: u64,
    /// Its workers in the phase, and the bytes they counted.
    pub workers: u32,
    pub bytes: u64,
}

/// A stonewalled phase's bytes counted while all its workers ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coverage {
    pub counted_bytes: u64,
    /// The ranks left out, in rank order.
    pub ran_on: Vec<RanOn>,
}

/// What `phase` counted while all its workers ran (see the module).
pub fn coverage(phase: &PhaseResult) -> Coverage {
    let moved = phase.moved_bytes();
    let Some(skew) = &phase.skew else {
        return Coverage {
            counted_bytes: moved,
            ran_on: Vec::new(),
        };
    };
    let working: Vec<&RankTiming> = skew.ranks.iter().filter(|r| r.operations > 0).collect();
    // Each rank's workers and bytes, in one pass over the workers.
    let mut of_rank: HashMap<u32, (u32, u64)> = HashMap::new();
    for w in &phase.results {
        if let Some(c) = &w.client {
            let mine = of_rank.entry(c.rank).or_default();
            *mine = (mine.0 + 1, mine.1 + w.bytes);
        }
    }
    let of = |r: &RankTiming| of_rank.get(&r.client.rank).copied().unwrap_or_default();
    // From the last rank's start to the first finish, on rank 0's clock:
    // every rank with workers counts, also one whose workers moved
    // nothing, having heard of the finish before they began.
    let together = skew.first_finish_ns.and_then(|finish| {
        let last_start = skew
            .ranks
            .iter()
            .filter(|r| of(r).0 > 0 || r.operations > 0)
            .map(|r| r.start_offset_ns)
            .collect::<Option<Vec<u64>>>()?
            .into_iter()
            .max()?;
        Some((last_start, finish))
    });
    let first_finish = working.iter().map(|r| r.elapsed_ns).min().unwrap_or(0);
    let grace = LEAST_GRACE_NS.max((first_finish as f64 * GRACE_SHARE) as u64);
    let ran_on: Vec<RanOn> = working
        .iter()
        .filter_map(|r| {
            let after_ns = r.stop_reached_after_ns.filter(|&after| after > grace)?;
            let (workers, bytes) = of(r);
            Some(RanOn {
                client: r.client.clone(),
                after_ns,
                workers,
                bytes,
            })
        })
        .collect();
    let told_in_time = moved - ran_on.iter().map(|r| r.bytes).sum::<u64>();
    let Some((last_start, finish)) = together else {
        return Coverage {
            counted_bytes: told_in_time,
            ran_on,
        };
    };
    // Each rank told in time: the share of its run, from its start to the
    // first finish, during which every rank ran.
    let counted_bytes = working
        .iter()
        .filter(|r| r.stop_reached_after_ns.is_none_or(|after| after <= grace))
        .map(|r| {
            let start = r.start_offset_ns.unwrap_or(0);
            let (_, bytes) = of(r);
            if finish <= last_start || finish <= start {
                return 0;
            }
            let share = (finish - last_start) as f64 / (finish - start) as f64;
            (bytes as f64 * share.min(1.0)).round() as u64
        })
        .sum::<u64>()
        .min(told_in_time);
    Coverage {
        counted_bytes,
        ran_on,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::result::sample_phase;
    use crate::model::skew::{ClockOffset, RankSkew};
    use crate::model::workload::Pass;

    /// Two ranks of 1 MiB each whose first finish came 1 s after the
    /// first start, rank 1 starting `late_ns` after rank 0.
    fn late_start(late_ns: u64, reached_after: [Option<u64>; 2]) -> PhaseResult {
        let mut phase = two_ranks(reached_after);
        let skew = phase.skew.as_mut().unwrap();
        skew.ranks[1].start_offset_ns = Some(late_ns);
        skew.start_skew_ns = late_ns;
        skew.first_finish_ns = Some(1_000_000_000);
        phase
    }

    #[test]
    fn a_rank_not_yet_started_is_not_running() {
        // Together from the start: all of it.
        assert_eq!(
            coverage(&late_start(0, [Some(0), Some(0)])).counted_bytes,
            2 << 20
        );
        // Rank 1 began half-way to the first finish: half of rank 0's
        // bytes moved while it ran, all of rank 1's.
        assert_eq!(
            coverage(&late_start(500_000_000, [Some(0), Some(0)])).counted_bytes,
            (1 << 20) + (1 << 19)
        );
        // Rank 1 began after rank 0's worker had finished (and learned of
        // it at once when it looked): they never overlapped.
        let apart = coverage(&late_start(2_000_000_000, [Some(0), Some(0)]));
        assert_eq!(apart.counted_bytes, 0);
        let apart = coverage(&late_start(1_000_000_000, [Some(0), Some(0)]));
        assert_eq!(apart.counted_bytes, 0);
    }

    fn two_ranks(reached_after: [Option<u64>; 2]) -> PhaseResult {
        let mut phase = sample_phase(Pass::Write, 2, 1 << 20);
        let clients: Vec<Client> = (0..2)
            .map(|rank| Client {
                rank,
                host: format!("node-{rank}"),
            })
            .collect();
        for (w, c) in phase.results.iter_mut().zip(&clients) {
            w.client = Some(c.clone());
        }
        phase.skew = Some(Box::new(RankSkew {
            first_finish_ns: None,
            start_skew_ns: 0,
            ranks: clients
                .into_iter()
                .zip(reached_after)
                .map(|(client, stop_reached_after_ns)| RankTiming {
                    client,
                    start_offset_ns: Some(0),
                    elapsed_ns: 1_000_000_000,
                    operations: 16,
                    stop_reached_after_ns,
                    clock: ClockOffset::OWN,
                })
                .collect(),
        }));
        phase
    }

    #[test]
    fn a_rank_told_in_time_counts_whole() {
        let c = coverage(&two_ranks([Some(0), Some(3_000_000)]));
        assert_eq!(c.counted_bytes, 2 << 20);
        assert!(c.ran_on.is_empty());
        // Without the ranks' timings (one machine, an older run): all of it.
        let mut one = two_ranks([None, None]);
        one.skew = None;
        assert_eq!(coverage(&one).counted_bytes, 2 << 20);
    }

    #[test]
    fn a_rank_that_ran_on_77_s_after_the_first_finish_is_left_out() {
        let c = coverage(&two_ranks([Some(0), Some(77_000_000_000)]));
        assert_eq!(c.counted_bytes, 1 << 20);
        assert_eq!(
            c.ran_on,
            [RanOn {
                client: Client {
                    rank: 1,
                    host: "node-1".into()
                },
                after_ns: 77_000_000_000,
                workers: 1,
                bytes: 1 << 20,
            }]
        );
        // Within a tenth of the time to the first finish: in time.
        assert!(
            coverage(&two_ranks([Some(0), Some(99_000_000)]))
                .ran_on
                .is_empty()
        );
    }
}
