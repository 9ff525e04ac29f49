//! -+V/-+L across ranks: one file for every worker of the job. Rank 0
//! creates, claims (locks) and at the end removes it; once it has, every
//! other rank joins it through its own path, which must lead to that very
//! file (safety::test_file::TargetFile::join), so that a rank never writes a
//! file ioz did not make for this job.

use super::ranks::Across;
use super::{WorkerFiles, worker_files};
use crate::error::{IoFailure, RunError};
use crate::runner::recipe::Recipe;

/// The job's one file for this rank's `workers`, or the job's first
/// failure to make or reach it (every rank gets the same). Collective.
pub(super) fn claim_shared(
    recipe: &Recipe<'_>,
    workers: u32,
    across: &Across<'_>,
    left: &mut Vec<IoFailure>,
) -> Result<WorkerFiles, RunError> {
    let none = || WorkerFiles {
        targets: Vec::new(),
        of_worker: Vec::new(),
    };
    // Rank 0 first: it creates and locks the file.
    let made = if across.rank() == 0 {
        worker_files(recipe, workers, left)
    } else {
        Ok(none())
    };
    let (mut made, local) = split(made);
    if let Err(e) = across.agree(local) {
        made.remove_all(&mut None, left);
        return Err(e);
    }
    let identity = made.targets.first().and_then(|t| t.expected());
    let shared = across.shared_file(identity.map(|e| e.identity))?;
    let joined = if across.rank() == 0 || workers == 0 {
        Ok(made)
    } else {
        let path = recipe.test_path(0);
        match shared {
            Some((identity, same_host)) => recipe
                .join_target(&path, identity, same_host)
                .map(|t| WorkerFiles {
                    targets: vec![t],
                    of_worker: vec![0; workers as usize],
                })
                .map_err(RunError::Io),
            None => Err(RunError::Refused(
                "-+V/-+L: rank 0 has no regular file to share with the other ranks".into(),
            )),
        }
    };
    // Every rank reached it, or none goes on (rank 0 removes it).
    let (mut files, local) = split(joined);
    match across.agree(local) {
        Ok(()) => Ok(files),
        Err(e) => {
            files.remove_all(&mut None, left);
            Err(e)
        }
    }
}

/// The files (none after a failure) and the failure, for the other ranks.
fn split(files: Result<WorkerFiles, RunError>) -> (WorkerFiles, Result<(), RunError>) {
    match files {
        Ok(f) => (f, Ok(())),
        Err(e) => (
            WorkerFiles {
                targets: Vec::new(),
                of_worker: Vec::new(),
            },
            Err(e),
        ),
    }
}
