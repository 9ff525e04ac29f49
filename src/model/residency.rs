//! What the page cache held of a pass's files, measured just before its
//! clock started and just after it stopped (system/residency.rs reads it),
//! and the regime that follows from it: a read pass served by the device,
//! by the page cache, or by both; a write pass's pages left dirty or under
//! writeback when the clock stopped.

use serde::{Deserialize, Serialize};

use crate::model::workload::{Direction, Pass};

/// Which kernel interface counted the pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResidencySource {
    /// cachestat(2), Linux 6.5+: cached, dirty, writeback, evicted and
    /// recently evicted pages.
    Cachestat,
    /// mincore(2) over a read-only mapping of the file: cached pages only.
    Mincore,
    /// Neither could count them (`why` says so).
    Unknown,
}

impl ResidencySource {
    pub fn code(self) -> &'static str {
        match self {
            ResidencySource::Cachestat => "cachestat",
            ResidencySource::Mincore => "mincore",
            ResidencySource::Unknown => "unknown",
        }
    }
}

/// A file's pages at one moment (of several files, their sums). Counts the
/// source cannot give are absent (mincore gives `cached` only).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCounts {
    /// The file's pages (its size rounded up to whole pages).
    pub pages: u64,
    /// Of them, in the page cache.
    pub cached: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dirty: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writeback: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evicted: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recently_evicted: Option<u64>,
}

impl PageCounts {
    /// The share of the file's pages in the page cache, 0–1 (0 for an
    /// empty file).
    pub fn cached_fraction(&self) -> f64 {
        if self.pages == 0 {
            0.0
        } else {
            (self.cached.min(self.pages)) as f64 / self.pages as f64
        }
    }

    /// Dirty and under writeback together, where the source counts them.
    pub fn unwritten(&self) -> Option<u64> {
        Some(self.dirty? + self.writeback?)
    }

    /// Both counted, field by field (a count one of them lacks is lacking).
    pub fn plus(self, o: PageCounts) -> PageCounts {
        let add = |a: Option<u64>, b: Option<u64>| Some(a? + b?);
        PageCounts {
            pages: self.pages + o.pages,
            cached: self.cached + o.cached,
            dirty: add(self.dirty, o.dirty),
            writeback: add(self.writeback, o.writeback),
            evicted: add(self.evicted, o.evicted),
            recently_evicted: add(self.recently_evicted, o.recently_evicted),
        }
    }
}

/// What the page cache held of a pass's file (or, summed, of its workers'
/// files) at the start and the end of its timed region.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Residency {
    pub source: ResidencySource,
    /// Unknown: why nothing was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<PageCounts>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<PageCounts>,
}

impl Residency {
    pub fn unknown(why: impl Into<String>) -> Residency {
        Residency {
            source: ResidencySource::Unknown,
            why: Some(why.into()),
            start: None,
            end: None,
        }
    }

    /// The files of several workers together: their counts summed, by one
    /// source when all had it (else the poorer one: mincore's), unknown
    /// when any was.
    pub fn sum<'a>(all: impl IntoIterator<Item = Option<&'a Residency>>) -> Option<Residency> {
        let mut sum: Option<Residency> = None;
        for r in all {
            let r = r?;
            if r.source == ResidencySource::Unknown {
                return Some(r.clone());
            }
            sum = Some(match sum {
                None => r.clone(),
                Some(s) => Residency {
                    source: if s.source == r.source {
                        s.source
                    } else {
                        ResidencySource::Mincore
                    },
                    why: None,
                    start: s.start.zip(r.start).map(|(a, b)| a.plus(b)),
                    end: s.end.zip(r.end).map(|(a, b)| a.plus(b)),
                },
            });
        }
        sum
    }

    /// The regime this residency shows for `pass`; None when nothing was
    /// counted.
    pub fn regime(&self, pass: Pass) -> Option<MeasuredRegime> {
        let (start, end) = (self.start?, self.end?);
        Some(match pass.direction() {
            Direction::Read | Direction::Mixed => {
                let f = start.cached_fraction();
                if f < DEVICE_BELOW {
                    MeasuredRegime::Device { cached: f }
                } else if f > CACHE_ABOVE {
                    MeasuredRegime::PageCache { cached: f }
                } else {
                    MeasuredRegime::Mixed { cached: f }
                }
            }
            Direction::Write => MeasuredRegime::Written {
                unwritten_pages: end.unwritten(),
                pages: end.pages,
            },
        })
    }
}

/// A read pass is "device" when less than this share of its file was cached
/// as its clock started.
pub const DEVICE_BELOW: f64 = 0.05;
/// … and "page cache" when more than this share was.
pub const CACHE_ABOVE: f64 = 0.95;

/// The regime of a pass, from what the page cache held.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MeasuredRegime {
    /// A read that started with under 5 % of its file cached.
    Device { cached: f64 },
    /// A read that started with over 95 % cached.
    PageCache { cached: f64 },
    /// Between the two.
    Mixed { cached: f64 },
    /// A write: what was dirty or under writeback when its clock stopped
    /// (None: the source does not count it).
    Written {
        unwritten_pages: Option<u64>,
        pages: u64,
    },
}

impl MeasuredRegime {
    /// One word for a CSV column or a comparison.
    pub fn code(&self) -> &'static str {
        match self {
            MeasuredRegime::Device { .. } => "device",
            MeasuredRegime::PageCache { .. } => "page_cache",
            MeasuredRegime::Mixed { .. } => "mixed",
            MeasuredRegime::Written {
                unwritten_pages: Some(0),
                ..
            } => "written_through",
            MeasuredRegime::Written {
                unwritten_pages: Some(_),
                ..
            } => "left_dirty",
            MeasuredRegime::Written { .. } => "written",
        }
    }

    /// Words for people: "device (2 % cached)", "12 % left dirty".
    pub fn words(&self) -> String {
        let pct = |f: f64| format!("{:.0} %", 100.0 * f);
        match *self {
            MeasuredRegime::Device { cached } => format!("device ({} cached)", pct(cached)),
            MeasuredRegime::PageCache { cached } => {
                format!("page cache ({} cached)", pct(cached))
            }
            MeasuredRegime::Mixed { cached } => format!("mixed ({} cached)", pct(cached)),
            MeasuredRegime::Written {
                unwritten_pages: Some(0),
                ..
            } => "nothing left dirty or under writeback".into(),
            MeasuredRegime::Written {
                unwritten_pages: Some(n),
                pages,
            } => {
                let share = if pages == 0 {
                    0.0
                } else {
                    n as f64 / pages as f64
                };
                format!("{} left dirty or under writeback", pct(share.min(1.0)))
            }
            MeasuredRegime::Written { .. } => "written (dirty pages not counted)".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pages: u64, cached: u64, dirty: Option<u64>) -> PageCounts {
        PageCounts {
            pages,
            cached,
            dirty,
            writeback: dirty.map(|_| 0),
            ..PageCounts::default()
        }
    }

    fn residency(start: PageCounts, end: PageCounts) -> Residency {
        Residency {
            source: ResidencySource::Cachestat,
            why: None,
            start: Some(start),
            end: Some(end),
        }
    }

    #[test]
    fn a_read_is_judged_by_its_start() {
        let r = |cached| residency(counts(100, cached, None), counts(100, 100, None));
        assert_eq!(r(4).regime(Pass::Read).unwrap().code(), "device");
        assert_eq!(r(5).regime(Pass::Read).unwrap().code(), "mixed");
        assert_eq!(r(95).regime(Pass::Read).unwrap().code(), "mixed");
        assert_eq!(r(96).regime(Pass::Read).unwrap().code(), "page_cache");
        assert_eq!(
            r(50).regime(Pass::Reread).unwrap().words(),
            "mixed (50 % cached)"
        );
    }

    #[test]
    fn a_write_is_judged_by_what_it_left_dirty() {
        let w = |dirty| residency(counts(0, 0, Some(0)), counts(200, 200, dirty));
        let left = w(Some(50)).regime(Pass::Write).unwrap();
        assert_eq!(left.code(), "left_dirty");
        assert_eq!(left.words(), "25 % left dirty or under writeback");
        assert_eq!(
            w(Some(0)).regime(Pass::Write).unwrap().code(),
            "written_through"
        );
        assert_eq!(w(None).regime(Pass::Write).unwrap().code(), "written");
    }

    #[test]
    fn unknown_residency_has_no_regime_and_taints_a_sum() {
        let u = Residency::unknown("no file");
        assert_eq!(u.regime(Pass::Read), None);
        let known = residency(counts(10, 1, Some(1)), counts(10, 10, Some(2)));
        let sum = Residency::sum([Some(&known), Some(&known)]).unwrap();
        assert_eq!(sum.start.unwrap().pages, 20);
        assert_eq!(sum.end.unwrap().dirty, Some(4));
        assert_eq!(
            Residency::sum([Some(&known), Some(&u)]).unwrap().source,
            ResidencySource::Unknown
        );
        assert_eq!(Residency::sum([Some(&known), None]), None);
    }

    #[test]
    fn mincore_lacks_dirty_counts_and_a_sum_with_it_does_too() {
        let m = Residency {
            source: ResidencySource::Mincore,
            ..residency(counts(10, 5, None), counts(10, 10, None))
        };
        let c = residency(counts(10, 5, Some(0)), counts(10, 10, Some(3)));
        let sum = Residency::sum([Some(&c), Some(&m)]).unwrap();
        assert_eq!(sum.source, ResidencySource::Mincore);
        assert_eq!(sum.end.unwrap().dirty, None);
        assert_eq!(sum.end.unwrap().cached, 20);
    }
}
