//! `ioz env [PATH] [--json]`: the environment a run on PATH would record,
//! without measuring; `ioz env --diff OLD NEW`: what differs between two
//! saved environments (runs saved with --json, or `ioz env --json` output).

use std::path::PathBuf;

use super::grammar::Spelling::Long;
use super::grammar::{Count, Flag, Grammar, Operand, Section, Taken, Target};
use super::shared;
use super::{UsageError, usage};

/// What `ioz env …` asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum EnvCommand {
    /// The environment of a target path.
    Show {
        /// The file or directory a run would test (default: the current directory).
        path: PathBuf,
        /// JSON instead of text.
        json: bool,
    },
    /// What differs between two saved environments.
    Diff { old: PathBuf, new: PathBuf },
}

/// What ioz env's flags set.
#[derive(Default)]
pub(super) struct EnvSeen {
    path: Option<PathBuf>,
    json: bool,
    diff: Option<Vec<PathBuf>>,
}

impl Target for EnvSeen {}

const OPERANDS: &[Operand] = &[Operand {
    name: "PATH",
    help: "the test file or directory a run would use (default: .)",
    count: Count::Optional,
    path: true,
}];

const SECTIONS: &[Section<EnvSeen>] = &[Section {
    title: "",
    note: "",
    flags: &[
        Flag::switch(
            Long("json"),
            "the environment as JSON, as a saved run's \"environment\"",
            |s| s.json = true,
        ),
        Flag::paths(
            Long("diff"),
            "OLD NEW",
            "two saved environments",
            "what differs between two environments: each a run saved with ioz \
             --json FILE, one rank of a saved cluster run (run.json#rank=1), or \
             the output of ioz env --json; a line per setting (scheduler: \
             mq-deadline → none), and a warning when more than one setting \
             differs",
            |s, files| s.diff = Some(files),
        ),
        shared::help(),
        shared::help_long(),
    ],
}];

pub(super) const GRAMMAR: Grammar<EnvSeen> = Grammar {
    name: "env",
    summary: "the environment a run on PATH would record, or two compared",
    about: "\
Prints what a run on PATH would record of the machine and the target
(kernel, CPU and caches, memory, page-cache tunables, virtualisation,
mitigations, the file system, the device and the devices under it),
without measuring anything. What cannot be read is shown as unknown.",
    operands: OPERANDS,
    operand: |seen, word| {
        if seen.path.is_some() {
            return Err(usage(format!(
                "env: unexpected argument '{}' (one path at a time)",
                word.to_string_lossy()
            )));
        }
        seen.path = Some(PathBuf::from(word));
        Ok(Taken::Next)
    },
    sections: SECTIONS,
    subcommands: &[],
    tail: "",
};

pub(super) fn finish(seen: EnvSeen) -> Result<EnvCommand, UsageError> {
    match seen.diff {
        Some(_) if seen.path.is_some() || seen.json => Err(usage(
            "env: --diff compares two saved environments and takes no PATH or --json",
        )),
        Some(files) => match <[PathBuf; 2]>::try_from(files) {
            Ok([old, new]) => Ok(EnvCommand::Diff { old, new }),
            Err(_) => Err(usage(
                "env: --diff takes two saved environments: ioz env --diff OLD.json NEW.json",
            )),
        },
        None => Ok(EnvCommand::Show {
            path: seen.path.unwrap_or_else(|| PathBuf::from(".")),
            json: seen.json,
        }),
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::cli::Command;

    fn parsed(args: &[&str]) -> Result<Command, UsageError> {
        crate::cli::parse_command("env", args)
    }

    fn env(args: &[&str]) -> EnvCommand {
        match parsed(args) {
            Ok(Command::Env(e)) => e,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn a_path_defaults_to_the_current_directory() {
        assert_eq!(
            env(&[]),
            EnvCommand::Show {
                path: ".".into(),
                json: false
            }
        );
        assert_eq!(
            env(&["/mnt/x", "--json"]),
            EnvCommand::Show {
                path: "/mnt/x".into(),
                json: true
            }
        );
        assert!(matches!(parsed(&["a", "-h"]), Ok(Command::Print(_))));
    }

    #[test]
    fn diff_takes_two_files_and_nothing_else() {
        assert_eq!(
            env(&["--diff", "a.json", "b.json"]),
            EnvCommand::Diff {
                old: "a.json".into(),
                new: "b.json".into()
            }
        );
        for bad in [
            &["--diff", "a.json"][..],
            &["--diff", "a.json", "b.json", "c"],
            &["--diff", "a.json", "b.json", "--json"],
            &["a", "b"],
            &["--bogus"],
            &["-x"],
        ] {
            let e = parsed(bad).unwrap_err();
            assert!(e.0.starts_with("env: "), "{bad:?}: {e}");
        }
    }
}
