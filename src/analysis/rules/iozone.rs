//! IOzone's own advice as a rule set. A device claim: the files are at
//! least 3 × RAM, or the passes bypass the page cache (-I), or the
//! measured start residency of the file is under 5 %. A durability claim
//! (a write pass): its time includes taking the data to the device (-e,
//! -c, or writes that wait for it: -o/-+D, -I).

use crate::model::result::{Measurement, PhaseResult, RunResult};
use crate::model::rules::Stamp;
use crate::model::units::Size;
use crate::model::workload::Direction;

use super::{Round, Subject, from_reasons};

/// Files at least this many times RAM measure the device.
pub const RAM_FACTOR: u64 = 3;
/// A start residency below this fraction measures the device.
pub const RESIDENCY_LIMIT: f64 = 0.05;

/// The fraction of the test file in the page cache when the pass began,
/// as measured just before its clock (`residency.start`). THE input the
/// "start residency under 5 %" alternative reads: None where residency was
/// not measured (an older run, a file system that says nothing), and the
/// criterion then says it is not checkable.
pub fn start_cached_fraction(measurement: &Measurement) -> Option<f64> {
    let start = measurement.residency.as_ref()?.start?;
    Some(start.cached_fraction())
}

/// The same of a throughput phase: every worker's file together (None when
/// any worker's was not measured).
pub fn phase_start_cached_fraction(phase: &PhaseResult) -> Option<f64> {
    Some(phase.residency()?.start?.cached_fraction())
}

/// Whether every round began with under 5 % of its file cached; None when
/// any round's residency was not measured.
fn residency_low(subject: &Subject<'_>) -> Option<bool> {
    let mut all = true;
    for round in &subject.rounds {
        let fraction = match round {
            Round::Pass(m) => start_cached_fraction(m)?,
            Round::Phase(p) => phase_start_cached_fraction(p)?,
        };
        all &= fraction < RESIDENCY_LIMIT;
    }
    Some(all)
}

pub fn judge(result: &RunResult, subject: &Subject<'_>) -> Stamp {
    let config = &result.config;
    let ram = result.environment.memory_bytes;
    if ram == 0 {
        return Stamp::NotCheckable {
            why: vec!["the machine's RAM was not recorded".into()],
        };
    }
    let mut reasons = Vec::new();
    let files = subject.file_bytes.saturating_mul(subject.workers as u64);
    let direct = config.direct(subject.pass);
    let large = files >= RAM_FACTOR.saturating_mul(ram);
    if !large && !direct {
        match residency_low(subject) {
            Some(true) => {}
            residency => reasons.push(format!(
                "device claim: files of {} are under {RAM_FACTOR} × RAM ({}), without -I; start residency under 5 %: {}",
                Size(files),
                Size(RAM_FACTOR * ram),
                match residency {
                    Some(_) => "not met".to_string(),
                    None => "not checkable: residency not measured".to_string(),
                }
            )),
        }
    }
    let writes = subject.pass.direction() != Direction::Read;
    let durable = config.fsync_in_timing
        || config.close_in_timing
        || config.open.sync_writes
        || config.open.dsync_writes
        || direct;
    if writes && !durable {
        reasons.push(
            "durability claim: the write's time does not include taking its data to the device (-e or -c)"
                .into(),
        );
    }
    from_reasons(reasons)
}

/// IOzone's advice has nothing to say of the run as a whole.
pub fn judge_run(_result: &RunResult) -> Stamp {
    Stamp::Valid
}
