//! What the timed loop records per operation when the run asks for it: `-Q`'s
//! list, `--latency`'s histogram, `-+z`'s IOzone buckets, and `-+O`'s pace.
//! Everything here is made before the clock; recording is a few integer
//! operations into that memory. Without any of them the engines run their
//! untimed loop, compiled apart, which reads no clock per operation.

use super::clock::{OpClock, Tsc};
use crate::model::histogram::LatencyHistogram;
use crate::model::latency::IozoneBands;

/// Where a loop's per-operation latencies go.
#[derive(Debug, Default)]
pub struct OpTiming<'a> {
    /// `-Q`: each latency in ns, in operation order (capacity reserved
    /// before the clock: latency_buffer).
    pub list: Option<&'a mut Vec<u64>>,
    /// `--latency`.
    pub histogram: Option<&'a mut LatencyHistogram>,
    /// `-+z`.
    pub bands: Option<&'a mut IozoneBands>,
    /// `-+O`: the least time from one operation's start to the next one's,
    /// ns; 0 for no limit. Synchronous engines only.
    pub pace_ns: u64,
    /// Synchronous engines: read the TSC rather than CLOCK_MONOTONIC per
    /// operation (never with a pace, whose deadlines are monotonic).
    pub tsc: Option<Tsc>,
}

impl OpTiming<'_> {
    /// Nothing to record: the loop without clock reads.
    pub fn none() -> OpTiming<'static> {
        OpTiming::default()
    }

    /// Whether the loop must time each operation.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.list.is_some() || self.histogram.is_some() || self.bands.is_some() || self.pace_ns > 0
    }

    /// The per-operation clock now: TSC ticks, or monotonic ns.
    #[inline(always)]
    pub fn now(&self) -> u64 {
        OpClock(self.tsc).now()
    }

    /// The time between two reads of [`OpTiming::now`], in ns.
    #[inline(always)]
    pub fn elapsed_ns(&self, from: u64, to: u64) -> u64 {
        OpClock(self.tsc).ns(from, to)
    }

    /// One operation's latency, to every recorder the run asked for.
    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        if let Some(list) = self.list.as_deref_mut() {
            list.push(ns);
        }
        self.record_summaries(ns);
    }

    /// The histogram and `-+z` buckets only (queued engines place `-Q`'s
    /// list entry by index).
    #[inline(always)]
    pub fn record_summaries(&mut self, ns: u64) {
        if let Some(h) = self.histogram.as_deref_mut() {
            h.record(ns);
        }
        if let Some(b) = self.bands.as_deref_mut() {
            b.record(ns);
        }
    }
}
