//! Writes the files a command asked for (one per format of the list in
//! model::formats), each through its exporter, once the run is over, at the
//! places the guard (`safety::outputs`) approved before it began; each is
//! put in place by [`put`](super::put), so a write that fails keeps the old
//! file.

use std::io;
use std::path::Path;

use super::Exporter;
use super::html::HtmlReport;
use super::interval_csv::IntervalCsvReport;
use super::json::JsonReport;
use super::live::LiveReport;
use super::plots::plot_files;
use super::put::{make_dir, put};
use super::spreadsheet::biff::BiffReport;
use super::spreadsheet::xlsx::XlsxReport;
use super::table_csv::CsvReport;
use crate::model::formats::Format;
use crate::model::result::RunResult;
use crate::model::result_files::{DirPlaces, ResultPlaces};
use crate::model::say::say;

/// The files of a directory format, by name.
type DirExporter = fn(&RunResult) -> io::Result<Vec<(String, Vec<u8>)>>;

/// How a format's bytes are made from a run: the exporter column of the
/// format list (model::formats), kept here beside the exporters.
enum Export {
    /// One file.
    File(&'static dyn Exporter),
    /// A directory of files, by name, and what they are (for a message).
    Files(DirExporter, &'static str),
}

/// Each format's exporter; `path` picks among a format's layouts (`-b`:
/// .xlsx, else IOzone's BIFF).
fn exporter(format: Format, path: &Path) -> Export {
    match format {
        Format::Json => Export::File(&JsonReport),
        Format::Csv => Export::File(&CsvReport),
        Format::Html => Export::File(&HtmlReport),
        Format::Plots => Export::Files(plot_files, "the plots"),
        Format::Spreadsheet if has_extension(path, "xlsx") => Export::File(&XlsxReport),
        Format::Spreadsheet => Export::File(&BiffReport),
        Format::IntervalCsv => Export::File(&IntervalCsvReport),
        Format::Live => Export::File(&LiveReport),
    }
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Writes every requested output; reports each failure on stderr and keeps
/// going, so one bad path does not cost the others. Returns whether all worked.
pub fn write_all(result: &RunResult, places: &ResultPlaces) -> bool {
    let files = write_files(places, |format, path| match exporter(format, path) {
        Export::File(exporter) => exporter.render(result),
        Export::Files(..) => Err(io::Error::other("its format writes a directory")),
    });
    let mut ok = files;
    for (format, dir) in &places.dirs {
        let written = match exporter(*format, &dir.given) {
            Export::Files(files, what) => write_dir(result, files, what, dir),
            Export::File(_) => Err("its format writes one file".to_string()),
        };
        if let Err(e) = written {
            say(format_args!("{}: {e}", format.flag()));
            ok = false;
        }
    }
    ok
}

/// Writes each file of `places.files` with the bytes `render` makes of its
/// format (and path); says each failure and goes on. Returns whether all
/// were written. What ioz compare and ioz history trend write goes through
/// here too, with their own renderers.
pub fn write_files(
    places: &ResultPlaces,
    render: impl Fn(Format, &Path) -> io::Result<Vec<u8>>,
) -> bool {
    let mut ok = true;
    for (format, place) in &places.files {
        if let Err(e) = render(*format, &place.given).and_then(|bytes| put(place, &bytes)) {
            say(format_args!(
                "{}: cannot write {}: {e}",
                format.flag(),
                place.given.display()
            ));
            ok = false;
        }
    }
    ok
}

/// Every file of a directory format, in DIR (made now if the guard found
/// it missing).
fn write_dir(
    result: &RunResult,
    files: DirExporter,
    what: &str,
    places: &DirPlaces,
) -> Result<(), String> {
    let dir = places.given.display();
    let files = files(result).map_err(|e| format!("cannot draw {what}: {e}"))?;
    if places.create {
        make_dir(&places.dir).map_err(|e| format!("cannot make the directory {dir}: {e}"))?;
    }
    for (name, bytes) in files {
        let place = places
            .file(&name)
            .ok_or_else(|| format!("{name} was not checked before the run; not written"))?;
        put(place, &bytes).map_err(|e| format!("cannot write {}: {e}", place.given.display()))?;
    }
    Ok(())
}
