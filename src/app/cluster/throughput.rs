//! Throughput mode across the ranks of an MPI job (`mpirun -np N ioz -t M
//! …`): each rank runs its share of the job's workers (threads) on their
//! files, every phase taken with the other ranks (runner::measure_across),
//! and rank 0's events carry the whole job's phases, which it prints and
//! saves as one machine's.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::job::RankMode;
use super::test_hooks::TestHooks;
use crate::app::driver::{self, OnEvent};
use crate::app::run_start::{Measured, RunStart};
use crate::error::RunError;
use crate::model::config::RunConfig;
use crate::model::environment::Environment;
use crate::model::result::{Client, RankCells};
use crate::report::text::LiveText;
use crate::runner::{self, Across, Outcome};
use crate::system::signals::StopFlag;

/// Throughput mode on one rank.
pub(super) struct Phases {
    hooks: TestHooks,
}

impl Phases {
    pub(super) fn new(hooks: TestHooks) -> Phases {
        Phases { hooks }
    }
}

impl RankMode for Phases {
    /// The rank's workers (as threads) and their files, named as the whole
    /// job names them (super::share).
    fn share(&self, config: &RunConfig, rank: u32, ranks: u32) -> RunConfig {
        let mut mine = config.clone();
        if let Some(tp) = mine.throughput.as_mut() {
            super::share::deal(tp, &config.path, rank, ranks);
        }
        mine
    }

    /// Rank 0 estimates how far each rank's clock is from its own, so that
    /// "Parent sees" can span the ranks.
    fn after_agreement(&self, across: &mut Across<'_>) -> Result<(), RunError> {
        across.align_clocks()
    }

    fn warning(&self, mine: &RunConfig) -> Option<String> {
        crowded_workers(mine)
    }

    fn opening(
        &self,
        text: &LiveText<'_>,
        start: &RunStart,
        _mine: &RunConfig,
        _ranks: (&Client, u32),
    ) -> String {
        text.opening(&start.environment, &start.started, start.time_resolution_ns)
    }

    fn measure(
        &mut self,
        across: &Across<'_>,
        mine: &RunConfig,
        stop: &StopFlag,
        on_event: &mut OnEvent<'_>,
    ) -> Outcome {
        let hooks = &self.hooks;
        runner::measure_across(mine, stop, across, |event| {
            hooks.after_event(&event);
            on_event(event)
        })
    }

    /// Rank 0's phases are the job's already (runner::Across::settle); it
    /// gets each rank's first test file and environment.
    fn gather(
        &mut self,
        across: &Across<'_>,
        mine: &RunConfig,
        here: &Environment,
        measured: Measured,
    ) -> Result<Measured, RunError> {
        let facts = RankFacts {
            test_file: driver::first_file(mine),
            environment: here.clone(),
        };
        let ranks = across
            .gather_with_hosts(&facts)?
            .into_iter()
            .enumerate()
            .map(|(rank, (host, f))| RankCells {
                client: Client {
                    rank: rank as u32,
                    host,
                },
                test_file: f.test_file,
                cells: Vec::new(),
                cell_starts: Vec::new(),
                environment: Some(f.environment),
            })
            .collect();
        Ok(Measured { ranks, ..measured })
    }
}

/// What a rank tells rank 0 of itself at the end.
#[derive(Serialize, Deserialize)]
struct RankFacts {
    test_file: PathBuf,
    environment: Environment,
}

/// Rank 0's workers, if they outnumber the CPUs the rank may run on (its
/// launcher bound it: Open MPI binds each of up to two ranks to one core)
/// and -P does not place them: what the user should know before reading
/// the numbers.
fn crowded_workers(mine: &RunConfig) -> Option<String> {
    let tp = mine
        .throughput
        .as_ref()
        .filter(|tp| tp.first_cpu.is_none())?;
    let workers = tp.max_worker_count();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    (workers as usize > cpus).then(|| {
        format!(
            "rank 0's {workers} workers may run on {cpus} CPU(s) only: its launcher bound it; \
             give mpirun --bind-to none (and -P to place them)"
        )
    })
}
