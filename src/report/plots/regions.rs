//! The file-size regions: CPU cache, page cache and device, bounded by the
//! last-level cache and the page cache of the machine that ran (the memory
//! free when the run began; the RAM for a run saved before ioz recorded
//! it). The bounds and the judgement are model::regime's, the one every
//! view uses; a pass that could not be served from a cache (-I, a read
//! after --drop-caches or -U) is one region whatever the size.

use super::labels::lg;
use crate::model::regime::{CacheLimits, Fit, PageCacheBound, Uncached, uncached};
use crate::model::result::RunResult;
use crate::model::units::Size;
use crate::model::workload::Pass;

/// Where the file-size axis passes from one cache to the next.
pub(super) struct Regions {
    /// Largest last-level cache, bytes.
    llc: Option<u64>,
    /// What bounds the page cache: files above it cannot stay there.
    page: Option<PageCacheBound>,
    /// The pass cannot be served from a cache at all.
    uncached: Option<Uncached>,
    /// A network file system: no CPU-cache region (model::regime).
    network: bool,
}

impl Regions {
    pub(super) fn of(result: &RunResult, pass: Pass) -> Regions {
        let limits = CacheLimits::of(&result.environment);
        Regions {
            llc: limits.llc,
            page: limits.page_cache,
            uncached: uncached(&result.config, pass),
            network: limits.network,
        }
    }

    fn limits(&self) -> CacheLimits {
        CacheLimits {
            llc: self.llc,
            page_cache: self.page,
            network: self.network,
        }
    }

    /// The named regions, as log2(bytes) bounds (`None`: unbounded).
    pub(super) fn bands(&self) -> Vec<(&'static str, Option<f64>, Option<f64>)> {
        if let Some(why) = self.uncached {
            return vec![(why.label(), None, None)];
        }
        let (llc, ram) = (self.llc.map(lg), self.page.map(|p| lg(p.bytes())));
        match (llc, ram) {
            (Some(c), Some(m)) => vec![
                ("CPU cache", None, Some(c)),
                ("page cache", Some(c), Some(m)),
                ("device", Some(m), None),
            ],
            (Some(c), None) => vec![
                ("CPU cache", None, Some(c)),
                ("page cache or device", Some(c), None),
            ],
            (None, Some(m)) if self.network => {
                vec![("page cache", None, Some(m)), ("device", Some(m), None)]
            }
            (None, Some(m)) => vec![
                ("CPU or page cache", None, Some(m)),
                ("device", Some(m), None),
            ],
            (None, None) => Vec::new(),
        }
    }

    /// The boundaries between regions: (label, log2 bytes).
    pub(super) fn boundaries(&self) -> Vec<(String, f64)> {
        let mut b = Vec::new();
        if self.uncached.is_some() {
            return b;
        }
        if let Some(c) = self.llc {
            b.push((format!("LLC {}", Size(c)), lg(c)));
        }
        match self.page {
            Some(PageCacheBound::Ram(m)) => b.push((format!("RAM {}", Size(m)), lg(m))),
            Some(PageCacheBound::FreeAtStart(m)) => b.push((format!("free {}", Size(m)), lg(m))),
            None => {}
        }
        b
    }

    /// One line that says what the marks on the file-size axis mean.
    pub(super) fn caption(&self) -> String {
        if let Some(why) = self.uncached {
            return format!(
                "Regions: none; {} the pass could not be served from a cache at any file size \
                 ({}).",
                match why {
                    Uncached::DirectIo => "with O_DIRECT",
                    Uncached::DropCaches => "after the untimed cache drop,",
                    Uncached::Remount => "after the untimed remount,",
                    Uncached::SyncWrites => "with synchronous writes",
                    Uncached::FlushInTiming => "with the fsync timed,",
                },
                why.option()
            );
        }
        match (self.llc, self.page) {
            (Some(c), Some(m)) => format!(
                "File-size regions: CPU cache up to the {} last-level cache, page cache up to {}, device beyond.",
                Size(c),
                m.words()
            ),
            (Some(c), None) => format!(
                "File-size regions: CPU cache up to the {} last-level cache. Memory size unknown: no page-cache/device boundary drawn.",
                Size(c)
            ),
            (None, Some(m)) if self.network => format!(
                "File-size regions: page cache up to {}, the server beyond. A network file \
                 system: the local CPU cache does not serve its data.",
                m.words()
            ),
            (None, Some(m)) => format!(
                "File-size regions: device beyond {}. Last-level cache size unknown: no CPU-cache boundary drawn.",
                m.words()
            ),
            (None, None) => {
                "Cache and RAM sizes unknown: no CPU-cache, page-cache or device boundary drawn."
                    .to_string()
            }
        }
    }

    /// The region a file of `bytes` falls in, if any is known: the model's
    /// judgement, or where it cannot tell, the band that spans both.
    pub(super) fn region_of(&self, bytes: u64) -> Option<&'static str> {
        if let Some(why) = self.uncached {
            return Some(why.label());
        }
        match self.limits().fit(bytes) {
            Some(Fit::CpuCache) => Some("CPU cache"),
            Some(Fit::PageCache) => Some("page cache"),
            Some(Fit::ExceedsPageCache) => Some("device"),
            None => {
                let x = lg(bytes);
                self.bands()
                    .into_iter()
                    .find(|(_, lo, hi)| lo.is_none_or(|l| x > l) && hi.is_none_or(|h| x <= h))
                    .map(|(name, _, _)| name)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plots::tests::{cells, with_caches};

    #[test]
    fn regions_follow_the_environment() {
        let (r, _) = cells(&["-a", "-n", "64k", "-g", "1m", "-i", "0"], |_, _| 1);
        let none = Regions::of(&r, Pass::Write);
        assert!(none.bands().is_empty());
        assert!(none.caption().contains("unknown"));
        let r = with_caches(r);
        let known = Regions::of(&r, Pass::Write);
        assert_eq!(known.llc, Some(1 << 20));
        assert_eq!(known.page, Some(PageCacheBound::Ram(8 << 20)));
        assert_eq!(known.region_of(512 << 10), Some("CPU cache"));
        assert_eq!(known.region_of(4 << 20), Some("page cache"));
        assert_eq!(known.region_of(16 << 20), Some("device"));
        assert!(!known.caption().contains("unknown"));
    }

    #[test]
    fn the_free_memory_at_start_bounds_the_page_cache_and_minus_i_has_no_cache() {
        let (r, _) = cells(&["-a", "-n", "64k", "-g", "1m", "-i", "0"], |_, _| 1);
        let mut r = with_caches(r);
        r.environment.memory_available_bytes = Some(2 << 20);
        let free = Regions::of(&r, Pass::Write);
        assert_eq!(free.region_of(4 << 20), Some("device"));
        assert!(
            free.caption()
                .contains("page cache up to 2 MiB free at start")
        );
        assert_eq!(free.boundaries()[1].0, "free 2 MiB");
        r.config.open.direct = true;
        let direct = Regions::of(&r, Pass::Write);
        assert_eq!(direct.region_of(4 << 10), Some("uncached (-I)"));
        assert!(direct.boundaries().is_empty());
        assert!(direct.caption().contains("(-I)"), "{}", direct.caption());
    }
}
