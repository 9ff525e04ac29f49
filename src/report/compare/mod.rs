//! Everything `ioz compare` writes, each a pure function of the comparison
//! (`analysis::compare::Comparison`): the text, JSON, CSV, an .xlsx
//! spreadsheet and an HTML page; [`write_all`] puts the files where the
//! result guard approved them.

mod data;
mod format;
mod html;
mod look;
mod over_time;
mod svg;
mod text;
mod xlsx;

use std::io;

pub use data::{render_csv, render_json};
pub use format::cell_name;
pub use html::render_html;
pub use look::{Look, look, verdict_css};
pub use text::render_text;
pub use xlsx::render_xlsx;

use super::files::write_files;
use crate::analysis::compare::Comparison;
use crate::model::formats::Format;
use crate::model::result_files::ResultPlaces;

/// Writes every requested file; reports each failure on stderr and keeps
/// going. Returns whether all were written.
pub fn write_all(c: &Comparison, places: &ResultPlaces) -> bool {
    write_files(places, |format, _| match format {
        Format::Json => render_json(c),
        Format::Csv => render_csv(c),
        Format::Spreadsheet => render_xlsx(c),
        Format::Html => Ok(render_html(c).into_bytes()),
        // Its grammar offers no other format.
        _ => Err(io::Error::other("ioz compare does not write this format")),
    })
}
