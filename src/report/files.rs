//! Writes the files a run asked for (--json, --csv, --html, --plots, -b),
//! each through its exporter, once the run is over; their paths were
//! checked before it began.

use std::fs;
use std::path::Path;

use super::Exporter;
use super::html::HtmlReport;
use super::json::JsonReport;
use super::plots::write_plots;
use super::spreadsheet::biff::BiffReport;
use super::spreadsheet::xlsx::XlsxReport;
use super::table_csv::CsvReport;
use crate::model::config::OutputFiles;
use crate::model::result::RunResult;

/// Writes every requested output; reports each failure on stderr and keeps
/// going, so one bad path does not cost the others. Returns whether all worked.
pub fn write_all(result: &RunResult, outputs: &OutputFiles) -> bool {
    let mut ok = true;
    let mut save = |opt: &str, path: &Path, exporter: &dyn Exporter| {
        if let Err(e) = exporter
            .render(result)
            .and_then(|bytes| fs::write(path, bytes))
        {
            eprintln!("ioz: {opt}: cannot write {}: {e}", path.display());
            ok = false;
        }
    };
    if let Some(p) = &outputs.json {
        save("--json", p, &JsonReport);
    }
    if let Some(p) = &outputs.csv {
        save("--csv", p, &CsvReport);
    }
    if let Some(p) = &outputs.spreadsheet {
        let is_xlsx = p
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("xlsx"));
        if is_xlsx {
            save("-b", p, &XlsxReport);
        } else {
            save("-b", p, &BiffReport);
        }
    }
    if let Some(p) = &outputs.html {
        save("--html", p, &HtmlReport);
    }
    if let Some(dir) = &outputs.plots
        && let Err(e) = write_plots(result, dir)
    {
        eprintln!("ioz: --plots: cannot write plots in {}: {e}", dir.display());
        ok = false;
    }
    ok
}
