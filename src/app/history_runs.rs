//! What every `ioz history` command and `ioz compare`'s history
//! references share: where the history is, the runs a selection picks, a
//! run named by its id, a stored run's samples, and the one-line endings.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::input_files::{labelled, tool_of_log, tool_of_peer, tool_of_run};
use super::output::{SIGPIPE, say};
use crate::analysis::compare::{Input, Side, Tool};
use crate::analysis::samples::{self, SampleSet, unit_name};
use crate::cli::Selection;
use crate::error::Exit;
use crate::history::{
    self, Caller, Entry, Filter, History, HistoryError, Location, StampKind, StatusKind, Stored,
};
use crate::model::dates::{self, NotADate};
use crate::model::environment::Environment;
use crate::report::iozone_log::{self, LogError};
use crate::report::peers::PeerError;

/// Why the runs a command names could not be found or read in the history.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RunsError {
    #[error(transparent)]
    History(#[from] HistoryError),
    #[error("{opt} {source}")]
    Date { opt: &'static str, source: NotADate },
    #[error("'{reference}' is not a run of the history: give its id (ioz history list), or last")]
    NotAnId { reference: String },
    #[error("no run {id} in the history {}", dir.display())]
    NoSuchRun { id: String, dir: PathBuf },
    /// A stored IOzone log without results.
    #[error("run {id}: {source}")]
    EmptyLog { id: i64, source: LogError },
    /// A stored peer's file that no longer reads.
    #[error("run {id}: {source}")]
    Peer { id: i64, source: PeerError },
    #[error("{reference}: the history {} holds no runs", dir.display())]
    NoHistory { reference: String, dir: PathBuf },
    #[error("{reference}: no complete run with the label '{label}' in the history {}", dir.display())]
    NoLabel {
        reference: String,
        label: String,
        dir: PathBuf,
    },
    #[error("{reference}: {source}")]
    Reference {
        reference: String,
        source: Box<RunsError>,
    },
    #[error(
        "{reference}: run {id} is in {unit} and the runs before it in {before}; one label, one unit"
    )]
    MixedUnits {
        reference: String,
        id: i64,
        unit: &'static str,
        before: &'static str,
    },
    /// `@42#rank=5` of a run without that rank (or an imported log).
    #[error("run {id}#rank={rank}: {why}")]
    Rank { id: i64, rank: u32, why: String },
}

/// The history's directory: --history, IOZ_HISTORY, the data directory.
pub(crate) fn locate(flag: Option<&Path>) -> Result<PathBuf, HistoryError> {
    match history::locate(flag, false, false, &|n| std::env::var_os(n))? {
        Location::Dir(d) => Ok(d),
        Location::Off => unreachable!("only --no-history turns it off"),
    }
}

/// The history to read; `None` when there is none yet. Nothing on disk
/// changes.
pub(crate) fn open_to_read(dir: &Path) -> Result<Option<History>, HistoryError> {
    History::open_to_read(
        dir,
        &mut Caller {
            say: &mut said,
            stopped: &|| None,
        },
    )
}

/// The history to change, made when missing.
pub(crate) fn open_to_write(dir: &Path) -> Result<History, HistoryError> {
    History::open_to_write(
        dir,
        &mut Caller {
            say: &mut said,
            stopped: &|| None,
        },
    )
}

/// What an open of the history says, on stderr as `history: …`. Outside a
/// run no stop handlers are installed (`stopped` above is never), so a
/// signal during a wait for the lock ends the command itself.
pub(crate) fn said(line: String) {
    say(format_args!("history: {line}"));
}

/// The selection's filter, its dates checked.
pub(crate) fn filter(s: &Selection) -> Result<Filter, RunsError> {
    let date = |opt: &'static str, v: &Option<String>| -> Result<Option<String>, RunsError> {
        v.as_deref()
            .map(|t| dates::from_user(t).map_err(|source| RunsError::Date { opt, source }))
            .transpose()
    };
    let until = date("--until", &s.until)?
        .map(|u| dates::until_end_of_day(s.until.as_deref().unwrap_or_default(), &u));
    Ok(Filter {
        labels: s.labels.clone(),
        host: s.host.clone(),
        fs: s.fs.clone(),
        since: date("--since", &s.since)?,
        until,
        status: s.status.as_deref().and_then(StatusKind::from_name),
        stamp: s.stamp.as_deref().and_then(StampKind::from_name),
    })
}

/// A run named as `show`, `rm` and `ioz compare @…` name it: `42`, `@42`
/// or `last`/`@last`.
pub(crate) fn find(h: &History, reference: &str) -> Result<Entry, RunsError> {
    let r = reference.strip_prefix('@').unwrap_or(reference);
    let found = if r == "last" {
        h.last()?
    } else {
        let id: i64 = r.parse().map_err(|_| RunsError::NotAnId {
            reference: reference.to_string(),
        })?;
        h.get(id)?
    };
    found.ok_or_else(|| RunsError::NoSuchRun {
        id: r.to_string(),
        dir: h.dir().to_path_buf(),
    })
}

/// The samples of a stored run, and its environment (an IOzone log or a
/// peer's file records none).
pub(crate) fn samples_of(
    h: &History,
    entry: &Entry,
) -> Result<(SampleSet, Option<Environment>), RunsError> {
    samples_of_rank(h, entry, None).map(|s| (s.samples, s.environment))
}

/// What a stored run gives a comparison.
pub(crate) struct StoredSamples {
    pub samples: SampleSet,
    pub environment: Option<Environment>,
    /// What its figures sum when they are a cluster run's clients' ("sum of 2 clients").
    pub summed: Option<String>,
    pub tool: Tool,
}

/// A stored run's samples, of rank `rank` of a cluster run when given, its
/// environment, what its figures sum, and the tool that measured it.
pub(crate) fn samples_of_rank(
    h: &History,
    entry: &Entry,
    rank: Option<u32>,
) -> Result<StoredSamples, RunsError> {
    let why = |why: String| RunsError::Rank {
        id: entry.id,
        rank: rank.unwrap_or_default(),
        why,
    };
    match h.load(entry)? {
        Stored::Run(run) => {
            let run = match rank {
                Some(r) => run.one_rank(r).map_err(|e| why(e.to_string()))?,
                None => *run,
            };
            Ok(StoredSamples {
                samples: samples::of_run(&run),
                summed: run.summed_words(),
                tool: tool_of_run(&run),
                environment: Some(run.environment),
            })
        }
        Stored::Log(_) if rank.is_some() => {
            Err(why("an imported IOzone log has no ranks".to_string()))
        }
        Stored::Peer(_) if rank.is_some() => Err(why(
            "an imported peer's result file has no ranks".to_string(),
        )),
        Stored::Log(log) => iozone_log::parse(&log.text)
            .map(|l| StoredSamples {
                samples: l.samples,
                environment: None,
                summed: None,
                tool: tool_of_log(&log.text),
            })
            .map_err(|source| RunsError::EmptyLog {
                id: entry.id,
                source,
            }),
        Stored::Peer(peer) => peer
            .read()
            .map(|(_, run)| StoredSamples {
                samples: samples::of_peer(&run, run.unit()),
                environment: None,
                summed: None,
                tool: tool_of_peer(&run),
            })
            .map_err(|source| RunsError::Peer {
                id: entry.id,
                source,
            }),
    }
}

/// `ioz compare`'s `@42`, `@last`, `@label:NAME` (every complete run with
/// that label, pooled), each of rank `rank` when given (`@42#rank=1`): the
/// samples, named by the reference.
pub(crate) fn load_reference(
    reference: &str,
    rank: Option<u32>,
) -> Result<(Side, Vec<PathBuf>), RunsError> {
    let dir = locate(None)?;
    let Some(h) = open_to_read(&dir)? else {
        return Err(RunsError::NoHistory {
            reference: reference.to_string(),
            dir,
        });
    };
    let (entries, label) = match reference.strip_prefix("@label:") {
        Some(name) => {
            let filter = Filter {
                labels: vec![name.to_string()],
                status: Some(StatusKind::Complete),
                ..Filter::default()
            };
            let entries = h.list(&filter)?;
            if entries.is_empty() {
                return Err(RunsError::NoLabel {
                    reference: reference.to_string(),
                    label: name.to_string(),
                    dir,
                });
            }
            (entries, name.to_string())
        }
        None => {
            let e = find(&h, reference).map_err(|e| RunsError::Reference {
                reference: reference.to_string(),
                source: Box::new(e),
            })?;
            let label = e.label.clone().unwrap_or_else(|| format!("run {}", e.id));
            (vec![e], label)
        }
    };
    let mut pooled: Option<SampleSet> = None;
    // The first run's environment stands for the label's, as a
    // directory's first run does for it.
    let mut environment = None;
    let mut summed = None;
    let mut tool = None;
    for e in &entries {
        let StoredSamples {
            samples: s,
            environment: env,
            summed: sum,
            tool: t,
        } = samples_of_rank(&h, e, rank)?;
        environment = environment.or(env);
        summed = summed.or(sum);
        tool = tool.or(Some(t));
        match &mut pooled {
            None => pooled = Some(s),
            Some(set) if set.unit != s.unit => {
                return Err(RunsError::MixedUnits {
                    reference: reference.to_string(),
                    id: e.id,
                    unit: unit_name(s.unit),
                    before: unit_name(set.unit),
                });
            }
            Some(set) => set.pool(s),
        }
    }
    let first = &entries[0].date;
    let last = &entries[entries.len() - 1].date;
    let date = if first == last {
        first.clone()
    } else {
        format!("{first} … {last}")
    };
    let label = labelled(label, summed);
    Ok((
        Side {
            input: Input {
                label,
                date: Some(date),
                source: reference.to_string(),
                runs: entries.len(),
                tool,
            },
            samples: pooled.expect("at least one run"),
            environment,
        },
        entries.iter().map(|e| h.path_of(e)).collect(),
    ))
}

pub(crate) fn print(text: &str) -> Exit {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Exit::Success,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Exit::Signal(SIGPIPE),
        Err(e) => {
            say(format_args!("cannot write to standard output: {e}"));
            Exit::Failure
        }
    }
}

pub(crate) fn refuse(e: &str) -> Exit {
    say(e);
    Exit::Usage
}
