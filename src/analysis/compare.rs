//! The comparison of inputs against a baseline, cell by cell: the model
//! every view of `ioz compare` (text, HTML, JSON, CSV, spreadsheet) is a
//! pure function of.
//!
//! For each cell present in both the baseline and an input: both means,
//! the ratio INPUT / BASE (of geometric means, from Welch's t on the log
//! rates) with its 95 % interval, a p-value adjusted across the cells of
//! that pair (Benjamini–Hochberg or Holm), Mann–Whitney's p-value from 9
//! samples a side, and a verdict: faster or slower when the difference is
//! significant AND beyond the band, same otherwise. A cell with fewer than
//! two samples on a side has no p-value: its verdict uses the band alone,
//! and says so ([`Basis::BandOnly`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::adjust::{Adjust, adjust};
use super::mann_whitney::mann_whitney_p;
use super::samples::{CellKey, SampleSet, Tail, Test, higher_is_better};
use super::summary::summarize;
use super::welch::log_welch;
pub use super::why::Tool;
use super::why::{Cause, Evidence, causes};
use crate::model::config::OutputUnit;
use crate::model::env_facts::Difference;
use crate::model::environment::Environment;
use crate::model::intervals::Interval;

/// A difference is significant below this adjusted p-value.
pub const ALPHA: f64 = 0.05;

/// One input as the user named it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Input {
    /// The configuration's name: its label, else the file or directory name.
    pub label: String,
    /// When it was measured, as the input says it (RFC 3339 or IOzone's
    /// `Run began` text), if it does.
    pub date: Option<String>,
    /// The path given on the command line.
    pub source: String,
    /// Runs (files) pooled into it.
    pub runs: usize,
    /// What measured it (the first run's, when several are pooled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<Tool>,
}

/// An input and its samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub input: Input,
    pub samples: SampleSet,
    /// The machine it ran on, when the input recorded it (IOzone's
    /// output does not).
    pub environment: Option<Environment>,
}

/// What the user asked of the statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// `--band`: differences within ± this many percent are "same".
    pub band_percent: f64,
    pub adjust: Adjust,
}

/// One side's samples of a cell, summarised.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Moments {
    pub n: usize,
    pub mean: f64,
    /// `None` with one sample.
    pub sd: Option<f64>,
}

impl Moments {
    /// The moments of a non-empty list (the caller skips empty cells).
    fn of(values: &[f64]) -> Moments {
        match summarize(values) {
            Some(s) => Moments {
                n: s.n,
                mean: s.mean,
                sd: s.sd,
            },
            None => Moments {
                n: 0,
                mean: f64::NAN,
                sd: None,
            },
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Faster,
    Slower,
    Same,
    /// A test whose cells are some faster and some slower (never a cell's).
    Mixed,
}

impl Verdict {
    /// A test's verdict from its cells': faster when some are faster and
    /// none slower, slower the other way, mixed when both, else the same.
    /// The band and the ratio of means play no part: only the cells'
    /// verdicts do, so that a test never says what none of its cells says.
    pub fn of_cells(faster: usize, slower: usize) -> Verdict {
        match (faster > 0, slower > 0) {
            (true, false) => Verdict::Faster,
            (false, true) => Verdict::Slower,
            (true, true) => Verdict::Mixed,
            (false, false) => Verdict::Same,
        }
    }

    /// A ratio's verdict by the band alone (one value a side, or a mean of
    /// several cells' ratios: no test): faster or slower beyond it.
    pub fn of_ratio(ratio: f64, band_percent: f64, higher_is_better: bool) -> Verdict {
        let band = band_percent / 100.0;
        let gain = if higher_is_better { ratio } else { 1.0 / ratio };
        if gain > 1.0 + band {
            Verdict::Faster
        } else if gain < 1.0 - band {
            Verdict::Slower
        } else {
            Verdict::Same
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::Same => "same",
            Verdict::Mixed => "mixed",
        }
    }
}

/// What a verdict rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The adjusted p-value and the band.
    Significance,
    /// The band alone: a side has a single sample, so there is no p-value.
    BandOnly,
}

/// One cell of one pair: BASE against an input.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellComparison {
    pub cell: CellKey,
    pub base: Moments,
    pub other: Moments,
    /// OTHER / BASE, of geometric means (of the values, with one sample each).
    pub ratio: f64,
    /// (ratio − 1) · 100.
    pub percent: f64,
    /// The ratio's 95 % confidence interval (Welch's t on log rates).
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    /// Welch's two-sided p-value, then adjusted across the pair's cells.
    pub p: Option<f64>,
    pub p_adjusted: Option<f64>,
    /// Mann–Whitney's asymptotic p-value (9 or more samples a side), unadjusted.
    pub mann_whitney_p: Option<f64>,
    pub verdict: Verdict,
    pub basis: Basis,
    /// The cell's cache regime on each side ("CPU cache", "page cache",
    /// "device", "uncached (-I)"), when both inputs recorded it and they
    /// differ: the two numbers then measure different things.
    pub regimes_differ: Option<(String, String)>,
    /// When the difference counts (a verdict of faster or slower): what
    /// the two inputs recorded differently, the likeliest cause first
    /// (analysis/why.rs).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<Cause>,
}

impl CellComparison {
    /// How much worse OTHER is than BASE, in percent of BASE's performance
    /// (positive when slower, whatever the unit's direction).
    pub fn slowdown_percent(&self, higher_is_better: bool) -> f64 {
        if higher_is_better {
            -self.percent
        } else {
            self.percent
        }
    }
}

/// The baseline against one input.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Pair {
    pub other: Input,
    /// Cells in both, in report order.
    pub cells: Vec<CellComparison>,
    /// Cells only one side has (not compared).
    pub only_in_base: usize,
    pub only_in_other: usize,
    /// What differs between the baseline's environment and this input's,
    /// setting by setting (empty: nothing); `None` when either input
    /// recorded no environment.
    pub environment_differences: Option<Vec<Difference>>,
    /// With `--latency` on both sides: each cell's p50 and p99 compared
    /// (µs; lower is faster), p-values adjusted among themselves.
    pub latency: Vec<TailComparison>,
}

/// A latency percentile of a cell, compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TailComparison {
    pub tail: Tail,
    #[serde(flatten)]
    pub comparison: CellComparison,
}

/// The whole comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub unit: OutputUnit,
    /// Larger numbers are better (not so for µs per operation).
    pub higher_is_better: bool,
    pub band_percent: f64,
    pub adjust: Adjust,
    pub alpha: f64,
    pub baseline: Input,
    pub pairs: Vec<Pair>,
    /// With `--interval`: each input's series of each cell (the baseline
    /// first, then each pair's), for the page's overlay; not in its JSON.
    #[serde(skip)]
    pub series: Vec<BTreeMap<CellKey, Vec<Interval>>>,
}

/// One test (pass) of a pair summed up over its cells: seed 003's table.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PassSummary {
    pub pass: Test,
    pub cells: usize,
    /// Mean over the cells of each side's mean.
    pub base_mean: f64,
    pub other_mean: f64,
    /// Geometric mean of the cells' ratios.
    pub ratio: f64,
    /// What the cells' verdicts say together ([`Verdict::of_cells`]): a
    /// mean beyond the band over cells none of which differs significantly
    /// is the same.
    pub verdict: Verdict,
    /// The cells whose own verdict is faster, and slower.
    pub cells_faster: usize,
    pub cells_slower: usize,
}

impl Pair {
    /// Each pass of the pair, summed up over its cells, in report order.
    pub fn by_pass(&self) -> Vec<PassSummary> {
        let mut passes: Vec<Test> = self.cells.iter().map(|c| c.cell.pass).collect();
        passes.dedup();
        passes
            .into_iter()
            .map(|pass| {
                let cells: Vec<&CellComparison> =
                    self.cells.iter().filter(|c| c.cell.pass == pass).collect();
                let n = cells.len() as f64;
                let count = |v| cells.iter().filter(|c| c.verdict == v).count();
                let ratio = (cells.iter().map(|c| c.ratio.ln()).sum::<f64>() / n).exp();
                PassSummary {
                    pass,
                    cells: cells.len(),
                    base_mean: cells.iter().map(|c| c.base.mean).sum::<f64>() / n,
                    other_mean: cells.iter().map(|c| c.other.mean).sum::<f64>() / n,
                    ratio,
                    verdict: Verdict::of_cells(count(Verdict::Faster), count(Verdict::Slower)),
                    cells_faster: count(Verdict::Faster),
                    cells_slower: count(Verdict::Slower),
                }
            })
            .collect()
    }
}

impl Comparison {
    /// The cells of every pair slower than BASE by more than `percent` with
    /// a verdict of slower (significant, or beyond the band with one sample).
    pub fn slower_than(&self, percent: f64) -> Vec<(&Input, &CellComparison)> {
        self.pairs
            .iter()
            .flat_map(|pair| pair.cells.iter().map(move |c| (&pair.other, c)))
            .filter(|(_, c)| {
                c.verdict == Verdict::Slower && c.slowdown_percent(self.higher_is_better) > percent
            })
            .collect()
    }
}

/// Compares every input of `others` with `base`. Refused (with the reason)
/// when the inputs are in different units.
pub fn compare(base: &Side, others: &[Side], options: Options) -> Result<Comparison, String> {
    let unit = base.samples.unit;
    for side in others {
        if side.samples.unit != unit {
            return Err(format!(
                "{} is in {} and {} in {}; ioz compares inputs in one unit",
                base.input.source,
                super::samples::unit_name(unit),
                side.input.source,
                super::samples::unit_name(side.samples.unit)
            ));
        }
    }
    let higher = higher_is_better(unit);
    let pairs = others
        .iter()
        .map(|side| pair(base, side, options, higher))
        .collect();
    Ok(Comparison {
        unit,
        higher_is_better: higher,
        band_percent: options.band_percent,
        adjust: options.adjust,
        alpha: ALPHA,
        baseline: base.input.clone(),
        pairs,
        series: std::iter::once(base)
            .chain(others)
            .map(|side| side.samples.series.clone())
            .collect(),
    })
}

fn pair(base_side: &Side, side: &Side, options: Options, higher: bool) -> Pair {
    let base = &base_side.samples;
    let environment_differences = match (&base_side.environment, &side.environment) {
        (Some(old), Some(new)) => Some(old.differences(new)),
        _ => None,
    };
    let usable = |v: &Vec<f64>| -> Vec<f64> {
        v.iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect()
    };
    let mut cells = Vec::new();
    for (key, base_values) in &base.cells {
        let Some(other_values) = side.samples.cells.get(key) else {
            continue;
        };
        // A rate of zero (IOzone prints 0 for a pass that moved nothing)
        // has no logarithm and no ratio: such samples are left out.
        let (b, o) = (usable(base_values), usable(other_values));
        if b.is_empty() || o.is_empty() {
            continue;
        }
        let mut compared = cell(*key, &b, &o);
        // What the page cache held where both sides measured it, else the
        // size-fit guess.
        compared.regimes_differ = match (base.measured.get(key), side.samples.measured.get(key)) {
            (Some(old), Some(new)) => (old.0 != new.0).then(|| {
                // With the guesses' words where they differ too (they say why).
                match (base.regimes.get(key), side.samples.regimes.get(key)) {
                    (Some(g), Some(h)) if g.code() != h.code() => (
                        format!("{}, {}", old.1, g.words()),
                        format!("{}, {}", new.1, h.words()),
                    ),
                    _ => (old.1.clone(), new.1.clone()),
                }
            }),
            _ => match (base.regimes.get(key), side.samples.regimes.get(key)) {
                (Some(old), Some(new)) if old.code() != new.code() => {
                    Some((old.words(), new.words()))
                }
                _ => None,
            },
        };
        cells.push(compared);
    }
    let adjusted = adjust(
        options.adjust,
        &cells.iter().map(|c| c.p).collect::<Vec<_>>(),
    );
    for (c, p_adj) in cells.iter_mut().zip(adjusted) {
        c.p_adjusted = p_adj;
        c.verdict = verdict(c, p_adj, options.band_percent, higher);
    }
    for c in cells.iter_mut().filter(|c| c.verdict != Verdict::Same) {
        c.why = causes(&Evidence {
            names: [&base_side.input.label, &side.input.label],
            tools: [base_side.input.tool.as_ref(), side.input.tool.as_ref()],
            samples: [base, &side.samples],
            cell: c.cell,
            regimes_differ: c.regimes_differ.as_ref(),
            counts: [c.base.n, c.other.n],
            band_only: c.basis == Basis::BandOnly,
            environment: environment_differences.as_deref(),
            band_percent: options.band_percent,
        });
    }
    let compared = cells.len();
    Pair {
        other: side.input.clone(),
        only_in_base: base.cells.len() - compared.min(base.cells.len()),
        only_in_other: side.samples.cells.len() - compared.min(side.samples.cells.len()),
        cells,
        environment_differences,
        latency: tails(base, &side.samples, options),
    }
}

/// The p50 and p99 of every cell both inputs measured with `--latency`:
/// lower is faster; their p-values adjusted as one family (apart from the
/// rates').
fn tails(base: &SampleSet, other: &SampleSet, options: Options) -> Vec<TailComparison> {
    let mut compared: Vec<TailComparison> = base
        .latency
        .iter()
        .filter_map(|(&(key, tail), b)| {
            let o = other.latency.get(&(key, tail))?;
            let positive = |v: &Vec<f64>| -> Vec<f64> {
                v.iter()
                    .copied()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .collect()
            };
            let (b, o) = (positive(b), positive(o));
            (!b.is_empty() && !o.is_empty()).then(|| TailComparison {
                tail,
                comparison: cell(key, &b, &o),
            })
        })
        .collect();
    let adjusted = adjust(
        options.adjust,
        &compared.iter().map(|t| t.comparison.p).collect::<Vec<_>>(),
    );
    for (t, p_adj) in compared.iter_mut().zip(adjusted) {
        t.comparison.p_adjusted = p_adj;
        t.comparison.verdict = verdict(&t.comparison, p_adj, options.band_percent, false);
    }
    compared
}

/// A cell before its p-value is adjusted (verdict: same, for now).
fn cell(key: CellKey, base: &[f64], other: &[f64]) -> CellComparison {
    let welch = log_welch(base, other);
    let ratio = match welch {
        Some(w) => w.ratio,
        // Fewer than two samples on a side: the geometric means' ratio all the same.
        None => {
            let gm = |v: &[f64]| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
            gm(other) / gm(base)
        }
    };
    CellComparison {
        cell: key,
        base: Moments::of(base),
        other: Moments::of(other),
        ratio,
        percent: (ratio - 1.0) * 100.0,
        ci_low: welch.map(|w| w.ci_low),
        ci_high: welch.map(|w| w.ci_high),
        p: welch.map(|w| w.p),
        p_adjusted: None,
        mann_whitney_p: mann_whitney_p(base, other),
        verdict: Verdict::Same,
        basis: if welch.is_some() {
            Basis::Significance
        } else {
            Basis::BandOnly
        },
        regimes_differ: None,
        why: Vec::new(),
    }
}

fn verdict(c: &CellComparison, p_adjusted: Option<f64>, band: f64, higher: bool) -> Verdict {
    let significant = match c.basis {
        Basis::Significance => p_adjusted.is_some_and(|p| p < ALPHA),
        Basis::BandOnly => true,
    };
    if !significant || c.percent.abs() <= band {
        return Verdict::Same;
    }
    if (c.percent > 0.0) == higher {
        Verdict::Faster
    } else {
        Verdict::Slower
    }
}

#[cfg(test)]
mod tests;
