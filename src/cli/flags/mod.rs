//! The option table: one entry per spelling (`-s`, `-+n`, `--json`) saying
//! what value it takes and within which bounds, its line in `ioz -h`, what it
//! sets, the header lines it adds, and where it applies — or that ioz does not
//! support it yet, and why. The parser (parse.rs), the help text (help.rs) and
//! the cross-option checks (validate.rs) all read it; a new flag is one entry
//! in the section file it belongs to.

mod caches;
mod data;
mod engines;
mod io;
mod latency;
mod modes;
mod output;
mod refused;
mod results;
mod selection;
mod throughput;

use std::path::{Path, PathBuf};

pub(super) use results::PLOT_SCALE;

use super::seen::Seen;
pub(super) use super::spelling::Spelling;
use crate::model::host::Host;

/// A whole number a flag takes: a size or a bounded count.
pub(super) enum Number {
    /// A size in kB, or with a k, m or g suffix, at most MAX_FILE_BYTES;
    /// the flag receives bytes.
    Size,
    /// A size, or bytes with a b suffix, at most MAX_RECORD_BYTES; bytes.
    RecordSize,
    /// A plain count within bounds.
    Count(Bounds),
}

/// The values a count may take, and what it counts (for the range error).
pub(super) struct Bounds {
    pub min: u64,
    pub max: u64,
    pub what: &'static str,
}

impl Number {
    pub const fn count(min: u64, max: u64, what: &'static str) -> Number {
        Number::Count(Bounds { min, max, what })
    }

    pub const fn percent() -> Number {
        Number::count(0, 100, "percent")
    }
}

/// A path a flag takes.
pub(super) enum PathKind {
    /// Any non-empty path.
    Any,
    /// A spreadsheet: .xls or .wks (IOzone's BIFF layout) or .xlsx.
    Spreadsheet,
}

/// A word from a fixed set.
pub(super) struct Choice {
    pub names: &'static [&'static str],
    /// What a word outside the set is not: `--data: 'x' is not {expected}`.
    pub expected: &'static str,
    /// The word taken when the value is left out (`--drop-caches`); with it,
    /// the value must be attached (`--drop-caches=all`).
    pub default: Option<&'static str>,
}

/// What a flag takes and what it sets in the options seen.
pub(super) enum Action {
    Switch(fn(&mut Seen)),
    Number(Number, fn(&mut Seen, u64)),
    Path(PathKind, fn(&mut Seen, PathBuf)),
    /// `-F`: every following word that is not an option.
    Paths(fn(&mut Seen, Vec<PathBuf>)),
    /// Called with one of the choice's names.
    Choice(Choice, fn(&mut Seen, &str)),
    /// Any non-blank word, trimmed; a blank one is refused with
    /// `{opt}: give {the &str}`.
    Word(&'static str, fn(&mut Seen, &str)),
    Help,
    Version,
    /// An IOzone option ioz recognises but does not do yet: refused by name,
    /// so that no flag is ever silently ignored.
    NotSupported(&'static str),
}

/// The lines a flag adds to the header, in IOzone's wording, in command-line
/// order (IOzone prints them under the banner; scripts read them).
pub(super) enum Lines {
    None,
    Fixed(&'static [&'static str]),
    /// From the flag's number (bytes for sizes).
    OfNumber(fn(u64) -> Vec<String>),
    OfPath(fn(&Path) -> String),
    OfHost(fn(&Host) -> Vec<String>),
}

/// Where a flag means something; elsewhere validate.rs refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scope {
    Everywhere,
    /// `-a`, `-A`, or several `-s`/`-r`.
    AutoMode,
    /// `-t`, `-l` or `-u`.
    ThroughputMode,
}

/// One entry of the table.
pub(super) struct Flag {
    pub spelling: Spelling<'static>,
    /// The value's name in `ioz -h` ("SIZE"); empty when it takes none.
    pub value_name: &'static str,
    /// Its line in `ioz -h` (wrapped there to fit 80 columns).
    pub help: &'static str,
    pub action: Action,
    pub lines: Lines,
    pub scope: Scope,
    /// A flag that cannot also be given: `{a} and {b} cannot be combined`.
    pub excludes: Option<Spelling<'static>>,
}

impl Flag {
    const fn new(
        spelling: Spelling<'static>,
        value_name: &'static str,
        help: &'static str,
        action: Action,
    ) -> Flag {
        Flag {
            spelling,
            value_name,
            help,
            action,
            lines: Lines::None,
            scope: Scope::Everywhere,
            excludes: None,
        }
    }

    pub const fn switch(
        spelling: Spelling<'static>,
        help: &'static str,
        set: fn(&mut Seen),
    ) -> Flag {
        Flag::new(spelling, "", help, Action::Switch(set))
    }

    pub const fn number(
        spelling: Spelling<'static>,
        value_name: &'static str,
        kind: Number,
        help: &'static str,
        set: fn(&mut Seen, u64),
    ) -> Flag {
        Flag::new(spelling, value_name, help, Action::Number(kind, set))
    }

    pub const fn path(
        spelling: Spelling<'static>,
        value_name: &'static str,
        help: &'static str,
        set: fn(&mut Seen, PathBuf),
    ) -> Flag {
        Flag::new(spelling, value_name, help, Action::Path(PathKind::Any, set))
    }

    pub const fn spreadsheet(
        spelling: Spelling<'static>,
        value_name: &'static str,
        help: &'static str,
        set: fn(&mut Seen, PathBuf),
    ) -> Flag {
        Flag::new(
            spelling,
            value_name,
            help,
            Action::Path(PathKind::Spreadsheet, set),
        )
    }

    pub const fn paths(
        spelling: Spelling<'static>,
        value_name: &'static str,
        help: &'static str,
        set: fn(&mut Seen, Vec<PathBuf>),
    ) -> Flag {
        Flag::new(spelling, value_name, help, Action::Paths(set))
    }

    pub const fn choice(
        spelling: Spelling<'static>,
        value_name: &'static str,
        choice: Choice,
        help: &'static str,
        set: fn(&mut Seen, &str),
    ) -> Flag {
        Flag::new(spelling, value_name, help, Action::Choice(choice, set))
    }

    pub const fn word(
        spelling: Spelling<'static>,
        value_name: &'static str,
        blank: &'static str,
        help: &'static str,
        set: fn(&mut Seen, &str),
    ) -> Flag {
        Flag::new(spelling, value_name, help, Action::Word(blank, set))
    }

    pub const fn help(spelling: Spelling<'static>, help: &'static str) -> Flag {
        Flag::new(spelling, "", help, Action::Help)
    }

    pub const fn version(spelling: Spelling<'static>, help: &'static str) -> Flag {
        Flag::new(spelling, "", help, Action::Version)
    }

    pub const fn not_supported(spelling: Spelling<'static>, reason: &'static str) -> Flag {
        Flag::new(spelling, "", reason, Action::NotSupported(reason))
    }

    /// Header lines that never change.
    pub const fn header(mut self, lines: &'static [&'static str]) -> Flag {
        self.lines = Lines::Fixed(lines);
        self
    }

    /// Header lines that show the flag's number.
    pub const fn header_number(mut self, lines: fn(u64) -> Vec<String>) -> Flag {
        self.lines = Lines::OfNumber(lines);
        self
    }

    /// A header line that shows the flag's path.
    pub const fn header_path(mut self, line: fn(&Path) -> String) -> Flag {
        self.lines = Lines::OfPath(line);
        self
    }

    /// Header lines that show facts about the machine.
    pub const fn header_host(mut self, lines: fn(&Host) -> Vec<String>) -> Flag {
        self.lines = Lines::OfHost(lines);
        self
    }

    pub const fn only_in(mut self, scope: Scope) -> Flag {
        self.scope = scope;
        self
    }

    pub const fn excludes(mut self, other: Spelling<'static>) -> Flag {
        self.excludes = Some(other);
        self
    }
}

/// A group of flags in `ioz -h`.
pub(super) struct Section {
    pub title: &'static str,
    /// Text printed under the title, before the flags (already laid out).
    pub note: &'static str,
    pub flags: &'static [Flag],
}

/// Every flag, grouped as `ioz -h` shows them. Where the order of flags
/// matters beyond the help (which of several misplaced flags an error names
/// first), the section files say so.
pub(super) const SECTIONS: &[Section] = &[
    modes::SECTION,
    selection::SECTION,
    io::SECTION,
    engines::SECTION,
    caches::SECTION,
    data::SECTION,
    throughput::SECTION,
    latency::SECTION,
    output::SECTION,
    results::SECTION,
    results::OWN_SECTION,
    refused::SECTION,
];

/// Every flag, in table order.
pub(super) fn all() -> impl Iterator<Item = &'static Flag> {
    SECTIONS.iter().flat_map(|s| s.flags.iter())
}

/// The table's entry for a spelling, if ioz knows it.
pub(super) fn find(spelling: Spelling<'_>) -> Option<&'static Flag> {
    all().find(|f| f.spelling == spelling)
}

/// The flags that only mean something in `scope`, in table order.
pub(super) fn only_in(scope: Scope) -> impl Iterator<Item = &'static Flag> {
    all().filter(move |f| f.scope == scope)
}

#[cfg(test)]
mod table_tests;
