//! The files a run asked for (--json, --csv, --html, --plots, -b) are checked
//! before the run, so a long run does not end with results that cannot be
//! saved.

use std::path::Path;

use crate::model::config::OutputFiles;

/// Refuses outputs whose directory does not exist, or that would overwrite
/// the test file.
pub fn check(outputs: &OutputFiles, test_file: Option<&Path>) -> Result<(), String> {
    for (opt, path) in outputs.requested() {
        let same = |a: &Path, b: &Path| {
            a == b
                || matches!((std::path::absolute(a), std::path::absolute(b)), (Ok(x), Ok(y)) if x == y)
        };
        if test_file.is_some_and(|t| same(t, path)) {
            return Err(format!("{opt}: {} is the test file", path.display()));
        }
        let parent = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if opt == "--plots" && path.is_file() {
            return Err(format!(
                "--plots: {} is a file, not a directory",
                path.display()
            ));
        }
        if !parent.is_dir() {
            return Err(format!(
                "{opt}: directory {} does not exist",
                parent.display()
            ));
        }
    }
    Ok(())
}
