//! A measuring run: preflight, the live text and progress bar while the
//! runner measures, then the result saved where the user asked.

use std::io;
use std::path::Path;

use super::output::{Output, SIGPIPE, say, stdout_failed};
use super::progress::Progress;
use super::record;
use super::run_start::{Measured, RunStart};
use crate::error::{Exit, IoFailure, RunError};
use crate::model::config::RunConfig;
use crate::model::latency::{IozoneBands, OpLatency};
use crate::model::result::{RunStatus, signal_name};
use crate::model::result_files::{
    iozone_histogram_file_name, latency_file_name, worker_latency_file_name, worker_log_file_name,
};
use crate::model::workload::Pass;
use crate::report::files;
use crate::report::iozone_files::{histogram_block, log_lines};
use crate::report::latency_files::LatencyFiles;
use crate::report::text::LiveText;
use crate::runner::{self, Event};
use crate::safety::preflight::{Ready, preflight};
use crate::system::signals::{self, StopFlag};
use crate::system::{device, time};

/// Runs `config` to the end and says how it ended.
pub(crate) fn run(config: RunConfig) -> Exit {
    let mut left_behind = None;
    let mut saved = None;
    let exit = match measure_and_save(config, &mut left_behind, &mut saved) {
        Ok(exit) => exit,
        Err(e) => {
            say(&e);
            e.exit()
        }
    };
    // Where the run was recorded in the history, after how it ended.
    let exit = match saved {
        Some(recorded) => {
            say(&recorded.line);
            if recorded.fails_run && exit == Exit::Success {
                Exit::Failure
            } else {
                exit
            }
        }
        None => exit,
    };
    // Last, where it is not missed: the test files ioz could not remove.
    match left_behind {
        Some(line) => {
            say(line);
            if exit == Exit::Success {
                Exit::Failure
            } else {
                exit
            }
        }
        None => exit,
    }
}

/// Everything before the run is refused with an error; once measuring has
/// begun, the results so far are printed and saved whatever happens, and
/// the exit status says how it ended. `left_behind` gets the line naming
/// the test files the run could not remove, for the caller to print last.
/// `saved` gets the line saying where the history recorded the run (or why
/// it could not), when it records it.
fn measure_and_save(
    config: RunConfig,
    left_behind: &mut Option<String>,
    saved: &mut Option<record::Recorded>,
) -> Result<Exit, RunError> {
    let history = record::place_for_run(&config.history)?;
    let stop = StopFlag::install()
        .map_err(|e| RunError::System(format!("cannot install signal handlers: {e}")))?;
    let Ready {
        config,
        replay,
        mut remount,
        warning,
        mut results,
    } = preflight(config)?;
    let mut latency_files = LatencyFiles::new(std::mem::take(&mut results.latency));
    if let Some(warning) = warning
        && !config.quiet
    {
        say(format_args!("warning: {warning}"));
    }
    // Never for -+E: that file is someone else's.
    if !config.keep_file && !config.variations.existing_file {
        signals::remove_on_second_interrupt(
            config
                .run_paths()
                .into_iter()
                .filter(|p| !device::is_device(p))
                .collect(),
        );
    }
    // The environment of the first file the run writes (worker 0's in throughput mode).
    let first_file = match &config.throughput {
        Some(tp) => tp.worker_path(&config.path, 0),
        None => config.path.clone(),
    };
    let start = RunStart::capture(&first_file);

    let text = LiveText::new(&config);
    let mut out = Output::new(&stop);
    out.put(&text.opening(&start.environment, &start.started, start.time_resolution_ns));
    let progress = Progress::for_run(&config);
    let outcome =
        runner::measure(
            &config,
            replay.as_ref(),
            &stop,
            remount.as_mut(),
            |event| match event {
                Event::PassDone {
                    measurement,
                    latencies,
                    bands,
                } => {
                    if let Some(bands) = bands {
                        let block = histogram_block(0, measurement.pass, bands);
                        append_iozone_file(
                            &mut latency_files,
                            &config,
                            0,
                            measurement.pass,
                            &block,
                        )?;
                    }
                    if let Some(ops) = latencies {
                        let cpu = (measurement.cpu_user_ns, measurement.cpu_system_ns);
                        latency_files
                            .append(measurement.pass, ops, cpu, measurement.elapsed_ns)
                            .map_err(|e| {
                                let name = latency_file_name(measurement.pass);
                                let source = io::Error::new(e.kind(), format!("{name}: {e}"));
                                latency_failure(&config.path, measurement.pass, source)
                            })?;
                    }
                    progress.pass_done(measurement);
                    Ok(())
                }
                Event::RowDone(row) => {
                    progress.suspend(|| out.put(&text.row(row)));
                    Ok(())
                }
                Event::WorkersStart {
                    file_bytes,
                    record_bytes,
                } => {
                    progress.suspend(|| out.put(&text.workers_start(file_bytes, record_bytes)));
                    Ok(())
                }
                Event::PhaseDone {
                    phase,
                    latencies,
                    bands,
                } => {
                    if let Some(latencies) = latencies {
                        write_worker_latencies(&mut latency_files, &config, phase, latencies)?;
                    }
                    write_iozone_files(&mut latency_files, &config, phase, bands)?;
                    progress.phase_done(phase);
                    progress.suspend(|| out.put(&text.phase(phase)));
                    Ok(())
                }
                Event::WorkersEnd => {
                    progress.suspend(|| out.put(&text.workers_end()));
                    Ok(())
                }
            },
        );
    progress.finish();
    drop(text);
    *left_behind = outcome.left_behind();
    let result = start.into_result(
        config,
        Measured {
            cells: outcome.cells,
            throughput: outcome.phases,
            ranks: Vec::new(),
            status: outcome.status,
        },
    );
    out.put(&LiveText::new(&result.config).closing(&result));
    let written = files::write_all(&result, &results);
    // Every run that measured is recorded, complete or not.
    if let Some(to) = &history {
        *saved = Some(record::record(to, &result));
    }
    if let Some(e) = out.error {
        if let Some(run_error) = &outcome.error {
            say(run_error);
        }
        return Ok(stdout_failed(&e, "the results"));
    }
    if let Some(e) = outcome.error {
        return Err(e);
    }
    Ok(match result.status {
        _ if !written => Exit::Failure,
        RunStatus::Interrupted(sig) => {
            if sig != SIGPIPE {
                say(format_args!(
                    "stopped by {}; the results above were measured before it",
                    signal_name(sig)
                ));
            }
            Exit::Signal(sig)
        }
        _ => Exit::Success,
    })
}

/// The error for a `-Q` file that cannot be written: it names the test file
/// and the pass, as the pass's own I/O errors do.
pub(super) fn latency_failure(test_file: &Path, pass: Pass, source: io::Error) -> RunError {
    RunError::Io(IoFailure {
        operation: "write the -Q latency file for",
        path: test_file.to_path_buf(),
        offset: None,
        pass: Some(pass),
        source,
    })
}

/// `-+z` and `-+T` in throughput mode: each worker's histogram block and
/// its phase's start and end lines.
pub(super) fn write_iozone_files(
    files: &mut LatencyFiles,
    config: &RunConfig,
    phase: &crate::model::result::PhaseResult,
    bands: Option<&[IozoneBands]>,
) -> Result<(), RunError> {
    for (k, r) in phase.results.iter().enumerate() {
        if let Some(b) = bands.and_then(|b| b.get(k)) {
            let block = histogram_block(r.worker, phase.pass, b);
            append_iozone_file(files, config, r.worker, phase.pass, &block)?;
        }
        if config.latency.worker_logs {
            // The phase ended (its last worker) just now: each worker's start
            // and end are that long ago.
            let end = phase.parent_elapsed_ns;
            let ago = |t: i64| end.saturating_sub(t.max(0) as u64);
            let started = time::ctime_ago(ago(r.start_after_release_ns));
            let finished = time::ctime_ago(ago(r.end_after_release_ns));
            if let Some(lines) = log_lines(phase.pass, &started, &finished) {
                append_iozone_file(files, config, r.worker, phase.pass, &lines)?;
            }
        }
    }
    Ok(())
}

/// Appends to worker `worker`'s `-+z` file (a histogram block) or `-+T`
/// file (log lines); an error names the file and the test file.
fn append_iozone_file(
    files: &mut LatencyFiles,
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
    files.append_text(&name, text).map_err(|e| {
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

/// `-Q` in throughput mode: IOzone's per-worker files,
/// `Child_<n>_<test>.dat` in the current directory.
fn write_worker_latencies(
    files: &mut LatencyFiles,
    config: &RunConfig,
    phase: &crate::model::result::PhaseResult,
    latencies: &[Vec<OpLatency>],
) -> Result<(), RunError> {
    for (r, ops) in phase.results.iter().zip(latencies) {
        let name = worker_latency_file_name(phase.pass, r.worker);
        let cpu = (r.cpu_user_ns, r.cpu_system_ns);
        files
            .append_worker(phase.pass, r.worker, ops, cpu, r.elapsed_ns)
            .map_err(|e| {
                let test_file = match &config.throughput {
                    Some(tp) => tp.worker_path(&config.path, r.worker),
                    None => config.path.clone(),
                };
                let source = io::Error::new(e.kind(), format!("{name}: {e}"));
                latency_failure(&test_file, phase.pass, source)
            })?;
    }
    Ok(())
}
