//! The job a cluster run was, as rank 0 records it at the end (in the
//! JSON and the history's job column): who launched the ranks, Slurm's
//! job, step, nodes and tasks per node, each host and its ranks; and what
//! crossed between the ranks and their peak memory, reduced over the
//! ranks (a sum and a maximum: 64 bytes a rank, whatever the job's size).

use super::typed_command::TYPED_COMMAND_VARIABLE;
use crate::error::RunError;
use crate::model::job::{Job, RankMemory, Traffic, hosts_of};
use crate::model::result::RankCells;
use crate::system::cluster::{self, Peers, Reduction};
use crate::system::host;

/// Collective: rank 0 gets the job (`ranks`: the ranks' tables, which name
/// their hosts); the others `None`.
pub(super) fn record(peers: &dyn Peers, ranks: &[RankCells]) -> Result<Option<Job>, RunError> {
    let peak = host::peak_resident_kib();
    let traffic = peers
        .reduce(&peers.traffic().to_array(), Reduction::Sum, false)
        .map_err(RunError::from)?;
    let largest = peers
        .reduce(&[peak], Reduction::Max, false)
        .map_err(RunError::from)?;
    let total = peers
        .reduce(&[peak], Reduction::Sum, false)
        .map_err(RunError::from)?;
    if peers.rank() != 0 {
        return Ok(None);
    }
    let env = |name: &str| std::env::var(name).ok();
    let size = peers.size();
    Ok(Some(Job {
        launcher: cluster::launcher_name_in(env, TYPED_COMMAND_VARIABLE).to_string(),
        ranks: size,
        hosts: hosts_of(ranks.iter().map(|r| r.client.host.as_str())),
        slurm: cluster::slurm_job_in(env),
        traffic: Traffic::from_slice(&traffic),
        memory: RankMemory {
            rank_0_kib: peak,
            largest_kib: largest.first().copied().unwrap_or(peak),
            mean_kib: total.first().copied().unwrap_or(peak) / u64::from(size.max(1)),
        },
    }))
}
