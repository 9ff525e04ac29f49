//! The per-operation files of a run, written as its passes and phases end:
//! `-Q`'s offset/latency files, `-+z`'s histogram blocks and `-+T`'s log
//! lines. Across ranks every rank writes `-Q`'s files for its own workers
//! in its working directory (they hold every operation: too much to send
//! to rank 0), and rank 0 the `-+z`/`-+T` files of every worker of the job
//! (a few lines each, from what it gathered). Files are named by the
//! workers' numbers in the job, as IOzone names its children's.

use std::io;
use std::path::Path;

use crate::error::{IoFailure, RunError};
use crate::model::config::RunConfig;
use crate::model::latency::{IozoneBands, OpLatency};
use crate::model::result::{Measurement, PhaseResult};
use crate::model::result_files::{
    Place, iozone_histogram_file_name, latency_file_name, worker_latency_file_name,
    worker_log_file_name,
};
use crate::model::workload::Pass;
use crate::report::iozone_files::{histogram_block, log_lines};
use crate::report::latency_files::LatencyFiles;
use crate::system::time;

/// One process's per-operation files.
pub(crate) struct RunFiles {
    files: LatencyFiles,
    /// One machine, or rank 0: it writes the `-+z` and `-+T` files.
    speaks: bool,
}

impl RunFiles {
    /// `places`: the files the guard approved for this process.
    pub(crate) fn new(places: Vec<Place>, speaks: bool) -> RunFiles {
        RunFiles {
            files: LatencyFiles::new(places),
            speaks,
        }
    }

    /// Single and auto mode, after a pass: its `-+z` block (`bands`) and
    /// its `-Q` file (`latencies`). `config` is this process's.
    pub(crate) fn pass_done(
        &mut self,
        config: &RunConfig,
        measurement: &Measurement,
        latencies: Option<&[OpLatency]>,
        bands: Option<&IozoneBands>,
    ) -> Result<(), RunError> {
        let pass = measurement.pass;
        if let Some(bands) = bands.filter(|_| self.speaks) {
            let block = histogram_block(0, pass, bands);
            self.append_iozone_file(config, 0, pass, &block)?;
        }
        if let Some(ops) = latencies {
            let cpu = (measurement.cpu_user_ns, measurement.cpu_system_ns);
            self.files
                .append(pass, ops, cpu, measurement.elapsed_ns)
                .map_err(|e| {
                    let name = latency_file_name(pass);
                    let source = io::Error::new(e.kind(), format!("{name}: {e}"));
                    latency_failure(&config.path, pass, source)
                })?;
        }
        Ok(())
    }

    /// Throughput mode, after a phase: `phase` is the job's where this
    /// process speaks and the rank's own elsewhere, its workers numbered
    /// as the job numbers them; `latencies` are this process's workers'
    /// (-Q), `bands` the phase's workers' (-+z). `config` is this
    /// process's.
    pub(crate) fn phase_done(
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
            self.write_iozone_files(config, phase, bands)?;
        }
        Ok(())
    }

    /// `-+z` and `-+T` in throughput mode: each worker's histogram block
    /// and its phase's start and end lines.
    fn write_iozone_files(
        &mut self,
        config: &RunConfig,
        phase: &PhaseResult,
        bands: Option<&[IozoneBands]>,
    ) -> Result<(), RunError> {
        for (k, r) in phase.results.iter().enumerate() {
            if let Some(b) = bands.and_then(|b| b.get(k)) {
                let block = histogram_block(r.worker, phase.pass, b);
                self.append_iozone_file(config, r.worker, phase.pass, &block)?;
            }
            if config.latency.worker_logs {
                // The phase ended (its last worker) just now: each worker's
                // start and end are that long ago.
                let end = phase.parent_elapsed_ns;
                let ago = |t: i64| end.saturating_sub(t.max(0) as u64);
                let started = time::ctime_ago(ago(r.start_after_release_ns));
                let finished = time::ctime_ago(ago(r.end_after_release_ns));
                if let Some(lines) = log_lines(phase.pass, &started, &finished) {
                    self.append_iozone_file(config, r.worker, phase.pass, &lines)?;
                }
            }
        }
        Ok(())
    }

    /// Appends to worker `worker`'s `-+z` file (a histogram block) or
    /// `-+T` file (log lines); an error names the file and the test file.
    fn append_iozone_file(
        &mut self,
        config: &RunConfig,
        worker: u32,
        pass: Pass,
        text: &str,
    ) -> Result<(), RunError> {
        let name = if text.starts_with("Child: ") {
            iozone_histogram_file_name(worker)
        } else {
            worker_log_file_name(worker)
        };
        self.files.append_text(&name, text).map_err(|e| {
            let test_file = match &config.throughput {
                Some(tp) => tp.worker_path(&config.path, worker),
                None => config.path.clone(),
            };
            let source = io::Error::new(e.kind(), format!("{name}: {e}"));
            RunError::Io(IoFailure {
                operation: "write the -+z/-+T file for",
                path: test_file,
                offset: None,
                pass: Some(pass),
                source,
            })
        })
    }
}

/// The error for a `-Q` file that cannot be written: it names the test file
/// and the pass, as the pass's own I/O errors do.
fn latency_failure(test_file: &Path, pass: Pass, source: io::Error) -> RunError {
    RunError::Io(IoFailure {
        operation: "write the -Q latency file for",
        path: test_file.to_path_buf(),
        offset: None,
        pass: Some(pass),
        source,
    })
}
