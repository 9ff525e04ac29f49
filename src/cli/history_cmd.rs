//! `ioz history SUBCOMMAND …`: the history of runs (list, show, rm,
//! reindex, import, trend, regressions), each with its own `-h`. `show`
//! takes every option of `ioz report` (it is `ioz report` on a stored run).
//! `--history DIR` is taken anywhere; dates and test names are checked
//! where they are used (app/history.rs), since reading them is the
//! history's business.

use std::ffi::OsString;
use std::path::PathBuf;

use lexopt::{Arg, Parser};

use super::number::{parse_record_size, parse_size};
use super::report_cmd::{self, ReportCommand, ReportRequest};
use super::value::{lexopt_error, path_value, string_value};
use super::{UsageError, usage};
use crate::model::formats::{Format, OutputFiles};

/// What `ioz history …` asks for.
#[derive(Debug, PartialEq)]
pub enum HistoryCommand {
    Run(Box<HistoryRequest>),
    /// The help of `ioz history` (None) or of one subcommand.
    Help(Option<&'static str>),
}

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

const SUBCOMMANDS: [&str; 7] = [
    "list",
    "show",
    "rm",
    "reindex",
    "import",
    "trend",
    "regressions",
];

pub fn parse(args: Vec<OsString>) -> Result<HistoryCommand, UsageError> {
    let (dir, args) = take_history_dir(args)?;
    let Some(sub) = args.first().map(|a| a.to_string_lossy().into_owned()) else {
        return Err(usage(
            "history needs a subcommand: list, show, rm, reindex, import, trend or regressions (ioz history -h)",
        ));
    };
    if sub == "-h" || sub == "--help" {
        return Ok(HistoryCommand::Help(None));
    }
    let Some(&sub) = SUBCOMMANDS.iter().find(|s| **s == sub) else {
        return Err(usage(format!(
            "history: unknown subcommand '{sub}'; use list, show, rm, reindex, import, trend or regressions (ioz history -h)"
        )));
    };
    let rest: Vec<OsString> = args.into_iter().skip(1).collect();
    if rest.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(HistoryCommand::Help(Some(sub)));
    }
    let action = match sub {
        "show" => show(rest)?,
        "list" => HistoryAction::List(only_selection(rest, "list")?),
        "rm" => rm(rest)?,
        "reindex" => {
            if let Some(a) = rest.first() {
                return Err(usage(format!(
                    "history reindex: unexpected argument '{}' (it takes none)",
                    a.to_string_lossy()
                )));
            }
            HistoryAction::Reindex
        }
        "import" => import(rest)?,
        "trend" => trend(rest)?,
        _ => regressions(rest)?,
    };
    Ok(HistoryCommand::Run(Box::new(HistoryRequest {
        dir,
        action,
    })))
}

/// `--history DIR` (or `--history=DIR`) out of the arguments, wherever it is.
fn take_history_dir(args: Vec<OsString>) -> Result<(Option<PathBuf>, Vec<OsString>), UsageError> {
    let mut dir = None;
    let mut rest = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        if a == "--history" {
            let v = it.next().ok_or_else(|| usage("--history needs a value"))?;
            dir = Some(PathBuf::from(v));
        } else if let Some(v) = a.to_str().and_then(|s| s.strip_prefix("--history=")) {
            dir = Some(PathBuf::from(v));
        } else {
            rest.push(a);
        }
    }
    if dir.as_ref().is_some_and(|d| d.as_os_str().is_empty()) {
        return Err(usage("--history: an empty path is not a directory"));
    }
    Ok((dir, rest))
}

fn show(rest: Vec<OsString>) -> Result<HistoryAction, UsageError> {
    if !rest.iter().any(|a| !a.to_string_lossy().starts_with('-')) {
        return Err(usage(
            "history show needs a run: ioz history show ID (ioz history list shows the ids)",
        ));
    }
    match report_cmd::parse(rest.into_iter()).map_err(|e| {
        UsageError(match e.0.strip_prefix("report: ") {
            Some(rest) => format!(
                "history show: {}",
                rest.replace("ioz report -h", "ioz history show -h")
            ),
            None => e.0,
        })
    })? {
        ReportCommand::Render(r) => Ok(HistoryAction::Show(r)),
        ReportCommand::Help => unreachable!("-h is taken before"),
    }
}

fn rm(rest: Vec<OsString>) -> Result<HistoryAction, UsageError> {
    let mut ids = Vec::new();
    for a in rest {
        let a = a.to_string_lossy().into_owned();
        if a.starts_with('-') {
            return Err(unknown("rm", &a));
        }
        ids.push(a);
    }
    if ids.is_empty() {
        return Err(usage(
            "history rm needs the ids of the runs to remove (ioz history list shows them)",
        ));
    }
    Ok(HistoryAction::Rm(ids))
}

fn import(rest: Vec<OsString>) -> Result<HistoryAction, UsageError> {
    let mut parser = Parser::from_args(rest);
    let (mut files, mut date, mut label) = (Vec::new(), None, None);
    while let Some(arg) = next(&mut parser)? {
        match arg {
            Owned::Long(l) if l == "date" => date = Some(string_value(&mut parser, "--date")?),
            Owned::Long(l) if l == "label" => label = Some(string_value(&mut parser, "--label")?),
            Owned::Value(v) => files.push(PathBuf::from(v)),
            other => return Err(unknown("import", &spelled(&other))),
        }
    }
    if files.is_empty() {
        return Err(usage(
            "history import needs files: saved ioz runs (JSON) or IOzone logs (ioz history import -h)",
        ));
    }
    if let Some(l) = &label
        && (l.is_empty() || l.chars().any(char::is_control))
    {
        return Err(usage(format!(
            "--label: {l:?} is not one line of text: give a name without line breaks or control characters"
        )));
    }
    Ok(HistoryAction::Import { files, date, label })
}

/// An argument that no longer borrows the parser, so the parser can be
/// asked for its value.
enum Owned {
    Short(char),
    Long(String),
    Value(OsString),
}

fn next(parser: &mut Parser) -> Result<Option<Owned>, UsageError> {
    Ok(parser.next().map_err(lexopt_error)?.map(|a| match a {
        Arg::Short(c) => Owned::Short(c),
        Arg::Long(l) => Owned::Long(l.to_string()),
        Arg::Value(v) => Owned::Value(v),
    }))
}

/// The options every selecting subcommand takes; `Ok(false)` when `arg`
/// is not one of them.
fn selection_option(
    arg: &Owned,
    parser: &mut Parser,
    s: &mut Selection,
) -> Result<bool, UsageError> {
    let Owned::Long(long) = arg else {
        return Ok(false);
    };
    match long.as_str() {
        "label" => s.labels.push(string_value(parser, "--label")?),
        "host" => s.host = Some(string_value(parser, "--host")?),
        "fs" => s.fs = Some(string_value(parser, "--fs")?),
        "since" => s.since = Some(string_value(parser, "--since")?),
        "until" => s.until = Some(string_value(parser, "--until")?),
        "status" => {
            let v = string_value(parser, "--status")?;
            if !["complete", "interrupted", "failed"].contains(&v.as_str()) {
                return Err(usage(format!(
                    "--status: '{v}' is not a status; use complete, interrupted or failed"
                )));
            }
            s.status = Some(v);
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn only_selection(rest: Vec<OsString>, sub: &str) -> Result<Selection, UsageError> {
    let mut parser = Parser::from_args(rest);
    let mut s = Selection::default();
    while let Some(arg) = next(&mut parser)? {
        if !selection_option(&arg, &mut parser, &mut s)? {
            return Err(unknown(sub, &spelled(&arg)));
        }
    }
    Ok(s)
}

fn trend(rest: Vec<OsString>) -> Result<HistoryAction, UsageError> {
    let mut parser = Parser::from_args(rest);
    let mut r = TrendRequest {
        selection: Selection::default(),
        cell: None,
        tests: Vec::new(),
        ratio_to: None,
        text: false,
        outputs: OutputFiles::default(),
        force: false,
    };
    let (mut size, mut record) = (None, None);
    while let Some(arg) = next(&mut parser)? {
        if selection_option(&arg, &mut parser, &mut r.selection)? {
            continue;
        }
        match arg {
            Owned::Long(l) if l == "size" => {
                let v = string_value(&mut parser, "--size")?;
                size = Some(parse_size(&v).map_err(|e| usage(format!("--size {v}: {e}")))?);
            }
            Owned::Long(l) if l == "record" => {
                let v = string_value(&mut parser, "--record")?;
                record =
                    Some(parse_record_size(&v).map_err(|e| usage(format!("--record {v}: {e}")))?);
            }
            Owned::Long(l) if l == "test" => r.tests.push(string_value(&mut parser, "--test")?),
            Owned::Long(l) if l == "ratio-to" => {
                r.ratio_to = Some(string_value(&mut parser, "--ratio-to")?)
            }
            Owned::Long(l) if l == "text" => r.text = true,
            Owned::Long(l) if l == "force" => r.force = true,
            Owned::Long(l) if l == "json" => r
                .outputs
                .add(Format::Json, path_value(&mut parser, "--json")?),
            Owned::Long(l) if l == "csv" => r
                .outputs
                .add(Format::Csv, path_value(&mut parser, "--csv")?),
            Owned::Long(l) if l == "html" => r
                .outputs
                .add(Format::Html, path_value(&mut parser, "--html")?),
            other => return Err(unknown("trend", &spelled(&other))),
        }
    }
    r.cell = match (size, record) {
        (Some(s), Some(rec)) => Some((s, rec)),
        (None, None) => None,
        _ => {
            return Err(usage(
                "history trend: --size and --record name one cell together; give both or neither",
            ));
        }
    };
    r.text |= r.outputs.is_empty();
    Ok(HistoryAction::Trend(r))
}

fn regressions(rest: Vec<OsString>) -> Result<HistoryAction, UsageError> {
    let mut parser = Parser::from_args(rest);
    let mut selection = Selection::default();
    let mut fail = false;
    let mut band_percent = super::compare_cmd::DEFAULT_BAND;
    while let Some(arg) = next(&mut parser)? {
        if selection_option(&arg, &mut parser, &mut selection)? {
            continue;
        }
        match arg {
            Owned::Long(l) if l == "fail" => fail = true,
            Owned::Long(l) if l == "band" => {
                let v = string_value(&mut parser, "--band")?;
                band_percent = v
                    .trim_end_matches('%')
                    .parse::<f64>()
                    .ok()
                    .filter(|b| (0.0..100.0).contains(b))
                    .ok_or_else(|| {
                        usage(format!(
                            "--band {v}: give a percentage from 0 to 100 (e.g. 5)"
                        ))
                    })?;
            }
            other => return Err(unknown("regressions", &spelled(&other))),
        }
    }
    Ok(HistoryAction::Regressions {
        selection,
        fail,
        band_percent,
    })
}

fn spelled(arg: &Owned) -> String {
    match arg {
        Owned::Short(c) => format!("-{c}"),
        Owned::Long(l) => format!("--{l}"),
        Owned::Value(v) => v.to_string_lossy().into_owned(),
    }
}

fn unknown(sub: &str, option: &str) -> UsageError {
    if option.starts_with('-') {
        usage(format!(
            "history {sub}: unknown option {option} (ioz history {sub} -h lists its options)"
        ))
    } else {
        usage(format!(
            "history {sub}: unexpected argument '{option}' (ioz history {sub} -h)"
        ))
    }
}

const SELECTION_HELP: &str = "  --label L         runs with this label (repeat for several)
  --host H          runs measured on host H
  --fs TYPE         runs on this file system type (ext4, xfs, tmpfs, …)
  --since DATE      runs from DATE on (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS, UTC)
  --until DATE      runs up to DATE (a bare date includes that day)
  --status S        complete, interrupted or failed runs only
";

const DIR_HELP: &str = "  --history DIR     the history in DIR (default: $IOZ_HISTORY, else
                    $XDG_DATA_HOME/ioz or ~/.local/share/ioz)
  -h, --help        this help
";

/// `ioz history -h` and each subcommand's.
pub fn history_help_text(sub: Option<&str>) -> String {
    let body = match sub {
        None => "\
Usage: ioz history SUBCOMMAND [OPTIONS]

Every measuring run is recorded: its JSON is kept in the history's
directory and indexed in history.sqlite beside it (--no-history or
IOZ_NO_HISTORY=1 records nothing). ioz compare takes @ID, @last and
@label:NAME wherever it takes a file.

Subcommands (each has its own -h):
  list          one line per run: id, date, label, host, file system, device, command, status
  show ID       a stored run rendered as ioz report renders it (all its options)
  rm ID…        remove runs (their files and their rows)
  reindex       rebuild the index from the stored files
  import FILE…  store saved ioz runs (JSON) and IOzone logs
  trend         a table of runs by date and tests, with ratio rows (--csv, --json, --html)
  regressions   each label's latest run against the ones before it

Options:
"
        .to_string(),
        Some("list") => format!(
            "Usage: ioz history list [OPTIONS]\n\nOne line per stored run, oldest first: id, date, label, host, file\nsystem and device, status, command line.\n\nOptions:\n{SELECTION_HELP}"
        ),
        Some("show") => format!(
            "Usage: ioz history show ID [OPTIONS]\n\nA stored run rendered exactly as ioz report renders it. ID is a run's\nid (42 or @42) or last. An imported IOzone log is shown as it was.\n\nOptions (those of ioz report):\n{}",
            report_options()
        ),
        Some("rm") => "Usage: ioz history rm ID…\n\nRemoves the runs: their files in the history and their rows.\n\nOptions:\n".to_string(),
        Some("reindex") => "Usage: ioz history reindex\n\nRebuilds the index (history.sqlite) from the stored runs: the files\nare the history, the index only finds them.\n\nOptions:\n".to_string(),
        Some("import") => "\
Usage: ioz history import FILE… [--label L] [--date DATE]

Stores saved ioz runs (JSON) and IOzone logs in the history. A log is
dated by IOzone's `Run began:` line, else by --date, else by the file's
modification time.

Options:
  --label L         the label of the imported runs (a saved run's own is replaced)
  --date DATE       the date of logs without `Run began:` (YYYY-MM-DD[THH:MM:SS], UTC)
"
        .to_string(),
        Some("trend") => format!(
            "\
Usage: ioz history trend [OPTIONS]

Runs by date (rows, with their labels) and tests (columns): each value is
the chosen cell's rate, or each test's mean over the cells the runs
share. Complete runs only.

Options:
  --size FILE       with --record: the one cell shown (e.g. --size 4m --record 64k)
  --record REC
  --test T          the tests shown (write, rewrite, read, random read, …; repeat)
  --ratio-to L      ratio rows: each run against the run of label L nearest in date
  --csv F           the table as CSV
  --json F          the table as JSON
  --html F          one line per label per test over time (inline SVG)
  --text            print the table also with files
  --force           replace result files ioz did not write
{SELECTION_HELP}"
        ),
        _ => format!(
            "\
Usage: ioz history regressions [OPTIONS]

For each label (and host and target), its latest run against the runs
before it: the cells significantly slower than the band, as ioz compare
finds them (Welch's t on log rates, Benjamini-Hochberg). Complete runs only.

Options:
  --fail            exit 1 when any cell is slower (a nightly CI step)
  --band PCT        differences within ±PCT % are the same (default 5)
{SELECTION_HELP}"
        ),
    };
    format!("{body}{DIR_HELP}")
}

/// `ioz report -h`'s option lines.
fn report_options() -> String {
    super::report_help_text()
        .lines()
        .skip_while(|l| !l.starts_with("  -"))
        .take_while(|l| l.starts_with("  "))
        .filter(|l| !l.starts_with("  -h, --help"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<HistoryCommand, UsageError> {
        parse(args.iter().map(OsString::from).collect())
    }

    fn action(args: &[&str]) -> HistoryAction {
        match parsed(args) {
            Ok(HistoryCommand::Run(r)) => r.action,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn every_subcommand_has_its_help() {
        assert_eq!(parsed(&["-h"]), Ok(HistoryCommand::Help(None)));
        for sub in SUBCOMMANDS {
            assert_eq!(
                parsed(&[sub, "--help"]),
                Ok(HistoryCommand::Help(Some(sub)))
            );
            assert!(history_help_text(Some(sub)).starts_with(&format!("Usage: ioz history {sub}")));
        }
    }

    #[test]
    fn the_history_directory_is_taken_anywhere() {
        match parsed(&["list", "--history", "/h", "--label", "a"]) {
            Ok(HistoryCommand::Run(r)) => {
                assert_eq!(r.dir, Some(PathBuf::from("/h")));
                assert_eq!(
                    r.action,
                    HistoryAction::List(Selection {
                        labels: vec!["a".into()],
                        ..Selection::default()
                    })
                );
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn show_takes_the_options_of_report() {
        let HistoryAction::Show(r) = action(&["show", "42", "--json", "j.json", "-R"]) else {
            panic!()
        };
        assert_eq!(r.input, PathBuf::from("42"));
        assert!(r.excel_report);
        assert_eq!(r.outputs.path(Format::Json), Some(&PathBuf::from("j.json")));
    }

    #[test]
    fn refusals_name_the_subcommand() {
        let e = |args: &[&str]| parsed(args).unwrap_err().0;
        assert!(e(&[]).contains("needs a subcommand"));
        assert!(e(&["lst"]).contains("unknown subcommand 'lst'"));
        assert!(e(&["list", "--bogus"]).contains("history list: unknown option --bogus"));
        assert!(e(&["show"]).contains("history show needs a run"));
        assert!(e(&["show", "1", "--bogus"]).contains("history show: unknown option --bogus"));
        assert!(e(&["rm"]).contains("needs the ids"));
        assert!(e(&["import"]).contains("needs files"));
        assert!(e(&["trend", "--size", "4m"]).contains("give both or neither"));
        assert!(e(&["list", "--status", "ok"]).contains("is not a status"));
        assert!(e(&["regressions", "--band", "x"]).contains("--band x"));
        assert!(e(&["reindex", "now"]).contains("takes none"));
    }

    #[test]
    fn a_trend_cell_is_in_bytes() {
        let HistoryAction::Trend(t) = action(&["trend", "--size", "4m", "--record", "64k"]) else {
            panic!()
        };
        assert_eq!(t.cell, Some((4 << 20, 64 << 10)));
        assert!(t.text);
    }
}
