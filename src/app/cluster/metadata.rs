//! The metadata benchmarks across the ranks of an MPI job (`mpirun -np N
//! ioz mdtest …`, `mpirun -np N ioz fileop …`), with mdtest's rules: rank 0
//! makes the tree's directory and every rank works in it (mdtest: one
//! shared tree, or with -u a tree per rank; fileop: a tree per rank), each
//! phase begins at a barrier, the stonewall's count is the most any rank
//! created, and rank 0 sums the ranks: every rank's items over rank 0's
//! phase time, barrier to barrier (model::metadata_result::across_ranks).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::app::cluster::job::RankMode;
use crate::app::driver::OnEvent;
use crate::app::run_start::{Measured, RunStart};
use crate::error::RunError;
use crate::model::config::RunConfig;
use crate::model::environment::Environment;
use crate::model::metadata_result::{MetaMeasurement, MetadataResult, across_ranks};
use crate::model::result::{Client, RankCells};
use crate::report::text::LiveText;
use crate::runner::{self, Across, LiveSink, Meeting, Outcome};
use crate::system::signals::StopFlag;

/// A metadata benchmark on one rank of `ranks`.
pub(super) struct Metadata {
    rank: u32,
    ranks: u32,
}

impl Metadata {
    pub(super) fn new(rank: u32, ranks: u32) -> Metadata {
        Metadata { rank, ranks }
    }
}

/// The ranks around the benchmark's steps.
struct Together<'a> {
    across: &'a Across<'a>,
    rank: u32,
    ranks: u32,
}

impl Meeting for Together<'_> {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn ranks(&self) -> u32 {
        self.ranks
    }

    fn meet(&self) -> Result<(), RunError> {
        self.across.meet()
    }

    fn agree_on_stop(&self, end: Result<Option<i32>, RunError>) -> Result<Option<i32>, RunError> {
        self.across.agree_on_stop(end)
    }

    fn most(&self, mine: u64) -> Result<u64, RunError> {
        let all = self.across.gather_with_hosts(&mine)?;
        let most = all.iter().map(|(_, n)| *n).max().unwrap_or(mine);
        self.across.rank_0_s(&most)
    }

    fn rank_0_s_tree(&self, mine: Result<String, String>) -> Result<String, RunError> {
        match self.across.rank_0_s(&mine)? {
            Ok(name) => Ok(name),
            // Rank 0 says its own failure; the others end with it.
            Err(why) if self.rank != 0 => Err(RunError::Worker(format!(
                "rank 0 could not make the tree: {why}"
            ))),
            Err(why) => Err(RunError::Worker(why)),
        }
    }
}

impl RankMode for Metadata {
    /// Every rank runs the whole benchmark on its own items.
    fn share(&self, config: &RunConfig, _rank: u32, _ranks: u32) -> RunConfig {
        config.clone()
    }

    fn after_agreement(&self, _across: &mut Across<'_>) -> Result<(), RunError> {
        Ok(())
    }

    fn warning(&self, _mine: &RunConfig) -> Option<String> {
        None
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
        // No --live: the metadata commands' grammar has no such flag.
        (stop, _live): (&StopFlag, Option<&dyn LiveSink>),
        on_event: &mut OnEvent<'_>,
    ) -> Outcome {
        let together = Together {
            across,
            rank: self.rank,
            ranks: self.ranks,
        };
        runner::measure_metadata_across(mine, stop, &together, on_event)
    }

    /// Rank 0 gets every rank's measurements, host, tree's directory and
    /// environment, and makes the job's of them.
    fn gather(
        &mut self,
        across: &Across<'_>,
        mine: &RunConfig,
        here: &Environment,
        mut measured: Measured,
    ) -> Result<Measured, RunError> {
        let own = measured.metadata.take().unwrap_or_default();
        let report = RankReport {
            measurements: own.measurements,
            dir: mine
                .metadata
                .as_ref()
                .map_or_else(|| mine.path.clone(), |m| m.dir().clone()),
            environment: here.clone(),
        };
        let all = across.gather_with_hosts(&report)?;
        if self.rank == 0 {
            let mut hosts = Vec::with_capacity(all.len());
            let mut ranks = Vec::with_capacity(all.len());
            let mut rank_cells = Vec::with_capacity(all.len());
            for (rank, (host, r)) in all.into_iter().enumerate() {
                rank_cells.push(RankCells {
                    client: Client {
                        rank: rank as u32,
                        host: host.clone(),
                    },
                    test_file: r.dir,
                    cells: Vec::new(),
                    cell_starts: Vec::new(),
                    environment: Some(r.environment),
                });
                hosts.push(host);
                ranks.push(r.measurements);
            }
            measured.metadata = Some(MetadataResult {
                measurements: across_ranks(&ranks),
                hosts,
                fs: own.fs,
                ranks,
                walk: own.walk,
            });
            measured.ranks = rank_cells;
        }
        Ok(measured)
    }
}

/// What a rank tells rank 0 at the end: its measurements, where its tree
/// was and its environment (disclosed where it differs from rank 0's).
#[derive(Serialize, Deserialize)]
struct RankReport {
    measurements: Vec<MetaMeasurement>,
    dir: PathBuf,
    environment: Environment,
}
