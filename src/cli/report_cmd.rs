//! `ioz report RUN.json [--text] [-R] [--json F] [--csv F] [--html F] [--plots D] [-b F]
//! [--plot-scale S] [--plot-log] [--force]`: renders a saved run again, without measuring.

use std::ffi::OsString;
use std::path::PathBuf;

use lexopt::{Arg, Parser};

use super::flags::PLOT_SCALE;
use super::value::{choice_value, lexopt_error, path_value, spreadsheet_value};
use super::{UsageError, usage};
use crate::model::config::OutputFiles;

#[derive(Debug, PartialEq, Eq)]
pub struct ReportRequest {
    /// The saved run (JSON written by --json).
    pub input: PathBuf,
    /// Print the text table (the default when no file output is asked for).
    pub text: bool,
    /// Print the `-R` block after the table (default: as the run did).
    pub excel_report: bool,
    pub outputs: OutputFiles,
    /// `--force`: replace existing result paths that ioz did not write.
    pub force: bool,
    /// `--plot-scale`: shared or own scales (default: as the run saved it).
    pub plot_scale_shared: Option<bool>,
    /// `--plot-log`: a logarithmic value axis (or as the run saved it).
    pub plot_log: bool,
}

pub fn parse(args: impl Iterator<Item = OsString>) -> Result<ReportRequest, UsageError> {
    let mut parser = Parser::from_args(args);
    let mut input = None;
    let mut text = false;
    let mut excel_report = false;
    let mut force = false;
    let mut outputs = OutputFiles::default();
    let (mut plot_scale_shared, mut plot_log) = (None, false);
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        match arg {
            Arg::Long("text") => text = true,
            Arg::Short('R') => excel_report = true,
            Arg::Long("force") => force = true,
            Arg::Long("json") => outputs.json = Some(path_value(&mut parser, "--json")?),
            Arg::Long("csv") => outputs.csv = Some(path_value(&mut parser, "--csv")?),
            Arg::Long("html") => outputs.html = Some(path_value(&mut parser, "--html")?),
            Arg::Long("plots") => outputs.plots = Some(path_value(&mut parser, "--plots")?),
            Arg::Long("plot-scale") => {
                plot_scale_shared =
                    Some(choice_value(&mut parser, "--plot-scale", &PLOT_SCALE)? == "shared");
            }
            Arg::Long("plot-log") => plot_log = true,
            Arg::Short('b') => outputs.spreadsheet = Some(spreadsheet_value(&mut parser, "-b")?),
            Arg::Value(v) if input.is_none() => input = Some(PathBuf::from(v)),
            Arg::Value(v) => {
                return Err(usage(format!(
                    "report: unexpected argument '{}' (one saved run at a time)",
                    v.to_string_lossy()
                )));
            }
            Arg::Short(c) => return Err(usage(format!("report: unknown option -{c}"))),
            Arg::Long(l) => return Err(usage(format!("report: unknown option --{l}"))),
        }
    }
    let input = input.ok_or_else(|| usage("report needs a saved run: ioz report RUN.json"))?;
    if !text && outputs.requested().is_empty() {
        text = true;
    }
    Ok(ReportRequest {
        input,
        text,
        excel_report,
        outputs,
        force,
        plot_scale_shared,
        plot_log,
    })
}
