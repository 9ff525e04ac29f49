//! What a run measured: plain data, serialisable, rendered by the exporters.

use serde::{Deserialize, Serialize};

use crate::config::{OutputUnit, RunConfig};
use crate::env::Environment;
use crate::plan::Cell;
use crate::workload::Pass;

/// One timed pass over one cell.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub pass: Pass,
    pub file_bytes: u64,
    pub record_bytes: u64,
    /// Workers that ran the pass together (1 outside throughput mode).
    pub workers: u32,
    /// Bytes the pass moved (checked against what it should move).
    pub bytes: u64,
    /// Records moved (a vectored call moves several).
    pub records: u64,
    pub elapsed_ns: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
}

impl Measurement {
    fn seconds(&self) -> f64 {
        self.elapsed_ns.max(1) as f64 / 1e9
    }

    /// kB/s with kB = 1024 bytes, truncated as IOzone prints it.
    pub fn kb_per_sec(&self) -> u64 {
        ((self.bytes as f64 / self.seconds()) as u64) >> 10
    }

    pub fn ops_per_sec(&self) -> u64 {
        (self.records as f64 / self.seconds()) as u64
    }

    pub fn micros_per_op(&self) -> u64 {
        (1e6 * self.seconds() / self.records.max(1) as f64) as u64
    }

    /// The number the table and `-R` report show for this pass.
    pub fn value(&self, unit: OutputUnit) -> u64 {
        match unit {
            OutputUnit::KbPerSec => self.kb_per_sec(),
            OutputUnit::OpsPerSec => self.ops_per_sec(),
            OutputUnit::MicrosPerOp => self.micros_per_op(),
        }
    }
}

/// The passes measured on one cell (one table row).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CellResult {
    pub cell: Cell,
    pub measurements: Vec<Measurement>,
}

impl CellResult {
    pub fn get(&self, pass: Pass) -> Option<&Measurement> {
        self.measurements.iter().find(|m| m.pass == pass)
    }
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Complete,
    /// Stopped by this signal number at a record boundary.
    Interrupted(i32),
    /// Ended by an I/O error (the message names path, operation and offset).
    Failed(String),
}

/// Version of the JSON layout of [`RunResult`]; bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub schema_version: u32,
    pub tool_version: String,
    pub config: RunConfig,
    /// `Run began` as ctime(3) prints it, local time (for the text report).
    pub started: String,
    /// Start and end of the run, RFC 3339 UTC.
    pub started_at: String,
    pub finished_at: String,
    pub environment: Environment,
    pub time_resolution_ns: u64,
    pub cells: Vec<CellResult>,
    pub status: RunStatus,
}

/// A finished run around the given rows, with fixed times and environment:
/// input for exporter tests.
#[cfg(test)]
pub(crate) fn sample_result(config: RunConfig, cells: Vec<CellResult>) -> RunResult {
    RunResult {
        schema_version: SCHEMA_VERSION,
        tool_version: "0.0.0-test".into(),
        config,
        started: "Sat Nov 21 21:05:03 2026".into(),
        started_at: "2026-11-21T21:05:03Z".into(),
        finished_at: "2026-11-21T21:05:09Z".into(),
        environment: Environment::default(),
        time_resolution_ns: 20,
        cells,
        status: RunStatus::Complete,
    }
}
