//! Charts of `--interval`'s intervals over a pass's time, for the run's
//! report (html/intervals.rs) and `ioz compare`'s page (an overlay of the
//! inputs' series of one pass): each line's rate in each interval as a
//! step over it (a stall, where no operation completed, a shaded gap),
//! page-cache curves (bytes at each interval's end, broken where no sample
//! was taken for a while) on a right axis with the kernel's dirty limit
//! where the curves come near it; and p50/p99 of each interval on a log
//! latency axis.

use super::axis::{Axis, Frame, micros};
use super::canvas::{Anchor, Paint, Path, Svg, Text};
use crate::model::config::OutputUnit;
use crate::model::intervals::{Interval, between_stalls, measured_runs, usual};
use crate::model::units::Size;
use crate::report::plots::rate;

/// Every time chart's canvas (scaled to its figure) and its plot area, with
/// room on the right for the page cache's axis.
pub const TIME_W: f64 = 860.0;
pub const TIME_H: f64 = 420.0;
const FRAME: Frame = Frame {
    left: 80.0,
    top: 46.0,
    right: 760.0,
    bottom: 350.0,
};
const LIMIT: &str = "#b42318";
/// A stall's shading (no series' colour is this pale orange).
const STALL: &str = "#fdb863";
/// Past this many intervals a line's points carry no tooltip each (the
/// page would weigh too much).
const MOST_TIPS: usize = 600;

/// A line of rates: whose intervals, drawn how.
pub struct StepLine<'a> {
    pub label: &'a str,
    pub colour: &'a str,
    pub width: f64,
    /// The area under the steps lightly filled, so that an interval's
    /// weight on the eye is its bytes (a short one's spike stays thin).
    pub filled: bool,
    pub intervals: &'a [Interval],
}

/// A page-cache curve: bytes at each interval's end (ns from the start).
pub struct CacheCurve<'a> {
    pub label: String,
    pub colour: &'a str,
    /// Dashed (a stroke-dasharray), or solid.
    pub dash: Option<&'a str>,
    pub points: Vec<(f64, f64)>,
}

/// The rate's words in a tooltip.
fn rate_words(v: f64, unit: OutputUnit) -> String {
    match unit {
        OutputUnit::KbPerSec => format!("{}/s", Size((v * 1024.0) as u64)),
        OutputUnit::OpsPerSec => format!("{v:.0} ops/s"),
        OutputUnit::MicrosPerOp => format!("{v:.2} µs/op"),
    }
}

/// Where the lines end, ns.
fn end_of(lines: &[StepLine]) -> f64 {
    lines
        .iter()
        .filter_map(|l| l.intervals.last())
        .map(Interval::end_ns)
        .max()
        .unwrap_or(1)
        .max(1) as f64
}

/// A chart's canvas with its frame and its two axes drawn.
fn canvas(title: &str, x_axis: &Axis, y_axis: &Axis) -> Svg {
    let mut svg = Svg::new(TIME_W, TIME_H, title);
    FRAME.outline(&mut svg, "#999");
    FRAME.draw_x(&mut svg, x_axis);
    FRAME.draw_y(&mut svg, y_axis);
    svg
}

/// A legend along the top of the chart, above its frame.
fn legend(svg: &mut Svg, keys: &[(&str, &str)]) {
    let mut x = FRAME.left;
    for &(colour, label) in keys {
        svg.key((x, 22.0), colour, label);
        x += 28.0 + 7.0 * label.chars().count() as f64;
    }
}

/// The rates of `lines` over time, the `cache` curves on the right axis
/// with `limit` (bytes, its label) drawn when the curves come within a
/// factor of two of it. Returns the chart, and whether the limit is on it.
pub fn rate_over_time(
    title: &str,
    lines: &[StepLine],
    cache: &[CacheCurve],
    unit: OutputUnit,
    limit: Option<f64>,
) -> (Svg, bool) {
    let top = lines
        .iter()
        .flat_map(|l| usual(l.intervals))
        .map(|i| rate(i, unit))
        .fold(0.0, f64::max);
    let x_axis = Axis::elapsed(end_of(lines), "time into the pass");
    let y_axis = Axis::rates(unit, top);
    let mut svg = canvas(&format!("{title}: rate over time"), &x_axis, &y_axis);
    let x = |ns: f64| FRAME.x(x_axis.at(ns));
    let mut keys: Vec<(&str, &str)> = Vec::new();
    let mut stalls = false;
    for line in lines {
        // A stall (no operation completed) is a shaded gap, not a step.
        for i in line.intervals.iter().filter(|i| i.stalled()) {
            stalls = true;
            let (x0, x1) = (x(i.start_ns as f64), x(i.end_ns() as f64));
            let tip = format!(
                "{}: {:.3}–{:.3} s: stalled, no operation completed (the oldest in flight for at least {})",
                line.label,
                i.start_ns as f64 / 1e9,
                i.end_ns() as f64 / 1e9,
                micros(i.oldest_in_flight_ns.unwrap_or(0) as f64 / 1e3)
            );
            svg.rect(
                (x0, FRAME.top),
                ((x1 - x0).max(0.5), FRAME.bottom - FRAME.top),
                Paint::fill(STALL).fill_opacity(0.35),
                Some(&tip),
            );
        }
        for run in between_stalls(line.intervals) {
            let mut points = Vec::with_capacity(2 * run.len());
            for i in run {
                let y = FRAME.y(y_axis.at(rate(i, unit)));
                points.push((x(i.start_ns as f64), y));
                points.push((x(i.end_ns() as f64), y));
            }
            if line.filled && !points.is_empty() {
                let (first, last) = (points[0].0, points[points.len() - 1].0);
                let mut area: Vec<(f64, f64)> = vec![(first, FRAME.bottom)];
                area.extend(&points);
                area.push((last, FRAME.bottom));
                svg.path(
                    &Path::polygon(&area),
                    Paint::fill(line.colour).fill_opacity(0.15),
                    None,
                );
            }
            svg.polyline(&points, Paint::stroke(line.colour).width(line.width));
        }
        if line.intervals.len() <= MOST_TIPS {
            for i in line.intervals.iter().filter(|i| !i.stalled()) {
                let v = rate(i, unit);
                let tip = format!(
                    "{}: {:.3}–{:.3} s: {} ({} in {})",
                    line.label,
                    i.start_ns as f64 / 1e9,
                    i.end_ns() as f64 / 1e9,
                    rate_words(v, unit),
                    Size(i.bytes),
                    micros(i.length_ns as f64 / 1e3)
                );
                let middle = i.start_ns as f64 + i.length_ns as f64 / 2.0;
                let at = (x(middle), FRAME.y(y_axis.at(v)));
                svg.circle(at, 2.5, Paint::fill(line.colour), Some(&tip));
            }
        }
        keys.push((line.colour, line.label));
    }
    let most = cache
        .iter()
        .flat_map(|c| &c.points)
        .map(|p| p.1)
        .fold(0.0, f64::max);
    let limit = limit.filter(|&l| most >= 0.5 * l && most <= 2.0 * l);
    if cache.iter().any(|c| !c.points.is_empty()) {
        let right = Axis::bytes(most.max(limit.unwrap_or(0.0)).max(1.0), "page cache");
        FRAME.draw_y_right(&mut svg, &right);
        for curve in cache {
            let points: Vec<(f64, f64)> = curve
                .points
                .iter()
                .map(|&(ns, bytes)| (x(ns), FRAME.y(right.at(bytes))))
                .collect();
            let paint = Paint::stroke(curve.colour).width(1.8);
            // Broken where no sample was taken for a while.
            for run in measured_runs(&curve.points) {
                let at: Vec<(f64, f64)> = run
                    .iter()
                    .map(|&(ns, bytes)| (x(ns), FRAME.y(right.at(bytes))))
                    .collect();
                svg.polyline(&at, curve.dash.map_or(paint, |d| paint.dash(d)));
            }
            if points.len() <= MOST_TIPS {
                for (&(ns, bytes), &at) in curve.points.iter().zip(&points) {
                    let tip = format!(
                        "{} at {:.3} s: {}",
                        curve.label,
                        ns / 1e9,
                        Size(bytes as u64)
                    );
                    svg.circle(at, 2.0, Paint::fill(curve.colour), Some(&tip));
                }
            }
            keys.push((curve.colour, &curve.label));
        }
        if let Some(bytes) = limit {
            let y = FRAME.y(right.at(bytes));
            svg.line(
                (FRAME.left, y),
                (FRAME.right, y),
                Paint::stroke(LIMIT).dash("1 4"),
            );
            let label = format!("dirty limit ≈ {}", Size(bytes as u64));
            svg.text(
                Text::new(FRAME.right - 6.0, y - 4.0, &label)
                    .anchor(Anchor::End)
                    .fill(LIMIT),
            );
        }
    }
    if stalls {
        keys.push((STALL, "stalled: no operation completed"));
    }
    legend(&mut svg, &keys);
    (svg, limit.is_some())
}

/// p99 (solid) and p50 (dashed) of each interval of `lines`, on a log
/// latency axis; `None` when no interval has a histogram (no --latency).
pub fn latency_over_time(title: &str, lines: &[StepLine]) -> Option<Svg> {
    let points: Vec<(usize, f64, f64, f64)> = lines
        .iter()
        .enumerate()
        .flat_map(|(k, l)| {
            l.intervals.iter().filter_map(move |i| {
                let lat = i.latency.as_ref().filter(|l| l.count > 0)?;
                Some((
                    k,
                    i.start_ns as f64 + i.length_ns as f64 / 2.0,
                    lat.at(50.0)? as f64 / 1e3,
                    lat.at(99.0)? as f64 / 1e3,
                ))
            })
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let lo = points.iter().map(|p| p.2).fold(f64::MAX, f64::min);
    let hi = points.iter().map(|p| p.3).fold(0.0, f64::max);
    let x_axis = Axis::elapsed(end_of(lines), "time into the pass");
    let y_axis = Axis::latency_decades(lo, hi);
    let mut svg = canvas(&format!("{title}: latency over time"), &x_axis, &y_axis);
    let mut keys = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let own: Vec<&(usize, f64, f64, f64)> = points.iter().filter(|p| p.0 == k).collect();
        for (p99, dash) in [(true, None), (false, Some("5 4"))] {
            let at: Vec<(f64, f64)> = own
                .iter()
                .map(|p| {
                    let us = if p99 { p.3 } else { p.2 };
                    (FRAME.x(x_axis.at(p.1)), FRAME.y(y_axis.at(us)))
                })
                .collect();
            let paint = Paint::stroke(line.colour).width(1.8);
            svg.polyline(&at, dash.map_or(paint, |d| paint.dash(d)));
        }
        if own.len() <= MOST_TIPS {
            for p in &own {
                let tip = format!(
                    "{}: at {:.3} s: p50 {}, p99 {}",
                    line.label,
                    p.1 / 1e9,
                    micros(p.2),
                    micros(p.3)
                );
                let at = (FRAME.x(x_axis.at(p.1)), FRAME.y(y_axis.at(p.3)));
                svg.circle(at, 2.5, Paint::fill(line.colour), Some(&tip));
            }
        }
        keys.push((line.colour, line.label));
    }
    legend(&mut svg, &keys);
    Some(svg)
}
