//! `ioz report RUN.json …`: renders a saved run without measuring.

use std::io::{self, Write};

use super::input_files::read_run;
use super::output::{SIGPIPE, say};
use crate::cli::ReportRequest;
use crate::error::Exit;
use crate::model::formats::Format;
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
    if let Some(m) = &result.config.metadata
        && let Some((format, _)) = request
            .outputs
            .requested()
            .find(|(f, _)| matches!(f, Format::Plots | Format::Spreadsheet))
    {
        say(format_args!(
            "report: {} is a run of ioz {}, which has no {}: give --json, --csv or --html",
            request.input.display(),
            m.command(),
            match format {
                Format::Plots => "plots",
                _ => "spreadsheet",
            }
        ));
        return Exit::Usage;
    }
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
    if request.text
        && io::stdout()
            .write_all(render_output(&result).as_bytes())
            .is_err()
    {
        return Exit::Signal(SIGPIPE);
    }
    if files::write_all(&result, &places) {
        Exit::Success
    } else {
        Exit::Failure
    }
}
