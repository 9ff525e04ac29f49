//! A rank of an MPI job as the run driver sees it (app/driver.rs): what
//! every rank does alike — its plan and the history settled with the
//! others, its preflight agreed, rank 0 alone speaking for the job, every
//! rank ending with the job's exit status — around what its mode does
//! ([`RankMode`]: throughput mode's phases, single and auto mode's cells).

use super::launcher::STOP_GRACE_SECONDS;
use super::live::JobLive;
use crate::app::driver::{OnEvent, Tools, Venue};
use crate::app::record::Destination;
use crate::app::run_start::{Measured, RunStart};
use crate::error::{Exit, RunError};
use crate::model::config::RunConfig;
use crate::model::environment::Environment;
use crate::model::result::Client;
use crate::report::text::LiveText;
use crate::runner::{Across, LiveSink, Outcome};
use crate::system::cluster::Peers;
use crate::system::signals::StopFlag;

/// What a mode of cluster mode does on each rank.
pub(super) trait RankMode {
    /// The share of `config` that rank `rank` of `ranks` runs.
    fn share(&self, config: &RunConfig, rank: u32, ranks: u32) -> RunConfig;

    /// Once every rank passed its preflight. Collective.
    fn after_agreement(&self, across: &mut Across<'_>) -> Result<(), RunError>;

    /// A warning for rank 0 to say before the run.
    fn warning(&self, mine: &RunConfig) -> Option<String>;

    /// Rank 0's text before the first measurement; `ranks`: rank 0 and
    /// the number of ranks.
    fn opening(
        &self,
        text: &LiveText<'_>,
        start: &RunStart,
        mine: &RunConfig,
        ranks: (&Client, u32),
    ) -> String;

    /// Measures this rank's share `mine` with the others (`live`: where
    /// this rank's intervals go as they end). Collective.
    fn measure(
        &mut self,
        across: &Across<'_>,
        mine: &RunConfig,
        controls: (&StopFlag, Option<&dyn LiveSink>),
        on_event: &mut OnEvent<'_>,
    ) -> Outcome;

    /// What this rank measured (with its environment, `here`), made the
    /// job's on rank 0. Collective.
    fn gather(
        &mut self,
        across: &Across<'_>,
        mine: &RunConfig,
        here: &Environment,
        measured: Measured,
    ) -> Result<Measured, RunError>;
}

/// One rank's run of the job, in the mode `M`.
pub(super) struct RankRun<'a, M> {
    peers: &'a dyn Peers,
    across: Across<'a>,
    mode: M,
}

impl<'a, M: RankMode> RankRun<'a, M> {
    /// `threads`: the job's -T (a rank's own workers are threads always).
    pub(super) fn new(peers: &'a dyn Peers, threads: bool, mode: M) -> RankRun<'a, M> {
        RankRun {
            peers,
            across: Across::new(peers, threads),
            mode,
        }
    }

    fn me(&self) -> Client {
        Client {
            rank: self.peers.rank(),
            host: self.peers.host().to_string(),
        }
    }
}

impl<M: RankMode> Venue for RankRun<'_, M> {
    fn speaks(&self) -> bool {
        self.peers.rank() == 0
    }

    fn history(&mut self, config: &RunConfig) -> Result<Option<Destination>, RunError> {
        super::same_start::same_plan(&self.across, config)?;
        super::recording::place(config, self.peers.rank(), &self.across)
    }

    /// Only rank 0 writes the result files.
    fn share(&self, config: &RunConfig) -> RunConfig {
        let rank = self.peers.rank();
        let mut mine = self.mode.share(config, rank, self.peers.size());
        if rank != 0 {
            mine.outputs = Default::default();
            mine.excel_report = false;
        }
        mine
    }

    fn agree<T>(&mut self, mine: Result<T, RunError>) -> Result<T, RunError> {
        self.across
            .agree(mine.as_ref().map(drop).map_err(clone_error))?;
        self.mode.after_agreement(&mut self.across)?;
        mine
    }

    /// The job's: rank 0 prints and saves the whole job.
    fn described(&self, config: RunConfig, _mine: &RunConfig) -> RunConfig {
        config
    }

    fn warning(&self, mine: &RunConfig) -> Option<String> {
        self.mode
            .warning(mine)
            .or_else(|| short_stop_grace(|name| std::env::var(name).ok()))
    }

    fn opening(&self, text: &LiveText<'_>, start: &RunStart, mine: &RunConfig) -> String {
        self.mode
            .opening(text, start, mine, (&self.me(), self.peers.size()))
    }

    /// Cluster mode refuses -X/-Y across ranks and -U (super::refusal).
    fn measure(
        &mut self,
        mine: &RunConfig,
        (_, _, live): Tools<'_>,
        stop: &StopFlag,
        on_event: &mut OnEvent<'_>,
    ) -> Outcome {
        // --interval: every rank's lines go to rank 0, which writes the job's.
        let job_live = mine
            .interval_ns
            .map(|interval_ns| JobLive::new(self.peers, live, interval_ns));
        let live = job_live.as_ref().map(|j| j as &dyn LiveSink);
        self.mode
            .measure(&self.across, mine, (stop, live), on_event)
    }

    fn gather(
        &mut self,
        mine: &RunConfig,
        here: &Environment,
        measured: Measured,
    ) -> Result<Measured, RunError> {
        let mut measured = self.mode.gather(&self.across, mine, here, measured)?;
        measured.job = super::job_record::record(self.peers, &measured.ranks)?;
        Ok(measured)
    }

    fn own_line(&self, line: &str) -> String {
        let Client { rank, host } = self.me();
        format!("rank {rank} on {host}: {line}")
    }

    /// Rank 0 ends once it has printed and saved the job; every other rank
    /// waits for it here, so that none ends first with a status of its own
    /// (Open MPI's mpirun aborts the job, rank 0 with it, when a rank ends
    /// with a failure, and reports that rank's status as the job's).
    fn job_exit(&mut self, mine: Exit) -> Exit {
        match self.across.rank_0_s(&mine.code()) {
            Ok(0) | Err(_) => mine,
            Ok(job) => exit_of(job),
        }
    }
}

/// Open MPI's mpirun gives the ranks `odls_base_sigkill_timeout` seconds
/// (1 by default) between the SIGCONT that begins a stop and its SIGTERM,
/// and sends SIGKILL soon after: too short for rank 0 to gather and save a
/// run stopped by a Ctrl-C on a loaded machine. The line that says so,
/// where mpirun started the ranks with less than ioz -+m's 3 s (`var`
/// reads the environment, where mpirun puts its --mca settings).
fn short_stop_grace(var: impl Fn(&str) -> Option<String>) -> Option<String> {
    var("OMPI_COMM_WORLD_SIZE")?;
    let grace: u32 = var("OMPI_MCA_odls_base_sigkill_timeout")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1);
    (grace < STOP_GRACE_SECONDS).then(|| {
        format!(
            "mpirun gives the ranks {grace} s to save the run after a Ctrl-C or SIGTERM \
             (odls_base_sigkill_timeout): give mpirun --mca odls_base_sigkill_timeout \
             {STOP_GRACE_SECONDS}, as ioz -+m does"
        )
    })
}

/// The exit a status code stands for.
fn exit_of(code: i32) -> Exit {
    match code {
        0 => Exit::Success,
        2 => Exit::Usage,
        signal if signal > 128 => Exit::Signal(signal - 128),
        _ => Exit::Failure,
    }
}

/// A copy of a preflight's error for the other ranks' verdict (the kind
/// decides the exit status: a refusal is 2).
fn clone_error(e: &RunError) -> RunError {
    match e {
        RunError::Refused(m) => RunError::Refused(m.clone()),
        other => RunError::Worker(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_stop_grace_of_open_mpi_is_told() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let said = short_stop_grace(env(&[("OMPI_COMM_WORLD_SIZE", "2")])).unwrap();
        assert!(
            said.starts_with("mpirun gives the ranks 1 s to save the run"),
            "{said}"
        );
        assert!(
            said.contains("--mca odls_base_sigkill_timeout 3,"),
            "{said}"
        );
        assert!(!said.contains("  "), "{said}");
        assert_eq!(
            short_stop_grace(env(&[
                ("OMPI_COMM_WORLD_SIZE", "2"),
                ("OMPI_MCA_odls_base_sigkill_timeout", "3")
            ])),
            None
        );
        // srun, MPICH: not mpirun's rule.
        assert_eq!(short_stop_grace(env(&[("PMI_SIZE", "2")])), None);
    }

    #[test]
    fn every_exit_travels_as_its_status_code() {
        for exit in [
            Exit::Success,
            Exit::Failure,
            Exit::Usage,
            Exit::Signal(2),
            Exit::Signal(13),
            Exit::Signal(15),
        ] {
            assert_eq!(exit_of(exit.code()), exit);
        }
    }
}
