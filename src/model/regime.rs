//! The cache regime of a measurement: where its data could have been served
//! from, judged from the sizes the run knows. One judgement for every view
//! (JSON, CSV, the HTML grids, the figures' regions).
//!
//! The bytes a pass touches fit the last-level CPU cache, fit the page cache
//! (the memory free when the run began), or exceed it; and the pass may not
//! be served from a cache at all: `-I` bypasses the page cache (but for the
//! stdio tests, which IOzone opens without O_DIRECT), and a pass
//! that reads after `--drop-caches` or `-U` starts with none of the file in
//! memory; `-o`/`-+D` writes wait for the device, and `-e` times the fsync
//! that takes a write pass's data there.

use serde::{Deserialize, Serialize};

use crate::model::config::RunConfig;
use crate::model::environment::Environment;
use crate::model::units::Size;
use crate::model::variations::DropCaches;
use crate::model::workload::{Direction, Pass};

/// Where the bytes of a pass fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fit {
    /// Within the last-level CPU cache.
    CpuCache,
    /// Within the page cache, beyond the last-level cache.
    PageCache,
    /// Beyond the page cache: the device sets the pace.
    ExceedsPageCache,
}

/// Why a pass could not be served from a cache whatever its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Uncached {
    /// `-I`: O_DIRECT.
    DirectIo,
    /// `--drop-caches` before a pass that reads.
    DropCaches,
    /// `-U`: the file system mounted afresh before a pass that reads.
    Remount,
    /// `-o`/`-+D`: every write waits for the device.
    SyncWrites,
    /// `-e`: the write pass's time includes the fsync that takes its data
    /// to the device.
    FlushInTiming,
}

impl Uncached {
    /// The option that says so, as the user typed it.
    pub fn option(self) -> &'static str {
        match self {
            Uncached::DirectIo => "-I",
            Uncached::DropCaches => "--drop-caches",
            Uncached::Remount => "-U",
            Uncached::SyncWrites => "-o/-+D",
            Uncached::FlushInTiming => "-e",
        }
    }

    /// The region's name on a figure: "uncached (-I)".
    pub fn label(self) -> &'static str {
        match self {
            Uncached::DirectIo => "uncached (-I)",
            Uncached::DropCaches => "uncached (--drop-caches)",
            Uncached::Remount => "uncached (-U)",
            Uncached::SyncWrites => "uncached (-o/-+D)",
            Uncached::FlushInTiming => "uncached (-e)",
        }
    }
}

/// A measurement's regime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Regime {
    /// `None`: the cache sizes needed to judge are unknown.
    pub fit: Option<Fit>,
    /// `Some`: the pass could not be served from a cache.
    pub uncached: Option<Uncached>,
}

impl Regime {
    /// Served from the CPU or page cache (as far as the run can tell).
    pub fn cached(&self) -> bool {
        self.uncached.is_none() && matches!(self.fit, Some(Fit::CpuCache | Fit::PageCache))
    }

    /// One word for a table cell or a CSV column.
    pub fn code(&self) -> &'static str {
        match (self.uncached, self.fit) {
            (Some(_), _) => "uncached",
            (None, Some(Fit::CpuCache)) => "cpu_cache",
            (None, Some(Fit::PageCache)) => "page_cache",
            (None, Some(Fit::ExceedsPageCache)) => "device",
            (None, None) => "unknown",
        }
    }

    /// Words for people: "CPU cache", "uncached (-I)".
    pub fn words(&self) -> String {
        match (self.uncached, self.fit) {
            (Some(why), _) => why.label().to_string(),
            (None, Some(Fit::CpuCache)) => "CPU cache".into(),
            (None, Some(Fit::PageCache)) => "page cache".into(),
            (None, Some(Fit::ExceedsPageCache)) => "device (exceeds the page cache)".into(),
            (None, None) => "unknown".into(),
        }
    }
}

/// What bounds the page cache: the free memory when the run began, or for
/// a run saved before ioz recorded it, the RAM (an upper bound, said so).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageCacheBound {
    FreeAtStart(u64),
    Ram(u64),
}

impl PageCacheBound {
    pub fn bytes(self) -> u64 {
        match self {
            PageCacheBound::FreeAtStart(b) | PageCacheBound::Ram(b) => b,
        }
    }

    /// "4 GiB free at start", "8 GiB of RAM".
    pub fn words(self) -> String {
        match self {
            PageCacheBound::FreeAtStart(b) => format!("{} free at start", Size(b)),
            PageCacheBound::Ram(b) => format!("{} of RAM", Size(b)),
        }
    }
}

/// The sizes a regime is judged by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLimits {
    /// The last-level (data or unified) CPU cache, bytes; `None` also for
    /// a network file system, whose data the local CPU cache does not
    /// serve: a read goes through the client's page cache at least.
    pub llc: Option<u64>,
    pub page_cache: Option<PageCacheBound>,
    /// The target is a network file system (what fits the page cache is
    /// served from it, whatever the CPU cache).
    pub network: bool,
}

impl CacheLimits {
    pub fn of(env: &Environment) -> CacheLimits {
        let page_cache = match env.memory_available_bytes.filter(|&b| b > 0) {
            Some(free) => Some(PageCacheBound::FreeAtStart(free)),
            None => Some(env.memory_bytes)
                .filter(|&b| b > 0)
                .map(PageCacheBound::Ram),
        };
        let network = env.target.network.is_some();
        let llc = env
            .last_level_cache_bytes()
            .filter(|&b| !network && b > 0 && page_cache.is_none_or(|p| b < p.bytes()));
        CacheLimits {
            llc,
            page_cache,
            network,
        }
    }

    /// Where `bytes` fit; `None` when the sizes that would tell are unknown.
    pub fn fit(&self, bytes: u64) -> Option<Fit> {
        if self.llc.is_some_and(|c| bytes <= c) {
            return Some(Fit::CpuCache);
        }
        let page = self.page_cache?.bytes();
        if bytes > page {
            Some(Fit::ExceedsPageCache)
        } else if self.llc.is_some() || self.network {
            Some(Fit::PageCache)
        } else {
            // Within the page cache, but whether within the CPU cache too
            // is unknown.
            None
        }
    }
}

/// Why `pass` of this run could not be served from a cache, if it could not.
pub fn uncached(config: &RunConfig, pass: Pass) -> Option<Uncached> {
    let v = &config.variations;
    let reads = pass.direction() != Direction::Write;
    if config.direct(pass) {
        Some(Uncached::DirectIo)
    } else if reads && v.drop_caches != DropCaches::None {
        Some(Uncached::DropCaches)
    } else if reads && v.remount.is_some() {
        Some(Uncached::Remount)
    } else if pass.direction() == Direction::Write
        && (config.open.sync_writes || config.open.dsync_writes)
    {
        Some(Uncached::SyncWrites)
    } else if pass.direction() == Direction::Write && config.fsync_in_timing {
        Some(Uncached::FlushInTiming)
    } else {
        None
    }
}

/// The regime of `pass` over `file_bytes` per worker with `workers`
/// workers (1 outside throughput mode; on a shared file, 1).
pub fn regime(
    config: &RunConfig,
    env: &Environment,
    pass: Pass,
    file_bytes: u64,
    workers: u32,
) -> Regime {
    let shared = config.throughput.as_ref().is_some_and(|t| t.shared_file);
    let files = if shared { 1 } else { u64::from(workers.max(1)) };
    Regime {
        fit: CacheLimits::of(env).fit(file_bytes.saturating_mul(files)),
        uncached: uncached(config, pass),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::environment::CpuCache;

    fn env(llc: u64, free: Option<u64>, ram: u64) -> Environment {
        Environment {
            cpu_caches: vec![CpuCache {
                level: 3,
                kind: "Unified".into(),
                size_bytes: llc,
            }],
            memory_bytes: ram,
            memory_available_bytes: free,
            ..Environment::default()
        }
    }

    #[test]
    fn the_bytes_of_a_pass_fall_in_one_region() {
        let config = test_config(&["-a"]);
        let e = env(1 << 20, Some(64 << 20), 128 << 20);
        let fit = |bytes, workers| regime(&config, &e, Pass::Read, bytes, workers).fit;
        assert_eq!(fit(1 << 20, 1), Some(Fit::CpuCache));
        assert_eq!(fit((1 << 20) + 1, 1), Some(Fit::PageCache));
        assert_eq!(fit(64 << 20, 1), Some(Fit::PageCache));
        assert_eq!(fit(65 << 20, 1), Some(Fit::ExceedsPageCache));
        // Four workers' files together.
        assert_eq!(fit(512 << 10, 4), Some(Fit::PageCache));
        assert!(regime(&config, &e, Pass::Read, 4 << 20, 1).cached());
        assert!(!regime(&config, &e, Pass::Read, 128 << 20, 1).cached());
    }

    #[test]
    fn unknown_sizes_leave_the_fit_unknown_and_old_runs_are_bounded_by_ram() {
        let none = Environment::default();
        assert_eq!(CacheLimits::of(&none).fit(1), None);
        let old = env(1 << 20, None, 8 << 20);
        let limits = CacheLimits::of(&old);
        assert_eq!(limits.page_cache, Some(PageCacheBound::Ram(8 << 20)));
        assert_eq!(limits.fit(4 << 20), Some(Fit::PageCache));
        let no_llc = Environment {
            memory_bytes: 8 << 20,
            ..Environment::default()
        };
        assert_eq!(CacheLimits::of(&no_llc).fit(4 << 20), None);
        assert_eq!(
            CacheLimits::of(&no_llc).fit(16 << 20),
            Some(Fit::ExceedsPageCache)
        );
    }

    #[test]
    fn a_network_file_system_is_never_judged_by_the_cpu_cache() {
        let config = test_config(&["-a"]);
        let mut e = env(1 << 20, Some(64 << 20), 128 << 20);
        e.target.network = Some(crate::model::environment::NetworkMount::default());
        let fit = |bytes| regime(&config, &e, Pass::Read, bytes, 1).fit;
        assert_eq!(fit(64 << 10), Some(Fit::PageCache));
        assert_eq!(fit(65 << 20), Some(Fit::ExceedsPageCache));
        assert_eq!(CacheLimits::of(&e).llc, None);
    }

    #[test]
    fn options_that_bypass_or_empty_the_cache_say_uncached() {
        let e = env(1 << 20, Some(64 << 20), 128 << 20);
        let judge = |args: &[&str], pass| regime(&test_config(args), &e, pass, 64 << 10, 1);
        let direct = judge(&["-a", "-I"], Pass::Write);
        assert_eq!(direct.uncached, Some(Uncached::DirectIo));
        assert!(!direct.cached());
        assert_eq!(direct.code(), "uncached");
        assert_eq!(direct.words(), "uncached (-I)");
        // -I leaves the stdio tests, which IOzone opens with fopen, cached.
        assert!(judge(&["-a", "-I"], Pass::Fread).cached());
        assert!(judge(&["-a", "-I"], Pass::Frewrite).cached());
        // --drop-caches empties the cache before reads; writes still land in it.
        assert_eq!(
            judge(&["-a", "--drop-caches"], Pass::Reread).uncached,
            Some(Uncached::DropCaches)
        );
        assert!(judge(&["-a", "--drop-caches"], Pass::Write).cached());
        assert_eq!(
            judge(&["-a", "-o"], Pass::Write).uncached,
            Some(Uncached::SyncWrites)
        );
        assert!(judge(&["-a", "-o"], Pass::Read).cached());
        assert_eq!(
            judge(&["-a", "-e"], Pass::Rewrite).uncached,
            Some(Uncached::FlushInTiming)
        );
        assert!(judge(&["-a", "-e"], Pass::Reread).cached());
        assert_eq!(judge(&["-a"], Pass::Read).code(), "cpu_cache");
    }
}
