//! Every rank of a job makes the same collective calls in the same order
//! (runner/throughput/ranks.rs: a barrier per cell or phase, a gather and a
//! broadcast after it), or the job waits forever for the rank that went
//! elsewhere. Ranks started with different options (Open MPI's MPMD
//! syntax, `mpirun -np 1 ioz … : -np 1 ioz …`) are stopped here, before
//! anything is made, with one line naming the first rank that differs.

use serde::{Deserialize, Serialize};

use crate::app::output::say;
use crate::error::{Exit, RunError};
use crate::model::config::{RunConfig, Sizes};
use crate::model::metadata::MetadataConfig;
use crate::model::plan::{Cell, expand, passes};
use crate::model::workload::Pass;
use crate::runner::Across;
use crate::system::cluster::Peers;

/// What decides the sequence of a run's collective calls.
#[derive(Serialize, Deserialize, PartialEq)]
enum Plan {
    /// Single and auto mode: the ranks meet around each cell, every run.
    Cells { cells: Vec<Cell>, runs: u32 },
    /// Throughput mode: around each phase of each of the job's worker
    /// counts, every run; -+V/-+L claim the one file together, and the
    /// sizes (with -+k) decide whether a worker count runs at all.
    Phases {
        worker_counts: Vec<u32>,
        passes: Vec<Pass>,
        sizes: Sizes,
        runs: u32,
        shared_file: bool,
        constant_total: bool,
    },
    /// A metadata benchmark: around each of its phases, every run.
    Metadata { metadata: MetadataConfig, runs: u32 },
}

impl Plan {
    fn of(config: &RunConfig) -> Plan {
        if let Some(metadata) = &config.metadata {
            return Plan::Metadata {
                metadata: metadata.clone(),
                runs: config.runs,
            };
        }
        match &config.throughput {
            None => Plan::Cells {
                cells: expand(config).cells,
                runs: config.runs,
            },
            Some(tp) => Plan::Phases {
                worker_counts: tp.worker_counts.clone(),
                passes: passes(config),
                sizes: config.sizes.clone(),
                runs: config.runs,
                shared_file: tp.shared_file,
                constant_total: tp.constant_total,
            },
        }
    }

    /// What differs, as the refusal names it.
    fn parts(&self) -> &'static str {
        match self {
            Plan::Cells { .. } => "cells or --runs",
            Plan::Phases { .. } => "worker counts, tests, sizes, -+V/-+L, -+k or --runs",
            Plan::Metadata { .. } => "the benchmark's options or --runs",
        }
    }
}

/// Collective, before anything is made: every rank runs the job's plan
/// (`config`, before its workers are dealt) as rank 0 does, or the job is
/// refused, naming the first rank whose plan differs.
pub(super) fn same_plan(across: &Across<'_>, config: &RunConfig) -> Result<(), RunError> {
    let plan = Plan::of(config);
    let first = across.rank_0_s(&plan)?;
    across.agree(if first == plan {
        Ok(())
    } else {
        Err(RunError::Refused(format!(
            "its plan ({}) differs from rank 0's: give every rank the same options",
            plan.parts()
        )))
    })
}

/// Collective, once each rank has read its command line: `mine` is why
/// this rank cannot run it (a parse error, a refusal), if it cannot. A job
/// where any rank cannot is ended on every rank (exit 2): rank 0 says its
/// own reason, or the first other rank's, as `rank R on HOST: …`, so that
/// a rank given other options (MPMD) is not ended by mpirun in silence.
pub(super) fn command_lines(peers: &dyn Peers, mine: Option<String>) -> Result<(), Exit> {
    let across = Across::new(peers, false);
    let local = match &mine {
        Some(why) => Err(RunError::Refused(why.clone())),
        None => Ok(()),
    };
    across.agree(local).map_err(|e| {
        if peers.rank() == 0 {
            match mine {
                Some(why) => say(why),
                None => say(&e),
            }
        }
        e.exit()
    })
}
