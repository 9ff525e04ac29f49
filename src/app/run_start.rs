//! What a run notes as it begins — when (local and UTC), on what machine
//! and file system, with which clock — and the saved result that becomes,
//! the same for a run on one machine and for rank 0 of a cluster job.

use std::path::Path;

use crate::model::ceilings::Ceilings;
use crate::model::config::RunConfig;
use crate::model::environment::Environment;
use crate::model::job::Job;
use crate::model::metadata_result::MetadataResult;
use crate::model::result::{
    CellResult, PhaseResult, RankCells, RunResult, RunStatus, SCHEMA_VERSION,
};
use crate::model::skew::CellSkew;
use crate::system::{ceilings, environment, time};

pub(crate) struct RunStart {
    /// `Run began` as ctime(3) prints it.
    pub started: String,
    pub started_at: String,
    pub environment: Environment,
    pub time_resolution_ns: u64,
    /// What the run's rates are held against (system/ceilings.rs).
    pub ceilings: Option<Ceilings>,
}

/// What a run measured, for its result.
#[derive(Clone)]
pub(crate) struct Measured {
    pub cells: Vec<CellResult>,
    pub throughput: Vec<PhaseResult>,
    pub ranks: Vec<RankCells>,
    /// `ioz fileop`, `ioz mdtest`.
    pub metadata: Option<MetadataResult>,
    pub cell_skews: Vec<CellSkew>,
    /// Cluster mode: the job (app/cluster/job_record.rs).
    pub job: Option<Job>,
    pub status: RunStatus,
}

impl RunStart {
    /// Now, the environment of `first_file` (the first file the run
    /// writes), and the ceilings measured beside it (none for a metadata
    /// benchmark, whose rates are no bytes moved).
    pub fn capture(first_file: &Path, metadata: bool) -> RunStart {
        let environment = environment::capture(first_file);
        let ceilings =
            (!metadata).then(|| ceilings::measure(first_file, environment.target.device.as_ref()));
        RunStart {
            started: time::ctime_now(),
            started_at: time::utc_now_rfc3339(),
            environment,
            time_resolution_ns: time::clock_resolution_ns(),
            ceilings,
        }
    }

    /// The run's result, finished now.
    pub fn into_result(self, config: RunConfig, mut measured: Measured) -> RunResult {
        // A metadata run on one machine ran on this host.
        if let Some(meta) = measured.metadata.as_mut().filter(|m| m.hosts.is_empty()) {
            meta.hosts.push(self.environment.hostname.clone());
        }
        let mut result = RunResult {
            schema_version: SCHEMA_VERSION,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            config,
            started: self.started,
            started_at: self.started_at,
            finished_at: time::utc_now_rfc3339(),
            environment: self.environment,
            time_resolution_ns: self.time_resolution_ns,
            cells: measured.cells,
            throughput: measured.throughput,
            ranks: measured.ranks,
            metadata: measured.metadata,
            cell_skews: measured.cell_skews,
            job: measured.job,
            status: measured.status,
            stamp: None,
            ceilings: self.ceilings,
        };
        result.stamp = crate::analysis::rules::stamp(&result, result.config.rules);
        result
    }
}
