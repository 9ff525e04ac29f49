//! `--json` then `ioz report`: a saved run renders exactly as it was printed,
//! converts to CSV and JSON without loss, and bad input is refused with one
//! line and no harm done.

use std::fs;
use std::path::Path;

use crate::fixtures::{self, Test, ioz, list_dir, trials};
use ioz::model::workload::Pass;
use ioz::report::json::parse_run;
use serde_json::Value;

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        report_reprints_a_run_with_dash_r_byte_for_byte,
        report_reprints_a_run_without_dash_r_byte_for_byte,
        report_reprints_an_auto_run_byte_for_byte,
        report_reprints_a_telemetry_run_and_renders_every_format,
        report_dash_r_adds_the_excel_block_to_a_run_without_it,
        report_converts_to_csv_and_json_without_loss,
        bad_saved_runs_are_refused_with_one_line,
        json_into_a_missing_directory_is_refused_before_the_run,
    ]
}

/// Runs `ioz ARGS --json r.json -f t.tmp` in `dir`; returns what it printed.
fn run_saving_json(dir: &Path, args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.extend(["--json", "r.json", "-f", "t.tmp"]);
    let run = ioz(dir, &all);
    run.expect_code(0);
    assert!(dir.join("r.json").is_file(), "no r.json:\n{}", run.stderr);
    run.stdout
}

fn assert_report_reprints(args: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    assert_report_reprints_in(dir.path(), args);
}

/// As [`assert_report_reprints`], in `dir` (which may hold the run's inputs).
fn assert_report_reprints_in(dir: &Path, args: &[&str]) {
    let printed = run_saving_json(dir, args);
    assert!(printed.contains("ioz test complete."), "{printed}");
    for extra in [&[][..], &["--text"][..]] {
        let mut report_args = vec!["report", "r.json"];
        report_args.extend(extra);
        let report = ioz(dir, &report_args);
        report.expect_code(0);
        assert_eq!(report.stderr, "", "ioz {report_args:?}");
        if report.stdout != printed {
            panic!(
                "ioz {report_args:?} differs from the run {args:?}\n--- run ---\n{printed}\n--- report ---\n{}",
                report.stdout
            );
        }
    }
}

fn report_reprints_a_run_with_dash_r_byte_for_byte() {
    assert_report_reprints(&[
        "-s", "64k", "-r", "16k", "-i", "0", "-i", "1", "-i", "2", "-R",
    ]);
}

fn report_reprints_a_run_without_dash_r_byte_for_byte() {
    assert_report_reprints(&["-s", "64k", "-r", "16k", "-i", "0", "-i", "1", "-i", "2"]);
}

fn report_reprints_an_auto_run_byte_for_byte() {
    assert_report_reprints(&["-a", "-n", "64k", "-g", "256k", "-q", "64k"]);
}

fn report_reprints_a_telemetry_run_and_renders_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(
        d.join("w.txt"),
        "# offset size delay\n100 5000 1\n0 777\n65536 12345\n",
    )
    .unwrap();
    fs::write(d.join("r.txt"), "0 4096\n70000 7000\n").unwrap();
    assert_report_reprints_in(d, &["-X", "w.txt", "-Y", "r.txt", "-R", "-+u"]);
    let printed = ioz(d, &["report", "r.json", "-R"]).stdout;
    assert!(
        printed.contains("\n\"Writer report\"\n        \"0\"\n\"76\"  "),
        "the -R block has one column, reclen 0:\n{printed}"
    );
    // Every exporter renders reclen 0 (no division by the record size).
    let report = ioz(
        d,
        &[
            "report", "r.json", "-b", "x.xls", "--csv", "x.csv", "--plots", "plots", "--html",
            "x.html",
        ],
    );
    report.expect_code(0);
    let xlsx = ioz(d, &["report", "r.json", "-b", "x.xlsx"]);
    xlsx.expect_code(0);
    for out in [
        "x.xls",
        "x.xlsx",
        "x.csv",
        "x.html",
        "plots/write.svg",
        "plots/reread.png",
    ] {
        assert!(d.join(out).is_file(), "{out} missing: {}", report.stderr);
    }
    let csv = fs::read_to_string(d.join("x.csv")).unwrap();
    assert!(csv.contains("\n0,write,77881,0,1,18122,3,"), "{csv}");
}

fn report_dash_r_adds_the_excel_block_to_a_run_without_it() {
    let dir = tempfile::tempdir().unwrap();
    let plain = run_saving_json(dir.path(), &["-s", "64k", "-r", "16k", "-i", "0"]);
    let with_r = ioz(dir.path(), &["report", "r.json", "-R"]);
    with_r.expect_code(0);
    assert!(with_r.stdout.starts_with(&plain));
    assert!(with_r.stdout.len() > plain.len());
    assert!(with_r.stdout.contains("Writer report"), "{}", with_r.stdout);
}

fn report_converts_to_csv_and_json_without_loss() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_saving_json(
        d,
        &[
            "-s", "64k", "-r", "16k", "-i", "0", "-i", "1", "-i", "2", "-i", "8",
        ],
    );
    let report = ioz(
        d,
        &["report", "r.json", "--csv", "c.csv", "--json", "again.json"],
    );
    report.expect_code(0);
    assert_eq!(report.stdout, "", "file outputs only: no text by default");

    // The JSON reads back equal, and is byte for byte what the run wrote.
    let read_run = |name: &str| parse_run(&fs::read(d.join(name)).unwrap(), name).unwrap();
    assert_eq!(read_run("again.json"), read_run("r.json"));
    assert_eq!(
        fs::read(d.join("again.json")).unwrap(),
        fs::read(d.join("r.json")).unwrap()
    );

    // Each CSV row is one measurement of the JSON, in order, value for value.
    let json: Value = serde_json::from_slice(&fs::read(d.join("r.json")).unwrap()).unwrap();
    let measurements: Vec<&Value> = json["cells"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["measurements"].as_array().unwrap())
        .collect();
    assert_eq!(measurements.len(), 7);
    let mut reader = csv::Reader::from_path(d.join("c.csv")).unwrap();
    let header = reader.headers().unwrap().clone();
    assert_eq!(
        header.iter().collect::<Vec<_>>(),
        [
            "test",
            "pass",
            "file_bytes",
            "record_bytes",
            "workers",
            "bytes",
            "records",
            "elapsed_ns",
            "cpu_user_ns",
            "cpu_system_ns",
            "kib_per_sec",
            "ops_per_sec",
            "micros_per_op",
            "regime",
            "measured_regime",
            "residency_source",
            "file_pages",
            "cached_pages_start",
            "cached_pages_end",
            "unwritten_pages_end"
        ]
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), measurements.len());
    for (row, m) in rows.iter().zip(&measurements) {
        let pass: Pass = serde_json::from_value(m["pass"].clone()).unwrap();
        assert_eq!(row[0], pass.test().number().to_string(), "{row:?}");
        assert_eq!(Some(&row[1]), m["pass"].as_str(), "{row:?}");
        for (name, value) in header.iter().zip(row.iter()).skip(2) {
            if name == "regime" {
                // The JSON's regime is an object; the column is its code.
                assert_eq!(m["regime"]["code"].as_str(), Some(value), "{row:?}");
                continue;
            }
            // What the page cache held, from the JSON's residency.
            let r = &m["residency"];
            let from_json = match name {
                "measured_regime" => m["regime"]["measured"]["code"].as_str().map(String::from),
                "residency_source" => r["source"].as_str().map(String::from),
                "file_pages" => r["end"]["pages"].as_u64().map(|n| n.to_string()),
                "cached_pages_start" => r["start"]["cached"].as_u64().map(|n| n.to_string()),
                "cached_pages_end" => r["end"]["cached"].as_u64().map(|n| n.to_string()),
                "unwritten_pages_end" => {
                    let e = &r["end"];
                    e["dirty"]
                        .as_u64()
                        .zip(e["writeback"].as_u64())
                        .map(|(d, w)| (d + w).to_string())
                }
                _ => {
                    assert_eq!(
                        m[name].as_u64().map(|n| n.to_string()).as_deref(),
                        Some(value),
                        "column {name} of {row:?}"
                    );
                    continue;
                }
            };
            assert_eq!(
                from_json.as_deref().unwrap_or(""),
                value,
                "column {name} of {row:?}"
            );
        }
    }
}

/// `ioz report FILE --csv c.csv` on bad input: status 2, one stderr line
/// naming the file, nothing on stdout, nothing written or changed.
fn assert_refused(dir: &Path, name: &str, expect: &str) {
    let path = dir.join(name);
    let before = fs::read(&path).ok();
    let listing = list_dir(dir);
    let run = ioz(dir, &["report", name, "--csv", "c.csv"]);
    let line = fixtures::assert_refused(&run, expect);
    assert!(line.starts_with("ioz: report: "), "{name}: {line}");
    assert!(line.contains(name), "{name}: {line}");
    assert_eq!(fs::read(&path).ok(), before, "{name} changed");
    assert_eq!(list_dir(dir), listing, "{name}: files appeared");
}

fn bad_saved_runs_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_saving_json(d, &["-s", "64k", "-r", "16k", "-i", "0"]);
    let good = fs::read_to_string(d.join("r.json")).unwrap();
    fs::write(d.join("text.json"), "Run began: yesterday\n").unwrap();
    fs::write(d.join("cut.json"), &good[..good.len() / 2]).unwrap();
    let v99 = good.replacen("\"schema_version\": 2,", "\"schema_version\": 99,", 1);
    assert_ne!(v99, good);
    fs::write(d.join("v99.json"), v99).unwrap();

    assert_refused(d, "absent.json", "cannot read");
    assert_refused(d, "text.json", "line 1 column 1");
    assert_refused(d, "cut.json", "EOF while parsing");
    assert_refused(
        d,
        "v99.json",
        "has schema_version 99; this ioz reads 1 and 2",
    );
    // A directory is not a saved run either.
    fs::create_dir(d.join("dir.json")).unwrap();
    assert_refused(d, "dir.json", "cannot read");
}

fn json_into_a_missing_directory_is_refused_before_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s",
            "64k",
            "-r",
            "16k",
            "-i",
            "0",
            "--json",
            "nodir/r.json",
            "-f",
            "t.tmp",
        ],
    );
    run.expect_code(2);
    assert_eq!(run.stdout, "", "refused before the banner");
    assert!(run.stderr.contains("--json"), "{}", run.stderr);
    assert!(run.stderr.contains("nodir"), "{}", run.stderr);
    assert_eq!(
        list_dir(dir.path()),
        Vec::<String>::new(),
        "nothing left behind"
    );
}
