//! The user's input files, read: a saved run (`ioz report`, `ioz compare`,
//! `ioz env`, `ioz history import`), IOzone's text output and another
//! benchmark's result file (fio, IOR, mdtest, elbencho, IO500: `ioz
//! compare`, `ioz history import`, `ioz report`), each through system's
//! one opener (a regular file, never more than its limit), with the words
//! each command has always used when it refuses one.

use std::io;
use std::path::{Path, PathBuf};

use crate::analysis::compare::Tool;
use crate::model::peer::PeerRun;
use crate::model::rank_view::RankError;
use crate::model::result::RunResult;
use crate::report::iozone_log::{self, IozoneLog, LogError};
use crate::report::json::{MAX_RUN_BYTES, ParseRunError, parse_run};
use crate::report::peers::{self, PeerError, PeerFormat};
use crate::system::input_file::{InputError, open_input};

/// An IOzone log larger than this is no log (auto mode's largest is ~100 kB),
/// nor is a peer's result file (fio's json+ of a thousand jobs is ~30 MB).
const MAX_LOG_BYTES: u64 = 64 << 20;

/// How much of a file is read to tell a saved run (JSON) from IOzone's text.
const HEAD_BYTES: usize = 512;

/// How an input names one rank of a cluster run: `run.json#rank=1`.
const RANK_MARK: &str = "#rank=";

/// An input as the user named it, split into the file (or `@` reference,
/// or directory) and the rank it selects of a cluster run, if it does:
/// `run.json#rank=1`, `@42#rank=0`, `runs/#rank=1`.
pub(crate) fn rank_selected(arg: &Path) -> Result<(PathBuf, Option<u32>), BadRank> {
    let Some((path, rank)) = arg.to_str().and_then(|a| a.rsplit_once(RANK_MARK)) else {
        return Ok((arg.to_path_buf(), None));
    };
    match rank.parse::<u32>() {
        Ok(n) if !path.is_empty() => Ok((PathBuf::from(path), Some(n))),
        _ => Err(BadRank {
            input: arg.display().to_string(),
        }),
    }
}

/// An input whose `#rank=` names no rank.
#[derive(Debug, thiserror::Error)]
#[error(
    "{input}: '#rank=' takes a rank's number after a run's path (run.json#rank=1 is rank 1's own run)"
)]
pub(crate) struct BadRank {
    input: String,
}

/// The run a rank selection leaves: the whole run, or one rank's own.
pub(crate) fn of_rank(
    run: RunResult,
    path: &Path,
    rank: Option<u32>,
) -> Result<RunResult, RunFileError> {
    match rank {
        None => Ok(run),
        Some(rank) => run.one_rank(rank).map_err(|source| RunFileError::Rank {
            path: path.to_path_buf(),
            rank,
            source,
        }),
    }
}

/// A label, and after it what it sums when the run is a cluster run's sum:
/// "vm (sum of 2 clients)".
pub(crate) fn labelled(label: String, summed: Option<String>) -> String {
    match summed {
        Some(sum) => format!("{label} ({sum})"),
        None => label,
    }
}

/// Reads the saved run an input names, of one rank when it selects one.
pub(crate) fn read_run_selected(arg: &Path) -> Result<RunResult, RunFileError> {
    let (path, rank) = rank_selected(arg)?;
    of_rank(read_run(&path)?, &path, rank)
}

/// Why a saved run was not read: one line naming the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunFileError {
    #[error("cannot read {}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("cannot read {}: it is {kind}; a saved run is a regular file", path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(
        "cannot read {}: it holds {len} bytes, more than the {MAX_RUN_BYTES} (1 GiB) a saved run may hold",
        path.display()
    )]
    TooLarge { path: PathBuf, len: u64 },
    #[error(transparent)]
    Parse(#[from] ParseRunError),
    #[error(transparent)]
    BadRank(#[from] BadRank),
    #[error("{}{RANK_MARK}{rank}: {source}", path.display())]
    Rank {
        path: PathBuf,
        rank: u32,
        source: RankError,
    },
}

/// Reads a run saved with --json: a regular file of at most
/// [`MAX_RUN_BYTES`], parsed.
pub(crate) fn read_run(path: &Path) -> Result<RunResult, RunFileError> {
    let bytes = read_saved_run(path)?;
    Ok(parse_run(&bytes, &path.display().to_string())?)
}

/// The bytes of a file that should hold a saved run (or another JSON
/// document of at most its size).
pub(crate) fn read_saved_run(path: &Path) -> Result<Vec<u8>, RunFileError> {
    let path_buf = || path.to_path_buf();
    open_input(path)
        .and_then(|f| f.read_all(MAX_RUN_BYTES))
        .map_err(|e| match e {
            InputError::Io(source) => RunFileError::Io {
                path: path_buf(),
                source,
            },
            InputError::NotRegular(kind) => RunFileError::NotRegular {
                path: path_buf(),
                kind,
            },
            InputError::TooLarge { len, .. } => RunFileError::TooLarge {
                path: path_buf(),
                len,
            },
        })
}

/// Why a file given to `ioz compare` or `ioz history import` was not read
/// as text: one line naming it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TextFileError {
    #[error("cannot read {}: {}", path.display(), plain(source))]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "cannot read {}: it is not a regular file; an input is a run, a log or a directory",
        path.display()
    )]
    NotRegular { path: PathBuf },
    #[error(
        "{} is {len} bytes, too large for IOzone's output (at most {MAX_LOG_BYTES})",
        path.display()
    )]
    TooLarge { path: PathBuf, len: u64 },
    #[error("{} is not text: neither a saved ioz run nor IOzone's output", path.display())]
    NotText { path: PathBuf },
}

impl TextFileError {
    fn of(path: &Path, e: InputError) -> TextFileError {
        let path = path.to_path_buf();
        match e {
            InputError::Io(source) => TextFileError::Io { path, source },
            InputError::NotRegular(_) => TextFileError::NotRegular { path },
            InputError::TooLarge { len, .. } => TextFileError::TooLarge { path, len },
        }
    }
}

/// The first bytes of a regular file, as text (to tell JSON from a log).
pub(crate) fn read_head(path: &Path) -> Result<String, TextFileError> {
    let head = open_input(path)
        .and_then(|f| Ok(f.read_head(HEAD_BYTES)?))
        .map_err(|e| TextFileError::of(path, e))?;
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// The whole of a regular file of at most [`MAX_LOG_BYTES`], as text.
pub(crate) fn read_text(path: &Path) -> Result<String, TextFileError> {
    let bytes = open_input(path)
        .and_then(|f| f.read_all(MAX_LOG_BYTES))
        .map_err(|e| TextFileError::of(path, e))?;
    String::from_utf8(bytes).map_err(|_| TextFileError::NotText {
        path: path.to_path_buf(),
    })
}

/// A file `ioz compare` or `ioz history import` takes: a saved run,
/// IOzone's output, or a peer's result file (its text kept, and what it
/// holds).
pub(crate) enum RunOrLog {
    Run(Box<RunResult>),
    Log {
        text: String,
        log: IozoneLog,
    },
    Peer {
        text: String,
        format: PeerFormat,
        run: Box<PeerRun>,
    },
}

/// Why a file is neither a saved run nor IOzone's output.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunOrLogError {
    #[error(transparent)]
    Text(#[from] TextFileError),
    #[error(transparent)]
    Run(#[from] RunFileError),
    #[error(
        "{} is neither a saved ioz run (JSON), IOzone's output, nor a result file of fio, IOR, mdtest, elbencho or IO500",
        path.display()
    )]
    Neither { path: PathBuf },
    #[error("{}: {source}", path.display())]
    NoResults { path: PathBuf, source: LogError },
    #[error("{}: {source}", path.display())]
    Peer { path: PathBuf, source: PeerError },
}

/// The saved run (a file that starts as JSON does, and is no peer's),
/// a peer's result file, or IOzone's output at `path`; anything else is
/// refused.
pub(crate) fn read_run_or_log(path: &Path) -> Result<RunOrLog, RunOrLogError> {
    let head = read_head(path)?;
    if head.trim_start().starts_with('{') && !peers::json_head(&head) {
        return Ok(RunOrLog::Run(Box::new(read_run(path)?)));
    }
    let text = read_text(path)?;
    if let Some(format) = peers::detect(&text) {
        return match peers::parse(format, &text) {
            Ok(run) => Ok(RunOrLog::Peer {
                text,
                format,
                run: Box::new(run),
            }),
            Err(source) => Err(RunOrLogError::Peer {
                path: path.to_path_buf(),
                source,
            }),
        };
    }
    if !iozone_log::looks_like_iozone(&text) {
        return Err(RunOrLogError::Neither {
            path: path.to_path_buf(),
        });
    }
    match iozone_log::parse(&text) {
        Ok(log) => Ok(RunOrLog::Log { text, log }),
        Err(source) => Err(RunOrLogError::NoResults {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// The peer's result file at `path`, when it is one (`None`: a saved run,
/// an IOzone log, or what no reader takes: the caller's own refusal says so).
pub(crate) fn read_peer(path: &Path) -> Option<Result<(PeerFormat, PeerRun), RunOrLogError>> {
    let head = read_head(path).ok()?;
    if head.trim_start().starts_with('{') && !peers::json_head(&head) {
        return None;
    }
    match read_run_or_log(path) {
        Ok(RunOrLog::Peer { format, run, .. }) => Some(Ok((format, *run))),
        Err(e @ RunOrLogError::Peer { .. }) => Some(Err(e)),
        _ => None,
    }
}

/// Whether the file at `path` is IOzone's output or a peer's result file
/// (read only when it is small enough to be one).
pub(crate) fn is_log_or_peer(path: &Path) -> bool {
    read_text(path).is_ok_and(|t| iozone_log::looks_like_iozone(&t) || peers::detect(&t).is_some())
}

/// What measured a saved run.
pub(crate) fn tool_of_run(run: &RunResult) -> Tool {
    Tool {
        name: "ioz".into(),
        version: Some(run.tool_version.clone()),
        command: Some(run.config.command_line.join(" ")),
    }
}

/// What measured an IOzone log (its text names no version ioz can trust).
pub(crate) fn tool_of_log(text: &str) -> Tool {
    Tool {
        name: "IOzone".into(),
        version: None,
        command: text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Command line used:"))
            .map(|c| c.trim().to_string()),
    }
}

/// What measured a peer's run.
pub(crate) fn tool_of_peer(run: &PeerRun) -> Tool {
    Tool {
        name: run.tool.name().into(),
        version: run.version.clone(),
        command: run.command.clone(),
    }
}

/// An I/O error without Rust's "(os error N)".
pub(crate) fn plain(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Exporter;
    use crate::report::json::JsonReport;

    #[test]
    fn a_rank_is_named_after_the_run_s_file() {
        let selected = |a: &str| rank_selected(Path::new(a)).map_err(|e| e.to_string());
        assert_eq!(
            selected("out/run.json#rank=12"),
            Ok((PathBuf::from("out/run.json"), Some(12)))
        );
        assert_eq!(selected("run.json"), Ok((PathBuf::from("run.json"), None)));
        for bad in ["run.json#rank=", "run.json#rank=-1", "#rank=1"] {
            assert!(
                selected(bad).unwrap_err().contains("'#rank=' takes"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_saved_run_reads_back_equal() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let run =
            crate::model::result::sample_result(crate::cli::test_config(&["-i", "0"]), vec![]);
        std::fs::write(&path, JsonReport.render(&run).unwrap()).unwrap();
        assert_eq!(read_run(&path).unwrap(), run);
    }

    #[test]
    fn only_a_regular_file_within_the_limit_is_read_as_a_run() {
        let refusal = |path: &Path| read_run(path).unwrap_err().to_string();
        // /dev/zero was read until memory ran out.
        assert_eq!(
            refusal(Path::new("/dev/zero")),
            "cannot read /dev/zero: it is a character device; a saved run is a regular file"
        );
        let dir = tempfile::tempdir().unwrap();
        let e = refusal(dir.path());
        assert!(
            e.ends_with("it is a directory; a saved run is a regular file"),
            "{e}"
        );
        let fifo = dir.path().join("run.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let e = refusal(&fifo);
        assert!(
            e.ends_with("it is a FIFO; a saved run is a regular file"),
            "{e}"
        );
        let absent = dir.path().join("absent.json");
        let e = refusal(&absent);
        assert!(
            e.starts_with(&format!("cannot read {}: ", absent.display())),
            "{e}"
        );
        let big = dir.path().join("big.json");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_RUN_BYTES + 1)
            .unwrap();
        let e = refusal(&big);
        assert!(
            e.ends_with(
                "it holds 1073741825 bytes, more than the 1073741824 (1 GiB) a saved run may hold"
            ),
            "{e}"
        );
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, b"[1]").unwrap();
        let e = read_run(&bad).unwrap_err();
        assert!(
            matches!(e, RunFileError::Parse(ParseRunError::NoObject { .. })),
            "{e}"
        );
    }

    #[test]
    fn a_log_is_read_whole_as_text_within_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("iozone.log");
        std::fs::write(&log, "\tIozone: Performance Test of File I/O\n").unwrap();
        assert!(read_head(&log).unwrap().starts_with("\tIozone"));
        assert_eq!(read_text(&log).unwrap(), read_head(&log).unwrap());
        let binary = dir.path().join("binary");
        std::fs::write(&binary, [0xff, 0xfe]).unwrap();
        assert_eq!(
            read_text(&binary).unwrap_err().to_string(),
            format!(
                "{} is not text: neither a saved ioz run nor IOzone's output",
                binary.display()
            )
        );
        let big = dir.path().join("big.log");
        std::fs::File::create(&big)
            .unwrap()
            .set_len(MAX_LOG_BYTES + 1)
            .unwrap();
        // The head of a large file is read: it may be a saved run.
        assert_eq!(read_head(&big).unwrap().len(), HEAD_BYTES);
        assert_eq!(
            read_text(&big).unwrap_err().to_string(),
            format!(
                "{} is 67108865 bytes, too large for IOzone's output (at most 67108864)",
                big.display()
            )
        );
        assert_eq!(
            read_head(Path::new("/dev/zero")).unwrap_err().to_string(),
            "cannot read /dev/zero: it is not a regular file; an input is a run, a log or a directory"
        );
        let e = read_text(&dir.path().join("absent"))
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("absent: No such file or directory"), "{e}");
    }

    #[test]
    fn a_file_is_a_run_a_log_or_refused() {
        let dir = tempfile::tempdir().unwrap();
        let text = dir.path().join("notes.txt");
        std::fs::write(&text, "hello\n").unwrap();
        let refusal = |path: &Path| read_run_or_log(path).err().unwrap().to_string();
        assert_eq!(
            refusal(&text),
            format!(
                "{} is neither a saved ioz run (JSON), IOzone's output, nor a result file of fio, IOR, mdtest, elbencho or IO500",
                text.display()
            )
        );
        let empty_log = dir.path().join("empty.log");
        std::fs::write(&empty_log, "\tIozone: Performance Test of File I/O\n").unwrap();
        assert_eq!(
            refusal(&empty_log),
            format!(
                "{}: it holds no IOzone results (no table, no throughput lines)",
                empty_log.display()
            )
        );
        assert!(!is_log_or_peer(&text));
        assert!(is_log_or_peer(&empty_log));
        let run = dir.path().join("run.json");
        std::fs::write(&run, "  {\"schema_version\": 9}").unwrap();
        let e = read_run_or_log(&run).err().unwrap();
        assert!(
            matches!(e, RunOrLogError::Run(RunFileError::Parse(_))),
            "{e}"
        );
    }
}
