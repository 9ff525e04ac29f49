//! Plots of a run (--plots DIR): PNG and SVG files.

use std::io;
use std::path::{Path, PathBuf};

use crate::result::RunResult;

/// Writes the run's plots into `dir` (created if missing); returns the files written.
pub fn write_plots(_result: &RunResult, _dir: &Path) -> io::Result<Vec<PathBuf>> {
    Err(io::Error::other("plots are not drawn yet"))
}
