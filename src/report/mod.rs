//! Everything ioz writes about a run, from its [`RunResult`] (plain data):
//! the text it prints (`text/`, one live printer), IOzone's spreadsheets
//! (`spreadsheet/`), JSON, CSV, HTML, plots, and IOzone's `-Q` latency
//! files. Each format is an [`Exporter`], a pure function of the result;
//! [`files`] and [`latency_files`] put the bytes where the user asked.

pub mod compare;
pub mod environment_text;
pub mod files;
pub mod html;
pub mod interval_csv;
pub mod iozone_files;
pub mod iozone_log;
pub mod json;
pub mod latency_files;
pub mod layout;
pub mod live;
pub mod peers;
pub mod plots;
pub mod put;
pub mod scaling;
pub mod spreadsheet;
pub mod table_csv;
pub mod text;
pub mod trend;
mod web;

use std::io;

use crate::model::result::RunResult;

/// One output format.
pub trait Exporter {
    /// The run, rendered into this format's bytes.
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>>;
}

#[cfg(test)]
mod tests;
