//! One command end to end: parse → preflight → measure → print → save, and
//! the exit status every ending maps to.

mod check;
mod cluster;
mod compare;
mod compare_inputs;
mod driver;
mod env;
mod history;
mod history_runs;
mod history_views;
mod input_files;
mod latency_files;
mod live;
mod output;
mod progress;
mod record;
mod report;
mod run;
mod run_start;

use std::ffi::OsString;

/// What the fuzz targets (fuzz/) feed outside input to beyond the public
/// layers and [`main_with_args`]: the `-+m` client file's reader (its text,
/// before any host is resolved).
pub mod fuzzing {
    pub use super::cluster::{Client, ClientFileError, parse_clients};
}

use crate::cli::{self, Command, help_text, version_text};
use crate::error::Exit;
use crate::system::{allocator, file_warden, host};

/// Runs ioz with `args` (argv[0] included) and returns its exit status.
pub fn main_with_args(args: Vec<OsString>) -> i32 {
    // A cluster rank's file warden is this binary again: its whole life.
    if let Some(code) = file_warden::serve_if_asked() {
        return code;
    }
    allocator::return_freed_buffers();
    // Under an MPI launcher or with -+m, before the parser: cluster mode
    // decides what the command line means there.
    if let Some(exit) = cluster::intercept(&args, dispatch) {
        return exit.code();
    }
    let exit = match cli::parse(args, &host::facts()) {
        Err(e) => {
            output::say(e);
            Exit::Usage
        }
        Ok(command) => dispatch(command),
    };
    exit.code()
}

/// Carries out a parsed command.
fn dispatch(command: Command) -> Exit {
    match command {
        Command::Help => output::print_text(&help_text(), "the help"),
        Command::Print(printed) => output::print_text(&printed.text, printed.what),
        Command::Version => output::print_text(&version_text(), "the version"),
        Command::Run(config) => run::run(*config),
        Command::Report(request) => report::report(request),
        Command::Compare(request) => compare::compare(request),
        Command::History(request) => history::history(request),
        Command::Env(command) => env::env(command),
        Command::Check(command) => check::check(command),
        // Under a launcher or -+m cluster mode takes it before here.
        Command::NetworkTest(_) => {
            output::say(
                "-+t: the network test measures the network between the clients of a \
                 cluster run: give -+m FILE (ioz -+m clients -+t), or start ioz with mpirun \
                 (ioz built with --features mpi)",
            );
            Exit::Usage
        }
    }
}
