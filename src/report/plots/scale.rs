//! The value axis of every chart: which unit it reads in (MB/s or GB/s by
//! magnitude; ops/s and µs/op for `-O` and `-N`), linear from zero or
//! logarithmic, its ticks, and the colour position of a value. One scale may
//! serve every test of a run (`--plot-scale shared`), so that their panels
//! compare.

use super::axis::{TickedAxis, nice_top, value_ticks};
use crate::model::config::OutputUnit;
use crate::model::result::{Measurement, PassRuns, mean};

/// A pass of a cell in the run's unit, unrounded: the table truncates as
/// IOzone does (a fast small record reads "0 µs/op"), a chart need not.
/// With `--runs`, the mean over the runs.
pub fn measured(m: PassRuns<'_>, unit: OutputUnit) -> f64 {
    mean(m.samples().map(|m| sample_measured(m, unit)))
}

/// One measurement in the run's unit, unrounded.
fn sample_measured(m: &Measurement, unit: OutputUnit) -> f64 {
    let seconds = m.elapsed_ns.max(1) as f64 / 1e9;
    match unit {
        OutputUnit::KbPerSec => m.bytes as f64 / 1024.0 / seconds,
        OutputUnit::OpsPerSec => m.records as f64 / seconds,
        OutputUnit::MicrosPerOp => 1e6 * seconds / m.records.max(1) as f64,
    }
}

/// How values of one chart (or of every chart) are drawn.
#[derive(Clone, Debug)]
pub struct ValueScale {
    /// The unit the axis reads in: "MB/s", "GB/s", "k ops/s", "µs/op".
    pub unit: &'static str,
    /// Multiplies a value in the run's unit (kB/s, ops/s, µs/op) into `unit`.
    factor: f64,
    log: bool,
    /// The smallest and largest value the scale covers, in `unit` (for colours).
    lo: f64,
    hi: f64,
    /// The axis in drawing coordinates: the value in `unit`, or its log10.
    pub(super) axis: TickedAxis,
}

/// The unit a value of `max` (in the run's unit) reads best in, and the factor into it.
fn unit_for(unit: OutputUnit, max: f64) -> (&'static str, f64) {
    match unit {
        // IOzone's kB is 1024 bytes; MB and GB are 10^6 and 10^9 bytes.
        OutputUnit::KbPerSec if max * 1024.0 >= 1e9 => ("GB/s", 1024.0 / 1e9),
        OutputUnit::KbPerSec => ("MB/s", 1024.0 / 1e6),
        OutputUnit::OpsPerSec if max >= 1e7 => ("M ops/s", 1e-6),
        OutputUnit::OpsPerSec if max >= 1e4 => ("k ops/s", 1e-3),
        OutputUnit::OpsPerSec => ("ops/s", 1.0),
        OutputUnit::MicrosPerOp => ("µs/op", 1.0),
    }
}

/// A value axis from zero for a chart drawn without plotters (`ioz
/// compare`'s SVG bars): the readable unit for values up to `max` (in the
/// run's unit), the factor into it, and round ticks from zero, in that
/// unit — the same choices as every plot's axis.
#[derive(Clone, Debug, PartialEq)]
pub struct PlainAxis {
    pub unit: &'static str,
    pub factor: f64,
    pub ticks: Vec<f64>,
}

impl PlainAxis {
    pub fn up_to(unit: OutputUnit, max: f64) -> PlainAxis {
        let (name, factor) = unit_for(unit, max);
        PlainAxis {
            unit: name,
            factor,
            ticks: value_ticks(nice_top(max * factor)),
        }
    }

    /// The top of the axis, in the axis's unit.
    pub fn top(&self) -> f64 {
        self.ticks.last().copied().unwrap_or(1.0)
    }
}

impl ValueScale {
    /// A scale over the values `values` (in the run's unit): linear from zero
    /// to a round top, or (`log`) over the decades they span.
    pub fn over(unit: OutputUnit, values: impl IntoIterator<Item = f64>, log: bool) -> ValueScale {
        let (lo, hi) = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        let (lo, hi) = if lo > hi { (0.0, 0.0) } else { (lo, hi) };
        let (name, factor) = unit_for(unit, hi);
        let (lo, hi) = (lo * factor, hi * factor);
        let axis = if log {
            log_axis(lo, hi)
        } else {
            TickedAxis::new(value_ticks(nice_top(hi)), 0.0)
        };
        ValueScale {
            unit: name,
            factor,
            log,
            lo,
            hi,
            axis,
        }
    }

    /// The drawing coordinate of a value in the run's unit; `None` where a
    /// log axis cannot show it (zero).
    pub(super) fn y(&self, raw: f64) -> Option<f64> {
        let v = raw * self.factor;
        if self.log {
            (v > 0.0).then(|| v.log10())
        } else {
            Some(v)
        }
    }

    /// The bottom and the top of the axis, in drawing coordinates.
    pub(super) fn bottom(&self) -> f64 {
        self.axis.range.start
    }

    pub(super) fn top(&self) -> f64 {
        self.axis.range.end
    }

    /// The label of a tick at drawing coordinate `y`.
    pub(super) fn tick_label(&self, y: f64) -> String {
        number(if self.log { 10f64.powf(y) } else { y })
    }

    /// A value in the run's unit, as a number in this scale's unit ("1234", "5.67").
    pub fn value_text(&self, raw: f64) -> String {
        number(raw * self.factor)
    }

    /// A value in a grid of this scale (the HTML report's): on a linear
    /// scale every value with the decimals that give the scale's largest
    /// value three significant digits, so a column's numbers line up and no
    /// cell is wider than the largest value's (a slow cell reads "0.09", not
    /// "0.0941", and the grid keeps its width whatever was measured); on a
    /// log scale, which spans decades, three significant digits each.
    pub fn grid_text(&self, raw: f64) -> String {
        if self.log || !self.hi.is_finite() || self.hi <= 0.0 {
            return self.value_text(raw);
        }
        let decimals = if self.hi >= 100.0 {
            0
        } else {
            (2 - self.hi.log10().floor() as i32).clamp(0, 9) as usize
        };
        format!("{:.decimals$}", raw * self.factor)
    }

    /// Where a value in the run's unit falls between the smallest and the
    /// largest the scale covers, 0 to 1 (log-spaced on a log axis): its colour.
    pub fn shade(&self, raw: f64) -> f64 {
        let v = raw * self.factor;
        let t = if self.log && self.lo > 0.0 && v > 0.0 {
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        };
        if t.is_finite() {
            t.clamp(0.0, 1.0)
        } else {
            0.5
        }
    }

    /// The smallest and the largest value covered, in the run's unit.
    pub fn extent(&self) -> (f64, f64) {
        (self.lo / self.factor, self.hi / self.factor)
    }

    pub fn is_log(&self) -> bool {
        self.log
    }
}

/// A log axis over whole decades from below `lo` to above `hi` (values in
/// the display unit), ticked at each decade, and at 2 and 5 times it when
/// the decades are few.
fn log_axis(lo: f64, hi: f64) -> TickedAxis {
    let hi = if hi > 0.0 { hi } else { 1.0 };
    let lo = if lo > 0.0 && lo <= hi { lo } else { hi / 10.0 };
    let first = lo.log10().floor();
    let mut last = hi.log10().ceil();
    if last <= first {
        last = first + 1.0;
    }
    let decades = (last - first) as i32;
    let steps: &[f64] = if decades <= 3 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let mut ticks = Vec::new();
    for d in 0..=decades {
        let base = first + f64::from(d);
        for &m in steps {
            let t = base + m.log10();
            if t <= last + 1e-9 {
                ticks.push(t);
            }
        }
    }
    TickedAxis {
        range: first..last,
        ticks,
    }
}

/// A number as people read it: whole above 100, else three significant
/// digits, no trailing zeros ("1234", "56.7", "0.25", "0.001").
pub fn number(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".to_string();
    }
    let a = v.abs();
    let decimals = if a >= 100.0 {
        0
    } else {
        (2 - a.log10().floor() as i32).clamp(0, 9) as usize
    };
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_reads_in_mb_or_gb_per_second_by_magnitude() {
        // 500 000 kB/s = 512 MB/s; 5 000 000 kB/s = 5.12 GB/s.
        let mb = ValueScale::over(OutputUnit::KbPerSec, [1000.0, 500_000.0], false);
        assert_eq!(mb.unit, "MB/s");
        assert_eq!(mb.value_text(500_000.0), "512");
        assert_eq!(mb.tick_label(mb.top()), "600");
        let gb = ValueScale::over(OutputUnit::KbPerSec, [5_000_000.0], false);
        assert_eq!(gb.unit, "GB/s");
        assert_eq!(gb.value_text(5_000_000.0), "5.12");
        assert_eq!(
            ValueScale::over(OutputUnit::OpsPerSec, [250_000.0], false).unit,
            "k ops/s"
        );
        assert_eq!(
            ValueScale::over(OutputUnit::OpsPerSec, [900.0], false).unit,
            "ops/s"
        );
        assert_eq!(
            ValueScale::over(OutputUnit::MicrosPerOp, [90_000.0], false).unit,
            "µs/op"
        );
    }

    #[test]
    fn a_log_scale_spans_whole_decades() {
        let s = ValueScale::over(OutputUnit::KbPerSec, [1000.0, 500_000.0], true);
        // 1.024 to 512 MB/s: 1 to 1000 MB/s.
        assert_eq!((s.bottom(), s.top()), (0.0, 3.0));
        let labels: Vec<String> = s.axis.ticks.iter().map(|&t| s.tick_label(t)).collect();
        assert_eq!(
            labels,
            ["1", "2", "5", "10", "20", "50", "100", "200", "500", "1000"]
        );
        assert_eq!(s.y(0.0), None);
        assert!((s.shade(1000.0)).abs() < 1e-9);
        assert!((s.shade(500_000.0) - 1.0).abs() < 1e-9);
    }

    #[test]
    fn empty_and_flat_scales_still_draw() {
        let s = ValueScale::over(OutputUnit::KbPerSec, [], false);
        assert!(s.top() > s.bottom());
        assert_eq!(s.shade(5.0), 0.5);
        let flat = ValueScale::over(OutputUnit::KbPerSec, [7.0, 7.0], true);
        assert!(flat.top() > flat.bottom());
    }

    #[test]
    fn a_plain_axis_reads_in_gb_per_second_with_round_ticks() {
        // 4.6 GB/s of kB/s (1024 bytes): GB/s, ticks 0, 1, … 5.
        let axis = PlainAxis::up_to(OutputUnit::KbPerSec, 4.6e9 / 1024.0);
        assert_eq!(axis.unit, "GB/s");
        assert_eq!(axis.ticks, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(axis.top(), 5.0);
        let axis = PlainAxis::up_to(OutputUnit::OpsPerSec, 35_000.0);
        assert_eq!(axis.unit, "k ops/s");
    }

    #[test]
    fn grid_values_take_the_decimals_of_the_largest() {
        // kB/s: the largest, 6.05 GB/s, reads with two decimals; so do the rest.
        let kb = |gb: f64| gb * 1e9 / 1024.0;
        let scale = ValueScale::over(OutputUnit::KbPerSec, [kb(0.0941), kb(6.05)], false);
        assert_eq!(scale.unit, "GB/s");
        assert_eq!(scale.grid_text(kb(0.0941)), "0.09");
        assert_eq!(scale.grid_text(kb(6.05)), "6.05");
        assert_eq!(scale.grid_text(kb(1.5)), "1.50");
        // 56.8 GB/s: one decimal; 523 MB/s: none.
        let scale = ValueScale::over(OutputUnit::KbPerSec, [kb(56.8)], false);
        assert_eq!(scale.grid_text(kb(0.26)), "0.3");
        let scale = ValueScale::over(OutputUnit::KbPerSec, [kb(0.523)], false);
        assert_eq!(scale.unit, "MB/s");
        assert_eq!(scale.grid_text(kb(0.0941)), "94");
        // A log scale keeps three significant digits per value.
        let scale = ValueScale::over(OutputUnit::KbPerSec, [kb(0.0941), kb(6.05)], true);
        assert_eq!(scale.grid_text(kb(0.0941)), "0.0941");
    }

    #[test]
    fn numbers_keep_three_significant_digits() {
        assert_eq!(number(1234.56), "1235");
        assert_eq!(number(56.78), "56.8");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(0.001), "0.001");
        assert_eq!(number(5.0), "5");
        assert_eq!(number(0.0), "0");
    }
}
