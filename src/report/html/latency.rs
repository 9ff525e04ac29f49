//! `--latency` in the HTML report: for each pass, its p50 and p99 against
//! file size with a line per record size (single and auto mode) and the CDF
//! of one cell (the largest file at the smallest record); in throughput
//! mode the CDF of every phase, a panel per test and a line per worker
//! count, every panel on one latency axis. Drawn with the web pages' kit
//! (report::web) at each chart's own size, keys beside the curves, never
//! over them: lines and text only, so the page stays self-contained and
//! small.

use std::fmt::Write;

use crate::model::histogram::{LatencyHistogram, LatencySummary, bucket_bounds, bucket_of};
use crate::model::result::{PhaseResult, RunResult};
use crate::model::units::Size;
use crate::model::workload::Pass;
use crate::report::web::{
    Anchor, Axis, Frame, Margins, Paint, Panels, Svg, Text, TextSize, esc, micros, ordered,
};

/// The percentiles chart: its canvas, its plot area, and the key to its
/// right (a line per record size).
const W: f64 = 760.0;
const H: f64 = 400.0;
const FRAME: Frame = Frame {
    left: 80.0,
    top: 40.0,
    right: 590.0,
    bottom: 340.0,
};

/// The widest chart: the report's column, less its padding.
const MAX_WIDTH: f64 = 1280.0;

/// The throughput phases' panels: plot area, the room around it, the head
/// (title and key) above them all.
const PANEL: (f64, f64) = (330.0, 200.0);
const PANEL_MARGINS: Margins = Margins {
    left: 72.0,
    top: 26.0,
    right: 20.0,
    bottom: 50.0,
};

/// How a phase's line is dashed by the repetition it belongs to (`--runs`):
/// the first solid.
const RUN_DASHES: [Option<&str>; 3] = [None, Some("6 4"), Some("2 3")];

/// The latency section, empty without `--latency`.
pub(super) fn latency_section(h: &mut String, result: &RunResult) {
    if !result.config.latency.histograms {
        return;
    }
    h.push_str("<section id=\"latency\">\n<h2>Latency</h2>\n");
    let sum = result
        .summed_words()
        .map(|s| format!(" Each chart is of every client's operations together ({s})."))
        .unwrap_or_default();
    let _ = writeln!(
        h,
        "<p>Every operation timed (<code>--latency</code>); percentiles within 0.8 %.{} \
         The text output holds the full table.</p>",
        esc(&sum)
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
            cdf(h, pass, &label, summary);
        }
    }
    let phases: Vec<&PhaseResult> = result
        .throughput
        .iter()
        .filter(|p| p.latency.is_some())
        .collect();
    if !phases.is_empty() {
        h.push_str("<h3>Throughput phases</h3>\n");
        phase_panels(h, result, &phases);
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

/// A chart in its figure, drawn at its own size, with its caption under it.
fn figure(h: &mut String, svg: Svg, caption: &str) {
    let _ = writeln!(
        h,
        "<figure class=\"latency-chart\">{}<figcaption>{}</figcaption></figure>",
        svg.finish(),
        esc(caption)
    );
}

/// "1 worker", "4 workers".
fn workers(n: u32) -> String {
    match n {
        1 => "1 worker".to_string(),
        n => format!("{n} workers"),
    }
}

/// p50 (dashed) and p99 (solid) against file size, a line per record size,
/// their key to the right of the plot area.
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
    // The key needs a row per record size and two for the line styles.
    let height = H.max(FRAME.top + 16.0 * (records.len() + 3) as f64 + 20.0);
    let title = format!("{}: p50 and p99 by file size", pass.name());
    let mut svg = Svg::new(W, height, &title);
    svg.text(Text::new(FRAME.left, 18.0, &title).size(TextSize::Heading));
    FRAME.outline(&mut svg, "#999");
    FRAME.draw_y(&mut svg, &y_axis);
    FRAME.draw_x(&mut svg, &x_axis);
    let key_x = FRAME.right + 16.0;
    for (k, &r) in records.iter().enumerate() {
        let colour = ordered(k, records.len());
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
            let paint = Paint::stroke(&colour).width(2.0);
            svg.polyline(&line, dash.map_or(paint, |d| paint.dash(d)));
            for (p, &(x, y, us)) in row.iter().zip(&at) {
                let tip = format!(
                    "file {}, record {}: {name} {}",
                    Size(p.0),
                    Size(r),
                    micros(us)
                );
                svg.circle((x, y), 3.0, Paint::fill(&colour), Some(&tip));
            }
        }
        let y = FRAME.top + 12.0 + 16.0 * k as f64;
        svg.key((key_x, y), &colour, &format!("record {}", Size(r)));
    }
    line_styles(
        &mut svg,
        key_x,
        FRAME.top + 12.0 + 16.0 * (records.len() as f64 + 0.5),
    );
    figure(
        h,
        svg,
        &format!(
            "{}: p99 (solid) and p50 (dashed) latency against file size, a line per record size",
            pass.name()
        ),
    );
}

/// The key of the percentiles' line styles, from `y` down.
fn line_styles(svg: &mut Svg, x: f64, y: f64) {
    for (i, (name, dash)) in [("p99", None), ("p50", Some("5 4"))]
        .into_iter()
        .enumerate()
    {
        let y = y + 16.0 * i as f64;
        let paint = Paint::stroke("#333").width(2.0);
        svg.line(
            (x, y - 4.0),
            (x + 24.0, y - 4.0),
            dash.map_or(paint, |d| paint.dash(d)),
        );
        svg.text(Text::new(x + 30.0, y, name));
    }
}

/// The points of a histogram's CDF: at each bucket's upper bound, the
/// fraction of operations at or below it (µs, fraction), from `lo_us`.
fn cdf_points(summary: &LatencySummary, lo_us: f64) -> Vec<(f64, f64)> {
    let histogram = LatencyHistogram::from_summary(summary);
    let total = histogram.count().max(1) as f64;
    let mut seen = 0u64;
    let mut points = vec![(lo_us, 0.0)];
    for b in &summary.buckets {
        seen += b.count;
        let (_, high) = bucket_bounds(bucket_of(b.low_ns));
        let us = high.min(summary.max_ns) as f64 / 1e3;
        points.push((us, seen as f64 / total));
    }
    points
}

/// The fraction axis of every CDF.
fn fraction_axis() -> Axis {
    Axis::fraction(&[0.0, 0.25, 0.5, 0.75, 0.9, 1.0], "fraction of operations")
}

/// The CDF of one cell's operations, on a log µs axis.
fn cdf(h: &mut String, pass: Pass, label: &str, summary: &LatencySummary) {
    let lo = summary.min_ns as f64 / 1e3;
    let hi = summary.max_ns as f64 / 1e3;
    let x_axis = Axis::latency_decades(lo, hi);
    let y_axis = fraction_axis();
    let title = format!("CDF: {} — {label}", pass.name());
    let mut svg = Svg::new(W, H, &title);
    svg.text(Text::new(FRAME.left, 18.0, &title).size(TextSize::Heading));
    FRAME.outline(&mut svg, "#999");
    FRAME.draw_x(&mut svg, &x_axis);
    FRAME.draw_y(&mut svg, &y_axis);
    let colour = ordered(0, 1);
    let line: Vec<(f64, f64)> = cdf_points(summary, lo)
        .into_iter()
        .map(|(us, f)| (FRAME.x(x_axis.at(us)), FRAME.y(y_axis.at(f))))
        .collect();
    svg.polyline(&line, Paint::stroke(&colour).width(2.0));
    figure(
        h,
        svg,
        &format!(
            "Fraction of operations at or below a latency: {} — {label}",
            pass.name()
        ),
    );
}

/// The CDF of several histograms on one log µs axis, a line per
/// histogram (a metadata operation's force factors or iterations), the
/// key beside the plot area.
pub(super) fn cdf_lines(h: &mut String, title: &str, lines: &[(String, &LatencySummary)]) {
    let lo = lines.iter().map(|l| l.1.min_ns).min().unwrap_or(1) as f64 / 1e3;
    let hi = lines.iter().map(|l| l.1.max_ns).max().unwrap_or(1) as f64 / 1e3;
    let x_axis = Axis::latency_decades(lo, hi);
    let y_axis = fraction_axis();
    let heading = format!("CDF: {title}");
    let mut svg = Svg::new(W, H, &heading);
    svg.text(Text::new(FRAME.left, 18.0, &heading).size(TextSize::Heading));
    FRAME.outline(&mut svg, "#999");
    FRAME.draw_x(&mut svg, &x_axis);
    FRAME.draw_y(&mut svg, &y_axis);
    for (k, (label, summary)) in lines.iter().enumerate() {
        let colour = ordered(k, lines.len());
        let line: Vec<(f64, f64)> = cdf_points(summary, lo)
            .into_iter()
            .map(|(us, f)| (FRAME.x(x_axis.at(us)), FRAME.y(y_axis.at(f))))
            .collect();
        svg.polyline(&line, Paint::stroke(&colour).width(2.0));
        svg.key(
            (FRAME.right + 20.0, FRAME.top + 12.0 + 16.0 * k as f64),
            &colour,
            label,
        );
    }
    figure(
        h,
        svg,
        &format!("Fraction of operations at or below a latency: {title}"),
    );
}

/// Every throughput phase's CDF: a panel per test, a line per worker count
/// (dashed by repetition with `--runs`), all on one latency axis, the key
/// of worker counts above the panels.
fn phase_panels(h: &mut String, result: &RunResult, phases: &[&PhaseResult]) {
    let mut tests: Vec<Pass> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    for p in phases {
        if !tests.contains(&p.pass) {
            tests.push(p.pass);
        }
        if !counts.contains(&p.workers) {
            counts.push(p.workers);
        }
    }
    counts.sort_unstable();
    let summaries = || phases.iter().filter_map(|p| p.latency.as_ref());
    let lo = summaries().map(|l| l.min_ns).min().unwrap_or(1) as f64 / 1e3;
    let hi = summaries().map(|l| l.max_ns).max().unwrap_or(1) as f64 / 1e3;
    let x_axis = Axis::latency_decades(lo, hi);
    let y_axis = fraction_axis();
    let runs = phases.iter().map(|p| p.run).max().unwrap_or(0) + 1;
    let head = 60.0 + if runs > 1 { 18.0 } else { 0.0 };
    let panels = Panels::new(tests.len(), PANEL, PANEL_MARGINS, head, MAX_WIDTH);
    let title = "CDF of every phase: a panel per test, a line per worker count";
    let mut svg = Svg::new(panels.width(), panels.height(), title);
    svg.text(Text::new(10.0, 18.0, title).size(TextSize::Heading));
    // The key: one colour per worker count, in a row.
    let mut x = 10.0;
    for (k, &n) in counts.iter().enumerate() {
        let label = workers(n);
        svg.key((x, 44.0), &ordered(k, counts.len()), &label);
        x += 16.0 + TextSize::Body.width_of(&label) + 18.0;
    }
    if runs > 1 {
        svg.text(
            Text::new(
                10.0,
                64.0,
                "run 1 solid, run 2 dashed, run 3 dotted (--runs)",
            )
            .size(TextSize::Small),
        );
    }
    for (i, &pass) in tests.iter().enumerate() {
        let frame = panels.frame(i);
        svg.text(
            Text::new(frame.left, frame.top - 8.0, pass.name())
                .size(TextSize::Heading)
                .anchor(Anchor::Start),
        );
        frame.outline(&mut svg, "#999");
        frame.draw_x(&mut svg, &x_axis);
        let y = if panels.starts_row(i) {
            y_axis.clone()
        } else {
            y_axis.clone().titled("")
        };
        frame.draw_y(&mut svg, &y);
        for p in phases.iter().filter(|p| p.pass == pass) {
            let Some(summary) = &p.latency else { continue };
            let k = counts.iter().position(|&n| n == p.workers).unwrap_or(0);
            let colour = ordered(k, counts.len());
            let line: Vec<(f64, f64)> = cdf_points(summary, lo)
                .into_iter()
                .map(|(us, f)| (frame.x(x_axis.at(us)), frame.y(y_axis.at(f))))
                .collect();
            let paint = Paint::stroke(&colour).width(2.0);
            let dash = RUN_DASHES[p.run as usize % RUN_DASHES.len()];
            svg.polyline(&line, dash.map_or(paint, |d| paint.dash(d)));
            // The median's point, with the phase's numbers.
            if let Some(ns) = summary.at(50.0) {
                let us = ns as f64 / 1e3;
                let tip = format!(
                    "{} ({}{}): p50 {}, p99 {}, {} operations",
                    pass.name(),
                    workers(p.workers),
                    if runs > 1 {
                        format!(", run {}", p.run + 1)
                    } else {
                        String::new()
                    },
                    micros(us),
                    summary
                        .at(99.0)
                        .map_or("-".to_string(), |v| micros(v as f64 / 1e3)),
                    summary.count
                );
                let at = (frame.x(x_axis.at(us)), frame.y(y_axis.at(0.5)));
                svg.circle(at, 3.0, Paint::fill(&colour), Some(&tip));
            }
        }
    }
    let sum = result
        .summed_words()
        .map(|s| format!(" ({s})"))
        .unwrap_or_default();
    figure(
        h,
        svg,
        &format!(
            "Fraction of operations at or below a latency, every worker's operations of each \
             phase{sum}: {} phases, a panel per test, a line per worker count",
            phases.len()
        ),
    );
}
