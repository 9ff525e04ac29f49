//! The comparison's JSON (--json) and CSV (--csv): every cell of every
//! input, with everything the statistics found.

use std::io;

use serde::Serialize;

use super::format::size_kb;
use crate::analysis::compare::Comparison;

/// The JSON document's kind and layout version (bump on an incompatible change).
pub const COMPARE_FORMAT: &str = "ioz-compare";
pub const COMPARE_VERSION: u32 = 1;

#[derive(Serialize)]
struct Document<'a> {
    format: &'static str,
    version: u32,
    tool_version: &'static str,
    #[serde(flatten)]
    comparison: &'a Comparison,
}

pub fn render_json(c: &Comparison) -> io::Result<Vec<u8>> {
    let doc = Document {
        format: COMPARE_FORMAT,
        version: COMPARE_VERSION,
        tool_version: env!("CARGO_PKG_VERSION"),
        comparison: c,
    };
    let mut bytes = serde_json::to_vec_pretty(&doc).map_err(io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The CSV's columns, one row per input and cell.
pub const CSV_HEADER: [&str; 22] = [
    "baseline",
    "input",
    "test",
    "workers",
    "file_kb",
    "record_kb",
    "unit",
    "base_n",
    "base_mean",
    "base_sd",
    "input_n",
    "input_mean",
    "input_sd",
    "ratio",
    "percent",
    "ci_low",
    "ci_high",
    "p",
    "p_adjusted",
    "mann_whitney_p",
    "verdict",
    "basis",
];

pub fn render_csv(c: &Comparison) -> io::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_HEADER)?;
    let opt = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for pair in &c.pairs {
        for x in &pair.cells {
            w.write_record([
                c.baseline.label.clone(),
                pair.other.label.clone(),
                x.cell.pass.name().to_string(),
                x.cell.workers.map(|n| n.to_string()).unwrap_or_default(),
                size_kb(x.cell.file_bytes),
                size_kb(x.cell.record_bytes),
                super::format::unit_of(c).to_string(),
                x.base.n.to_string(),
                x.base.mean.to_string(),
                opt(x.base.sd),
                x.other.n.to_string(),
                x.other.mean.to_string(),
                opt(x.other.sd),
                x.ratio.to_string(),
                x.percent.to_string(),
                opt(x.ci_low),
                opt(x.ci_high),
                opt(x.p),
                opt(x.p_adjusted),
                opt(x.mann_whitney_p),
                x.verdict.name().to_string(),
                match x.basis {
                    crate::analysis::compare::Basis::Significance => "significance",
                    crate::analysis::compare::Basis::BandOnly => "band_only",
                }
                .to_string(),
            ])?;
        }
    }
    w.into_inner().map_err(|e| io::Error::other(e.to_string()))
}
