//! Where a metadata benchmark (`ioz fileop`, `ioz mdtest`) may make its
//! tree, decided before any I/O: `-d` is an existing directory ioz can
//! make a directory in (for mdtest, or a missing one whose parent is
//! such a directory: ioz makes it, as mdtest does), on a file system with
//! room for the files' bytes;
//! its result paths pass the guard; `-U` is checked as a run's. The tree
//! itself is made by the runner, as a new directory of ioz's own.

use std::path::Path;

use super::outputs;
use super::writable_dir::check_writable_dir;
use crate::error::RunError;
use crate::model::config::RunConfig;
use crate::model::file_kind::file_kind;
use crate::model::metadata::{FileopTree, MdtestTree, MetadataConfig};
use crate::model::result_files::ResultPlaces;
use crate::model::units::Size;
use crate::system::remount::Remounter;

/// The checks of a metadata run, in the order a user meets the problems:
/// its result places and -U's remounter, approved.
pub fn check(config: &RunConfig) -> Result<(ResultPlaces, Option<Remounter>), RunError> {
    let Some(metadata) = &config.metadata else {
        return Err(RunError::Refused("not a metadata benchmark".into()));
    };
    let results = outputs::check_for_run(config).map_err(|e| RunError::Refused(e.to_string()))?;
    let dir = metadata.dir();
    let home = check_dir(dir, metadata.makes_its_dir())?;
    check_space(metadata, &home)?;
    let remount = Remounter::for_run(config)?;
    Ok((results, remount))
}

/// `-d`: an existing directory in which ioz may make one, or (when `make`)
/// a missing one whose parent is such a directory. Returns the directory
/// that exists (`-d` or its parent).
fn check_dir(dir: &Path, make: bool) -> Result<std::path::PathBuf, RunError> {
    let shown = crate::model::visible::visible(&dir.display().to_string()).into_owned();
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && make => {
            let parent = match dir.parent() {
                Some(p) if p.as_os_str().is_empty() => Path::new("."),
                Some(p) => p,
                None => Path::new("/"),
            };
            let why = |why: String| {
                RunError::Refused(format!("-d {shown} is missing and cannot be made: {why}"))
            };
            check_existing(parent).map_err(why)?;
            Ok(parent.to_path_buf())
        }
        _ => {
            check_existing(dir).map_err(|why| RunError::Refused(format!("-d {why}")))?;
            Ok(dir.to_path_buf())
        }
    }
}

/// An existing directory in which ioz may make one; else why not, from
/// the directory's name on.
fn check_existing(dir: &Path) -> Result<(), String> {
    let shown = crate::model::visible::visible(&dir.display().to_string()).into_owned();
    let meta = std::fs::metadata(dir).map_err(|e| format!("{shown}: {e}"))?;
    if !meta.is_dir() {
        use std::os::unix::fs::MetadataExt;
        return Err(format!(
            "{shown} is {}, not a directory",
            file_kind(meta.mode())
        ));
    }
    check_writable_dir(dir).map_err(|why| format!("{shown}: cannot make the tree there: {why}"))
}

/// The files' bytes (each rounded up to a 4 KiB block) must fit in what
/// the file system has free; the inodes are the file system's to count.
fn check_space(metadata: &MetadataConfig, dir: &Path) -> Result<(), RunError> {
    let (files, bytes) = match metadata {
        MetadataConfig::Fileop(f) => {
            let most = f.factors.iter().copied().max().unwrap_or(1);
            (FileopTree { factor: most }.files(), f.file_bytes)
        }
        MetadataConfig::Mdtest(m) => {
            let tree = MdtestTree::of(m);
            let files = if m.files { tree.items_per_rank(m) } else { 0 };
            (files, m.write_bytes)
        }
    };
    let need = files.saturating_mul(bytes.div_ceil(4096) * 4096);
    if need == 0 {
        return Ok(());
    }
    let Ok(st) = nix::sys::statvfs::statvfs(dir) else {
        return Ok(());
    };
    let free = st.blocks_available().saturating_mul(st.fragment_size());
    if need > free {
        return Err(RunError::Refused(format!(
            "-d {}: the files need {:.1} and the file system has {:.1} free",
            dir.display(),
            Size(need),
            Size(free)
        )));
    }
    Ok(())
}
