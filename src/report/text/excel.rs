//! IOzone's `-R` report: "Excel output is below:" and one block per pass, rows
//! of file sizes and columns of record sizes, in IOzone's exact layout.

use std::fmt::Write as _;
use std::io;

use crate::analysis::summary::summarize;
use crate::model::plan::{Cell, Plan, expand};
use crate::model::result::{PassRuns, RunResult, RunStatus};
use crate::model::units::{KIB, kb_number};
use crate::model::workload::Pass;
use crate::report::Exporter;
use crate::report::layout::TableLayout;

pub struct ExcelTextReport;

impl Exporter for ExcelTextReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        Ok(render_excel_text(result).into_bytes())
    }
}

/// The `-R` block of a run; with `-+u`, IOzone's CPU-utilisation blocks follow.
pub fn render_excel_text(result: &RunResult) -> String {
    let config = &result.config;
    let layout = TableLayout::for_config(config);
    let passes = layout.reported_passes(config);
    let mut s = String::from("Excel output is below:\n");
    for &pass in &passes {
        block(&mut s, result, pass, pass.report_title(), |m| {
            format!(" {} ", m.map_or(0, |m| m.value(config.unit)))
        });
    }
    if config.variations.cpu_utilisation {
        for &pass in &passes {
            let name = pass.report_title().trim_end_matches(" report");
            let title = format!("{name} CPU utilization report (Zero values should be ignored)");
            block(&mut s, result, pass, &title, |m| {
                format!(" {:6.2}", m.map_or(0.0, |m| m.cpu_percent()))
            });
        }
    }
    if config.runs > 1 {
        // The blocks above hold each cell's mean; these its standard
        // deviation, titled so that no script looking for IOzone's titles
        // ("Writer report") takes them for IOzone's.
        for &pass in &passes {
            let title = format!(
                "Standard deviation over {} runs: {}",
                config.runs,
                pass.report_title()
            );
            block(&mut s, result, pass, &title, |m| {
                let sd = m.and_then(|m| summarize(&m.values(config.unit)).and_then(|x| x.sd));
                match sd {
                    Some(sd) => format!(" {} ", sd.round() as u64),
                    None => " - ".to_string(),
                }
            });
        }
    }
    s
}

/// Whether the run never measured `cell`, a cell of its plan: a run that
/// stopped early (failed or interrupted) leaves the cells after the one it
/// ended in blank, never 0, so that no unmeasured cell reads as a measured
/// zero. A cell outside the plan (the crossover rule's holes) is IOzone's 0,
/// in a complete run as in any other.
pub(crate) fn never_measured(result: &RunResult, plan: &Plan, cell: Cell) -> bool {
    result.status != RunStatus::Complete && plan.cells.contains(&cell)
}

/// One block: title, record-size header, a row per file size, a cell per
/// record size up to the file size (the ones that did not run get `cell(None)`,
/// which IOzone prints as 0 — the crossover rule's holes, for example; the
/// ones a run that stopped early never reached, nothing).
fn block(
    s: &mut String,
    result: &RunResult,
    pass: Pass,
    title: &str,
    cell: impl Fn(Option<PassRuns<'_>>) -> String,
) {
    let plan = expand(&result.config);
    let _ = write!(s, "\n\"{title}\"\n      ");
    for rec in &plan.record_axis {
        let _ = write!(s, "  \"{}\"", kb_number(*rec));
    }
    s.push('\n');
    for &file in &plan.file_axis {
        let rows: Vec<_> = result
            .cells
            .iter()
            .filter(|c| c.cell.file_bytes == file)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let _ = write!(s, "\"{}\"  ", file / KIB);
        for &rec in plan.record_axis.iter().filter(|&&r| r <= file) {
            let m = rows
                .iter()
                .find(|c| c.cell.record_bytes == rec)
                .and_then(|c| c.get(pass));
            let at = Cell {
                file_bytes: file,
                record_bytes: rec,
            };
            if m.is_none() && never_measured(result, &plan, at) {
                continue;
            }
            s.push_str(&cell(m));
        }
        s.push('\n');
    }
}
