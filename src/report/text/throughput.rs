//! IOzone's throughput output: per run "Each process writes …", per phase the
//! "Children see / Parent sees / Min / Max / Avg / Min xfer" block, and with -R
//! the "Throughput report" table with worker counts as columns.

use std::fmt::Write as _;

use super::rank_lines;
use crate::analysis::summary::{Summary, summarize};
use crate::model::config::{OutputUnit, RunConfig, ThroughputConfig};
use crate::model::result::{PhaseResult, WorkerResult, mean, phase_runs};
use crate::model::stonewall::coverage;
use crate::model::units::KIB;
use crate::model::workload::Pass;

/// Lines after IOzone's preamble: -l/-u range and the first run's size.
pub fn throughput_preamble(tp: &ThroughputConfig) -> String {
    let mut s = String::new();
    let noun = tp.worker_noun();
    if let Some(min) = tp.min_workers {
        let _ = writeln!(s, "\tMin {noun} = {min} ");
    }
    if let Some(max) = tp.max_workers.or(tp.min_workers) {
        let _ = writeln!(s, "\tMax {noun} = {max} ");
    }
    let first = tp.worker_counts.first().copied().unwrap_or(1);
    let plural = if first == 1 {
        noun.to_string()
    } else if tp.threads {
        "threads".to_string()
    } else {
        "processes".to_string()
    };
    let _ = writeln!(s, "\tThroughput test with {first} {plural}");
    s
}

/// "Each process writes a 1024 Kbyte file in 64 Kbyte records".
pub fn run_header(tp: &ThroughputConfig, file_bytes: u64, record_bytes: u64) -> String {
    let noun = tp.worker_noun();
    let file = if file_bytes.is_multiple_of(KIB) {
        format!("{} Kbyte", file_bytes / KIB)
    } else {
        format!("{file_bytes} byte")
    };
    let record = if record_bytes.is_multiple_of(KIB) {
        format!("{} Kbyte", record_bytes / KIB)
    } else {
        format!("{record_bytes} byte")
    };
    format!("\tEach {noun} writes a {file} file in {record} records\n")
}

/// The phase's label after "throughput for", with IOzone's number widths and tabs;
/// the second form is the Parent line's (fwriters/freaders get an extra tab there).
fn phase_labels(pass: Pass, n: u32) -> (String, String) {
    use Pass::*;
    let (children, parent) = match pass {
        Write => (format!("{n:2} initial writers \t"), None),
        Rewrite => (format!("{n:2} rewriters \t"), None),
        Read => (format!("{n:2} readers \t\t"), None),
        Reread => (format!("{n} re-readers \t"), None),
        BackwardRead => (format!("{n} reverse readers \t"), None),
        StrideRead => (format!("{n} stride readers \t"), None),
        RandomRead => (format!("{n} random readers \t"), None),
        RandomMix => (format!("{n} mixed workload \t"), None),
        RandomWrite => (format!("{n} random writers \t"), None),
        Pwrite => (format!("{n} pwrite writers \t"), None),
        Pread => (format!("{n} pread readers \t"), None),
        Fwrite => (
            format!("{n:2} fwriters \t"),
            Some(format!("{n:2} fwriters \t\t")),
        ),
        Fread => (
            format!("{n:2} freaders \t"),
            Some(format!("{n:2} freaders \t\t")),
        ),
        Pwritev => (format!("{n} pwritev writers \t"), None),
        Preadv => (format!("{n} preadv readers \t"), None),
        other => (format!("{n} {} \t", other.name()), None),
    };
    let parent = parent.unwrap_or_else(|| children.clone());
    (children, parent)
}

/// The row label of the -R throughput report.
pub fn report_label(pass: Pass) -> &'static str {
    use Pass::*;
    match pass {
        Write => "Initial write",
        Rewrite => "Rewrite",
        Read => "Read",
        Reread => "Re-read",
        BackwardRead => "Reverse Read",
        StrideRead => "Stride read",
        RandomRead => "Random read",
        RandomMix => "Mixed workload",
        RandomWrite => "Random write",
        Pwrite => "Pwrite",
        Pread => "Pread",
        Fwrite => "Fwrite",
        Fread => "Fread",
        Pwritev => "Pwritev",
        Preadv => "Preadv",
        other => other.name(),
    }
}

fn units(unit: OutputUnit) -> (&'static str, &'static str) {
    match unit {
        OutputUnit::KbPerSec => ("KB/sec", "KB"),
        OutputUnit::OpsPerSec => ("ops/sec", "ops"),
        OutputUnit::MicrosPerOp => ("microseconds/op", "ops"),
    }
}

/// One phase's block, preceded by its blank line.
pub fn phase_block(phase: &PhaseResult, config: &RunConfig) -> String {
    repeated_phase_block(&[phase], config)
}

/// The mean of `figure` over the runs of a phase (for one run, its figure
/// exactly: the outputs of a single run stay as they were).
fn mean_over(runs: &[&PhaseResult], figure: impl Fn(&PhaseResult) -> f64) -> f64 {
    mean(runs.iter().map(|p| figure(p)))
}

/// A phase's block over its runs (`--runs`): IOzone's lines, each figure the
/// mean over the runs, then with several runs a line of each figure's mean
/// ± standard deviation.
pub fn repeated_phase_block(runs: &[&PhaseResult], config: &RunConfig) -> String {
    let Some(&phase) = runs.first() else {
        return String::new();
    };
    let unit = config.unit;
    let (rate, xfer) = units(unit);
    let (noun, nouns) = if phase.threads {
        ("thread", "threads")
    } else {
        ("process", "processes")
    };
    let (children, parent) = phase_labels(phase.pass, phase.workers);
    let figure = |i: usize| mean_over(runs, |p| p.figures(unit)[i]);
    // Label (with IOzone's tabs), value, unit, and the trailing space IOzone
    // leaves after the Min line only.
    let lines = [
        (
            format!("Children see throughput for {children}"),
            figure(0),
            rate,
            "",
        ),
        (
            format!("Parent sees throughput for {parent}"),
            figure(1),
            rate,
            "",
        ),
        (
            format!("Min throughput per {noun} \t\t\t"),
            figure(2),
            rate,
            " ",
        ),
        (
            format!("Max throughput per {noun} \t\t\t"),
            figure(3),
            rate,
            "",
        ),
        (
            format!("Avg throughput per {noun} \t\t\t"),
            figure(4),
            rate,
            "",
        ),
        ("Min xfer \t\t\t\t\t".to_string(), figure(5), xfer, ""),
    ];
    // Cluster mode: the ranks' clocks are not one clock. The parent's view
    // is printed when rank 0 could align them, and said to be an estimate;
    // otherwise it says why not (a run saved before it could say leaves
    // the line out, as IOzone does in cluster mode).
    let across_ranks = phase.results.iter().any(|w| w.client.is_some());
    let mut s = String::from("\n");
    for (i, (label, value, unit_word, tail)) in lines.into_iter().enumerate() {
        if i == 1 && across_ranks {
            if phase.parent_estimated && rank_lines::one_clock(phase) {
                // Every rank read rank 0's clock (one host): measured.
                let _ = writeln!(s, "\t{label}= {value:10.2} {unit_word}");
            } else if phase.parent_estimated {
                let _ = writeln!(
                    s,
                    "\t{label}= {value:10.2} {unit_word} (estimated: the ranks' clocks aligned by round trips)"
                );
            } else if let Some(why) = rank_lines::parent_not_measured(phase) {
                let _ = writeln!(s, "\t{label}= {why}");
            }
            continue;
        }
        let _ = writeln!(s, "\t{label}= {value:10.2} {unit_word}{tail}");
    }
    s.push_str(&rank_lines::phase_skew_line(runs));
    if runs.len() > 1 {
        s.push_str(&spread_line(runs, unit));
    }
    let cpu = config.variations.cpu_utilisation;
    if cpu {
        let wall = mean_over(runs, |p| p.cpu_utilisation().0);
        let cpu_secs = mean_over(runs, |p| p.cpu_utilisation().1);
        let pct = mean_over(runs, |p| p.cpu_utilisation().2);
        // IOzone capitalises the word on the initial writers' line only.
        let word = if phase.pass == Pass::Write {
            "Utilization"
        } else {
            "utilization"
        };
        let _ = writeln!(
            s,
            "\tCPU {word}: Wall time {wall:8.3}    CPU time {cpu_secs:8.3}    CPU utilization {pct:6.2} %\n"
        );
    }
    if phase.stonewall {
        let planned = phase.planned_bytes(config);
        // What each worker counted while all ran: across ranks, without
        // the ranks that learned of the first finish too late.
        let pct = mean_over(runs, |p| {
            if planned == 0 {
                0.0
            } else {
                100.0 * coverage(p).counted_bytes as f64 / planned as f64
            }
        });
        let ran_on = runs
            .iter()
            .map(|p| coverage(p).ran_on)
            .find(|r| !r.is_empty())
            .map_or(String::new(), |r| rank_lines::ran_on_words(&r, noun, nouns));
        let _ = writeln!(
            s,
            "\tStonewalled: {pct:.2}% of the planned {:.2} KB counted while all {nouns} ran{ran_on}",
            planned as f64 / 1024.0
        );
    }
    if config
        .throughput
        .as_ref()
        .is_some_and(|t| t.per_worker_lines)
    {
        for (i, w) in phase.results.iter().enumerate() {
            // The same worker in every run: its mean xfer and rate.
            let worker = |f: &dyn Fn(&WorkerResult) -> f64| {
                mean_over(runs, |p| p.results.get(i).map_or(0.0, f))
            };
            let _ = write!(
                s,
                "\tChild[{}] xfer count = {:10.2} {xfer}, Throughput = {:10.2} {rate}",
                w.worker,
                worker(&|w| w.xfer(unit)),
                worker(&|w| w.rate(unit))
            );
            if cpu {
                let pct_of = |w: &WorkerResult| {
                    let wall = w.elapsed_ns as f64 / 1e9;
                    if wall > 0.0 {
                        100.0 * w.cpu_seconds() / wall
                    } else {
                        0.0
                    }
                };
                let _ = write!(
                    s,
                    ", wall={:6.3}, cpu={:6.3}, %={:6.2}",
                    worker(&|w| w.elapsed_ns as f64 / 1e9),
                    worker(&|w| w.cpu_seconds()),
                    worker(&pct_of)
                );
            }
            if let Some(client) = &w.client {
                let _ = write!(s, ", rank {} on {}", client.rank, client.host);
            }
            s.push('\n');
        }
    }
    s
}

/// With several runs, after a block's figures: each one's mean ± standard
/// deviation over the runs (IOzone's lines above keep their layout, with
/// the mean, for the scripts that read them).
fn spread_line(runs: &[&PhaseResult], unit: OutputUnit) -> String {
    let (rate, xfer) = units(unit);
    let names = [
        "children see",
        "parent sees",
        "min",
        "max",
        "avg",
        "min xfer",
    ];
    let parts: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let values: Vec<f64> = runs.iter().map(|p| p.figures(unit)[i]).collect();
            let unit_word = if i == 5 { xfer } else { rate };
            match summarize(&values) {
                Some(Summary {
                    mean, sd: Some(sd), ..
                }) => format!("{name} {mean:.2} ± {sd:.2} {unit_word}"),
                Some(Summary { mean, .. }) => format!("{name} {mean:.2} {unit_word} (one run)"),
                None => format!("{name} n/a"),
            }
        })
        .collect();
    format!(
        "\tMean ± sd over {} runs: {}\n",
        runs.len(),
        parts.join(", ")
    )
}

/// `Output is in …` of the throughput report.
pub fn unit_words(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "Kbytes/sec",
        OutputUnit::OpsPerSec => "ops/sec",
        OutputUnit::MicrosPerOp => "microseconds/op",
    }
}

/// A throughput run's record size as the report words it ("64 Kbytes", "8 bytes").
pub fn record_words(phases: &[PhaseResult]) -> String {
    let record = phases.first().map_or(0, |p| p.record_bytes);
    if record.is_multiple_of(KIB) {
        format!("{} Kbytes", record / KIB)
    } else {
        format!("{record} bytes")
    }
}

/// The -R block: one row per phase, one column per worker count (each the
/// mean over the runs); with several runs, the same rows of standard
/// deviations follow.
pub fn throughput_report(phases: &[PhaseResult], config: &RunConfig) -> String {
    let unit = config.unit;
    let record_words = record_words(phases);
    let output = unit_words(unit);
    let groups = phase_runs(phases);
    let mut s = String::new();
    s.push_str("\n\"Throughput report Y-axis is type of test X-axis is number of processes\"\n");
    let _ = writeln!(s, "\"Record size = {record_words} \"");
    let _ = writeln!(s, "\"Output is in {output}\"");
    s.push('\n');
    let mut order: Vec<Pass> = Vec::new();
    for p in phases {
        if !order.contains(&p.pass) {
            order.push(p.pass);
        }
    }
    rows(&mut s, &groups, &order, |runs| {
        mean_over(runs, |p| p.children_see(unit))
    });
    if config.variations.cpu_utilisation {
        s.push_str(
            "\n\"CPU utilization report Y-axis is type of test X-axis is number of processes\"\n",
        );
        let _ = writeln!(s, "\"Record size = {record_words} \"");
        s.push_str("\"Output is in CPU%\"\n\n");
        rows(&mut s, &groups, &order, |runs| {
            mean_over(runs, |p| p.cpu_utilisation().2)
        });
    }
    let most = groups.iter().map(Vec::len).max().unwrap_or(0);
    if most > 1 {
        let _ = writeln!(
            s,
            "\n\"Standard deviation over {most} runs: Throughput report Y-axis is type of test X-axis is number of processes\""
        );
        let _ = writeln!(s, "\"Record size = {record_words} \"");
        let _ = writeln!(s, "\"Output is in {output}\"");
        s.push('\n');
        sd_rows(&mut s, &groups, &order, unit);
    }
    s
}

/// A row per phase, a value per worker count.
fn rows(
    s: &mut String,
    groups: &[Vec<&PhaseResult>],
    order: &[Pass],
    value: impl Fn(&[&PhaseResult]) -> f64,
) {
    for &pass in order {
        let _ = write!(s, "\"{:>15} \"", report_label(pass));
        for runs in groups.iter().filter(|g| g[0].pass == pass) {
            let _ = write!(s, " {:10.2} ", value(runs));
        }
        s.push_str("\n\n");
    }
}

/// The standard deviation rows: `-` where a phase has one run.
fn sd_rows(s: &mut String, groups: &[Vec<&PhaseResult>], order: &[Pass], unit: OutputUnit) {
    for &pass in order {
        let _ = write!(s, "\"{:>15} \"", report_label(pass));
        for runs in groups.iter().filter(|g| g[0].pass == pass) {
            let values: Vec<f64> = runs.iter().map(|p| p.children_see(unit)).collect();
            match summarize(&values).and_then(|x| x.sd) {
                Some(sd) => {
                    let _ = write!(s, " {sd:10.2} ");
                }
                None => {
                    let _ = write!(s, " {:>10} ", "-");
                }
            }
        }
        s.push_str("\n\n");
    }
}
