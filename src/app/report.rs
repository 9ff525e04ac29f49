//! `ioz report RUN.json …`: renders a saved run without measuring.

use std::io::{self, Write};

use super::input_files::read_run;
use super::output::{SIGPIPE, say};
use crate::cli::ReportRequest;
use crate::error::Exit;
use crate::model::visible::{for_terminal, visible_lines};
use crate::report::files;
use crate::report::text::render_output;
use crate::safety::outputs;

pub(crate) fn report(request: ReportRequest) -> Exit {
    let mut result = match read_run(&request.input) {
        Ok(r) => r,
        Err(e) => {
            say(format_args!("report: {e}"));
            return Exit::Usage;
        }
    };
    // The plot files follow from the saved run, so it is read first; its
    // file is one of the paths no output may take.
    let places = match outputs::check_for_report(
        &request.outputs,
        &request.input,
        &result.config,
        request.force,
    ) {
        Ok(places) => places,
        Err(e) => {
            say(format_args!("report: {e}"));
            return Exit::Usage;
        }
    };
    result.config.excel_report |= request.excel_report;
    if let Some(shared) = request.plot_scale_shared {
        result.config.plot_style.shared_scale = shared;
    }
    result.config.plot_style.log_values |= request.plot_log;
    // The saved run's text (its label, command line, paths, environment)
    // with its control characters shown, field by field before the layout.
    let text = || match for_terminal(&result) {
        Some(shown) => render_output(&shown),
        None => visible_lines(&render_output(&result)).into_owned(),
    };
    if request.text && io::stdout().write_all(text().as_bytes()).is_err() {
        return Exit::Signal(SIGPIPE);
    }
    if files::write_all(&result, &places) {
        Exit::Success
    } else {
        Exit::Failure
    }
}
