//! What `ioz fileop` and `ioz mdtest` take besides their own letters: the
//! result files (--json, --csv, --html), --runs, --label, --latency, the
//! history, --quiet and --force, each defined once (shared.rs) and kept
//! here for both; and the run configuration a metadata command becomes,
//! made by the run's own validator (validate.rs) so that everything a run
//! checks about those options is checked alike.

use std::path::PathBuf;

use super::grammar::{Flag, Section};
use super::seen::Seen;
use super::{UsageError, shared, validate};
use crate::model::config::{HistoryChoice, OutputUnit, RunConfig};
use crate::model::formats::{Format, OutputFiles};
use crate::model::host::Host;
use crate::model::latency::LatencyOptions;
use crate::model::metadata::MetadataConfig;

/// The options both metadata commands share, as seen.
#[derive(Default)]
pub(super) struct CommonSeen {
    outputs: OutputFiles,
    runs: Option<u32>,
    label: Option<String>,
    history: HistoryChoice,
    quiet: bool,
    force: bool,
    latency: bool,
    percentiles: Option<String>,
}

impl CommonSeen {
    /// `--runs`, taken out (mdtest reads it as its iterations).
    pub(super) fn take_runs(&mut self) -> Option<u32> {
        self.runs.take()
    }
}

/// A metadata command's seen options, which hold the shared ones.
pub(super) trait HasCommon {
    fn common(&mut self) -> &mut CommonSeen;
}

/// The shared options' section, for a command whose seen options are `T`.
pub(super) const fn common_flags<T: HasCommon>() -> [Flag<T>; 11] {
    [
        shared::output(Format::Json, |s: &mut T| &mut s.common().outputs),
        shared::output(Format::Csv, |s: &mut T| &mut s.common().outputs)
            .said("one row per operation, force factor (or phase) and run"),
        shared::output(Format::Html, |s: &mut T| &mut s.common().outputs)
            .said("a self-contained HTML report: a chart per operation"),
        shared::runs(
            "measure everything N times, one repetition after the other: the \
             table shows each operation's mean, then its spread and 95 % interval",
            |s: &mut T, n| s.common().runs = Some(n as u32),
        ),
        shared::label(|s: &mut T, name| s.common().label = Some(name.to_string())),
        shared::latency(
            "a latency table after the results: each operation's min, percentiles \
             and max in µs (every operation is always timed and its histogram saved)",
            |s: &mut T| s.common().latency = true,
        ),
        shared::percentiles(|s: &mut T, list| s.common().percentiles = Some(list.to_string())),
        shared::history_dir(
            "record the run in the history in DIR (see ioz history -h)",
            |s: &mut T, dir| s.common().history.dir = Some(dir),
        ),
        shared::no_history(|s: &mut T| s.common().history.off = true),
        shared::quiet(|s: &mut T| s.common().quiet = true),
        shared::force(
            "replace an existing result file that ioz did not write",
            |s: &mut T| s.common().force = true,
        ),
    ]
}

/// The section that lists them, under the command's own.
pub(super) const fn common_section<T: HasCommon>(flags: &'static [Flag<T>]) -> Section<T> {
    Section {
        title: "Results, repetitions and latency (ioz's own)",
        note: "",
        flags,
    }
}

/// The run a metadata command is: `metadata` in a run configuration made
/// by the run's validator from the shared options (so --label, --runs,
/// --percentiles and the result paths are checked as a run checks them),
/// with no IOzone test, its numbers in operations per second and `-d` (a
/// name under it: the tree is made there) as its path.
pub(super) fn run_config(
    common: CommonSeen,
    metadata: MetadataConfig,
    runs: Option<u32>,
    command_line: Vec<String>,
    host: &Host,
) -> Result<RunConfig, UsageError> {
    let seen = Seen {
        outputs: common.outputs,
        runs: runs.or(common.runs),
        label: common.label,
        history: common.history,
        quiet: common.quiet,
        force: common.force,
        latency: LatencyOptions {
            histograms: common.latency,
            ..LatencyOptions::default()
        },
        percentiles: common.percentiles,
        ..Seen::default()
    };
    let mut config = validate::finish(seen, command_line, host)?;
    config.tests.clear();
    config.unit = OutputUnit::OpsPerSec;
    config.path = tree_placeholder(&metadata);
    config.metadata = Some(metadata);
    Ok(config)
}

/// A path in `-d` standing for the tree (the run makes it under a unique
/// name): what the guard keeps results from, what -U checks is on its
/// mount.
fn tree_placeholder(metadata: &MetadataConfig) -> PathBuf {
    metadata
        .dir()
        .join(metadata.root_prefix().trim_end_matches('.'))
}
