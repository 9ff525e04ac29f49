//! `--interval` inside the timed loop: the loop ends an interval at the
//! first operation boundary after the keeper's tick (runner/intervals/),
//! and hands it over through a ring of records in memory it shares with
//! the keeper (a forked worker's too).
//!
//! Per operation the loop pays one relaxed load of the tick and one
//! comparison ([`IntervalMarks::due`]), and two relaxed stores of its
//! running totals, bytes and operations ([`IntervalMarks::progress`]), to
//! a cache line the loop alone writes: what the keeper ends an interval
//! with when the loop is inside an operation as its time is up (a stall:
//! model::intervals). The rest is out of line, once per
//! interval: one clock read and a copy of the counters (with `--latency`,
//! of the histogram's words) into the ring. Nothing allocates, waits or
//! calls the kernel: when the ring is full (a keeper kept from running for
//! several intervals) the interval goes on until the next tick finds room,
//! longer but exact.
//!
//! A record holds the interval's end and the loop's totals at it (bytes,
//! operations, the histogram's counts), so the keeper gets each interval as
//! the difference of two records: the intervals of a loop add up to the
//! loop exactly. The histogram's least and greatest latency are the
//! interval's own ([`LatencyHistogram::take_extremes`]); the loop gets the
//! whole pass's back at its end.

use std::sync::atomic::{AtomicU64, Ordering};

use super::clock::now_ns;
use crate::model::histogram::{LatencyHistogram, WORDS as HISTOGRAM_WORDS};

/// Records a ring holds before the keeper must have taken one.
pub const SLOTS: usize = 8;
/// A ring's words before its records: the records published and the records
/// taken, each on its own cache line (the loop writes one, the keeper the
/// other).
const HEADER: usize = 16;
const PUBLISHED: usize = 0;
/// The loop's running totals, where its clock started (0: not yet) and
/// whether it has stopped, in the line of the words only it writes.
const LIVE_BYTES: usize = 1;
const LIVE_OPS: usize = 2;
const BEGUN: usize = 3;
const STOPPED: usize = 4;
/// The loop is pausing between operations (-J, a replay's delay, -+O):
/// none is in flight.
const PAUSED: usize = 5;
const TAKEN: usize = 8;
/// A record's words before the histogram's: index, start, end, bytes,
/// operations, whether it is the loop's last.
const RECORD_HEAD: usize = 6;

/// Words of one record, with or without the histogram.
const fn record_words(histogram: bool) -> usize {
    RECORD_HEAD + if histogram { HISTOGRAM_WORDS } else { 0 }
}

/// One interval as the loop handed it over.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The span of D it ended in (model::intervals).
    pub index: u32,
    /// CLOCK_MONOTONIC at its start and end, ns.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The loop's totals at its end.
    pub bytes: u64,
    pub ops: u64,
    /// The loop's last interval: the loop has ended.
    pub last: bool,
    /// With `--latency`: the loop's histogram at its end, with the
    /// interval's own least and greatest latency.
    pub histogram: Option<LatencyHistogram>,
}

/// A ring of records over words shared by one loop and the keeper.
#[derive(Clone, Copy)]
pub struct IntervalRing<'a> {
    words: &'a [AtomicU64],
    histogram: bool,
}

impl<'a> IntervalRing<'a> {
    /// The words a ring takes.
    pub const fn words_for(histogram: bool) -> usize {
        HEADER + SLOTS * record_words(histogram)
    }

    /// The ring in `words` (zeroed: empty), [`IntervalRing::words_for`] long.
    pub fn over(words: &'a [AtomicU64], histogram: bool) -> IntervalRing<'a> {
        assert_eq!(words.len(), Self::words_for(histogram), "a ring's words");
        IntervalRing { words, histogram }
    }

    fn record(&self, n: u64) -> &'a [AtomicU64] {
        let size = record_words(self.histogram);
        let at = HEADER + (n as usize % SLOTS) * size;
        &self.words[at..at + size]
    }

    /// The loop: hands over a record, unless the ring is full.
    #[inline]
    fn publish(&self, head: [u64; RECORD_HEAD], histogram: Option<&LatencyHistogram>) -> bool {
        let published = self.words[PUBLISHED].load(Ordering::Relaxed);
        if published - self.words[TAKEN].load(Ordering::Acquire) >= SLOTS as u64 {
            return false;
        }
        let record = self.record(published);
        for (word, value) in record.iter().zip(head) {
            word.store(value, Ordering::Relaxed);
        }
        if let Some(h) = histogram.filter(|_| self.histogram) {
            for (word, value) in record[RECORD_HEAD..].iter().zip(h.words()) {
                word.store(value, Ordering::Relaxed);
            }
        }
        self.words[PUBLISHED].store(published + 1, Ordering::Release);
        true
    }

    /// The loop: its totals so far, after each operation.
    #[inline(always)]
    fn progress(&self, bytes: u64, ops: u64) {
        self.words[LIVE_BYTES].store(bytes, Ordering::Relaxed);
        self.words[LIVE_OPS].store(ops, Ordering::Relaxed);
    }

    /// The keeper: where the loop's clock started (CLOCK_MONOTONIC, ns),
    /// once it has.
    pub fn begun(&self) -> Option<u64> {
        Some(self.words[BEGUN].load(Ordering::Acquire)).filter(|&ns| ns != 0)
    }

    /// The keeper: the loop's clock has stopped (its last record may still
    /// be waiting for room in the ring): it is in no operation.
    pub fn stopped(&self) -> bool {
        self.words[STOPPED].load(Ordering::Acquire) != 0
    }

    /// The keeper: the loop is pausing between operations, none in flight.
    pub fn paused(&self) -> bool {
        self.words[PAUSED].load(Ordering::Relaxed) != 0
    }

    /// The keeper: the loop's totals (bytes, operations) as of its last
    /// completed operation; read until two reads agree, so that the pair
    /// is one operation's (it changes only while operations complete).
    pub fn totals(&self) -> (u64, u64) {
        let read = || {
            (
                self.words[LIVE_BYTES].load(Ordering::Relaxed),
                self.words[LIVE_OPS].load(Ordering::Relaxed),
            )
        };
        let mut last = read();
        for _ in 0..100 {
            let now = read();
            if now == last {
                break;
            }
            last = now;
        }
        last
    }

    /// The keeper: the oldest record not taken yet.
    pub fn take(&self) -> Option<Record> {
        let taken = self.words[TAKEN].load(Ordering::Relaxed);
        if self.words[PUBLISHED].load(Ordering::Acquire) == taken {
            return None;
        }
        let words: Vec<u64> = self
            .record(taken)
            .iter()
            .map(|w| w.load(Ordering::Relaxed))
            .collect();
        self.words[TAKEN].store(taken + 1, Ordering::Release);
        Some(Record {
            index: words[0] as u32,
            start_ns: words[1],
            end_ns: words[2],
            bytes: words[3],
            ops: words[4],
            last: words[5] != 0,
            histogram: self
                .histogram
                .then(|| LatencyHistogram::from_words(&words[RECORD_HEAD..]))
                .flatten(),
        })
    }
}

/// The loop's side: when an interval ends, and handing it over.
pub struct IntervalMarks<'a> {
    ring: IntervalRing<'a>,
    /// The keeper's tick: how many spans of D have passed.
    tick: &'a AtomicU64,
    /// Where the keeper counts its ticks from, when the loop's start is
    /// that (a pass's one loop; a phase's count from the release).
    origin: Option<&'a AtomicU64>,
    /// The tick the current interval began after.
    seen: u64,
    /// Where the current interval began (CLOCK_MONOTONIC, ns).
    begun_ns: u64,
    /// The pass's least and greatest latency, from the intervals handed over.
    extremes: (u64, u64),
}

impl<'a> IntervalMarks<'a> {
    /// `origin`: the word to start the keeper's clock in (see the field).
    pub fn new(
        ring: IntervalRing<'a>,
        tick: &'a AtomicU64,
        origin: Option<&'a AtomicU64>,
    ) -> IntervalMarks<'a> {
        IntervalMarks {
            ring,
            tick,
            origin,
            seen: 0,
            begun_ns: 0,
            extremes: (u64::MAX, 0),
        }
    }

    /// The loop's clock started at `start_ns`: its first interval begins.
    #[inline]
    pub fn begin(&mut self, start_ns: u64) {
        self.begun_ns = start_ns;
        self.seen = self.tick.load(Ordering::Relaxed);
        self.ring.words[BEGUN].store(start_ns, Ordering::Release);
        if let Some(origin) = self.origin {
            origin.store(start_ns, Ordering::Release);
        }
    }

    /// The loop's totals after an operation, for the keeper to end an
    /// interval with if the next operation outlasts it.
    #[inline(always)]
    pub fn progress(&self, bytes: u64, ops: usize) {
        self.ring.progress(bytes, ops as u64);
    }

    /// The loop pauses between operations (`true`), or goes on: an
    /// interval the keeper ends meanwhile is no stall.
    #[inline]
    pub fn pausing(&self, paused: bool) {
        self.ring.words[PAUSED].store(u64::from(paused), Ordering::Relaxed);
    }

    /// Whether a tick came since the current interval began: the one test
    /// per operation.
    #[inline(always)]
    pub fn due(&self) -> bool {
        self.tick.load(Ordering::Relaxed) != self.seen
    }

    /// Ends the current interval at this operation boundary, the loop
    /// having moved `bytes` in `ops` operations so far.
    #[cold]
    #[inline(never)]
    pub fn close(&mut self, bytes: u64, ops: usize, histogram: Option<&mut LatencyHistogram>) {
        let tick = self.tick.load(Ordering::Relaxed);
        self.seen = tick;
        let now = now_ns();
        let head = [
            tick.saturating_sub(1),
            self.begun_ns,
            now,
            bytes,
            ops as u64,
            0,
        ];
        if self.ring.publish(head, histogram.as_deref()) {
            self.begun_ns = now;
            if let Some(h) = histogram {
                let (min, max) = h.take_extremes();
                self.extremes = (self.extremes.0.min(min), self.extremes.1.max(max));
            }
        }
    }

    /// The loop's clock stopped at `end_ns`, after `bytes` in `ops`
    /// operations: hands over the last interval (waiting for room, outside
    /// the timed region, at most a second) and gives the histogram back the
    /// whole pass's least and greatest latency.
    pub fn finish(
        &mut self,
        end_ns: u64,
        bytes: u64,
        ops: usize,
        histogram: Option<&mut LatencyHistogram>,
    ) {
        self.ring.words[STOPPED].store(1, Ordering::Release);
        let index = self.tick.load(Ordering::Relaxed);
        let head = [index, self.begun_ns, end_ns, bytes, ops as u64, 1];
        let mut tries = 0;
        while !self.ring.publish(head, histogram.as_deref()) && tries < 1000 {
            std::thread::sleep(std::time::Duration::from_millis(1));
            tries += 1;
        }
        if let Some(h) = histogram {
            h.widen_extremes(self.extremes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(n: usize) -> Vec<AtomicU64> {
        (0..n).map(|_| AtomicU64::new(0)).collect()
    }

    #[test]
    fn an_interval_ends_at_the_first_boundary_after_a_tick() {
        let memory = words(IntervalRing::words_for(false));
        let ring = IntervalRing::over(&memory, false);
        let tick = AtomicU64::new(0);
        let mut marks = IntervalMarks::new(ring, &tick, None);
        marks.begin(1000);
        assert!(!marks.due());
        tick.store(1, Ordering::Relaxed);
        assert!(marks.due());
        marks.close(8192, 2, None);
        assert!(!marks.due());
        let first = ring.take().unwrap();
        assert_eq!(
            (
                first.index,
                first.start_ns,
                first.bytes,
                first.ops,
                first.last
            ),
            (0, 1000, 8192, 2, false)
        );
        assert!(first.end_ns > 1000);
        marks.finish(first.end_ns + 50, 12288, 3, None);
        let last = ring.take().unwrap();
        assert_eq!(
            (
                last.index,
                last.start_ns,
                last.end_ns,
                last.bytes,
                last.last
            ),
            (1, first.end_ns, first.end_ns + 50, 12288, true)
        );
        assert_eq!(ring.take(), None);
    }

    #[test]
    fn a_full_ring_makes_the_interval_longer_not_lost() {
        let memory = words(IntervalRing::words_for(false));
        let ring = IntervalRing::over(&memory, false);
        let tick = AtomicU64::new(0);
        let mut marks = IntervalMarks::new(ring, &tick, None);
        marks.begin(0);
        for t in 1..=SLOTS as u64 + 1 {
            tick.store(t, Ordering::Relaxed);
            marks.close(t * 100, t as usize, None);
        }
        let records: Vec<Record> = std::iter::from_fn(|| ring.take()).collect();
        assert_eq!(records.len(), SLOTS);
        // The ninth tick found no room: its operations go to the next one.
        tick.store(SLOTS as u64 + 2, Ordering::Relaxed);
        marks.close(1000, 10, None);
        let next = ring.take().unwrap();
        assert_eq!(next.start_ns, records[SLOTS - 1].end_ns);
        assert_eq!((next.index, next.bytes), (SLOTS as u32 + 1, 1000));
    }

    #[test]
    fn each_interval_has_its_own_extremes_and_the_pass_gets_them_all_back() {
        let memory = words(IntervalRing::words_for(true));
        let ring = IntervalRing::over(&memory, true);
        let tick = AtomicU64::new(0);
        let mut marks = IntervalMarks::new(ring, &tick, None);
        let mut h = LatencyHistogram::new();
        marks.begin(0);
        h.record(5000);
        h.record(100);
        tick.store(1, Ordering::Relaxed);
        marks.close(2, 2, Some(&mut h));
        h.record(700);
        marks.finish(u64::MAX, 3, 3, Some(&mut h));
        let first = ring.take().unwrap().histogram.unwrap();
        let last = ring.take().unwrap().histogram.unwrap();
        let own = last.since(&first);
        assert_eq!(own.count(), 1);
        assert_eq!(own.percentile(100.0), Some(700));
        assert_eq!(first.percentile(100.0), Some(5000));
        assert_eq!(
            (h.percentile(0.1), h.percentile(100.0)),
            (Some(100), Some(5000))
        );
    }
}
