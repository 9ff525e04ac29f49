//! The run rules (`--rules`): one implementation of each rule set, used by
//! the run that writes its stamp and by `ioz check`, which recomputes it
//! from the saved result. Each rule set judges every cell's pass (or
//! throughput phase) over its rounds (the repetitions of `--runs`), and the
//! run as a whole; the run's stamp is all of them together
//! (`Stamp::all`).

pub mod io500;
pub mod iozone;
pub mod pts;

/// SNIA's steady-state window lives in model (the runner's --until-steady
/// asks it after each round): the same code judges the stamp.
pub use crate::model::steady;

use crate::model::intervals::Interval;
use crate::model::result::{Measurement, PhaseResult, RunResult, phase_runs};
use crate::model::rules::{CellStamp, Rules, RunStamp, Stamp};
use crate::model::workload::Pass;

/// One cell's pass, or one throughput phase, over its rounds.
pub struct Subject<'a> {
    pub pass: Pass,
    pub file_bytes: u64,
    pub record_bytes: u64,
    pub workers: u32,
    pub rounds: Vec<Round<'a>>,
}

/// One round of a subject: a run's measurement or phase.
pub enum Round<'a> {
    Pass(&'a Measurement),
    Phase(&'a PhaseResult),
}

impl Round<'_> {
    pub fn bytes(&self) -> u64 {
        match self {
            Round::Pass(m) => m.bytes,
            Round::Phase(p) => p.moved_bytes(),
        }
    }

    pub fn elapsed_ns(&self) -> u64 {
        match self {
            Round::Pass(m) => m.elapsed_ns,
            Round::Phase(p) => p.parent_elapsed_ns,
        }
    }

    /// Bytes per second: the tracking variable of `pts`.
    pub fn rate(&self) -> f64 {
        match self {
            Round::Pass(m) => m.bytes_per_sec(),
            Round::Phase(_) => self.bytes() as f64 / (self.elapsed_ns().max(1) as f64 / 1e9),
        }
    }

    pub fn intervals(&self) -> &[Interval] {
        match self {
            Round::Pass(m) => &m.intervals,
            Round::Phase(p) => &p.intervals,
        }
    }
}

/// Every subject of a run: each cell's passes, then the throughput phases.
pub fn subjects(result: &RunResult) -> Vec<Subject<'_>> {
    let mut all = Vec::new();
    for cell in &result.cells {
        for pass in cell.passes() {
            all.push(Subject {
                pass,
                file_bytes: cell.cell.file_bytes,
                record_bytes: cell.cell.record_bytes,
                workers: 1,
                rounds: cell
                    .measurements
                    .iter()
                    .filter(|m| m.pass == pass)
                    .map(Round::Pass)
                    .collect(),
            });
        }
    }
    for group in phase_runs(&result.throughput) {
        let first = group[0];
        all.push(Subject {
            pass: first.pass,
            file_bytes: first.file_bytes,
            record_bytes: first.record_bytes,
            workers: first.workers,
            rounds: group.into_iter().map(Round::Phase).collect(),
        });
    }
    all
}

/// The stamp of `result` under `rules` (None under no rules).
pub fn stamp(result: &RunResult, rules: Rules) -> Option<RunStamp> {
    let (cells, whole): (Vec<CellStamp>, Stamp) = match rules {
        Rules::None => return None,
        Rules::Iozone => (judge_each(result, iozone::judge), iozone::judge_run(result)),
        Rules::Io500 => (judge_each(result, io500::judge), io500::judge_run(result)),
        Rules::Pts => (
            subjects(result).iter().map(pts::judge).collect(),
            Stamp::Valid,
        ),
    };
    let mut whole = vec![whole];
    if result.metadata.is_some() {
        whole.push(Stamp::NotCheckable {
            why: vec![format!(
                "the {} rules are not applied to a metadata benchmark",
                rules.name()
            )],
        });
    }
    if !matches!(result.status, crate::model::result::RunStatus::Complete) {
        whole.push(Stamp::Invalid {
            reasons: vec!["the run did not complete".into()],
        });
    }
    let run = Stamp::all(whole.iter().chain(cells.iter().map(|c| &c.stamp)));
    Some(RunStamp { rules, run, cells })
}

fn judge_each(result: &RunResult, judge: fn(&RunResult, &Subject<'_>) -> Stamp) -> Vec<CellStamp> {
    subjects(result)
        .iter()
        .map(|s| CellStamp {
            pass: s.pass,
            file_bytes: s.file_bytes,
            record_bytes: s.record_bytes,
            workers: s.workers,
            stamp: judge(result, s),
            steady: None,
        })
        .collect()
}

/// A stamp from the reasons found: valid when there are none.
pub(crate) fn from_reasons(reasons: Vec<String>) -> Stamp {
    if reasons.is_empty() {
        Stamp::Valid
    } else {
        Stamp::Invalid { reasons }
    }
}
