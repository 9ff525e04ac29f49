//! IOzone's command-line grammar: single-dash letters that cluster (`-Raz`),
//! values attached or separate (`-s64m`, `-s 64m`), `-+x` options whose value is
//! always the next word, repeated `-s`/`-r`/`-i`, plus ioz's own `--long` options.
//!
//! Every option is one entry of the table in flags/: the parser (parse.rs),
//! `ioz -h` (help.rs) and the refusals come from it. The result is a
//! validated [`RunConfig`]; nothing after this module sees flags.

mod compare_cmd;
mod env_cmd;
mod flags;
mod help;
mod history_cmd;
mod number;
mod parse;
mod report_cmd;
mod seen;
mod spelling;
mod validate;
mod value;

use std::ffi::OsString;

use crate::model::config::RunConfig;
use crate::model::host::Host;

pub use compare_cmd::{CompareRequest, DEFAULT_BAND, PAdjust, compare_help_text};
pub use env_cmd::{ENV_HELP, EnvCommand};
pub use help::report_help_text;
pub use help::{help_text, version_text};
pub use history_cmd::{
    HistoryAction, HistoryCommand, HistoryRequest, Selection, TrendRequest, history_help_text,
};
pub use number::{parse_count, parse_record_size, parse_size};
pub use report_cmd::ReportRequest;

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    Run(Box<RunConfig>),
    /// `ioz report RUN.json …`: render a saved run again.
    Report(ReportRequest),
    /// `ioz compare BASE OTHER…`: runs compared with a baseline.
    Compare(CompareRequest),
    /// `ioz compare -h`.
    CompareHelp,
    /// `ioz history …`: the history of runs.
    History(HistoryRequest),
    /// `ioz history -h` (None) or `ioz history SUB -h`.
    HistoryHelp(Option<&'static str>),
    /// `ioz env …`: the environment of a path, or what differs between two.
    Env(EnvCommand),
    /// `ioz -h`.
    Help,
    /// `ioz report -h`.
    ReportHelp,
    Version,
}

/// A command-line problem: one line naming the option and what is wrong.
#[derive(Debug, PartialEq, Eq)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn usage(msg: impl Into<String>) -> UsageError {
    UsageError(msg.into())
}

/// Parses argv (argv[0] included) into a command.
pub fn parse(args: Vec<OsString>, host: &Host) -> Result<Command, UsageError> {
    let command_line: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if args.len() <= 1 {
        return Err(usage(
            "no options given; try 'ioz -a' for auto mode or 'ioz -h' for help",
        ));
    }
    if args.get(1).is_some_and(|a| a == "report") {
        return report_cmd::parse(args.into_iter().skip(2)).map(|c| match c {
            report_cmd::ReportCommand::Render(request) => Command::Report(request),
            report_cmd::ReportCommand::Help => Command::ReportHelp,
        });
    }
    if args.get(1).is_some_and(|a| a == "env") {
        return env_cmd::parse(args.into_iter().skip(2)).map(Command::Env);
    }
    if args.get(1).is_some_and(|a| a == "compare") {
        return compare_cmd::parse(args.into_iter().skip(2)).map(|c| match c {
            compare_cmd::CompareCommand::Compare(request) => Command::Compare(request),
            compare_cmd::CompareCommand::Help => Command::CompareHelp,
        });
    }
    if args.get(1).is_some_and(|a| a == "history") {
        return history_cmd::parse(args.into_iter().skip(2).collect()).map(|c| match c {
            HistoryCommand::Run(request) => Command::History(*request),
            HistoryCommand::Help(sub) => Command::HistoryHelp(sub),
        });
    }
    match parse::options(args, host)? {
        parse::Outcome::Help => Ok(Command::Help),
        parse::Outcome::Version => Ok(Command::Version),
        parse::Outcome::Run(seen) => {
            validate::finish(*seen, command_line, host).map(|c| Command::Run(Box::new(c)))
        }
    }
}

/// Parses `ioz ARGS…` into a run config, for tests elsewhere in the crate.
#[cfg(test)]
pub(crate) fn test_config(args: &[&str]) -> RunConfig {
    let argv = std::iter::once("ioz").chain(args.iter().copied());
    match parse(argv.map(OsString::from).collect(), &Host::example()) {
        Ok(Command::Run(c)) => *c,
        other => panic!("{args:?} is not a run: {other:?}"),
    }
}

#[cfg(test)]
mod tests;
