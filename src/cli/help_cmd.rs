//! `ioz help [COMMAND [SUBCOMMAND]]`: the help of ioz or of a command;
//! `ioz help --man`: the man page (ioz.1); `ioz help --completions SHELL`:
//! a completion script for bash, zsh or fish. All written from the tables.

use super::completions::{SHELLS, completions};
use super::grammar::Spelling::Long;
use super::grammar::{Choice, Count, Described, Flag, Grammar, Operand, Section, Taken, Target};
use super::help::command_help;
use super::man::man_page;
use super::shared;
use super::spelling::closest;
use super::{COMMANDS, Command, Printed, UsageError, usage};

/// What ioz help's flags set.
#[derive(Default)]
pub(super) struct HelpSeen {
    words: Vec<String>,
    man: bool,
    completions: Option<&'static str>,
}

impl Target for HelpSeen {}

pub(super) const GRAMMAR: Grammar<HelpSeen> = Grammar {
    name: "help",
    summary: "this help, a command's, the man page (--man), completions",
    about: "\
Prints the help of ioz, or of a command (the same as ioz COMMAND -h); with
--man, ioz's manual page; with --completions, a script that completes ioz's
commands, options and their values in a shell. For example:
  ioz help --man > ioz.1 && man -l ioz.1
  ioz help --completions bash > /etc/bash_completion.d/ioz",
    operands: &[Operand {
        name: "COMMAND",
        help: "a command, or history and one of its subcommands (ioz help history list)",
        count: Count::Optional,
        path: false,
    }],
    operand: |seen, word| {
        if seen.words.len() == 2 {
            return Err(usage(format!(
                "help: unexpected argument '{}' (a command and its subcommand at most)",
                word.to_string_lossy()
            )));
        }
        seen.words.push(word.to_string_lossy().into_owned());
        Ok(Taken::Next)
    },
    sections: &[Section {
        title: "",
        note: "",
        flags: &[
            Flag::switch(
                Long("man"),
                "the manual page (roff), every command and option in it",
                |s| s.man = true,
            ),
            Flag::choice(
                Long("completions"),
                "SHELL",
                Choice {
                    names: &SHELLS,
                    expected: "a shell ioz completes (bash, zsh or fish)",
                    default: None,
                },
                "a completion script for SHELL: bash, zsh or fish",
                |s, shell| s.completions = SHELLS.into_iter().find(|s| *s == shell),
            ),
            shared::help(),
            shared::help_long(),
        ],
    }],
    subcommands: &[],
    tail: "",
};

pub(super) fn finish(seen: HelpSeen) -> Result<Command, UsageError> {
    let text = match (seen.man, seen.completions) {
        (true, Some(_)) => {
            return Err(usage(
                "help: --man and --completions cannot be combined: choose one",
            ));
        }
        _ if (seen.man || seen.completions.is_some()) && !seen.words.is_empty() => {
            return Err(usage(
                "help: --man and --completions cover every command; name none",
            ));
        }
        (true, None) => Printed {
            text: man_page(),
            what: "the manual page",
        },
        (false, Some(shell)) => Printed {
            text: completions(shell),
            what: "the completions",
        },
        (false, None) => match described(&seen.words)? {
            None => return Ok(Command::Help),
            Some(command) => Printed::help(command_help(command)),
        },
    };
    Ok(Command::Print(text))
}

/// The grammar `words` name (`history list`), or none for ioz itself.
fn described(words: &[String]) -> Result<Option<&'static dyn Described>, UsageError> {
    let mut found: Option<&'static dyn Described> = None;
    for word in words {
        let (choices, what): (&[&'static dyn Described], _) = match found {
            None => (COMMANDS, "command"),
            Some(command) => (command.subcommands(), "subcommand"),
        };
        found = match choices
            .iter()
            .find(|c| c.name().rsplit(' ').next() == Some(word.as_str()))
        {
            Some(command) => Some(*command),
            None => return Err(unknown(word, what, choices, found)),
        };
    }
    Ok(found)
}

fn unknown(
    word: &str,
    what: &str,
    choices: &[&'static dyn Described],
    parent: Option<&'static dyn Described>,
) -> UsageError {
    let names = choices.iter().filter_map(|c| c.name().rsplit(' ').next());
    let listed = match parent {
        None => "ioz -h names the commands".to_string(),
        Some(p) => format!("ioz help {} names its subcommands", p.name()),
    };
    match closest(word, names) {
        Some(near) => usage(format!(
            "help: unknown {what} '{word}'; did you mean {near}?"
        )),
        None if choices.is_empty() => usage(format!(
            "help: unexpected argument '{word}' ({} has no subcommands)",
            parent.map_or("ioz", |p| p.name())
        )),
        None => usage(format!("help: unknown {what} '{word}' ({listed})")),
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;
    use crate::cli::parse;
    use crate::model::host::Host;

    fn parsed(args: &[&str]) -> Result<Command, UsageError> {
        crate::cli::parse_command("help", args)
    }

    fn printed(args: &[&str]) -> String {
        match parsed(args) {
            Ok(Command::Print(p)) => p.text,
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn help_alone_is_ioz_s_help_and_help_of_a_command_is_its_own() {
        assert!(matches!(parsed(&[]), Ok(Command::Help)));
        for command in COMMANDS {
            let name = command.name();
            let argv = ["ioz", name, "-h"].map(OsString::from).to_vec();
            let Ok(Command::Print(own)) = parse(argv, &Host::example()) else {
                panic!("{name} -h")
            };
            assert_eq!(printed(&[name]), own.text, "{name}");
        }
        assert!(printed(&["history", "trend"]).starts_with("Usage: ioz history trend"));
    }

    #[test]
    fn unknown_words_are_refused_with_the_nearest() {
        let err = |args: &[&str]| parsed(args).unwrap_err().0;
        assert_eq!(
            err(&["reprot"]),
            "help: unknown command 'reprot'; did you mean report?"
        );
        assert_eq!(
            err(&["frobnicate"]),
            "help: unknown command 'frobnicate' (ioz -h names the commands)"
        );
        assert_eq!(
            err(&["history", "lsit"]),
            "help: unknown subcommand 'lsit'; did you mean list?"
        );
        assert!(err(&["report", "x"]).contains("report has no subcommands"));
        assert!(err(&["--man", "report"]).contains("name none"));
        assert!(err(&["--completions", "tcsh"]).contains("is not a shell ioz completes"));
        assert!(err(&["--man", "--completions", "bash"]).contains("cannot be combined"));
    }
}
