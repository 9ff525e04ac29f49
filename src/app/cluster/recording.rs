//! A cluster run in the history: recorded once, by rank 0, as a run on one
//! machine is (app/driver.rs, app/record.rs), with every rank's host in its
//! results, so that `ioz history` lists it ("node-a,node-b (2 ranks)") and
//! follows it over time. Where it goes is settled before the run: a
//! history the user named that cannot take it refuses the job on every
//! rank.

use crate::app::record::{self, Destination};
use crate::error::RunError;
use crate::model::config::RunConfig;
use crate::runner::Across;

/// Collective: rank 0 finds the history the run goes to (`None` on the
/// other ranks, and where nothing is recorded), and every rank learns
/// whether the job may go on: `Err` is every rank's refusal, which rank 0
/// says.
pub(super) fn place(
    config: &RunConfig,
    rank: u32,
    across: &Across<'_>,
) -> Result<Option<Destination>, RunError> {
    let (destination, verdict) = if rank == 0 {
        match record::place_for_run(&config.history) {
            Ok(d) => (d, Ok(())),
            Err(e) => (None, Err(e)),
        }
    } else {
        (None, Ok(()))
    };
    across.agree(verdict).map(|()| destination)
}
