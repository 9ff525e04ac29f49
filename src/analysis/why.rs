//! Why two numbers differ: for a cell whose difference is significant,
//! what the two inputs recorded differently, the likeliest cause first.
//!
//! Each cause is found by one small function over the two sides and the
//! cell ([`FINDERS`]): the cache regime each judged, the settings that
//! differ (model/recorded.rs's shared words), the tools and their
//! versions, the environments' differences, the tool's own cost in the
//! timed region, the workers' start skew, the shape of the rate over the
//! run (a stall, a cliff, a wide swing), the number of samples. A later
//! cause (the page cache's residency at a pass's start, a validity stamp)
//! is one more function in the list. Each says its weight, how likely it
//! explains a difference; the list is sorted by it.

use serde::Serialize;

use super::samples::{CellKey, SampleSet};
use crate::model::env_facts::{Difference, Topic};
use crate::model::intervals::Interval;
use crate::model::recorded::{LATENCY_OF, Recorded, SETTINGS, Spread};

/// One thing the two inputs recorded differently.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cause {
    pub kind: CauseKind,
    /// What differs, in words naming both inputs.
    pub text: String,
    /// How likely it explains the difference, 0–100 (the list's order).
    pub weight: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CauseKind {
    /// The cell's cache regime (CPU cache, page cache, device).
    Regime,
    /// A setting of the measurement (direct I/O, engine, depth…).
    Setting,
    /// The tools that measured, or their versions.
    Tool,
    /// The machine, its file system, mount, device, tunables.
    Environment,
    /// What measuring cost the tool in the timed region.
    OwnCost,
    /// How far apart the workers (or ranks) started.
    StartSkew,
    /// The rate's course over the run.
    Series,
    /// How many samples each side has.
    Samples,
}

/// The tool that measured an input, as the input says it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tool {
    /// "ioz", "IOzone", "fio", "IOR"…
    pub name: String,
    pub version: Option<String>,
    pub command: Option<String>,
}

impl Tool {
    /// "fio fio-3.33", "ioz 0.1.0", "IOzone".
    pub fn words(&self) -> String {
        match &self.version {
            Some(v) => format!("{} {v}", self.name),
            None => self.name.clone(),
        }
    }
}

/// What the causes are found from: the baseline's and the other input's
/// names, tools and samples (in that order), and the cell they differ in.
pub struct Evidence<'a> {
    pub names: [&'a str; 2],
    pub tools: [Option<&'a Tool>; 2],
    pub samples: [&'a SampleSet; 2],
    pub cell: CellKey,
    /// Each side's cache regime, when they differ.
    pub regimes_differ: Option<&'a (String, String)>,
    /// The samples each side has of the cell.
    pub counts: [usize; 2],
    /// A side has one sample: the verdict rests on the band alone.
    pub band_only: bool,
    /// The environments' differences, when both inputs recorded one.
    pub environment: Option<&'a [Difference]>,
    /// `--band`, percent.
    pub band_percent: f64,
}

impl Evidence<'_> {
    fn recorded(&self) -> (Option<&Recorded>, Option<&Recorded>) {
        (
            self.samples[0].recorded.get(&self.cell),
            self.samples[1].recorded.get(&self.cell),
        )
    }

    fn names(&self) -> (&str, &str) {
        (self.names[0], self.names[1])
    }
}

/// A function that finds causes of one kind.
pub type Finder = fn(&Evidence) -> Vec<Cause>;

/// Every finder. A new kind of cause is one more function here.
pub const FINDERS: &[Finder] = &[
    regime,
    settings,
    tool,
    environment,
    own_cost,
    start_skew,
    series,
    samples,
];

/// The causes of the cell's difference, the likeliest first.
pub fn causes(e: &Evidence) -> Vec<Cause> {
    let mut all: Vec<Cause> = FINDERS.iter().flat_map(|f| f(e)).collect();
    all.sort_by_key(|c| std::cmp::Reverse(c.weight));
    all
}

fn cause(kind: CauseKind, weight: u8, text: String) -> Vec<Cause> {
    vec![Cause { kind, text, weight }]
}

/// The cache regimes differ: the two numbers measure different things.
fn regime(e: &Evidence) -> Vec<Cause> {
    let Some((old, new)) = e.regimes_differ else {
        return Vec::new();
    };
    let (a, b) = e.names();
    cause(
        CauseKind::Regime,
        95,
        format!(
            "the cache regime differs: {a} {old}, {b} {new}: the two numbers measure different things"
        ),
    )
}

/// A setting's value without its explanation ("yes (fio's invalidate=1)" → "yes").
fn gist(value: &str) -> &str {
    value.split(" (").next().unwrap_or(value).trim()
}

/// Each setting both recorded with different values, in SETTINGS' order.
fn settings(e: &Evidence) -> Vec<Cause> {
    let (Some(old), Some(new)) = e.recorded() else {
        return Vec::new();
    };
    let (a, b) = e.names();
    SETTINGS
        .iter()
        .enumerate()
        .filter_map(|(i, key)| {
            let (x, y) = (old.settings.get(*key)?, new.settings.get(*key)?);
            if gist(x) == gist(y) {
                return None;
            }
            // What the latency is of changes no rate.
            let weight = if *key == LATENCY_OF {
                30
            } else {
                90 - 3 * i as u8
            };
            Some(Cause {
                kind: CauseKind::Setting,
                text: format!("{key}: {a} {x}, {b} {y}"),
                weight,
            })
        })
        .collect()
}

/// The tools (or their versions) differ.
fn tool(e: &Evidence) -> Vec<Cause> {
    let [Some(x), Some(y)] = e.tools else {
        return Vec::new();
    };
    let (a, b) = e.names();
    if x.name != y.name {
        cause(
            CauseKind::Tool,
            60,
            format!(
                "the tools differ: {a} was measured by {}, {b} by {}: each tool's own loop, timing and bookkeeping",
                x.words(),
                y.words()
            ),
        )
    } else if x.version != y.version {
        cause(
            CauseKind::Tool,
            45,
            format!("the versions differ: {a} {}, {b} {}", x.words(), y.words()),
        )
    } else {
        Vec::new()
    }
}

/// How likely a difference of this topic changes a rate.
fn topic_weight(topic: Topic) -> u8 {
    match topic {
        Topic::Mount | Topic::FileSystem => 72,
        Topic::Device | Topic::Network => 68,
        Topic::PageCache => 64,
        Topic::Platform => 56,
        Topic::Machine => 50,
        Topic::Sockets => 30,
    }
}

/// Each environment setting that differs (the first few, then a count).
fn environment(e: &Evidence) -> Vec<Cause> {
    const NAMED: usize = 6;
    let Some(diffs) = e.environment else {
        return Vec::new();
    };
    let (a, b) = e.names();
    let unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "unknown".into());
    let mut out: Vec<Cause> = diffs
        .iter()
        .take(NAMED)
        .map(|d| Cause {
            kind: CauseKind::Environment,
            text: format!(
                "{} ({}): {a} {}, {b} {}",
                d.name,
                d.topic.words(),
                unknown(&d.old),
                unknown(&d.new)
            ),
            weight: topic_weight(d.topic),
        })
        .collect();
    if diffs.len() > NAMED {
        out.push(Cause {
            kind: CauseKind::Environment,
            text: format!(
                "and {} more environment settings differ",
                diffs.len() - NAMED
            ),
            weight: 40,
        });
    }
    out
}

/// A duration in words: "12.1 ms", "3.40 µs".
fn ns_words(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.1} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

/// What measuring cost: page faults in the timed region (ioz takes none of
/// its own), CPU or context switches per operation well apart.
fn own_cost(e: &Evidence) -> Vec<Cause> {
    let (Some(old), Some(new)) = e.recorded() else {
        return Vec::new();
    };
    let (a, b) = e.names();
    let mut out = Vec::new();
    for (name, r) in [(a, old), (b, new)] {
        if let Some(faults) = r.cost.and_then(|c| c.own_faults).filter(|f| *f > 0) {
            out.extend(cause(
                CauseKind::OwnCost,
                58,
                format!("{name}'s timed regions took {faults} page faults of the tool's own (ioz's loop should take none)"),
            ));
        }
    }
    let (Some(x), Some(y)) = (old.cost, new.cost) else {
        return out;
    };
    if let (Some(p), Some(q)) = (x.cpu_ns_per_op, y.cpu_ns_per_op)
        && p > 0.0
        && q > 0.0
        && (p / q).max(q / p) >= 1.3
    {
        let (more, less, m, l) = if q > p { (b, a, q, p) } else { (a, b, p, q) };
        out.extend(cause(
            CauseKind::OwnCost,
            50,
            format!(
                "{more} spent {:.2}× {less}'s CPU per operation ({} against {})",
                m / l,
                ns_words(m),
                ns_words(l)
            ),
        ));
    }
    if let (Some(p), Some(q)) = (x.switches_per_op, y.switches_per_op)
        && (p - q).abs() >= 0.05
        && (p.max(q) / p.min(q).max(1e-9)) >= 2.0
    {
        out.extend(cause(
            CauseKind::OwnCost,
            44,
            format!("context switches per operation: {a} {p:.3}, {b} {q:.3}"),
        ));
    }
    out
}

/// Workers (or ranks) that started well apart: the later ones ran while
/// the earlier had less competition.
fn start_skew(e: &Evidence) -> Vec<Cause> {
    let (old, new) = e.recorded();
    let (a, b) = e.names();
    let mut out = Vec::new();
    for (name, r) in [(a, old), (b, new)] {
        let Some(r) = r else { continue };
        if let (Some(skew), Some(elapsed)) = (r.start_skew_ns, r.elapsed_ns)
            && elapsed > 0
            && skew as f64 / elapsed as f64 >= 0.02
        {
            out.extend(cause(
                CauseKind::StartSkew,
                52,
                format!(
                    "{name}'s workers started up to {} apart ({:.1} % of its {})",
                    ns_words(skew as f64),
                    100.0 * skew as f64 / elapsed as f64,
                    ns_words(elapsed as f64)
                ),
            ));
        }
    }
    out
}

/// What a series of intervals shows, if anything: a stall, or a cliff.
fn shape(series: &[Interval]) -> Option<(u8, String)> {
    // The keeper saw an operation in flight through a whole interval.
    if let Some((i, held)) = series
        .iter()
        .find_map(|i| i.oldest_in_flight_ns.map(|held| (i, held)))
    {
        return Some((
            58,
            format!(
                "stalled at {}: one operation in flight for {} with none completing",
                ns_words(i.start_ns as f64),
                ns_words(held as f64)
            ),
        ));
    }
    let whole: Vec<&Interval> = series.iter().filter(|i| !i.partial).collect();
    if whole.len() < 3 {
        return None;
    }
    let rates: Vec<f64> = whole.iter().map(|i| i.kb_per_sec()).collect();
    let mut sorted = rates.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    if median <= 0.0 {
        return None;
    }
    if let Some((i, r)) = rates.iter().enumerate().find(|(_, r)| **r < 0.1 * median) {
        return Some((
            55,
            format!(
                "stalled at {}: an interval at {:.0} % of its median rate",
                ns_words(whole[i].start_ns as f64),
                100.0 * r / median
            ),
        ));
    }
    let third = rates.len() / 3;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let (first, last) = (
        mean(&rates[..third.max(1)]),
        mean(&rates[rates.len() - third.max(1)..]),
    );
    if first > 0.0 && last < 0.5 * first {
        let at = whole[rates.len() - third.max(1)].start_ns;
        return Some((
            55,
            format!(
                "its rate fell {:.0} % by {} (the first third's mean {:.0} kB/s, the last's {:.0}): a flush cliff, or a cache filling",
                100.0 * (1.0 - last / first),
                ns_words(at as f64),
                first,
                last
            ),
        ));
    }
    None
}

/// The rate's course over the run: a stall or a cliff in one side's
/// intervals, or a swing far wider than the other's.
fn series(e: &Evidence) -> Vec<Cause> {
    let (a, b) = e.names();
    let mut out = Vec::new();
    for (name, samples) in [(a, e.samples[0]), (b, e.samples[1])] {
        if let Some(s) = samples.series.get(&e.cell)
            && let Some((weight, words)) = shape(s)
        {
            out.extend(cause(
                CauseKind::Series,
                weight,
                format!("{name}'s {words}"),
            ));
        }
    }
    if !out.is_empty() {
        return out;
    }
    let (old, new) = e.recorded();
    let spread = |r: Option<&Recorded>| r.and_then(|r| r.spread);
    let words = |s: &Spread| {
        format!(
            "cv {:.0} % over {} samples ({:.0} to {:.0} kB/s)",
            100.0 * s.cv(),
            s.samples,
            s.min,
            s.max
        )
    };
    match (spread(old), spread(new)) {
        (Some(x), Some(y)) => {
            let (wide, narrow, w, n) = if y.cv() > x.cv() {
                (b, a, y, x)
            } else {
                (a, b, x, y)
            };
            if w.cv() >= 0.25 && w.cv() >= 2.0 * n.cv() {
                out.extend(cause(
                    CauseKind::Series,
                    48,
                    format!(
                        "{wide}'s rate swung within its run: {}, {narrow}'s cv {:.0} %",
                        words(&w),
                        100.0 * n.cv()
                    ),
                ));
            }
        }
        (Some(s), None) | (None, Some(s)) if s.cv() >= 0.25 => {
            let name = if spread(old).is_some() { a } else { b };
            out.extend(cause(
                CauseKind::Series,
                40,
                format!("{name}'s rate swung within its run: {}", words(&s)),
            ));
        }
        _ => {}
    }
    out
}

/// Too few samples to say much: one a side (no test), or a handful.
fn samples(e: &Evidence) -> Vec<Cause> {
    let (a, b) = e.names();
    let [n, m] = e.counts;
    if e.band_only {
        let one: Vec<&str> = [(a, n), (b, m)]
            .iter()
            .filter(|(_, k)| *k < 2)
            .map(|(name, _)| *name)
            .collect();
        return cause(
            CauseKind::Samples,
            20,
            format!(
                "one sample on {}'s side: no test, the verdict rests on the ±{} % band alone (repeat the measurement: ioz --runs, IOR -i, fio's loops)",
                one.join(" and "),
                e.band_percent
            ),
        );
    }
    if n.min(m) < 5 {
        return cause(
            CauseKind::Samples,
            15,
            format!("few samples: {a} {n}, {b} {m}: the interval is wide"),
        );
    }
    Vec::new()
}

#[cfg(test)]
mod tests;
