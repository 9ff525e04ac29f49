//! `--latency`: a log-linear histogram of operation latencies in nanoseconds,
//! from 1 ns to the largest `u64` (about 584 years: no cap), with a relative
//! error under 1 %.
//!
//! Layout (fio's and HdrHistogram's idea, fixed at 6 bits of mantissa):
//! values below 128 ns each have their own bucket; above, every power of two
//! `[2^e, 2^(e+1))` is cut into 64 equal buckets, so a bucket is at most 1/64
//! of its lower bound wide. A percentile is reported as the middle of its
//! bucket (clamped to the exact min and max), within half a bucket, 1/128
//! (0.79 %), of the true order statistic. 3,776 buckets of 8 bytes (30 KiB),
//! allocated before the clock; recording is a `leading_zeros`, a shift, an
//! add and one increment, with no branch that can fail and no allocation.
//!
//! Saved sparsely (only the buckets that counted, with their bounds), with the
//! exact count, min, max and sum.

use serde::{Deserialize, Serialize};

/// Bits of mantissa: 2^6 = 64 buckets per power of two.
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;
/// Counts in a 4 KiB page.
const PAGE_WORDS: usize = 4096 / std::mem::size_of::<u64>();
/// Buckets: values 0..128 exactly, then 64 per power of two up to 2^64.
pub const BUCKETS: usize = ((64 - SUB_BITS as usize) * SUB as usize) + SUB as usize;

/// The bucket of `ns`: a few integer operations, always below [`BUCKETS`].
#[inline(always)]
pub fn bucket_of(ns: u64) -> usize {
    // The exponent of the highest set bit; values under 128 keep shift 0.
    let exponent = 63 - (ns | 1).leading_zeros();
    let shift = exponent.saturating_sub(SUB_BITS);
    (shift as usize) * SUB as usize + (ns >> shift) as usize
}

/// The smallest and largest value of bucket `index` (inclusive).
pub fn bucket_bounds(index: usize) -> (u64, u64) {
    let shift = (index as u64 / SUB).saturating_sub(1);
    let mantissa = if index < 2 * SUB as usize {
        index as u64
    } else {
        index as u64 % SUB + SUB
    };
    let low = mantissa << shift;
    let high = low + ((1u64 << shift) - 1);
    (low, high)
}

/// A histogram being recorded: dense, made before the clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyHistogram {
    counts: Box<[u64; BUCKETS]>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram::new()
    }
}

impl LatencyHistogram {
    /// An empty histogram, its pages touched so recording never faults.
    pub fn new() -> LatencyHistogram {
        let mut counts: Box<[u64; BUCKETS]> = vec![0u64; BUCKETS]
            .into_boxed_slice()
            .try_into()
            .expect("BUCKETS entries");
        // Zeroed memory may be pages nobody has touched yet (calloc does not
        // clear fresh ones): a store per page, which the opaque reference
        // keeps from being optimised away, maps them now.
        for count in counts.iter_mut().step_by(PAGE_WORDS) {
            *std::hint::black_box(count) = 0;
        }
        LatencyHistogram {
            counts,
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Records one latency. In the timed loop: no allocation, no failure.
    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        // `bucket_of` is below BUCKETS by construction; `min` lets the
        // compiler drop the bounds check's panic path.
        self.counts[bucket_of(ns).min(BUCKETS - 1)] += 1;
        self.count += 1;
        self.sum += ns as u128;
        self.min = self.min.min(ns);
        self.max = self.max.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Adds `other`'s operations to these (a cell's passes, a phase's workers).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            *mine += theirs;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Empties the histogram for the next pass, keeping its memory.
    pub fn clear(&mut self) {
        self.counts.fill(0);
        self.count = 0;
        self.sum = 0;
        self.min = u64::MAX;
        self.max = 0;
    }

    /// The latency at percentile `p` (0 < p ≤ 100), ns: the middle of the
    /// bucket holding the order statistic of rank ⌈p·count/100⌉, clamped to
    /// [min, max] (the first and last ranks are the exact min and max).
    /// `None` when nothing was recorded.
    pub fn percentile(&self, p: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((p / 100.0 * self.count as f64).ceil() as u64).clamp(1, self.count);
        // The extreme ranks are known exactly.
        if rank == self.count {
            return Some(self.max);
        }
        if rank == 1 {
            return Some(self.min);
        }
        let mut seen = 0;
        for (index, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                let (low, high) = bucket_bounds(index);
                let middle = low + (high - low) / 2;
                return Some(middle.clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }

    /// The sparse form saved in JSON, with the percentiles asked for.
    pub fn summary(&self, percentiles: &[f64]) -> LatencySummary {
        LatencySummary {
            count: self.count,
            min_ns: if self.count == 0 { 0 } else { self.min },
            max_ns: self.max,
            sum_ns: self.sum.min(u64::MAX as u128) as u64,
            percentiles: percentiles
                .iter()
                .filter_map(|&p| self.percentile(p).map(|ns| Percentile { percent: p, ns }))
                .collect(),
            buckets: self
                .counts
                .iter()
                .enumerate()
                .filter(|&(_, &n)| n > 0)
                .map(|(index, &count)| {
                    let (low_ns, high_ns) = bucket_bounds(index);
                    Bucket {
                        low_ns,
                        high_ns,
                        count,
                    }
                })
                .collect(),
        }
    }

    /// Back from the saved form (the buckets' lower bounds place them).
    pub fn from_summary(summary: &LatencySummary) -> LatencyHistogram {
        let mut h = LatencyHistogram::new();
        for b in &summary.buckets {
            h.counts[bucket_of(b.low_ns)] += b.count;
        }
        h.count = summary.count;
        h.sum = summary.sum_ns as u128;
        h.min = if summary.count == 0 {
            u64::MAX
        } else {
            summary.min_ns
        };
        h.max = summary.max_ns;
        h
    }

    /// As plain words, for a throughput worker to hand to its parent through
    /// shared memory: count, sum (two words), min, max, then every bucket.
    pub fn to_words(&self) -> Vec<u64> {
        self.words().collect()
    }

    /// The words of [`LatencyHistogram::to_words`], one by one, without
    /// allocating (the timed loop copies them at an interval's end).
    #[inline]
    pub fn words(&self) -> impl Iterator<Item = u64> + '_ {
        [
            self.count,
            self.sum as u64,
            (self.sum >> 64) as u64,
            self.min,
            self.max,
        ]
        .into_iter()
        .chain(self.counts.iter().copied())
    }

    /// `--interval`: the least and greatest latency recorded since the last
    /// call (or since the start), forgotten here so that the next interval
    /// has its own; [`LatencyHistogram::widen_extremes`] puts the whole
    /// pass's back.
    #[inline]
    pub fn take_extremes(&mut self) -> (u64, u64) {
        let extremes = (self.min, self.max);
        self.min = u64::MAX;
        self.max = 0;
        extremes
    }

    /// Widens the least and greatest latency to take in `(min, max)`.
    pub fn widen_extremes(&mut self, (min, max): (u64, u64)) {
        self.min = self.min.min(min);
        self.max = self.max.max(max);
    }

    /// The operations `self` holds beyond `earlier` (an earlier state of
    /// the same histogram), with `self`'s least and greatest latency: one
    /// interval's own (see [`LatencyHistogram::take_extremes`]).
    pub fn since(&self, earlier: &LatencyHistogram) -> LatencyHistogram {
        let mut h = self.clone();
        for (mine, before) in h.counts.iter_mut().zip(earlier.counts.iter()) {
            *mine -= before;
        }
        h.count -= earlier.count;
        h.sum -= earlier.sum;
        if h.count == 0 {
            (h.min, h.max) = (u64::MAX, 0);
        }
        h
    }

    /// Back from [`LatencyHistogram::to_words`]; `None` when `words` is not one.
    pub fn from_words(words: &[u64]) -> Option<LatencyHistogram> {
        if words.len() != WORDS {
            return None;
        }
        let mut h = LatencyHistogram::new();
        h.count = words[0];
        h.sum = words[1] as u128 | (words[2] as u128) << 64;
        h.min = words[3];
        h.max = words[4];
        h.counts.copy_from_slice(&words[5..]);
        Some(h)
    }
}

/// Words of [`LatencyHistogram::to_words`].
pub const WORDS: usize = 5 + BUCKETS;

/// A percentile and its latency.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Percentile {
    /// 0 < percent ≤ 100.
    pub percent: f64,
    pub ns: u64,
}

/// One bucket that counted: its bounds (inclusive) and how many operations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bucket {
    pub low_ns: u64,
    pub high_ns: u64,
    pub count: u64,
}

/// A histogram as saved: exact count, min, max and sum, the percentiles the
/// run asked for, and the buckets that counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub count: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    pub sum_ns: u64,
    pub percentiles: Vec<Percentile>,
    pub buckets: Vec<Bucket>,
}

impl LatencySummary {
    /// The percentile `p` as saved, else computed from the buckets.
    pub fn at(&self, p: f64) -> Option<u64> {
        self.percentiles
            .iter()
            .find(|q| q.percent == p)
            .map(|q| q.ns)
            .or_else(|| LatencyHistogram::from_summary(self).percentile(p))
    }
}

/// The percentiles shown when the run names none.
pub const DEFAULT_PERCENTILES: [f64; 5] = [50.0, 90.0, 99.0, 99.9, 99.99];

#[cfg(test)]
mod tests;
