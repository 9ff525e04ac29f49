//! One rank of a cluster run (the MPI build, started by a launcher): MPI
//! started and checked, a panic or a lost link made to end the whole job,
//! the command line every rank can run, then the run itself through the
//! run driver (app/driver.rs) in the job's mode (super::throughput,
//! super::auto), and rank 0 printing and saving the job's results.
//! Everything a rank says about the job reaches the user through rank 0,
//! named by rank and host; the other ranks say only what befell their own
//! files.

use std::ffi::OsString;

use super::auto::Cells;
use super::job::RankRun;
use super::metadata::Metadata;
use super::test_hooks::TestHooks;
use super::throughput::Phases;
use super::typed_command::{TYPED_COMMAND_VARIABLE, decode};
use crate::app::driver;
use crate::app::output::say;
use crate::cli::{self, Command};
use crate::error::Exit;
use crate::model::config::RunConfig;
use crate::system::cluster::mpi::{self, MpiJob};
use crate::system::cluster::{Launcher, Peers};
use crate::system::signals;
use crate::system::{file_warden, host};

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
    let mut job: MpiJob = match mpi::start(launcher) {
        Ok(job) => job,
        Err(e) => {
            say(e);
            return Exit::Usage;
        }
    };
    TestHooks::for_rank(job.peers.rank()).inject(&mut job.peers);
    if let Some(limit) = super::deadline::job_time_limit() {
        job.peers.keep_deadline(limit);
    }
    if let Err(e) = signals::stop_on_launcher_continue() {
        say(format_args!(
            "warning: cannot take the launcher's SIGCONT as the stop it begins: {e}"
        ));
    }
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
        (Ok(()), Ok(Command::NetworkTest(request))) => super::network_test::run(&request, peers),
        // -h, -v, ioz report, ioz compare: once, by rank 0.
        (Ok(()), Ok(command)) if peers.rank() == 0 => dispatch(command),
        (Ok(()), Ok(_)) => Exit::Success,
    };
    if job.peers.abandoned() {
        // A call gave up on the others (the job was ending and they did
        // not answer): MPI_Finalize would wait for them.
        mpi::leave_without_finalize(exit);
    }
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
        mpi::abort_job(Exit::Panicked);
    }));
}

/// Runs this rank's part of the job `config` with the other ranks (the
/// command line every rank could run: super::same_start) through the run
/// driver, in throughput mode, in single and auto mode, or a metadata
/// benchmark's (super::metadata).
fn run_rank(config: RunConfig, peers: &dyn Peers) -> Exit {
    let mut config = super::workers::as_ranks_run_it(config);
    // Under -+m: the command line the user typed, not the ranks' own.
    if let Some(typed) = std::env::var(TYPED_COMMAND_VARIABLE)
        .ok()
        .and_then(|word| decode(&word))
    {
        config.command_line = typed;
    }
    if config.metadata.is_some() {
        let mode = Metadata::new(peers.rank(), peers.size());
        return driver::drive(config, &mut RankRun::new(peers, false, mode));
    }
    let hooks = TestHooks::for_rank(peers.rank());
    match &config.throughput {
        Some(tp) => {
            let threads = tp.threads;
            driver::drive(
                config,
                &mut RankRun::new(peers, threads, Phases::new(hooks)),
            )
        }
        None => driver::drive(config, &mut RankRun::new(peers, false, Cells::new(hooks))),
    }
}
