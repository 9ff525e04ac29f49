//! The flags several commands take, each defined once: its spelling, what
//! it takes and its help line. A command's table says where the value goes
//! (and, where the command writes something of its own, its own words for
//! it); the run's result files come from the format list (model::formats),
//! so a new format is a new flag of every command that writes a run.

use std::path::PathBuf;

use super::grammar::Spelling::{Long, Short};
use super::grammar::{Choice, Flag, Number, Outputs};
use crate::model::config::{MAX_RUNS, PlotStyle};
use crate::model::formats::{FORMATS, Format};

/// `--json FILE`, `--csv FILE`, `--html FILE`, `--plots DIR`, `-b FILE`:
/// one flag per format of the list, in its order.
pub(super) const fn every_format<T>(outputs: Outputs<T>) -> [Flag<T>; FORMATS.len()] {
    let mut flags = [Flag::output(FORMATS[0].format, outputs); FORMATS.len()];
    let mut i = 1;
    while i < FORMATS.len() {
        flags[i] = Flag::output(FORMATS[i].format, outputs);
        i += 1;
    }
    flags
}

/// The flag of one format, for a command that writes only some.
pub(super) const fn output<T>(format: Format, outputs: Outputs<T>) -> Flag<T> {
    Flag::output(format, outputs)
}

/// `--force`: replace what ioz did not write (`help` says what, for the
/// command).
pub(super) const fn force<T>(help: &'static str, set: fn(&mut T)) -> Flag<T> {
    Flag::switch(Long("force"), help, set)
}

/// `--text`: print the text also when files are asked for.
pub(super) const fn text<T>(help: &'static str, set: fn(&mut T)) -> Flag<T> {
    Flag::switch(Long("text"), help, set)
}

/// `--runs N` (a run, `ioz fileop`, `ioz mdtest`): `help` says what is
/// repeated.
pub(super) const fn runs<T>(help: &'static str, set: fn(&mut T, u64)) -> Flag<T> {
    Flag::number(
        Long("runs"),
        "N",
        Number::count(1, MAX_RUNS as u64, "runs"),
        help,
        set,
    )
}

/// `--label NAME`: the configuration measured.
pub(super) const fn label<T>(set: fn(&mut T, &str)) -> Flag<T> {
    Flag::word(
        Long("label"),
        "NAME",
        "a name for the configuration measured",
        "name the configuration being measured (e.g. bcache-cfq): shown in the \
         header, saved in the results",
        set,
    )
}

/// `--no-history`.
pub(super) const fn no_history<T>(set: fn(&mut T)) -> Flag<T> {
    Flag::switch(
        Long("no-history"),
        "record nothing in the history (also IOZ_NO_HISTORY=1)",
        set,
    )
}

/// `--quiet`.
pub(super) const fn quiet<T>(set: fn(&mut T)) -> Flag<T> {
    Flag::switch(
        Long("quiet"),
        "no progress bar (it only shows on a terminal) and no warnings",
        set,
    )
}

/// `--latency`: `help` says what is timed.
pub(super) const fn latency<T>(help: &'static str, set: fn(&mut T)) -> Flag<T> {
    Flag::switch(Long("latency"), help, set)
}

/// `--percentiles LIST`.
pub(super) const fn percentiles<T>(set: fn(&mut T, &str)) -> Flag<T> {
    Flag::word(
        Long("percentiles"),
        "LIST",
        "a list of percentiles, such as 50,99,99.9",
        "the percentiles --latency shows and saves (default 50,90,99,99.9,99.99)",
        set,
    )
}

/// `--history DIR`: the history's directory.
pub(super) const fn history_dir<T>(help: &'static str, set: fn(&mut T, PathBuf)) -> Flag<T> {
    Flag::directory(Long("history"), "DIR", help, set)
}

/// The words of `--plot-scale`.
pub(super) const PLOT_SCALE: Choice = Choice {
    names: &PlotStyle::SCALE_NAMES,
    expected: "a plot scale (own or shared)",
    default: None,
};

/// `--plot-scale SCALE` (a run, ioz report): `set` is told whether the
/// scale is shared.
pub(super) const fn plot_scale<T>(set: fn(&mut T, &str)) -> Flag<T> {
    Flag::choice(
        Long("plot-scale"),
        "SCALE",
        PLOT_SCALE,
        "value axes of the plots and HTML: own (each test fills its plot, \
         default) or shared (one scale for every test, to compare them)",
        set,
    )
}

/// `--plot-log` (a run, ioz report).
pub(super) const fn plot_log<T>(set: fn(&mut T)) -> Flag<T> {
    Flag::switch(
        Long("plot-log"),
        "a logarithmic value axis on the plots and the HTML report",
        set,
    )
}

/// The band of the seeds: 5 %.
pub const DEFAULT_BAND: f64 = 5.0;

/// `--band PCT` (ioz compare, ioz history regressions).
pub(super) const fn band<T>(set: fn(&mut T, f64)) -> Flag<T> {
    Flag::percent(
        Long("band"),
        1000.0,
        "differences within +/- PCT % are \"same\" (default 5)",
        set,
    )
}

/// `-h`: every command's help.
pub(super) const fn help<T>() -> Flag<T> {
    Flag::help(Short('h'), "this help")
}

/// `--help`, beside `-h`.
pub(super) const fn help_long<T>() -> Flag<T> {
    Flag::help(Long("help"), "the same as -h")
}
