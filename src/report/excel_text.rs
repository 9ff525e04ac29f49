//! IOzone's `-R` report: "Excel output is below:" and one block per pass, rows
//! of file sizes and columns of record sizes, in IOzone's exact layout.

use std::fmt::Write as _;
use std::io;

use super::Exporter;
use super::layout::TableLayout;
use crate::config::KIB;
use crate::plan::expand;
use crate::result::RunResult;

pub struct ExcelTextReport;

impl Exporter for ExcelTextReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        Ok(render_excel_text(result).into_bytes())
    }
}

/// The `-R` block of a run.
pub fn render_excel_text(result: &RunResult) -> String {
    {
        let config = &result.config;
        let plan = expand(config);
        let layout = TableLayout::for_config(config);
        let mut s = String::from("Excel output is below:\n");
        for pass in layout.reported_passes(config) {
            let _ = write!(s, "\n\"{}\"\n      ", pass.report_title());
            for rec in &plan.record_axis {
                let _ = write!(s, "  \"{}\"", rec / KIB);
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
                // Every record size up to the file size has a cell; sizes the
                // crossover rule skipped (or that did not run) show 0, as in IOzone.
                for &rec in plan.record_axis.iter().filter(|&&r| r <= file) {
                    let value = rows
                        .iter()
                        .find(|c| c.cell.record_bytes == rec)
                        .and_then(|c| c.get(pass))
                        .map_or(0, |m| m.value(config.unit));
                    let _ = write!(s, " {value} ");
                }
                s.push('\n');
            }
        }
        s
    }
}
