//! `--rules` on the page: the run's stamp in one line under the title,
//! and `[INVALID]` (or `[NOT CHECKABLE]`) on every cell and phase shown
//! whose stamp is not valid, its reasons in the title.

use std::fmt::Write as _;

use crate::model::result::{PhaseResult, RunResult};
use crate::model::rules::{CellStamp, Stamp};
use crate::model::workload::Pass;
use crate::report::text::stamp::mark;
use crate::report::web::esc;

/// The run's line (empty when it claimed no rules): the verdict and each
/// reason.
pub(super) fn stamp_line(h: &mut String, result: &RunResult) {
    let Some(stamp) = &result.stamp else {
        return;
    };
    let class = match stamp.run {
        Stamp::Valid => "stamp-valid",
        Stamp::Invalid { .. } => "stamp-invalid",
        Stamp::NotCheckable { .. } => "stamp-unchecked",
    };
    let lines = stamp.run.lines();
    let _ = write!(
        h,
        "<div class=\"stamp {class}\"><strong>{} Rules {}: the run is {}{}</strong>",
        mark(&stamp.run),
        esc(stamp.rules.name()),
        stamp.run.word(),
        match lines.len() {
            0 => String::new(),
            1 => " (1 reason)".to_string(),
            n => format!(" ({n} reasons)"),
        }
    );
    if !lines.is_empty() {
        h.push_str("<ul>");
        for line in lines {
            let _ = write!(h, "<li>{}</li>", esc(line));
        }
        h.push_str("</ul>");
    }
    h.push_str("</div>\n");
}

/// A cell's pass that is not valid: its mark and reasons, for its row or
/// title.
pub(super) fn cell_mark(
    result: &RunResult,
    pass: Pass,
    file_bytes: u64,
    record_bytes: u64,
) -> Option<(&'static str, String)> {
    not_valid(
        result
            .stamp
            .as_ref()?
            .cell(pass, file_bytes, record_bytes)?,
    )
}

/// A throughput phase that is not valid: its mark and reasons.
pub(super) fn phase_mark(
    result: &RunResult,
    phase: &PhaseResult,
) -> Option<(&'static str, String)> {
    let stamp = result.stamp.as_ref()?;
    not_valid(stamp.phase(
        phase.pass,
        phase.file_bytes,
        phase.record_bytes,
        phase.workers,
    )?)
}

fn not_valid(cell: &CellStamp) -> Option<(&'static str, String)> {
    match cell.stamp {
        Stamp::Valid => None,
        ref other => Some((mark(other), other.lines().join("; "))),
    }
}

/// The number of `pass`'s cells stamped invalid, for its heading.
pub(super) fn invalid_count(result: &RunResult, pass: Pass) -> usize {
    result.stamp.as_ref().map_or(0, |s| {
        s.cells
            .iter()
            .filter(|c| c.pass == pass && c.stamp.is_invalid())
            .count()
    })
}
