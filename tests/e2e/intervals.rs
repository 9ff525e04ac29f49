//! `--interval`, `--live` and `--interval-csv` end to end (issue 27): the
//! intervals of a pass, a phase and its workers adding up exactly to them in
//! the JSON; the live file written as the run goes and equal to what
//! `ioz report --live` writes again; the CSV rows; the HTML report's and
//! --plots' views; ioz compare's overlay; the flush cliff on ext4 with a low
//! dirty limit, found from the intervals; and across MPI ranks, the job's
//! sum with each rank's beside.

use std::fs;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::fixtures::cluster::{expect, mpirun_ioz};
use crate::fixtures::quiet;
use crate::fixtures::{
    Ext4, IOZ, Run, Test, Tmpfs, assert_refused, ioz, quietly, run, skip, trials,
};
use crate::json_schema::assert_valid;

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        bad_intervals_and_files_without_them_are_refused,
        report_refuses_interval_files_of_a_run_without_intervals,
        a_pass_adds_up_and_every_file_agrees,
        a_phase_is_its_workers_summed_index_by_index,
        the_live_file_grows_while_the_run_goes,
        a_full_disk_ends_the_live_stream_at_a_whole_line => [Tmpfs],
        compare_overlays_the_series_of_a_shared_cell,
        runs_and_history_keep_each_run_s_intervals,
        the_rate_falls_when_dirty_pages_reach_the_limit => [Root, Ext4],
        a_stalled_write_ends_its_intervals_on_time => [Root, Ext4],
        a_pause_between_operations_ends_intervals_on_time_and_is_no_stall,
        across_ranks_rank_0_writes_the_job_s_sum_and_each_rank_s => [Mpi],
        across_ranks_in_auto_mode_each_pass_is_the_ranks_summed => [Mpi],
    ]
}

fn ok(dir: &Path, args: &[&str]) -> Run {
    let run = ioz(dir, args);
    run.expect_code(0);
    run
}

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The bytes of a list of intervals, summed.
fn bytes_of(intervals: &Value) -> u64 {
    intervals
        .as_array()
        .unwrap()
        .iter()
        .map(|i| u(&i["bytes"]))
        .sum()
}

/// The intervals of a measurement, worker or phase: they follow each other
/// from `start` to `end` with no gap, the last alone partial, and add up
/// to `bytes` and `ops`. Returns how many there are.
fn check_series(
    what: &str,
    intervals: &Value,
    (start, end): (u64, u64),
    (bytes, ops): (u64, u64),
) -> usize {
    let list = intervals
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no intervals"));
    assert!(!list.is_empty(), "{what}: no intervals");
    let mut at = start;
    let (mut b, mut o) = (0, 0);
    for (k, i) in list.iter().enumerate() {
        assert_eq!(
            u(&i["start_ns"]),
            at,
            "{what}: interval {k} starts where the last ended"
        );
        at += u(&i["length_ns"]);
        b += u(&i["bytes"]);
        o += u(&i["ops"]);
        let last = k + 1 == list.len();
        assert_eq!(
            i["partial"].as_bool().unwrap_or(false),
            last,
            "{what}: interval {k}"
        );
    }
    assert_eq!(at, end, "{what}: the last interval ends with the loop");
    assert_eq!((b, o), (bytes, ops), "{what}: bytes and operations");
    list.len()
}

fn bad_intervals_and_files_without_them_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = ["-s", "64k", "-r", "4k", "-i", "0", "-f", "t.tmp"];
    let with = |extra: &[&str]| -> Vec<String> {
        base.iter().chain(extra).map(|s| s.to_string()).collect()
    };
    let refuse = |extra: &[&str], part: &str| {
        let args = with(extra);
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_refused(&ioz(d, &words), part);
    };
    refuse(
        &["--interval", "5ms"],
        "--interval 5ms: out of range; give 10ms to 1h (interval)",
    );
    refuse(&["--interval", "100"], "'100' is not a duration");
    refuse(&["--interval", "1.5s"], "'1.5s' is not a duration");
    refuse(
        &["--live", "l.jsonl"],
        "--live: the file holds the run's intervals: give --interval too",
    );
    refuse(
        &["--interval-csv", "i.csv"],
        "--interval-csv: the file holds the run's intervals: give --interval too",
    );
    // The live file is guarded like every result file.
    fs::write(d.join("someone.jsonl"), "theirs\n").unwrap();
    refuse(
        &["--interval", "1s", "--live", "someone.jsonl"],
        "someone.jsonl",
    );
    assert_eq!(
        fs::read_to_string(d.join("someone.jsonl")).unwrap(),
        "theirs\n"
    );
}

/// `ioz report RUN.json --live` (or `--interval-csv`) of a run that has
/// no intervals (a plain run, a fileop run) is refused in one line, exit
/// 2, before any file is written, as the run without --interval is.
/// Before, an empty file and exit 0.
fn report_refuses_interval_files_of_a_run_without_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "-s",
            "64k",
            "-r",
            "4k",
            "-i",
            "0",
            "-f",
            "t.tmp",
            "--json",
            "plain.json",
        ],
    );
    fs::create_dir(d.join("tree")).unwrap();
    ok(
        d,
        &["fileop", "-f", "1", "-d", "tree", "--json", "fileop.json"],
    );
    for run in ["plain.json", "fileop.json"] {
        for (flag, file) in [("--live", "o.jsonl"), ("--interval-csv", "o.csv")] {
            let refused = ioz(d, &["report", run, flag, file, "--json", "again.json"]);
            let line = assert_refused(&refused, &format!("report: {run} holds no intervals"));
            assert!(
                line.ends_with(&format!("{flag} has nothing to write")),
                "{line}"
            );
            for written in [file, "again.json"] {
                assert!(
                    !d.join(written).exists(),
                    "{run} {flag}: {written} was written"
                );
            }
        }
    }
}

/// One pass long enough for several intervals: every output holds them,
/// and they agree.
fn a_pass_adds_up_and_every_file_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = ok(
        d,
        &[
            "-s",
            "16m",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "--latency",
            "--interval",
            "10ms",
            "--json",
            "r.json",
            "--live",
            "live.jsonl",
            "--interval-csv",
            "i.csv",
            "--html",
            "r.html",
            "--plots",
            "plots",
            "-f",
            "t.tmp",
        ],
    );
    let doc = read_json(&d.join("r.json"));
    assert_valid(&doc);
    assert_eq!(u(&doc["config"]["interval_ns"]), 10_000_000);
    let mut total = 0;
    for m in doc["cells"][0]["measurements"].as_array().unwrap() {
        let what = m["pass"].as_str().unwrap().to_string();
        let bytes = u(&m["bytes"]);
        assert_eq!(bytes, 16 << 20);
        total += check_series(
            &what,
            &m["intervals"],
            (0, u(&m["elapsed_ns"])),
            (bytes, u(&m["records"])),
        );
        // --latency: the intervals' histograms hold every operation once
        // (an interval the keeper ended for a loop held up, on a busy
        // machine, has none: its operations' go with the next).
        let counted: u64 = m["intervals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["latency"]["count"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(counted, u(&m["latency"]["count"]), "{what}");
        assert!(
            m["intervals"][0]["cache"]["dirty_bytes"].is_u64(),
            "{what}: the page cache"
        );
    }
    // The live file: a JSON object per interval, the same ioz report writes.
    let live = fs::read_to_string(d.join("live.jsonl")).unwrap();
    let lines: Vec<Value> = live
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), total, "{live}");
    assert!(
        lines
            .iter()
            .all(|l| l["pass"].is_string() && l["kb_per_sec"].is_u64())
    );
    ok(
        d,
        &[
            "report",
            "r.json",
            "--live",
            "again.jsonl",
            "--interval-csv",
            "again.csv",
            "--json",
            "r2.json",
        ],
    );
    assert_eq!(fs::read_to_string(d.join("again.jsonl")).unwrap(), live);
    // The CSV: a header and a row per interval, the same again.
    let csv = fs::read_to_string(d.join("i.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + total, "{csv}");
    assert!(csv.starts_with("test,pass,run,file_bytes,record_bytes,workers,worker,rank,index,start_ns,length_ns,bytes,ops"));
    let csv_bytes: u64 = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(11).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(csv_bytes, 4 * (16 << 20), "four passes of 16 MiB");
    assert_eq!(fs::read_to_string(d.join("again.csv")).unwrap(), csv);
    // ioz report keeps them: the saved run again holds the same intervals.
    let again = read_json(&d.join("r2.json"));
    assert_eq!(
        again["cells"][0]["measurements"],
        doc["cells"][0]["measurements"]
    );
    // The HTML report's section, and the plots' files.
    let html = fs::read_to_string(d.join("r.html")).unwrap();
    assert!(
        html.contains("<section id=\"over-time\">"),
        "no over-time section"
    );
    assert!(html.contains("<a href=\"#over-time\">Over time</a>"));
    assert_eq!(
        html.matches("rate over time</title>").count(),
        4,
        "a rate chart per pass"
    );
    assert_eq!(
        html.matches("latency over time</title>").count(),
        4,
        "--latency's charts"
    );
    assert!(html.contains("Dirty+Writeback"));
    for name in [
        "write-over-time.png",
        "write-over-time.svg",
        "rewrite-over-time.png",
    ] {
        let len = fs::metadata(d.join("plots").join(name))
            .map(|m| m.len())
            .unwrap_or(0);
        assert!(len > 1000, "plots/{name}: {len} bytes");
    }
    assert!(run.stdout.contains("ioz test complete."));
}

/// Throughput mode, processes and threads: each worker's intervals add up
/// to it, the phase's to its workers', index by index.
fn a_phase_is_its_workers_summed_index_by_index() {
    for threads in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut args = vec![
            "-t",
            "3",
            "-s",
            "8m",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "--interval",
            "10ms",
            "--json",
            "r.json",
            "--live",
            "live.jsonl",
            "-F",
            "a",
            "b",
            "c",
        ];
        if threads {
            args.push("-T");
        }
        ok(d, &args);
        let doc = read_json(&d.join("r.json"));
        assert_valid(&doc);
        let mut total = 0;
        for phase in doc["throughput"].as_array().unwrap() {
            let what = format!("{} (threads: {threads})", phase["pass"]);
            let (mut bytes, mut records) = (0, 0);
            let mut longest = 0;
            for w in phase["results"].as_array().unwrap() {
                let (b, r) = (u(&w["bytes"]), u(&w["records"]));
                let span = (
                    w["start_after_release_ns"].as_i64().unwrap() as u64,
                    w["end_after_release_ns"].as_i64().unwrap() as u64,
                );
                check_series(
                    &format!("{what}, worker {}", w["worker"]),
                    &w["intervals"],
                    span,
                    (b, r),
                );
                (bytes, records) = (bytes + b, records + r);
                longest = longest.max(span.1);
            }
            let n = check_series(&what, &phase["intervals"], (0, longest), (bytes, records));
            for (k, i) in phase["intervals"].as_array().unwrap().iter().enumerate() {
                assert_eq!(u(&i["index"]), k as u64, "{what}: every index");
                let of_index: u64 = phase["results"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .flat_map(|w| w["intervals"].as_array().unwrap())
                    .filter(|wi| wi["index"] == i["index"])
                    .map(|wi| u(&wi["bytes"]))
                    .sum();
                assert_eq!(u(&i["bytes"]), of_index, "{what}: index {k}");
            }
            total += n;
        }
        let live = fs::read_to_string(d.join("live.jsonl")).unwrap();
        assert_eq!(live.lines().count(), total);
        let lines: Vec<Value> = live
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert!(lines.iter().all(|l| u(&l["workers"]) == 3));
        // Each worker's interval beside the sum it is part of.
        for l in &lines {
            let beside: u64 = l["beside"]
                .as_array()
                .map_or(0, |b| b.iter().map(|w| u(&w["bytes"])).sum());
            assert_eq!(beside, u(&l["bytes"]), "{l}");
        }
        ok(d, &["report", "r.json", "--live", "again.jsonl"]);
        assert_eq!(fs::read_to_string(d.join("again.jsonl")).unwrap(), live);
    }
}

/// The live file on a tmpfs of one page, which fills after a few lines:
/// the stream ends at its last whole line with one warning, and the run
/// goes on to its end, every other result kept. Before, the last line was
/// cut where the disk filled, and a reader (`tail -f | jq`) failed on it.
fn a_full_disk_ends_the_live_stream_at_a_whole_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = Tmpfs::mount(&d.join("small"), "size=4k");
    let live = small.path().join("live.jsonl");
    // -J 1: a millisecond before each of 256 records a pass, so that the
    // four passes last a second or so (about 100 lines of some 300 bytes)
    // however fast the machine writes.
    let run = ok(
        d,
        &[
            "-s",
            "1m",
            "-r",
            "4k",
            "-J",
            "1",
            "-i",
            "0",
            "-i",
            "1",
            "--interval",
            "10ms",
            "--live",
            live.to_str().unwrap(),
            "--json",
            "r.json",
            "-f",
            "t.tmp",
        ],
    );
    let said: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains("--live"))
        .collect();
    assert_eq!(said.len(), 1, "{}", run.stderr);
    assert!(
        said[0].contains("No space left on device") && said[0].contains("the run goes on"),
        "{}",
        said[0]
    );
    let written = fs::read_to_string(&live).unwrap();
    assert!(written.ends_with('\n'), "a line cut short: {written:?}");
    let lines: Vec<&str> = written.lines().collect();
    assert!(!lines.is_empty());
    for l in &lines {
        serde_json::from_str::<Value>(l).unwrap_or_else(|e| panic!("{e}: {l:?}"));
    }
    // The run's other results are whole: its every interval, whose lines
    // the stream holds the first of.
    let doc = read_json(&d.join("r.json"));
    for m in doc["cells"][0]["measurements"].as_array().unwrap() {
        assert_eq!(bytes_of(&m["intervals"]), u(&m["bytes"]), "{}", m["pass"]);
    }
    ok(d, &["report", "r.json", "--live", "all.jsonl"]);
    let all = fs::read_to_string(d.join("all.jsonl")).unwrap();
    let all: Vec<&str> = all.lines().collect();
    assert!(lines.len() < all.len(), "the disk never filled");
    assert_eq!(lines[..], all[..lines.len()]);
}

/// A pass of about a second or two (-J: 10 ms of compute before each of 100
/// operations) in 100 ms intervals: each line is in the file while the run
/// goes, the first before half the pass is written, all but the last two
/// before its last write. Progress is told by the test file's size (the
/// pass writes it in order), not by the clock: on a busy machine the
/// writes and the keeper slow down together, and wall-clock bounds (a line
/// within 150 ms of another's lateness) fail at load 10.
fn the_live_file_grows_while_the_run_goes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut child = Command::new(IOZ)
        .args([
            "-s",
            "400k",
            "-r",
            "4k",
            "-i",
            "0",
            "-+n",
            "-J",
            "10",
            "--interval",
            "100ms",
            "--live",
            "live.jsonl",
            "-f",
            "t.tmp",
        ])
        .env("IOZ_NO_HISTORY", "1")
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // (the bytes of the test file when each line was first seen, the line)
    let mut seen: Vec<(u64, Value)> = Vec::new();
    let status = loop {
        let written = fs::metadata(d.join("t.tmp")).map_or(0, |m| m.len());
        if let Ok(text) = fs::read_to_string(d.join("live.jsonl")) {
            for line in text.lines().skip(seen.len()) {
                seen.push((written, serde_json::from_str(line).unwrap()));
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    let all = fs::read_to_string(d.join("live.jsonl")).unwrap();
    assert!(all.lines().count() >= 10, "{all}");
    assert!(
        seen.len() >= 8,
        "only {} lines while the run went: {all}",
        seen.len()
    );
    assert!(
        seen.iter().all(|(_, l)| l["pass"] == "write"),
        "one pass: {all}"
    );
    // Every line but the last two was in the file before the pass had
    // written its last record: written as its interval ended, not at the
    // end (lines a poller starved by the machine saw late still count).
    let before_the_end = seen
        .iter()
        .filter(|(written, _)| *written < 400 << 10)
        .count();
    assert!(
        before_the_end + 2 >= all.lines().count(),
        "only {before_the_end} of {} lines came before the last write: {seen:?}",
        all.lines().count()
    );
    assert!(
        seen[0].0 < 200 << 10,
        "the first line came when {} of 400 kB were written",
        seen[0].0 >> 10
    );
}

/// Two runs of the same cell with --interval: the compare page overlays
/// their series.
fn compare_overlays_the_series_of_a_shared_cell() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in ["base", "other"] {
        ok(
            d,
            &[
                "-s",
                "8m",
                "-r",
                "4k",
                "-i",
                "0",
                "--interval",
                "10ms",
                "--label",
                name,
                "--json",
                &format!("{name}.json"),
                "-f",
                "t.tmp",
            ],
        );
    }
    ok(
        d,
        &["compare", "base.json", "other.json", "--html", "c.html"],
    );
    let html = fs::read_to_string(d.join("c.html")).unwrap();
    assert!(
        html.contains("<h2 id=\"over-time\">Over time</h2>"),
        "no overlay"
    );
    let chart = &html[html.find("rate over time</title>").expect("a rate chart")..];
    assert!(
        chart.contains(">base<") && chart.contains(">other<"),
        "both inputs' lines"
    );
    assert!(chart.contains("base: Dirty") && chart.contains("other: Dirty"));
    // Without intervals there is nothing to overlay.
    ok(
        d,
        &[
            "-s",
            "64k",
            "-r",
            "4k",
            "-i",
            "0",
            "--json",
            "plain.json",
            "-f",
            "t.tmp",
        ],
    );
    ok(
        d,
        &["compare", "plain.json", "base.json", "--html", "p.html"],
    );
    assert!(
        !fs::read_to_string(d.join("p.html"))
            .unwrap()
            .contains("id=\"over-time\"")
    );
}

/// --runs 2 into a temporary history, twice: each run of each pass has its
/// own intervals adding up to it, the history keeps them as the JSON has
/// them, and ioz compare overlays two stored runs' series.
fn runs_and_history_keep_each_run_s_intervals() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let history = d.join("history");
    let in_history = |args: &[&str]| {
        run(Command::new(IOZ)
            .args(args)
            .current_dir(d)
            .env_remove("IOZ_NO_HISTORY")
            .env("IOZ_HISTORY", &history))
        .expect_code(0);
    };
    let recorded = |label: &str| {
        let json = format!("{label}.json");
        in_history(&[
            "-s",
            "4m",
            "-r",
            "4k",
            "-i",
            "0",
            "--runs",
            "2",
            "--interval",
            "10ms",
            "--label",
            label,
            "--json",
            &json,
            "-f",
            "t.tmp",
        ]);
        read_json(&d.join(json))
    };
    let base = recorded("base");
    let other = recorded("other");
    let measurements = base["cells"][0]["measurements"].as_array().unwrap();
    // Two runs of write and rewrite, each its own series.
    assert_eq!(measurements.len(), 4, "{measurements:?}");
    for run_index in [0, 1] {
        let of_run: Vec<&Value> = measurements
            .iter()
            .filter(|m| m["run"].as_u64().unwrap_or(0) == run_index)
            .collect();
        assert_eq!(of_run.len(), 2, "run {run_index}");
        for m in of_run {
            check_series(
                &format!("run {run_index} {}", m["pass"]),
                &m["intervals"],
                (0, u(&m["elapsed_ns"])),
                (u(&m["bytes"]), u(&m["records"])),
            );
        }
    }
    // The history holds them as the run's JSON does.
    in_history(&["history", "show", "last", "--json", "shown.json"]);
    let shown = read_json(&d.join("shown.json"));
    assert_eq!(
        shown["cells"][0]["measurements"], other["cells"][0]["measurements"],
        "the stored run's intervals"
    );
    // ioz compare overlays two stored runs' series.
    in_history(&["compare", "@label:base", "@label:other", "--html", "c.html"]);
    let html = fs::read_to_string(d.join("c.html")).unwrap();
    let chart = &html[html.find("rate over time</title>").expect("an overlay")..];
    assert!(chart.contains(">base<") && chart.contains(">other<"));
}

/// Settings of the machine the cliff test changes, put back on drop
/// (even when the test fails), under a lock every test process takes: two
/// suites at once (two checkouts, two `cargo test`) each saved what the
/// other had set and put it back after the other's restore, and left
/// vm.dirty_ratio and vm.dirty_bytes both 0, which throttles every write of
/// the machine (seen: a 16 KiB write held 7 ms in balance_dirty_pages).
struct Restored {
    saved: Vec<(String, String)>,
    /// flock held until the settings are back (dropped after `drop`).
    _lock: fs::File,
}

impl Restored {
    fn new() -> Restored {
        // Not $TMPDIR: two checkouts may be given different ones.
        let path = Path::new("/tmp/ioz-e2e-machine-settings.lock");
        let lock = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .unwrap_or_else(|e| skip(format!("{}: {e}", path.display())));
        // SAFETY: flock on the descriptor we own; it waits for the other
        // test process's cliff test to end.
        if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
            skip(format!("cannot lock {}", path.display()));
        }
        Restored {
            saved: Vec::new(),
            _lock: lock,
        }
    }

    fn set(&mut self, path: &str, value: &str) {
        let old = fs::read_to_string(path).unwrap_or_else(|e| skip(format!("{path}: {e}")));
        // vm.dirty_bytes and vm.dirty_ratio exclude each other: the ratio
        // put back last restores both.
        self.saved.push((path.to_string(), old.trim().to_string()));
        fs::write(path, value).unwrap_or_else(|e| skip(format!("cannot set {path}: {e}")));
    }
}

impl Drop for Restored {
    fn drop(&mut self) {
        for (path, old) in self.saved.iter().rev() {
            let _ = fs::write(path, old);
        }
    }
}

/// Dirty + Writeback of /proc/meminfo, in bytes.
fn held_by_the_machine() -> u64 {
    let meminfo = fs::read_to_string("/proc/meminfo").unwrap();
    meminfo
        .lines()
        .filter(|l| l.starts_with("Dirty:") || l.starts_with("Writeback:"))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .sum::<u64>()
        << 10
}

/// The flush cliff: ext4 on a loop device whose writes the block layer
/// holds to 96 MiB/s, vm.dirty_bytes at 128 MiB. A 384 MiB write goes at
/// memory speed until Dirty + Writeback (what the kernel holds to its
/// limit) reaches the throttle's point, then at the device's rate. Found
/// from the intervals: the rate after the first interval whose page cache
/// passed half the limit is less than half the rate before it. Memory
/// speed is what a busy machine lacks: the page cache's write rate is
/// measured before and after the run, and the test skipped (with the
/// figure) when it was under four times the device's.
fn the_rate_falls_when_dirty_pages_reach_the_limit() {
    const THROTTLE: &str = "/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device";
    if !Path::new(THROTTLE).exists() {
        skip("no cgroup v1 blkio throttle to make the loop device slow");
    }
    let fs_dir = Ext4::try_sized("noatime", 512 << 20).unwrap_or_else(|e| skip(e));
    let rdev = fs::metadata(&fs_dir.device).map(|m| {
        use std::os::unix::fs::MetadataExt;
        m.rdev()
    });
    let (major, minor) = rdev.map(|r| (libc::major(r), libc::minor(r))).unwrap();
    // The device's writes straight to the image, not through the page
    // cache again (whose dirty pages the kernel would count too).
    let _ = quietly("losetup", &["--direct-io=on", &fs_dir.device]);
    let limit: u64 = 128 << 20;
    let mut restored = Restored::new();
    restored.set(THROTTLE, &format!("{major}:{minor} {}", 96u64 << 20));
    restored.saved.pop(); // the throttle is lifted by writing 0, not its old text
    restored
        .saved
        .push((THROTTLE.to_string(), format!("{major}:{minor} 0")));
    let _ = quietly("sync", &[]);
    restored.set("/proc/sys/vm/dirty_ratio", "20");
    restored.set("/proc/sys/vm/dirty_background_ratio", "10");
    restored.set("/proc/sys/vm/dirty_bytes", &limit.to_string());
    restored.set(
        "/proc/sys/vm/dirty_background_bytes",
        &(32u64 << 20).to_string(),
    );
    let target = fs_dir.mnt().join("t.tmp");
    let json = fs_dir.mnt().join("r.json");
    let dir = tempfile::tempdir().unwrap();
    // The cliff shows only if the page cache takes writes well faster than
    // the device drains them: measured before the run and after it (a
    // busy machine, load 5-10, wrote to it at a few hundred MiB/s and the
    // rates before and after came out alike).
    const FAST: f64 = 4.0 * (96u64 << 20) as f64;
    const WHY: &str = "a cliff 4x the throttle's 96 MiB/s deep";
    quiet::skip_unless_page_cache_is_fast(dir.path(), FAST, WHY);
    let _ = quietly("sync", &[]);
    let own = held_by_the_machine();
    if own >= limit / 4 {
        skip(format!(
            "the machine's own dirty and writeback pages were {} MiB before the write (other work writing)",
            own >> 20
        ));
    }
    let run = ioz(
        dir.path(),
        &[
            "-s",
            "384m",
            "-r",
            "64k",
            "-i",
            "0",
            "-+n",
            "--interval",
            "20ms",
            "--json",
            json.to_str().unwrap(),
            "--html",
            "cliff.html",
            "-f",
            target.to_str().unwrap(),
        ],
    );
    drop(restored);
    run.expect_code(0);
    quiet::skip_unless_page_cache_is_fast(dir.path(), FAST, WHY);
    let doc = read_json(&json);
    let m = &doc["cells"][0]["measurements"][0];
    let intervals = m["intervals"].as_array().unwrap();
    let rate = |i: &Value| u(&i["bytes"]) as f64 / u(&i["length_ns"]) as f64 * 1e9;
    let held = |i: &Value| u(&i["cache"]["dirty_bytes"]) + u(&i["cache"]["writeback_bytes"]);
    let Some(cliff) = intervals.iter().position(|i| held(i) >= limit / 2) else {
        panic!("the page cache never neared the limit: {intervals:?}");
    };
    // At memory speed the first interval may pass half the limit already
    // (64 MiB in 20 ms is 3.2 GB/s): then it alone is "before".
    let mean = |part: &[Value]| -> f64 {
        // By bytes over time, so that a few ms' spike weighs what it moved.
        let bytes: u64 = part.iter().map(|i| u(&i["bytes"])).sum();
        let ns: u64 = part.iter().map(|i| u(&i["length_ns"])).sum();
        bytes as f64 / ns.max(1) as f64 * 1e9
    };
    let before = mean(&intervals[..=cliff]);
    let after = mean(&intervals[cliff + 1..intervals.len() - 1]);
    assert!(
        after < before / 2.0,
        "before the cliff (to interval {cliff}) {:.0} MiB/s, after {:.0} MiB/s: {:?}",
        before / 1048576.0,
        after / 1048576.0,
        intervals
            .iter()
            .map(|i| (rate(i) / 1048576.0) as u64)
            .collect::<Vec<_>>()
    );
    // The device's rate after it, within reach of the throttle's.
    assert!(after < 2.0 * (96u64 << 20) as f64, "{after}");
    // The report's chart draws the limit the page cache reached.
    let html = fs::read_to_string(dir.path().join("cliff.html")).unwrap();
    assert!(
        html.contains("the dirty limit (vm.dirty_bytes 128 MiB)"),
        "the limit on the chart"
    );
}

/// A device write held up by the block layer (a loop device throttled to
/// 256 KiB/s by cgroup v1's blkio, its writes O_DIRECT with -I): each
/// 512 KiB write takes about 2 s. Every interval ends on time all the
/// same: while the write is in flight, an interval of nothing each
/// 100 ms, saying how long the write has been in flight (growing by each
/// interval's length), in the live file while ioz still runs; the
/// intervals still add up to the pass; the report's chart shades each
/// stall and breaks the rate's line over it. Before, one interval
/// stretched over the whole write and no live line came until it ended.
fn a_stalled_write_ends_its_intervals_on_time() {
    const THROTTLE: &str = "/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device";
    if !Path::new(THROTTLE).exists() {
        skip("no cgroup v1 blkio throttle to hold the loop device's writes");
    }
    let fs_dir = Ext4::try_sized("noatime", 64 << 20).unwrap_or_else(|e| skip(e));
    let rdev = {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(&fs_dir.device).unwrap().rdev()
    };
    let device = format!("{}:{}", libc::major(rdev), libc::minor(rdev));
    let _ = quietly("losetup", &["--direct-io=on", &fs_dir.device]);
    /// The throttle lifted when the test ends, however it ends.
    struct Lifted(String);
    impl Drop for Lifted {
        fn drop(&mut self) {
            let _ = fs::write(THROTTLE, format!("{} 0", self.0));
        }
    }
    fs::write(THROTTLE, format!("{device} {}", 256u64 << 10))
        .unwrap_or_else(|e| skip(format!("cannot throttle {device}: {e}")));
    let _lifted = Lifted(device);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let target = fs_dir.mnt().join("t.tmp");
    let mut child = Command::new(IOZ)
        .args(["-I", "-s", "1m", "-r", "512k", "-i", "0", "-+n"])
        .args([
            "--interval",
            "100ms",
            "--live",
            "live.jsonl",
            "--json",
            "r.json",
        ])
        .args(["--html", "r.html", "-f", target.to_str().unwrap()])
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A stall line of three intervals' length at least, seen while ioz runs.
    let mut seen_running = None;
    let status = loop {
        if seen_running.is_none()
            && let Ok(text) = fs::read_to_string(d.join("live.jsonl"))
        {
            seen_running = text
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .find(|l| {
                    l["bytes"] == 0 && l["oldest_in_flight_ns"].as_u64() >= Some(300_000_000)
                });
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{stderr}");
    assert!(
        seen_running.is_some(),
        "no stall line while the write was in flight: {}",
        fs::read_to_string(d.join("live.jsonl")).unwrap_or_default()
    );
    let doc = read_json(&d.join("r.json"));
    let m = &doc["cells"][0]["measurements"][0];
    let intervals = m["intervals"].as_array().unwrap();
    assert_eq!(bytes_of(&m["intervals"]), 1 << 20);
    assert_eq!(intervals.iter().map(|i| u(&i["ops"])).sum::<u64>(), 2);
    // One after the other, without a gap.
    for pair in intervals.windows(2) {
        assert_eq!(
            u(&pair[0]["start_ns"]) + u(&pair[0]["length_ns"]),
            u(&pair[1]["start_ns"]),
            "{pair:?}"
        );
    }
    let stalled: Vec<&Value> = intervals
        .iter()
        .filter(|i| i["oldest_in_flight_ns"].is_u64())
        .collect();
    // About 38 of some 40 intervals: 2 s per write, 100 ms each.
    assert!(
        stalled.len() >= 20,
        "{} stalls: {intervals:?}",
        stalled.len()
    );
    for i in &stalled {
        assert_eq!((u(&i["bytes"]), u(&i["ops"])), (0, 0), "{i}");
    }
    // Within a stall, the write's time in flight grows by each interval's
    // length, exactly.
    for pair in intervals.windows(2) {
        if let (Some(a), Some(b)) = (
            pair[0]["oldest_in_flight_ns"].as_u64(),
            pair[1]["oldest_in_flight_ns"].as_u64(),
        ) {
            assert_eq!(b - a, u(&pair[1]["length_ns"]), "{pair:?}");
        }
    }
    // The live file is the saved run's lines, stalls included.
    let live = fs::read_to_string(d.join("live.jsonl")).unwrap();
    ok(d, &["report", "r.json", "--live", "again.jsonl"]);
    assert_eq!(live, fs::read_to_string(d.join("again.jsonl")).unwrap());
    // The chart: each stall shaded, the rate's line broken over it (a
    // polyline of the rate's colour per run between stalls).
    let html = fs::read_to_string(d.join("r.html")).unwrap();
    let shaded = html.matches("stalled, no operation completed").count();
    assert_eq!(shaded, stalled.len(), "a shaded span per stall");
    let runs_between = {
        let mut runs = 0;
        let mut inside = false;
        for i in intervals {
            let stall = i["oldest_in_flight_ns"].is_u64() && u(&i["ops"]) == 0;
            if !stall && !inside {
                runs += 1;
            }
            inside = !stall;
        }
        runs
    };
    assert!(runs_between >= 2, "{intervals:?}");
    let over_time = html.split("id=\"over-time\"").nth(1).unwrap();
    let rate_lines = over_time
        .split("<polyline ")
        .skip(1)
        .filter(|rest| {
            rest.split('>')
                .next()
                .unwrap()
                .contains("stroke=\"#2166ac\"")
        })
        .count();
    assert_eq!(rate_lines, runs_between, "a line per run between stalls");
}

/// -J 250: the loop computes 250 ms before each write, in 100 ms
/// intervals. The intervals end on time all the same (some with nothing
/// in them), and none is a stall: no operation was in flight. Before, an
/// interval lasted from one write to the next.
fn a_pause_between_operations_ends_intervals_on_time_and_is_no_stall() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = ["-s", "40k", "-r", "4k", "-i", "0", "-+n", "-J", "250"];
    let mut all = args.to_vec();
    all.extend(["--interval", "100ms", "--json", "r.json", "-f", "t.tmp"]);
    ok(d, &all);
    let doc = read_json(&d.join("r.json"));
    let m = &doc["cells"][0]["measurements"][0];
    let intervals = m["intervals"].as_array().unwrap();
    assert_eq!(bytes_of(&m["intervals"]), 40 << 10);
    let empty = intervals.iter().filter(|i| u(&i["bytes"]) == 0).count();
    assert!(
        empty >= 2,
        "no interval ended without a write: {intervals:?}"
    );
    assert!(
        intervals.iter().all(|i| i["oldest_in_flight_ns"].is_null()),
        "a pause called a stall: {intervals:?}"
    );
}

/// Two ranks of two workers: rank 0's JSON has the job's intervals (the
/// ranks' summed), each rank's beside, and its live file the same lines
/// `ioz report --live` writes.
fn across_ranks_rank_0_writes_the_job_s_sum_and_each_rank_s() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-t",
            "4",
            "-s",
            "4m",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "-f",
            "f",
            "--interval",
            "10ms",
            "--json",
            "r.json",
            "--live",
            "live.jsonl",
        ],
    );
    expect(&r, 0);
    let doc = read_json(&d.join("r.json"));
    assert_valid(&doc);
    for phase in doc["throughput"].as_array().unwrap() {
        let ranks = phase["rank_intervals"].as_array().unwrap();
        assert_eq!(ranks.len(), 2, "{phase}");
        let moved: u64 = phase["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| u(&w["bytes"]))
            .sum();
        let summed = bytes_of(&phase["intervals"]);
        assert_eq!(summed, moved, "the job's intervals add up to its workers'");
        for rank in ranks {
            let own = bytes_of(&rank["intervals"]);
            let of_rank: u64 = phase["results"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|w| w["client"]["rank"] == rank["rank"])
                .map(|w| u(&w["bytes"]))
                .sum();
            assert_eq!(own, of_rank, "rank {}", rank["rank"]);
        }
    }
    let first = rank_0_s_live_file(d);
    assert_eq!(u(&first["workers"]), 4);
}

/// Rank 0's live file: its first line has both ranks' beside the job's,
/// and `ioz report --live` writes the same lines again. Returns that line.
fn rank_0_s_live_file(d: &Path) -> Value {
    let live = fs::read_to_string(d.join("live.jsonl")).unwrap();
    let first: Value = serde_json::from_str(live.lines().next().expect("a live line")).unwrap();
    let ranks: Vec<u64> = first["beside"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| u(&b["rank"]))
        .collect();
    assert_eq!(ranks, [0, 1], "{first}");
    ok(d, &["report", "r.json", "--live", "again.jsonl"]);
    assert_eq!(fs::read_to_string(d.join("again.jsonl")).unwrap(), live);
    first
}

/// Single mode on two ranks: each rank's passes in intervals, the run's
/// cells their sum index by index, and rank 0's live file the job's lines.
fn across_ranks_in_auto_mode_each_pass_is_the_ranks_summed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = mpirun_ioz(
        d,
        2,
        &[
            "-s",
            "4m",
            "-r",
            "4k",
            "-i",
            "0",
            "-f",
            "f",
            "--interval",
            "10ms",
            "--json",
            "r.json",
            "--live",
            "live.jsonl",
        ],
    );
    expect(&r, 0);
    let doc = read_json(&d.join("r.json"));
    assert_valid(&doc);
    let sums = doc["cells"][0]["measurements"].as_array().unwrap();
    for (k, m) in sums.iter().enumerate() {
        let summed = bytes_of(&m["intervals"]);
        assert_eq!(summed, u(&m["bytes"]), "{}", m["pass"]);
        for rank in doc["ranks"].as_array().unwrap() {
            let own = &rank["cells"][0]["measurements"][k];
            check_series(
                &format!("rank {} {}", rank["client"]["rank"], own["pass"]),
                &own["intervals"],
                (0, u(&own["elapsed_ns"])),
                (u(&own["bytes"]), u(&own["records"])),
            );
        }
    }
    rank_0_s_live_file(d);
}
