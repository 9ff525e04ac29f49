//! The inputs of `ioz compare`, read: a saved ioz run (JSON), IOzone's text
//! output, another benchmark's result file (fio, IOR, mdtest, elbencho,
//! IO500), or a directory of them, pooled as samples of one configuration.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::history_runs::RunsError;
use super::input_files::{
    RunFileError, RunOrLog, RunOrLogError, is_log_or_peer, labelled, of_rank, plain, rank_selected,
    read_run_or_log, tool_of_log, tool_of_peer, tool_of_run,
};
use crate::analysis::compare::{Input, Side, Tool};
use crate::analysis::samples::{self, SampleSet, unit_name};
use crate::model::config::OutputUnit;
use crate::model::environment::Environment;
use crate::model::peer::PeerRun;

/// Why an input of `ioz compare` was not read: one line naming it.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CompareInputError {
    #[error(transparent)]
    Reference(#[from] RunsError),
    #[error("cannot read {}: {}", path.display(), plain(source))]
    Unreadable { path: PathBuf, source: io::Error },
    #[error("cannot read the directory {}: {}", path.display(), plain(source))]
    UnreadableDirectory { path: PathBuf, source: io::Error },
    #[error(transparent)]
    File(#[from] RunOrLogError),
    #[error(
        "{}: {} is in {unit} and the runs before it in {before}; a directory holds runs of one configuration",
        dir.display(),
        file.display()
    )]
    MixedUnits {
        dir: PathBuf,
        file: PathBuf,
        unit: &'static str,
        before: &'static str,
    },
    #[error(
        "{} holds no saved ioz run (.json), no IOzone log and no peer's result file",
        dir.display()
    )]
    NoRuns { dir: PathBuf },
    #[error(transparent)]
    Run(#[from] RunFileError),
    #[error("{}: {what} has no ranks: #rank= selects a rank of a saved cluster run", path.display())]
    LogHasNoRanks { path: PathBuf, what: &'static str },
}

/// One input with every file it read (for the result guard).
pub(crate) struct Loaded {
    pub side: Side,
    pub files: Vec<PathBuf>,
    /// The peers' runs it was made of, when it is made of nothing else: it
    /// can then be given again in another unit (`in_unit`).
    pub peers: Vec<PeerRun>,
}

impl Loaded {
    /// The samples in `unit`, when the input is peers' files alone and
    /// they have rates in it (a fio file against an ioz run of -O); else
    /// as they are.
    pub fn in_unit(&mut self, unit: OutputUnit) {
        if self.peers.is_empty() || self.side.samples.unit == unit {
            return;
        }
        let mut set = SampleSet::new(unit);
        for run in &self.peers {
            set.pool(samples::of_peer(run, unit));
        }
        if !set.is_empty() {
            self.side.samples = set;
        }
    }
}

/// Reads the input at `arg`, of one rank of a cluster run when it ends in
/// `#rank=N`; the error is one line naming it.
pub(crate) fn load(arg: &Path) -> Result<Loaded, CompareInputError> {
    let (path, rank) = rank_selected(arg).map_err(RunFileError::from)?;
    let mut loaded = load_all(&path, rank)?;
    if let Some(rank) = rank {
        loaded.side.input.label = format!("{} (rank {rank})", loaded.side.input.label);
        loaded.side.input.source = arg.display().to_string();
    }
    Ok(loaded)
}

/// Reads the input at `path` (of rank `rank`, when given).
fn load_all(path: &Path, rank: Option<u32>) -> Result<Loaded, CompareInputError> {
    // `@42`, `@last`, `@label:NAME`: runs of the history (a file whose
    // name starts with @ is ./@name).
    if let Some(reference) = path.to_str().filter(|p| p.starts_with('@')) {
        let (side, files) = super::history_runs::load_reference(reference, rank)?;
        return Ok(Loaded {
            side,
            files,
            peers: Vec::new(),
        });
    }
    let shown = path.display().to_string();
    let meta = fs::metadata(path).map_err(|source| CompareInputError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    if meta.is_dir() {
        return load_dir(path, name, rank);
    }
    let file = load_file(path, rank)?;
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(name);
    Ok(Loaded {
        side: Side {
            input: Input {
                label: labelled(file.label.unwrap_or(stem), file.summed),
                date: file.date,
                source: shown,
                runs: 1,
                tool: Some(file.tool),
            },
            samples: file.samples,
            environment: file.environment,
        },
        files: vec![path.to_path_buf()],
        peers: file.peer.into_iter().collect(),
    })
}

/// Every run in a directory (its `.json` files, which must be runs, and any
/// other file that is IOzone's output), pooled.
fn load_dir(dir: &Path, name: String, rank: Option<u32>) -> Result<Loaded, CompareInputError> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|source| CompareInputError::UnreadableDirectory {
            path: dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    entries.sort();
    let mut pooled: Option<SampleSet> = None;
    let mut files = Vec::new();
    let mut dates = Vec::new();
    let mut label = None;
    // The first run's environment (and tool) stands for the directory's.
    let mut environment = None;
    let mut summed = None;
    let mut tool = None;
    let mut peers = Vec::new();
    let mut others = 0;
    for file in entries {
        let is_json = file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if !is_json && !is_log_or_peer(&file) {
            continue;
        }
        let read = load_file(&file, rank)?;
        environment = environment.or(read.environment);
        summed = summed.or(read.summed);
        tool = tool.or(Some(read.tool));
        match read.peer {
            Some(p) => peers.push(p),
            None => others += 1,
        }
        match &mut pooled {
            None => pooled = Some(read.samples),
            Some(set) if set.unit != read.samples.unit => {
                return Err(CompareInputError::MixedUnits {
                    dir: dir.to_path_buf(),
                    file,
                    unit: unit_name(read.samples.unit),
                    before: unit_name(set.unit),
                });
            }
            Some(set) => set.pool(read.samples),
        }
        dates.extend(read.date);
        label = label.or(read.label);
        files.push(file);
    }
    if others > 0 {
        peers.clear();
    }
    let Some(samples) = pooled else {
        return Err(CompareInputError::NoRuns {
            dir: dir.to_path_buf(),
        });
    };
    dates.sort();
    let date = match (dates.first(), dates.last()) {
        (Some(a), Some(b)) if a != b => Some(format!("{a} … {b}")),
        (Some(a), _) => Some(a.clone()),
        _ => None,
    };
    Ok(Loaded {
        side: Side {
            input: Input {
                label: labelled(label.unwrap_or(name), summed),
                date,
                source: dir.display().to_string(),
                runs: files.len(),
                tool,
            },
            samples,
            environment,
        },
        files,
        peers,
    })
}

/// What one file gives a comparison: its samples, date, label, (a saved
/// run's) environment, what it sums (a cluster run's clients), the tool
/// that measured it, and a peer's run as read.
struct FileInput {
    samples: SampleSet,
    date: Option<String>,
    label: Option<String>,
    environment: Option<Environment>,
    summed: Option<String>,
    tool: Tool,
    peer: Option<PeerRun>,
}

/// A file's samples, date, label and environment: a saved run when it is
/// JSON (of one rank, when `rank` names one), a peer's result file, else
/// IOzone's output (which records no environment, and no ranks), else
/// refused. The label of a cluster run's sum says so.
fn load_file(path: &Path, rank: Option<u32>) -> Result<FileInput, CompareInputError> {
    let no_ranks = |what| CompareInputError::LogHasNoRanks {
        path: path.to_path_buf(),
        what,
    };
    Ok(match read_run_or_log(path)? {
        // The run's --label names the configuration; without one, the
        // file's (or directory's) name does.
        RunOrLog::Run(run) => {
            let run = of_rank(*run, path, rank)?;
            FileInput {
                samples: samples::of_run(&run),
                date: Some(run.started_at.clone()),
                label: run.config.label.clone(),
                environment: Some(run.environment.clone()),
                summed: run.summed_words(),
                tool: tool_of_run(&run),
                peer: None,
            }
        }
        RunOrLog::Log { .. } if rank.is_some() => return Err(no_ranks("IOzone's output")),
        RunOrLog::Peer { .. } if rank.is_some() => return Err(no_ranks("a peer's result file")),
        RunOrLog::Log { log, text } => FileInput {
            samples: log.samples,
            date: log.began,
            label: None,
            environment: None,
            summed: None,
            tool: tool_of_log(&text),
            peer: None,
        },
        RunOrLog::Peer { run, .. } => FileInput {
            samples: samples::of_peer(&run, run.unit()),
            date: run.date.clone(),
            label: None,
            environment: None,
            summed: None,
            tool: tool_of_peer(&run),
            peer: Some(*run),
        },
    })
}
