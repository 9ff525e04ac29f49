//! `ioz report RUN.json …`: renders a saved run without measuring (of one
//! rank with `RUN.json#rank=N`); with `--scaling`, the scaling tables of
//! the runs named.

use std::io::{self, Write};

use super::input_files::{
    RunFileError, of_rank, rank_selected, read_peer, read_run, read_run_selected,
};
use super::output::{SIGPIPE, say};
use crate::cli::ReportRequest;
use crate::error::Exit;
use crate::model::formats::Format;
use crate::model::visible::{for_terminal, visible_lines};
use crate::report::files;
use crate::report::scaling::scaling_tables;
use crate::report::text::render_output;
use crate::safety::outputs;

pub(crate) fn report(request: ReportRequest) -> Exit {
    if request.scaling {
        return scaling(&request);
    }
    if let Some(peer) = read_peer(&request.input) {
        return peer_report(&request, peer);
    }
    // `run.json#rank=1`: rank 1's own run of a cluster run.
    let read = rank_selected(&request.input)
        .map_err(RunFileError::from)
        .and_then(|(path, rank)| Ok((of_rank(read_run(&path)?, &path, rank)?, path)));
    let (mut result, input) = match read {
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
    // A file of intervals from a run that has none would be empty: refused,
    // as a measuring run without --interval refuses them.
    if !result.has_intervals()
        && let Some((format, _)) = request
            .outputs
            .requested()
            .find(|(f, _)| matches!(f, Format::Live | Format::IntervalCsv))
    {
        say(format_args!(
            "report: {} holds no intervals (its run had no --interval): {} has nothing to write",
            request.input.display(),
            format.flag()
        ));
        return Exit::Usage;
    }
    // The plot files follow from the saved run, so it is read first; its
    // file is one of the paths no output may take.
    let places =
        match outputs::check_for_report(&request.outputs, &input, &result.config, request.force) {
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

/// Another benchmark's result file: shown as ioz read it (the cells it maps
/// onto, its settings, what has no counterpart); it has no result files of
/// a run's.
fn peer_report(
    request: &ReportRequest,
    peer: Result<
        (
            crate::report::peers::PeerFormat,
            crate::model::peer::PeerRun,
        ),
        super::input_files::RunOrLogError,
    >,
) -> Exit {
    let (format, run) = match peer {
        Ok(p) => p,
        Err(e) => {
            say(format_args!("report: {e}"));
            return Exit::Usage;
        }
    };
    if !request.outputs.is_empty() {
        say(format_args!(
            "report: {} is {}: ioz report shows it as text; its result files are a saved ioz run's (ioz compare writes a comparison's: --html, --json, --csv)",
            request.input.display(),
            format.words()
        ));
        return Exit::Usage;
    }
    let text = crate::report::peers::text::render(
        &run,
        &request.input.display().to_string(),
        format.words(),
    );
    match io::stdout().write_all(text.as_bytes()) {
        Ok(()) => Exit::Success,
        Err(_) => Exit::Signal(SIGPIPE),
    }
}

/// `--scaling`: every run read (each named as given), then the tables.
fn scaling(request: &ReportRequest) -> Exit {
    let mut runs = Vec::new();
    for arg in std::iter::once(&request.input).chain(&request.more) {
        match read_run_selected(arg) {
            Ok(run) => runs.push((arg.display().to_string(), run)),
            Err(e) => {
                say(format_args!("report: {e}"));
                return Exit::Usage;
            }
        }
    }
    match scaling_tables(&runs, request.latency_unit) {
        Ok(text) => match io::stdout().write_all(text.as_bytes()) {
            Ok(()) => Exit::Success,
            Err(_) => Exit::Signal(SIGPIPE),
        },
        Err(e) => {
            say(format_args!("report: --scaling: {e}"));
            Exit::Usage
        }
    }
}
