//! Exporters: each renders a finished [`RunResult`] into one format, as a pure
//! function of the result. The live table printer reuses the text pieces.

pub mod biff;
pub mod excel_text;
pub mod html;
pub mod json;
pub mod latency_files;
pub mod layout;
pub mod plots;
pub mod table_csv;
pub mod text;
pub mod throughput_text;
pub mod xlsx;

use std::io;

use crate::model::result::RunResult;

/// One output format.
pub trait Exporter {
    /// The run, rendered into this format's bytes.
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>>;
}

#[cfg(test)]
mod tests;
