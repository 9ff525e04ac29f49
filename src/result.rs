//! What a run measured: plain data, serialisable, rendered by the exporters.

use serde::Serialize;

use crate::config::{OutputUnit, RunConfig};
use crate::plan::Cell;
use crate::workload::Pass;

/// One timed pass over one cell.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measurement {
    pub pass: Pass,
    pub file_bytes: u64,
    pub record_bytes: u64,
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
#[derive(Clone, Debug, PartialEq, Serialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum RunStatus {
    Complete,
    /// Stopped by this signal number at a record boundary.
    Interrupted(i32),
    /// Ended by an I/O error (the message names path, operation and offset).
    Failed(String),
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResult {
    pub tool_version: String,
    pub config: RunConfig,
    /// `Run began` as ctime(3) prints it, local time.
    pub started: String,
    pub time_resolution_ns: u64,
    pub cells: Vec<CellResult>,
    pub status: RunStatus,
}
