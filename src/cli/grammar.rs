//! The grammar every command is written in: a flag table per command (one
//! entry per spelling: what value it takes within which bounds, its help
//! line, what it sets, and for a run the header lines it adds and where it
//! applies), the words that are not options, and the texts around them.
//! The walker (parse.rs), the help (help.rs), the man page (man.rs) and the
//! completions (completions.rs) all read these tables, so a flag is defined
//! once and shows up everywhere.
//!
//! A table is generic over what its flags set (`T`): the run's options seen
//! (cli/seen.rs), or a command's own. Flags several commands take are
//! defined once in shared.rs and told where their value goes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::UsageError;
use super::number::duration_text;
pub(super) use super::spelling::Spelling;
use crate::model::formats::{Format, GuardRule, OutputFiles};
use crate::model::host::Host;

/// A whole number a flag takes: a size or a bounded count.
#[derive(Clone, Copy)]
pub(super) enum Number {
    /// A size in kB, or with a k, m or g suffix, at most MAX_FILE_BYTES;
    /// the flag receives bytes.
    Size,
    /// A size, or bytes with a b suffix, at most MAX_RECORD_BYTES; bytes.
    RecordSize,
    /// A plain count within bounds.
    Count(Bounds),
    /// A duration with a unit (cli/number.rs), within bounds given in ns;
    /// the flag receives ns.
    Duration(Bounds),
    /// Bytes: a plain number, or kB and MB (1024-based) with a k or m
    /// suffix (fileop's `-s 4k`), at most `max` bytes.
    Bytes { max: u64 },
}

/// The values a count may take, and what it counts (for the range error).
#[derive(Clone, Copy)]
pub(super) struct Bounds {
    pub min: u64,
    pub max: u64,
    pub what: &'static str,
}

impl Number {
    pub const fn count(min: u64, max: u64, what: &'static str) -> Number {
        Number::Count(Bounds { min, max, what })
    }

    pub const fn duration(min_ns: u64, max_ns: u64, what: &'static str) -> Number {
        Number::Duration(Bounds {
            min: min_ns,
            max: max_ns,
            what,
        })
    }

    pub const fn percent() -> Number {
        Number::count(0, 100, "percent")
    }
}

/// A path a flag takes.
#[derive(Clone, Copy)]
pub(super) enum PathKind {
    /// Any non-empty path.
    Any,
    /// Any non-empty path, naming a directory (for the completions).
    Directory,
    /// A path ending in one of `extensions` (any case); `why` (may be
    /// empty) says why, after the refusal.
    Ending {
        extensions: &'static [&'static str],
        why: &'static str,
    },
}

/// A word from a fixed set.
#[derive(Clone, Copy)]
pub(super) struct Choice {
    pub names: &'static [&'static str],
    /// What a word outside the set is not: `--data: 'x' is not {expected}`.
    pub expected: &'static str,
    /// The word taken when the value is left out (`--drop-caches`); with it,
    /// the value must be attached (`--drop-caches=all`).
    pub default: Option<&'static str>,
}

/// Where a command keeps the result paths its output flags name.
pub(super) type Outputs<T> = fn(&mut T) -> &mut OutputFiles;

/// What a flag takes and what it sets in `T`.
pub(super) enum Action<T: 'static> {
    Switch(fn(&mut T)),
    Number(Number, fn(&mut T, u64)),
    Path(PathKind, fn(&mut T, PathBuf)),
    /// Every following word that is not an option (`-F`), at least one; the
    /// text names them when there is none: `-F needs {the &str}`.
    Paths(&'static str, fn(&mut T, Vec<PathBuf>)),
    /// Called with one of the choice's names.
    Choice(Choice, fn(&mut T, &str)),
    /// Any non-blank word, trimmed; a blank one is refused with
    /// `{opt}: give {the &str}`.
    Word(&'static str, fn(&mut T, &str)),
    /// Any word, as given.
    Text(fn(&mut T, String)),
    /// A percentage from 0 to the bound (a `%` after it is allowed).
    Percent(f64, fn(&mut T, f64)),
    /// The path of a result format (model::formats), put where the
    /// command keeps its outputs.
    Output(Format, PathKind, Outputs<T>),
    Help,
    Version,
    /// An IOzone option ioz recognises but does not do yet: refused by name,
    /// so that no flag is ever silently ignored.
    NotSupported(&'static str),
}

// Derived Clone and Copy would ask the same of `T`; a table holds only
// function pointers to it.
impl<T> Clone for Action<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Action<T> {}

/// The lines a flag adds to a run's header, in IOzone's wording, in
/// command-line order (IOzone prints them under the banner; scripts read them).
#[derive(Clone, Copy)]
pub(super) enum Lines {
    None,
    Fixed(&'static [&'static str]),
    /// From the flag's number (bytes for sizes).
    OfNumber(fn(u64) -> Vec<String>),
    OfPath(fn(&Path) -> String),
    OfHost(fn(&Host) -> Vec<String>),
}

/// Where a run's flag means something; elsewhere validate.rs refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scope {
    Everywhere,
    /// `-a`, `-A`, or several `-s`/`-r`.
    AutoMode,
    /// `-t`, `-l` or `-u`.
    ThroughputMode,
}

/// One entry of a table.
pub(super) struct Flag<T: 'static> {
    pub spelling: Spelling<'static>,
    /// The value's name in the help ("SIZE"); empty when it takes none.
    pub value_name: &'static str,
    /// Its line in the help (wrapped there to fit 80 columns).
    pub help: &'static str,
    pub action: Action<T>,
    pub lines: Lines,
    pub scope: Scope,
    /// A flag that cannot also be given: `{a} and {b} cannot be combined`.
    pub excludes: Option<Spelling<'static>>,
}

impl<T> Clone for Flag<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Flag<T> {}

impl<T> Flag<T> {
    const fn new(
        spelling: Spelling<'static>,
        value_name: &'static str,
        help: &'static str,
        action: Action<T>,
    ) -> Flag<T> {
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

    pub const fn switch(spelling: Spelling<'static>, help: &'static str, set: fn(&mut T)) -> Self {
        Flag::new(spelling, "", help, Action::Switch(set))
    }

    pub const fn number(
        spelling: Spelling<'static>,
        value_name: &'static str,
        kind: Number,
        help: &'static str,
        set: fn(&mut T, u64),
    ) -> Self {
        Flag::new(spelling, value_name, help, Action::Number(kind, set))
    }

    pub const fn path(
        spelling: Spelling<'static>,
        value_name: &'static str,
        help: &'static str,
        set: fn(&mut T, PathBuf),
    ) -> Self {
        Flag::new(spelling, value_name, help, Action::Path(PathKind::Any, set))
    }

    pub const fn directory(
        spelling: Spelling<'static>,
        value_name: &'static str,
        help: &'static str,
        set: fn(&mut T, PathBuf),
    ) -> Self {
        Flag::new(
            spelling,
            value_name,
            help,
            Action::Path(PathKind::Directory, set),
        )
    }

    pub const fn paths(
        spelling: Spelling<'static>,
        value_name: &'static str,
        what: &'static str,
        help: &'static str,
        set: fn(&mut T, Vec<PathBuf>),
    ) -> Self {
        Flag::new(spelling, value_name, help, Action::Paths(what, set))
    }

    pub const fn choice(
        spelling: Spelling<'static>,
        value_name: &'static str,
        choice: Choice,
        help: &'static str,
        set: fn(&mut T, &str),
    ) -> Self {
        Flag::new(spelling, value_name, help, Action::Choice(choice, set))
    }

    pub const fn word(
        spelling: Spelling<'static>,
        value_name: &'static str,
        blank: &'static str,
        help: &'static str,
        set: fn(&mut T, &str),
    ) -> Self {
        Flag::new(spelling, value_name, help, Action::Word(blank, set))
    }

    pub const fn text(
        spelling: Spelling<'static>,
        value_name: &'static str,
        help: &'static str,
        set: fn(&mut T, String),
    ) -> Self {
        Flag::new(spelling, value_name, help, Action::Text(set))
    }

    pub const fn percent(
        spelling: Spelling<'static>,
        max: f64,
        help: &'static str,
        set: fn(&mut T, f64),
    ) -> Self {
        Flag::new(spelling, "PCT", help, Action::Percent(max, set))
    }

    /// The flag of a result format, with the format list's help line and
    /// the extensions it asks of the path.
    pub const fn output(format: Format, outputs: Outputs<T>) -> Self {
        let row = format.row();
        let kind = match (row.extensions, row.guard) {
            ([], GuardRule::Directory) => PathKind::Directory,
            ([], _) => PathKind::Any,
            (extensions, _) => PathKind::Ending {
                extensions,
                why: "",
            },
        };
        Flag::new(
            Spelling::of(row.flag),
            row.value_name,
            row.help,
            Action::Output(format, kind, outputs),
        )
    }

    pub const fn help(spelling: Spelling<'static>, help: &'static str) -> Self {
        Flag::new(spelling, "", help, Action::Help)
    }

    pub const fn version(spelling: Spelling<'static>, help: &'static str) -> Self {
        Flag::new(spelling, "", help, Action::Version)
    }

    pub const fn not_supported(spelling: Spelling<'static>, reason: &'static str) -> Self {
        Flag::new(spelling, "", reason, Action::NotSupported(reason))
    }

    /// The same flag with a help line of its own (a command that writes
    /// something else in that format says what).
    pub const fn said(mut self, help: &'static str) -> Self {
        self.help = help;
        self
    }

    /// The same flag, its value shown as `value_name`.
    pub const fn shown_as(mut self, value_name: &'static str) -> Self {
        self.value_name = value_name;
        self
    }

    /// An output flag whose path must end in one of `extensions`.
    pub const fn only_extensions(
        mut self,
        extensions: &'static [&'static str],
        why: &'static str,
    ) -> Self {
        if let Action::Output(format, _, outputs) = self.action {
            self.action = Action::Output(format, PathKind::Ending { extensions, why }, outputs);
        }
        self
    }

    /// Header lines that never change.
    pub const fn header(mut self, lines: &'static [&'static str]) -> Self {
        self.lines = Lines::Fixed(lines);
        self
    }

    /// Header lines that show the flag's number.
    pub const fn header_number(mut self, lines: fn(u64) -> Vec<String>) -> Self {
        self.lines = Lines::OfNumber(lines);
        self
    }

    /// A header line that shows the flag's path.
    pub const fn header_path(mut self, line: fn(&Path) -> String) -> Self {
        self.lines = Lines::OfPath(line);
        self
    }

    /// Header lines that show facts about the machine.
    pub const fn header_host(mut self, lines: fn(&Host) -> Vec<String>) -> Self {
        self.lines = Lines::OfHost(lines);
        self
    }

    pub const fn only_in(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    pub const fn excludes(mut self, other: Spelling<'static>) -> Self {
        self.excludes = Some(other);
        self
    }

    /// The help line, with `{range}` standing for a count's bounds.
    pub fn help_line(&self) -> String {
        match &self.action {
            Action::Number(Number::Count(b), _) => self
                .help
                .replace("{range}", &format!("{} to {}", b.min, b.max)),
            Action::Number(Number::Duration(b), _) => self.help.replace(
                "{range}",
                &format!("{} to {}", duration_text(b.min), duration_text(b.max)),
            ),
            _ => self.help.to_string(),
        }
    }
}

/// A group of flags in the help; one without a title goes on under the
/// group before it.
pub(super) struct Section<T: 'static> {
    pub title: &'static str,
    /// Text printed under the title, before the flags (already laid out).
    pub note: &'static str,
    pub flags: &'static [Flag<T>],
}

impl<T> Clone for Section<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Section<T> {}

/// How many times a word that is not an option comes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Count {
    One,
    Optional,
    /// One or more.
    Many,
}

/// A word of a command that is not an option (`RUN.json`), for the help,
/// the man page and the completions; the command's grammar takes it.
pub(super) struct Operand {
    pub name: &'static str,
    pub help: &'static str,
    pub count: Count,
    /// A path (completed as a file name) rather than a word.
    pub path: bool,
}

/// What the walk does after a word that is not an option.
pub(super) enum Taken {
    /// Goes on.
    Next,
    /// Hands the rest of the command line over (to a subcommand).
    Rest,
}

/// What a command's flags fill in as the command line is walked.
pub(super) trait Target: Default {
    /// Notes a flag applied and the header lines it adds (a run keeps both).
    fn applied(&mut self, _flag: Spelling<'static>, _lines: Vec<String>) {}

    /// Whether the flag was given before (for `excludes`).
    fn was_given(&self, _flag: Spelling<'_>) -> bool {
        false
    }
}

/// One command's grammar.
pub(super) struct Grammar<T: 'static> {
    /// The words that name the command: "report", "history list"; empty
    /// for a run.
    pub name: &'static str,
    /// Its line in a list of commands.
    pub summary: &'static str,
    /// What it does: the paragraphs between the usage and the options.
    pub about: &'static str,
    pub operands: &'static [Operand],
    /// Takes one of those words, or refuses it (one too many).
    pub operand: fn(&mut T, OsString) -> Result<Taken, UsageError>,
    pub sections: &'static [Section<T>],
    /// The subcommands, each with its own grammar (`ioz history list`).
    pub subcommands: &'static [&'static dyn Described],
    /// After the options: notes, and the exit status.
    pub tail: &'static str,
}

impl<T> Grammar<T> {
    /// Every flag, in table order.
    pub fn flags(&self) -> impl Iterator<Item = &'static Flag<T>> {
        self.sections.iter().flat_map(|s| s.flags.iter())
    }

    /// The table's entry for a spelling, if the command has it.
    pub fn find(&self, spelling: Spelling<'_>) -> Option<&'static Flag<T>> {
        self.flags().find(|f| f.spelling == spelling)
    }
}

/// A grammar as the help, the man page and the completions read it,
/// whatever its flags set.
pub(super) trait Described: Sync {
    fn name(&self) -> &'static str;
    fn summary(&self) -> &'static str;
    fn about(&self) -> &'static str;
    fn operands(&self) -> &'static [Operand];
    fn sections(&self) -> Vec<SectionDoc>;
    fn subcommands(&self) -> &'static [&'static dyn Described];
    fn tail(&self) -> &'static str;
}

/// A section of flags, as documented.
pub(super) struct SectionDoc {
    pub title: &'static str,
    pub note: &'static str,
    pub flags: Vec<FlagDoc>,
}

/// A flag, as documented.
pub(super) struct FlagDoc {
    pub spelling: Spelling<'static>,
    pub value_name: &'static str,
    pub help: String,
    pub value: ValueDoc,
}

/// What a flag's value is, for the completions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ValueDoc {
    None,
    File,
    Directory,
    /// One of these words.
    Words(&'static [&'static str]),
    /// Anything else (a number, a name).
    Other,
}

impl FlagDoc {
    /// The option as written, with its value: `-s SIZE`, `--drop-caches[=all]`.
    pub fn label(&self) -> String {
        let spelling = self.spelling.to_string();
        match self.value_name {
            "" => spelling,
            attached if attached.starts_with('[') => format!("{spelling}{attached}"),
            value => format!("{spelling} {value}"),
        }
    }
}

impl<T: Target> Described for Grammar<T> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn summary(&self) -> &'static str {
        self.summary
    }

    fn about(&self) -> &'static str {
        self.about
    }

    fn operands(&self) -> &'static [Operand] {
        self.operands
    }

    fn sections(&self) -> Vec<SectionDoc> {
        self.sections
            .iter()
            .map(|s| SectionDoc {
                title: s.title,
                note: s.note,
                flags: s.flags.iter().map(flag_doc).collect(),
            })
            .collect()
    }

    fn subcommands(&self) -> &'static [&'static dyn Described] {
        self.subcommands
    }

    fn tail(&self) -> &'static str {
        self.tail
    }
}

fn flag_doc<T>(flag: &Flag<T>) -> FlagDoc {
    let value = match &flag.action {
        Action::Switch(_) | Action::Help | Action::Version | Action::NotSupported(_) => {
            ValueDoc::None
        }
        Action::Path(PathKind::Directory, _) | Action::Output(_, PathKind::Directory, _) => {
            ValueDoc::Directory
        }
        Action::Path(..) | Action::Paths(..) | Action::Output(..) => ValueDoc::File,
        Action::Choice(choice, _) => ValueDoc::Words(choice.names),
        Action::Number(..) | Action::Word(..) | Action::Text(_) | Action::Percent(..) => {
            ValueDoc::Other
        }
    };
    FlagDoc {
        spelling: flag.spelling,
        value_name: flag.value_name,
        help: flag.help_line(),
        value,
    }
}
