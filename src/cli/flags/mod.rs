//! The run's option table: one entry per spelling (`-s`, `-+n`, `--json`)
//! saying what value it takes and within which bounds, its line in `ioz -h`,
//! what it sets, the header lines it adds, and where it applies — or that
//! ioz does not support it yet, and why (the entry's kinds: grammar.rs). The
//! walker (parse.rs), the help text (help.rs), the man page, the completions
//! and the cross-option checks (validate.rs) all read it; a new flag is one
//! entry in the section file it belongs to.

mod caches;
mod cluster;
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

use std::ffi::OsString;

use super::grammar::{self, Grammar, Taken};
pub(super) use super::grammar::{Choice, Number, Scope, Spelling};
use super::seen::Seen;
use super::{UsageError, usage};

/// An entry of the run's table.
pub(super) type Flag = grammar::Flag<Seen>;
/// A group of the run's flags in `ioz -h`.
pub(super) type Section = grammar::Section<Seen>;

/// The run: IOzone's grammar, and ioz's own options.
pub(super) const RUN: Grammar<Seen> = Grammar {
    name: "",
    summary: "measure: the options below",
    about: "Sizes are in kB unless they end in k, m or g (1 kB = 1024 bytes).",
    operands: &[],
    operand: stray_word,
    sections: SECTIONS,
    subcommands: &[],
    tail: "",
};

/// A run takes no word that is not an option.
fn stray_word(_: &mut Seen, word: OsString) -> Result<Taken, UsageError> {
    Err(usage(format!(
        "unexpected argument '{}' (options start with -; ioz -h lists them)",
        word.to_string_lossy()
    )))
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
    cluster::SECTION,
    latency::SECTION,
    output::SECTION,
    results::SECTION,
    results::KEPT_SECTION,
    results::OWN_SECTION,
    refused::SECTION,
];

/// Every flag, in table order.
pub(super) fn all() -> impl Iterator<Item = &'static Flag> {
    RUN.flags()
}

/// The flags that only mean something in `scope`, in table order.
pub(super) fn only_in(scope: Scope) -> impl Iterator<Item = &'static Flag> {
    all().filter(move |f| f.scope == scope)
}

#[cfg(test)]
mod table_tests;
