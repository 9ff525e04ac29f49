//! The CSV table (--csv).

use std::io;

use super::Exporter;
use crate::result::RunResult;

pub struct CsvReport;

impl Exporter for CsvReport {
    fn render(&self, _result: &RunResult) -> io::Result<Vec<u8>> {
        Err(io::Error::other("the CSV table (--csv) is not written yet"))
    }
}
