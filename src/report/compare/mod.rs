//! Everything `ioz compare` writes, each a pure function of the comparison
//! (`analysis::compare::Comparison`): the text, JSON, CSV, an .xlsx
//! spreadsheet and an HTML page; [`write_all`] puts the files where the
//! result guard approved them.

mod data;
mod format;
mod html;
mod svg;
mod text;
mod xlsx;

use std::io;

pub use data::{COMPARE_FORMAT, COMPARE_VERSION, CSV_HEADER, render_csv, render_json};
pub use format::cell_name;
pub use html::render_html;
pub use svg::{SERIES, verdict_colour};
pub use text::render_text;
pub use xlsx::render_xlsx;

use super::put::put;
use crate::analysis::compare::Comparison;
use crate::model::result_files::{Place, ResultPlaces};
use crate::model::say::say;

/// Writes every requested file; reports each failure on stderr and keeps
/// going. Returns whether all were written.
pub fn write_all(c: &Comparison, places: &ResultPlaces) -> bool {
    let mut ok = true;
    let mut save = |opt: &str, place: &Place, bytes: io::Result<Vec<u8>>| {
        if let Err(e) = bytes.and_then(|b| put(place, &b)) {
            say(format_args!(
                "{opt}: cannot write {}: {e}",
                place.given.display()
            ));
            ok = false;
        }
    };
    if let Some(p) = &places.json {
        save("--json", p, render_json(c));
    }
    if let Some(p) = &places.csv {
        save("--csv", p, render_csv(c));
    }
    for p in &places.spreadsheets {
        save("-b", p, render_xlsx(c));
    }
    if let Some(p) = &places.html {
        save("--html", p, Ok(render_html(c).into_bytes()));
    }
    ok
}
