//! What the runner hands out while it measures, and how the run ended.

use crate::error::{IoFailure, RunError};
use crate::model::latency::{IozoneBands, OpLatency};
use crate::model::metadata_result::{MetaMeasurement, MetadataResult};
use crate::model::result::{CellResult, Measurement, PhaseResult, RunStatus};

/// Progress of a run, in order, as soon as each step is done. The handler
/// may end the run by returning an error (results it cannot save).
#[derive(Debug)]
pub(crate) enum Event<'a> {
    /// Single and auto mode: a pass finished; with -Q, every operation's
    /// latency; with -+z, its counts in IOzone's buckets.
    PassDone {
        measurement: &'a Measurement,
        latencies: Option<&'a [OpLatency]>,
        bands: Option<&'a IozoneBands>,
    },
    /// Single and auto mode: a row is complete (or, when the run ends inside
    /// it, as complete as it got).
    RowDone(&'a CellResult),
    /// Throughput mode: a run with another worker count begins, each
    /// worker on a file of `file_bytes` in records of `record_bytes`.
    WorkersStart { file_bytes: u64, record_bytes: u64 },
    /// Throughput mode: a phase finished; with -Q, each worker's latencies
    /// (in worker order, as the phase's results); with -+z, each worker's
    /// counts in IOzone's buckets (in the same order).
    PhaseDone {
        phase: &'a PhaseResult,
        latencies: Option<&'a [Vec<OpLatency>]>,
        bands: Option<&'a [IozoneBands]>,
    },
    /// Throughput mode: the run with that worker count is over.
    WorkersEnd,
    /// A metadata benchmark: every operation of one force factor (fileop)
    /// or one iteration (mdtest) measured, on this process.
    MetadataDone(&'a [MetaMeasurement]),
}

/// How the run ended, with everything measured before the end.
#[derive(Debug)]
pub(crate) struct Outcome {
    /// Single and auto mode's rows.
    pub cells: Vec<CellResult>,
    /// Throughput mode's phases.
    pub phases: Vec<PhaseResult>,
    pub status: RunStatus,
    pub error: Option<RunError>,
    /// ioz's test files it could not remove (a file system gone read-only,
    /// EIO), each with why.
    pub left: Vec<IoFailure>,
    /// A metadata benchmark's measurements (this process's).
    pub metadata: Option<MetadataResult>,
}

impl Outcome {
    /// The status that goes with how the run ended: the error's message,
    /// else the stopping signal, else the files left behind, else complete.
    pub(crate) fn ended(
        cells: Vec<CellResult>,
        phases: Vec<PhaseResult>,
        signal: Option<i32>,
        error: Option<RunError>,
        left: Vec<IoFailure>,
    ) -> Outcome {
        let status = match (&error, signal) {
            (Some(e), _) => RunStatus::Failed(e.to_string()),
            (None, Some(sig)) => RunStatus::Interrupted(sig),
            (None, None) => match left_behind(&left) {
                Some(line) => RunStatus::Failed(line),
                None => RunStatus::Complete,
            },
        };
        Outcome {
            cells,
            phases,
            status,
            error,
            left,
            metadata: None,
        }
    }

    /// The line that says which test files were left behind and why.
    pub(crate) fn left_behind(&self) -> Option<String> {
        left_behind(&self.left)
    }
}

fn left_behind(left: &[IoFailure]) -> Option<String> {
    match left {
        [] => None,
        [one] => Some(format!(
            "left the test file {} behind: cannot remove it: {}",
            one.path.display(),
            one.source
        )),
        many => Some(format!(
            "left {} test files behind, which could not be removed: {}",
            many.len(),
            many.iter()
                .map(|f| format!("{} ({})", f.path.display(), f.source))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
