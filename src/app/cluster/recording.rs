//! A cluster run in the history: recorded once, by rank 0, as a run on one
//! machine is (app/record.rs), with every rank's host in its results, so
//! that `ioz history` lists it ("node-a,node-b (2 ranks)") and follows it
//! over time. Where it goes is settled before the run: a history the user
//! named that cannot take it refuses the job on every rank.

use super::super::output::say;
use super::super::record::{self, Destination};
use crate::error::Exit;
use crate::model::config::RunConfig;
use crate::model::result::RunResult;
use crate::runner::Across;

/// Where rank 0 records the job's run (nothing on the other ranks).
pub(super) struct JobRecord(Option<Destination>);

/// Collective: rank 0 finds the history the run goes to, and every rank
/// learns whether the job may go on; `Err` is the exit of a refused job
/// (rank 0 has said why).
pub(super) fn place(config: &RunConfig, rank: u32, across: &Across<'_>) -> Result<JobRecord, Exit> {
    let (destination, verdict) = if rank == 0 {
        match record::place_for_run(&config.history) {
            Ok(d) => (d, Ok(())),
            Err(e) => (None, Err(e)),
        }
    } else {
        (None, Ok(()))
    };
    match across.agree(verdict) {
        Ok(()) => Ok(JobRecord(destination)),
        Err(e) => {
            if rank == 0 {
                say(&e);
            }
            Err(e.exit())
        }
    }
}

impl JobRecord {
    /// Records `result` (complete or not, as every run that measured is),
    /// says where, and returns `exit` as a run on one machine would end:
    /// a named history that failed to take it fails a run that went well.
    pub(super) fn record(&self, result: &RunResult, exit: Exit) -> Exit {
        let Some(to) = &self.0 else {
            return exit;
        };
        let recorded = record::record(to, result);
        say(&recorded.line);
        if recorded.fails_run && exit == Exit::Success {
            Exit::Failure
        } else {
            exit
        }
    }
}
