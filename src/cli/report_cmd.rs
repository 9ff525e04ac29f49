//! `ioz report RUN.json [options]`: renders a saved run again, without
//! measuring. Its table also serves `ioz history show`, which is ioz report
//! on a stored run.

use std::ffi::OsString;
use std::path::PathBuf;

use super::grammar::Spelling::{Long, Short};
use super::grammar::{Choice, Count, Flag, Grammar, Operand, Section, Taken, Target};
use super::shared;
use super::{UsageError, usage};
use crate::model::formats::{Format, OutputFiles};
use crate::model::units::LatencyUnit;

#[derive(Debug, PartialEq, Eq)]
pub struct ReportRequest {
    /// The saved run (JSON written by --json).
    pub input: PathBuf,
    /// With `--scaling`, the runs after the first (a sweep over record sizes
    /// is a run per record size).
    pub more: Vec<PathBuf>,
    /// `--scaling`: the tables of a sweep instead of the run's text and files.
    pub scaling: bool,
    /// `--latency-unit`: the scaling tables' latency in this unit (default:
    /// by the magnitude of each table's values).
    pub latency_unit: Option<LatencyUnit>,
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

/// What ioz report's flags set (and `ioz history show`'s: its --history).
#[derive(Default)]
pub(super) struct ReportSeen {
    input: Option<PathBuf>,
    more: Vec<PathBuf>,
    scaling: bool,
    latency_unit: Option<LatencyUnit>,
    text: bool,
    excel_report: bool,
    outputs: OutputFiles,
    force: bool,
    plot_scale_shared: Option<bool>,
    plot_log: bool,
    pub history_dir: Option<PathBuf>,
}

impl Target for ReportSeen {}

const OPERANDS: &[Operand] = &[Operand {
    name: "RUN.json",
    help: "the saved run (written by ioz --json FILE); or another benchmark's result file \
           (fio, IOR, mdtest, elbencho, IO500), shown as ioz reads it",
    count: Count::One,
    path: true,
}];

/// The choice of `--latency-unit`.
const LATENCY_UNIT: Choice = Choice {
    names: &LatencyUnit::NAMES,
    expected: "a unit of latency (ns, us or ms)",
    default: None,
};

/// The flags of the scaling tables: ioz report's own (`ioz history show`
/// renders one stored run and has none).
const SCALING: Section<ReportSeen> = Section {
    title: "Scaling tables",
    note: "",
    flags: &[
        Flag::switch(
            Long("scaling"),
            "instead of the text and files: a table per test of RUN.json and the runs after \
             it, rows the worker count, columns the record size, in MB/s; then each test's \
             latency p50 and p99 (runs with --latency)",
            |s| s.scaling = true,
        ),
        Flag::choice(
            Long("latency-unit"),
            "UNIT",
            LATENCY_UNIT,
            "the scaling tables' latency in ns, us or ms (default: by magnitude)",
            |s, name| s.latency_unit = LatencyUnit::named(name),
        ),
    ],
};

/// ioz report's flags, in its help's order; `ioz history show` adds its own.
pub(super) const SECTIONS: [Section<ReportSeen>; 4] = [
    Section {
        title: "",
        note: "",
        flags: &[
            shared::text(
                "print the text the run printed (the default when no file is asked for)",
                |s| s.text = true,
            ),
            Flag::switch(
                Short('R'),
                "print the text with its -R report, whatever files are also asked for",
                |s| s.excel_report = true,
            ),
        ],
    },
    Section {
        title: "",
        note: "",
        flags: &shared::every_format(|s: &mut ReportSeen| &mut s.outputs),
    },
    Section {
        title: "",
        note: "",
        flags: &[
            shared::plot_scale(|s, scale| s.plot_scale_shared = Some(scale == "shared")),
            shared::plot_log(|s| s.plot_log = true),
            shared::force(
                "replace an existing result file that ioz did not write",
                |s| s.force = true,
            ),
        ],
    },
    Section {
        title: "",
        note: "",
        flags: &[shared::help(), shared::help_long()],
    },
];

/// ioz report's sections: the ones it shares with `ioz history show`, and
/// the scaling tables before the help.
const REPORT_SECTIONS: [Section<ReportSeen>; 5] =
    [SECTIONS[0], SECTIONS[1], SECTIONS[2], SCALING, SECTIONS[3]];

pub(super) const GRAMMAR: Grammar<ReportSeen> = Grammar {
    name: "report",
    summary: "a saved run rendered again, without measuring",
    about: "\
Renders a run saved with --json again, without measuring: the text it printed
and the result files, written as a run writes them. Given another benchmark's
result file (fio's JSON, json+ or text, IOR's JSON or text, mdtest's output or
CSV, elbencho's --csvfile, IO500's result.txt), it prints what ioz reads of it:
each result as the ioz cell it maps onto, its rates in kB/s and ops/s beside
the tool's own figure, its settings, and what has no counterpart in ioz.",
    operands: OPERANDS,
    operand: runs,
    sections: &REPORT_SECTIONS,
    subcommands: &[],
    tail: "\
Exit status: 0 done, 1 a result file could not be written, 2 bad command line
or saved run.",
};

/// The one saved run a report renders; `command` names the command in the
/// refusal of a second.
pub(super) fn one_run(
    seen: &mut ReportSeen,
    word: OsString,
    command: &str,
) -> Result<Taken, UsageError> {
    if seen.input.is_some() {
        return Err(usage(format!(
            "{command}: unexpected argument '{}' (one saved run at a time)",
            word.to_string_lossy()
        )));
    }
    seen.input = Some(PathBuf::from(word));
    Ok(Taken::Next)
}

/// ioz report's runs: one, or with --scaling several (checked once the
/// whole command line is read).
fn runs(seen: &mut ReportSeen, word: OsString) -> Result<Taken, UsageError> {
    match seen.input {
        None => seen.input = Some(PathBuf::from(word)),
        Some(_) => seen.more.push(PathBuf::from(word)),
    }
    Ok(Taken::Next)
}

/// The request, once the whole command line is read; `missing` is the
/// refusal when no run is named.
pub(super) fn finish(seen: ReportSeen, missing: &str) -> Result<ReportRequest, UsageError> {
    let input = seen.input.ok_or_else(|| usage(missing))?;
    if let Some(second) = seen.more.first().filter(|_| !seen.scaling) {
        return Err(usage(format!(
            "report: unexpected argument '{}' (one saved run at a time; several with --scaling)",
            second.display()
        )));
    }
    if seen.scaling && !seen.outputs.is_empty() {
        return Err(usage(
            "report: --scaling prints its tables; render a run's files without it",
        ));
    }
    if seen.latency_unit.is_some() && !seen.scaling {
        return Err(usage(
            "report: --latency-unit is the unit of --scaling's tables",
        ));
    }
    // As in a run, a spreadsheet implies -R; -R asks for the text whatever
    // else is asked, files alone do not.
    let excel_report = seen.excel_report || seen.outputs.of(Format::Spreadsheet).next().is_some();
    Ok(ReportRequest {
        input,
        more: seen.more,
        scaling: seen.scaling,
        latency_unit: seen.latency_unit,
        text: seen.text || excel_report || seen.outputs.is_empty(),
        excel_report,
        outputs: seen.outputs,
        force: seen.force,
        plot_scale_shared: seen.plot_scale_shared,
        plot_log: seen.plot_log,
    })
}

/// `ioz report …`'s refusal when no run is named.
pub(super) const MISSING: &str =
    "report needs a saved run: ioz report RUN.json (ioz report -h for help)";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Command;

    fn parsed(args: &[&str]) -> Result<Command, UsageError> {
        crate::cli::parse_command("report", args)
    }

    fn request(args: &[&str]) -> ReportRequest {
        match parsed(args) {
            Ok(Command::Report(r)) => r,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn help_is_asked_by_either_spelling() {
        for args in [&["-h"][..], &["--help"], &["r.json", "-R", "-h"]] {
            let Ok(Command::Print(printed)) = parsed(args) else {
                panic!("{args:?}")
            };
            assert!(printed.text.starts_with("Usage: ioz report RUN.json"));
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
        assert!(request(&["r.json", "-b", "x.xlsx"]).excel_report);
    }

    #[test]
    fn scaling_takes_several_runs_and_a_latency_unit() {
        let r = request(&[
            "a.json",
            "b.json",
            "--scaling",
            "c.json",
            "--latency-unit",
            "us",
        ]);
        assert!(r.scaling);
        assert_eq!(r.input, PathBuf::from("a.json"));
        assert_eq!(r.more, [PathBuf::from("b.json"), PathBuf::from("c.json")]);
        assert_eq!(r.latency_unit, Some(LatencyUnit::Microseconds));
        let one = request(&["a.json"]);
        assert!(!one.scaling && one.more.is_empty() && one.latency_unit.is_none());
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
    fn refusals_name_the_command() {
        let err = |args: &[&str]| parsed(args).unwrap_err().0;
        assert_eq!(err(&[]), MISSING);
        assert_eq!(
            err(&["a.json", "b.json"]),
            "report: unexpected argument 'b.json' (one saved run at a time; several with --scaling)"
        );
        assert_eq!(
            err(&["a.json", "--scaling", "--csv", "c.csv"]),
            "report: --scaling prints its tables; render a run's files without it"
        );
        assert_eq!(
            err(&["a.json", "--latency-unit", "ms"]),
            "report: --latency-unit is the unit of --scaling's tables"
        );
        assert_eq!(
            err(&["a.json", "--scaling", "--latency-unit", "s"]),
            "--latency-unit: 's' is not a unit of latency (ns, us or ms)"
        );
        assert_eq!(
            err(&["r.json", "--bogus"]),
            "report: unknown option --bogus (ioz report -h lists its options)"
        );
        assert_eq!(
            err(&["r.json", "--josn", "j"]),
            "report: unknown option --josn; did you mean --json?"
        );
        assert_eq!(
            err(&["r.json", "-b", "x.txt"]),
            "-b: 'x.txt' needs a .xls, .wks or .xlsx extension"
        );
    }
}
