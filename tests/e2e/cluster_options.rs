//! Cluster mode's options across ranks (issue 17): per-operation latencies
//! (--latency, -+z, -+O, -+T) gathered to rank 0, -Q's files written by
//! each rank for its workers, -l/-u sweeps and worker counts the ranks
//! cannot share evenly, -+k, and one file shared by every rank (-+V/-+L).
//! Small files, two or three ranks: each test takes seconds.

use std::fs;
use std::path::Path;

use crate::fixtures::cluster::{host_name, mpirun_ioz};
use crate::fixtures::{Run, Test, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        latencies_of_every_rank_s_workers_reach_rank_0 => [Mpi],
        each_rank_writes_the_q_files_of_its_workers => [Mpi],
    ]
}

/// Panics with everything the job printed unless it ended with `code`.
fn expect(r: &Run, code: i32) {
    assert_eq!(r.code, Some(code), "mpirun's exit status\n{}", r.context());
}

/// The `-C` lines of the block that starts with `label`.
fn child_lines<'a>(stdout: &'a str, label: &str) -> Vec<&'a str> {
    let start = stdout
        .find(label)
        .unwrap_or_else(|| panic!("no {label:?} in:\n{stdout}"));
    stdout[start..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.trim_start().starts_with("Child["))
        .collect()
}

/// The xfer count (KB) of a `-C` line.
fn xfer_kb(line: &str) -> f64 {
    line.split("xfer count =")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no xfer count in {line:?}"))
}

fn file_len(path: &Path) -> u64 {
    fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .len()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The ops column of the latency table's row that starts with `name`.
fn latency_ops(stdout: &str, name: &str) -> u64 {
    let row = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no latency row {name:?} in:\n{stdout}"));
    row.split_whitespace().nth(3).unwrap().parse().unwrap()
}

/// The counts of a `-+z` file's block for `op`, summed.
fn band_total(text: &str, child: u32, op: &str) -> u64 {
    let head = format!("Child: {child} Op: {op}");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("no {head:?} in:\n{text}"));
    text[start..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("Band"))
        .flat_map(|l| l.split_whitespace().filter_map(|w| w.split(':').nth(1)))
        .filter(|n| !n.is_empty())
        .map(|n| n.parse::<u64>().unwrap())
        .sum()
}

/// `--latency -+z -+T -+O` across 2 ranks, 4 workers of 4 records each:
/// rank 0 prints the job's latency table (each phase's percentiles over
/// all 16 operations, a row per worker with -C), saves the histograms in
/// the JSON, writes every worker's IOzone histogram and log file, and says
/// the rate each phase achieved.
fn latencies_of_every_rank_s_workers_reach_rank_0() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let json = d.join("run.json");
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t",
            "4",
            "-s",
            "256k",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "-C",
            "-x",
            "-f",
            "f",
            "--latency",
            "--percentiles",
            "50,99",
            "-+z",
            "-+T",
            "-+O",
            "100000",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    expect(&r, 0);
    let out = &r.stdout;
    for phase in ["write(4)", "rewrite(4)", "read(4)", "reread(4)"] {
        assert_eq!(latency_ops(out, phase), 16, "{phase}: {out}");
    }
    for worker in 0..4 {
        let row = format!("worker_{worker}");
        assert_eq!(
            out.lines()
                .filter(|l| l.split_whitespace().next() == Some(row.as_str()))
                .map(|l| l.split_whitespace().nth(3).unwrap())
                .collect::<Vec<_>>(),
            ["4"; 4],
            "{out}"
        );
    }
    assert!(
        out.contains("Operation rate achieved (-+O 100000: at most 100000 per second per worker)"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("write(4)") && l.ends_with("ops/sec per worker")),
        "{out}"
    );
    let saved: serde_json::Value = serde_json::from_slice(&fs::read(&json).unwrap()).unwrap();
    let phases = saved["throughput"].as_array().unwrap();
    assert_eq!(phases.len(), 4);
    for phase in phases {
        assert_eq!(phase["latency"]["count"], 16, "{phase}");
        let percents: Vec<f64> = phase["latency"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["percent"].as_f64().unwrap())
            .collect();
        assert_eq!(percents, [50.0, 99.0]);
        let buckets: u64 = phase["latency"]["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["count"].as_u64().unwrap())
            .sum();
        assert_eq!(buckets, 16);
        for w in phase["results"].as_array().unwrap() {
            assert_eq!(w["latency"]["count"], 4, "{w}");
        }
    }
    // -+z and -+T: every worker of the job, by rank 0.
    for worker in 0..4 {
        let histogram = read(&d.join(format!("Iozone_histogram_child_{worker}.txt")));
        for op in ["write", "Rewrite", "Read", "Reread"] {
            assert_eq!(band_total(&histogram, worker, op), 4, "{op}: {histogram}");
        }
        let log = read(&d.join(format!("Child_{worker}.log")));
        for line in [
            "Write test start:",
            "Rewrite test finished:",
            "Reread test start:",
        ] {
            assert_eq!(log.matches(line).count(), 1, "{line}: {log}");
        }
    }
    // The test files went; the latency files and the JSON stay.
    let mut left = list_dir(d);
    left.retain(|n| n.starts_with("f."));
    assert_eq!(left, Vec::<String>::new());
}

/// `-Q` across 2 ranks: IOzone's `Child_<n>_<test>.dat` for each of the
/// job's 4 workers (n its number in the job), each with a line per record
/// of every phase.
fn each_rank_writes_the_q_files_of_its_workers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t", "4", "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-C", "-x", "-f", "f", "-Q",
        ],
    );
    expect(&r, 0);
    let host = host_name();
    let lines = child_lines(&r.stdout, "4 initial writers");
    assert_eq!(lines.len(), 4, "{}", r.stdout);
    for (worker, line) in lines.iter().enumerate() {
        assert!(
            line.ends_with(&format!(", rank {} on {host}", worker % 2)),
            "{line}"
        );
        assert_eq!(xfer_kb(line), 256.0, "{line}");
    }
    for worker in 0..4 {
        for test in ["wol", "rwol", "rol", "rrol"] {
            let path = d.join(format!("Child_{worker}_{test}.dat"));
            let text = read(&path);
            // A header, a line per 64 kB record, an empty line, the times.
            let ops: Vec<&str> = text.lines().skip(1).take_while(|l| !l.is_empty()).collect();
            assert_eq!(ops.len(), 4, "{}: {text}", path.display());
            let offsets: Vec<u64> = ops
                .iter()
                .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
                .collect();
            assert_eq!(offsets, [0, 64, 128, 192], "{text}");
            assert!(text.contains("System time"), "{text}");
            assert!(file_len(&path) > 0);
        }
    }
    let mut names = list_dir(d);
    names.retain(|n| !n.starts_with("Child_"));
    assert_eq!(names, Vec::<String>::new(), "test files left");
}
