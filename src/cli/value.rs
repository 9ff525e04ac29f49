//! Reading a flag's value from the command line, checking it against its kind
//! (size, bounded count, path, a word from a set), and the errors that name the
//! option and what is wrong.

use std::ffi::OsString;
use std::fmt::Display;
use std::path::PathBuf;

use lexopt::{Parser, ValueExt};

use super::grammar::{Bounds, Choice, Number, PathKind};
use super::number::{
    duration_text, parse_bytes, parse_count, parse_duration, parse_record_size, parse_size,
};
use super::{UsageError, usage};
use crate::model::config::{MAX_FILE_BYTES, MAX_RECORD_BYTES};
use crate::model::units::MIB;

/// The one wording of every range error:
/// `-t 0: out of range; give 1 to 1024 (workers)`. A range with no upper
/// bound reads `give 2 or more` unless the value is above it anyway (a number
/// too large for 64 bits).
pub(super) fn out_of_range(
    opt: &str,
    given: &str,
    low: impl Display,
    high: Option<impl Display>,
    what: &str,
) -> UsageError {
    let range = match high {
        Some(high) => format!("{low} to {high}"),
        None => format!("{low} or more"),
    };
    usage(format!(
        "{opt} {given}: out of range; give {range} ({what})"
    ))
}

/// lexopt's own errors, in our words where they are generic.
pub(super) fn lexopt_error(e: lexopt::Error) -> UsageError {
    match e {
        lexopt::Error::MissingValue { option: Some(o) } => usage(format!("{o} needs a value")),
        lexopt::Error::UnexpectedValue { option, .. } => {
            usage(format!("{option} does not take a value"))
        }
        other => usage(other.to_string()),
    }
}

pub(super) fn string_value(parser: &mut Parser, opt: &str) -> Result<String, UsageError> {
    let v = parser
        .value()
        .map_err(|_| usage(format!("{opt} needs a value")))?;
    v.string()
        .map_err(|_| usage(format!("{opt}: the value is not valid UTF-8")))
}

pub(super) fn number_value(
    parser: &mut Parser,
    opt: &str,
    kind: &Number,
) -> Result<u64, UsageError> {
    let word = string_value(parser, opt)?;
    match kind {
        Number::Size => {
            let bytes = parse_size(&word).map_err(|e| usage(format!("{opt}: {e}")))?;
            if bytes > MAX_FILE_BYTES {
                return Err(out_of_range(
                    opt,
                    &word,
                    "1k",
                    Some(format!("{}g", MAX_FILE_BYTES / (1024 * MIB))),
                    "file size",
                ));
            }
            Ok(bytes)
        }
        Number::RecordSize => {
            let bytes = parse_record_size(&word).map_err(|e| usage(format!("{opt}: {e}")))?;
            if bytes > MAX_RECORD_BYTES {
                return Err(out_of_range(
                    opt,
                    &word,
                    "1b",
                    Some(format!("{}m", MAX_RECORD_BYTES / MIB)),
                    "record size",
                ));
            }
            Ok(bytes)
        }
        Number::Count(bounds) => count_within(opt, &word, bounds),
        Number::Duration(b) => {
            let ns = parse_duration(&word).map_err(|e| usage(format!("{opt}: {e}")))?;
            if !(b.min..=b.max).contains(&ns) {
                return Err(out_of_range(
                    opt,
                    &word,
                    duration_text(b.min),
                    Some(duration_text(b.max)),
                    b.what,
                ));
            }
            Ok(ns)
        }
        Number::Bytes { max } => {
            let bytes = parse_bytes(&word).map_err(|e| usage(format!("{opt}: {e}")))?;
            if bytes > *max {
                return Err(out_of_range(opt, &word, 0, Some(max), "bytes"));
            }
            Ok(bytes)
        }
    }
}

/// A count is refused as out of range both when it is outside its bounds and
/// when its digits overflow 64 bits.
fn count_within(opt: &str, word: &str, b: &Bounds) -> Result<u64, UsageError> {
    let refuse = |too_large: bool| {
        let high = (b.max < u64::MAX || too_large).then_some(b.max);
        out_of_range(opt, word, b.min, high, b.what)
    };
    match parse_count(word) {
        Ok(n) if n < b.min => Err(refuse(false)),
        Ok(n) if n > b.max => Err(refuse(true)),
        Ok(n) => Ok(n),
        Err(_) if !word.is_empty() && word.bytes().all(|c| c.is_ascii_digit()) => Err(refuse(true)),
        Err(e) => Err(usage(format!("{opt}: {e}"))),
    }
}

/// A path argument: any non-empty word.
pub(super) fn path_value(parser: &mut Parser, opt: &str) -> Result<PathBuf, UsageError> {
    let v = parser
        .value()
        .map_err(|_| usage(format!("{opt} needs a value (a path)")))?;
    if v.is_empty() {
        return Err(usage(format!("{opt}: the path is empty")));
    }
    utf8_path(opt, v)
}

pub(super) fn path_of_kind(
    parser: &mut Parser,
    opt: &str,
    kind: &PathKind,
) -> Result<PathBuf, UsageError> {
    let path = path_value(parser, opt)?;
    let PathKind::Ending { extensions, why } = kind else {
        return Ok(path);
    };
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    if ext.is_some_and(|ext| extensions.contains(&ext.as_str())) {
        return Ok(path);
    }
    let why = match *why {
        "" => String::new(),
        why => format!(" ({why})"),
    };
    Err(usage(format!(
        "{opt}: '{}' needs {} extension{why}",
        path.display(),
        one_of(extensions)
    )))
}

/// `a .xls, .wks or .xlsx`.
fn one_of(extensions: &[&str]) -> String {
    let dotted: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
    match dotted.split_last() {
        Some((last, [])) => format!("a {last}"),
        Some((last, rest)) => format!("a {} or {last}", rest.join(", ")),
        None => "an".to_string(),
    }
}

/// `-F`: every following word up to the next option (`what` names them
/// when there is none).
pub(super) fn paths_value(
    parser: &mut Parser,
    opt: &str,
    what: &str,
) -> Result<Vec<PathBuf>, UsageError> {
    let paths: Vec<PathBuf> = parser
        .values()
        .map_err(|_| usage(format!("{opt} needs {what}")))?
        .map(|v| utf8_path(opt, v))
        .collect::<Result<_, _>>()?;
    if paths.iter().any(|f| f.as_os_str().is_empty()) {
        return Err(usage(format!("{opt}: a file name is empty")));
    }
    Ok(paths)
}

/// Paths end up in the saved results (JSON), so they must be text.
fn utf8_path(opt: &str, v: OsString) -> Result<PathBuf, UsageError> {
    match v.into_string() {
        Ok(s) => Ok(PathBuf::from(s)),
        Err(raw) => Err(usage(format!(
            "{opt}: the path {} is not valid UTF-8 (ioz records paths in its results)",
            raw.to_string_lossy()
        ))),
    }
}

/// One of the choice's names. With a default, the value is optional and only
/// taken when attached (`--drop-caches=all`), so that the next word stays an
/// argument of its own.
pub(super) fn choice_value(
    parser: &mut Parser,
    opt: &str,
    choice: &Choice,
) -> Result<&'static str, UsageError> {
    let word = match choice.default {
        Some(default) => match parser.optional_value() {
            None => return Ok(default),
            Some(v) => v.to_string_lossy().into_owned(),
        },
        None => string_value(parser, opt)?,
    };
    choice
        .names
        .iter()
        .find(|name| **name == word)
        .copied()
        .ok_or_else(|| usage(format!("{opt}: '{word}' is not {}", choice.expected)))
}

/// Any word that is not blank, trimmed.
pub(super) fn word_value(
    parser: &mut Parser,
    opt: &str,
    wanted: &str,
) -> Result<String, UsageError> {
    let v = string_value(parser, opt)?;
    let word = v.trim();
    if word.is_empty() {
        return Err(usage(format!("{opt}: give {wanted}")));
    }
    Ok(word.to_string())
}

/// A percentage from 0 to `max`, a `%` after it allowed.
pub(super) fn percent_value(parser: &mut Parser, opt: &str, max: f64) -> Result<f64, UsageError> {
    let raw = string_value(parser, opt)?;
    match raw.trim_end_matches('%').parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=max).contains(&v) => Ok(v),
        _ => Err(usage(format!(
            "{opt}: '{raw}' is not a percentage (a number from 0 to {max})"
        ))),
    }
}
