//! Where a metadata benchmark (`ioz fileop`, `ioz mdtest`) may make its
//! tree, decided before any I/O: `-d` is an existing directory ioz can
//! make a directory in, on a file system with room for the files' bytes;
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
    check_dir(dir)?;
    check_space(metadata, dir)?;
    let remount = Remounter::for_run(config)?;
    Ok((results, remount))
}

/// `-d`: an existing directory in which ioz may make one.
fn check_dir(dir: &Path) -> Result<(), RunError> {
    let shown = dir.display();
    let meta = std::fs::metadata(dir).map_err(|e| RunError::Refused(format!("-d {shown}: {e}")))?;
    if !meta.is_dir() {
        use std::os::unix::fs::MetadataExt;
        return Err(RunError::Refused(format!(
            "-d {shown} is {}, not a directory",
            file_kind(meta.mode())
        )));
    }
    check_writable_dir(dir)
        .map_err(|why| RunError::Refused(format!("-d {shown}: cannot make the tree there: {why}")))
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
