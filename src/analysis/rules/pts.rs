//! SNIA PTS steady state as a rule set: each cell's tracking variable (its
//! rate) over its rounds — the repetitions of `--runs`, or with one run the
//! windows of its `--interval` series — reaches steady state
//! (`steady::first_steady`) within 25 rounds.

use crate::model::rules::{CellStamp, Stamp, SteadyWindow};

use super::Subject;
use crate::model::steady::{self, MAX_ROUNDS, WINDOW};

/// The tracking variable, a value a round: each run's rate, or with one
/// run its whole intervals' rates.
pub fn series(subject: &Subject<'_>) -> Vec<f64> {
    match subject.rounds.as_slice() {
        [one] if !one.intervals().is_empty() => one
            .intervals()
            .iter()
            .filter(|i| !i.partial)
            .map(|i| i.bytes as f64 / (i.length_ns.max(1) as f64 / 1e9))
            .collect(),
        rounds => rounds.iter().map(|r| r.rate()).collect(),
    }
}

pub fn judge(subject: &Subject<'_>) -> CellStamp {
    let series = series(subject);
    let (stamp, steady) = match steady::first_steady(&series) {
        Some((first, check)) => (
            Stamp::Valid,
            Some(SteadyWindow {
                first: first as u32,
                last: (first + WINDOW - 1) as u32,
                mean: check.mean,
                range: check.range,
                excursion: check.excursion,
            }),
        ),
        None => {
            let reason = match steady::last_window(&series) {
                None => format!(
                    "{} round{}: SNIA's steady state needs a window of {WINDOW} (--runs, --until-steady)",
                    series.len(),
                    if series.len() == 1 { "" } else { "s" }
                ),
                Some(last) => format!(
                    "not steady within {} rounds: the last window's {}",
                    series.len().min(MAX_ROUNDS),
                    last.words()
                ),
            };
            (
                Stamp::Invalid {
                    reasons: vec![reason],
                },
                None,
            )
        }
    };
    CellStamp {
        pass: subject.pass,
        file_bytes: subject.file_bytes,
        record_bytes: subject.record_bytes,
        workers: subject.workers,
        stamp,
        steady,
    }
}
