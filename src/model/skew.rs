//! Cluster mode: how far apart the ranks began a phase (throughput mode)
//! or a cell (single and auto mode), on rank 0's clock, and how unevenly
//! they ended. Each rank times itself on its own monotonic clock; rank 0
//! knows how far each rank's clock is from its own by message round trips
//! (the shortest of them bounds the estimate's error by half its length),
//! and puts every rank's start on its own clock with it.

use serde::{Deserialize, Serialize};

use crate::model::client::Client;
use crate::model::plan::Cell;

/// A round trip longer than this says too little of a clock's offset (half
/// of it is the estimate's possible error): such a rank's start is left
/// out of the skew, and the job's "Parent sees" is not estimated.
pub const LONGEST_TRUSTED_ROUND_TRIP_NS: u64 = 2_000_000;

/// Above this share of the phase (or cell), a start skew is worth a line.
pub const SKEW_WORTH_A_LINE: f64 = 0.01;

/// How rank 0 knows a rank's clock: its offset from rank 0's, from the
/// shortest of its round trips.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockOffset {
    /// How far the rank's clock is ahead of rank 0's (ns); `None` when no
    /// round trip was short enough to trust ([`LONGEST_TRUSTED_ROUND_TRIP_NS`]).
    pub offset_ns: Option<i64>,
    /// The shortest round trip (0 for rank 0 itself).
    pub shortest_round_trip_ns: u64,
    /// How many round trips were tried.
    pub round_trips: u32,
}

impl ClockOffset {
    /// Rank 0's own clock.
    pub const OWN: ClockOffset = ClockOffset {
        offset_ns: Some(0),
        shortest_round_trip_ns: 0,
        round_trips: 0,
    };

    /// Whether it is rank 0's own clock (rank 0, or a rank on its host and
    /// boot: nothing estimated, no round trip).
    pub fn is_rank_0_s(&self) -> bool {
        self.offset_ns == Some(0) && self.round_trips == 0
    }

    /// A clock never compared with rank 0's.
    pub const UNKNOWN: ClockOffset = ClockOffset {
        offset_ns: None,
        shortest_round_trip_ns: u64::MAX,
        round_trips: 0,
    };

    /// From the shortest of `round_trips` round trips, `(offset, trip)`.
    pub fn from_shortest(shortest: Option<(i64, u64)>, round_trips: u32) -> ClockOffset {
        ClockOffset {
            offset_ns: shortest
                .filter(|&(_, trip)| trip <= LONGEST_TRUSTED_ROUND_TRIP_NS)
                .map(|(offset, _)| offset),
            shortest_round_trip_ns: shortest.map_or(u64::MAX, |(_, trip)| trip),
            round_trips,
        }
    }
}

/// One rank in a phase or a cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankTiming {
    pub client: Client,
    /// Its start after the earliest rank's, on rank 0's clock; `None` when
    /// its clock could not be aligned (see `clock`).
    pub start_offset_ns: Option<u64>,
    /// From its start to its end, on its own clock (a throughput phase:
    /// to its last worker's end).
    pub elapsed_ns: u64,
    /// The operations (records) it moved.
    pub operations: u64,
    /// Throughput mode with stonewalling: how long after the job's first
    /// worker finished this rank learned of it and stopped its workers (0
    /// for the first one's own rank; its last worker's end when no stop
    /// reached it before its workers finished); `None` where the clocks
    /// could not tell or no worker finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reached_after_ns: Option<u64>,
    /// How rank 0 knew its clock.
    pub clock: ClockOffset,
}

/// The ranks' starts and ends in one phase or cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankSkew {
    /// The last rank's start after the first's, on rank 0's clock (ranks
    /// whose clocks could not be aligned left out).
    pub start_skew_ns: u64,
    /// Each rank, in rank order.
    pub ranks: Vec<RankTiming>,
    /// Throughput mode: the job's first worker's finish after the first
    /// rank's start, on rank 0's clock; `None` where a clock could not be
    /// aligned, or no worker finished (and in runs saved before it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_finish_ns: Option<u64>,
}

/// A cell of single and auto mode across ranks, one run of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellSkew {
    pub cell: Cell,
    pub run: u32,
    pub skew: RankSkew,
}

/// What rank 0 knows of one rank's throughput phase, on that rank's own
/// clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankPhaseTimes {
    pub client: Client,
    /// When it released its workers.
    pub release_ns: u64,
    /// From its release to its last worker's end.
    pub elapsed_ns: u64,
    pub operations: u64,
    /// After its release, the end of its first worker that finished
    /// without being stopped.
    pub first_done_after_release_ns: Option<u64>,
    /// When a stop from another rank reached it.
    pub heard_ns: Option<u64>,
}

/// The largest over the smallest of `values` (only ranks that did
/// something count); `None` with fewer than two of them or a zero.
fn imbalance(values: impl Iterator<Item = u64>) -> Option<f64> {
    let values: Vec<u64> = values.collect();
    let (min, max) = (values.iter().min()?, values.iter().max()?);
    (values.len() > 1 && *min > 0).then(|| *max as f64 / *min as f64)
}

impl RankSkew {
    /// Rank 0's view from each rank's start on its own clock (`starts_ns`,
    /// in rank order, with its offset from rank 0's): the offsets from the
    /// earliest start, where the rank's clock is known.
    pub fn new(mut ranks: Vec<RankTiming>, starts_ns: &[u64]) -> RankSkew {
        let aligned: Vec<Option<i64>> = ranks
            .iter()
            .zip(starts_ns)
            .map(|(r, &start)| r.clock.offset_ns.map(|offset| start as i64 - offset))
            .collect();
        let first = aligned.iter().flatten().min().copied();
        let last = aligned.iter().flatten().max().copied();
        for (r, start) in ranks.iter_mut().zip(&aligned) {
            r.start_offset_ns = start.zip(first).map(|(s, f)| (s - f) as u64);
        }
        RankSkew {
            start_skew_ns: first.zip(last).map_or(0, |(f, l)| (l - f) as u64),
            ranks,
            first_finish_ns: None,
        }
    }

    /// A throughput phase's, from each rank's times (in rank order) and
    /// clock; with stonewalling, when each rank learned of the job's first
    /// finish: when a stop reached it, or its own first worker finished,
    /// or (neither) its workers had all ended.
    pub fn of_phase(ranks: &[RankPhaseTimes], clocks: &[ClockOffset], stonewall: bool) -> RankSkew {
        let clock = |rank: usize| clocks.get(rank).copied().unwrap_or(ClockOffset::UNKNOWN);
        // On rank 0's clock, where the rank's clock is known.
        let on_rank_0 = |rank: usize, ns: u64| clock(rank).offset_ns.map(|o| ns as i64 - o);
        let first_finish = ranks
            .iter()
            .enumerate()
            .filter_map(|(k, r)| on_rank_0(k, r.release_ns + r.first_done_after_release_ns?))
            .min();
        let timings = ranks
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let told = [
                    r.heard_ns,
                    r.first_done_after_release_ns.map(|d| r.release_ns + d),
                ]
                .into_iter()
                .flatten()
                .min()
                .unwrap_or(r.release_ns + r.elapsed_ns);
                let reached = on_rank_0(k, told)
                    .zip(first_finish)
                    .map(|(told, first)| (told - first).max(0) as u64);
                RankTiming {
                    client: r.client.clone(),
                    start_offset_ns: None,
                    elapsed_ns: r.elapsed_ns,
                    operations: r.operations,
                    stop_reached_after_ns: reached.filter(|_| stonewall && r.operations > 0),
                    clock: clock(k),
                }
            })
            .collect();
        let starts: Vec<u64> = ranks.iter().map(|r| r.release_ns).collect();
        // On rank 0's clock, when every rank's is known.
        let first_start = (0..ranks.len())
            .map(|k| on_rank_0(k, ranks[k].release_ns))
            .collect::<Option<Vec<i64>>>()
            .and_then(|s| s.into_iter().min());
        RankSkew {
            first_finish_ns: first_start
                .zip(first_finish)
                .map(|(start, finish)| (finish - start).max(0) as u64),
            ..RankSkew::new(timings, &starts)
        }
    }

    /// The ranks that moved something: a rank without workers only meets
    /// the others.
    fn working(&self) -> impl Iterator<Item = &RankTiming> {
        self.ranks.iter().filter(|r| r.operations > 0)
    }

    /// The longest rank's time over the shortest's.
    pub fn time_imbalance(&self) -> Option<f64> {
        imbalance(self.working().map(|r| r.elapsed_ns))
    }

    /// The most operations a rank moved over the fewest.
    pub fn operations_imbalance(&self) -> Option<f64> {
        imbalance(self.working().map(|r| r.operations))
    }

    /// How far off the starts may be: half the longest of the shortest
    /// round trips the aligned clocks were estimated from.
    pub fn uncertainty_ns(&self) -> u64 {
        self.ranks
            .iter()
            .filter(|r| r.clock.offset_ns.is_some())
            .map(|r| r.clock.shortest_round_trip_ns / 2)
            .max()
            .unwrap_or(0)
    }

    /// The skew as a share of `span_ns` (the phase or cell), when it
    /// exceeds [`SKEW_WORTH_A_LINE`] and what the clocks can tell apart.
    pub fn worth_a_line(&self, span_ns: u64) -> Option<f64> {
        let share = self.start_skew_ns as f64 / span_ns.max(1) as f64;
        (share > SKEW_WORTH_A_LINE && self.start_skew_ns > self.uncertainty_ns()).then_some(share)
    }

    /// The rank that started last (of those whose clock is known).
    pub fn last_to_start(&self) -> Option<&RankTiming> {
        self.ranks
            .iter()
            .filter(|r| r.start_offset_ns.is_some())
            .max_by_key(|r| r.start_offset_ns)
    }

    /// The ranks whose clocks could not be aligned with rank 0's.
    pub fn unaligned(&self) -> impl Iterator<Item = &RankTiming> {
        self.ranks.iter().filter(|r| r.clock.offset_ns.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(rank: u32, offset: Option<i64>, elapsed_ns: u64, operations: u64) -> RankTiming {
        RankTiming {
            client: Client {
                rank,
                host: format!("h{rank}"),
            },
            start_offset_ns: None,
            elapsed_ns,
            operations,
            stop_reached_after_ns: None,
            clock: ClockOffset {
                offset_ns: offset,
                shortest_round_trip_ns: 30_000,
                round_trips: 32,
            },
        }
    }

    #[test]
    fn starts_are_put_on_rank_0_s_clock_before_they_are_compared() {
        // Rank 1's clock is 5 ms ahead: its start at 105 ms is rank 0's 100 ms.
        let skew = RankSkew::new(
            vec![
                rank(0, Some(0), 10_000_000, 100),
                rank(1, Some(5_000_000), 20_000_000, 100),
                rank(2, Some(-1_000_000), 10_000_000, 50),
            ],
            &[100_000_000, 105_000_000, 99_500_000],
        );
        // Rank 2 began at rank 0's 100.5 ms: 0.5 ms after the others.
        assert_eq!(skew.start_skew_ns, 500_000);
        let offsets: Vec<_> = skew.ranks.iter().map(|r| r.start_offset_ns).collect();
        assert_eq!(offsets, [Some(0), Some(0), Some(500_000)]);
        assert_eq!(skew.last_to_start().unwrap().client.rank, 2);
        assert_eq!(skew.time_imbalance(), Some(2.0));
        assert_eq!(skew.operations_imbalance(), Some(2.0));
        // 0.5 ms of a 10 ms phase is 5 %: a line; of a 100 ms one, not.
        assert_eq!(skew.worth_a_line(10_000_000), Some(0.05));
        assert_eq!(skew.worth_a_line(100_000_000), None);
        // Within half a round trip the clocks cannot tell the starts apart.
        let mut blurred = skew.clone();
        blurred.ranks[1].clock.shortest_round_trip_ns = 1_000_000;
        assert_eq!(blurred.uncertainty_ns(), 500_000);
        assert_eq!(blurred.worth_a_line(1_000_000), None);
    }

    #[test]
    fn an_unaligned_rank_is_left_out_and_named() {
        let skew = RankSkew::new(
            vec![
                rank(0, Some(0), 10, 1),
                rank(1, None, 10, 1),
                rank(2, Some(0), 10, 0),
            ],
            &[100, 7, 300],
        );
        assert_eq!(skew.start_skew_ns, 200);
        assert_eq!(skew.ranks[1].start_offset_ns, None);
        let unaligned: Vec<u32> = skew.unaligned().map(|r| r.client.rank).collect();
        assert_eq!(unaligned, [1]);
        // A rank that moved nothing (no worker of its own) is no end.
        assert_eq!(skew.operations_imbalance(), Some(1.0));
    }

    #[test]
    fn each_rank_learns_of_the_first_finish_when_told_or_done() {
        let times = |rank: u32, release_ns, first_done, heard_ns| RankPhaseTimes {
            client: Client {
                rank,
                host: format!("h{rank}"),
            },
            release_ns,
            elapsed_ns: 90_000_000_000,
            operations: 10,
            first_done_after_release_ns: first_done,
            heard_ns,
        };
        let clocks = [
            ClockOffset::OWN,
            ClockOffset {
                offset_ns: Some(1_000),
                ..ClockOffset::OWN
            },
            ClockOffset::OWN,
        ];
        // Rank 0 finishes first at 1 s; rank 1 (its clock 1 µs ahead)
        // hears 2 ms later; rank 2 never hears and ends at 91 s.
        let skew = RankSkew::of_phase(
            &[
                times(0, 0, Some(1_000_000_000), None),
                times(1, 1_000, None, Some(1_002_001_000)),
                times(2, 1_000_000_000, None, None),
            ],
            &clocks,
            true,
        );
        let reached: Vec<_> = skew.ranks.iter().map(|r| r.stop_reached_after_ns).collect();
        assert_eq!(reached, [Some(0), Some(2_000_000), Some(90_000_000_000)]);
        assert_eq!(skew.start_skew_ns, 1_000_000_000);
        // The first finish, 1 s after the first start (rank 0's and 1's).
        assert_eq!(skew.first_finish_ns, Some(1_000_000_000));
        // Without stonewalling nobody is told anything.
        let skew = RankSkew::of_phase(&[times(0, 0, Some(5), None)], &clocks, false);
        assert_eq!(skew.ranks[0].stop_reached_after_ns, None);
    }

    #[test]
    fn a_clock_is_trusted_only_from_a_short_round_trip() {
        let good = ClockOffset::from_shortest(Some((-40, 30_000)), 32);
        assert_eq!(good.offset_ns, Some(-40));
        let bad = ClockOffset::from_shortest(Some((-40, 2_000_001)), 416);
        assert_eq!(bad.offset_ns, None);
        assert_eq!(bad.shortest_round_trip_ns, 2_000_001);
        assert_eq!(bad.round_trips, 416);
        assert_eq!(ClockOffset::from_shortest(None, 0).offset_ns, None);
    }
}
