//! The file-size regions: CPU cache, page cache and device, bounded by the
//! last-level cache and the RAM of the machine that ran.

use super::labels::{human_size, lg};
use crate::model::environment::Environment;

/// Where the file-size axis passes from one cache to the next.
pub(super) struct Regions {
    /// Largest last-level cache, bytes.
    llc: Option<u64>,
    /// RAM, bytes: files above it cannot stay in the page cache.
    ram: Option<u64>,
}

impl Regions {
    pub(super) fn of(env: &Environment) -> Regions {
        let ram = Some(env.memory_bytes).filter(|&b| b > 0);
        let llc = env
            .last_level_cache_bytes()
            .filter(|&b| b > 0 && ram.is_none_or(|r| b < r));
        Regions { llc, ram }
    }

    /// The named regions, as log2(bytes) bounds (`None`: unbounded).
    pub(super) fn bands(&self) -> Vec<(&'static str, Option<f64>, Option<f64>)> {
        let (llc, ram) = (self.llc.map(lg), self.ram.map(lg));
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
        if let Some(c) = self.llc {
            b.push((format!("LLC {}", human_size(c)), lg(c)));
        }
        if let Some(m) = self.ram {
            b.push((format!("RAM {}", human_size(m)), lg(m)));
        }
        b
    }

    /// One line that says what the marks on the file-size axis mean.
    pub(super) fn caption(&self) -> String {
        match (self.llc, self.ram) {
            (Some(c), Some(m)) => format!(
                "File-size regions: CPU cache up to the {} last-level cache, page cache up to {} of RAM, device beyond.",
                human_size(c),
                human_size(m)
            ),
            (Some(c), None) => format!(
                "File-size regions: CPU cache up to the {} last-level cache. RAM size unknown: no page-cache/device boundary drawn.",
                human_size(c)
            ),
            (None, Some(m)) => format!(
                "File-size regions: device beyond {} of RAM. Last-level cache size unknown: no CPU-cache boundary drawn.",
                human_size(m)
            ),
            (None, None) => {
                "Cache and RAM sizes unknown: no CPU-cache, page-cache or device boundary drawn."
                    .to_string()
            }
        }
    }

    /// The region a file of `bytes` falls in, if any is known.
    pub(super) fn region_of(&self, bytes: u64) -> Option<&'static str> {
        let x = lg(bytes);
        self.bands()
            .into_iter()
            .find(|(_, lo, hi)| lo.is_none_or(|l| x > l) && hi.is_none_or(|h| x <= h))
            .map(|(name, _, _)| name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plots::tests::{cells, with_caches};

    #[test]
    fn regions_follow_the_environment() {
        let (r, _) = cells(&["-a", "-n", "64k", "-g", "1m", "-i", "0"], |_, _| 1);
        let none = Regions::of(&r.environment);
        assert!(none.bands().is_empty());
        assert!(none.caption().contains("unknown"));
        let r = with_caches(r);
        let known = Regions::of(&r.environment);
        assert_eq!(known.llc, Some(1 << 20));
        assert_eq!(known.ram, Some(8 << 20));
        assert_eq!(known.region_of(512 << 10), Some("CPU cache"));
        assert_eq!(known.region_of(4 << 20), Some("page cache"));
        assert_eq!(known.region_of(16 << 20), Some("device"));
        assert!(!known.caption().contains("unknown"));
    }
}
