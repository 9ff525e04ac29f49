//! A metadata benchmark's HTML (`ioz fileop`, `ioz mdtest` with --html):
//! the table of every operation (rates and latencies, a row per force
//! factor or iteration), then a chart per operation: the CDF of its
//! operations' latencies, a line per force factor (fileop) or iteration
//! (mdtest), drawn with the web pages' kit as --latency's charts are.

use std::fmt::Write as _;

use super::latency::cdf_lines;
use crate::model::histogram::LatencySummary;
use crate::model::metadata::{FILEOP_COLUMNS, MDTEST_ROWS, MetaOp};
use crate::model::metadata_result::{MetaMeasurement, MetadataResult};
use crate::report::web::esc;

/// The operations measured, in the benchmark's order.
pub(super) fn operations(meta: &MetadataResult) -> Vec<MetaOp> {
    FILEOP_COLUMNS
        .iter()
        .chain(MDTEST_ROWS.iter())
        .copied()
        .filter(|op| meta.measurements.iter().any(|m| m.op == *op))
        .collect()
}

/// The section's id of an operation's chart.
pub(super) fn slug(op: MetaOp) -> String {
    format!("op-{}", op.key())
}

/// The results table and a chart per operation.
pub(super) fn metadata_sections(h: &mut String, meta: &MetadataResult, runs: u32) {
    h.push_str("<section id=\"results\">\n<h2>Results</h2>\n");
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"numbers results\">\n<caption>Every \
         operation{}: operations per second (the average: operations over their time; \
         best and worst: one over the fastest and the slowest), and latencies in µs.</caption>",
        if runs > 1 { " in every run" } else { "" }
    );
    h.push_str(
        "<thead><tr><th scope=\"col\">operation</th><th scope=\"col\">X</th>\
         <th scope=\"col\">run</th><th scope=\"col\">items</th><th scope=\"col\">ops/s</th>\
         <th scope=\"col\">best ops/s</th><th scope=\"col\">worst ops/s</th>\
         <th scope=\"col\">p50 µs</th><th scope=\"col\">p99 µs</th><th scope=\"col\">p99.99 µs</th>\
         </tr></thead>\n<tbody>\n",
    );
    let micros = |l: &LatencySummary, p: f64| {
        l.at(p)
            .map_or("–".to_string(), |ns| format!("{:.2}", ns as f64 / 1e3))
    };
    for m in &meta.measurements {
        let _ = writeln!(
            h,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{:.0}</td>\
             <td>{:.0}</td><td>{:.0}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(m.op.name()),
            if m.factor == 0 {
                "–".to_string()
            } else {
                m.factor.to_string()
            },
            m.run + 1,
            m.items,
            m.rate(),
            m.best_rate(),
            m.worst_rate(),
            micros(&m.latency, 50.0),
            micros(&m.latency, 99.0),
            micros(&m.latency, 99.99),
        );
    }
    if meta.measurements.is_empty() {
        h.push_str("<tr><td colspan=\"10\" class=\"none\">nothing was measured</td></tr>\n");
    }
    h.push_str("</tbody></table></div>\n</section>\n");
    for op in operations(meta) {
        let _ = writeln!(
            h,
            "<section id=\"{}\">\n<h2>{}</h2>",
            slug(op),
            esc(op.name())
        );
        let lines: Vec<(String, &LatencySummary)> = meta
            .measurements
            .iter()
            .filter(|m| m.op == op && m.latency.count > 0)
            .map(|m| (label(m, runs), &m.latency))
            .collect();
        if lines.is_empty() {
            h.push_str("<p>No operation was timed.</p>\n");
        } else {
            cdf_lines(h, &format!("{}'s latency", op.name()), &lines);
        }
        h.push_str("</section>\n");
    }
}

/// A line's name: its force factor and run, or its iteration.
fn label(m: &MetaMeasurement, runs: u32) -> String {
    match (m.factor, runs) {
        (0, _) => format!("iteration {}", m.run + 1),
        (x, 1) => format!("X={x}"),
        (x, _) => format!("X={x}, run {}", m.run + 1),
    }
}
