//! mdtest's results, read as a run (mdtest has no machine format of its
//! own): its text output's `SUMMARY rate` table, and the CSV of
//! `--saveRankPerformanceDetails`.
//!
//! The SUMMARY gives each operation's max, min, mean and sd over the
//! iterations, not the iterations themselves: with two iterations they
//! are the max and the min, with three the third is 3·mean − max − min
//! (checked against the sd); with more only the mean is a sample, and the
//! comparison says so ("one sample, no test"). The CSV has each rank's
//! rate in each iteration: an iteration's sample is its ranks' rates
//! summed, as ioz sums its ranks' (the SUMMARY's is the job's, its items
//! over the slowest rank's time: the two agree within 0.1 % in the
//! reference files). Rates are operations per second.

use super::{PeerError, figure};
use crate::model::metadata::{MDTEST_ROWS, MetaOp};
use crate::model::peer::{Kept, PeerResult, PeerRun, PeerSample, PeerTest, PeerTool};
use crate::model::recorded::Recorded;

const TEXT: &str = "mdtest's output";
const CSV: &str = "mdtest's --saveRankPerformanceDetails CSV";

/// mdtest's operation named as its SUMMARY and CSV name it.
fn op_named(name: &str) -> Option<MetaOp> {
    MDTEST_ROWS.iter().copied().find(|op| op.name() == name)
}

/// The number after "-w" in mdtest's command (bytes written to each file).
fn write_bytes(command: &str) -> u64 {
    let words: Vec<String> = command
        .split_whitespace()
        .map(|w| w.trim_matches('\'').to_string())
        .collect();
    words
        .iter()
        .position(|w| w == "-w")
        .and_then(|i| words.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn result(
    op: MetaOp,
    workers: Option<u32>,
    file_bytes: u64,
    samples: Vec<f64>,
    printed: String,
) -> PeerResult {
    PeerResult {
        name: op.name().to_string(),
        test: PeerTest::Metadata(op),
        workers,
        file_bytes,
        record_bytes: 0,
        samples: samples
            .into_iter()
            .map(|s| PeerSample {
                kb_per_sec: None,
                ops_per_sec: Some(s),
            })
            .collect(),
        printed,
        latency: None,
        recorded: Recorded::default(),
        series: Vec::new(),
    }
}

/// The iterations a SUMMARY row stands for, where they can be known: all of
/// them with up to three (the sd must agree), else the mean alone.
fn iterations(n: u64, max: f64, min: f64, mean: f64, sd: f64) -> (Vec<f64>, bool) {
    let agrees = |values: &[f64]| {
        let m = values.iter().sum::<f64>() / values.len() as f64;
        let s = (values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (values.len() - 1) as f64)
            .sqrt();
        // The table prints three decimals.
        (s - sd).abs() <= 0.01 + 1e-4 * sd && (m - mean).abs() <= 0.002 + 1e-6 * mean
    };
    match n {
        1 => (vec![mean], true),
        2 if agrees(&[max, min]) => (vec![max, min], true),
        3 => {
            let third = 3.0 * mean - max - min;
            let values = [max, min, third];
            if third >= min - 0.002 && third <= max + 0.002 && agrees(&values) {
                (values.to_vec(), true)
            } else {
                (vec![mean], false)
            }
        }
        _ => (vec![mean], false),
    }
}

/// mdtest's text output.
pub(super) fn parse_text(text: &str) -> Result<PeerRun, PeerError> {
    let mut run = PeerRun::empty(PeerTool::Mdtest);
    let mut tasks = 1u64;
    let mut iterations_n = 1u64;
    let mut in_rates = false;
    let mut rows: Vec<(usize, MetaOp, [f64; 4])> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("-- started at ") {
            run.date = started(rest.trim_end_matches("--").trim());
        } else if let Some((version, rest)) = t.split_once(" was launched with ") {
            run.version = version.strip_prefix("mdtest-").map(String::from);
            tasks = rest
                .split_whitespace()
                .next()
                .and_then(|w| w.parse().ok())
                .unwrap_or(1);
        } else if let Some(c) = t.strip_prefix("Command line used:") {
            run.command = Some(c.trim().replace('\'', ""));
        } else if t.starts_with("WARNING:") || t.starts_with("Path") || t.starts_with("FS") {
            let (name, value) = t.split_once(':').unwrap_or((t, ""));
            run.kept.push(Kept {
                of: "the run".into(),
                name: name.trim().into(),
                value: value.trim().into(),
            });
        } else if let Some(rest) = t.strip_prefix("SUMMARY rate") {
            in_rates = true;
            iterations_n = rest
                .split_once("(of ")
                .and_then(|(_, r)| r.split_whitespace().next())
                .and_then(|w| w.parse().ok())
                .unwrap_or(1);
        } else if t.starts_with("SUMMARY") || t.starts_with("--") && !t.starts_with("---") {
            in_rates = false;
        } else if in_rates {
            let words: Vec<&str> = t.split_whitespace().collect();
            if words.len() < 5 || words[0].starts_with("Operation") || words[0].starts_with('-') {
                continue;
            }
            let (name, numbers) = words.split_at(words.len() - 4);
            let name = name.join(" ");
            let Some(op) = op_named(&name) else {
                run.kept.push(Kept {
                    of: name.clone(),
                    name: "SUMMARY rate".into(),
                    value: format!("{}: no counterpart in ioz", numbers.join(" ")),
                });
                continue;
            };
            let mut v = [0.0; 4];
            for (i, w) in numbers.iter().enumerate() {
                v[i] = figure(w, TEXT, n + 1, "", "rate")?;
            }
            rows.push((n + 1, op, v));
        }
    }
    let workers = (tasks > 1).then_some(tasks as u32);
    let file_bytes = run.command.as_deref().map_or(0, write_bytes);
    let mut summary_only = false;
    for (_, op, [max, min, mean, sd]) in rows {
        let (samples, all) = iterations(iterations_n, max, min, mean, sd);
        summary_only |= !all;
        run.results.push(result(
            op,
            workers,
            file_bytes,
            samples,
            format!("max {max}, min {min}, mean {mean}, sd {sd} ops/s"),
        ));
    }
    if summary_only {
        run.kept.push(Kept {
            of: "the run".into(),
            name: "iterations".into(),
            value: format!(
                "{iterations_n}: mdtest's SUMMARY gives their max, min, mean and sd only, so each operation is compared as its mean alone (one sample; --saveRankPerformanceDetails has them all)"
            ),
        });
    }
    Ok(run)
}

/// mdtest's "12/01/2026 21:15:52" (month first) as RFC 3339.
fn started(text: &str) -> Option<String> {
    let (date, time) = text.split_once(' ')?;
    let mut parts = date.split('/');
    let (m, d, y) = (parts.next()?, parts.next()?, parts.next()?);
    crate::model::dates::from_user(&format!("{y}-{m}-{d} {}", time.trim())).ok()
}

/// The CSV of `--saveRankPerformanceDetails`.
pub(super) fn parse_csv(text: &str) -> Result<PeerRun, PeerError> {
    let mut lines = text.lines().enumerate();
    let Some((_, header)) = lines.next() else {
        return Err(PeerError::NoResults {
            what: CSV,
            why: "it is empty".into(),
        });
    };
    let columns: Vec<&str> = header.split(',').collect();
    let mut run = PeerRun {
        tool: PeerTool::Mdtest,
        version: None,
        command: None,
        date: None,
        host: None,
        results: Vec::new(),
        kept: vec![Kept {
            of: "the run".into(),
            name: "version, command, date".into(),
            value: "not in mdtest's CSV (its text output has them)".into(),
        }],
        defects: Vec::new(),
    };
    // Each rank's rates, row by row (one row per iteration).
    let mut ranks: Vec<(u64, Vec<Vec<Option<f64>>>)> = Vec::new();
    for (n, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').collect();
        let bad = |why: String| PeerError::Line {
            what: CSV,
            line: n + 1,
            why,
        };
        // mdtest leaves a rank's row short of the columns it has no rate
        // for (the tree's, at the end); more than the header names is no row.
        if fields.len() > columns.len() {
            return Err(bad(format!(
                "{} fields where the header names {}",
                fields.len(),
                columns.len()
            )));
        }
        let mut rates = Vec::new();
        for (i, c) in columns.iter().enumerate() {
            if !c.starts_with("rate-") {
                continue;
            }
            let field = fields.get(i).copied().unwrap_or("");
            rates.push(if field.is_empty() {
                None
            } else {
                Some(figure(field, CSV, n + 1, c, "rate")?)
            });
        }
        match fields[0] {
            "all" => {
                let shown: Vec<String> = columns
                    .iter()
                    .zip(&fields)
                    .filter(|(c, f)| c.starts_with("rate-") && !f.is_empty())
                    .map(|(c, f)| format!("{} {f}", &c[5..]))
                    .collect();
                run.kept.push(Kept {
                    of: format!("the \"all\" row ({} items)", fields.get(1).unwrap_or(&"?")),
                    name: "rates".into(),
                    value: shown.join(", "),
                });
            }
            rank => {
                let rank: u64 = rank
                    .parse()
                    .map_err(|_| bad(format!("\"{rank}\" is neither a rank nor \"all\"")))?;
                match ranks.iter_mut().find(|(r, _)| *r == rank) {
                    Some((_, rows)) => rows.push(rates),
                    None => ranks.push((rank, vec![rates])),
                }
            }
        }
    }
    let ops: Vec<&str> = columns
        .iter()
        .filter_map(|c| c.strip_prefix("rate-"))
        .collect();
    let workers = (ranks.len() > 1).then_some(ranks.len() as u32);
    let iterations = ranks.iter().map(|(_, rows)| rows.len()).min().unwrap_or(0);
    for (i, name) in ops.iter().enumerate() {
        let mut samples = Vec::new();
        for it in 0..iterations {
            let parts: Option<Vec<f64>> = ranks.iter().map(|(_, rows)| rows[it][i]).collect();
            if let Some(parts) = parts {
                samples.push(parts.iter().sum());
            }
        }
        if samples.is_empty() {
            continue;
        }
        let Some(op) = op_named(name) else {
            run.kept.push(Kept {
                of: name.to_string(),
                name: "rates".into(),
                value: format!("{samples:?}: no counterpart in ioz"),
            });
            continue;
        };
        let printed = samples
            .iter()
            .map(|s| format!("{s:.3}"))
            .collect::<Vec<_>>()
            .join(", ");
        run.results
            .push(result(op, workers, 0, samples, format!("{printed} ops/s")));
    }
    Ok(run)
}
