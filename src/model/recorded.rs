//! What a measurement recorded beside its rate, in words every benchmark's
//! result can be said in, so that `ioz compare` can tell why two numbers
//! differ (analysis/why.rs): the settings it ran with, what it cost the
//! tool (CPU and context switches per operation, page faults of its own),
//! how its rate spread within the run, and how far apart its workers
//! started. ioz's runs fill it from their configuration and results
//! ([`settings_of_run`]); each peer's reader from what its file says
//! (report/peers/).
//!
//! A setting a tool does not record is absent, never guessed: the causes
//! compare only what both sides say.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::config::RunConfig;
use crate::model::variations::DropCaches;
use crate::model::workload::{Direction, Pass};

/// The settings of one measurement: a name of [`SETTINGS`] → its value in
/// words ("yes", "io_uring", "32").
pub type Settings = BTreeMap<String, String>;

/// Whether the page cache held the file's pages when the pass began: fio's
/// `invalidate` (on by default) drops them, ioz keeps them unless told.
pub const CACHE_DROPPED: &str = "file's page cache dropped before the pass";
/// O_DIRECT.
pub const DIRECT: &str = "direct I/O";
/// The calls that move the records (ioz's engine names: sync, psync, vec,
/// stdio, mmap, aio, io_uring; a peer's own where ioz has none).
pub const ENGINE: &str = "engine";
/// Operations kept in flight.
pub const DEPTH: &str = "queue depth";
/// Several workers on one file.
pub const SHARED_FILE: &str = "workers share one file";
/// How several workers' rates make the figure.
pub const RATE_OF_WORKERS: &str = "rate of several workers";
/// What ends the pass: every record once, or a time.
pub const ENDS: &str = "pass ends";
/// An fsync (or close) inside the timed region.
pub const FSYNC: &str = "fsync timed";
/// O_SYNC or O_DSYNC on writes.
pub const SYNC_WRITES: &str = "synchronous writes";
/// The share of reads in a mixed test.
pub const READ_SHARE: &str = "reads in the mix";
/// The latency the percentiles are of.
pub const LATENCY_OF: &str = "latency measured";

/// Every setting, the likeliest to change a rate first: a difference in an
/// earlier one is listed before one in a later one.
pub const SETTINGS: [&str; 11] = [
    CACHE_DROPPED,
    DIRECT,
    SYNC_WRITES,
    ENGINE,
    DEPTH,
    FSYNC,
    SHARED_FILE,
    ENDS,
    READ_SHARE,
    RATE_OF_WORKERS,
    LATENCY_OF,
];

/// What a measurement cost the tool that made it, per operation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// CPU time (user and system) per operation, ns.
    pub cpu_ns_per_op: Option<f64>,
    /// Context switches per operation.
    pub switches_per_op: Option<f64>,
    /// Page faults the tool took in its own timed region (ioz counts them;
    /// a peer's counts cover its whole job and are not its own in this sense).
    pub own_faults: Option<u64>,
}

/// How the rate spread within one run (its intervals, or the peer's own
/// samples of it), kB/s.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub samples: u64,
    pub mean: f64,
    pub sd: f64,
    pub min: f64,
    pub max: f64,
}

impl Spread {
    /// The spread of `rates` (at least two, all finite), else `None`.
    pub fn of(rates: &[f64]) -> Option<Spread> {
        if rates.len() < 2 || rates.iter().any(|r| !r.is_finite()) {
            return None;
        }
        let n = rates.len() as f64;
        let mean = rates.iter().sum::<f64>() / n;
        let var = rates.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / (n - 1.0);
        Some(Spread {
            samples: rates.len() as u64,
            mean,
            sd: var.sqrt(),
            min: rates.iter().copied().fold(f64::INFINITY, f64::min),
            max: rates.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        })
    }

    /// Its coefficient of variation (sd / mean), 0 for a mean of 0.
    pub fn cv(&self) -> f64 {
        if self.mean > 0.0 {
            self.sd / self.mean
        } else {
            0.0
        }
    }
}

/// Everything a cell recorded beside its rates.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    pub settings: Settings,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
    /// The last worker's (or rank's) start after the first's, ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_skew_ns: Option<u64>,
    /// How long the measurement lasted, ns (what a skew is a share of).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_ns: Option<u64>,
}

/// A yes or no in the settings' words.
pub fn yes(on: bool) -> String {
    if on { "yes" } else { "no" }.to_string()
}

/// The settings an ioz run measured `pass` with (`workers`: a throughput
/// phase's, `None` in single and auto mode).
pub fn settings_of_run(config: &RunConfig, pass: Pass, workers: Option<u32>) -> Settings {
    let v = &config.variations;
    let engine = pass.engine().or_chosen(v.engine);
    let mut s = Settings::new();
    let dropped = match v.drop_caches {
        DropCaches::None if v.remount.is_some() => "yes (-U: remounted)".to_string(),
        DropCaches::None => "no".to_string(),
        DropCaches::File => "yes (--drop-caches file)".to_string(),
        DropCaches::All => "yes (--drop-caches all)".to_string(),
    };
    // O_DIRECT bypasses the page cache: what it held does not matter.
    if pass.direction() != Direction::Write && !config.open.direct {
        s.insert(CACHE_DROPPED.into(), dropped);
    }
    s.insert(DIRECT.into(), yes(config.open.direct));
    if pass.direction() != Direction::Read {
        let sync = config.open.sync_writes || config.open.dsync_writes || config.open.sync_all;
        s.insert(SYNC_WRITES.into(), yes(sync));
        s.insert(FSYNC.into(), yes(config.fsync_in_timing));
    }
    s.insert(ENGINE.into(), engine.name().to_string());
    s.insert(DEPTH.into(), engine.depth(v.iodepth).to_string());
    s.insert(ENDS.into(), "every record once".to_string());
    if pass == Pass::RandomMix {
        s.insert(READ_SHARE.into(), format!("{} %", config.mix_read_percent));
    }
    if let (Some(n), Some(tp)) = (workers, &config.throughput)
        && n > 1
    {
        s.insert(SHARED_FILE.into(), yes(tp.shared_file));
        let rate = if tp.stonewall {
            "sum of each worker's rate, until the first finished (stonewall)"
        } else {
            "sum of each worker's rate"
        };
        s.insert(RATE_OF_WORKERS.into(), rate.to_string());
    }
    if config.latency.histograms {
        s.insert(
            LATENCY_OF.into(),
            "each call, from its start to its return".to_string(),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_is_the_sample_statistics_of_its_rates() {
        let s = Spread::of(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!((s.samples, s.mean, s.min, s.max), (8, 5.0, 2.0, 9.0));
        // Sample variance: 32 / 7.
        assert!((s.sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert!(Spread::of(&[1.0]).is_none());
        assert!(Spread::of(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn an_ioz_run_says_its_settings_in_the_shared_words() {
        let config =
            crate::cli::test_config(&["-s", "64m", "-r", "4k", "-I", "-i", "0", "-i", "2"]);
        let read = settings_of_run(&config, Pass::RandomRead, None);
        assert_eq!(read[DIRECT], "yes");
        assert!(!read.contains_key(CACHE_DROPPED), "moot with O_DIRECT");
        let cached = crate::cli::test_config(&["-s", "64m", "-r", "4k", "-i", "0", "-i", "2"]);
        assert_eq!(
            settings_of_run(&cached, Pass::RandomRead, None)[CACHE_DROPPED],
            "no"
        );
        assert_eq!(read[ENGINE], "sync");
        assert_eq!(read[DEPTH], "1");
        assert!(!read.contains_key(FSYNC), "a read has no fsync");
        let write = settings_of_run(&config, Pass::Write, None);
        assert_eq!(write[FSYNC], "no");
        assert!(!write.contains_key(CACHE_DROPPED));
        let uring = crate::cli::test_config(&[
            "-s",
            "64m",
            "-r",
            "4k",
            "-I",
            "-i",
            "0",
            "-i",
            "2",
            "--engine",
            "io_uring",
            "--iodepth",
            "32",
        ]);
        let read = settings_of_run(&uring, Pass::RandomRead, None);
        assert_eq!(
            (read[ENGINE].as_str(), read[DEPTH].as_str()),
            ("io_uring", "32")
        );
        let tp = crate::cli::test_config(&["-s", "1m", "-r", "4k", "-i", "0", "-t", "4"]);
        let w = settings_of_run(&tp, Pass::Write, Some(4));
        assert_eq!(w[SHARED_FILE], "no");
        assert!(w[RATE_OF_WORKERS].contains("stonewall"));
    }
}
