//! argv → what the command line asks for. One grammar for every command
//! (grammar.rs, walked by parse.rs): the run's IOzone grammar — single-dash
//! letters that cluster (`-Raz`), values attached or separate (`-s64m`,
//! `-s 64m`), `-+x` options whose value is always the next word, repeated
//! `-s`/`-r`/`-i` — plus ioz's own `--long` options, and the commands
//! `report`, `compare`, `history …`, `env`, `fileop`, `mdtest` and `help`,
//! each a table of flags. The help, the man page and the completions are written from the
//! same tables. The result is a validated request; nothing after this
//! module sees flags.

mod check_cmd;
mod compare_cmd;
mod completions;
mod env_cmd;
mod fileop_cmd;
mod flags;
mod grammar;
mod help;
mod help_cmd;
mod history_cmd;
mod man;
mod mdtest_cmd;
mod metadata_common;
mod number;
mod parse;
mod report_cmd;
mod seen;
mod shared;
mod spelling;
mod validate;
mod value;

use std::ffi::OsString;

use crate::model::config::RunConfig;
use crate::model::host::Host;
use grammar::{Described, Grammar, Target};
use parse::{Walked, walk};

pub use check_cmd::CheckCommand;
pub use compare_cmd::CompareRequest;
pub use env_cmd::EnvCommand;
pub use help::{help_text, version_text};
pub use history_cmd::{HistoryAction, HistoryRequest, Selection, TrendRequest};
pub use report_cmd::ReportRequest;
pub use shared::DEFAULT_BAND;

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    Run(Box<RunConfig>),
    /// `ioz report RUN.json …`: render a saved run again.
    Report(ReportRequest),
    /// `ioz compare BASE OTHER…`: runs compared with a baseline.
    Compare(CompareRequest),
    /// `ioz history …`: the history of runs.
    History(HistoryRequest),
    /// `ioz env …`: the environment of a path, or what differs between two.
    Env(EnvCommand),
    /// `ioz check RUN.json`: a saved run's stamps recomputed.
    Check(CheckCommand),
    /// `-+t`: IOzone's network test between the ranks of a cluster job.
    NetworkTest(NetworkTestRequest),
    /// `ioz -h`, `ioz help`.
    Help,
    /// Text the command line asks to see: a command's help (`ioz CMD -h`,
    /// `ioz help CMD`), the man page, a completion script.
    Print(Printed),
    Version,
}

/// `-+t`: the network test instead of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkTestRequest {
    /// `--every-pair`: between every pair of ranks, not only each and
    /// rank 0.
    pub every_pair: bool,
    /// `-t N`: under -+m, the client file's first N clients.
    pub clients: Option<u32>,
    /// `--json FILE` (and `--force`): the table saved too.
    pub outputs: crate::model::formats::OutputFiles,
    pub force: bool,
}

/// Text to print, and what it is (for a message when it cannot be).
#[derive(Debug)]
pub struct Printed {
    pub text: String,
    pub what: &'static str,
}

impl Printed {
    fn help(text: String) -> Printed {
        Printed {
            text,
            what: "the help",
        }
    }
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

/// Every command but the run, as `ioz -h`, the man page and the
/// completions list them.
const COMMANDS: &[&dyn Described] = &[
    &report_cmd::GRAMMAR,
    &compare_cmd::GRAMMAR,
    &history_cmd::GRAMMAR,
    &env_cmd::GRAMMAR,
    &check_cmd::GRAMMAR,
    &fileop_cmd::GRAMMAR,
    &mdtest_cmd::GRAMMAR,
    &help_cmd::GRAMMAR,
];

/// Parses argv (argv[0] included) into a command.
pub fn parse(args: Vec<OsString>, host: &Host) -> Result<Command, UsageError> {
    let command_line: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let words: Vec<OsString> = args.into_iter().skip(1).collect();
    let Some(first) = words.first() else {
        return Err(usage(
            "no options given; try 'ioz -a' for auto mode or 'ioz -h' for help",
        ));
    };
    let first = first.to_string_lossy().into_owned();
    let rest = || words[1..].to_vec();
    match first.as_str() {
        "report" => read(&report_cmd::GRAMMAR, rest(), host)?
            .finish(|seen| report_cmd::finish(seen, report_cmd::MISSING).map(Command::Report)),
        "compare" => read(&compare_cmd::GRAMMAR, rest(), host)?
            .finish(|seen| compare_cmd::finish(seen).map(Command::Compare)),
        "history" => history_cmd::parse(rest(), host),
        "env" => read(&env_cmd::GRAMMAR, rest(), host)?
            .finish(|seen| env_cmd::finish(seen).map(Command::Env)),
        "check" => read(&check_cmd::GRAMMAR, rest(), host)?
            .finish(|seen| check_cmd::finish(seen).map(Command::Check)),
        "help" => read(&help_cmd::GRAMMAR, rest(), host)?.finish(help_cmd::finish),
        "fileop" => read(&fileop_cmd::GRAMMAR, rest(), host)?
            .finish(|seen| fileop_cmd::finish(seen, command_line, host)),
        "mdtest" => read(&mdtest_cmd::GRAMMAR, rest(), host)?
            .finish(|seen| mdtest_cmd::finish(seen, command_line, host)),
        word => {
            if !word.starts_with('-')
                && let Some(near) = spelling::closest(word, COMMANDS.iter().map(|c| c.name()))
            {
                return Err(usage(format!(
                    "unknown command '{word}'; did you mean {near}?"
                )));
            }
            match walk(&flags::RUN, words, host)? {
                Walked::Help => Ok(Command::Help),
                Walked::Version => Ok(Command::Version),
                Walked::Done(seen, _) if seen.network_test => {
                    Ok(Command::NetworkTest(NetworkTestRequest {
                        every_pair: seen.every_pair,
                        clients: seen.worker_counts.first().copied(),
                        outputs: seen.outputs.clone(),
                        force: seen.force,
                    }))
                }
                Walked::Done(seen, _) => {
                    validate::finish(seen, command_line, host).map(|c| Command::Run(Box::new(c)))
                }
            }
        }
    }
}

/// A command's command line, read: what its flags set (and the words a
/// subcommand is to read), or the text it asked to see.
enum Read<T> {
    Seen(T, Vec<OsString>),
    Shown(Box<Command>),
}

impl<T> Read<T> {
    /// The command, made of what was seen by `finish`.
    fn finish(
        self,
        finish: impl FnOnce(T) -> Result<Command, UsageError>,
    ) -> Result<Command, UsageError> {
        match self {
            Read::Seen(seen, _) => finish(seen),
            Read::Shown(command) => Ok(*command),
        }
    }
}

/// Walks a command's words (those after its name) through its grammar.
fn read<T: Target>(
    grammar: &'static Grammar<T>,
    args: Vec<OsString>,
    host: &Host,
) -> Result<Read<T>, UsageError> {
    Ok(match walk(grammar, args, host)? {
        Walked::Done(seen, rest) => Read::Seen(seen, rest),
        Walked::Help => Read::Shown(Box::new(Command::Print(Printed::help(help::command_help(
            grammar,
        ))))),
        Walked::Version => Read::Shown(Box::new(Command::Version)),
    })
}

/// Parses `ioz COMMAND ARGS…`, for each command's own tests.
#[cfg(test)]
pub(super) fn parse_command(command: &str, args: &[&str]) -> Result<Command, UsageError> {
    let argv = ["ioz", command].into_iter().chain(args.iter().copied());
    parse(argv.map(OsString::from).collect(), &Host::example())
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
