//! IOzone's .xls spreadsheet (-b).

use std::io;

use super::Exporter;
use crate::result::RunResult;

pub struct BiffReport;

impl Exporter for BiffReport {
    fn render(&self, _result: &RunResult) -> io::Result<Vec<u8>> {
        Err(io::Error::other(
            "IOzone's .xls spreadsheet (-b) is not written yet",
        ))
    }
}
