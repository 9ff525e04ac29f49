//! The inputs of `ioz compare`, read: a saved ioz run (JSON), IOzone's text
//! output, or a directory of either, pooled as samples of one configuration.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::history_runs::RunsError;
use super::input_files::{
    RunFileError, RunOrLog, RunOrLogError, is_iozone_log, labelled, of_rank, plain, rank_selected,
    read_run_or_log,
};
use crate::analysis::compare::{Input, Side};
use crate::analysis::samples::{self, SampleSet, unit_name};
use crate::model::environment::Environment;

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
    #[error("{} holds no saved ioz run (.json) and no IOzone log", dir.display())]
    NoRuns { dir: PathBuf },
    #[error(transparent)]
    Run(#[from] RunFileError),
    #[error("{}: IOzone's output has no ranks: #rank= selects a rank of a saved cluster run", path.display())]
    LogHasNoRanks { path: PathBuf },
}

/// One input with every file it read (for the result guard).
pub(crate) struct Loaded {
    pub side: Side,
    pub files: Vec<PathBuf>,
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
        return Ok(Loaded { side, files });
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
    let (samples, date, label, environment, summed) = load_file(path, rank)?;
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(name);
    Ok(Loaded {
        side: Side {
            input: Input {
                label: labelled(label.unwrap_or(stem), summed),
                date,
                source: shown,
                runs: 1,
            },
            samples,
            environment,
        },
        files: vec![path.to_path_buf()],
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
    // The first run's environment stands for the directory's.
    let mut environment = None;
    let mut summed = None;
    for file in entries {
        let is_json = file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if !is_json && !is_iozone_log(&file) {
            continue;
        }
        let (samples, date, run_label, run_environment, run_summed) = load_file(&file, rank)?;
        environment = environment.or(run_environment);
        summed = summed.or(run_summed);
        match &mut pooled {
            None => pooled = Some(samples),
            Some(set) if set.unit != samples.unit => {
                return Err(CompareInputError::MixedUnits {
                    dir: dir.to_path_buf(),
                    file,
                    unit: unit_name(samples.unit),
                    before: unit_name(set.unit),
                });
            }
            Some(set) => set.pool(samples),
        }
        dates.extend(date);
        label = label.or(run_label);
        files.push(file);
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
            },
            samples,
            environment,
        },
        files,
    })
}

/// What one file gives a comparison: its samples, date, label, (a saved
/// run's) environment, and what it sums (a cluster run's clients).
type FileInput = (
    SampleSet,
    Option<String>,
    Option<String>,
    Option<Environment>,
    Option<String>,
);

/// A file's samples, date, label and environment: a saved run when it is
/// JSON (of one rank, when `rank` names one), else IOzone's output (which
/// records no environment, and no ranks), else refused. The label of a
/// cluster run's sum says so.
fn load_file(path: &Path, rank: Option<u32>) -> Result<FileInput, CompareInputError> {
    Ok(match read_run_or_log(path)? {
        // The run's --label names the configuration; without one, the
        // file's (or directory's) name does.
        RunOrLog::Run(run) => {
            let run = of_rank(*run, path, rank)?;
            (
                samples::of_run(&run),
                Some(run.started_at.clone()),
                run.config.label.clone(),
                Some(run.environment.clone()),
                run.summed_words(),
            )
        }
        RunOrLog::Log { .. } if rank.is_some() => {
            return Err(CompareInputError::LogHasNoRanks {
                path: path.to_path_buf(),
            });
        }
        RunOrLog::Log { log, .. } => (log.samples, log.began, None, None, None),
    })
}
