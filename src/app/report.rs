//! `ioz report RUN.json …`: renders a saved run without measuring.

use std::io::{self, Write};

use super::output::SIGPIPE;
use crate::cli::ReportRequest;
use crate::error::Exit;
use crate::report::files;
use crate::report::json;
use crate::report::text::render_output;
use crate::safety::outputs;

pub(crate) fn report(request: ReportRequest) -> Exit {
    let mut result = match json::read_run(&request.input) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ioz: report: {e}");
            return Exit::Usage;
        }
    };
    if let Err(e) = outputs::check(&request.outputs, None) {
        eprintln!("ioz: report: {e}");
        return Exit::Usage;
    }
    result.config.excel_report |= request.excel_report;
    if request.text
        && io::stdout()
            .write_all(render_output(&result).as_bytes())
            .is_err()
    {
        return Exit::Signal(SIGPIPE);
    }
    if files::write_all(&result, &request.outputs) {
        Exit::Success
    } else {
        Exit::Failure
    }
}
