//! `ioz mdtest`'s text, in mdtest's layout, so that scripts reading
//! mdtest's SUMMARY tables read ioz's: the started line, the launch and
//! command lines, the path and its file system, the task and item counts,
//! then `SUMMARY rate` (and with -P, or instead with -Z, `SUMMARY time`):
//! each phase's max, min, mean and standard deviation over the iterations,
//! and the finished line. As in mdtest, the time table holds each phase's
//! time in seconds, under mdtest's own heading. Columns never run together.

use std::fmt::Write as _;

use crate::analysis::summary::summarize;
use crate::model::dates;
use crate::model::metadata::{MDTEST_ROWS, MdtestConfig, MdtestTree, MetaOp};
use crate::model::metadata_result::{FsUsage, MetaMeasurement, MetadataResult};
use crate::model::result::RunResult;
use crate::model::units::Size;
use crate::model::visible::visible;

const TABLE_HEAD: &str = "   Operation                     Max            Min           Mean        Std Dev\n   ---------                     ---            ---           ----        -------\n";

/// Everything mdtest prints, from the saved run.
pub fn text(result: &RunResult, m: &MdtestConfig, meta: &MetadataResult) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "-- started at {} --\n",
        local_date(result, &result.started_at)
    );
    let ranks = meta.hosts.len().max(1);
    let mut nodes: Vec<&String> = meta.hosts.iter().collect();
    nodes.sort();
    nodes.dedup();
    let _ = writeln!(
        s,
        "ioz-mdtest-{} was launched with {ranks} total task(s) on {} node(s)",
        result.tool_version,
        nodes.len().max(1)
    );
    let _ = writeln!(
        s,
        "Command line used: {}",
        command_line(&result.config.command_line)
    );
    if m.files && m.read_bytes == 0 {
        s.push_str("WARNING: Read bytes is 0, thus, a read test will actually just open/close\n");
    }
    let first = meta.hosts.first();
    let map: String = meta
        .hosts
        .iter()
        .map(|h| if Some(h) == first { '1' } else { '0' })
        .collect();
    let _ = writeln!(s, "Nodemap: {}", if map.is_empty() { "1" } else { &map });
    let _ = writeln!(
        s,
        "Path                : {}",
        visible(&m.dir.display().to_string())
    );
    if let Some(fs) = &meta.fs {
        let _ = writeln!(s, "FS                  : {}", fs_line(fs));
    }
    if m.stride > 0 {
        let _ = writeln!(
            s,
            "V-0: Rank   0 Shifting ranks by {} for each phase.",
            m.stride
        );
    }
    let per_rank = MdtestTree::of(m).items_per_rank(m);
    let what = match (m.directories, m.files) {
        (true, false) => "directories",
        (false, true) => "files",
        _ => "files/directories",
    };
    let _ = writeln!(
        s,
        "{ranks} tasks, {} {what}",
        per_rank.saturating_mul(ranks as u64)
    );
    let iterations = result.config.runs;
    if !m.time_only {
        let _ = write!(
            s,
            "\nSUMMARY rate (in ops/sec): (of {iterations} iterations)\n{TABLE_HEAD}"
        );
        s.push_str(&table(&meta.measurements, MetaMeasurement::rate));
    }
    if m.print_time || m.time_only {
        let _ = write!(
            s,
            "\nSUMMARY time (in ms/op): (of {iterations} iterations)\n{TABLE_HEAD}"
        );
        s.push_str(&table(&meta.measurements, |x| x.elapsed_ns as f64 / 1e9));
    }
    let _ = writeln!(
        s,
        "-- finished at {} --\n",
        local_date(result, &result.finished_at)
    );
    s
}

/// A row per phase measured, in mdtest's order: max, min, mean and sample
/// standard deviation over the iterations.
fn table(measurements: &[MetaMeasurement], figure: fn(&MetaMeasurement) -> f64) -> String {
    let mut s = String::new();
    for op in MDTEST_ROWS {
        let values: Vec<f64> = measurements
            .iter()
            .filter(|m| m.op == op)
            .map(figure)
            .collect();
        let Some(sum) = summarize(&values) else {
            continue;
        };
        let _ = writeln!(
            s,
            "   {:<22} {:>14.3} {:>14.3} {:>14.3} {:>14.3}",
            op.name(),
            sum.max,
            sum.min,
            sum.mean,
            sum.sd.unwrap_or(0.0)
        );
    }
    s
}

/// mdtest's command line: the program, then each word quoted.
fn command_line(words: &[String]) -> String {
    let mut s = String::from("ioz mdtest");
    for w in words.iter().skip(2) {
        let _ = write!(s, " '{w}'");
    }
    visible(&s).into_owned()
}

/// `252.0 GiB   Used FS: 7.8%   Inodes: 16.0 Mi   Used Inodes: 2.7%`.
fn fs_line(fs: &FsUsage) -> String {
    let percent = |used: u64, all: u64| {
        if all == 0 {
            0.0
        } else {
            100.0 * used as f64 / all as f64
        }
    };
    format!(
        "{:.1}   Used FS: {:.1}%   Inodes: {}   Used Inodes: {:.1}%",
        Size(fs.bytes),
        percent(fs.used_bytes, fs.bytes),
        count(fs.inodes),
        percent(fs.used_inodes, fs.inodes)
    )
}

/// A count in binary units: `16.0 Mi`, `512.0 Ki`.
fn count(n: u64) -> String {
    let mut v = n as f64;
    for unit in ["", "Ki", "Mi", "Gi", "Ti"] {
        if v < 1024.0 || unit == "Ti" {
            return if unit.is_empty() {
                format!("{n}")
            } else {
                format!("{v:.1} {unit}")
            };
        }
        v /= 1024.0;
    }
    format!("{n}")
}

/// An RFC 3339 UTC date of the run as mdtest shows its dates, in the local
/// time of the run (`11/26/2026 16:57:17`): the zone's offset is the
/// difference between the run's local start (`started`) and its UTC one.
fn local_date(result: &RunResult, utc: &str) -> String {
    let offset = dates::from_ctime(&result.started)
        .and_then(|local| Some(dates::to_epoch(&local)? - dates::to_epoch(&result.started_at)?))
        .unwrap_or(0);
    match dates::to_epoch(utc) {
        Some(secs) => {
            let local = dates::from_epoch(secs + offset);
            // YYYY-MM-DDTHH:MM:SSZ → MM/DD/YYYY HH:MM:SS
            format!(
                "{}/{}/{} {}",
                &local[5..7],
                &local[8..10],
                &local[0..4],
                &local[11..19]
            )
        }
        None => utc.to_string(),
    }
}

/// The phases an mdtest run measures, in its SUMMARY's order (for tests
/// and the views that list them).
pub fn phases(measurements: &[MetaMeasurement]) -> Vec<MetaOp> {
    MDTEST_ROWS
        .into_iter()
        .filter(|op| measurements.iter().any(|m| m.op == *op))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::histogram::LatencyHistogram;

    fn measured(op: MetaOp, items: u64, elapsed_ns: u64, run: u32) -> MetaMeasurement {
        let mut h = LatencyHistogram::new();
        h.record(1000);
        let mut m = MetaMeasurement::new(op, 0, run, elapsed_ns, &h);
        m.items = items;
        m
    }

    #[test]
    fn a_row_is_mdtest_s() {
        let rows = table(
            &[measured(MetaOp::DirectoryCreation, 50, 6_002_903, 0)],
            MetaMeasurement::rate,
        );
        assert_eq!(
            rows,
            "   Directory creation           8329.303       8329.303       8329.303          0.000\n"
        );
    }

    #[test]
    fn the_sd_is_over_the_iterations() {
        let all = [
            measured(MetaOp::FileCreation, 200, 1_000_000_000, 0),
            measured(MetaOp::FileCreation, 100, 1_000_000_000, 1),
            measured(MetaOp::FileCreation, 300, 1_000_000_000, 2),
        ];
        let rows = table(&all, MetaMeasurement::rate);
        assert!(rows.contains("300.000"), "{rows}");
        assert!(rows.trim_end().ends_with("100.000"), "{rows}");
    }

    #[test]
    fn sizes_and_counts_read_as_mdtest_s() {
        let fs = FsUsage {
            bytes: 252 << 30,
            used_bytes: (252u64 << 30) * 78 / 1000,
            inodes: 16 << 20,
            used_inodes: (16u64 << 20) * 27 / 1000,
        };
        assert_eq!(
            fs_line(&fs),
            "252.0 GiB   Used FS: 7.8%   Inodes: 16.0 Mi   Used Inodes: 2.7%"
        );
        assert_eq!(count(100), "100");
    }

    #[test]
    fn the_command_line_quotes_each_word() {
        let words: Vec<String> = ["ioz", "mdtest", "-n", "50", "-d", "DIR", "-P"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(command_line(&words), "ioz mdtest '-n' '50' '-d' 'DIR' '-P'");
    }
}
