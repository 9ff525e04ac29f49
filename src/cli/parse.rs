//! Walks a command line with lexopt and applies each flag's table entry:
//! read its value, set what it sets, add its header lines. One walk for
//! every command: IOzone's grammar (`-Raz`, `-s64m`, `-+n`, `-F a b c`) and
//! ioz's `--long` options alike.

use std::ffi::OsString;
use std::path::Path;

use lexopt::{Arg, Parser, ValueExt};

use super::grammar::{Action, Flag, Grammar, Lines, Taken, Target};
use super::spelling::{Spelling, closest};
use super::value::{
    choice_value, lexopt_error, number_value, path_of_kind, paths_value, percent_value,
    string_value, word_value,
};
use super::{UsageError, usage};
use crate::model::host::Host;

/// What a command line asks for, once every flag is applied.
pub(super) enum Walked<T> {
    /// What the flags set, and the words a subcommand is to read (empty
    /// when the grammar has none).
    Done(T, Vec<OsString>),
    Help,
    Version,
}

/// Applies every option of `args` (the words after the command's name) in
/// order. `-h` and `-v` end the walk at once, as in IOzone.
pub(super) fn walk<T: Target>(
    grammar: &Grammar<T>,
    args: impl IntoIterator<Item = OsString>,
    host: &Host,
) -> Result<Walked<T>, UsageError> {
    let mut parser = Parser::from_args(args);
    let mut seen = T::default();
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        let flag = match arg {
            Arg::Short('+') => {
                let letter = plus_letter(&mut parser)?;
                known(grammar, Spelling::Plus(letter))?
            }
            Arg::Short(c) => known(grammar, Spelling::Short(c))?,
            Arg::Long(name) => known(grammar, Spelling::Long(name))?,
            Arg::Value(word) => {
                match (grammar.operand)(&mut seen, word)? {
                    Taken::Next => {}
                    Taken::Rest => {
                        let rest = parser.raw_args().map_err(lexopt_error)?.collect();
                        return Ok(Walked::Done(seen, rest));
                    }
                }
                continue;
            }
        };
        match apply(grammar, flag, &mut parser, &mut seen, host)? {
            Step::Next => {}
            Step::Help => return Ok(Walked::Help),
            Step::Version => return Ok(Walked::Version),
        }
    }
    Ok(Walked::Done(seen, Vec::new()))
}

fn known<T>(grammar: &Grammar<T>, spelling: Spelling<'_>) -> Result<&'static Flag<T>, UsageError> {
    grammar
        .find(spelling)
        .ok_or_else(|| unknown_option(grammar, spelling))
}

/// `unknown option --josn; did you mean --json?` when a flag of the
/// command is spelled nearly so; else where the options are listed.
fn unknown_option<T>(grammar: &Grammar<T>, spelling: Spelling<'_>) -> UsageError {
    let command = match grammar.name {
        "" => String::new(),
        name => format!("{name}: "),
    };
    let near = match spelling {
        Spelling::Long(name) => closest(
            name,
            grammar.flags().filter_map(|f| match f.spelling {
                Spelling::Long(other) => Some(other),
                _ => None,
            }),
        ),
        // One letter is one typo away from every other.
        Spelling::Short(_) | Spelling::Plus(_) => None,
    };
    match (near, grammar.name) {
        (Some(near), _) => usage(format!(
            "{command}unknown option {spelling}; did you mean --{near}?"
        )),
        (None, "") => usage(format!(
            "unknown option {spelling} (ioz -h lists the options)"
        )),
        (None, name) => usage(format!(
            "{command}unknown option {spelling} (ioz {name} -h lists its options)"
        )),
    }
}

/// `-+X`: the letter is the rest of the word. Only its first character counts
/// in IOzone; ioz refuses extra characters, since `-+x4` looks like a value
/// that IOzone would silently drop (a value is always the next word).
fn plus_letter(parser: &mut Parser) -> Result<char, UsageError> {
    let rest = parser
        .optional_value()
        .ok_or_else(|| usage("-+ must be followed by a letter, as in -+n"))?;
    let rest = rest.string().map_err(|_| usage("-+: not valid UTF-8"))?;
    let mut chars = rest.chars();
    let letter = chars
        .next()
        .ok_or_else(|| usage("-+ must be followed by a letter"))?;
    if chars.next().is_some() {
        return Err(usage(format!(
            "-+{rest}: one letter expected after -+ (its value, if any, is the next word)"
        )));
    }
    Ok(letter)
}

/// Where the walk goes after a flag.
enum Step {
    Next,
    Help,
    Version,
}

/// The value a flag was given, as its header lines show it.
enum Given<'a> {
    Nothing,
    Number(u64),
    Path(&'a Path),
}

fn apply<T: Target>(
    grammar: &Grammar<T>,
    flag: &'static Flag<T>,
    parser: &mut Parser,
    seen: &mut T,
    host: &Host,
) -> Result<Step, UsageError> {
    let opt = flag.spelling.to_string();
    let lines = match &flag.action {
        Action::Switch(set) => {
            refuse_excluded(grammar, flag, seen)?;
            set(seen);
            header_lines(flag, Given::Nothing, host)
        }
        Action::Number(kind, set) => {
            let n = number_value(parser, &opt, kind)?;
            refuse_excluded(grammar, flag, seen)?;
            set(seen, n);
            header_lines(flag, Given::Number(n), host)
        }
        Action::Path(kind, set) => {
            let path = path_of_kind(parser, &opt, kind)?;
            refuse_excluded(grammar, flag, seen)?;
            let lines = header_lines(flag, Given::Path(&path), host);
            set(seen, path);
            lines
        }
        Action::Paths(what, set) => {
            let paths = paths_value(parser, &opt, what)?;
            refuse_excluded(grammar, flag, seen)?;
            set(seen, paths);
            header_lines(flag, Given::Nothing, host)
        }
        Action::Choice(choice, set) => {
            let name = choice_value(parser, &opt, choice)?;
            refuse_excluded(grammar, flag, seen)?;
            set(seen, name);
            header_lines(flag, Given::Nothing, host)
        }
        Action::Word(wanted, set) => {
            let word = word_value(parser, &opt, wanted)?;
            refuse_excluded(grammar, flag, seen)?;
            set(seen, &word);
            header_lines(flag, Given::Nothing, host)
        }
        Action::Text(set) => {
            let text = string_value(parser, &opt)?;
            set(seen, text);
            Vec::new()
        }
        Action::Percent(max, set) => {
            let percent = percent_value(parser, &opt, *max)?;
            set(seen, percent);
            Vec::new()
        }
        Action::Output(format, kind, outputs) => {
            let path = path_of_kind(parser, &opt, kind)?;
            outputs(seen).add(*format, path);
            header_lines(flag, Given::Nothing, host)
        }
        Action::NotSupported(what) => {
            return Err(usage(format!("{opt} ({what}) is not supported yet")));
        }
        Action::Help => return Ok(Step::Help),
        Action::Version => return Ok(Step::Version),
    };
    seen.applied(flag.spelling, lines);
    Ok(Step::Next)
}

/// `-H` and `-k` exclude each other. The message names the pair in table
/// order, whichever came first on the command line.
fn refuse_excluded<T: Target>(
    grammar: &Grammar<T>,
    flag: &'static Flag<T>,
    seen: &T,
) -> Result<(), UsageError> {
    let Some(other) = flag.excludes else {
        return Ok(());
    };
    if !seen.was_given(other) {
        return Ok(());
    }
    let this_first = grammar
        .flags()
        .map(|f| f.spelling)
        .find(|s| *s == flag.spelling || *s == other)
        == Some(flag.spelling);
    let (a, b) = if this_first {
        (flag.spelling, other)
    } else {
        (other, flag.spelling)
    };
    Err(usage(format!("{a} and {b} cannot be combined: choose one")))
}

fn header_lines<T>(flag: &Flag<T>, given: Given<'_>, host: &Host) -> Vec<String> {
    match (&flag.lines, given) {
        (Lines::None, _) => Vec::new(),
        (Lines::Fixed(lines), _) => lines.iter().map(|l| l.to_string()).collect(),
        (Lines::OfNumber(lines), Given::Number(n)) => lines(n),
        (Lines::OfPath(line), Given::Path(path)) => vec![line(path)],
        (Lines::OfHost(lines), _) => lines(host),
        // The table tests check that every flag's lines fit its value.
        (Lines::OfNumber(_) | Lines::OfPath(_), _) => {
            debug_assert!(false, "{}: header lines of another kind", flag.spelling);
            Vec::new()
        }
    }
}
