//! `ioz compare BASE OTHER [OTHER…] [--band PCT] [--adjust bh|holm]
//! [--fail-if-slower PCT] [--text] [--html F] [--json F] [--csv F]
//! [-b F.xlsx] [--force]`, or `ioz compare -h`: runs compared with a
//! baseline, cell by cell, with significance.

use std::ffi::OsString;
use std::path::PathBuf;

use lexopt::{Arg, Parser};

use super::value::{lexopt_error, path_value, string_value};
use super::{UsageError, usage};
use crate::model::formats::{Format, OutputFiles};

/// What `ioz compare …` asks for.
#[derive(Debug, PartialEq)]
pub enum CompareCommand {
    Compare(CompareRequest),
    /// `-h`/`--help`, anywhere: the subcommand's own help.
    Help,
}

/// How p-values are adjusted across the cells of a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PAdjust {
    BenjaminiHochberg,
    Holm,
}

#[derive(Debug, PartialEq)]
pub struct CompareRequest {
    /// The baseline, then the inputs compared with it.
    pub base: PathBuf,
    pub others: Vec<PathBuf>,
    /// `--band`: differences within ± this many percent are "same".
    pub band_percent: f64,
    pub adjust: PAdjust,
    /// `--fail-if-slower PCT`: exit 1 when a cell is slower than this.
    pub fail_if_slower: Option<f64>,
    /// Print the text report: with --text, and when no file is asked for.
    pub text: bool,
    /// --html, --json, --csv and -b (.xlsx); --plots is not an option here.
    pub outputs: OutputFiles,
    pub force: bool,
}

/// The band of the seeds: 5 %.
pub const DEFAULT_BAND: f64 = 5.0;

pub fn parse(args: impl Iterator<Item = OsString>) -> Result<CompareCommand, UsageError> {
    let mut parser = Parser::from_args(args);
    let mut inputs = Vec::new();
    let mut band_percent = DEFAULT_BAND;
    let mut adjust = PAdjust::BenjaminiHochberg;
    let mut fail_if_slower = None;
    let mut text = false;
    let mut force = false;
    let mut outputs = OutputFiles::default();
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        match arg {
            Arg::Short('h') | Arg::Long("help") => return Ok(CompareCommand::Help),
            Arg::Long("text") => text = true,
            Arg::Long("force") => force = true,
            Arg::Long("band") => band_percent = percent(&mut parser, "--band")?,
            Arg::Long("fail-if-slower") => {
                fail_if_slower = Some(percent(&mut parser, "--fail-if-slower")?);
            }
            Arg::Long("adjust") => {
                adjust = match string_value(&mut parser, "--adjust")?.as_str() {
                    "bh" | "fdr" | "benjamini-hochberg" => PAdjust::BenjaminiHochberg,
                    "holm" => PAdjust::Holm,
                    other => {
                        return Err(usage(format!(
                            "--adjust: '{other}' is not a method; use bh (Benjamini-Hochberg) or holm"
                        )));
                    }
                }
            }
            Arg::Long("json") => outputs.add(Format::Json, path_value(&mut parser, "--json")?),
            Arg::Long("csv") => outputs.add(Format::Csv, path_value(&mut parser, "--csv")?),
            Arg::Long("html") => outputs.add(Format::Html, path_value(&mut parser, "--html")?),
            Arg::Short('b') => outputs.add(Format::Spreadsheet, xlsx_value(&mut parser)?),
            Arg::Value(v) => inputs.push(PathBuf::from(v)),
            Arg::Short(c) => return Err(unknown(&format!("-{c}"))),
            Arg::Long(l) => return Err(unknown(&format!("--{l}"))),
        }
    }
    let mut inputs = inputs.into_iter();
    let (Some(base), others) = (inputs.next(), inputs.collect::<Vec<_>>()) else {
        return Err(usage(
            "compare needs a baseline and at least one input: ioz compare BASE OTHER… (ioz compare -h for help)",
        ));
    };
    if others.is_empty() {
        return Err(usage(format!(
            "compare: {} has nothing to be compared with: ioz compare BASE OTHER… (ioz compare -h for help)",
            base.display()
        )));
    }
    text |= outputs.is_empty();
    Ok(CompareCommand::Compare(CompareRequest {
        base,
        others,
        band_percent,
        adjust,
        fail_if_slower,
        text,
        outputs,
        force,
    }))
}

/// A percentage: a finite number from 0 to 1000.
fn percent(parser: &mut Parser, opt: &str) -> Result<f64, UsageError> {
    let raw = string_value(parser, opt)?;
    match raw.trim_end_matches('%').parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1000.0).contains(&v) => Ok(v),
        _ => Err(usage(format!(
            "{opt}: '{raw}' is not a percentage (a number from 0 to 1000)"
        ))),
    }
}

fn xlsx_value(parser: &mut Parser) -> Result<PathBuf, UsageError> {
    let path = path_value(parser, "-b")?;
    let xlsx = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xlsx"));
    if xlsx {
        Ok(path)
    } else {
        Err(usage(format!(
            "-b: '{}' needs a .xlsx extension (a comparison's sheets are coloured, which .xls cannot be)",
            path.display()
        )))
    }
}

fn unknown(option: &str) -> UsageError {
    usage(format!(
        "compare: unknown option {option} (ioz compare -h lists its options)"
    ))
}

/// `ioz compare -h`.
pub fn compare_help_text() -> String {
    "\
Usage: ioz compare BASE OTHER [OTHER...] [--band PCT] [--adjust bh|holm]
                   [--fail-if-slower PCT] [--text] [--html FILE] [--json FILE]
                   [--csv FILE] [-b FILE.xlsx] [--force]
       ioz compare -h

Compares each OTHER with the baseline BASE, cell by cell (file size, record
size, test; in throughput mode the number of workers), for every cell both
have. Each input is a run saved with --json, a directory of runs of one
configuration (pooled as samples), or IOzone's own text output (single, auto
or throughput mode, with or without -R).

Per cell: both means, the ratio OTHER/BASE (of geometric means) and its
percent difference with a 95 % confidence interval (Welch's t on the log of
the rates), a p-value adjusted across the cells of the comparison, and a
verdict: faster or slower when the difference is significant (adjusted
p < 0.05) and beyond the band, same otherwise. With a single sample on a
side there is no p-value: the verdict uses the band alone and says so.
Mann-Whitney's p-value is shown from 9 samples a side.

  BASE, OTHER           a saved run (.json), a directory of runs, or an IOzone log;
                        or from the history (ioz history -h): @ID, @last, or
                        @label:NAME (every complete run with that label, pooled)
  --band PCT            differences within +/- PCT % are \"same\" (default 5)
  --adjust bh|holm      p-values adjusted by Benjamini-Hochberg (default) or Holm
  --fail-if-slower PCT  exit 1 when any cell is slower than BASE by more than
                        PCT % (and significantly so), naming those cells
  --text                print the text report (the default when no file is asked for)
  --html FILE           an HTML page: mean +/- sd bars, percent differences with
                        the band, ratio tables, mountains and a ratio heat grid
  --json FILE           the comparison as JSON
  --csv FILE            one row per input and cell
  -b FILE.xlsx          a spreadsheet: every cell, and ratio sheets coloured by verdict
  --force               replace result files ioz did not write
  -h, --help            this help

Colours (green faster, red slower, grey same) only on a terminal, and never
with NO_COLOR set.

Exit status: 0 done, 1 a cell slower than --fail-if-slower allows or a
result file not written, 2 bad command line or input.
"
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<CompareCommand, UsageError> {
        parse(args.iter().map(OsString::from))
    }

    fn request(args: &[&str]) -> CompareRequest {
        match parsed(args) {
            Ok(CompareCommand::Compare(r)) => r,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn defaults_and_every_option() {
        let r = request(&["a.json", "b.json"]);
        assert_eq!(
            (r.band_percent, r.adjust, r.fail_if_slower),
            (5.0, PAdjust::BenjaminiHochberg, None)
        );
        assert!(r.text);
        let r = request(&[
            "a",
            "b",
            "c",
            "--band",
            "2.5",
            "--adjust",
            "holm",
            "--fail-if-slower",
            "10%",
            "--html",
            "h.html",
            "--json",
            "j.json",
            "--csv",
            "c.csv",
            "-b",
            "x.xlsx",
            "--force",
        ]);
        assert_eq!(r.others, [PathBuf::from("b"), PathBuf::from("c")]);
        assert_eq!(
            (r.band_percent, r.adjust, r.fail_if_slower),
            (2.5, PAdjust::Holm, Some(10.0))
        );
        assert!(!r.text && r.force);
        assert_eq!(
            r.outputs
                .of(Format::Spreadsheet)
                .cloned()
                .collect::<Vec<_>>(),
            [PathBuf::from("x.xlsx")]
        );
    }

    #[test]
    fn help_anywhere() {
        assert_eq!(parsed(&["a", "-h"]), Ok(CompareCommand::Help));
        assert_eq!(parsed(&["--help"]), Ok(CompareCommand::Help));
    }

    #[test]
    fn refusals_are_one_line_naming_the_problem() {
        let err = |args: &[&str]| parsed(args).unwrap_err().0;
        assert_eq!(
            err(&[]),
            "compare needs a baseline and at least one input: ioz compare BASE OTHER… (ioz compare -h for help)"
        );
        assert!(err(&["a"]).starts_with("compare: a has nothing to be compared with"));
        assert_eq!(
            err(&["a", "b", "--band", "x"]),
            "--band: 'x' is not a percentage (a number from 0 to 1000)"
        );
        assert_eq!(
            err(&["a", "b", "--band", "-1"]),
            "--band: '-1' is not a percentage (a number from 0 to 1000)"
        );
        assert_eq!(
            err(&["a", "b", "--adjust", "bonf"]),
            "--adjust: 'bonf' is not a method; use bh (Benjamini-Hochberg) or holm"
        );
        assert!(err(&["a", "b", "-b", "x.xls"]).starts_with("-b: 'x.xls' needs a .xlsx extension"));
        assert_eq!(
            err(&["a", "b", "--plots", "d"]),
            "compare: unknown option --plots (ioz compare -h lists its options)"
        );
        assert!(!err(&["a", "b", "--band"]).contains('\n'));
    }
}
