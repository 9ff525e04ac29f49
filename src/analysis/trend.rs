//! `ioz history trend`'s table (seed 003): rows are runs by date with
//! their labels, columns the tests, each value the chosen cell's rate or
//! the test's mean over the cells every run shares; below them, ratio rows
//! of each run against a reference label's run nearest in time.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::compare::Verdict;
use super::samples::{CellKey, SampleSet, Test, higher_is_better, unit_name};
use crate::model::config::OutputUnit;
use crate::model::dates::to_epoch;
use crate::model::env_facts::Difference;
use crate::model::environment::Environment;
use crate::model::workload::Pass;

/// One run of the history, as the trend reads it.
pub struct TrendRun {
    pub id: i64,
    /// RFC 3339; rows are in this order (the caller sorts).
    pub date: String,
    pub label: Option<String>,
    pub samples: SampleSet,
    /// The machine it ran on (`None` for an imported IOzone log).
    pub environment: Option<Environment>,
}

pub struct TrendOptions {
    /// One cell (file bytes, record bytes), or each test's mean over the
    /// shared cells.
    pub cell: Option<(u64, u64)>,
    /// The tests shown; empty: every test any run has.
    pub passes: Vec<Pass>,
    /// Ratio rows against the runs of this label.
    pub ratio_to: Option<String>,
    /// Ratios within ± this many percent are "same".
    pub band_percent: f64,
}

#[derive(Debug, Serialize)]
pub struct Trend {
    /// The unit's name (kB/s, ops/s, µs/op).
    pub unit: &'static str,
    #[serde(skip)]
    pub output_unit: OutputUnit,
    pub higher_is_better: bool,
    /// What each value is, in words.
    pub basis: String,
    pub band_percent: f64,
    pub tests: Vec<&'static str>,
    pub rows: Vec<TrendRow>,
    pub ratio_to: Option<String>,
    pub ratios: Vec<RatioRow>,
    /// What changed in the environment from each run to the one before it
    /// of its label that recorded one (runs whose environment matches it
    /// are left out).
    pub environment_changes: Vec<EnvironmentChange>,
}

/// The settings that differ between a run's environment and the previous
/// run's of its label (in date order, among runs that recorded one): two
/// labels measured on purpose on two file systems differ by them, and
/// that is no change.
#[derive(Debug, Serialize)]
pub struct EnvironmentChange {
    pub id: i64,
    pub previous_id: i64,
    pub differences: Vec<Difference>,
}

/// Each run's environment against the previous one recorded of its label
/// (runs without a label are one), kept where something differs.
fn environment_changes(runs: &[TrendRun]) -> Vec<EnvironmentChange> {
    let mut changes = Vec::new();
    let mut previous: BTreeMap<Option<&str>, (i64, &Environment)> = BTreeMap::new();
    for run in runs {
        let Some(env) = &run.environment else {
            continue;
        };
        let label = run.label.as_deref();
        if let Some(&(previous_id, before)) = previous.get(&label) {
            let differences = before.differences(env);
            if !differences.is_empty() {
                changes.push(EnvironmentChange {
                    id: run.id,
                    previous_id,
                    differences,
                });
            }
        }
        previous.insert(label, (run.id, env));
    }
    changes
}

#[derive(Debug, Serialize)]
pub struct TrendRow {
    pub id: i64,
    pub date: String,
    pub label: Option<String>,
    /// One per test; `None` where the run has no value.
    pub values: Vec<Option<f64>>,
}

#[derive(Debug, Serialize)]
pub struct RatioRow {
    pub id: i64,
    pub date: String,
    pub label: Option<String>,
    /// The reference run it is divided by.
    pub reference_id: i64,
    pub values: Vec<Option<f64>>,
    #[serde(serialize_with = "verdict_names")]
    pub verdicts: Vec<Option<Verdict>>,
}

fn verdict_names<S: serde::Serializer>(v: &[Option<Verdict>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(v.iter().map(|v| v.map(Verdict::name)))
}

/// Every pass a test of the table can be named by (`-h` and refusals list them).
pub const PASSES: [Pass; 22] = [
    Pass::Write,
    Pass::Rewrite,
    Pass::Read,
    Pass::Reread,
    Pass::RandomRead,
    Pass::RandomWrite,
    Pass::BackwardRead,
    Pass::RecordRewrite,
    Pass::StrideRead,
    Pass::Fwrite,
    Pass::Frewrite,
    Pass::Fread,
    Pass::Freread,
    Pass::RandomMix,
    Pass::Pwrite,
    Pass::Repwrite,
    Pass::Pread,
    Pass::Repread,
    Pass::Pwritev,
    Pass::Repwritev,
    Pass::Preadv,
    Pass::Repreadv,
];

/// A test named as people write it: `random read`, `random_read`,
/// `random-read`, `randomread`.
pub fn pass_named(name: &str) -> Option<Pass> {
    let squash = |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase()
    };
    let want = squash(name);
    PASSES.into_iter().find(|p| squash(p.name()) == want)
}

/// The trend of `runs` (in date order).
pub fn trend(runs: &[TrendRun], options: &TrendOptions) -> Result<Trend, String> {
    let Some(first) = runs.first() else {
        return Err("no runs to show".into());
    };
    let unit = first.samples.unit;
    if let Some(other) = runs.iter().find(|r| r.samples.unit != unit) {
        return Err(format!(
            "run {} is in {} and run {} in {}; pick runs of one unit (--label)",
            first.id,
            unit_name(unit),
            other.id,
            unit_name(other.samples.unit)
        ));
    }
    let present: BTreeSet<Pass> = runs
        .iter()
        .flat_map(|r| r.samples.cells.keys().filter_map(|k| k.pass.pass()))
        .collect();
    let passes: Vec<Pass> = if options.passes.is_empty() {
        present.into_iter().collect()
    } else {
        options.passes.clone()
    };
    // The cells a test's mean is taken over: those every run has.
    let shared: Vec<BTreeSet<CellKey>> = passes
        .iter()
        .map(|&p| {
            let mut sets = runs.iter().map(|r| {
                r.samples
                    .cells
                    .keys()
                    .filter(|k| k.pass == Test::Pass(p))
                    .copied()
                    .collect::<BTreeSet<_>>()
            });
            let first = sets.next().unwrap_or_default();
            sets.fold(first, |acc, s| acc.intersection(&s).copied().collect())
        })
        .collect();
    let value = |run: &TrendRun, i: usize| -> Option<f64> {
        let mean = |k: &CellKey| run.samples.cells.get(k).and_then(|v| mean(v));
        match options.cell {
            Some((file, record)) => {
                let key = CellKey {
                    pass: Test::Pass(passes[i]),
                    workers: None,
                    file_bytes: file,
                    record_bytes: record,
                };
                mean(&key)
            }
            None => mean_of(shared[i].iter().filter_map(mean)),
        }
    };
    let rows: Vec<TrendRow> = runs
        .iter()
        .map(|r| TrendRow {
            id: r.id,
            date: r.date.clone(),
            label: r.label.clone(),
            values: (0..passes.len()).map(|i| value(r, i)).collect(),
        })
        .collect();
    let better = higher_is_better(unit);
    let ratios = match &options.ratio_to {
        None => Vec::new(),
        Some(reference) => ratio_rows(&rows, reference, options.band_percent, better)?,
    };
    let basis = match options.cell {
        Some((f, r)) => format!(
            "the cell of {} kB files in {} kB records",
            f / 1024,
            r / 1024
        ),
        None => {
            let counts: BTreeSet<usize> = shared.iter().map(BTreeSet::len).collect();
            match (counts.len(), counts.first()) {
                (1, Some(n)) => format!("each test's mean over the {n} cell(s) every run shares"),
                _ => "each test's mean over the cells every run shares".to_string(),
            }
        }
    };
    Ok(Trend {
        unit: unit_name(unit),
        output_unit: unit,
        higher_is_better: better,
        basis,
        band_percent: options.band_percent,
        tests: passes.iter().map(|p| p.name()).collect(),
        rows,
        ratio_to: options.ratio_to.clone(),
        ratios,
        environment_changes: environment_changes(runs),
    })
}

/// Each run not of `reference` against the reference run nearest it in
/// time, of two as near the earlier (as `ioz history trend -h` says); a
/// date that cannot be read is as far as can be.
fn ratio_rows(
    rows: &[TrendRow],
    reference: &str,
    band: f64,
    better: bool,
) -> Result<Vec<RatioRow>, String> {
    let refs: Vec<&TrendRow> = rows
        .iter()
        .filter(|r| r.label.as_deref() == Some(reference))
        .collect();
    if refs.is_empty() {
        return Err(format!(
            "--ratio-to {reference}: no run with that label among the runs shown"
        ));
    }
    let distance = |a: &str, b: &str| match (to_epoch(a), to_epoch(b)) {
        (Some(a), Some(b)) => a.abs_diff(b),
        _ => u64::MAX,
    };
    Ok(rows
        .iter()
        .filter(|r| r.label.as_deref() != Some(reference))
        .map(|row| {
            // The rows are in date order: on a tie, the first found is the earlier.
            let base = refs
                .iter()
                .min_by_key(|r| distance(&r.date, &row.date))
                .unwrap_or(&refs[0]);
            let values: Vec<Option<f64>> = row
                .values
                .iter()
                .zip(&base.values)
                .map(|(v, b)| match (v, b) {
                    (Some(v), Some(b)) if *b > 0.0 => Some(v / b),
                    _ => None,
                })
                .collect();
            RatioRow {
                id: row.id,
                date: row.date.clone(),
                label: row.label.clone(),
                reference_id: base.id,
                verdicts: values
                    .iter()
                    .map(|v| v.map(|r| Verdict::of_ratio(r, band, better)))
                    .collect(),
                values,
            }
        })
        .collect())
}

fn mean(v: &[f64]) -> Option<f64> {
    mean_of(v.iter().copied())
}

fn mean_of(v: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, sum) = v.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(id: i64, date: &str, label: &str, cells: &[(Pass, u64, f64)]) -> TrendRun {
        let mut samples = SampleSet::new(OutputUnit::KbPerSec);
        for &(pass, file, v) in cells {
            samples.add(
                CellKey {
                    pass: crate::analysis::samples::Test::Pass(pass),
                    workers: None,
                    file_bytes: file,
                    record_bytes: 4096,
                },
                v,
            );
        }
        TrendRun {
            id,
            date: date.into(),
            label: Some(label.into()),
            samples,
            environment: None,
        }
    }

    fn options() -> TrendOptions {
        TrendOptions {
            cell: None,
            passes: Vec::new(),
            ratio_to: None,
            band_percent: 5.0,
        }
    }

    #[test]
    fn a_tests_value_is_its_mean_over_the_shared_cells() {
        let runs = [
            run(
                1,
                "2007-09-06",
                "jffs2",
                &[(Pass::Write, 64, 100.0), (Pass::Write, 128, 200.0)],
            ),
            // 256 is not shared: left out of every mean.
            run(
                2,
                "2008-06-12",
                "jffs2",
                &[
                    (Pass::Write, 64, 300.0),
                    (Pass::Write, 128, 500.0),
                    (Pass::Write, 256, 9e9),
                ],
            ),
        ];
        let t = trend(&runs, &options()).unwrap();
        assert_eq!(t.tests, ["write"]);
        assert_eq!(t.rows[0].values, [Some(150.0)]);
        assert_eq!(t.rows[1].values, [Some(400.0)]);
        assert!(t.basis.contains("2 cell(s)"), "{}", t.basis);
        let one = TrendOptions {
            cell: Some((256, 4096)),
            ..options()
        };
        let t = trend(&runs, &one).unwrap();
        assert_eq!(t.rows[0].values, [None]);
        assert_eq!(t.rows[1].values, [Some(9e9)]);
    }

    #[test]
    fn ratio_rows_divide_by_the_reference_of_the_same_day() {
        let runs = [
            run(
                1,
                "2008-01-01T00:00:00Z",
                "jffs2",
                &[(Pass::Write, 64, 100.0)],
            ),
            run(
                2,
                "2008-01-01T01:00:00Z",
                "ubifs",
                &[(Pass::Write, 64, 300.0)],
            ),
            run(
                3,
                "2008-06-12T00:00:00Z",
                "jffs2",
                &[(Pass::Write, 64, 200.0)],
            ),
            run(
                4,
                "2008-06-12T01:00:00Z",
                "ubifs",
                &[(Pass::Write, 64, 190.0)],
            ),
        ];
        let t = trend(
            &runs,
            &TrendOptions {
                ratio_to: Some("jffs2".into()),
                ..options()
            },
        )
        .unwrap();
        assert_eq!(t.ratios.len(), 2);
        assert_eq!(
            (t.ratios[0].reference_id, t.ratios[0].values[0]),
            (1, Some(3.0))
        );
        assert_eq!(t.ratios[0].verdicts[0], Some(Verdict::Faster));
        assert_eq!(
            (t.ratios[1].reference_id, t.ratios[1].values[0]),
            (3, Some(0.95))
        );
        assert_eq!(t.ratios[1].verdicts[0], Some(Verdict::Same));
        let e = trend(
            &runs,
            &TrendOptions {
                ratio_to: Some("yaffs".into()),
                ..options()
            },
        )
        .unwrap_err();
        assert!(e.contains("--ratio-to yaffs"), "{e}");
    }

    #[test]
    fn a_ratio_divides_by_the_reference_run_nearest_in_time() {
        let cells = |v: f64| [(Pass::Write, 64, v)];
        // The case: a ubifs run 2 s after a jffs2 run was ratioed to
        // one 23 s away, the choice looking like a calendar day.
        let runs = [
            run(1, "2026-11-25T23:59:40Z", "jffs2", &cells(100.0)),
            run(2, "2026-11-26T00:00:01Z", "jffs2", &cells(200.0)),
            run(3, "2026-11-26T00:00:03Z", "ubifs", &cells(210.0)),
            run(4, "2026-11-26T00:00:20Z", "ubifs", &cells(300.0)),
            // Run 4 is as near run 2 as run 5 (19 s): the earlier.
            run(5, "2026-11-26T00:00:39Z", "jffs2", &cells(150.0)),
        ];
        let t = trend(
            &runs,
            &TrendOptions {
                ratio_to: Some("jffs2".into()),
                ..options()
            },
        )
        .unwrap();
        let used: Vec<(i64, i64)> = t.ratios.iter().map(|r| (r.id, r.reference_id)).collect();
        assert_eq!(used, [(3, 2), (4, 2)]);
        assert_eq!(t.ratios[0].values[0], Some(1.05));
    }

    #[test]
    fn tests_are_named_as_people_write_them() {
        assert_eq!(pass_named("random read"), Some(Pass::RandomRead));
        assert_eq!(pass_named("random_read"), Some(Pass::RandomRead));
        assert_eq!(pass_named("Fwrite"), Some(Pass::Fwrite));
        assert_eq!(pass_named("bogus"), None);
    }

    #[test]
    fn a_changed_scheduler_between_runs_is_named_before_the_numbers() {
        use crate::model::environment::DeviceInfo;
        let with_scheduler = |name: &str| {
            let mut env = Environment::default();
            env.target.device = Some(DeviceInfo {
                name: "loop0".into(),
                scheduler: Some(name.into()),
                ..DeviceInfo::default()
            });
            Some(env)
        };
        let cells = [(Pass::Write, 65536, 100.0)];
        let mut runs = vec![
            run(1, "2026-11-01T00:00:00Z", "a", &cells),
            run(2, "2026-11-02T00:00:00Z", "a", &cells),
            run(3, "2026-11-03T00:00:00Z", "a", &cells),
            run(4, "2026-11-04T00:00:00Z", "a", &cells),
        ];
        runs[0].environment = with_scheduler("none");
        runs[1].environment = with_scheduler("none");
        // Run 3 is an imported IOzone log: no environment, skipped.
        runs[3].environment = with_scheduler("mq-deadline");
        let t = trend(&runs, &options()).unwrap();
        assert_eq!(
            t.environment_changes.len(),
            1,
            "{:?}",
            t.environment_changes
        );
        let change = &t.environment_changes[0];
        assert_eq!((change.id, change.previous_id), (4, 2));
        assert_eq!(change.differences.len(), 1);
        assert_eq!(change.differences[0].name, "scheduler");
        assert_eq!(change.differences[0].new.as_deref(), Some("mq-deadline"));
        // Two labels on two settings on purpose: each label against its own
        // runs, where nothing changed.
        runs[1].label = Some("b".into());
        runs[1].environment = with_scheduler("mq-deadline");
        runs[3].label = Some("b".into());
        let t = trend(&runs, &options()).unwrap();
        assert!(
            t.environment_changes.is_empty(),
            "{:?}",
            t.environment_changes
        );
    }
}
