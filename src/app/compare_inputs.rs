//! The inputs of `ioz compare`, read: a saved ioz run (JSON), IOzone's text
//! output, or a directory of either, pooled as samples of one configuration.

use std::fs;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::analysis::compare::{Input, Side};
use crate::analysis::samples::{self, SampleSet, unit_name};
use crate::model::environment::Environment;
use crate::report::iozone_log;
use crate::report::json::read_run;

/// An IOzone log larger than this is no log (auto mode's largest is ~100 kB).
const MAX_LOG_BYTES: u64 = 64 << 20;

/// One input with every file it read (for the result guard).
pub(crate) struct Loaded {
    pub side: Side,
    pub files: Vec<PathBuf>,
}

/// Reads the input at `path`; the error is one line naming it.
pub(crate) fn load(path: &Path) -> Result<Loaded, String> {
    // `@42`, `@last`, `@label:NAME`: runs of the history (a file whose
    // name starts with @ is ./@name).
    if let Some(reference) = path.to_str().filter(|p| p.starts_with('@')) {
        let (side, files) = super::history_runs::load_reference(reference)?;
        return Ok(Loaded { side, files });
    }
    let shown = path.display().to_string();
    let meta = fs::metadata(path).map_err(|e| format!("cannot read {shown}: {}", plain(&e)))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    if meta.is_dir() {
        return load_dir(path, &shown, name);
    }
    let (samples, date, label, environment) = load_file(path)?;
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or(name);
    Ok(Loaded {
        side: Side {
            input: Input {
                label: label.unwrap_or(stem),
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
fn load_dir(dir: &Path, shown: &str, name: String) -> Result<Loaded, String> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| format!("cannot read the directory {shown}: {}", plain(&e)))?
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
    for file in entries {
        let is_json = file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if !is_json && !sniff_iozone(&file) {
            continue;
        }
        let (samples, date, run_label, run_environment) = load_file(&file)?;
        environment = environment.or(run_environment);
        match &mut pooled {
            None => pooled = Some(samples),
            Some(set) if set.unit != samples.unit => {
                return Err(format!(
                    "{shown}: {} is in {} and the runs before it in {}; a directory holds runs of one configuration",
                    file.display(),
                    unit_name(samples.unit),
                    unit_name(set.unit)
                ));
            }
            Some(set) => set.pool(samples),
        }
        dates.extend(date);
        label = label.or(run_label);
        files.push(file);
    }
    let Some(samples) = pooled else {
        return Err(format!(
            "{shown} holds no saved ioz run (.json) and no IOzone log"
        ));
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
                label: label.unwrap_or(name),
                date,
                source: shown.to_string(),
                runs: files.len(),
            },
            samples,
            environment,
        },
        files,
    })
}

/// What one file gives a comparison: its samples, date, label and (a saved
/// run's) environment.
type FileInput = (
    SampleSet,
    Option<String>,
    Option<String>,
    Option<Environment>,
);

/// A file's samples, date, label and environment: a saved run when it is
/// JSON, else IOzone's output (which records no environment), else refused.
fn load_file(path: &Path) -> Result<FileInput, String> {
    let shown = path.display();
    let head = read_head(path)?;
    if head.trim_start().starts_with('{') {
        let run = read_run(path)?;
        // The run's --label names the configuration; without one, the
        // file's (or directory's) name does.
        let label = run.config.label.clone();
        return Ok((
            samples::of_run(&run),
            Some(run.started_at.clone()),
            label,
            Some(run.environment),
        ));
    }
    let text = read_text(path)?;
    if !iozone_log::looks_like_iozone(&text) {
        return Err(format!(
            "{shown} is neither a saved ioz run (JSON) nor IOzone's output"
        ));
    }
    let log = iozone_log::parse(&text).map_err(|e| format!("{shown}: {e}"))?;
    Ok((log.samples, log.began, None, None))
}

/// Whether a file in a directory is IOzone's output (read only when small).
fn sniff_iozone(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.len() <= MAX_LOG_BYTES)
        && read_text(path).is_ok_and(|t| iozone_log::looks_like_iozone(&t))
}

/// The first bytes of a regular file, as text.
pub(crate) fn read_head(path: &Path) -> Result<String, String> {
    let mut buf = vec![0; 512];
    let mut file = open_regular(path)?;
    let n = file
        .read(&mut buf)
        .map_err(|e| format!("cannot read {}: {}", path.display(), plain(&e)))?;
    buf.truncate(n);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

pub(crate) fn read_text(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let mut file = open_regular(path)?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len > MAX_LOG_BYTES {
        return Err(format!(
            "{shown} is {len} bytes, too large for IOzone's output (at most {MAX_LOG_BYTES})"
        ));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {shown}: {}", plain(&e)))?;
    String::from_utf8(bytes)
        .map_err(|_| format!("{shown} is not text: neither a saved ioz run nor IOzone's output"))
}

/// A regular file opened for reading; a FIFO or device is refused without
/// waiting on it.
fn open_regular(path: &Path) -> Result<fs::File, String> {
    let shown = path.display();
    let file = fs::File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| format!("cannot read {shown}: {}", plain(&e)))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {shown}: {}", plain(&e)))?;
    if !meta.is_file() {
        return Err(format!(
            "cannot read {shown}: it is not a regular file; an input is a run, a log or a directory"
        ));
    }
    Ok(file)
}

/// An I/O error without Rust's "(os error N)".
fn plain(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}
