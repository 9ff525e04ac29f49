//! `ioz check RUN.json [--rules R]`: a saved run's stamps recomputed from
//! its samples and environment, and its digest checked.

use std::path::PathBuf;

use super::grammar::Spelling::Long;
use super::grammar::{Choice, Count, Flag, Grammar, Operand, Section, Taken, Target};
use super::shared;
use super::{UsageError, usage};
use crate::model::rules::Rules;

/// What `ioz check …` asks for.
#[derive(Debug, PartialEq, Eq)]
pub struct CheckCommand {
    pub run: PathBuf,
    /// `--rules`: judge under these rules instead of the ones the run claimed.
    pub rules: Option<Rules>,
}

/// What ioz check's flags set.
#[derive(Default)]
pub(super) struct CheckSeen {
    run: Option<PathBuf>,
    rules: Option<Rules>,
}

impl Target for CheckSeen {}

const OPERANDS: &[Operand] = &[Operand {
    name: "RUN.json",
    help: "a run saved with ioz --json FILE (or from the history)",
    count: Count::One,
    path: true,
}];

const SECTIONS: &[Section<CheckSeen>] = &[Section {
    title: "",
    note: "",
    flags: &[
        Flag::choice(
            Long("rules"),
            "RULES",
            Choice {
                names: &Rules::NAMES,
                expected: "a rule set (iozone, io500, pts or none)",
                default: None,
            },
            "judge the run under these rules instead of the ones it claimed (its \
             stamp is then shown, not compared)",
            |s, name| s.rules = Rules::named(name),
        ),
        shared::help(),
        shared::help_long(),
    ],
}];

pub(super) const GRAMMAR: Grammar<CheckSeen> = Grammar {
    name: "check",
    summary: "a saved run's rule stamps recomputed, and its digest checked",
    about: "\
Recomputes every stamp of a run saved with --rules (the run's and each
cell's) from its saved samples and environment, with the code the run
used to write them, and prints where the two agree and where not. A
stamped run holds a digest of its file: a file edited after ioz wrote it
is named. Exit status 0 when everything agrees, 1 when anything does not.",
    operands: OPERANDS,
    operand: |seen, word| {
        if seen.run.is_some() {
            return Err(usage(format!(
                "check: unexpected argument '{}' (one run at a time)",
                word.to_string_lossy()
            )));
        }
        seen.run = Some(PathBuf::from(word));
        Ok(Taken::Next)
    },
    sections: SECTIONS,
    subcommands: &[],
    tail: "",
};

pub(super) fn finish(seen: CheckSeen) -> Result<CheckCommand, UsageError> {
    match seen.run {
        Some(run) => Ok(CheckCommand {
            run,
            rules: seen.rules,
        }),
        None => Err(usage(
            "check: name a saved run: ioz check RUN.json [--rules iozone|io500|pts|none]",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Command;

    fn parsed(args: &[&str]) -> Result<Command, UsageError> {
        crate::cli::parse_command("check", args)
    }

    #[test]
    fn a_run_and_perhaps_rules() {
        match parsed(&["r.json", "--rules", "pts"]) {
            Ok(Command::Check(c)) => assert_eq!(
                c,
                CheckCommand {
                    run: "r.json".into(),
                    rules: Some(Rules::Pts)
                }
            ),
            other => panic!("{other:?}"),
        }
        for bad in [&[][..], &["a", "b"], &["a", "--rules", "spec"]] {
            let e = parsed(bad).unwrap_err();
            assert!(
                e.0.contains("check") || e.0.contains("--rules"),
                "{bad:?}: {e}"
            );
        }
    }
}
