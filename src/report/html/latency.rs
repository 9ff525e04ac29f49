//! `--latency` in the HTML report: for each pass, its p50 and p99 against
//! file size with a line per record size (single and auto mode), and the
//! CDF of one cell (the largest file at the smallest record; in throughput
//! mode each phase) on a log latency axis. Drawn here as plain SVG: lines
//! and text only, so the page stays self-contained and small.

use std::fmt::Write;

use super::esc;
use crate::model::histogram::{LatencyHistogram, LatencySummary, bucket_bounds, bucket_of};
use crate::model::result::RunResult;
use crate::model::units::Size;
use crate::model::workload::Pass;

const W: f64 = 760.0;
const H: f64 = 400.0;
/// Plot area: left, top, right, bottom.
const AREA: (f64, f64, f64, f64) = (80.0, 30.0, 740.0, 340.0);
const COLORS: [&str; 8] = [
    "#5e3c99", "#3168be", "#1796a0", "#34a048", "#a09614", "#eb8214", "#d73228", "#8c1e3c",
];

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
        let lines: Vec<(String, &LatencySummary)> = phases.into_iter().take(COLORS.len()).collect();
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

/// A log10 axis over [lo, hi] (positive), widened to whole decades.
fn decades(lo: f64, hi: f64) -> (f64, f64) {
    let a = lo.max(1e-3).log10().floor();
    let b = hi.max(lo * 10.0).log10().ceil();
    (a, b.max(a + 1.0))
}

fn svg_open(h: &mut String, title: &str) {
    let _ = writeln!(
        h,
        "<figure class=\"chart\"><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" \
         font-family=\"sans-serif\" font-size=\"12\"><title>{}</title>\
         <rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>",
        esc(title),
        AREA.0,
        AREA.1,
        AREA.2 - AREA.0,
        AREA.3 - AREA.1
    );
}

fn svg_close(h: &mut String, caption: &str) {
    let _ = writeln!(
        h,
        "</svg><figcaption>{}</figcaption></figure>",
        esc(caption)
    );
}

/// Ticks and labels of a log10 µs axis, vertical (y) or horizontal (x).
fn micro_axis(h: &mut String, (a, b): (f64, f64), vertical: bool) {
    let mut d = a;
    while d <= b {
        let label = micros_label(10f64.powf(d));
        let t = (d - a) / (b - a);
        if vertical {
            let y = AREA.3 - t * (AREA.3 - AREA.1);
            let _ = write!(
                h,
                "<line x1=\"{}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
                 <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{label}</text>",
                AREA.0,
                AREA.2,
                AREA.0 - 6.0,
                y + 4.0
            );
        } else {
            let x = AREA.0 + t * (AREA.2 - AREA.0);
            let _ = write!(
                h,
                "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{}\" stroke=\"#eee\"/>\
                 <text x=\"{x:.1}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
                AREA.1,
                AREA.3,
                AREA.3 + 18.0
            );
        }
        d += 1.0;
    }
}

fn micros_label(us: f64) -> String {
    if us >= 1e6 {
        format!("{} s", us / 1e6)
    } else if us >= 1e3 {
        format!("{} ms", us / 1e3)
    } else {
        format!("{us} µs")
    }
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
    let ys = decades(lo, hi);
    let x_of = |file: u64| {
        let k = files.iter().position(|&f| f == file).unwrap_or(0) as f64;
        let n = (files.len().max(2) - 1) as f64;
        let t = if files.len() == 1 { 0.5 } else { k / n };
        AREA.0 + 20.0 + t * (AREA.2 - AREA.0 - 40.0)
    };
    let y_of = |us: f64| {
        let t = (us.max(1e-3).log10() - ys.0) / (ys.1 - ys.0);
        AREA.3 - t * (AREA.3 - AREA.1)
    };
    svg_open(h, &format!("{}: p50 and p99 by file size", pass.name()));
    micro_axis(h, ys, true);
    for &f in &files {
        let _ = write!(
            h,
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x_of(f),
            AREA.3 + 18.0,
            esc(&Size(f).to_string())
        );
    }
    let _ = write!(
        h,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">file size</text>",
        (AREA.0 + AREA.2) / 2.0,
        AREA.3 + 40.0
    );
    for (k, &r) in records.iter().enumerate() {
        let color = COLORS[(k * 3) % COLORS.len()];
        let mut row: Vec<&(u64, u64, f64, f64)> = points.iter().filter(|p| p.1 == r).collect();
        row.sort_by_key(|p| p.0);
        for (value, dash) in [(3usize, ""), (2, " stroke-dasharray=\"5 4\"")] {
            let coords: Vec<String> = row
                .iter()
                .map(|p| {
                    let v = if value == 3 { p.3 } else { p.2 };
                    format!("{:.1},{:.1}", x_of(p.0), y_of(v))
                })
                .collect();
            let _ = write!(
                h,
                "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"{dash} points=\"{}\"/>",
                coords.join(" ")
            );
            for c in &coords {
                let (x, y) = c.split_once(',').unwrap_or(("0", "0"));
                let _ = write!(
                    h,
                    "<circle cx=\"{x}\" cy=\"{y}\" r=\"3\" fill=\"{color}\"/>"
                );
            }
        }
        let _ = write!(
            h,
            "<text x=\"{}\" y=\"{}\" fill=\"{color}\">record {}</text>",
            AREA.2 - 110.0,
            AREA.1 + 16.0 + 16.0 * k as f64,
            esc(&Size(r).to_string())
        );
    }
    svg_close(
        h,
        &format!(
            "{}: p99 (solid) and p50 (dashed) latency against file size, a line per record size",
            pass.name()
        ),
    );
}

/// The CDF of each histogram: the fraction of operations at or below each
/// bucket's upper bound, on a log µs axis.
fn cdf(h: &mut String, title: &str, lines: &[(String, &LatencySummary)]) {
    let lo = lines.iter().map(|l| l.1.min_ns).min().unwrap_or(1) as f64 / 1e3;
    let hi = lines.iter().map(|l| l.1.max_ns).max().unwrap_or(1) as f64 / 1e3;
    let xs = decades(lo, hi);
    let x_of = |us: f64| {
        let t = (us.max(1e-3).log10() - xs.0) / (xs.1 - xs.0);
        AREA.0 + t * (AREA.2 - AREA.0)
    };
    let y_of = |f: f64| AREA.3 - f * (AREA.3 - AREA.1);
    svg_open(h, &format!("CDF: {title}"));
    micro_axis(h, xs, false);
    for q in [0.0, 0.25, 0.5, 0.75, 0.9, 1.0] {
        let y = y_of(q);
        let _ = write!(
            h,
            "<line x1=\"{}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
             <text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            AREA.0,
            AREA.2,
            AREA.0 - 6.0,
            y + 4.0,
            q
        );
    }
    for (k, (label, summary)) in lines.iter().enumerate() {
        let color = COLORS[(k * 3) % COLORS.len()];
        let histogram = LatencyHistogram::from_summary(summary);
        let total = histogram.count().max(1) as f64;
        let mut seen = 0u64;
        let mut coords = vec![format!("{:.1},{:.1}", x_of(lo), y_of(0.0))];
        for b in &summary.buckets {
            seen += b.count;
            let (_, high) = bucket_bounds(bucket_of(b.low_ns));
            let us = high.min(summary.max_ns) as f64 / 1e3;
            coords.push(format!("{:.1},{:.1}", x_of(us), y_of(seen as f64 / total)));
        }
        let _ = write!(
            h,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>\
             <text x=\"{}\" y=\"{}\" fill=\"{color}\">{}</text>",
            coords.join(" "),
            AREA.0 + 10.0,
            AREA.1 + 16.0 + 16.0 * k as f64,
            esc(label)
        );
    }
    let _ = write!(
        h,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">latency (log scale)</text>",
        (AREA.0 + AREA.2) / 2.0,
        AREA.3 + 40.0
    );
    svg_close(
        h,
        &format!("Fraction of operations at or below a latency: {title}"),
    );
}
