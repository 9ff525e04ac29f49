//! The per-operation files of a cluster run: `-Q`'s offset/latency files
//! by every rank for its own workers, in its working directory (they hold
//! every operation: too much to send to rank 0), and `-+z`/`-+T`'s by rank
//! 0 for every worker of the job (a few lines each, from what rank 0
//! gathered). Named by the workers' numbers in the job, as IOzone names
//! its children's.

use std::io;

use crate::app::run::{latency_failure, write_iozone_files};
use crate::error::RunError;
use crate::model::config::RunConfig;
use crate::model::latency::{IozoneBands, OpLatency};
use crate::model::result::PhaseResult;
use crate::model::result_files::{Place, worker_latency_file_name};
use crate::report::latency_files::LatencyFiles;

/// One rank's per-operation files.
pub(super) struct RankFiles {
    files: LatencyFiles,
    /// Rank 0: it writes the -+z and -+T files of the whole job.
    speaks: bool,
}

impl RankFiles {
    /// `places`: the files the guard approved for this rank.
    pub(super) fn new(places: Vec<Place>, speaks: bool) -> RankFiles {
        RankFiles {
            files: LatencyFiles::new(places),
            speaks,
        }
    }

    /// After a phase: `phase` is the job's on rank 0 and the rank's own on
    /// the others, its workers numbered as the job numbers them;
    /// `latencies` are this rank's workers' (-Q), `bands` the phase's
    /// workers' (-+z). `config` is the rank's.
    pub(super) fn phase_done(
        &mut self,
        config: &RunConfig,
        phase: &PhaseResult,
        latencies: Option<&[Vec<OpLatency>]>,
        bands: Option<&[IozoneBands]>,
    ) -> Result<(), RunError> {
        let Some(tp) = &config.throughput else {
            return Ok(());
        };
        for (k, ops) in latencies.unwrap_or_default().iter().enumerate() {
            let worker = tp.job_worker(k as u32);
            let Some(r) = phase.results.iter().find(|r| r.worker == worker) else {
                continue;
            };
            let cpu = (r.cpu_user_ns, r.cpu_system_ns);
            self.files
                .append_worker(phase.pass, worker, ops, cpu, r.elapsed_ns)
                .map_err(|e| {
                    let name = worker_latency_file_name(phase.pass, worker);
                    let source = io::Error::new(e.kind(), format!("{name}: {e}"));
                    latency_failure(&tp.worker_path(&config.path, k as u32), phase.pass, source)
                })?;
        }
        if self.speaks {
            write_iozone_files(&mut self.files, config, phase, bands)?;
        }
        Ok(())
    }
}
