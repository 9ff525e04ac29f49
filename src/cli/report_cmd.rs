//! `ioz report RUN.json [--text] [-R] [--json F] [--csv F] [--html F] [--plots D] [-b F]…
//! [--plot-scale S] [--plot-log] [--force]`, or `ioz report -h`: renders a saved run again,
//! without measuring.

use std::ffi::OsString;
use std::path::PathBuf;

use lexopt::{Arg, Parser};

use super::flags::PLOT_SCALE;
use super::value::{choice_value, lexopt_error, path_value, spreadsheet_value};
use super::{UsageError, usage};
use crate::model::formats::{Format, OutputFiles};

/// What `ioz report …` asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum ReportCommand {
    Render(ReportRequest),
    /// `-h`/`--help`, anywhere: the subcommand's own help.
    Help,
}

#[derive(Debug, PartialEq, Eq)]
pub struct ReportRequest {
    /// The saved run (JSON written by --json).
    pub input: PathBuf,
    /// Print the text table: with --text or -R (or -b, which implies -R as
    /// in a run), and when no file output is asked for.
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

pub fn parse(args: impl Iterator<Item = OsString>) -> Result<ReportCommand, UsageError> {
    let mut parser = Parser::from_args(args);
    let mut input = None;
    let mut text = false;
    let mut excel_report = false;
    let mut force = false;
    let mut outputs = OutputFiles::default();
    let (mut plot_scale_shared, mut plot_log) = (None, false);
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        match arg {
            Arg::Short('h') | Arg::Long("help") => return Ok(ReportCommand::Help),
            Arg::Long("text") => text = true,
            Arg::Short('R') => excel_report = true,
            Arg::Long("force") => force = true,
            Arg::Long("json") => outputs.add(Format::Json, path_value(&mut parser, "--json")?),
            Arg::Long("csv") => outputs.add(Format::Csv, path_value(&mut parser, "--csv")?),
            Arg::Long("html") => outputs.add(Format::Html, path_value(&mut parser, "--html")?),
            Arg::Long("plots") => outputs.add(Format::Plots, path_value(&mut parser, "--plots")?),
            Arg::Long("plot-scale") => {
                plot_scale_shared =
                    Some(choice_value(&mut parser, "--plot-scale", &PLOT_SCALE)? == "shared");
            }
            Arg::Long("plot-log") => plot_log = true,
            Arg::Short('b') => {
                // As in a run, a spreadsheet implies -R.
                outputs.add(Format::Spreadsheet, spreadsheet_value(&mut parser, "-b")?);
                excel_report = true;
            }
            Arg::Value(v) if input.is_none() => input = Some(PathBuf::from(v)),
            Arg::Value(v) => {
                return Err(usage(format!(
                    "report: unexpected argument '{}' (one saved run at a time)",
                    v.to_string_lossy()
                )));
            }
            Arg::Short(c) => return Err(unknown(&format!("-{c}"))),
            Arg::Long(l) => return Err(unknown(&format!("--{l}"))),
        }
    }
    let input = input.ok_or_else(|| {
        usage("report needs a saved run: ioz report RUN.json (ioz report -h for help)")
    })?;
    // -R asks for the text whatever else is asked; files alone do not.
    text |= excel_report || outputs.is_empty();
    Ok(ReportCommand::Render(ReportRequest {
        input,
        text,
        excel_report,
        outputs,
        force,
        plot_scale_shared,
        plot_log,
    }))
}

fn unknown(option: &str) -> UsageError {
    usage(format!(
        "report: unknown option {option} (ioz report -h lists its options)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<ReportCommand, UsageError> {
        parse(args.iter().map(OsString::from))
    }

    fn request(args: &[&str]) -> ReportRequest {
        match parsed(args) {
            Ok(ReportCommand::Render(r)) => r,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn help_is_asked_by_either_spelling_anywhere() {
        for args in [
            &["-h"][..],
            &["--help"],
            &["r.json", "-R", "-h"],
            &["r.json", "--help"],
        ] {
            assert_eq!(parsed(args), Ok(ReportCommand::Help), "{args:?}");
        }
    }

    #[test]
    fn dash_r_and_spreadsheets_print_the_text_other_files_do_not() {
        let text = |args: &[&str]| request(args).text;
        assert!(text(&["r.json"]));
        assert!(text(&["r.json", "-R"]));
        assert!(text(&["r.json", "-R", "--plots", "d"]));
        assert!(text(&["r.json", "-b", "f.xls"]));
        assert!(text(&["r.json", "--csv", "c.csv", "--text"]));
        assert!(!text(&["r.json", "--csv", "c.csv"]));
        assert!(!text(&[
            "r.json", "--plots", "d", "--json", "j.json", "--html", "h.html"
        ]));
    }

    #[test]
    fn every_spreadsheet_is_kept_in_order() {
        let r = request(&["r.json", "-b", "a.xls", "-b", "b.xlsx"]);
        assert_eq!(
            r.outputs
                .of(Format::Spreadsheet)
                .cloned()
                .collect::<Vec<_>>(),
            [PathBuf::from("a.xls"), PathBuf::from("b.xlsx")]
        );
    }

    #[test]
    fn every_option_of_the_help_is_accepted() {
        let help = crate::cli::report_help_text();
        for line in help.lines().filter(|l| l.starts_with("  -")) {
            let option = line
                .split_whitespace()
                .next()
                .unwrap()
                .trim_end_matches(',');
            let mut args = vec!["r.json", option];
            match option {
                "-b" => args.push("f.xls"),
                "--json" | "--csv" | "--html" | "--plots" => args.push("f"),
                "--plot-scale" => args.push("shared"),
                _ => {}
            }
            assert!(parsed(&args).is_ok(), "{line}");
        }
    }
}
