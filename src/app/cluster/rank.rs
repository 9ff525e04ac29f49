//! One rank of a cluster run (the MPI build, started by a launcher): MPI
//! started and checked, the rank's share of the run (its workers and their
//! files), a preflight every rank passes or the job is refused, the
//! measurement across ranks, and rank 0 printing and saving the job's
//! results. Everything a rank says about itself reaches the user through
//! rank 0, named by rank and host; the other ranks print nothing.

use std::ffi::OsString;

use super::latency_files::RankFiles;
use super::recording::JobRecord;
use crate::app::output::{Output, say, stdout_failed};
use crate::app::run_start::{Measured, RunStart};
use crate::cli::{self, Command};
use crate::error::{Exit, RunError};
use crate::model::config::RunConfig;
use crate::model::result::{RunResult, RunStatus};
use crate::model::result_files::ResultPlaces;
use crate::report::files;
use crate::report::text::LiveText;
use crate::runner::{self, Across, Event};
use crate::safety::preflight::{Ready, preflight};
use crate::system::cluster::mpi::{self, MpiJob};
use crate::system::cluster::{Launcher, Peers};
use crate::system::signals::{self, StopFlag};
use crate::system::{file_warden, host};

/// The rank named here panics after its first phase (tests/e2e/cluster.rs
/// proves with it that a panicking rank ends the job).
const PANIC_RANK_VARIABLE: &str = "IOZ_TEST_PANIC_RANK";

/// Runs this rank of the job `launcher` started, and says how it ended.
pub(crate) fn run(launcher: &Launcher, args: Vec<OsString>, dispatch: fn(Command) -> Exit) -> Exit {
    // Before MPI: a process started once MPI runs may upset some of its
    // transports. Without a warden the rank still removes its files on
    // every ending it lives through.
    if let Err(e) = file_warden::start() {
        say(format_args!(
            "warning: cannot start the process that removes this rank's files if it is \
             killed: {e}"
        ));
    }
    let job: MpiJob = match mpi::start(launcher) {
        Ok(job) => job,
        Err(e) => {
            say(e);
            return Exit::Usage;
        }
    };
    let peers = &job.peers;
    abort_the_job_on_panic(peers.rank(), peers.host().to_string());
    super::deadline::arm(peers.rank(), peers.host());
    let parsed = cli::parse(args, &host::facts());
    let cannot = match &parsed {
        Err(e) => Some(e.to_string()),
        Ok(Command::Run(config)) => super::refusal(
            &super::workers::as_ranks_run_it((**config).clone()),
            peers.size(),
        ),
        Ok(_) => None,
    };
    // Before any other collective call: a rank that cannot run its command
    // line ends the job on every rank, with one line.
    let exit = match (super::same_start::command_lines(peers, cannot), parsed) {
        (Err(exit), _) => exit,
        (Ok(()), Err(_)) => Exit::Usage,
        (Ok(()), Ok(Command::Run(config))) => run_rank(*config, peers),
        // -h, -v, ioz report, ioz compare: once, by rank 0.
        (Ok(()), Ok(command)) if peers.rank() == 0 => dispatch(command),
        (Ok(()), Ok(_)) => Exit::Success,
    };
    drop(job);
    exit
}

/// A panicking rank would leave the others waiting for it in their next
/// collective call: say what happened, then end the whole job.
fn abort_the_job_on_panic(rank: u32, host: String) {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default(info);
        say(format_args!(
            "rank {rank} on {host} panicked: removing its files and ending the job"
        ));
        signals::remove_registered_files();
        mpi::abort_job(101);
    }));
}

/// The share of `config` that rank `rank` of `ranks` runs: its workers (as
/// threads) and their files, named as the whole job names them
/// (super::share). Only rank 0 writes the result files.
fn for_rank(config: &RunConfig, rank: u32, ranks: u32) -> RunConfig {
    let mut mine = config.clone();
    if let Some(tp) = mine.throughput.as_mut() {
        super::share::deal(tp, &config.path, rank, ranks);
    }
    if rank != 0 {
        mine.outputs = Default::default();
        mine.excel_report = false;
    }
    mine
}

fn run_rank(config: RunConfig, peers: &dyn Peers) -> Exit {
    let config = super::workers::as_ranks_run_it(config);
    let rank = peers.rank();
    let speaks = rank == 0;
    // Refused (super::refusal) on every rank already: super::same_start.
    if config.throughput.is_none() {
        return super::auto::run_rank(config, peers);
    }
    let threads = config.throughput.as_ref().is_some_and(|tp| tp.threads);
    let mut across = Across::new(peers, threads);
    if let Err(e) = super::same_start::same_plan(&across, &config) {
        if speaks {
            say(&e);
        }
        return e.exit();
    }
    let history = match super::recording::place(&config, rank, &across) {
        Ok(history) => history,
        Err(exit) => return exit,
    };
    let mine = for_rank(&config, rank, peers.size());
    // Ranks wait inside MPI calls when mpirun passes on a Ctrl-C: the stop
    // signals' handler removes their files and ends them. Set up before the
    // preflight makes the files, so that their identities are recorded as
    // they are made and a signal during the clock alignment (32 round
    // trips a rank, long on a loaded machine) still removes them.
    if !config.keep_file {
        signals::remove_on_second_interrupt(mine.run_paths());
    }
    if let Err(e) = signals::leave_on_stop_signals() {
        say(format_args!("rank {rank}: cannot handle signals: {e}"));
        mpi::abort_job(1);
    }
    let ready = preflight(mine);
    let ready = match across.agree(ready.as_ref().map(drop).map_err(clone_error)) {
        Ok(()) => ready.ok(),
        Err(e) => {
            if speaks {
                say(&e);
            }
            return e.exit();
        }
    };
    if let Err(e) = across.align_clocks() {
        if speaks {
            say(&e);
        }
        return e.exit();
    }
    let Some(Ready {
        config: mine,
        warning,
        mut results,
        ..
    }) = ready
    else {
        return Exit::Failure;
    };
    if let Some(warning) = warning
        && speaks
        && !config.quiet
    {
        say(format_args!("warning: {warning}"));
    }
    if speaks
        && !config.quiet
        && let Some(line) = crowded_workers(&mine)
    {
        say(format_args!("warning: {line}"));
    }
    let stop = StopFlag::default();

    let start = RunStart::capture(&mine.path);
    let text = LiveText::new(&config);
    let mut out = Output::new(&stop);
    if speaks {
        out.put(&text.opening(&start.environment, &start.started, start.time_resolution_ns));
    }
    // Fault injection for the end-to-end tests: this rank panics after its
    // first phase, while the others already wait for it at the next barrier.
    let panics = std::env::var(PANIC_RANK_VARIABLE).is_ok_and(|r| r == rank.to_string());
    let mut latency_files = RankFiles::new(std::mem::take(&mut results.latency), speaks);
    let outcome = runner::measure_across(&mine, &stop, &across, |event| {
        if panics && matches!(event, Event::PhaseDone { .. }) {
            panic!("{PANIC_RANK_VARIABLE} asked rank {rank} to panic");
        }
        if let Event::PhaseDone {
            phase,
            latencies,
            bands,
        } = &event
        {
            latency_files.phase_done(&mine, phase, *latencies, *bands)?;
        }
        if !speaks {
            return Ok(());
        }
        match event {
            Event::WorkersStart {
                file_bytes,
                record_bytes,
            } => out.put(&text.workers_start(file_bytes, record_bytes)),
            Event::PhaseDone { phase, .. } => out.put(&text.phase(phase)),
            Event::WorkersEnd => out.put(&text.workers_end()),
            Event::PassDone { .. } | Event::RowDone(_) => {}
        }
        Ok(())
    });
    drop(text);
    let left_behind = outcome.left_behind();
    if !speaks {
        if let Some(line) = left_behind {
            say(format_args!("rank {rank} on {}: {line}", peers.host()));
        }
        return match outcome.error {
            Some(e) => e.exit(),
            None if left_behind_exit(&outcome.status) => Exit::Failure,
            None => Exit::Success,
        };
    }
    let result = start.into_result(
        config,
        Measured {
            cells: outcome.cells,
            throughput: outcome.phases,
            ranks: Vec::new(),
            status: outcome.status,
        },
    );
    close_job(&result, out, outcome.error, &results, &history, left_behind)
}

/// Rank 0, at the job's end: prints the closing lines, writes the result
/// files, records the run, says what failed, and returns the job's exit.
pub(super) fn close_job(
    result: &RunResult,
    mut out: Output<'_>,
    error: Option<RunError>,
    results: &ResultPlaces,
    history: &JobRecord,
    left_behind: Option<String>,
) -> Exit {
    out.put(&LiveText::new(&result.config).closing(result));
    let written = files::write_all(result, results);
    let exit = if let Some(e) = out.error {
        stdout_failed(&e, "the results")
    } else if let Some(e) = error {
        say(&e);
        e.exit()
    } else if !written {
        Exit::Failure
    } else {
        Exit::Success
    };
    let exit = history.record(result, exit);
    if let Some(line) = left_behind {
        say(line);
        return Exit::Failure;
    }
    exit
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

/// Whether a rank's run status alone makes its exit a failure.
fn left_behind_exit(status: &RunStatus) -> bool {
    matches!(status, RunStatus::Interrupted(_))
}

/// A copy of a preflight's error for the other ranks' verdict (the kind
/// decides the exit status: a refusal is 2).
pub(super) fn clone_error(e: &RunError) -> RunError {
    match e {
        RunError::Refused(m) => RunError::Refused(m.clone()),
        other => RunError::Worker(other.to_string()),
    }
}
