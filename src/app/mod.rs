//! One command end to end: parse → preflight → measure → print → save, and
//! the exit status every ending maps to.

mod compare;
mod compare_inputs;
mod env;
mod history;
mod history_runs;
mod history_views;
mod output;
mod progress;
mod record;
mod report;
mod run;

use std::ffi::OsString;

use crate::cli::{
    self, Command, compare_help_text, help_text, history_help_text, report_help_text, version_text,
};
use crate::error::Exit;
use crate::system::{allocator, host};

/// Runs ioz with `args` (argv[0] included) and returns its exit status.
pub fn main_with_args(args: Vec<OsString>) -> i32 {
    allocator::return_freed_buffers();
    let exit = match cli::parse(args, &host::facts()) {
        Err(e) => {
            output::say(e);
            Exit::Usage
        }
        Ok(Command::Help) => output::print_text(&help_text(), "the help"),
        Ok(Command::ReportHelp) => output::print_text(&report_help_text(), "the help"),
        Ok(Command::Version) => output::print_text(&version_text(), "the version"),
        Ok(Command::Run(config)) => run::run(*config),
        Ok(Command::Report(request)) => report::report(request),
        Ok(Command::CompareHelp) => output::print_text(&compare_help_text(), "the help"),
        Ok(Command::Compare(request)) => compare::compare(request),
        Ok(Command::History(request)) => history::history(request),
        Ok(Command::HistoryHelp(sub)) => output::print_text(&history_help_text(sub), "the help"),
        Ok(Command::Env(command)) => env::env(command),
    };
    exit.code()
}
