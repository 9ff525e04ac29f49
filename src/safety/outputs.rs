//! Writes the files a run asked for (--json, --csv, --html, --plots, -b), each
//! through its exporter. Paths are checked before the run, so a long run does
//! not end with results that cannot be saved.

use std::fs;
use std::path::Path;

use crate::model::config::OutputFiles;
use crate::model::result::RunResult;
use crate::report::Exporter;
use crate::report::biff::BiffReport;
use crate::report::html::HtmlReport;
use crate::report::json::JsonReport;
use crate::report::plots::write_plots;
use crate::report::table_csv::CsvReport;
use crate::report::xlsx::XlsxReport;

/// Refuses outputs whose directory does not exist, or that would overwrite
/// the test file.
pub fn check(outputs: &OutputFiles, test_file: Option<&Path>) -> Result<(), String> {
    for (opt, path) in outputs.requested() {
        let same = |a: &Path, b: &Path| {
            a == b
                || matches!((std::path::absolute(a), std::path::absolute(b)), (Ok(x), Ok(y)) if x == y)
        };
        if test_file.is_some_and(|t| same(t, path)) {
            return Err(format!("{opt}: {} is the test file", path.display()));
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if opt == "--plots" && path.is_file() {
            return Err(format!(
                "--plots: {} is a file, not a directory",
                path.display()
            ));
        }
        if !parent.is_dir() {
            return Err(format!(
                "{opt}: directory {} does not exist",
                parent.display()
            ));
        }
    }
    Ok(())
}

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
