//! The one run driver: where the run is recorded, the signal handlers, the
//! preflight, the run's start, its opening text, the runner's events turned
//! into live text, the progress bar and the per-operation files, then the
//! closing text, the result files, the history record, the left-behind
//! line and the exit status. A run on one machine (app/run.rs) and each
//! rank of a cluster job (app/cluster/job.rs) go through it alike; a
//! [`Venue`] supplies only what differs between them: the ranks' agreement
//! at each step, who speaks, each rank's share of the run, how it is
//! measured and what rank 0 gathers.
//!
//! So a stop ends every mode the same way: the results so far printed and
//! saved with the status `interrupted`, the run recorded, "stopped by
//! SIG…" on stderr, and 128 + the signal as the exit status.

use std::path::PathBuf;

use super::latency_files::RunFiles;
use super::live::LiveFile;
use super::output::{Output, SIGPIPE, say, stdout_failed};
use super::progress::Progress;
use super::record::{self, Destination};
use super::run_start::{Measured, RunStart};
use crate::data::telemetry::Replay;
use crate::error::{Exit, RunError};
use crate::model::config::RunConfig;
use crate::model::environment::{Environment, FilePlace};
use crate::model::result::{RunResult, RunStatus, signal_name};
use crate::model::result_files::ResultPlaces;
use crate::model::rules::Rules;
use crate::report::files;
use crate::report::text::LiveText;
use crate::runner::{Event, LiveSink, Outcome};
use crate::safety::preflight::{Ready, preflight};
use crate::system::remount::Remounter;
use crate::system::signals::{self, StopFlag};
use crate::system::{device, environment};

/// What the runner's events are handed to.
pub(crate) type OnEvent<'e> = dyn FnMut(Event<'_>) -> Result<(), RunError> + 'e;

/// What a venue may measure with: -X/-Y's replay, -U's remounter and
/// --live's file (this process's, where it speaks).
pub(crate) type Tools<'t> = (
    Option<&'t Replay>,
    Option<&'t mut Remounter>,
    Option<&'t dyn LiveSink>,
);

/// Where a run is measured — on one machine, or as one rank of an MPI job
/// — and what that changes in the driver's steps. A step a rank takes with
/// the others says so ("collective"): every rank takes it, in the same
/// order.
pub(crate) trait Venue {
    /// Whether this process prints the run and saves it: one machine's
    /// does, of a job's ranks rank 0 alone.
    fn speaks(&self) -> bool;

    /// Before anything is made: where the run is recorded (`None`: not
    /// recorded here), and across ranks every rank's plan checked against
    /// rank 0's. Collective.
    fn history(&mut self, config: &RunConfig) -> Result<Option<Destination>, RunError>;

    /// The part of `config` this process runs: all of it, or a rank's
    /// workers and files.
    fn share(&self, config: &RunConfig) -> RunConfig;

    /// This process's preflight (or its failure), agreed with every rank:
    /// the run goes on where every one passed, else every rank ends with
    /// the first failure. Collective.
    fn agree<T>(&mut self, mine: Result<T, RunError>) -> Result<T, RunError>;

    /// The configuration the text and the saved result describe, from the
    /// job's `config` and this process's preflighted share `mine`.
    fn described(&self, config: RunConfig, mine: &RunConfig) -> RunConfig;

    /// A warning beyond the preflight's, said before the run.
    fn warning(&self, mine: &RunConfig) -> Option<String>;

    /// Everything before the first measurement.
    fn opening(&self, text: &LiveText<'_>, start: &RunStart, mine: &RunConfig) -> String;

    /// Measures `mine` (with -X/-Y's `replay` and -U's `remount` where
    /// this venue has them), stopped by `stop`; every step goes to
    /// `on_event`. Collective.
    fn measure(
        &mut self,
        mine: &RunConfig,
        tools: Tools<'_>,
        stop: &StopFlag,
        on_event: &mut OnEvent<'_>,
    ) -> Outcome;

    /// What was measured here (with the environment captured here,
    /// `here`), made the run's: rank 0 gathers what the other ranks
    /// measured where they do not send it as they go, and every rank's
    /// environment. Collective.
    fn gather(
        &mut self,
        mine: &RunConfig,
        here: &Environment,
        measured: Measured,
    ) -> Result<Measured, RunError>;

    /// A line about this process alone, as a process that does not speak
    /// for the run says it ("rank 2 on node7: …").
    fn own_line(&self, line: &str) -> String;

    /// The status this process ends with, from its own: across ranks
    /// every rank ends with rank 0's (a launcher reports the first rank
    /// that fails), or with its own failure when the job's was a success.
    /// Collective.
    fn job_exit(&mut self, mine: Exit) -> Exit;
}

/// Runs `config` in `venue` to the end and says how it ended.
pub(crate) fn drive(config: RunConfig, venue: &mut impl Venue) -> Exit {
    let begun = match begin(config, venue) {
        Ok(begun) => begun,
        Err(e) => {
            if venue.speaks() {
                say(&e);
            }
            return e.exit();
        }
    };
    let exit = measure_and_close(begun, venue);
    venue.job_exit(exit)
}

/// A run that passed its preflight everywhere, about to be measured.
struct Begun {
    config: RunConfig,
    history: Option<Destination>,
    stop: StopFlag,
    ready: Ready,
}

/// Everything before the measurement; a failure here is every rank's
/// refusal, nothing measured.
fn begin(config: RunConfig, venue: &mut impl Venue) -> Result<Begun, RunError> {
    let history = venue.history(&config)?;
    let mine = venue.share(&config);
    // Before the preflight makes the files, so that their identities are
    // recorded as they are made: a second Ctrl-C (or a rank's file warden)
    // then removes ioz's own files, and nothing put in their place.
    if let Some(paths) = removable_files(&mine) {
        signals::remove_on_second_interrupt(paths);
    }
    let ready = StopFlag::install()
        .map_err(|e| RunError::System(format!("cannot install signal handlers: {e}")))
        .and_then(|stop| Ok((stop, preflight(mine)?)));
    let (stop, ready) = venue.agree(ready)?;
    Ok(Begun {
        config,
        history,
        stop,
        ready,
    })
}

/// The test files a quick exit may remove: never a device, a file kept
/// with -w or someone else's file (-+E). A metadata benchmark's tree is
/// registered by the runner once it has made it.
fn removable_files(mine: &RunConfig) -> Option<Vec<PathBuf>> {
    let plain = mine.metadata.is_none();
    (plain && !mine.keep_file && !mine.variations.existing_file).then(|| {
        mine.run_paths()
            .into_iter()
            .filter(|p| !device::is_device(p))
            .collect()
    })
}

/// The first file the run writes (worker 0's in throughput mode), whose
/// environment the result records.
pub(crate) fn first_file(mine: &RunConfig) -> PathBuf {
    match &mine.throughput {
        Some(tp) => tp.worker_path(&mine.path, 0),
        None => mine.path.clone(),
    }
}

/// Measures the begun run and ends it: once measuring has begun, the
/// results so far are printed and saved whatever happens, and the exit
/// status says how it ended.
fn measure_and_close(begun: Begun, venue: &mut impl Venue) -> Exit {
    let Begun {
        config,
        history,
        stop,
        ready:
            Ready {
                config: mine,
                replay,
                mut remount,
                warning,
                mut results,
            },
    } = begun;
    let speaks = venue.speaks();
    let config = venue.described(config, &mine);
    if speaks && !config.quiet {
        for warning in [warning, venue.warning(&mine)].into_iter().flatten() {
            say(format_args!("warning: {warning}"));
        }
    }
    let mut start = RunStart::capture(&first_file(&mine), mine.metadata.is_some());
    if config.rules != Rules::None {
        start.environment.result_places = result_places(&results, history.as_ref());
    }
    let text = LiveText::new(&config);
    let mut out = Output::new(&stop);
    if speaks {
        out.put(&venue.opening(&text, &start, &mine));
    }
    let progress = if speaks {
        Progress::for_run(&config)
    } else {
        Progress::hidden(&config)
    };
    let mut files = RunFiles::new(std::mem::take(&mut results.latency), speaks);
    // --live: written as the run goes, not with the other files at its end.
    let live = LiveFile::open(&mut results);
    let outcome = venue.measure(
        &mine,
        (
            replay.as_ref(),
            remount.as_mut(),
            live.as_ref().map(|l| l as &dyn LiveSink),
        ),
        &stop,
        &mut |event| {
            match event {
                Event::PassDone {
                    measurement,
                    latencies,
                    bands,
                } => {
                    files.pass_done(&mine, measurement, latencies, bands)?;
                    progress.pass_done(measurement);
                }
                Event::RowDone(row) if speaks => progress.suspend(|| out.put(&text.row(row))),
                Event::WorkersStart {
                    file_bytes,
                    record_bytes,
                } if speaks => {
                    progress.suspend(|| out.put(&text.workers_start(file_bytes, record_bytes)));
                }
                Event::PhaseDone {
                    phase,
                    latencies,
                    bands,
                } => {
                    files.phase_done(&mine, phase, latencies, bands)?;
                    progress.phase_done(phase);
                    if speaks {
                        progress.suspend(|| out.put(&text.phase(phase)));
                    }
                }
                Event::WorkersEnd if speaks => progress.suspend(|| out.put(&text.workers_end())),
                Event::MetadataDone(measured) if speaks => {
                    progress.metadata_done(measured);
                    progress.suspend(|| out.put(&text.metadata(measured)));
                }
                Event::RowDone(_)
                | Event::WorkersStart { .. }
                | Event::WorkersEnd
                | Event::MetadataDone(_) => {}
            }
            Ok(())
        },
    );
    progress.finish();
    drop(text);
    let left_behind = outcome.left_behind();
    let own = Measured {
        cells: outcome.cells,
        throughput: outcome.phases,
        ranks: Vec::new(),
        metadata: outcome.metadata,
        cell_skews: Vec::new(),
        job: None,
        status: outcome.status,
    };
    // Rank 0 keeps its own: if the others do not answer (a rank died, a
    // host was lost), what it measured is saved all the same.
    let kept = speaks.then(|| own.clone());
    let gathered = venue.gather(&mine, &start.environment, own);
    let mut error = outcome.error;
    if !speaks {
        // Rank 0 says the job's errors and stop; only what happened to
        // this rank's own files is this rank's to say.
        return match left_behind {
            Some(line) => {
                say(venue.own_line(&line));
                Exit::Failure
            }
            None if gathered.is_err() => Exit::Failure,
            None => Exit::Success,
        };
    }
    let measured = match (gathered, kept) {
        (Ok(measured), _) => measured,
        (Err(e), Some(mut own)) => {
            // Saved as what it is: rank 0's own measurements, the run
            // failed (or stopped) before the others' reached it.
            let line = format!("{e}; the results saved are rank 0's own");
            if matches!(own.status, RunStatus::Interrupted(_)) || error.is_some() {
                say(&line);
            } else {
                own.status = RunStatus::Failed(line.clone());
                error = Some(RunError::System(line));
            }
            own
        }
        (Err(e), None) => {
            say(&e);
            return e.exit();
        }
    };
    let result = start.into_result(config, measured);
    close(
        &result,
        out,
        error,
        (&results, history.as_ref()),
        left_behind,
    )
}

/// Where the run's result files and its history lie (`--rules`: io500
/// keeps them off the file system under test).
fn result_places(results: &ResultPlaces, history: Option<&Destination>) -> Vec<FilePlace> {
    let mut places: Vec<FilePlace> =
        results
            .files
            .iter()
            .map(|(format, place)| environment::place_of(format.row().saved_as, &place.real_path()))
            .chain(results.dirs.iter().map(|(format, dir)| {
                environment::place_of(format.row().saved_as, &dir.dir.join("x"))
            }))
            .collect();
    if let Some(to) = history {
        places.push(environment::place_of("history", &to.dir().join("x")));
    }
    places
}

/// The speaker at the run's end: the closing text, the result files, the
/// history record, then on stderr what failed or stopped the run, where
/// the history recorded it and, last, the test files left behind.
fn close(
    result: &RunResult,
    mut out: Output<'_>,
    error: Option<RunError>,
    (results, history): (&ResultPlaces, Option<&Destination>),
    left_behind: Option<String>,
) -> Exit {
    // The result files and the record before the closing text: a launcher
    // that ends the job (Open MPI's mpirun after a Ctrl-C) stops reading
    // rank 0's output at once, and a closing text blocked on a full pipe
    // until the SIGKILL lost the run (0 of 4 Ctrl-Cs to an auto-mode job
    // saved it).
    let written = files::write_all(result, results);
    // Every run that measured is recorded, complete or not.
    let recorded = history.map(|to| record::record(to, result));
    out.put(&LiveText::new(&result.config).closing(result));
    let exit = if let Some(e) = &out.error {
        if let Some(run_error) = &error {
            say(run_error);
        }
        stdout_failed(e, "the results")
    } else if let Some(e) = error {
        say(&e);
        e.exit()
    } else if !written {
        Exit::Failure
    } else if let RunStatus::Interrupted(sig) = result.status {
        if sig != SIGPIPE {
            say(format_args!(
                "stopped by {}; the results above were measured before it",
                signal_name(sig)
            ));
        }
        Exit::Signal(sig)
    } else {
        Exit::Success
    };
    // Where the run was recorded in the history, after how it ended.
    let exit = match recorded {
        Some(recorded) => {
            say(&recorded.line);
            match recorded.stopped {
                // Stopped while it waited for the history: as a stop does.
                Some(sig) if exit == Exit::Success => Exit::Signal(sig),
                _ => failing_if(recorded.fails_run, exit),
            }
        }
        None => exit,
    };
    // Last, where it is not missed: the test files ioz could not remove.
    match left_behind {
        Some(line) => {
            say(line);
            failing_if(true, exit)
        }
        None => exit,
    }
}

/// `exit`, or a failure in its place when `fails` and it was a success.
fn failing_if(fails: bool, exit: Exit) -> Exit {
    if fails && exit == Exit::Success {
        Exit::Failure
    } else {
        exit
    }
}
