//! `ioz history SUBCOMMAND …`: the history of runs (list, show, rm,
//! reindex, import, trend, regressions), each subcommand a grammar of its
//! own with its own `-h`. `show` takes every option of `ioz report` (it is
//! `ioz report` on a stored run). `--history DIR` is taken before the
//! subcommand and after it; dates and test names are checked where they are
//! used (app/history.rs), since reading them is the history's business.

use std::ffi::OsString;
use std::path::PathBuf;

use super::grammar::Spelling::Long;
use super::grammar::{Choice, Count, Flag, Grammar, Number, Operand, Section, Taken, Target};
use super::report_cmd::{self, ReportRequest, ReportSeen};
use super::shared::{self, DEFAULT_BAND};
use super::spelling::closest;
use super::{Command, Read, UsageError, read, usage};
use crate::model::formats::{Format, OutputFiles};
use crate::model::host::Host;

#[derive(Debug, PartialEq)]
pub struct HistoryRequest {
    /// `--history DIR` (else IOZ_HISTORY, else the data directory).
    pub dir: Option<PathBuf>,
    pub action: HistoryAction,
}

#[derive(Debug, PartialEq)]
pub enum HistoryAction {
    List(Selection),
    /// `show ID [ioz report's options]`: the request's input is the run's
    /// reference as given (`42`, `@42`, `last`).
    Show(ReportRequest),
    Rm(Vec<String>),
    Reindex,
    Import {
        files: Vec<PathBuf>,
        /// `--date`: for logs without a `Run began:` line.
        date: Option<String>,
        /// `--label`: the configuration the imported runs measured.
        label: Option<String>,
    },
    Trend(TrendRequest),
    Regressions {
        selection: Selection,
        /// `--fail`: exit 1 when there is a regression.
        fail: bool,
        band_percent: f64,
    },
}

/// Which runs: every field given must match.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub labels: Vec<String>,
    pub host: Option<String>,
    pub fs: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    /// `complete`, `interrupted` or `failed`.
    pub status: Option<String>,
    /// `--stamp`: `valid`, `invalid`, `not-checkable` or `unchecked`.
    pub stamp: Option<String>,
    /// `--include-invalid` (trend, regressions): runs stamped invalid kept.
    pub include_invalid: bool,
}

#[derive(Debug, PartialEq)]
pub struct TrendRequest {
    pub selection: Selection,
    /// `--size FILE --record REC`: the one cell shown, in bytes.
    pub cell: Option<(u64, u64)>,
    /// `--test T`: the tests shown (names as `-h` lists them).
    pub tests: Vec<String>,
    pub ratio_to: Option<String>,
    pub text: bool,
    /// --csv, --json, --html.
    pub outputs: OutputFiles,
    pub force: bool,
}

/// What the history's flags set, for every subcommand (each reads its own).
#[derive(Default)]
pub(super) struct HistorySeen {
    /// The subcommand named (the first word after `ioz history`).
    sub: Option<&'static str>,
    dir: Option<PathBuf>,
    /// rm's ids, import's files.
    words: Vec<OsString>,
    selection: Selection,
    size: Option<u64>,
    record: Option<u64>,
    tests: Vec<String>,
    ratio_to: Option<String>,
    text: bool,
    outputs: OutputFiles,
    force: bool,
    fail: bool,
    band_percent: Option<f64>,
    date: Option<String>,
    label: Option<String>,
}

impl Target for HistorySeen {}

const DIR_HELP: &str =
    "the history in DIR (default: $IOZ_HISTORY, else $XDG_DATA_HOME/ioz or ~/.local/share/ioz)";

/// `--history DIR` and the help, last in every subcommand's table.
const DIR: Section<HistorySeen> = Section {
    title: "",
    note: "",
    flags: &[
        shared::history_dir(DIR_HELP, |s, dir| s.dir = Some(dir)),
        shared::help(),
        shared::help_long(),
    ],
};

/// The runs a subcommand reads: list, trend, regressions.
const SELECTION: Section<HistorySeen> = Section {
    title: "",
    note: "",
    flags: &[
        Flag::text(
            Long("label"),
            "L",
            "runs with this label (repeat for several)",
            |s, label| s.selection.labels.push(label),
        ),
        Flag::text(Long("host"), "H", "runs measured on host H", |s, host| {
            s.selection.host = Some(host)
        }),
        Flag::text(
            Long("fs"),
            "TYPE",
            "runs on this file system type (ext4, xfs, tmpfs, …)",
            |s, fs| s.selection.fs = Some(fs),
        ),
        Flag::text(
            Long("since"),
            "DATE",
            "runs from DATE on (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, UTC)",
            |s, date| s.selection.since = Some(date),
        ),
        Flag::text(
            Long("until"),
            "DATE",
            "runs up to DATE (a bare date includes that day)",
            |s, date| s.selection.until = Some(date),
        ),
        Flag::choice(
            Long("status"),
            "S",
            Choice {
                names: &["complete", "interrupted", "failed"],
                expected: "a status; use complete, interrupted or failed",
                default: None,
            },
            "complete, interrupted or failed runs only",
            |s, status| s.selection.status = Some(status.to_string()),
        ),
        Flag::choice(
            Long("stamp"),
            "S",
            Choice {
                names: &["valid", "invalid", "not-checkable", "unchecked"],
                expected: "a stamp; use valid, invalid, not-checkable or unchecked",
                default: None,
            },
            "runs stamped so under the --rules they claimed (unchecked: none claimed)",
            |s, stamp| s.selection.stamp = Some(stamp.to_string()),
        ),
    ],
};

/// trend's and regressions' own: the runs they leave out by default.
const INCLUDE_INVALID: Flag<HistorySeen> = Flag::switch(
    Long("include-invalid"),
    "keep the runs stamped invalid under their --rules (left out, and counted, by default)",
    |s| s.selection.include_invalid = true,
);

/// A subcommand that takes no word: `history {sub}: unexpected argument`.
fn no_word(sub: &str, word: OsString) -> Result<Taken, UsageError> {
    Err(usage(format!(
        "history {sub}: unexpected argument '{}' (ioz history {sub} -h)",
        word.to_string_lossy()
    )))
}

/// rm's ids and import's files.
fn each_word(seen: &mut HistorySeen, word: OsString) -> Result<Taken, UsageError> {
    seen.words.push(word);
    Ok(Taken::Next)
}

const LIST: Grammar<HistorySeen> = Grammar {
    name: "history list",
    summary: "one line per run: id, date, label, host, file system, device, stamp, command",
    about: "\
One line per stored run, oldest first: id, date, label, host, file
system and device, job, status, stamp (the --rules claimed and the run's
verdict), command line.",
    operands: &[],
    operand: |_, word| no_word("list", word),
    sections: &[SELECTION, DIR],
    subcommands: &[],
    tail: "",
};

/// `ioz history show`: ioz report's table, and --history.
const SHOW_SECTIONS: [Section<ReportSeen>; 5] = [
    report_cmd::SECTIONS[0],
    report_cmd::SECTIONS[1],
    report_cmd::SECTIONS[2],
    Section {
        title: "",
        note: "",
        flags: &[shared::history_dir(DIR_HELP, |s, dir| {
            s.history_dir = Some(dir)
        })],
    },
    report_cmd::SECTIONS[3],
];

const SHOW: Grammar<ReportSeen> = Grammar {
    name: "history show",
    summary: "a stored run rendered as ioz report renders it (all its options)",
    about: "\
A stored run rendered exactly as ioz report renders it. An imported IOzone
log is shown as it was.",
    operands: &[Operand {
        name: "ID",
        help: "a run's id (42 or @42), or last",
        count: Count::One,
        path: false,
    }],
    operand: |seen, word| report_cmd::one_run(seen, word, "history show"),
    sections: &SHOW_SECTIONS,
    subcommands: &[],
    tail: "",
};

const RM: Grammar<HistorySeen> = Grammar {
    name: "history rm",
    summary: "remove runs (their files and their rows)",
    about: "Removes the runs: their files in the history and their rows.",
    operands: &[Operand {
        name: "ID",
        help: "a run's id (ioz history list shows them)",
        count: Count::Many,
        path: false,
    }],
    operand: each_word,
    sections: &[DIR],
    subcommands: &[],
    tail: "",
};

const REINDEX: Grammar<HistorySeen> = Grammar {
    name: "history reindex",
    summary: "rebuild the index from the stored files",
    about: "\
Rebuilds the index (history.sqlite) from the stored runs: the files
are the history, the index only finds them.",
    operands: &[],
    operand: |_, word| {
        Err(usage(format!(
            "history reindex: unexpected argument '{}' (it takes none)",
            word.to_string_lossy()
        )))
    },
    sections: &[DIR],
    subcommands: &[],
    tail: "",
};

const IMPORT: Grammar<HistorySeen> = Grammar {
    name: "history import",
    summary: "store saved ioz runs (JSON), IOzone logs and other benchmarks' results",
    about: "\
Stores saved ioz runs (JSON), IOzone logs and other benchmarks' result files
(fio, IOR, mdtest, elbencho, IO500) in the history. A log is dated by
IOzone's `Run began:` line and a result file by the date it gives, else by
--date, else by the file's modification time.",
    operands: &[Operand {
        name: "FILE",
        help: "a saved ioz run (JSON), an IOzone log, or a result file of fio, IOR, mdtest, \
               elbencho or IO500",
        count: Count::Many,
        path: true,
    }],
    operand: each_word,
    sections: &[
        Section {
            title: "",
            note: "",
            flags: &[
                Flag::text(
                    Long("label"),
                    "L",
                    "the label of the imported runs (a saved run's own is replaced)",
                    |s, label| s.label = Some(label),
                ),
                Flag::text(
                    Long("date"),
                    "DATE",
                    "the date of logs without `Run began:` (YYYY-MM-DD[THH:MM:SS], UTC)",
                    |s, date| s.date = Some(date),
                ),
            ],
        },
        DIR,
    ],
    subcommands: &[],
    tail: "",
};

const TREND: Grammar<HistorySeen> = Grammar {
    name: "history trend",
    summary: "a table of runs by date and tests, with ratio rows (--csv, --json, --html)",
    about: "\
Runs by date (rows, with their labels) and tests (columns): each value is
the chosen cell's rate, or each test's mean over the cells the runs
share. Complete runs only; runs stamped invalid under their --rules are
left out (and counted on stderr) unless --include-invalid.",
    operands: &[],
    operand: |_, word| no_word("trend", word),
    sections: &[
        Section {
            title: "",
            note: "",
            flags: &[
                Flag::number(
                    Long("size"),
                    "SIZE",
                    Number::Size,
                    "with --record: the one cell shown (e.g. --size 4m --record 64k)",
                    |s, bytes| s.size = Some(bytes),
                ),
                Flag::number(
                    Long("record"),
                    "REC",
                    Number::RecordSize,
                    "with --size: the one cell shown",
                    |s, bytes| s.record = Some(bytes),
                ),
                Flag::text(
                    Long("test"),
                    "T",
                    "the tests shown (write, rewrite, read, random read, …; repeat)",
                    |s, test| s.tests.push(test),
                ),
                Flag::text(
                    Long("ratio-to"),
                    "L",
                    "ratio rows: each run over the L run nearest in time (the earlier of two as near)",
                    |s, label| s.ratio_to = Some(label),
                ),
                shared::output(Format::Csv, |s: &mut HistorySeen| &mut s.outputs)
                    .said("the table as CSV"),
                shared::output(Format::Json, |s: &mut HistorySeen| &mut s.outputs)
                    .said("the table as JSON"),
                shared::output(Format::Html, |s: &mut HistorySeen| &mut s.outputs)
                    .said("one line per label per test over time (inline SVG)"),
                shared::text("print the table also with files", |s| s.text = true),
                shared::force("replace result files ioz did not write", |s| s.force = true),
                INCLUDE_INVALID,
            ],
        },
        SELECTION,
        DIR,
    ],
    subcommands: &[],
    tail: "",
};

const REGRESSIONS: Grammar<HistorySeen> = Grammar {
    name: "history regressions",
    summary: "each label's latest run against the ones before it",
    about: "\
For each label (and host and target), its latest run against the runs
before it: the cells significantly slower than the band, as ioz compare
finds them (Welch's t on log rates, Benjamini-Hochberg). Complete runs only;
runs stamped invalid under their --rules are left out (and counted on
stderr) unless --include-invalid.",
    operands: &[],
    operand: |_, word| no_word("regressions", word),
    sections: &[
        Section {
            title: "",
            note: "",
            flags: &[
                Flag::switch(
                    Long("fail"),
                    "exit 1 when any cell is slower (a nightly CI step)",
                    |s| s.fail = true,
                ),
                shared::band(|s, band| s.band_percent = Some(band)),
                INCLUDE_INVALID,
            ],
        },
        SELECTION,
        DIR,
    ],
    subcommands: &[],
    tail: "",
};

/// `ioz history`: the subcommand, and the options before it.
pub(super) const GRAMMAR: Grammar<HistorySeen> = Grammar {
    name: "history",
    summary: "the history of runs: list, show, import, trend, regressions…",
    about: "\
Every measuring run is recorded: its JSON is kept in the history's
directory and indexed in history.sqlite beside it (--no-history or
IOZ_NO_HISTORY=1 records nothing). ioz compare takes @ID, @last and
@label:NAME wherever it takes a file.",
    operands: &[Operand {
        name: "SUBCOMMAND",
        help: "one of the subcommands below, with its options",
        count: Count::One,
        path: false,
    }],
    operand: subcommand,
    sections: &[DIR],
    subcommands: &[&LIST, &SHOW, &RM, &REINDEX, &IMPORT, &TREND, &REGRESSIONS],
    tail: "",
};

/// The subcommands' names: `list`, `show`, …
fn subcommand_names() -> impl Iterator<Item = &'static str> {
    GRAMMAR
        .subcommands
        .iter()
        .map(|sub| sub.name().trim_start_matches("history "))
}

/// `list, show, rm, reindex, import, trend or regressions`.
fn named_list() -> String {
    let names: Vec<&str> = subcommand_names().collect();
    match names.split_last() {
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The first word: a subcommand, which reads the rest.
fn subcommand(seen: &mut HistorySeen, word: OsString) -> Result<Taken, UsageError> {
    let word = word.to_string_lossy();
    if let Some(sub) = subcommand_names().find(|sub| *sub == word) {
        seen.sub = Some(sub);
        return Ok(Taken::Rest);
    }
    Err(usage(match closest(&word, subcommand_names()) {
        Some(near) => format!("history: unknown subcommand '{word}'; did you mean {near}?"),
        None => format!(
            "history: unknown subcommand '{word}'; use {} (ioz history -h)",
            named_list()
        ),
    }))
}

/// `ioz history …` (the words after `history`).
pub(super) fn parse(args: Vec<OsString>, host: &Host) -> Result<Command, UsageError> {
    let (top, rest) = match read(&GRAMMAR, args, host)? {
        Read::Seen(top, rest) => (top, rest),
        Read::Shown(command) => return Ok(*command),
    };
    let Some(sub) = top.sub else {
        return Err(usage(format!(
            "history needs a subcommand: {} (ioz history -h)",
            named_list()
        )));
    };
    let (dir, action) = if sub == "show" {
        let seen = match read(&SHOW, rest, host)? {
            Read::Seen(seen, _) => seen,
            Read::Shown(command) => return Ok(*command),
        };
        let dir = seen.history_dir.clone();
        let missing =
            "history show needs a run: ioz history show ID (ioz history list shows the ids)";
        (dir, HistoryAction::Show(report_cmd::finish(seen, missing)?))
    } else {
        let grammar = match sub {
            "list" => &LIST,
            "rm" => &RM,
            "reindex" => &REINDEX,
            "import" => &IMPORT,
            "trend" => &TREND,
            _ => &REGRESSIONS,
        };
        let mut seen = match read(grammar, rest, host)? {
            Read::Seen(seen, _) => seen,
            Read::Shown(command) => return Ok(*command),
        };
        (seen.dir.take(), action(sub, seen)?)
    };
    Ok(Command::History(HistoryRequest {
        dir: dir.or(top.dir),
        action,
    }))
}

/// What a subcommand asks for, once its command line is read.
fn action(sub: &str, seen: HistorySeen) -> Result<HistoryAction, UsageError> {
    let words = || -> Vec<String> {
        seen.words
            .iter()
            .map(|w| w.to_string_lossy().into_owned())
            .collect()
    };
    Ok(match sub {
        "list" => HistoryAction::List(seen.selection),
        "rm" if seen.words.is_empty() => {
            return Err(usage(
                "history rm needs the ids of the runs to remove (ioz history list shows them)",
            ));
        }
        "rm" => HistoryAction::Rm(words()),
        "reindex" => HistoryAction::Reindex,
        "import" => import(seen)?,
        "trend" => trend(seen)?,
        _ => HistoryAction::Regressions {
            selection: seen.selection,
            fail: seen.fail,
            band_percent: seen.band_percent.unwrap_or(DEFAULT_BAND),
        },
    })
}

fn import(seen: HistorySeen) -> Result<HistoryAction, UsageError> {
    if seen.words.is_empty() {
        return Err(usage(
            "history import needs files: saved ioz runs (JSON), IOzone logs or peers' result files (ioz history import -h)",
        ));
    }
    if let Some(l) = &seen.label
        && (l.is_empty() || l.chars().any(char::is_control))
    {
        return Err(usage(format!(
            "--label: {l:?} is not one line of text: give a name without line breaks or control characters"
        )));
    }
    Ok(HistoryAction::Import {
        files: seen.words.into_iter().map(PathBuf::from).collect(),
        date: seen.date,
        label: seen.label,
    })
}

fn trend(seen: HistorySeen) -> Result<HistoryAction, UsageError> {
    let cell = match (seen.size, seen.record) {
        (Some(size), Some(record)) => Some((size, record)),
        (None, None) => None,
        _ => {
            return Err(usage(
                "history trend: --size and --record name one cell together; give both or neither",
            ));
        }
    };
    Ok(HistoryAction::Trend(TrendRequest {
        selection: seen.selection,
        cell,
        tests: seen.tests,
        ratio_to: seen.ratio_to,
        text: seen.text || seen.outputs.is_empty(),
        outputs: seen.outputs,
        force: seen.force,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Command, UsageError> {
        parse(args.iter().map(OsString::from).collect(), &Host::example())
    }

    fn request(args: &[&str]) -> HistoryRequest {
        match parsed(args) {
            Ok(Command::History(r)) => r,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn every_subcommand_has_its_help() {
        let Ok(Command::Print(top)) = parsed(&["-h"]) else {
            panic!()
        };
        assert!(top.text.starts_with("Usage: ioz history SUBCOMMAND"));
        for sub in subcommand_names() {
            let Ok(Command::Print(help)) = parsed(&[sub, "--help"]) else {
                panic!("{sub}")
            };
            assert!(
                help.text.starts_with(&format!("Usage: ioz history {sub}")),
                "{}",
                help.text
            );
            assert!(top.text.contains(&format!("\n  {sub}")), "{sub}");
        }
    }

    #[test]
    fn the_history_directory_is_taken_before_and_after_the_subcommand() {
        let r = request(&["list", "--history", "/h", "--label", "a"]);
        assert_eq!(r.dir, Some(PathBuf::from("/h")));
        assert_eq!(
            r.action,
            HistoryAction::List(Selection {
                labels: vec!["a".into()],
                ..Selection::default()
            })
        );
        assert_eq!(
            request(&["--history", "/g", "reindex"]).dir,
            Some(PathBuf::from("/g"))
        );
        assert_eq!(
            request(&["--history=/g", "show", "1", "--history", "/h"]).dir,
            Some(PathBuf::from("/h"))
        );
    }

    #[test]
    fn show_takes_the_options_of_report() {
        let HistoryAction::Show(r) = request(&["show", "42", "--json", "j.json", "-R"]).action
        else {
            panic!()
        };
        assert_eq!(r.input, PathBuf::from("42"));
        assert!(r.excel_report);
        assert_eq!(
            r.outputs.of(Format::Json).last(),
            Some(&PathBuf::from("j.json"))
        );
    }

    #[test]
    fn refusals_name_the_subcommand() {
        let e = |args: &[&str]| parsed(args).unwrap_err().0;
        assert_eq!(
            e(&[]),
            "history needs a subcommand: list, show, rm, reindex, import, trend or regressions (ioz history -h)"
        );
        assert_eq!(
            e(&["lst"]),
            "history: unknown subcommand 'lst'; did you mean list?"
        );
        assert_eq!(
            e(&["frobnicate"]),
            "history: unknown subcommand 'frobnicate'; use list, show, rm, reindex, import, trend or regressions (ioz history -h)"
        );
        assert_eq!(
            e(&["list", "--bogus"]),
            "history list: unknown option --bogus (ioz history list -h lists its options)"
        );
        assert!(e(&["show"]).contains("history show needs a run"));
        assert_eq!(
            e(&["show", "1", "--bogus"]),
            "history show: unknown option --bogus (ioz history show -h lists its options)"
        );
        assert!(e(&["show", "1", "2"]).starts_with("history show: unexpected argument '2'"));
        assert!(e(&["rm"]).contains("needs the ids"));
        assert!(e(&["rm", "-x"]).starts_with("history rm: unknown option -x"));
        assert!(e(&["import"]).contains("needs files"));
        assert!(e(&["import", "f", "--label", "a\nb"]).contains("is not one line of text"));
        assert!(e(&["trend", "--size", "4m"]).contains("give both or neither"));
        assert!(e(&["list", "--status", "ok"]).contains("is not a status"));
        assert!(e(&["list", "x"]).starts_with("history list: unexpected argument 'x'"));
        assert!(e(&["regressions", "--band", "x"]).starts_with("--band: 'x'"));
        assert!(e(&["reindex", "now"]).contains("takes none"));
    }

    #[test]
    fn a_trend_cell_is_in_bytes() {
        let HistoryAction::Trend(t) = request(&["trend", "--size", "4m", "--record", "64k"]).action
        else {
            panic!()
        };
        assert_eq!(t.cell, Some((4 << 20, 64 << 10)));
        assert!(t.text);
    }
}
