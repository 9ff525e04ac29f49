//! Axes: round value ranges, their ticks, and the ticked linear axis every
//! chart is built on.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// A round number at or above `v`, a little above it (1, 1.2, 1.5, 2, 2.5, 3,
/// 4, 5, 6 or 8 times a power of ten).
pub fn nice_top(v: f64) -> f64 {
    if v.is_nan() || v <= 0.0 {
        return 1.0;
    }
    let v = v * 1.04;
    let p = 10f64.powf(v.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&t| t >= v)
        .unwrap_or(10.0 * p)
}

/// Ticks for a value axis from 0 to `top` (a [`nice_top`]): 4 to 10 round steps.
pub fn value_ticks(top: f64) -> Vec<f64> {
    let e = top.log10().floor();
    let mut best: Option<(f64, f64)> = None;
    for p in [e - 2.0, e - 1.0, e] {
        for m in [1.0, 2.0, 2.5, 5.0] {
            let step = m * 10f64.powf(p);
            let n = top / step;
            if (n - n.round()).abs() < 1e-6 && (4.0..=10.0).contains(&n.round()) {
                let score = (n.round() - 6.0).abs();
                if best.is_none_or(|(s, _)| score < s) {
                    best = Some((score, step));
                }
            }
        }
    }
    let step = best.map_or(top / 5.0, |(_, s)| s);
    let n = (top / step).round() as usize;
    (0..=n).map(|k| k as f64 * step).collect()
}

/// Ticks for a time axis from 0 to the first round step at or past `end`:
/// time has no headroom to give, so the axis ends where the run did (a 3 s
/// pass reads 0 to 3 s, not 0 to 4 s as [`nice_top`] would make it) or at
/// most one step past it. Steps of 1, 2, 2.5 or 5 times a power of ten,
/// 4 to 10 of them; of those, the least blank past `end`, then the
/// nearest to 6 steps.
pub fn time_ticks(end: f64) -> Vec<f64> {
    if !end.is_finite() || end <= 0.0 {
        return value_ticks(1.0);
    }
    let e = end.log10().floor();
    let mut best: Option<(f64, f64, usize)> = None;
    for p in [e - 2.0, e - 1.0, e] {
        for m in [1.0, 2.0, 2.5, 5.0] {
            let step = m * 10f64.powf(p);
            // An end a rounding error past a step is at that step.
            let n = (end / step - 1e-9).ceil().max(1.0);
            if !(4.0..=10.0).contains(&n) {
                continue;
            }
            let blank = (n * step - end) / end;
            let score = blank + 0.02 * (n - 6.0).abs();
            if best.is_none_or(|(s, _, _)| score < s) {
                best = Some((score, step, n as usize));
            }
        }
    }
    let Some((_, step, n)) = best else {
        return value_ticks(nice_top(end));
    };
    (0..=n).map(|k| k as f64 * step).collect()
}

/// A linear axis with the ticks it is given: log2 sizes (the sizes the run
/// measured) or values (round steps).
#[derive(Clone, Debug)]
pub(super) struct TickedAxis {
    pub(super) range: Range<f64>,
    pub(super) ticks: Vec<f64>,
}

impl TickedAxis {
    /// An axis over `ticks`, `pad` beyond the first and the last.
    pub(super) fn new(ticks: Vec<f64>, pad: f64) -> TickedAxis {
        let lo = ticks.first().copied().unwrap_or(0.0);
        let hi = ticks.last().copied().unwrap_or(1.0);
        TickedAxis {
            range: lo - pad..hi + pad,
            ticks,
        }
    }

    /// At most `max` of the ticks, evenly thinned.
    pub(super) fn thinned(&self, max: usize) -> Vec<f64> {
        let step = self.ticks.len().div_ceil(max.max(1)).max(1);
        self.ticks.iter().step_by(step).copied().collect()
    }
}

impl Ranged for TickedAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = if span > 0.0 {
            (value - self.range.start) / span
        } else {
            0.5
        };
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        self.thinned(hint.max_num_points())
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}
