//! `--rules`: the run's stamp in text, before the closing line: a line per
//! cell that is not valid, marked `[INVALID]` (or `[NOT CHECKABLE]`) as
//! IO500 marks its phases, each reason on it, then the run's line.

use crate::model::result::RunResult;
use crate::model::rules::{RunStamp, Stamp};
use crate::model::units::Size;

/// The stamp's lines; empty when the run claimed no rules.
pub fn stamp_lines(result: &RunResult) -> String {
    result.stamp.as_ref().map(render).unwrap_or_default()
}

pub fn mark(stamp: &Stamp) -> &'static str {
    match stamp {
        Stamp::Valid => "[VALID]",
        Stamp::Invalid { .. } => "[INVALID]",
        Stamp::NotCheckable { .. } => "[NOT CHECKABLE]",
    }
}

pub fn render(stamp: &RunStamp) -> String {
    let mut s = String::from("\n");
    for cell in &stamp.cells {
        let workers = if cell.workers > 1 {
            format!(", {} workers", cell.workers)
        } else {
            String::new()
        };
        let what = format!(
            "{} {} {}, {} records{workers}",
            mark(&cell.stamp),
            cell.pass.name(),
            Size(cell.file_bytes),
            Size(cell.record_bytes)
        );
        match (&cell.stamp, &cell.steady) {
            (Stamp::Valid, Some(w)) => s.push_str(&format!(
                "{what}: steady over rounds {}-{} (range {:.1} %, excursion {:.1} % of the mean)\n",
                w.first + 1,
                w.last + 1,
                100.0 * w.range / w.mean,
                100.0 * w.excursion / w.mean
            )),
            (Stamp::Valid, None) => {}
            (other, _) => {
                for line in other.lines() {
                    s.push_str(&format!("{what}: {line}\n"));
                }
            }
        }
    }
    let lines = stamp.run.lines();
    s.push_str(&format!(
        "Rules {}: the run is {}{}\n",
        stamp.rules.name(),
        stamp.run.word().to_uppercase(),
        match lines.len() {
            0 => String::new(),
            1 => " (1 reason)".to_string(),
            n => format!(" ({n} reasons)"),
        }
    ));
    s
}
