//! The tables of every number: one row per cell (single and auto mode),
//! one row per phase (throughput mode), in IOzone's units.

use std::fmt::Write as _;

use crate::model::result::RunResult;
use crate::model::units::kb_number;
use crate::model::workload::Pass;
use crate::report::web::esc;

use super::stamp::{cell_mark, phase_mark};

/// A cell's (or phase's) `[INVALID]` (or `[NOT CHECKABLE]`) after its
/// value, its reasons in the title; nothing when valid or unstamped.
fn marked(mark: Option<(&'static str, String)>) -> (String, String) {
    match mark {
        Some((mark, why)) => (
            format!(" title=\"{}\"", esc(&why)),
            format!(" <span class=\"mark\">{mark}</span>"),
        ),
        None => (String::new(), String::new()),
    }
}

/// The results table: one row per cell, one column per reported pass.
pub(super) fn results_table(h: &mut String, result: &RunResult, passes: &[Pass], unit: &str) {
    // The numbers of the text table, exactly; long for an auto run, so
    // folded: each test's grid below shows them by file and record size.
    let _ = writeln!(
        h,
        "<details class=\"all-cells\">\n<summary>Every measurement, one row per cell ({} row{}, in {}, as the text table)</summary>\n<div class=\"scroll\"><table class=\"numbers results\">\n<caption>One row per file size and record size, in run order; values in {}.</caption>",
        result.cells.len(),
        if result.cells.len() == 1 { "" } else { "s" },
        esc(unit),
        esc(unit)
    );
    h.push_str("<thead><tr><th scope=\"col\">file kB</th><th scope=\"col\">record kB</th>");
    for p in passes {
        let _ = write!(h, "<th scope=\"col\">{}</th>", esc(p.name()));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for row in &result.cells {
        let _ = write!(
            h,
            "<tr><th scope=\"row\">{}</th><th scope=\"row\">{}</th>",
            kb_number(row.cell.file_bytes),
            kb_number(row.cell.record_bytes)
        );
        for &p in passes {
            match row.get(p) {
                Some(m) => {
                    let (title, mark) = marked(cell_mark(
                        result,
                        p,
                        row.cell.file_bytes,
                        row.cell.record_bytes,
                    ));
                    let _ = write!(h, "<td{title}>{}{mark}</td>", m.value(result.config.unit));
                }
                None => h.push_str("<td class=\"none\">–</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    if result.cells.is_empty() {
        let _ = writeln!(
            h,
            "<tr><td colspan=\"{}\" class=\"none\">no cell was measured</td></tr>",
            passes.len() + 2
        );
    }
    h.push_str("</tbody></table></div>\n</details>\n");
}

/// Throughput mode: one row per phase (and per run of it, with `--runs`).
pub(super) fn throughput_table(h: &mut String, result: &RunResult, unit: &str) {
    let u = result.config.unit;
    let repeated = result.throughput.iter().any(|p| p.run > 0);
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"numbers throughput\">\n<caption>One row per phase{}, in run order; rates in {}.</caption>",
        if repeated { " and run" } else { "" },
        esc(unit)
    );
    h.push_str("<thead><tr><th scope=\"col\">pass</th>");
    if repeated {
        h.push_str("<th scope=\"col\">run</th>");
    }
    h.push_str("<th scope=\"col\">workers</th><th scope=\"col\">file kB</th><th scope=\"col\">record kB</th><th scope=\"col\">children see</th><th scope=\"col\">parent sees</th><th scope=\"col\">min</th><th scope=\"col\">max</th><th scope=\"col\">avg</th></tr></thead>\n<tbody>\n");
    for p in &result.throughput {
        let run = if repeated {
            format!("<td>{}</td>", p.run + 1)
        } else {
            String::new()
        };
        let (title, mark) = marked(phase_mark(result, p));
        let _ = writeln!(
            h,
            "<tr{title}><th scope=\"row\">{}{mark}</th>{run}<td>{} {}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td></tr>",
            esc(p.pass.name()),
            p.workers,
            match (p.threads, p.workers) {
                (true, 1) => "thread",
                (true, _) => "threads",
                (false, 1) => "process",
                (false, _) => "processes",
            },
            kb_number(p.file_bytes),
            kb_number(p.record_bytes),
            p.children_see(u),
            p.parent_sees(u),
            p.min_rate(u),
            p.max_rate(u),
            p.avg_rate(u)
        );
    }
    if result.throughput.is_empty() {
        h.push_str("<tr><td colspan=\"9\" class=\"none\">no phase was measured</td></tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}
