//! What a stonewalled phase counted while all its workers ran. Each worker
//! counts the bytes it moved until it learned that the first worker had
//! finished; on one machine it learns at its next operation. Across ranks
//! the news travels as a message, and a rank cut off from the others (or
//! never scheduled) learns late, or never before its workers finish: its
//! workers' bytes were then moved, in part, after the others had stopped.
//! Rank 0 measures when each rank learned ([`RankTiming::stop_reached_after_ns`],
//! on its clock), and the bytes of the ranks that learned too late are left
//! out of what was counted while all ran, and named.

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
    let first_finish = working.iter().map(|r| r.elapsed_ns).min().unwrap_or(0);
    let grace = LEAST_GRACE_NS.max((first_finish as f64 * GRACE_SHARE) as u64);
    let ran_on: Vec<RanOn> = working
        .into_iter()
        .filter_map(|r| {
            let after_ns = r.stop_reached_after_ns.filter(|&after| after > grace)?;
            let mine = phase
                .results
                .iter()
                .filter(|w| w.client.as_ref() == Some(&r.client));
            let (workers, bytes) = mine.fold((0, 0), |(n, b), w| (n + 1, b + w.bytes));
            Some(RanOn {
                client: r.client.clone(),
                after_ns,
                workers,
                bytes,
            })
        })
        .collect();
    Coverage {
        counted_bytes: moved - ran_on.iter().map(|r| r.bytes).sum::<u64>(),
        ran_on,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::result::sample_phase;
    use crate::model::skew::{ClockOffset, RankSkew};
    use crate::model::workload::Pass;

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
