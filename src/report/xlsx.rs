//! The .xlsx workbook (-b FILE.xlsx).

use std::io;

use super::Exporter;
use crate::result::RunResult;

pub struct XlsxReport;

impl Exporter for XlsxReport {
    fn render(&self, _result: &RunResult) -> io::Result<Vec<u8>> {
        Err(io::Error::other(
            "the .xlsx workbook (-b FILE.xlsx) is not written yet",
        ))
    }
}
