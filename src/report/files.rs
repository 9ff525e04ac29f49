//! Writes the files a command asked for (--json, --csv, --html, --plots,
//! -b), each through its exporter, once the run is over, at the places the
//! guard (`safety::outputs`) approved before it began; each is put in place
//! by [`put`](super::put), so a write that fails keeps the old file.

use super::Exporter;
use super::html::HtmlReport;
use super::json::JsonReport;
use super::plots::plot_files;
use super::put::{make_dir, put};
use super::spreadsheet::biff::BiffReport;
use super::spreadsheet::xlsx::XlsxReport;
use super::table_csv::CsvReport;
use crate::model::result::RunResult;
use crate::model::result_files::{Place, PlotPlaces, ResultPlaces};
use crate::model::say::say;

/// Writes every requested output; reports each failure on stderr and keeps
/// going, so one bad path does not cost the others. Returns whether all worked.
pub fn write_all(result: &RunResult, places: &ResultPlaces) -> bool {
    let mut ok = true;
    let mut save = |opt: &str, place: &Place, exporter: &dyn Exporter| {
        if let Err(e) = exporter.render(result).and_then(|bytes| put(place, &bytes)) {
            say(format_args!(
                "{opt}: cannot write {}: {e}",
                place.given.display()
            ));
            ok = false;
        }
    };
    if let Some(p) = &places.json {
        save("--json", p, &JsonReport);
    }
    if let Some(p) = &places.csv {
        save("--csv", p, &CsvReport);
    }
    for p in &places.spreadsheets {
        let is_xlsx = p
            .given
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("xlsx"));
        if is_xlsx {
            save("-b", p, &XlsxReport);
        } else {
            save("-b", p, &BiffReport);
        }
    }
    if let Some(p) = &places.html {
        save("--html", p, &HtmlReport);
    }
    if let Some(plots) = &places.plots
        && let Err(e) = write_plots(result, plots)
    {
        say(format_args!("--plots: {e}"));
        ok = false;
    }
    ok
}

/// Every plot file, in DIR (made now if the guard found it missing).
fn write_plots(result: &RunResult, plots: &PlotPlaces) -> Result<(), String> {
    let dir = plots.given.display();
    let files = plot_files(result).map_err(|e| format!("cannot draw the plots: {e}"))?;
    if plots.create {
        make_dir(&plots.dir).map_err(|e| format!("cannot make the directory {dir}: {e}"))?;
    }
    for (name, bytes) in files {
        let place = plots
            .file(&name)
            .ok_or_else(|| format!("{name} was not checked before the run; not written"))?;
        put(place, &bytes).map_err(|e| format!("cannot write {}: {e}", place.given.display()))?;
    }
    Ok(())
}
