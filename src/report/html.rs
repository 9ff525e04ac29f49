//! The HTML report (--html).

use std::io;

use super::Exporter;
use crate::result::RunResult;

pub struct HtmlReport;

impl Exporter for HtmlReport {
    fn render(&self, _result: &RunResult) -> io::Result<Vec<u8>> {
        Err(io::Error::other(
            "the HTML report (--html) is not written yet",
        ))
    }
}
