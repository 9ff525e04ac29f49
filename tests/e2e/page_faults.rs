//! No page faults of ioz's own in the timed region (issue 24): every pass's
//! page faults and context switches in the JSON, `-+u`'s table and the
//! HTML, per worker in throughput mode, and the mmap engine's faults marked
//! as the engine's own.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::fixtures::{Test, ioz, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        sync_passes_take_no_page_fault,
        throughput_workers_take_no_page_fault,
        cpu_utilisation_shows_each_region_and_marks_the_mmap_engine,
        html_report_shows_what_the_regions_cost,
    ]
}

/// Runs ioz with `args` and `--json` in `dir`, and returns the saved run.
fn run_json(dir: &Path, args: &[&str]) -> Value {
    let json = dir.join("run.json");
    let mut all = args.to_vec();
    all.extend(["-f", "t.tmp", "--json", json.to_str().unwrap()]);
    ioz(dir, &all).expect_code(0);
    serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap()
}

/// A count of a region's usage.
fn count(usage: &Value, name: &str) -> u64 {
    usage[name]
        .as_u64()
        .unwrap_or_else(|| panic!("no {name} in {usage}"))
}

/// Every measurement of a single or auto run: (file kB, record kB, pass, usage).
fn measurements(doc: &Value) -> Vec<(u64, u64, String, Value)> {
    let mut all = Vec::new();
    for cell in doc["cells"].as_array().unwrap() {
        for m in cell["measurements"].as_array().unwrap() {
            all.push((
                m["file_bytes"].as_u64().unwrap() >> 10,
                m["record_bytes"].as_u64().unwrap() >> 10,
                m["pass"].as_str().unwrap().to_string(),
                m["usage"].clone(),
            ));
        }
    }
    all
}

/// The large-record read of the issue and a small auto grid with every
/// reading test of the sync and stdio engines: every pass's buffers are
/// mapped and touched before its clock, so no timed region takes a fault
/// (on main, the JSON counted none of it).
fn sync_passes_take_no_page_fault() {
    let dir = tempfile::tempdir().unwrap();
    let runs: [&[&str]; 2] = [
        &["-s", "8m", "-r", "4m", "-i", "0", "-i", "1"],
        &[
            "-a", "-n", "64k", "-g", "1m", "-i", "0", "-i", "1", "-i", "2", "-i", "3", "-i", "5",
            "-i", "7",
        ],
    ];
    for args in runs {
        let doc = run_json(dir.path(), args);
        let all = measurements(&doc);
        assert!(
            all.iter().any(|(_, _, pass, _)| pass == "read"),
            "{args:?}: no read pass"
        );
        for (file, rec, pass, usage) in &all {
            assert!(
                usage.is_object(),
                "{args:?}: {pass} at {file}/{rec}: no usage"
            );
            assert_eq!(
                (count(usage, "minor_faults"), count(usage, "major_faults")),
                (0, 0),
                "{args:?}: {pass} at {file} kB, {rec} kB records: {usage}"
            );
            // Present and counted (a number), whatever the machine's load.
            count(usage, "voluntary_context_switches");
            count(usage, "involuntary_context_switches");
        }
    }
    // The reads of -Q and --latency record into memory touched before the clock too.
    let doc = run_json(
        dir.path(),
        &[
            "-s",
            "4m",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "-Q",
            "--latency",
        ],
    );
    for (_, _, pass, usage) in measurements(&doc) {
        assert_eq!(count(&usage, "minor_faults"), 0, "{pass} with -Q: {usage}");
    }
}

/// Each worker counts its own region: a thread its own (RUSAGE_THREAD), a
/// process its own, with its code mapped again after the fork.
fn throughput_workers_take_no_page_fault() {
    let dir = tempfile::tempdir().unwrap();
    for threads in [false, true] {
        let mut args = vec!["-t", "2", "-s", "1m", "-r", "16k", "-i", "0", "-i", "1"];
        if threads {
            args.push("-T");
        }
        let doc = run_json(dir.path(), &args);
        let phases = doc["throughput"].as_array().unwrap();
        assert_eq!(phases.len(), 4, "{args:?}");
        for phase in phases {
            let workers = phase["results"].as_array().unwrap();
            assert_eq!(workers.len(), 2);
            for w in workers {
                let usage = &w["usage"];
                assert_eq!(
                    count(usage, "minor_faults"),
                    0,
                    "{args:?}: {} worker {}: {usage}",
                    phase["pass"],
                    w["worker"]
                );
            }
        }
    }
}

/// `-+u` prints a row per pass after the table, which IOzone's scripts pass
/// over (each row names its test), and marks the mmap engine's faults as its own.
fn cpu_utilisation_shows_each_region_and_marks_the_mmap_engine() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s", "1m", "-r", "64k", "-i", "0", "-i", "1", "-+u", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    let out = &run.stdout;
    let at = out
        .find("\nioz's own cost of each timed region")
        .unwrap_or_else(|| panic!("no block in:\n{out}"));
    let rows: Vec<&str> = out[at..].lines().skip(3).take(4).collect();
    for (row, pass) in rows.iter().zip(["write", "rewrite", "read", "reread"]) {
        let fields: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(&fields[..4], &["1024", "64", pass, "0"], "{row}");
        assert!(!row.ends_with('*'), "{row}");
    }
    assert!(!out.contains("mmap engine"), "no note without -B:\n{out}");
    // The table itself is IOzone's: one row of numbers only.
    assert_eq!(crate::fixtures::data_rows(out).len(), 1, "{out}");

    let run = ioz(
        dir.path(),
        &[
            "-s", "1m", "-r", "64k", "-i", "0", "-i", "1", "-B", "-+u", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    let out = &run.stdout;
    let block = &out[out.find("\nioz's own cost").expect("the block")..];
    let write = block
        .lines()
        .find(|l| l.split_whitespace().nth(2) == Some("write"))
        .unwrap_or_else(|| panic!("no write row in:\n{out}"));
    let faults: u64 = write.split_whitespace().nth(3).unwrap().parse().unwrap();
    // Writing 1 MiB through a mapping of the file faults its 256 pages in.
    assert!(faults >= 16, "{write}");
    assert!(write.ends_with(" *"), "{write}");
    assert!(
        out.contains("  * the file is mapped (mmap engine): its pages fault in"),
        "{out}"
    );

    // Without -+u the output is as it was.
    let run = ioz(
        dir.path(),
        &["-s", "1m", "-r", "64k", "-i", "0", "-f", "t.tmp"],
    );
    assert!(!run.stdout.contains("ioz's own cost"), "{}", run.stdout);
}

/// The HTML page's section: the run's total of faults of ioz's own (none)
/// and a row per pass.
fn html_report_shows_what_the_regions_cost() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("run.html");
    ioz(
        dir.path(),
        &[
            "-s",
            "1m",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "-f",
            "t.tmp",
            "--html",
            page.to_str().unwrap(),
        ],
    )
    .expect_code(0);
    let html = fs::read_to_string(&page).unwrap();
    let at = html
        .find("<section id=\"cost\">")
        .unwrap_or_else(|| panic!("no cost section"));
    let section = &html[at..at + html[at..].find("</section>").unwrap()];
    assert!(
        section.contains("in this run: <strong>0</strong>."),
        "{section}"
    );
    assert!(section.contains("Every timed region (4 rows)"), "{section}");
    for pass in ["write", "rewrite", "read", "reread"] {
        assert!(section.contains(&format!("<td>{pass}</td>")), "{pass}");
    }
}
