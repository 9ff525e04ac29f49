//! The keeper's bookkeeping: each loop's records turned into intervals (the
//! difference of two records: engine/intervals.rs), the page cache read at
//! each tick, and the lines of the live file: a pass's intervals as they
//! come; a phase's sums index by index once every worker has passed the
//! index, each worker's interval beside.
//!
//! A loop inside one operation when its interval's time is up cannot end
//! the interval (it ends them at operation boundaries): once a whole
//! further tick has gone by with no operation completed, the keeper ends
//! it for the loop, at the tick, with the loop's totals then (which the
//! loop keeps in its ring after every operation), and then ends an
//! interval of nothing at each tick while the operation stays in flight,
//! each saying for how long at least it has been ([`Interval::oldest_in_flight_ns`]).
//! The loop's own record of an interval the keeper has already ended adds
//! to the next one.

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
    /// The histogram of the last record the loop handed over (the
    /// intervals the keeper ends have none: theirs go with the next).
    histogram: Option<LatencyHistogram>,
    /// The least and greatest latency of the records that went with the
    /// next interval (each record holds its own only).
    carried: Option<(u64, u64)>,
    /// Where its last interval ended (CLOCK_MONOTONIC, ns).
    end_ns: Option<u64>,
    /// Its last interval is in.
    ended: bool,
    /// Its clock has stopped (its last interval is on its way).
    stopped: bool,
    /// The keeper's last look at the loop's totals (bytes, operations),
    /// and when it first saw them: the loop's last operation completed
    /// before that.
    seen: Option<((u64, u64), u64)>,
    /// The first look since then that found the loop running (not pausing
    /// between operations): the operation in flight began before it.
    running_since: Option<u64>,
}

impl LoopSeries {
    /// The highest index it reached.
    fn reached(&self) -> Option<u32> {
        self.intervals.last().map(|i| i.index)
    }

    /// The index of the interval it is in.
    fn open(&self) -> u32 {
        self.reached().map_or(0, |i| i + 1)
    }
}

pub(super) struct Series {
    loops: Vec<LoopSeries>,
    /// A phase's workers (timed from the release, summed, the page cache on
    /// the sum), rather than a pass's one loop (timed from its own start,
    /// the page cache on its intervals).
    phase: bool,
    /// Where the ticks count from (CLOCK_MONOTONIC, ns): the pass's loop's
    /// start, or the phase's release. Every interval's start is from here.
    origin: u64,
    /// The page cache at each tick, by tick.
    samples: Vec<Option<CacheSample>>,
    /// When the keeper raised each tick, by tick.
    raised: Vec<u64>,
    /// A phase: the first index of the sum the live file has not had.
    written: u32,
}

impl Series {
    pub fn new(loops: u32, plan: &KeeperPlan<'_>, origin: u64) -> Series {
        Series {
            loops: (0..loops).map(|_| LoopSeries::default()).collect(),
            phase: plan.release.is_some(),
            origin,
            samples: Vec::new(),
            raised: vec![origin],
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

    /// Ticks up to `tick` raised at `now` (those the keeper woke too late
    /// for, at once).
    pub fn raised(&mut self, tick: u64, now: u64) {
        let tick = tick as usize;
        if self.raised.len() <= tick {
            self.raised.resize(tick + 1, now);
        }
    }

    /// The sample of the first tick from `tick` on (the keeper may have
    /// skipped one when it woke late).
    fn sample_from(&self, tick: usize) -> Option<CacheSample> {
        self.samples.iter().skip(tick).find_map(|s| *s)
    }

    /// Loop `index`'s next record.
    pub fn add(&mut self, index: u32, record: Record, plan: &KeeperPlan<'_>) {
        let open = self.loops[index as usize].open();
        // An interval the keeper ended already: what the loop did in it
        // after that goes with the next one (its latencies' extremes too).
        if record.index < open && !record.last {
            if let Some(mut h) = record.histogram {
                let (min, max) = h.take_extremes();
                let l = &mut self.loops[index as usize];
                let (a, b) = l.carried.unwrap_or((u64::MAX, 0));
                l.carried = Some((a.min(min), b.max(max)));
            }
            return;
        }
        let at = record.index.max(open);
        let cache = if self.phase {
            None
        } else if record.last {
            plan.probe.sample()
        } else {
            self.sample_from(at as usize + 1)
        };
        let origin = self.origin;
        let l = &mut self.loops[index as usize];
        let start = l.end_ns.unwrap_or(record.start_ns);
        let carried = l.carried.take();
        let latency = record.histogram.as_ref().map(|h| {
            let mut own = match &l.histogram {
                Some(before) => h.since(before),
                None => h.clone(),
            };
            if let Some(extremes) = carried {
                own.widen_extremes(extremes);
            }
            own.summary(plan.percentiles)
        });
        let interval = Interval {
            index: at,
            start_ns: start.saturating_sub(origin),
            length_ns: record.end_ns.saturating_sub(start),
            bytes: record.bytes - l.bytes,
            ops: record.ops - l.ops,
            partial: record.last,
            latency,
            cache,
            oldest_in_flight_ns: None,
        };
        (l.bytes, l.ops, l.histogram, l.ended) =
            (record.bytes, record.ops, record.histogram, record.last);
        l.end_ns = Some(record.end_ns);
        self.push(index, interval, plan);
    }

    /// The keeper's look at loop `index` at `now`: its totals, when its
    /// clock started (`None`: not yet), and whether it has stopped.
    pub fn look(&mut self, index: u32, ring: (Option<u64>, (u64, u64), bool, bool), now: u64) {
        let (begun, totals, stopped, paused) = ring;
        let l = &mut self.loops[index as usize];
        if stopped {
            // In no operation: its last record is on its way.
            l.seen = None;
            l.stopped = true;
        }
        if begun.is_none() || l.ended || l.stopped {
            return;
        }
        match l.seen {
            Some((seen, _)) if seen == totals => {
                if paused {
                    l.running_since = None;
                } else if l.running_since.is_none() {
                    l.running_since = Some(now);
                }
            }
            _ => {
                l.seen = Some((totals, now));
                l.running_since = (!paused).then_some(now);
            }
        }
        if l.end_ns.is_none() {
            l.end_ns = begun;
        }
    }

    /// Ends, for every loop stuck in an operation, each interval whose
    /// time was up a whole tick ago with no operation completed since (see
    /// the module). `now(index)` reads the loop's totals again, and whether
    /// it has stopped: an operation that completed since the look, or a
    /// clock stopped, leaves the loop to end its interval itself.
    pub fn end_stalled(
        &mut self,
        plan: &KeeperPlan<'_>,
        now: impl Fn(u32) -> ((u64, u64), bool, bool),
    ) {
        for index in 0..self.loops.len() {
            let (totals, stopped, paused) = now(index as u32);
            let seen = self.loops[index].seen.map(|s| s.0);
            if stopped || seen != Some(totals) {
                continue;
            }
            while let Some(interval) = self.stalled_interval(index, paused) {
                let l = &mut self.loops[index];
                l.end_ns = Some(self.origin + interval.end_ns());
                (l.bytes, l.ops) = (l.bytes + interval.bytes, l.ops + interval.ops);
                self.push(index as u32, interval, plan);
            }
        }
    }

    /// Loop `index`'s open interval, ended at the tick its time was up,
    /// when a whole tick has gone by since with no operation completed; a
    /// stall unless the loop is `paused` between operations (-J, -+O).
    fn stalled_interval(&self, index: usize, paused: bool) -> Option<Interval> {
        let l = &self.loops[index];
        let (start, ((bytes, ops), first_seen)) = (l.end_ns?, l.seen?);
        let open = l.open();
        let end = *self.raised.get(open as usize + 1)?;
        // The next tick has come too, and the loop's last operation
        // completed before this one was raised.
        if l.ended || l.stopped || self.raised.len() <= open as usize + 2 || first_seen > end {
            return None;
        }
        let ops = ops.saturating_sub(l.ops);
        Some(Interval {
            index: open,
            start_ns: start.saturating_sub(self.origin),
            length_ns: end.saturating_sub(start),
            bytes: bytes.saturating_sub(l.bytes),
            ops,
            partial: false,
            latency: None,
            cache: if self.phase {
                None
            } else {
                self.sample_from(open as usize + 1)
            },
            // A stall: nothing completed, and the loop was seen inside an
            // operation (not pausing) by the interval's end.
            oldest_in_flight_ns: l
                .running_since
                .filter(|&since| ops == 0 && !paused && since <= end)
                .map(|since| end - since),
        })
    }

    /// Loop `index`'s next interval, to the live file if it is a pass's.
    fn push(&mut self, index: u32, interval: Interval, plan: &KeeperPlan<'_>) {
        if !self.phase
            && let Some((sink, heading)) = plan.live
        {
            sink.line(&LiveLine::new(heading, &interval, Vec::new()));
        }
        self.loops[index as usize].intervals.push(interval);
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
