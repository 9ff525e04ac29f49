//! The keeper's bookkeeping: each loop's records turned into intervals (the
//! difference of two records: engine/intervals.rs), the page cache read at
//! each tick, and the lines of the live file: a pass's intervals as they
//! come; a phase's sums index by index once every worker has passed the
//! index, each worker's interval beside.

use super::{KeeperPlan, Kept};
use crate::engine::intervals::Record;
use crate::model::histogram::LatencyHistogram;
use crate::model::intervals::{
    Beside, CacheSample, Interval, LiveLine, of_index, sum_of_index, sum_together,
};

/// One loop's intervals so far.
#[derive(Default)]
struct LoopSeries {
    intervals: Vec<Interval>,
    /// The loop's totals at the end of its last interval.
    bytes: u64,
    ops: u64,
    histogram: Option<LatencyHistogram>,
    /// Where its first interval began (CLOCK_MONOTONIC, ns).
    start_ns: Option<u64>,
    /// Its last interval is in.
    ended: bool,
}

impl LoopSeries {
    /// The highest index it reached.
    fn reached(&self) -> Option<u32> {
        self.intervals.last().map(|i| i.index)
    }
}

pub(super) struct Series {
    loops: Vec<LoopSeries>,
    /// A phase's workers (timed from the release, summed, the page cache on
    /// the sum), rather than a pass's one loop (timed from its own start,
    /// the page cache on its intervals).
    phase: bool,
    /// The release, in a phase.
    origin: Option<u64>,
    /// The page cache at each tick, by tick.
    samples: Vec<Option<CacheSample>>,
    /// A phase: the first index of the sum the live file has not had.
    written: u32,
}

impl Series {
    pub fn new(loops: u32, plan: &KeeperPlan<'_>, origin: Option<u64>) -> Series {
        Series {
            loops: (0..loops).map(|_| LoopSeries::default()).collect(),
            phase: plan.release.is_some(),
            origin,
            samples: Vec::new(),
            written: 0,
        }
    }

    /// The page cache read at tick `tick`.
    pub fn sampled(&mut self, tick: u64, sample: Option<CacheSample>) {
        let tick = tick as usize;
        if self.samples.len() <= tick {
            self.samples.resize(tick + 1, None);
        }
        self.samples[tick] = sample;
    }

    /// The sample of the first tick from `tick` on (the keeper may have
    /// skipped one when it woke late).
    fn sample_from(&self, tick: usize) -> Option<CacheSample> {
        self.samples.iter().skip(tick).find_map(|s| *s)
    }

    /// Loop `index`'s next record.
    pub fn add(&mut self, index: u32, record: Record, plan: &KeeperPlan<'_>) {
        let cache = if self.phase {
            None
        } else if record.last {
            plan.probe.sample()
        } else {
            self.sample_from(record.index as usize + 1)
        };
        let origin = self.origin;
        let l = &mut self.loops[index as usize];
        let base = *l.start_ns.get_or_insert(origin.unwrap_or(record.start_ns));
        let latency = record.histogram.as_ref().map(|h| {
            let own = match &l.histogram {
                Some(before) => h.since(before),
                None => h.clone(),
            };
            own.summary(plan.percentiles)
        });
        let interval = Interval {
            index: record.index,
            start_ns: record.start_ns.saturating_sub(base),
            length_ns: record.end_ns.saturating_sub(record.start_ns),
            bytes: record.bytes - l.bytes,
            ops: record.ops - l.ops,
            partial: record.last,
            latency,
            cache,
        };
        (l.bytes, l.ops, l.histogram, l.ended) =
            (record.bytes, record.ops, record.histogram, record.last);
        if !self.phase
            && let Some((sink, heading)) = plan.live
        {
            sink.line(&LiveLine::new(heading, &interval, Vec::new()));
        }
        l.intervals.push(interval);
    }

    /// A phase: the sum of `index` as the live file shows it, each worker's
    /// interval beside.
    fn live_line(&self, plan: &KeeperPlan<'_>, sum: &Interval) -> Option<LiveLine> {
        let (_, heading) = plan.live?;
        let beside = self
            .loops
            .iter()
            .enumerate()
            .filter_map(|(w, l)| Some(Beside::worker(w as u32, of_index(&l.intervals, sum.index)?)))
            .collect();
        Some(LiveLine::new(heading, sum, beside))
    }

    /// A phase: writes the sums every worker has passed (not the last one
    /// reached, which may be the phase's partial end).
    pub fn write_whole(&mut self, plan: &KeeperPlan<'_>) {
        let Some((sink, _)) = plan.live.filter(|_| self.phase) else {
            return;
        };
        let Some(top) = self.loops.iter().filter_map(LoopSeries::reached).max() else {
            return;
        };
        let series: Vec<&[Interval]> = self.loops.iter().map(|l| &l.intervals[..]).collect();
        while self.written < top
            && self
                .loops
                .iter()
                .all(|l| l.ended || l.reached().is_some_and(|r| r > self.written))
        {
            let mut sum = sum_of_index(
                &series,
                self.written,
                plan.interval_ns,
                None,
                plan.percentiles,
            );
            sum.cache = self.sample_from(self.written as usize + 1);
            if let Some(line) = self.live_line(plan, &sum) {
                sink.line(&line);
            }
            self.written += 1;
        }
    }

    /// Every loop has ended: the intervals, and in a phase their sum (the
    /// live file gets the sums it has not had).
    pub fn finish(mut self, plan: &KeeperPlan<'_>) -> Kept {
        if !self.phase {
            return Kept {
                loops: self.loops.into_iter().map(|l| l.intervals).collect(),
                sum: Vec::new(),
            };
        }
        let series: Vec<&[Interval]> = self.loops.iter().map(|l| &l.intervals[..]).collect();
        let mut sum = sum_together(&series, plan.interval_ns, plan.percentiles);
        let last_sample = plan.probe.sample();
        let count = sum.len();
        for (k, interval) in sum.iter_mut().enumerate() {
            interval.cache = if k + 1 == count {
                last_sample
            } else {
                self.sample_from(k + 1)
            };
        }
        if let Some((sink, _)) = plan.live {
            for interval in sum.iter().skip(self.written as usize) {
                if let Some(line) = self.live_line(plan, interval) {
                    sink.line(&line);
                }
            }
        }
        self.written = count as u32;
        Kept {
            loops: self.loops.into_iter().map(|l| l.intervals).collect(),
            sum,
        }
    }
}
