//! Per-operation latencies: what a pass recorded for `-Q` (handed from the
//! runner to the report that writes IOzone's offset/latency files, never
//! saved in the run's JSON), the options that time operations (`--latency`,
//! `-+z`, `-+O`, `-+T`) and IOzone's `-+z` buckets.

use serde::{Deserialize, Serialize};

/// One operation of a pass: where it went, how much it moved, how long it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpLatency {
    /// Byte offset in the file.
    pub offset: u64,
    pub bytes: u64,
    /// For engines with several operations in flight (io_uring, POSIX AIO),
    /// from queueing to reaping.
    pub latency_ns: u64,
}

/// What the run times per operation besides the throughput (saved with the
/// run's configuration).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyOptions {
    /// `--latency`: every operation of every pass in a histogram.
    #[serde(default)]
    pub histograms: bool,
    /// `--percentiles`: the percentiles shown and saved (empty: the defaults).
    #[serde(default)]
    pub percentiles: Vec<f64>,
    /// `-+z`: IOzone's `Iozone_histogram_child_<n>.txt` files.
    #[serde(default)]
    pub iozone_histograms: bool,
    /// `-+O N`: at most N operations per second per worker.
    #[serde(default)]
    pub rate_limit: Option<u64>,
    /// `-+T`: IOzone's `Child_<n>.log` files of phase starts and ends.
    #[serde(default)]
    pub worker_logs: bool,
}

impl LatencyOptions {
    /// Nothing asked for: the run's JSON leaves the options out.
    pub fn is_off(&self) -> bool {
        *self == LatencyOptions::default()
    }

    /// The percentiles to show and save.
    pub fn percentiles(&self) -> &[f64] {
        if self.percentiles.is_empty() {
            &crate::model::histogram::DEFAULT_PERCENTILES
        } else {
            &self.percentiles
        }
    }

    /// The minimum time from one operation's start to the next's (`-+O`), ns.
    pub fn pace_ns(&self) -> u64 {
        self.rate_limit.map_or(0, |n| 1_000_000_000 / n.max(1))
    }
}

/// `-+z`: IOzone's 40 latency buckets, upper bounds in whole µs (a latency,
/// truncated to µs, goes to the first bucket whose bound it does not exceed;
/// the last takes everything above 120 s). Each bound is its label's value,
/// Band 8's included (IOzone's own Band 8 bounds disagree with its labels).
pub const IOZONE_BAND_BOUNDS_US: [u64; 39] = [
    20,
    40,
    60,
    80,
    100, // Band 1
    200,
    400,
    600,
    800,
    1_000, // Band 2
    2_000,
    4_000,
    6_000,
    8_000,
    10_000, // Band 3
    12_000,
    14_000,
    16_000,
    18_000,
    20_000, // Band 4
    40_000,
    60_000,
    80_000,
    100_000, // Band 5
    200_000,
    400_000,
    600_000,
    800_000,
    1_000_000, // Band 6
    2_000_000,
    4_000_000,
    6_000_000,
    8_000_000,
    10_000_000, // Band 7
    20_000_000,
    40_000_000,
    60_000_000,
    80_000_000,
    120_000_000, // Band 8
];

/// IOzone's bucket labels, band by band.
pub const IOZONE_BANDS: [&[&str]; 9] = [
    &["20us", "40us", "60us", "80us", "100us"],
    &["200us", "400us", "600us", "800us", "1ms"],
    &["2ms", "4ms", "6ms", "8ms", "10ms"],
    &["12ms", "14ms", "16ms", "18ms", "20ms"],
    &["40ms", "60ms", "80ms", "100ms"],
    &["200ms", "400ms", "600ms", "800ms", "1s"],
    &["2s", "4s", "6s", "8s", "10s"],
    &["20s", "40s", "60s", "80s", "120s"],
    &["120+s"],
];

/// `-+z`: one worker's counts in IOzone's 40 buckets for one phase.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IozoneBands {
    pub counts: [u64; 40],
}

impl Default for IozoneBands {
    fn default() -> Self {
        IozoneBands { counts: [0; 40] }
    }
}

impl IozoneBands {
    /// The bucket of a latency: ~6 comparisons, no allocation.
    #[inline(always)]
    pub fn bucket_of(ns: u64) -> usize {
        let us = ns / 1000;
        IOZONE_BAND_BOUNDS_US.partition_point(|&bound| bound < us)
    }

    #[inline(always)]
    pub fn record(&mut self, ns: u64) {
        self.counts[Self::bucket_of(ns).min(39)] += 1;
    }

    pub fn merge(&mut self, other: &IozoneBands) {
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_latency_goes_to_the_bucket_its_label_names() {
        let bucket = |us: u64| IozoneBands::bucket_of(us * 1000);
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(20), 0, "20 µs is within 20us");
        assert_eq!(IozoneBands::bucket_of(20_999), 0, "truncated to whole µs");
        assert_eq!(bucket(21), 1);
        assert_eq!(bucket(1_000), 9, "1ms");
        assert_eq!(bucket(20_000_001), 35, "40s (IOzone: 30 s)");
        assert_eq!(bucket(120_000_000), 38);
        assert_eq!(bucket(120_000_001), 39, "120+s");
        assert_eq!(IozoneBands::bucket_of(u64::MAX), 39);
        let labels: usize = IOZONE_BANDS.iter().map(|b| b.len()).sum();
        assert_eq!(labels, 40);
    }
}
