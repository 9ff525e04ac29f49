//! `ioz compare BASE OTHER [OTHER…] [options]`: runs compared with a
//! baseline, cell by cell, with significance.

use std::path::PathBuf;

use super::grammar::Spelling::Long;
use super::grammar::{Choice, Count, Flag, Grammar, Operand, Section, Taken, Target};
use super::shared::{self, DEFAULT_BAND};
use super::{UsageError, usage};
use crate::model::adjust::{self, Adjust};
use crate::model::formats::{Format, OutputFiles};

#[derive(Debug, PartialEq)]
pub struct CompareRequest {
    /// The baseline, then the inputs compared with it.
    pub base: PathBuf,
    pub others: Vec<PathBuf>,
    /// `--band`: differences within ± this many percent are "same".
    pub band_percent: f64,
    pub adjust: Adjust,
    /// `--fail-if-slower PCT`: exit 1 when a cell is slower than this.
    pub fail_if_slower: Option<f64>,
    /// Print the text report: with --text, and when no file is asked for.
    pub text: bool,
    /// --html, --json, --csv and -b (.xlsx); --plots is not an option here.
    pub outputs: OutputFiles,
    pub force: bool,
}

/// What ioz compare's flags set.
#[derive(Default)]
pub(super) struct CompareSeen {
    inputs: Vec<PathBuf>,
    band_percent: Option<f64>,
    adjust: Option<Adjust>,
    fail_if_slower: Option<f64>,
    text: bool,
    outputs: OutputFiles,
    force: bool,
}

impl Target for CompareSeen {}

const OPERANDS: &[Operand] = &[
    Operand {
        name: "BASE",
        help: "the baseline: a saved run (.json), a directory of runs, an IOzone log, \
               or a result file of fio, IOR, mdtest, elbencho or IO500; or from the history \
               (ioz history -h): @ID, @last, or @label:NAME (every complete run with that \
               label, pooled)",
        count: Count::One,
        path: true,
    },
    Operand {
        name: "OTHER",
        help: "an input compared with BASE, of the same kinds",
        count: Count::Many,
        path: true,
    },
];

const SECTIONS: &[Section<CompareSeen>] = &[Section {
    title: "",
    note: "",
    flags: &[
        shared::band(|s, band| s.band_percent = Some(band)),
        Flag::choice(
            Long("adjust"),
            "bh|holm",
            Choice {
                names: adjust::WORDS,
                expected: "a method; use bh (Benjamini-Hochberg) or holm",
                default: None,
            },
            "p-values adjusted by Benjamini-Hochberg (default) or Holm",
            |s, method| s.adjust = Adjust::named(method),
        ),
        Flag::percent(
            Long("fail-if-slower"),
            1000.0,
            "exit 1 when any cell is slower than BASE by more than PCT % (and \
             significantly so), naming those cells",
            |s, pct| s.fail_if_slower = Some(pct),
        ),
        shared::text(
            "print the text report (the default when no file is asked for)",
            |s| s.text = true,
        ),
        shared::output(Format::Html, |s: &mut CompareSeen| &mut s.outputs).said(
            "an HTML page: mean +/- sd bars, percent differences with the band, \
             ratio tables, mountains and a ratio heat grid",
        ),
        shared::output(Format::Json, |s: &mut CompareSeen| &mut s.outputs)
            .said("the comparison as JSON"),
        shared::output(Format::Csv, |s: &mut CompareSeen| &mut s.outputs)
            .said("one row per input and cell"),
        shared::output(Format::Spreadsheet, |s: &mut CompareSeen| &mut s.outputs)
            .said("a spreadsheet: every cell, and ratio sheets coloured by verdict")
            .shown_as("FILE.xlsx")
            .only_extensions(
                &["xlsx"],
                "a comparison's sheets are coloured, which .xls cannot be",
            ),
        shared::force("replace result files ioz did not write", |s| s.force = true),
        shared::help(),
        shared::help_long(),
    ],
}];

pub(super) const GRAMMAR: Grammar<CompareSeen> = Grammar {
    name: "compare",
    summary: "runs compared with a baseline, cell by cell, with significance",
    about: "\
Compares each OTHER with the baseline BASE, cell by cell (file size, record
size, test; in throughput mode the number of workers), for every cell both
have. Each input is a run saved with --json, a directory of runs of one
configuration (pooled as samples), IOzone's own text output (single, auto
or throughput mode, with or without -R), or another benchmark's result file:
fio's JSON, json+ or text, IOR's JSON summary or text (each repetition a
sample), mdtest's output or --saveRankPerformanceDetails CSV, elbencho's
--csvfile, IO500's result.txt; its results are mapped onto ioz's cells and
rates (kB/s of 1024 bytes, or ops/s).

Per cell: both means, the ratio OTHER/BASE (of geometric means) and its
percent difference with a 95 % confidence interval (Welch's t on the log of
the rates), a p-value adjusted across the cells of the comparison, and a
verdict: faster or slower when the difference is significant (adjusted
p < 0.05) and beyond the band, same otherwise. With a single sample on a
side there is no p-value: the verdict uses the band alone and says so.
Mann-Whitney's p-value is shown from 9 samples a side. For every cell faster
or slower, what the two inputs recorded differently, likeliest cause first:
the cache regime, the settings (direct I/O, engine, depth, the page cache
dropped), the tools and versions, the environments, the tool's own cost,
the workers' start, the rate's course, the samples.",
    operands: OPERANDS,
    operand: |seen, word| {
        seen.inputs.push(PathBuf::from(word));
        Ok(Taken::Next)
    },
    sections: SECTIONS,
    subcommands: &[],
    tail: "\
Colours (green faster, red slower, grey same) only on a terminal, and never
with NO_COLOR set.

Exit status: 0 done, 1 a cell slower than --fail-if-slower allows or a
result file not written, 2 bad command line or input.",
};

pub(super) fn finish(seen: CompareSeen) -> Result<CompareRequest, UsageError> {
    let mut inputs = seen.inputs.into_iter();
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
    Ok(CompareRequest {
        base,
        others,
        band_percent: seen.band_percent.unwrap_or(DEFAULT_BAND),
        adjust: seen.adjust.unwrap_or(Adjust::BenjaminiHochberg),
        fail_if_slower: seen.fail_if_slower,
        text: seen.text || seen.outputs.is_empty(),
        outputs: seen.outputs,
        force: seen.force,
    })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::cli::Command;

    fn parsed(args: &[&str]) -> Result<Command, UsageError> {
        crate::cli::parse_command("compare", args)
    }

    fn request(args: &[&str]) -> CompareRequest {
        match parsed(args) {
            Ok(Command::Compare(r)) => r,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn defaults_and_every_option() {
        let r = request(&["a.json", "b.json"]);
        assert_eq!(
            (r.band_percent, r.adjust, r.fail_if_slower),
            (5.0, Adjust::BenjaminiHochberg, None)
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
            (2.5, Adjust::Holm, Some(10.0))
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
        for args in [&["a", "-h"][..], &["--help"]] {
            let Ok(Command::Print(printed)) = parsed(args) else {
                panic!("{args:?}")
            };
            assert!(printed.text.starts_with("Usage: ioz compare BASE OTHER..."));
        }
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
        assert_eq!(
            err(&["a", "b", "-b", "x.xls"]),
            "-b: 'x.xls' needs a .xlsx extension (a comparison's sheets are coloured, which .xls cannot be)"
        );
        assert_eq!(
            err(&["a", "b", "--plots", "d"]),
            "compare: unknown option --plots (ioz compare -h lists its options)"
        );
        assert!(!err(&["a", "b", "--band"]).contains('\n'));
    }
}
