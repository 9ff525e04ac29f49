//! `--latency` in the HTML report: for each pass, its p50 and p99 against
//! file size with a line per record size (single and auto mode), and the
//! CDF of one cell (the largest file at the smallest record; in throughput
//! mode each phase) on a log latency axis. Drawn with the web pages' kit
//! (report::web): lines and text only, so the page stays self-contained
//! and small.

use std::fmt::Write;

use crate::model::histogram::{LatencyHistogram, LatencySummary, bucket_bounds, bucket_of};
use crate::model::result::RunResult;
use crate::model::units::Size;
use crate::model::workload::Pass;
use crate::report::web::{Axis, DISTINCT_LINES, Frame, Paint, Svg, Text, esc, micros, spectrum};

/// Every latency chart's canvas, scaled to its figure's width (at most
/// its own), and its plot area.
const W: f64 = 760.0;
const H: f64 = 400.0;
const FRAME: Frame = Frame {
    left: 80.0,
    top: 30.0,
    right: 740.0,
    bottom: 340.0,
};

/// The latency section, empty without `--latency`.
pub(super) fn latency_section(h: &mut String, result: &RunResult) {
    if !result.config.latency.histograms {
        return;
    }
    h.push_str("<section id=\"latency\">\n<h2>Latency</h2>\n");
    h.push_str(
        "<p>Every operation timed (<code>--latency</code>); percentiles within 0.8 %. \
         The text output holds the full table.</p>\n",
    );
    let mut passes: Vec<Pass> = Vec::new();
    for m in result.cells.iter().flat_map(|c| &c.measurements) {
        if m.latency.is_some() && !passes.contains(&m.pass) {
            passes.push(m.pass);
        }
    }
    for pass in passes {
        let _ = writeln!(h, "<h3>{}</h3>", esc(pass.name()));
        percentiles_by_file_size(h, result, pass);
        if let Some((label, summary)) = chosen_cell(result, pass) {
            cdf(
                h,
                &format!("{} — {label}", pass.name()),
                &[(label.clone(), summary)],
            );
        }
    }
    let phases: Vec<(String, &LatencySummary)> = result
        .throughput
        .iter()
        .filter_map(|p| {
            p.latency
                .as_ref()
                .map(|l| (format!("{} ({} workers)", p.pass.name(), p.workers), l))
        })
        .collect();
    if !phases.is_empty() {
        h.push_str("<h3>Throughput phases</h3>\n");
        let lines: Vec<(String, &LatencySummary)> =
            phases.into_iter().take(DISTINCT_LINES).collect();
        cdf(h, "every worker's operations, per phase", &lines);
    }
    h.push_str("</section>\n");
}

/// The cell whose CDF is drawn: the largest file at its smallest record.
fn chosen_cell(result: &RunResult, pass: Pass) -> Option<(String, &LatencySummary)> {
    result
        .cells
        .iter()
        .flat_map(|c| &c.measurements)
        .filter(|m| m.pass == pass)
        .filter_map(|m| m.latency.as_ref().map(|l| (m, l)))
        .max_by_key(|(m, _)| (m.file_bytes, std::cmp::Reverse(m.record_bytes)))
        .map(|(m, l)| {
            (
                format!(
                    "file {}, record {}",
                    Size(m.file_bytes),
                    Size(m.record_bytes)
                ),
                l,
            )
        })
}

/// A chart in its figure, with its caption under it.
fn figure(h: &mut String, svg: Svg, caption: &str) {
    let _ = writeln!(
        h,
        "<figure class=\"chart\">{}<figcaption>{}</figcaption></figure>",
        svg.finish(),
        esc(caption)
    );
}

/// A chart's canvas with its plot area outlined.
fn canvas(title: &str) -> Svg {
    let mut svg = Svg::fluid(W, H, title);
    FRAME.outline(&mut svg, "#999");
    svg
}

/// p50 (dashed) and p99 (solid) against file size, a line per record size.
fn percentiles_by_file_size(h: &mut String, result: &RunResult, pass: Pass) {
    let points: Vec<(u64, u64, f64, f64)> = result
        .cells
        .iter()
        .flat_map(|c| &c.measurements)
        .filter(|m| m.pass == pass)
        .filter_map(|m| {
            let l = m.latency.as_ref()?;
            Some((
                m.file_bytes,
                m.record_bytes,
                l.at(50.0)? as f64 / 1e3,
                l.at(99.0)? as f64 / 1e3,
            ))
        })
        .collect();
    if points.is_empty() {
        return;
    }
    let mut records: Vec<u64> = points.iter().map(|p| p.1).collect();
    records.sort_unstable();
    records.dedup();
    let mut files: Vec<u64> = points.iter().map(|p| p.0).collect();
    files.sort_unstable();
    files.dedup();
    let lo = points.iter().map(|p| p.2).fold(f64::MAX, f64::min);
    let hi = points.iter().map(|p| p.3).fold(0.0, f64::max);
    let y_axis = Axis::latency_decades(lo, hi);
    let x_axis = Axis::bands(
        files.iter().map(|&f| Size(f).to_string()).collect(),
        "file size",
    );
    let x_of = |file: u64| {
        let k = files.iter().position(|&f| f == file).unwrap_or(0);
        FRAME.x(x_axis.at(k as f64))
    };
    let mut svg = canvas(&format!("{}: p50 and p99 by file size", pass.name()));
    FRAME.draw_y(&mut svg, &y_axis);
    FRAME.draw_x(&mut svg, &x_axis);
    for (k, &r) in records.iter().enumerate() {
        let colour = spectrum(k);
        let mut row: Vec<&(u64, u64, f64, f64)> = points.iter().filter(|p| p.1 == r).collect();
        row.sort_by_key(|p| p.0);
        for (name, dash) in [("p99", None), ("p50", Some("5 4"))] {
            let at: Vec<(f64, f64, f64)> = row
                .iter()
                .map(|p| {
                    let us = if name == "p99" { p.3 } else { p.2 };
                    (x_of(p.0), FRAME.y(y_axis.at(us)), us)
                })
                .collect();
            let line: Vec<(f64, f64)> = at.iter().map(|&(x, y, _)| (x, y)).collect();
            let paint = Paint::stroke(colour).width(2.0);
            svg.polyline(&line, dash.map_or(paint, |d| paint.dash(d)));
            for (p, &(x, y, us)) in row.iter().zip(&at) {
                let tip = format!(
                    "file {}, record {}: {name} {}",
                    Size(p.0),
                    Size(r),
                    micros(us)
                );
                svg.circle((x, y), 3.0, Paint::fill(colour), Some(&tip));
            }
        }
        let label = format!("record {}", Size(r));
        let y = FRAME.top + 16.0 + 16.0 * k as f64;
        svg.text(Text::new(FRAME.right - 110.0, y, &label).fill(colour));
    }
    figure(
        h,
        svg,
        &format!(
            "{}: p99 (solid) and p50 (dashed) latency against file size, a line per record size",
            pass.name()
        ),
    );
}

/// The CDF of each histogram: the fraction of operations at or below each
/// bucket's upper bound, on a log µs axis.
pub(super) fn cdf(h: &mut String, title: &str, lines: &[(String, &LatencySummary)]) {
    let lo = lines.iter().map(|l| l.1.min_ns).min().unwrap_or(1) as f64 / 1e3;
    let hi = lines.iter().map(|l| l.1.max_ns).max().unwrap_or(1) as f64 / 1e3;
    let x_axis = Axis::latency_decades(lo, hi);
    let y_axis = Axis::fraction(&[0.0, 0.25, 0.5, 0.75, 0.9, 1.0], "fraction of operations");
    let at = |us: f64, f: f64| (FRAME.x(x_axis.at(us)), FRAME.y(y_axis.at(f)));
    let mut svg = canvas(&format!("CDF: {title}"));
    FRAME.draw_x(&mut svg, &x_axis);
    FRAME.draw_y(&mut svg, &y_axis);
    for (k, (label, summary)) in lines.iter().enumerate() {
        let colour = spectrum(k);
        let histogram = LatencyHistogram::from_summary(summary);
        let total = histogram.count().max(1) as f64;
        let mut seen = 0u64;
        let mut line = vec![at(lo, 0.0)];
        for b in &summary.buckets {
            seen += b.count;
            let (_, high) = bucket_bounds(bucket_of(b.low_ns));
            let us = high.min(summary.max_ns) as f64 / 1e3;
            line.push(at(us, seen as f64 / total));
        }
        svg.polyline(&line, Paint::stroke(colour).width(2.0));
        let y = FRAME.top + 16.0 + 16.0 * k as f64;
        svg.text(Text::new(FRAME.left + 10.0, y, label).fill(colour));
    }
    figure(
        h,
        svg,
        &format!("Fraction of operations at or below a latency: {title}"),
    );
}
