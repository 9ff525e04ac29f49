//! `--interval D`: what a pass did in each interval of D, as saved on each
//! measurement, phase and worker. The intervals of one timed loop follow
//! each other without a gap: the first starts where the loop's clock
//! started, each ends at the operation boundary where the next begins, and
//! the last ends where the loop's clock stopped (it is partial, and says
//! so). So their bytes, operations and latency histograms add up exactly
//! to the loop's.
//!
//! An interval's `index` is the span of the pass's clock it closed in:
//! index i ends at the first operation boundary after i+1 intervals of D
//! had passed. Workers of a phase (and ranks of a job) are summed index by
//! index ([`sum_by_index`]).
//!
//! A loop inside one operation when its interval's time is up cannot end
//! the interval itself: its keeper does (runner/intervals/), once a whole
//! further D has gone by without an operation completing — the interval
//! at the moment its time was up, with what the loop had completed, then
//! an interval of nothing for each D the operation stays in flight, each
//! with how long it has been ([`Interval::oldest_in_flight_ns`], a stall). The
//! operations' latencies then go with the interval the loop ends next.

use serde::{Deserialize, Serialize};

use crate::model::environment::Environment;
use crate::model::histogram::{LatencyHistogram, LatencySummary};
use crate::model::units::Size;
use crate::model::workload::Pass;

/// The shortest interval `--interval` takes, ns: shorter ones would be
/// mostly the clock's and the keeper's wake-up time.
pub const MIN_INTERVAL_NS: u64 = 10_000_000;
/// The longest, ns (one hour).
pub const MAX_INTERVAL_NS: u64 = 3_600_000_000_000;

/// One interval of a pass.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// The span of D it closed in (from 0); see the module.
    pub index: u32,
    /// From the start of the pass (throughput mode: from the barrier's
    /// release), ns.
    pub start_ns: u64,
    pub length_ns: u64,
    pub bytes: u64,
    /// Operations completed in it (a vectored call is one).
    pub ops: u64,
    /// The last interval of its loop, shorter than D.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
    /// `--latency`: the latencies of its operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<LatencySummary>,
    /// The page cache and the device when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheSample>,
    /// A stall: no operation of the loop completed in the interval, and
    /// its oldest operation in flight had been so for at least this long
    /// when it ended, ns (of a sum: the longest of its loops'). Absent
    /// whenever an operation completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oldest_in_flight_ns: Option<u64>,
}

impl Interval {
    /// Where it ends, ns from the start of the pass.
    pub fn end_ns(&self) -> u64 {
        self.start_ns + self.length_ns
    }

    /// Its rate in kB/s (1 kB = 1024 bytes), unrounded.
    pub fn kb_per_sec(&self) -> f64 {
        self.bytes as f64 / 1024.0 / (self.length_ns.max(1) as f64 / 1e9)
    }

    /// Its operations per second, unrounded.
    pub fn ops_per_sec(&self) -> f64 {
        self.ops as f64 / (self.length_ns.max(1) as f64 / 1e9)
    }

    /// A stall: nothing completed in it while an operation was in flight.
    pub fn stalled(&self) -> bool {
        self.ops == 0 && self.oldest_in_flight_ns.is_some()
    }
}

/// `Dirty` and `Writeback` of /proc/meminfo and the target device's
/// requests in flight, read at an interval's end outside the timed loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheSample {
    pub dirty_bytes: u64,
    pub writeback_bytes: u64,
    /// Requests the target's block device has in flight (none for a file
    /// system without one: tmpfs, NFS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<u64>,
}

/// One rank's own intervals of a cluster phase (its workers summed, with
/// its machine's page cache), beside the job's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankIntervals {
    pub rank: u32,
    pub intervals: Vec<Interval>,
}

/// The intervals whose rates set a chart's scale: all but those shorter
/// than half the usual length (a keeper's late tick can leave an interval
/// of a few operations, whose rate is noise; a chart clips it at its top).
pub fn usual(intervals: &[Interval]) -> impl Iterator<Item = &Interval> {
    let mut lengths: Vec<u64> = intervals.iter().map(|i| i.length_ns).collect();
    lengths.sort_unstable();
    let median = lengths.get(lengths.len() / 2).copied().unwrap_or(0);
    intervals.iter().filter(move |i| 2 * i.length_ns >= median)
}

/// The runs of intervals between stalls ([`Interval::stalled`]): a chart
/// draws each as one line, and a gap over a stall, not a line across it.
pub fn between_stalls(intervals: &[Interval]) -> impl Iterator<Item = &[Interval]> {
    intervals
        .split(|i| i.stalled())
        .filter(|run| !run.is_empty())
}

/// Points in time order, in runs broken where two neighbours lie farther
/// apart than twice their usual distance (the median): a curve drawn
/// straight across would show what was never measured.
pub fn measured_runs<T>(points: &[(f64, T)]) -> Vec<&[(f64, T)]> {
    let mut gaps: Vec<f64> = points.windows(2).map(|w| w[1].0 - w[0].0).collect();
    gaps.sort_by(f64::total_cmp);
    let usual = gaps.get(gaps.len() / 2).copied().unwrap_or(0.0);
    let mut runs = Vec::new();
    let mut from = 0;
    for k in 1..points.len() {
        if usual > 0.0 && points[k].0 - points[k - 1].0 > 2.0 * usual {
            runs.push(&points[from..k]);
            from = k;
        }
    }
    if from < points.len() {
        runs.push(&points[from..]);
    }
    runs
}

/// The kernel's dirty limit as the environment recorded it, in bytes, and
/// where it comes from: vm.dirty_bytes, else vm.dirty_ratio of the memory
/// available at the start (the kernel's base, the dirtyable memory, is close
/// to it). The kernel holds Dirty + Writeback to it.
pub fn dirty_limit(env: &Environment) -> Option<(u64, String)> {
    let pc = &env.page_cache;
    match (pc.dirty_bytes.filter(|&b| b > 0), pc.dirty_ratio) {
        (Some(bytes), _) => Some((bytes, format!("vm.dirty_bytes {}", Size(bytes)))),
        (None, Some(ratio)) => {
            let available = env.memory_available_bytes?;
            Some((
                available / 100 * ratio,
                format!("vm.dirty_ratio {ratio} % of the memory available"),
            ))
        }
        _ => None,
    }
}

/// The interval of `index` in a loop's `intervals`, if it closed one there.
pub fn of_index(intervals: &[Interval], index: u32) -> Option<&Interval> {
    intervals.iter().find(|i| i.index == index)
}

/// Bytes and operations of `intervals`, summed.
pub fn totals(intervals: &[Interval]) -> (u64, u64) {
    intervals
        .iter()
        .fold((0, 0), |(b, o), i| (b + i.bytes, o + i.ops))
}

/// The histograms of `intervals` merged (`None` when none has one).
pub fn merged_latency(intervals: &[&Interval]) -> Option<LatencyHistogram> {
    let mut merged: Option<LatencyHistogram> = None;
    for summary in intervals.iter().filter_map(|i| i.latency.as_ref()) {
        merged
            .get_or_insert_with(LatencyHistogram::new)
            .merge(&LatencyHistogram::from_summary(summary));
    }
    merged
}

/// The series of several loops that ran together (a phase's workers, a
/// job's ranks) as one: for every index from 0 to the last any of them
/// reached, the bytes, operations and histograms of their intervals of
/// that index ([`sum_of_index`]), the last one up to `end_ns` (the end of
/// the last loop, from the same start). An index no loop closed an
/// interval in holds nothing: the series covers the time without a gap.
pub fn sum_by_index(
    series: &[&[Interval]],
    interval_ns: u64,
    end_ns: u64,
    percentiles: &[f64],
) -> Vec<Interval> {
    let Some(last) = series.iter().flat_map(|s| s.iter()).map(|i| i.index).max() else {
        return Vec::new();
    };
    (0..=last)
        .map(|index| {
            let end = (index == last).then_some(end_ns);
            sum_of_index(series, index, interval_ns, end, percentiles)
        })
        .collect()
}

/// Loops that ran together summed ([`sum_by_index`]) up to the end of the
/// last of them.
pub fn sum_together(
    series: &[&[Interval]],
    interval_ns: u64,
    percentiles: &[f64],
) -> Vec<Interval> {
    let end_ns = series
        .iter()
        .filter_map(|s| s.last())
        .map(Interval::end_ns)
        .max()
        .unwrap_or(0);
    sum_by_index(series, interval_ns, end_ns, percentiles)
}

/// The intervals of `index` in `series`, summed over the span of D the
/// index names, [index·D, (index+1)·D); with `last_end` the series' last
/// one, partial, up to there.
pub fn sum_of_index(
    series: &[&[Interval]],
    index: u32,
    interval_ns: u64,
    last_end: Option<u64>,
    percentiles: &[f64],
) -> Interval {
    let of_index: Vec<&Interval> = series
        .iter()
        .flat_map(|s| s.iter())
        .filter(|i| i.index == index)
        .collect();
    let start_ns = index as u64 * interval_ns;
    Interval {
        index,
        start_ns,
        length_ns: last_end.map_or(interval_ns, |end| end.saturating_sub(start_ns)),
        bytes: of_index.iter().map(|i| i.bytes).sum(),
        ops: of_index.iter().map(|i| i.ops).sum(),
        partial: last_end.is_some(),
        latency: merged_latency(&of_index).map(|h| h.summary(percentiles)),
        cache: None,
        oldest_in_flight_ns: of_index.iter().filter_map(|i| i.oldest_in_flight_ns).max(),
    }
}

/// What a line of the live file is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveHeading {
    pub pass: Pass,
    pub run: u32,
    pub file_bytes: u64,
    pub record_bytes: u64,
    /// Throughput mode: the phase's workers.
    pub workers: Option<u32>,
}

/// `--live`: one line of the live file, as the run writes it when an
/// interval ends and `ioz report --live` writes it again from the saved
/// run. The interval's latency keeps its percentiles, not its buckets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LiveLine {
    pub pass: Pass,
    pub run: u32,
    pub file_bytes: u64,
    pub record_bytes: u64,
    /// Throughput mode: the phase's workers, whose sum the line is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<u32>,
    /// The interval's rate, kB/s (1 kB = 1024 bytes), truncated.
    pub kb_per_sec: u64,
    #[serde(flatten)]
    pub interval: Interval,
    /// Throughput mode: each worker's interval of the same index; cluster
    /// mode: each rank's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub beside: Vec<Beside>,
}

/// A worker's or a rank's part of a live line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Beside {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<u32>,
    pub kb_per_sec: u64,
    #[serde(flatten)]
    pub interval: Interval,
}

/// An interval as a live line shows it: without its latency buckets.
fn for_live(interval: &Interval) -> Interval {
    let mut shown = interval.clone();
    if let Some(latency) = &mut shown.latency {
        latency.buckets.clear();
    }
    shown
}

impl LiveLine {
    pub fn new(heading: LiveHeading, interval: &Interval, beside: Vec<Beside>) -> LiveLine {
        LiveLine {
            pass: heading.pass,
            run: heading.run,
            file_bytes: heading.file_bytes,
            record_bytes: heading.record_bytes,
            workers: heading.workers,
            kb_per_sec: interval.kb_per_sec() as u64,
            interval: for_live(interval),
            beside,
        }
    }
}

impl Beside {
    /// Worker `worker`'s interval.
    pub fn worker(worker: u32, interval: &Interval) -> Beside {
        Beside {
            worker: Some(worker),
            rank: None,
            kb_per_sec: interval.kb_per_sec() as u64,
            interval: for_live(interval),
        }
    }

    /// Rank `rank`'s interval.
    pub fn rank(rank: u32, interval: &Interval) -> Beside {
        Beside {
            worker: None,
            rank: Some(rank),
            ..Beside::worker(0, interval)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(index: u32, start_ns: u64, length_ns: u64, bytes: u64) -> Interval {
        Interval {
            index,
            start_ns,
            length_ns,
            bytes,
            ops: bytes / 4096,
            partial: false,
            latency: None,
            cache: None,
            oldest_in_flight_ns: None,
        }
    }

    #[test]
    fn loops_are_summed_index_by_index_without_a_gap() {
        let a = [
            interval(0, 0, 100, 4096),
            interval(1, 100, 105, 8192),
            interval(2, 205, 40, 4096),
        ];
        // b stalled over index 1: its second interval closed in index 2.
        let b = [interval(0, 3, 100, 4096), interval(2, 103, 180, 12288)];
        let sum = sum_by_index(&[&a, &b], 100, 283, &[]);
        let spans: Vec<(u32, u64, u64, u64, bool)> = sum
            .iter()
            .map(|i| (i.index, i.start_ns, i.length_ns, i.bytes, i.partial))
            .collect();
        assert_eq!(
            spans,
            [
                (0, 0, 100, 8192, false),
                (1, 100, 100, 8192, false),
                (2, 200, 83, 16384, true)
            ]
        );
        assert_eq!(totals(&sum), (32768, 8));
        assert_eq!(sum_by_index(&[&[]], 100, 0, &[]), Vec::new());
    }

    #[test]
    fn a_chart_s_lines_break_at_stalls_and_unmeasured_stretches() {
        let mut stalled = interval(1, 100, 100, 0);
        stalled.oldest_in_flight_ns = Some(150);
        let series = [
            interval(0, 0, 100, 4096),
            stalled,
            interval(2, 200, 100, 8192),
            interval(3, 300, 100, 8192),
        ];
        let runs: Vec<Vec<u32>> = between_stalls(&series)
            .map(|r| r.iter().map(|i| i.index).collect())
            .collect();
        assert_eq!(runs, [vec![0], vec![2, 3]]);
        // Samples every 100 ns but one 2 100 ns apart.
        let points = [(100.0, 1), (200.0, 2), (300.0, 3), (2400.0, 4), (2500.0, 5)];
        let runs: Vec<usize> = measured_runs(&points).iter().map(|r| r.len()).collect();
        assert_eq!(runs, [3, 2]);
        assert_eq!(measured_runs::<u8>(&[]).len(), 0);
    }

    #[test]
    fn summed_histograms_merge_bucket_for_bucket() {
        let summary = |values: &[u64]| {
            let mut h = LatencyHistogram::new();
            values.iter().for_each(|&v| h.record(v));
            h.summary(&[50.0])
        };
        let mut a = interval(0, 0, 100, 8192);
        a.latency = Some(summary(&[1000, 2000]));
        let mut b = interval(0, 0, 100, 4096);
        b.latency = Some(summary(&[150_000]));
        let sum = sum_by_index(&[&[a], &[b]], 100, 100, &[50.0]);
        assert_eq!(sum[0].latency, Some(summary(&[1000, 2000, 150_000])));
    }
}
