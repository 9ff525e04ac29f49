//! What a new user trips on first (issue 13): the CSV of a throughput run,
//! records under 1 KiB, the closing line of a run that did not complete,
//! `ioz report`'s own help, `-R` printing the text in `ioz report`, and
//! two `-b` spreadsheets from one run.

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use calamine::{Data, Reader, Xlsx, open_workbook};
use serde_json::Value;

use crate::fixtures::{IOZ, Test, assert_refused, ioz, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_throughput_csv_holds_every_phase_as_the_json_does,
        with_dash_c_the_csv_has_a_row_per_worker,
        records_under_a_kb_print_their_true_size,
        a_throughput_run_of_byte_records_shows_their_size,
        an_interrupted_run_does_not_say_it_completed,
        a_failed_run_does_not_say_it_completed,
        report_has_its_own_help,
        report_dash_r_prints_the_text_whatever_files_are_asked,
        two_spreadsheets_are_both_written,
    ]
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// The CSV as (header, rows of named cells).
fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            assert_eq!(cells.len(), header.len(), "{l}");
            header
                .iter()
                .zip(cells)
                .map(|(h, c)| (h.to_string(), c.to_string()))
                .collect()
        })
        .collect()
}

fn num(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row.get(column)
        .unwrap_or_else(|| panic!("no column {column} in {row:?}"))
        .parse()
        .unwrap_or_else(|_| panic!("{column} is not a number in {row:?}"))
}

fn int(v: &Value) -> u64 {
    v.as_u64().unwrap()
}

/// `x` within a cent (the figures have two decimals) of `expected`.
fn close(x: f64, expected: f64) -> bool {
    (x - expected).abs() <= 0.005 + expected.abs() * 1e-12
}

fn a_throughput_csv_holds_every_phase_as_the_json_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = ioz(
        d,
        &[
            "-s", "1m", "-r", "64k", "-i", "0", "-i", "1", "-l", "1", "-u", "2", "--csv", "t.csv",
            "--json", "r.json", "-f", "t",
        ],
    );
    run.expect_code(0);
    let json = read_json(&d.join("r.json"));
    let phases = json["throughput"].as_array().unwrap();
    // Four phases for each of 1 and 2 workers.
    assert_eq!(phases.len(), 8);
    let rows = read_csv(&d.join("t.csv"));
    assert_eq!(rows.len(), phases.len(), "one row per phase");
    for (row, phase) in rows.iter().zip(phases) {
        let workers = phase["results"].as_array().unwrap();
        let sum = |key: &str| workers.iter().map(|w| int(&w[key])).sum::<u64>();
        assert_eq!(row["pass"], phase["pass"].as_str().unwrap());
        assert_eq!(num(row, "workers") as u64, int(&phase["workers"]));
        assert_eq!(row["worker"], "", "a phase's row names no worker");
        assert_eq!(num(row, "file_bytes") as u64, int(&phase["file_bytes"]));
        assert_eq!(num(row, "record_bytes") as u64, int(&phase["record_bytes"]));
        assert_eq!(num(row, "bytes") as u64, sum("bytes"));
        assert_eq!(num(row, "records") as u64, sum("records"));
        assert_eq!(num(row, "cpu_user_ns") as u64, sum("cpu_user_ns"));
        assert_eq!(
            num(row, "elapsed_ns") as u64,
            int(&phase["parent_elapsed_ns"])
        );
        // IOzone's figures, from the JSON's raw counts.
        let rates: Vec<f64> = workers
            .iter()
            .map(|w| int(&w["bytes"]) as f64 / 1024.0 / (int(&w["elapsed_ns"]).max(1) as f64 / 1e9))
            .collect();
        let children: f64 = rates.iter().sum();
        let parent = sum("bytes") as f64 / 1024.0 / (int(&phase["parent_elapsed_ns"]) as f64 / 1e9);
        let min = rates.iter().copied().fold(f64::MAX, f64::min);
        let max = rates.iter().copied().fold(0.0, f64::max);
        let min_xfer = workers
            .iter()
            .map(|w| int(&w["bytes"]) as f64 / 1024.0)
            .fold(f64::MAX, f64::min);
        for (column, expected) in [
            ("children_see_kib_per_sec", children),
            ("parent_sees_kib_per_sec", parent),
            ("min_kib_per_sec", min),
            ("max_kib_per_sec", max),
            ("avg_kib_per_sec", children / rates.len() as f64),
            ("min_xfer_kib", min_xfer),
        ] {
            assert!(
                close(num(row, column), expected),
                "{column}: {} vs {expected} in {row:?}",
                row[column]
            );
        }
        // And the very digits of the text's block.
        let label = format!(
            "Children see throughput for {}",
            match (row["pass"].as_str(), workers.len()) {
                ("write", n) => format!("{n:2} initial writers"),
                ("rewrite", n) => format!("{n:2} rewriters"),
                ("read", n) => format!("{n:2} readers"),
                (_, n) => format!("{n} re-readers"),
            }
        );
        let printed = format!("= {:>10} KB/sec", row["children_see_kib_per_sec"]);
        assert!(
            run.stdout
                .lines()
                .any(|l| l.contains(&label) && l.ends_with(&printed)),
            "{label} {printed} not printed:\n{}",
            run.stdout
        );
    }
    // `ioz report` writes the same CSV from the saved run.
    ioz(d, &["report", "r.json", "--csv", "again.csv"]).expect_code(0);
    assert_eq!(
        fs::read(d.join("again.csv")).unwrap(),
        fs::read(d.join("t.csv")).unwrap()
    );
}

fn with_dash_c_the_csv_has_a_row_per_worker() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ioz(
        d,
        &[
            "-s", "1m", "-r", "64k", "-i", "0", "-t", "3", "-C", "-O", "--csv", "t.csv", "--json",
            "r.json", "-f", "t",
        ],
    )
    .expect_code(0);
    let json = read_json(&d.join("r.json"));
    let phases = json["throughput"].as_array().unwrap();
    let rows = read_csv(&d.join("t.csv"));
    assert_eq!(
        rows.len(),
        phases.len() * 4,
        "a phase row and 3 worker rows"
    );
    for (chunk, phase) in rows.chunks(4).zip(phases) {
        assert_eq!(chunk[0]["worker"], "");
        assert!(chunk[0]["ops_per_sec"].is_empty());
        for (row, w) in chunk[1..].iter().zip(phase["results"].as_array().unwrap()) {
            assert_eq!(num(row, "worker") as u64, int(&w["worker"]));
            assert_eq!(num(row, "bytes") as u64, int(&w["bytes"]));
            assert_eq!(num(row, "records") as u64, int(&w["records"]));
            assert_eq!(num(row, "elapsed_ns") as u64, int(&w["elapsed_ns"]));
            assert_eq!(row["stonewalled"], w["stonewalled"].to_string());
            assert!(row["children_see_ops_per_sec"].is_empty());
            let ops = int(&w["records"]) as f64 / (int(&w["elapsed_ns"]) as f64 / 1e9);
            assert!(close(num(row, "ops_per_sec"), ops), "{row:?}");
            assert!(close(num(row, "xfer_ops"), int(&w["records"]) as f64));
        }
    }
}

/// Cells of a worksheet by (row, column).
type Cells<T> = BTreeMap<(u16, u16), T>;

/// The NUMBER cells of a BIFF2 worksheet, and its labels.
fn biff_cells(bytes: &[u8]) -> (Cells<f64>, Cells<String>) {
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let (mut numbers, mut labels) = (BTreeMap::new(), BTreeMap::new());
    let mut i = 8;
    while i + 4 <= bytes.len() {
        let (op, len) = (u16_at(i), usize::from(u16_at(i + 2)));
        let body = &bytes[i + 4..i + 4 + len];
        i += 4 + len;
        let at = || {
            (
                u16::from_le_bytes([body[0], body[1]]),
                u16::from_le_bytes([body[2], body[3]]),
            )
        };
        match op {
            0x0003 => {
                numbers.insert(at(), f64::from_le_bytes(body[7..15].try_into().unwrap()));
            }
            0x0004 => {
                let n = usize::from(body[7]);
                labels.insert(at(), String::from_utf8_lossy(&body[8..8 + n]).into_owned());
            }
            _ => {}
        }
    }
    (numbers, labels)
}

fn records_under_a_kb_print_their_true_size() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = ioz(
        d,
        &[
            "-s", "64k", "-r", "8b", "-i", "0", "-R", "-b", "r.xls", "-b", "r.xlsx", "--csv",
            "r.csv", "-f", "t",
        ],
    );
    run.expect_code(0);
    let out = &run.stdout;
    assert!(out.contains("\tRecord Size 0.0078125 KB\n"), "{out}");
    // The table: IOzone's header, which scripts find the table by, and the
    // record size in the row, widening its column as a wide number does.
    let lines: Vec<&str> = out.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("KB  reclen   write rewrite"))
        .unwrap_or_else(|| panic!("no IOzone header:\n{out}"));
    let row = lines[header + 1];
    let fields: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&fields[..2], ["64", "0.0078125"], "{row}");
    assert!(row.starts_with("              64 0.0078125 "), "{row}");
    // The -R blocks' record-size header.
    assert_eq!(
        out.matches("\n        \"0.0078125\"\n\"64\"   ").count(),
        2,
        "{out}"
    );
    assert!(!out.contains("\"0\""), "{out}");
    // The .xls: the record size cell of each block.
    let (numbers, labels) = biff_cells(&fs::read(d.join("r.xls")).unwrap());
    let title = labels
        .iter()
        .find(|(_, l)| *l == "Writer Report")
        .map(|(&at, _)| at)
        .expect("a Writer Report block");
    assert_eq!(
        numbers.get(&(title.0 + 1, 1)),
        Some(&0.0078125),
        "{numbers:?}"
    );
    // The .xlsx: the header row of the grid.
    let mut book: Xlsx<_> = open_workbook(d.join("r.xlsx")).unwrap();
    let sheet = book.worksheet_range("Writer Report").unwrap();
    let head = sheet
        .rows()
        .find(|r| matches!(&r[0], Data::String(s) if s.starts_with("file kB")))
        .expect("the grid's header row");
    assert_eq!(head[1], Data::Float(0.0078125));
    // The CSV gives bytes.
    let rows = read_csv(&d.join("r.csv"));
    assert!(rows.iter().all(|r| r["record_bytes"] == "8"), "{rows:?}");
}

fn a_throughput_run_of_byte_records_shows_their_size() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-t", "2", "-s", "16k", "-r", "8b", "-i", "0", "-R", "-f", "t",
        ],
    );
    run.expect_code(0);
    let out = &run.stdout;
    assert!(out.contains("\tRecord Size 0.0078125 KB\n"), "{out}");
    assert!(!out.contains(" 0 KB"), "{out}");
    assert!(out.contains(" file in 8 byte records\n"), "{out}");
    assert!(out.contains("\"Record size = 8 bytes \""), "{out}");
}

/// Starts `ioz args` in `dir`, calls `meanwhile` once the test file exists
/// (the run is then in its first pass), and returns the exit status, stdout
/// and stderr.
fn run_and_meanwhile(
    dir: &Path,
    args: &[&str],
    meanwhile: impl FnOnce(u32),
) -> (Option<i32>, String, String) {
    let mut child = Command::new(IOZ)
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start ioz");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut head = String::new();
    while stdout.read_line(&mut head).unwrap() > 0 && !head.contains("reclen") {}
    let file = dir.join("t.tmp");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !file.exists() && Instant::now() < deadline {
        thread::sleep(Duration::from_millis(5));
    }
    thread::sleep(Duration::from_millis(50));
    meanwhile(child.id());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    (status.code(), head + &rest, stderr)
}

/// A million 8-byte writes: seconds of work to stop in the middle of.
const SLOW: &[&str] = &[
    "-s", "8m", "-r", "8b", "-i", "0", "-i", "1", "-f", "t.tmp", "--json", "r.json",
];

fn an_interrupted_run_does_not_say_it_completed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (code, stdout, stderr) = run_and_meanwhile(d, SLOW, |pid| {
        let kill = Command::new("kill")
            .args(["-INT", &pid.to_string()])
            .status()
            .unwrap();
        assert!(kill.success());
    });
    assert_eq!(code, Some(130), "{stderr}");
    assert!(!stdout.contains("complete"), "{stdout}");
    assert!(
        stdout.ends_with("\n\nioz test interrupted by SIGINT.\n"),
        "{stdout}"
    );
    // The saved run says the same when printed again.
    let again = ioz(d, &["report", "r.json"]);
    again.expect_code(0);
    assert_eq!(again.stdout, stdout);
}

fn a_failed_run_does_not_say_it_completed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (code, stdout, stderr) = run_and_meanwhile(d, SLOW, |_| {
        fs::remove_file(d.join("t.tmp")).unwrap();
    });
    assert_eq!(code, Some(1), "{stderr}");
    assert!(!stdout.contains("complete"), "{stdout}");
    let last = stdout.lines().last().unwrap();
    assert!(last.starts_with("ioz test failed: "), "{stdout}");
    assert!(
        last.contains("t.tmp") && last.contains("No such file"),
        "{last}"
    );
    assert_eq!(ioz(d, &["report", "r.json"]).stdout, stdout);
}

fn report_has_its_own_help() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["report", "-h"][..],
        &["report", "--help"],
        &["report", "r.json", "-R", "--help"],
    ] {
        let run = ioz(dir.path(), args);
        run.expect_code(0);
        assert_eq!(run.stderr, "", "{args:?}");
        assert!(
            run.stdout.starts_with("Usage: ioz report RUN.json"),
            "{}",
            run.stdout
        );
        for option in [
            "--text",
            "-R",
            "-b FILE",
            "--json FILE",
            "--csv FILE",
            "--html FILE",
            "--plots DIR",
            "--force",
        ] {
            assert!(
                run.stdout.contains(&format!("\n  {option} ")),
                "{option} missing:\n{}",
                run.stdout
            );
        }
        assert!(run.stdout.lines().all(|l| l.chars().count() <= 80));
    }
    assert!(list_dir(dir.path()).is_empty());
    // The main help points to it.
    assert!(ioz(dir.path(), &["-h"]).stdout.contains("ioz report -h"));
    // A mistake says where the options are.
    let bad = ioz(dir.path(), &["report", "r.json", "--bogus"]);
    assert_refused(
        &bad,
        "report: unknown option --bogus (ioz report -h lists its options)",
    );
}

fn report_dash_r_prints_the_text_whatever_files_are_asked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ioz(
        d,
        &[
            "-s", "64k", "-r", "16k", "-i", "0", "--json", "r.json", "-f", "t",
        ],
    )
    .expect_code(0);
    let with_r = ioz(d, &["report", "r.json", "-R"]);
    with_r.expect_code(0);
    assert!(
        with_r.stdout.contains("Excel output is below:"),
        "{}",
        with_r.stdout
    );
    for args in [
        &["report", "r.json", "-R", "--plots", "p"][..],
        &[
            "report", "r.json", "--csv", "c.csv", "-R", "--html", "h.html",
        ],
        // -b implies -R, as it does in a run.
        &["report", "r.json", "-b", "f.xls"],
    ] {
        let run = ioz(d, args);
        run.expect_code(0);
        assert_eq!(run.stdout, with_r.stdout, "ioz {args:?}");
    }
    assert!(d.join("p/write.png").is_file() && d.join("f.xls").is_file());
    // Files alone print nothing, as before.
    let quiet = ioz(d, &["report", "r.json", "--csv", "c.csv"]);
    quiet.expect_code(0);
    assert_eq!(quiet.stdout, "");
}

fn two_spreadsheets_are_both_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let args = [
        "-s", "64k", "-r", "16k", "-i", "0", "-b", "old.xls", "-b", "new.xlsx", "--json", "r.json",
        "-f", "t",
    ];
    ioz(d, &args).expect_code(0);
    assert_eq!(list_dir(d), ["new.xlsx", "old.xls", "r.json"]);
    // Both are the run's, as `ioz report` renders each from the saved run.
    ioz(
        d,
        &["report", "r.json", "-b", "again.xls", "-b", "again.xlsx"],
    )
    .expect_code(0);
    assert_eq!(
        fs::read(d.join("again.xls")).unwrap(),
        fs::read(d.join("old.xls")).unwrap()
    );
    assert_eq!(
        fs::read(d.join("again.xlsx")).unwrap(),
        fs::read(d.join("new.xlsx")).unwrap()
    );
    // The saved run lists both; a run with one -b saves its path as before.
    let json = read_json(&d.join("r.json"));
    assert_eq!(
        json["config"]["outputs"]["spreadsheet"],
        serde_json::json!(["old.xls", "new.xlsx"])
    );
    ioz(
        d,
        &[
            "-s", "64k", "-i", "0", "-b", "one.xls", "--json", "one.json", "-f", "t",
        ],
    )
    .expect_code(0);
    let one = read_json(&d.join("one.json"));
    assert_eq!(one["config"]["outputs"]["spreadsheet"], "one.xls");
    // The same file twice is refused before the run, however it is spelled.
    let twice = ioz(
        d,
        &[
            "-s", "64k", "-i", "0", "-b", "x.xls", "-b", "./x.xls", "-f", "t",
        ],
    );
    assert_refused(&twice, "-b: ./x.xls is also the -b file");
}
