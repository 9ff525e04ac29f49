//! Cluster mode: ranks of an MPI job, each a client running throughput
//! workers. This module says whether ioz was started by an MPI launcher (from
//! the launcher's environment, in every build) and, in the MPI build
//! (`--features mpi`), holds the one backend that talks MPI ([`mpi`]). The
//! runner sees only the [`Peers`] trait.

#[cfg(feature = "mpi")]
pub mod mpi;

use crate::error::RunError;
use crate::model::job::{SlurmJob, Traffic};
use crate::model::skew::ClockOffset;

/// A call across the ranks that failed.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// The MPI call `call` ("barrier", "send", …), and what MPI said.
    #[error("MPI {call}: {source}")]
    Call {
        call: &'static str,
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The rank stopped waiting for the others in `call`: the job was
    /// ending (a stop, a rank that died, the time limit) and they did not
    /// answer in time. No call across the ranks is made after it.
    #[error("MPI {call}: {why}: the other ranks did not answer")]
    GaveUp { call: &'static str, why: String },
}

/// How a reduction combines the ranks' values, element by element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    not(feature = "mpi"),
    expect(
        dead_code,
        reason = "the sums are the MPI build's (app/cluster/job_record.rs)"
    )
)]
pub enum Reduction {
    Sum,
    Max,
    Min,
}

/// A failed call across the ranks ends the run as the machine's failure
/// (exit status 1), never the user's input.
impl From<PeerError> for RunError {
    fn from(e: PeerError) -> RunError {
        RunError::System(e.to_string())
    }
}

/// The calls the runner makes across the ranks of a job. One
/// implementation: MPI's (`mpi::MpiPeers`).
pub trait Peers: Sync {
    /// This rank, from 0.
    fn rank(&self) -> u32;
    /// The number of ranks.
    #[cfg_attr(
        not(feature = "mpi"),
        expect(
            dead_code,
            reason = "asked by the MPI build's entry only (app/cluster_rank.rs)"
        )
    )]
    fn size(&self) -> u32;
    /// This rank's host name.
    fn host(&self) -> &str;
    /// Blocks until every rank has called it.
    fn barrier(&self) -> Result<(), PeerError>;
    /// Tells every other rank to stop its phase (stonewalling, or a
    /// failure here), through rank 0: another rank tells rank 0, which
    /// tells every other rank once, as it hears the first stop (or stops
    /// itself); so a phase's stops are at most 2(R−1) messages, never one
    /// from every rank to every other. Small messages: they do not wait
    /// for a receiver.
    fn send_stop(&self) -> Result<(), PeerError>;
    /// Whether a stop from another rank has arrived (it is received; on
    /// rank 0, passed on to every other rank).
    fn stop_arrived(&self) -> Result<bool, PeerError>;
    /// Collective, at the end of each phase: waits for every rank to end
    /// its phase (rank 0 passing on a stop that comes meanwhile: a rank
    /// that fails after rank 0's workers ended still stops the others),
    /// then receives every stop sent in it that was not received yet, so
    /// none leaks into the next phase.
    fn drain_stops(&self) -> Result<(), PeerError>;
    /// Collective: rank 0 gets every rank's bytes, in rank order; the
    /// others get an empty list. Lengths in 64 bits: past MPI's counts
    /// (2 GiB in one gather) the bytes come in pieces.
    fn gather(&self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, PeerError>;
    /// Collective: every rank gets rank 0's bytes.
    fn broadcast(&self, bytes: &[u8]) -> Result<Vec<u8>, PeerError> {
        self.broadcast_from(0, bytes)
    }
    /// Collective: every rank gets rank `root`'s bytes.
    fn broadcast_from(&self, root: u32, bytes: &[u8]) -> Result<Vec<u8>, PeerError>;
    /// Collective: `values` combined element by element over the ranks;
    /// rank 0 gets them (every rank, when `everywhere`), the others an
    /// empty list.
    fn reduce(
        &self,
        values: &[u64],
        how: Reduction,
        everywhere: bool,
    ) -> Result<Vec<u64>, PeerError>;
    /// What this rank's calls across the ranks moved so far.
    #[cfg_attr(
        not(feature = "mpi"),
        expect(
            dead_code,
            reason = "recorded by the MPI build's ranks (app/cluster/job_record.rs)"
        )
    )]
    fn traffic(&self) -> Traffic;
    /// `--live`: sends one line of this rank's to rank 0 (a small message,
    /// which does not wait for rank 0 to receive it). Not collective.
    #[cfg_attr(
        not(feature = "mpi"),
        expect(
            dead_code,
            reason = "sent by the MPI build's ranks (app/cluster/live.rs)"
        )
    )]
    fn send_live(&self, line: &[u8]) -> Result<(), PeerError>;
    /// `--live`, rank 0: the lines that have arrived from the other ranks,
    /// each with its rank. Not collective.
    #[cfg_attr(
        not(feature = "mpi"),
        expect(
            dead_code,
            reason = "received by the MPI build's rank 0 (app/cluster/live.rs)"
        )
    )]
    fn live_arrived(&self) -> Result<Vec<(u32, Vec<u8>)>, PeerError>;
    /// Sends `bytes` to rank `to` (returns once they may be reused): the
    /// network test's messages (-+t); `reply`: an answer, told apart from
    /// the question by its tag, so that rank 0 can test its own host with
    /// itself (two threads) without taking back its own message.
    #[cfg_attr(
        not(feature = "mpi"),
        expect(dead_code, reason = "the network test runs in the MPI build only")
    )]
    fn send_to(&self, to: u32, bytes: &[u8], reply: bool) -> Result<(), PeerError>;
    /// Receives a message of the network test from rank `from` into
    /// `into`, which it fills (`reply`: an answer, as [`Peers::send_to`]).
    #[cfg_attr(
        not(feature = "mpi"),
        expect(dead_code, reason = "the network test runs in the MPI build only")
    )]
    fn receive_from(&self, from: u32, into: &mut [u8], reply: bool) -> Result<(), PeerError>;
    /// Collective. Rank 0 gets, for every rank, how far its CLOCK_MONOTONIC
    /// is ahead of rank 0's (ns), estimated by message round trips keeping
    /// the shortest, tried again with more round trips where none was
    /// short enough to trust (then the offset is unknown, and the shortest
    /// trip says why); the other ranks answer rank 0 and get an empty list.
    #[cfg_attr(
        not(feature = "mpi"),
        expect(
            dead_code,
            reason = "asked by the MPI build's entry only (app/cluster/rank.rs)"
        )
    )]
    fn clock_offsets(&self) -> Result<Vec<ClockOffset>, PeerError>;
}

/// The offset of a peer's clock from one round trip: sent at `sent`,
/// answered with the peer's clock `theirs`, back at `back` (ns), assuming
/// the answer was read half-way. With the round trip, to keep the shortest.
#[cfg_attr(
    all(not(feature = "mpi"), not(test)),
    expect(
        dead_code,
        reason = "the MPI backend's (mpi.rs); its arithmetic is tested in every build"
    )
)]
pub fn offset_of(sent: u64, theirs: u64, back: u64) -> (i64, u64) {
    let trip = back.saturating_sub(sent);
    (theirs as i64 - (sent + trip / 2) as i64, trip)
}

/// The environment variables that MPI launchers set in the processes they
/// start, with the number of ranks where the variable holds it: Open MPI's
/// mpirun, MPICH's and Intel's hydra (PMI), PMIx (Open MPI 5, srun --mpi=pmix).
const LAUNCHER_VARIABLES: &[(&str, bool)] = &[
    ("OMPI_COMM_WORLD_SIZE", true),
    ("PMI_SIZE", true),
    ("PMIX_RANK", false),
    ("MPI_LOCALNRANKS", false),
];

/// An MPI launcher's mark in this process's environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launcher {
    /// The variable that showed it.
    pub variable: &'static str,
    /// The number of ranks the launcher started, where it says.
    pub ranks: Option<u32>,
}

/// The launcher that started this process, if any (`var` reads the
/// environment, so tests can give theirs).
pub fn launcher_in(var: impl Fn(&str) -> Option<String>) -> Option<Launcher> {
    LAUNCHER_VARIABLES.iter().find_map(|&(name, holds_size)| {
        let value = var(name)?;
        Some(Launcher {
            variable: name,
            ranks: if holds_size {
                value.trim().parse().ok()
            } else {
                None
            },
        })
    })
}

/// The launcher that started ioz, if any.
pub fn launcher() -> Option<Launcher> {
    launcher_in(|name| std::env::var(name).ok())
}

/// Who started the ranks, by what it leaves in their environment (`var`
/// reads it): `-+m` (ioz's own launch names the user's command line),
/// srun (a Slurm step), Open MPI's mpirun, MPICH's Hydra (mpiexec).
#[cfg_attr(
    all(not(feature = "mpi"), not(test)),
    expect(
        dead_code,
        reason = "a cluster job's record (app/cluster/job_record.rs)"
    )
)]
pub fn launcher_name_in(
    var: impl Fn(&str) -> Option<String>,
    typed_variable: &str,
) -> &'static str {
    if var(typed_variable).is_some() {
        "-+m"
    } else if var("SLURM_STEP_ID").is_some() && var("OMPI_COMM_WORLD_SIZE").is_none() {
        "srun"
    } else if var("PMI_SIZE").is_some() && var("OMPI_COMM_WORLD_SIZE").is_none() {
        "mpiexec"
    } else {
        "mpirun"
    }
}

/// Slurm's job and step, nodes and tasks per node, where Slurm ran the
/// job (`var` reads the environment).
#[cfg_attr(
    all(not(feature = "mpi"), not(test)),
    expect(
        dead_code,
        reason = "a cluster job's record (app/cluster/job_record.rs)"
    )
)]
pub fn slurm_job_in(var: impl Fn(&str) -> Option<String>) -> Option<SlurmJob> {
    let first = |names: &[&str]| names.iter().find_map(|n| var(n)).filter(|v| !v.is_empty());
    Some(SlurmJob {
        job_id: first(&["SLURM_JOB_ID", "SLURM_JOBID"])?,
        step_id: first(&["SLURM_STEP_ID", "SLURM_STEPID"]),
        node_list: first(&[
            "SLURM_STEP_NODELIST",
            "SLURM_JOB_NODELIST",
            "SLURM_NODELIST",
        ]),
        tasks_per_node: first(&["SLURM_STEP_TASKS_PER_NODE", "SLURM_TASKS_PER_NODE"]),
    })
}

/// The variable in which Slurm's srun tells each task how many tasks its
/// step started (a batch script's own environment has SLURM_NTASKS, the
/// allocation's, but not this).
pub const SRUN_TASKS_VARIABLE: &str = "SLURM_STEP_NUM_TASKS";

/// The number of tasks srun started in this step, when it started more
/// than this one (`var` reads the environment).
pub fn srun_tasks_in(var: impl Fn(&str) -> Option<String>) -> Option<u32> {
    var(SRUN_TASKS_VARIABLE)?
        .trim()
        .parse()
        .ok()
        .filter(|&n: &u32| n > 1)
}

/// The tasks of this process's srun step, when more than one.
pub fn srun_tasks() -> Option<u32> {
    srun_tasks_in(|name| std::env::var(name).ok())
}

/// Why a copy of ioz that srun started as one of `tasks` with no MPI
/// between them (each would run alone, on the same files) runs nothing.
pub fn srun_without_mpi(tasks: u32) -> String {
    format!(
        "started as one of {tasks} tasks by srun ({SRUN_TASKS_VARIABLE}={tasks}) with no MPI \
         between them: each copy would run alone on the same files; give srun --mpi=pmix \
         (srun --mpi=list names those it has) to ioz built with --features mpi"
    )
}

/// The variables in which launchers tell a rank its place among the ranks
/// of its own host (rank, count): Open MPI's, then MPICH's hydra, then
/// Slurm's srun (SLURM_LOCALID; its count only when every node runs the
/// same number of tasks).
const HOST_PLACE_VARIABLES: &[(&str, &str)] = &[
    ("OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"),
    ("MPI_LOCALRANKID", "MPI_LOCALNRANKS"),
    ("SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"),
];

/// This rank's place among the ranks on its host, (rank, count), as its
/// launcher says (`var` reads the environment); (0, 1) when none says, as
/// if it were alone there.
pub fn host_place_in(var: impl Fn(&str) -> Option<String>) -> (u32, u32) {
    HOST_PLACE_VARIABLES
        .iter()
        .find_map(|&(rank, count)| {
            let rank: u32 = var(rank)?.trim().parse().ok()?;
            let count: u32 = var(count)?.trim().parse().ok()?;
            (rank < count).then_some((rank, count))
        })
        .unwrap_or((0, 1))
}

/// This rank's place among the ranks on its host.
#[cfg_attr(
    not(feature = "mpi"),
    expect(dead_code, reason = "ranks exist in the MPI build only")
)]
pub fn host_place() -> (u32, u32) {
    host_place_in(|name| std::env::var(name).ok())
}

/// The line a binary built without MPI says when asked for cluster mode.
pub const BUILD_HINT: &str = "cluster mode needs ioz built with MPI: install Open MPI \
     (Debian: apt-get install libopenmpi-dev openmpi-bin) and run \
     cargo build --release --features mpi";

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn a_peer_s_offset_is_its_clock_minus_the_trip_s_middle() {
        // Sent at 1000, back at 1100: the peer read its clock at 1050 of ours.
        assert_eq!(offset_of(1000, 51_050, 1100), (50_000, 100));
        assert_eq!(offset_of(1000, 1000, 1100), (-50, 100));
    }

    #[test]
    fn a_rank_s_place_on_its_host_is_its_launcher_s_word() {
        let place = |vars: &[(&str, &str)]| host_place_in(env(vars));
        assert_eq!(place(&[]), (0, 1));
        assert_eq!(
            place(&[
                ("OMPI_COMM_WORLD_LOCAL_RANK", "1"),
                ("OMPI_COMM_WORLD_LOCAL_SIZE", "4")
            ]),
            (1, 4)
        );
        assert_eq!(
            place(&[("MPI_LOCALRANKID", "2"), ("MPI_LOCALNRANKS", "3")]),
            (2, 3)
        );
        assert_eq!(
            place(&[("SLURM_LOCALID", "0"), ("SLURM_NTASKS_PER_NODE", "2")]),
            (0, 2)
        );
        // Half a word, or nonsense, is no word.
        assert_eq!(place(&[("OMPI_COMM_WORLD_LOCAL_RANK", "1")]), (0, 1));
        assert_eq!(
            place(&[("MPI_LOCALRANKID", "3"), ("MPI_LOCALNRANKS", "3")]),
            (0, 1)
        );
        assert_eq!(
            place(&[("SLURM_LOCALID", "0"), ("SLURM_NTASKS_PER_NODE", "2(x3)")]),
            (0, 1)
        );
    }

    #[test]
    fn a_launcher_is_known_by_its_variables() {
        assert_eq!(launcher_in(env(&[])), None);
        assert_eq!(
            launcher_in(env(&[("OMPI_COMM_WORLD_SIZE", "4")])),
            Some(Launcher {
                variable: "OMPI_COMM_WORLD_SIZE",
                ranks: Some(4)
            })
        );
        assert_eq!(
            launcher_in(env(&[("PMI_SIZE", "2"), ("PMIX_RANK", "0")]))
                .unwrap()
                .ranks,
            Some(2)
        );
        assert_eq!(launcher_in(env(&[("PMIX_RANK", "1")])).unwrap().ranks, None);
        // A batch allocation alone (sbatch's SLURM_NTASKS) is not a launch.
        assert_eq!(launcher_in(env(&[("SLURM_NTASKS", "8")])), None);
    }

    #[test]
    fn the_launcher_and_slurm_s_job_are_read_from_the_ranks_environment() {
        let name = |vars: &[(&str, &str)]| launcher_name_in(env(vars), "IOZ_TYPED_COMMAND");
        assert_eq!(name(&[("OMPI_COMM_WORLD_SIZE", "2")]), "mpirun");
        assert_eq!(name(&[("PMI_SIZE", "2")]), "mpiexec");
        assert_eq!(name(&[("SLURM_STEP_ID", "0"), ("PMIX_RANK", "1")]), "srun");
        // mpirun inside an allocation is still mpirun.
        assert_eq!(
            name(&[("SLURM_STEP_ID", "0"), ("OMPI_COMM_WORLD_SIZE", "2")]),
            "mpirun"
        );
        assert_eq!(
            name(&[("IOZ_TYPED_COMMAND", "ioz"), ("OMPI_COMM_WORLD_SIZE", "2")]),
            "-+m"
        );
        assert_eq!(slurm_job_in(env(&[("SLURM_STEP_ID", "0")])), None);
        assert_eq!(
            slurm_job_in(env(&[
                ("SLURM_JOB_ID", "42"),
                ("SLURM_STEP_ID", "3"),
                ("SLURM_JOB_NODELIST", "n[1-2]"),
                ("SLURM_STEP_TASKS_PER_NODE", "2(x2)"),
            ])),
            Some(SlurmJob {
                job_id: "42".into(),
                step_id: Some("3".into()),
                node_list: Some("n[1-2]".into()),
                tasks_per_node: Some("2(x2)".into()),
            })
        );
    }

    #[test]
    fn srun_s_tasks_are_its_step_s_not_the_allocation_s() {
        assert_eq!(
            srun_tasks_in(env(&[("SLURM_STEP_NUM_TASKS", "4")])),
            Some(4)
        );
        // One task alone, a batch script (SLURM_NTASKS only), nonsense: none.
        assert_eq!(srun_tasks_in(env(&[("SLURM_STEP_NUM_TASKS", "1")])), None);
        assert_eq!(srun_tasks_in(env(&[("SLURM_NTASKS", "4")])), None);
        assert_eq!(srun_tasks_in(env(&[("SLURM_STEP_NUM_TASKS", "x")])), None);
    }
}
