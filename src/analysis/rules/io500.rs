//! IO500's run rules as ioz can meet them: every write phase runs at least
//! 300 s and every worker finishes its share (IO500's stonewall with
//! wear-out; IOzone's stonewalling, which stops the workers as the first
//! finishes, leaves bytes uncounted: -x turns it off), every worker (and
//! rank) counted, incompressible data (ioz's default; not `--data iozone`
//! nor -+w's dedupable data), and the result and history files off the
//! file system under test.

use crate::model::config::DataPattern;
use crate::model::result::RunResult;
use crate::model::rules::Stamp;
use crate::model::workload::Direction;

use super::{Round, Subject, from_reasons};

/// A write phase's shortest time.
pub const MIN_WRITE_SECONDS: u64 = 300;

pub fn judge(_result: &RunResult, subject: &Subject<'_>) -> Stamp {
    let mut reasons = Vec::new();
    let writes = subject.pass.direction() != Direction::Read;
    for (i, round) in subject.rounds.iter().enumerate() {
        let seconds = round.elapsed_ns() as f64 / 1e9;
        if writes && round.elapsed_ns() < MIN_WRITE_SECONDS * 1_000_000_000 {
            reasons.push(format!(
                "write phase of run {} ran {seconds:.3} s, under IO500's {MIN_WRITE_SECONDS} s",
                i + 1
            ));
        }
        if let Round::Phase(phase) = round {
            let stopped = phase.results.iter().filter(|w| w.stonewalled).count();
            if stopped > 0 {
                reasons.push(format!(
                    "stonewalled: {stopped} of {} workers stopped before their share was written (IO500's wear-out has every worker finish; -x)",
                    phase.workers
                ));
            }
            if phase.results.len() != phase.workers as usize {
                reasons.push(format!(
                    "{} of {} workers counted",
                    phase.results.len(),
                    phase.workers
                ));
            }
        }
    }
    from_reasons(reasons)
}

/// The run's data and where its files lie.
pub fn judge_run(result: &RunResult) -> Stamp {
    let config = &result.config;
    let mut reasons = Vec::new();
    if config.data == DataPattern::Iozone {
        reasons.push("--data iozone writes compressible data (IO500: incompressible)".into());
    }
    if config.variations.dedup.any() {
        reasons.push("-+w writes dedupable data (IO500: incompressible)".into());
    }
    let target = &result.environment.target;
    for place in &result.environment.result_places {
        let same_fs =
            matches!((&place.file_system, &target.file_system), (Some(a), Some(b)) if a == b);
        let same_mount = !place.mount_point.is_empty() && place.mount_point == target.mount_point;
        if same_fs || same_mount {
            reasons.push(format!(
                "the {} file {} is on the file system under test ({}{})",
                place.role,
                place.path,
                target.mount_point,
                target
                    .file_system
                    .as_deref()
                    .map(|d| format!(", device {d}"))
                    .unwrap_or_default()
            ));
        }
    }
    let mut why = Vec::new();
    if result.environment.result_places.is_empty() && !config.outputs.is_empty() {
        why.push("where the result files lie was not recorded".to_string());
    }
    match from_reasons(reasons) {
        Stamp::Valid if !why.is_empty() => Stamp::NotCheckable { why },
        stamp => stamp,
    }
}
