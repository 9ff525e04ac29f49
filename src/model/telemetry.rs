//! What a run replays with `-X` (writes) and `-Y` (reads): a summary of each
//! telemetry file, which the configuration and the JSON keep. The operations
//! themselves are loaded by `data::telemetry` and travel beside the
//! configuration, never inside it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::workload::{Direction, Pass};

/// One telemetry file, as read before the run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trace {
    pub path: PathBuf,
    /// Operations in the file (lines that are not comments).
    pub ops: u64,
    /// Sum of their sizes: what one pass replaying the file moves.
    pub bytes: u64,
    /// The largest offset + size.
    pub end: u64,
    /// The largest size.
    pub largest_op: u64,
    /// Sum of the per-operation delays, ms.
    pub delay_ms: u64,
}

/// The telemetry files of a run (at least one is given).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Telemetry {
    /// `-X`: replayed by the write and rewrite passes.
    pub write: Option<Trace>,
    /// `-Y`: replayed by the read and reread passes.
    pub read: Option<Trace>,
}

impl Telemetry {
    /// The file size of the run: the largest end over the files.
    pub fn file_bytes(&self) -> u64 {
        self.traces().map(|(_, t)| t.end).max().unwrap_or(0)
    }

    /// Each given file with its option.
    pub fn traces(&self) -> impl Iterator<Item = (&'static str, &Trace)> {
        [("-X", &self.write), ("-Y", &self.read)]
            .into_iter()
            .filter_map(|(opt, t)| t.as_ref().map(|t| (opt, t)))
    }

    /// The file a pass replays: -X for writes, -Y for reads, none otherwise.
    pub fn trace_for(&self, pass: Pass) -> Option<&Trace> {
        match pass.direction() {
            Direction::Write => self.write.as_ref(),
            Direction::Read => self.read.as_ref(),
            Direction::Mixed => None,
        }
    }
}
