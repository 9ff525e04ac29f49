//! Cluster mode: the job a run was, as its record keeps it: who launched
//! the ranks (mpirun, mpiexec, srun, `ioz -+m`), Slurm's job and step, the
//! nodes and tasks per node, the ranks' hosts; and what the ranks' calls
//! across the job moved (messages, bytes in gathers, reductions and
//! broadcasts) with their memory, summed by a reduction at the end.

use serde::{Deserialize, Serialize};

/// What one rank's calls across the ranks moved. Every rank counts its own
/// part (what it sent into a gather or a reduction, what it received from
/// a broadcast, the point-to-point messages it sent), so the job's sum is
/// what crossed between the ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Traffic {
    /// Point-to-point messages sent (stops, clock round trips, live lines,
    /// the network test's, a gather's pieces past MPI's counts).
    pub messages: u64,
    /// Of them, the stonewall's stops.
    pub stop_messages: u64,
    /// Collective calls (barriers, gathers, reductions, broadcasts).
    pub collectives: u64,
    pub gathered_bytes: u64,
    pub reduced_bytes: u64,
    pub broadcast_bytes: u64,
}

impl Traffic {
    /// The counts as a list, in a fixed order, for a reduction; and back.
    pub const FIELDS: usize = 6;

    pub fn to_array(self) -> [u64; Traffic::FIELDS] {
        [
            self.messages,
            self.stop_messages,
            self.collectives,
            self.gathered_bytes,
            self.reduced_bytes,
            self.broadcast_bytes,
        ]
    }

    pub fn from_slice(v: &[u64]) -> Traffic {
        let at = |i: usize| v.get(i).copied().unwrap_or(0);
        Traffic {
            messages: at(0),
            stop_messages: at(1),
            collectives: at(2),
            gathered_bytes: at(3),
            reduced_bytes: at(4),
            broadcast_bytes: at(5),
        }
    }
}

/// Slurm's word on the job, where srun or sbatch started it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmJob {
    pub job_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    /// The nodes, in Slurm's compact form (`node[1-4]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_list: Option<String>,
    /// Tasks per node, in Slurm's form (`2(x3),1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks_per_node: Option<String>,
}

/// The ranks' peak resident memory (VmHWM), in KiB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankMemory {
    pub rank_0_kib: u64,
    pub largest_kib: u64,
    pub mean_kib: u64,
}

/// The job a cluster run was (see the module).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Job {
    /// `mpirun` (Open MPI), `mpiexec` (MPICH's Hydra), `srun`, or `-+m`
    /// (ioz started the launcher from IOzone's client file).
    pub launcher: String,
    pub ranks: u32,
    /// Each host and how many ranks ran there, in the order of its first
    /// rank.
    pub hosts: Vec<(String, u32)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slurm: Option<SlurmJob>,
    /// What crossed between the ranks, summed over them, up to the last
    /// reduction (the end's gather of each rank's facts not counted).
    #[serde(default)]
    pub traffic: Traffic,
    #[serde(default)]
    pub memory: RankMemory,
}

impl Job {
    /// The history's column: `mpirun 4 ranks on 2 hosts`, Slurm's job and
    /// step where it ran the job.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} {} rank{} on {} host{}",
            self.launcher,
            self.ranks,
            if self.ranks == 1 { "" } else { "s" },
            self.hosts.len(),
            if self.hosts.len() == 1 { "" } else { "s" }
        );
        if let Some(slurm) = &self.slurm {
            s.push_str(&format!(", Slurm job {}", slurm.job_id));
            if let Some(step) = &slurm.step_id {
                s.push_str(&format!(".{step}"));
            }
        }
        s
    }
}

/// Each host and its number of ranks, from every rank's host in rank
/// order.
pub fn hosts_of<'a>(hosts: impl IntoIterator<Item = &'a str>) -> Vec<(String, u32)> {
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for h in hosts {
        match at.get(h) {
            Some(&i) => out[i].1 += 1,
            None => {
                at.insert(h, out.len());
                out.push((h.to_string(), 1));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_is_summed_up_in_one_line() {
        let job = Job {
            launcher: "srun".into(),
            ranks: 4,
            hosts: hosts_of(["a", "b", "a", "b"]),
            slurm: Some(SlurmJob {
                job_id: "17".into(),
                step_id: Some("0".into()),
                ..SlurmJob::default()
            }),
            ..Job::default()
        };
        assert_eq!(job.hosts, [("a".to_string(), 2), ("b".to_string(), 2)]);
        assert_eq!(job.summary(), "srun 4 ranks on 2 hosts, Slurm job 17.0");
        let t = Traffic {
            messages: 1,
            stop_messages: 2,
            collectives: 3,
            gathered_bytes: 4,
            reduced_bytes: 5,
            broadcast_bytes: 6,
        };
        assert_eq!(Traffic::from_slice(&t.to_array()), t);
    }
}
