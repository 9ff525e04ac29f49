//! How every view of a comparison writes its numbers and names.

use crate::analysis::compare::Comparison;
use crate::analysis::samples::{CellKey, Test, unit_name};
use crate::model::units::kb_number;

pub fn unit_of(c: &Comparison) -> &'static str {
    unit_name(c.unit)
}

/// A size in kB as IOzone prints it (64, 1024, 0.5).
pub fn size_kb(bytes: u64) -> String {
    kb_number(bytes)
}

/// A ratio to three decimals.
pub fn ratio(r: f64) -> String {
    format!("{r:.3}")
}

/// A signed percentage: "+2.3 %", "-12.0 %".
pub fn percent(p: f64) -> String {
    format!("{p:+.1} %")
}

/// A p-value: four decimals, or scientific below 0.0001.
pub fn p_value(p: f64) -> String {
    if p != 0.0 && p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// A test's name, with its workers in throughput mode (a metadata
/// benchmark's ranks across an MPI job).
pub fn test_name(pass: Test, workers: Option<u32>) -> String {
    let who = match pass {
        Test::Pass(_) => "worker",
        Test::Metadata { .. } => "rank",
    };
    match workers {
        Some(1) => format!("{} (1 {who})", pass.name()),
        Some(n) => format!("{} ({n} {who}s)", pass.name()),
        None => pass.name(),
    }
}

/// A cell for people: "write 1024 kB file, 64 kB records (2 workers)",
/// "mkdir (X=3)".
pub fn cell_name(key: &CellKey) -> String {
    if let Test::Metadata { .. } = key.pass {
        return test_name(key.pass, key.workers);
    }
    let base = format!(
        "{} {} kB file, {} kB records",
        key.pass.name(),
        size_kb(key.file_bytes),
        size_kb(key.record_bytes)
    );
    match key.workers {
        Some(1) => format!("{base} (1 worker)"),
        Some(n) => format!("{base} ({n} workers)"),
        None => base,
    }
}
