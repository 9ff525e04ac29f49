//! Walks the command line with lexopt and applies each flag's table entry:
//! read its value, set what it sets, add its header lines.

use std::ffi::OsString;
use std::path::Path;

use lexopt::{Arg, Parser, ValueExt};

use super::flags::{self, Action, Flag, Lines};
use super::seen::Seen;
use super::spelling::Spelling;
use super::value::{
    choice_value, lexopt_error, number_value, path_of_kind, paths_value, word_value,
};
use super::{UsageError, usage};
use crate::model::host::Host;

/// What the command line asks for, once every flag is applied.
pub(super) enum Outcome {
    Run(Box<Seen>),
    Help,
    Version,
}

/// Applies every option of argv (argv[0] included) in order. `-h` and `-v`
/// end the walk at once, as in IOzone.
pub(super) fn options(args: Vec<OsString>, host: &Host) -> Result<Outcome, UsageError> {
    let mut parser = Parser::from_iter(args);
    let mut seen = Seen::default();
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        let flag = match arg {
            Arg::Short('+') => {
                let letter = plus_letter(&mut parser)?;
                known(Spelling::Plus(letter))?
            }
            Arg::Short(c) => known(Spelling::Short(c))?,
            Arg::Long(name) => known(Spelling::Long(name))?,
            Arg::Value(v) => {
                return Err(usage(format!(
                    "unexpected argument '{}' (options start with -; ioz -h lists them)",
                    v.to_string_lossy()
                )));
            }
        };
        match apply(flag, &mut parser, &mut seen, host)? {
            Step::Next => {}
            Step::Help => return Ok(Outcome::Help),
            Step::Version => return Ok(Outcome::Version),
        }
    }
    Ok(Outcome::Run(Box::new(seen)))
}

fn known(spelling: Spelling<'_>) -> Result<&'static Flag, UsageError> {
    flags::find(spelling).ok_or_else(|| {
        usage(format!(
            "unknown option {spelling} (ioz -h lists the options)"
        ))
    })
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

fn apply(
    flag: &'static Flag,
    parser: &mut Parser,
    seen: &mut Seen,
    host: &Host,
) -> Result<Step, UsageError> {
    let opt = flag.spelling.to_string();
    let lines = match &flag.action {
        Action::Switch(set) => {
            refuse_excluded(flag, seen)?;
            set(seen);
            header_lines(flag, Given::Nothing, host)
        }
        Action::Number(kind, set) => {
            let n = number_value(parser, &opt, kind)?;
            refuse_excluded(flag, seen)?;
            set(seen, n);
            header_lines(flag, Given::Number(n), host)
        }
        Action::Path(kind, set) => {
            let path = path_of_kind(parser, &opt, kind)?;
            refuse_excluded(flag, seen)?;
            let lines = header_lines(flag, Given::Path(&path), host);
            set(seen, path);
            lines
        }
        Action::Paths(set) => {
            let paths = paths_value(parser, &opt)?;
            refuse_excluded(flag, seen)?;
            set(seen, paths);
            header_lines(flag, Given::Nothing, host)
        }
        Action::Choice(choice, set) => {
            let name = choice_value(parser, &opt, choice)?;
            refuse_excluded(flag, seen)?;
            set(seen, name);
            header_lines(flag, Given::Nothing, host)
        }
        Action::Word(wanted, set) => {
            let word = word_value(parser, &opt, wanted)?;
            refuse_excluded(flag, seen)?;
            set(seen, &word);
            header_lines(flag, Given::Nothing, host)
        }
        Action::NotSupported(what) => {
            return Err(usage(format!("{opt} ({what}) is not supported yet")));
        }
        Action::Help => return Ok(Step::Help),
        Action::Version => return Ok(Step::Version),
    };
    seen.given.push(flag.spelling);
    seen.option_lines.extend(lines);
    Ok(Step::Next)
}

/// `-H` and `-k` exclude each other. The message names the pair in table
/// order, whichever came first on the command line.
fn refuse_excluded(flag: &'static Flag, seen: &Seen) -> Result<(), UsageError> {
    let Some(other) = flag.excludes else {
        return Ok(());
    };
    if !seen.was_given(other) {
        return Ok(());
    }
    let this_first = flags::all()
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

fn header_lines(flag: &Flag, given: Given<'_>, host: &Host) -> Vec<String> {
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
