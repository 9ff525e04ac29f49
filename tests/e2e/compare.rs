//! `ioz compare` with the real binary (issue 14, items 4-6): a run against
//! itself, IOzone's own logs read cell by cell, a clearly slower run (several
//! measurements per pass, as repeated runs store them) found slower with a
//! small p-value and failing `--fail-if-slower`, the result files, the HTML
//! page in headless Chromium, and bad inputs refused with one line.

use std::fs;
use std::path::{Path, PathBuf};

use calamine::{Reader, Xlsx, open_workbook};
use serde_json::Value;

use crate::fixtures::chromium::{Headless, chromium, headless_once};
use crate::fixtures::{Ext4, Test, assert_refused, data_file, ioz, quiet, skip, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_run_compared_with_itself_is_the_same_everywhere,
        every_cell_of_the_iozone_reference_logs_is_read,
        two_iozone_logs_are_compared_cell_by_cell,
        a_clearly_slower_run_is_slower_with_a_small_p,
        fail_if_slower_exits_1_naming_the_cells,
        a_directory_of_runs_is_pooled,
        real_repeated_runs_are_compared_with_all_their_samples,
        the_files_are_written_and_coloured_by_verdict,
        the_summary_marks_and_colours_all_come_from_the_verdicts,
        bad_inputs_are_refused_with_one_line,
        an_output_on_an_input_is_refused,
        the_help_lists_every_option,
        colours_on_a_terminal_only_and_never_with_no_color,
        chromium_renders_the_comparison_page => [Chromium],
        o_sync_writes_are_slower_than_plain_ones_and_fail_the_gate => [Ext4],
        seed_004_scaled_down_ends_in_the_charts => [Chromium],
    ]
}

fn fixture(name: &str) -> String {
    data_file(&format!("compare/{name}")).display().to_string()
}

fn log(name: &str) -> String {
    data_file(&format!("iozone-reference/{name}"))
        .display()
        .to_string()
}

/// `ioz compare ARGS… --json c.json` in `dir`, expecting `code`; the JSON.
fn compare_json(dir: &Path, args: &[&str], code: i32) -> (crate::fixtures::Run, Value) {
    let mut all: Vec<&str> = vec!["compare"];
    all.extend(args);
    all.extend(["--json", "c.json", "--text"]);
    let run = ioz(dir, &all);
    run.expect_code(code);
    let json = fs::read_to_string(dir.join("c.json")).expect("no c.json");
    (run, serde_json::from_str(&json).expect("c.json is JSON"))
}

fn cells(doc: &Value, pair: usize) -> &Vec<Value> {
    doc["pairs"][pair]["cells"].as_array().expect("cells")
}

/// The cell of `pass` at `file_kb`/`record_kb` (and `workers`) of a pair.
fn cell<'a>(
    doc: &'a Value,
    pass: &str,
    file_kb: u64,
    record_kb: u64,
    workers: Option<u64>,
) -> &'a Value {
    cells(doc, 0)
        .iter()
        .find(|c| {
            c["cell"]["pass"] == pass
                && c["cell"]["file_bytes"] == file_kb * 1024
                && c["cell"]["record_bytes"] == record_kb * 1024
                && c["cell"]["workers"].as_u64() == workers
        })
        .unwrap_or_else(|| panic!("no {pass} {file_kb}/{record_kb} cell"))
}

fn a_run_compared_with_itself_is_the_same_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let base = fixture("base.json");
    let (run, doc) = compare_json(dir.path(), &[&base, &base, "--fail-if-slower", "0"], 0);
    let all = cells(&doc, 0);
    assert_eq!(all.len(), 6 * 4, "every cell of the run");
    for c in all {
        assert_eq!(c["verdict"], "same", "{c}");
        assert_eq!(c["ratio"], 1.0);
        assert_eq!(c["basis"], "significance");
        assert_eq!(c["base"]["n"], 5);
    }
    assert!(
        run.stdout
            .contains("24 cells compared: 0 faster, 0 slower, 24 the same"),
        "{}",
        run.stdout
    );
    // Not a terminal: no colours.
    assert!(!run.stdout.contains('\x1b'));
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

fn every_cell_of_the_iozone_reference_logs_is_read() {
    // Each log against itself: every cell read, every one the same (one
    // sample a side, so by the band alone).
    let expected = [
        ("auto.txt", 35 * 13),
        ("auto_report.txt", 26 * 13),
        ("nfs_style.txt", 18 * 13),
        ("auto2.txt", 18 * 4),
        ("auto_crossover.txt", 26 * 2),
        ("single_9_10_E.txt", 8),
        ("cpu_util.txt", 4),
        ("ops_per_sec.txt", 4),
        ("usec_per_op.txt", 4),
        ("throughput.txt", 6),
        ("throughput_report.txt", 4),
        ("throughput_lu.txt", 8),
    ];
    for (name, count) in expected {
        let dir = tempfile::tempdir().unwrap();
        let path = log(name);
        let (run, doc) = compare_json(dir.path(), &[&path, &path], 0);
        let all = cells(&doc, 0);
        assert_eq!(all.len(), count, "{name}");
        assert!(
            all.iter()
                .all(|c| c["verdict"] == "same" && c["basis"] == "band_only"),
            "{name}"
        );
        assert!(
            run.stdout.contains("with a single sample on a side"),
            "{name}"
        );
    }
}

fn two_iozone_logs_are_compared_cell_by_cell() {
    let dir = tempfile::tempdir().unwrap();
    let (base, other) = (log("auto_report.txt"), log("nfs_style.txt"));
    let (run, doc) = compare_json(dir.path(), &[&base, &other], 0);
    // nfs_style.txt covers 64…256 kB files, auto_report.txt 64…512 kB.
    assert_eq!(cells(&doc, 0).len(), 18 * 13);
    assert_eq!(doc["pairs"][0]["only_in_base"], 8 * 13);
    // "64  4 1255511 …" against "64  4 1049372 …": 0.836, slower by the band.
    let w = cell(&doc, "write", 64, 4, None);
    assert_eq!(w["base"]["mean"], 1255511.0);
    assert_eq!(w["other"]["mean"], 1049372.0);
    assert!((w["ratio"].as_f64().unwrap() - 1049372.0 / 1255511.0).abs() < 1e-12);
    assert_eq!(w["verdict"], "slower");
    assert!(w["p"].is_null());
    // A fused pair of numbers: "1290201715972885" is reread 12902017 then
    // random read 15972885 (auto_report.txt, 64 kB, 8 kB records).
    assert_eq!(
        cell(&doc, "reread", 64, 8, None)["base"]["mean"],
        12902017.0
    );
    assert_eq!(
        cell(&doc, "random_read", 64, 8, None)["base"]["mean"],
        15972885.0
    );
    assert_eq!(
        cell(&doc, "freread", 256, 256, None)["other"]["mean"],
        28401588.0
    );
    assert!(
        run.stdout.contains("nfs_style against auto_report"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Sat Nov 21 21:06:01 2026"));

    // Throughput logs: "Children see" of each phase, by workers.
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (log("throughput.txt"), log("throughput_report.txt"));
    let (_, doc) = compare_json(dir.path(), &[&a, &b], 0);
    assert_eq!(cells(&doc, 0).len(), 4);
    let w = cell(&doc, "write", 1024, 64, Some(2));
    assert_eq!(w["base"]["mean"], 446749.97);
    assert_eq!(w["other"]["mean"], 5808600.75);
    assert_eq!(w["verdict"], "faster");
}

fn a_clearly_slower_run_is_slower_with_a_small_p() {
    let dir = tempfile::tempdir().unwrap();
    let (base, slower) = (fixture("base.json"), fixture("slower.json"));
    let (run, doc) = compare_json(dir.path(), &[&base, &slower], 0);
    for c in cells(&doc, 0) {
        let pass = c["cell"]["pass"].as_str().unwrap();
        assert_eq!(c["base"]["n"], 5);
        assert_eq!(c["other"]["n"], 5);
        let p = c["p_adjusted"]
            .as_f64()
            .expect("a p-value with 5 samples a side");
        if pass == "write" || pass == "rewrite" {
            assert_eq!(c["verdict"], "slower", "{c}");
            assert!(p < 1e-6, "{c}");
            assert!((c["percent"].as_f64().unwrap() + 30.0).abs() < 0.1, "{c}");
            let (lo, hi) = (
                c["ci_low"].as_f64().unwrap(),
                c["ci_high"].as_f64().unwrap(),
            );
            assert!(lo < 0.7 && 0.7 < hi && hi < 0.75, "{c}");
        } else {
            assert_eq!(c["verdict"], "same", "{c}");
            assert!(p > 0.5, "{c}");
        }
    }
    assert!(
        run.stdout
            .contains("24 cells compared: 0 faster, 12 slower, 12 the same")
    );
    assert!(
        run.stdout.contains("ratio 0.700 [0.684 … 0.716] (-30.0 %)"),
        "{}",
        run.stdout
    );
}

fn fail_if_slower_exits_1_naming_the_cells() {
    let dir = tempfile::tempdir().unwrap();
    let (base, slower) = (fixture("base.json"), fixture("slower.json"));
    let run = ioz(
        dir.path(),
        &["compare", &base, &slower, "--fail-if-slower", "5"],
    );
    run.expect_code(1);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 13, "{}", run.stderr);
    assert!(lines.contains(&"ioz: compare: slower: write 64 kB file, 4 kB records is 30.0 % slower than base (adjusted p = 8.4e-10)"), "{}", run.stderr);
    assert!(lines.iter().any(|l| {
        l.starts_with("ioz: compare: slower: rewrite 128 kB file, 16 kB records is 30.0 % slower")
    }));
    assert!(!run.stderr.contains(" read "));
    assert_eq!(
        lines[12],
        "ioz: compare: 12 cell(s) slower than base by more than 5 % (--fail-if-slower)"
    );
    // Within the limit: 0.
    ioz(
        dir.path(),
        &["compare", &base, &slower, "--fail-if-slower", "35"],
    )
    .expect_code(0);
    // Faster is never a failure.
    ioz(
        dir.path(),
        &["compare", &slower, &base, "--fail-if-slower", "0"],
    )
    .expect_code(0);
}

fn a_directory_of_runs_is_pooled() {
    let dir = tempfile::tempdir().unwrap();
    let (runs, slower, base) = (
        fixture("base-runs"),
        fixture("slower.json"),
        fixture("base.json"),
    );
    let (run, doc) = compare_json(dir.path(), &[&runs, &slower, &base], 0);
    assert_eq!(doc["baseline"]["runs"], 3);
    assert!(run.stdout.contains("3 runs pooled"), "{}", run.stdout);
    // 2 + 2 + 1 measurements per pass: the same 5 samples as base.json.
    let w = &cells(&doc, 0)[0];
    assert_eq!(w["base"]["n"], 5);
    assert_eq!(w["verdict"], "slower");
    for c in cells(&doc, 1) {
        assert_eq!(c["verdict"], "same");
        assert_eq!(c["ratio"], 1.0);
    }
    // Seed 003's table: a row per input, then the ratio rows.
    assert!(run.stdout.contains("slower / base-runs"), "{}", run.stdout);
    assert!(run.stdout.contains("base / base-runs"), "{}", run.stdout);
}

fn real_repeated_runs_are_compared_with_all_their_samples() {
    // Two tiny --runs 3 runs (schema 2: every sample kept, with its run).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (label, json) in [("plain", "a.json"), ("again", "b.json")] {
        ioz(
            d,
            &[
                "-s", "64k", "-r", "4k", "-i", "0", "-i", "1", "--runs", "3", "--label", label,
                "--json", json, "-f", "t.tmp",
            ],
        )
        .expect_code(0);
    }
    let (run, doc) = compare_json(d, &["a.json", "b.json"], 0);
    assert_eq!(
        doc["baseline"]["label"], "plain",
        "the run's --label names it"
    );
    assert_eq!(doc["pairs"][0]["other"]["label"], "again");
    let all = cells(&doc, 0);
    assert_eq!(all.len(), 4, "write, rewrite, read, reread");
    for c in all {
        assert_eq!(c["base"]["n"], 3, "{c}");
        assert_eq!(c["other"]["n"], 3, "{c}");
        assert_eq!(c["basis"], "significance", "{c}");
        assert!(c["p_adjusted"].is_number(), "{c}");
    }
    assert!(run.stdout.contains("again against plain"), "{}", run.stdout);
    // A run against itself: the same everywhere, p = 1.
    let (_, doc) = compare_json(d, &["a.json", "a.json"], 0);
    for c in cells(&doc, 0) {
        assert_eq!(c["verdict"], "same");
        assert_eq!(c["p_adjusted"], 1.0);
    }
}

fn the_files_are_written_and_coloured_by_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let (base, slower) = (fixture("base.json"), fixture("slower.json"));
    let run = ioz(
        dir.path(),
        &[
            "compare", &base, &slower, "--csv", "c.csv", "-b", "c.xlsx", "--html", "c.html",
            "--adjust", "holm",
        ],
    );
    run.expect_code(0);
    assert!(
        run.stdout.is_empty(),
        "files asked for, no --text: {}",
        run.stdout
    );
    let csv = fs::read_to_string(dir.path().join("c.csv")).unwrap();
    let mut lines = csv.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("baseline,input,test,workers,file_kb,record_kb,unit,base_n,")
    );
    assert_eq!(lines.clone().count(), 24);
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("base,slower,write,,64,4,kB/s,5,")
    );
    let mut book: Xlsx<_> = open_workbook(dir.path().join("c.xlsx")).unwrap();
    let names = book.sheet_names();
    assert_eq!(names, ["cells", "ratios 1 slower"]);
    let sheet = book.worksheet_range("ratios 1 slower").unwrap();
    assert_eq!(sheet.get_value((2, 0)).unwrap().to_string(), "write");
    let ratio = sheet.get_value((4, 1)).unwrap().to_string();
    assert!(ratio.starts_with("0.700000"), "{ratio}");
    // The fills: rust_xlsxwriter writes each verdict's colour as a style.
    let styles = zip_entry(&dir.path().join("c.xlsx"), "xl/styles.xml");
    assert!(styles.contains("FFFFC7CE"), "the red of slower");
    assert!(styles.contains("FFE7E6E6"), "the grey of same");
    let html = fs::read_to_string(dir.path().join("c.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    assert!(html.contains("Holm"));
    assert!(html.contains("<td class=\"slower\">0.700</td>"));
    assert!(html.contains("mountains on one scale"));
    // Each percent chart names both its axes: its panels share the y
    // axis, titled at the start of each row, each panel has its x axis.
    let percent_charts = html.matches(" (%)</title>").count();
    assert!(percent_charts > 0);
    assert!(html.matches(">difference (%)").count() >= percent_charts);
    assert!(
        html.matches(">record size (kB)</text>").count()
            + html.matches(">file size (kB)</text>").count()
            >= 2 * percent_charts,
        "the cells under the mean ± sd and the percent bars"
    );
    assert!(!html.contains("src=\"http") && !html.contains("<script"));
}

/// noisy.json against base.json (tests/fixtures/compare/make.py): write
/// 30 % slower, significantly; read 8 % faster but not significantly (a
/// wide spread); reread 4 % faster, significantly but within the band of
/// 5 %. Only write differs: the summary line, every test's mark and colour
/// in the text, the HTML table's fills, the heat grids' fills and a
/// terminal's colours must all say so. Before, read was marked `+` and
/// drawn green on the ±5 % band alone, under "0 faster".
fn the_summary_marks_and_colours_all_come_from_the_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (base, noisy) = (fixture("base.json"), fixture("noisy.json"));
    let (run, doc) = compare_json(d, &[&base, &noisy, "--html", "c.html"], 0);
    // What the cells' verdicts say, counted here from the JSON.
    let mut by_test: Vec<(String, usize, usize)> = Vec::new();
    let mut counts = [0usize; 3];
    for c in cells(&doc, 0) {
        let test = c["cell"]["pass"].as_str().unwrap().replace('_', " ");
        let verdict = c["verdict"].as_str().unwrap();
        let k = ["faster", "slower", "same"]
            .iter()
            .position(|v| *v == verdict);
        counts[k.unwrap_or_else(|| panic!("a cell's verdict: {verdict}"))] += 1;
        if !by_test.iter().any(|t| t.0 == test) {
            by_test.push((test.clone(), 0, 0));
        }
        let t = by_test.iter_mut().find(|t| t.0 == test).unwrap();
        t.1 += usize::from(verdict == "faster");
        t.2 += usize::from(verdict == "slower");
    }
    assert_eq!(counts, [0, 6, 18], "the fixture's cells");
    let expected = |faster: usize, slower: usize| match (faster > 0, slower > 0) {
        (true, false) => "faster",
        (false, true) => "slower",
        (true, true) => "mixed",
        (false, false) => "same",
    };
    // The summary line.
    let summary = format!(
        "24 cells compared: {} faster, {} slower, {} the same",
        counts[0], counts[1], counts[2]
    );
    assert!(run.stdout.contains(&summary), "{}", run.stdout);
    // The text's per-test row: each test's mark is its cells' verdict.
    let head: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Per test:"))
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    let row = run
        .stdout
        .lines()
        .find(|l| l.starts_with("noisy / base"))
        .unwrap()
        .trim_start_matches("noisy / base");
    let marks: Vec<char> = row
        .split_whitespace()
        .map(|r| {
            r.chars()
                .last()
                .filter(|c| !c.is_ascii_digit())
                .unwrap_or(' ')
        })
        .collect();
    assert_eq!(head, ["write", "rewrite", "read", "reread"]);
    for (test, mark) in head.iter().zip(&marks) {
        let (_, f, s) = by_test.iter().find(|t| t.0 == *test).unwrap();
        let want = match expected(*f, *s) {
            "faster" => '+',
            "slower" => '-',
            "mixed" => '±',
            _ => ' ',
        };
        assert_eq!(*mark, want, "{test}'s mark in {row:?}");
    }
    // No ratio anywhere (grids and table) is marked faster: no cell is.
    let faster_marks: Vec<&str> = run
        .stdout
        .split_whitespace()
        .filter(|t| {
            t.strip_suffix('+')
                .is_some_and(|r| r.parse::<f64>().is_ok())
        })
        .collect();
    assert!(faster_marks.is_empty(), "{faster_marks:?}");
    // On a terminal: red for write, and no green anywhere.
    let coloured = on_a_terminal_with(false, "noisy.json");
    assert!(coloured.contains("\x1b[31m  0.700-\x1b[0m"), "{coloured:?}");
    assert!(
        !coloured.contains("\x1b[32m"),
        "green on a terminal: {coloured:?}"
    );
    // The HTML table: each test's ratio cell in its verdict's class.
    let html = fs::read_to_string(d.join("c.html")).unwrap();
    let classes: Vec<&str> = html
        .split("<td class=\"")
        .skip(1)
        .filter_map(|rest| {
            let (class, after) = rest.split_once("\">")?;
            // The per-test table's ratio cells hold only the ratio.
            let (text, _) = after.split_once("</td>")?;
            text.parse::<f64>().ok().map(|_| class)
        })
        .take(4)
        .collect();
    let want: Vec<&str> = head
        .iter()
        .map(|test| {
            let (_, f, s) = by_test.iter().find(|t| t.0 == *test).unwrap();
            expected(*f, *s)
        })
        .collect();
    assert_eq!(classes, want, "the per-test table's fills");
    // The heat grids: every cell filled by its verdict (white for the
    // same, whatever its ratio), none by the band.
    let mut heat = 0;
    for rect in html.split("<rect ").skip(1) {
        let Some((attrs, rest)) = rect.split_once("><title>") else {
            continue;
        };
        let title = rest.split('<').next().unwrap();
        let Some((pct, verdict)) = title.split_once(" %: ") else {
            continue;
        };
        if pct.parse::<f64>().is_err() {
            continue;
        }
        heat += 1;
        let fill = attrs
            .split("fill=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        let (r, g) = (&fill[1..3], &fill[3..5]);
        match verdict.split(' ').next().unwrap() {
            "same" => assert_eq!(fill, "#ffffff", "{title}"),
            "slower" => assert!(r == "ff" && g != "ff", "{title}: {fill}"),
            "faster" => assert!(g == "ff" && r != "ff", "{title}: {fill}"),
            other => panic!("a heat cell's verdict: {other}"),
        }
    }
    assert_eq!(heat, 24, "every cell in a heat grid");
    assert!(html.contains("same (not a significant difference)"));
    assert!(html.contains("same (within ±5 %)"));
}

fn zip_entry(path: &Path, name: &str) -> String {
    let mut archive = zip::ZipArchive::new(fs::File::open(path).unwrap()).unwrap();
    let mut entry = archive.by_name(name).unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut entry, &mut text).unwrap();
    text
}

fn bad_inputs_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let base = fixture("base.json");
    fs::write(d.join("other.json"), "{\"a\": 1}\n").unwrap();
    fs::write(d.join("notes.txt"), "nothing to see\n").unwrap();
    fs::create_dir(d.join("empty")).unwrap();
    fs::create_dir(d.join("junk")).unwrap();
    fs::write(d.join("junk/readme.md"), "# no runs here\n").unwrap();
    let refused = |args: &[&str], part: &str| {
        let mut all = vec!["compare"];
        all.extend(args);
        assert_refused(&ioz(d, &all), part).to_string()
    };
    let line = refused(&[&base, "missing.json"], "missing.json");
    assert_eq!(
        line,
        "ioz: compare: cannot read missing.json: No such file or directory"
    );
    assert_eq!(
        refused(&[&base, "other.json"], "other.json"),
        "ioz: compare: other.json is not a saved ioz run: it has no schema_version"
    );
    assert_eq!(
        refused(&[&base, "notes.txt"], "notes.txt"),
        "ioz: compare: notes.txt is neither a saved ioz run (JSON), IOzone's output, nor a result file of fio, IOR, mdtest, elbencho or IO500"
    );
    assert_eq!(
        refused(&["empty", &base], "empty"),
        "ioz: compare: empty holds no saved ioz run (.json), no IOzone log and no peer's result file"
    );
    refused(&[&base, "junk"], "junk holds no saved ioz run");
    assert_refused(&ioz(d, &["compare", &base]), "nothing to be compared with");
    assert_refused(&ioz(d, &["compare"]), "compare needs a baseline");
    assert_refused(&ioz(d, &["compare", &base, &base, "--band", "x"]), "--band");
    assert_refused(
        &ioz(d, &["compare", &base, &base, "--wat"]),
        "unknown option --wat",
    );
    // Different units: a -O log against a kB/s log.
    let (ops, kb) = (log("ops_per_sec.txt"), log("cpu_util.txt"));
    assert_refused(
        &ioz(d, &["compare", &kb, &ops]),
        "ioz compares inputs in one unit",
    );
}

fn an_output_on_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let runs = d.join("runs");
    fs::create_dir(&runs).unwrap();
    for n in ["run1.json", "run2.json"] {
        fs::copy(data_file(&format!("compare/base-runs/{n}")), runs.join(n)).unwrap();
    }
    let before = fs::read(runs.join("run2.json")).unwrap();
    let slower = fixture("slower.json");
    let run = ioz(d, &["compare", "runs", &slower, "--json", "runs/run2.json"]);
    assert_refused(
        &run,
        "--json: runs/run2.json is an input of this comparison",
    );
    assert_eq!(fs::read(runs.join("run2.json")).unwrap(), before);
}

fn the_help_lists_every_option() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(dir.path(), &["compare", "-h"]);
    run.expect_code(0);
    for option in [
        "--band",
        "--adjust",
        "--fail-if-slower",
        "--html",
        "--json",
        "--csv",
        "-b FILE.xlsx",
        "NO_COLOR",
    ] {
        assert!(run.stdout.contains(option), "{option}");
    }
}

/// `ioz compare` run on a terminal (a pseudo-terminal made by util-linux's
/// `script`), with `NO_COLOR` set or not; what it printed.
fn on_a_terminal(no_color: bool) -> String {
    on_a_terminal_with(no_color, "slower.json")
}

/// [`on_a_terminal`] of base.json against the fixture `other`.
fn on_a_terminal_with(no_color: bool, other: &str) -> String {
    let Some(script) = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .find(|p| Path::new(p).is_file())
    else {
        skip("script (util-linux) is not installed: no terminal to test colours on");
    };
    let command = format!(
        "{} compare {} {}",
        crate::fixtures::IOZ,
        fixture("base.json"),
        fixture(other)
    );
    let mut cmd = std::process::Command::new(script);
    cmd.args(["-qec", &command, "/dev/null"])
        .env_remove("NO_COLOR");
    if no_color {
        cmd.env("NO_COLOR", "1");
    }
    let out = crate::fixtures::run(&mut cmd);
    out.expect_code(0);
    out.stdout
}

fn colours_on_a_terminal_only_and_never_with_no_color() {
    let coloured = on_a_terminal(false);
    assert!(
        coloured.contains("\x1b[31m  0.700-\x1b[0m"),
        "red slower: {coloured:?}"
    );
    assert!(
        coloured.contains("\x1b[90m  1.000 \x1b[0m"),
        "grey same: {coloured:?}"
    );
    let plain = on_a_terminal(true);
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert!(plain.contains("  0.700-"));
}

fn chromium_renders_the_comparison_page() {
    let chromium = chromium().expect("chromium");
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (log("auto_report.txt"), log("nfs_style.txt"));
    ioz(dir.path(), &["compare", &a, &b, "--html", "c.html"]).expect_code(0);
    let page: PathBuf = dir.path().join("c.html");
    let dom = headless(&chromium, &page, &["--dump-dom".to_string()]);
    let Some(dom) = dom else {
        skip("chromium did not finish twice")
    };
    // Per test: mean ± sd bars, percent bars, two mountains and a heat grid.
    assert_eq!(
        dom.matches("<svg").count(),
        13 * 5,
        "the figures are in the DOM"
    );
    assert!(dom.contains("nfs_style / auto_report"));
    let shot = dir.path().join("shot.png");
    let args = [
        format!("--screenshot={}", shot.display()),
        "--window-size=1300,2000".to_string(),
    ];
    if headless(&chromium, &page, &args).is_none() {
        skip("chromium did not finish twice");
    }
    let png = fs::read(&shot).expect("no screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(
        png.len() > 50_000,
        "a blank screenshot? {} bytes",
        png.len()
    );
}

fn headless(chromium: &Path, page: &Path, extra: &[String]) -> Option<String> {
    for _ in 0..2 {
        match headless_once(chromium, page, extra) {
            Ok(out) => return Some(out),
            Err(Headless::TimedOut) => continue,
            Err(Headless::Failed(why)) => panic!("{why}"),
        }
    }
    None
}

/// Issue 14's proof on a real file system: writes with O_SYNC (`-o`) against
/// plain writes, five runs each, on an ext4 image (a tmpfs would make O_SYNC
/// free). The write cells are slower with small p-values, the read cells
/// are not, and `--fail-if-slower 5` exits 1 naming the write cells.
fn o_sync_writes_are_slower_than_plain_ones_and_fail_the_gate() {
    let fs = Ext4::new("relatime");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = fs.mnt().join("t.tmp");
    let file = file.to_str().unwrap();
    for (label, extra) in [("plain", None), ("osync", Some("-o"))] {
        let mut args = vec![
            "-s",
            "1m",
            "-r",
            "64k",
            "-i",
            "0",
            // 10 runs: under load one side's spread alone (a standard
            // deviation of half its mean was seen with 5) kept p above
            // 0.01 for a 40-fold difference.
            "--runs",
            "10",
            "--latency",
            "--label",
            label,
            "-f",
            file,
        ];
        args.extend(extra);
        let json = format!("{label}.json");
        args.extend(["--json", &json]);
        ioz(d, &args).expect_code(0);
    }
    let gate = ["plain.json", "osync.json", "--fail-if-slower", "5"];
    // Plain writes as slow as O_SYNC ones: a machine whose page cache was
    // slow (other processes' dirty pages throttling every writer).
    let mut first = vec!["compare"];
    first.extend(gate);
    if ioz(d, &first).code != Some(1) {
        quiet::skip_unless_page_cache_is_fast(
            &std::env::temp_dir(),
            (256u64 << 20) as f64,
            "plain writes well faster than O_SYNC ones",
        );
    }
    let (run, doc) = compare_json(d, &gate, 1);
    for pass in ["write", "rewrite"] {
        let c = cell(&doc, pass, 1024, 64, None);
        assert_eq!(c["base"]["n"], 10, "{c}");
        assert_eq!(c["other"]["n"], 10, "{c}");
        assert_eq!(c["verdict"], "slower", "{c}");
        let p = c["p_adjusted"].as_f64().expect("a p-value");
        assert!(p < 0.01, "O_SYNC {pass}: p = {p}: {c}");
        assert!(
            run.stderr.contains(&format!(
                "ioz: compare: osync: {pass} 1024 kB file, 64 kB records is "
            )),
            "{}",
            run.stderr
        );
    }
    // Each side's regime is named: O_SYNC writes could not stay in a cache.
    assert!(
        run.stdout
            .contains("  warning: 2 cell(s) in different cache regimes, whose numbers measure different things: write 1024 kB file, 64 kB records: "),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("uncached (-o/-+D); rewrite 1024 kB file, 64 kB records: "),
        "{}",
        run.stdout
    );
    let write = cell(&doc, "write", 1024, 64, None);
    // What the page cache held first (issue 37), then the guess's reason.
    let other = write["regimes_differ"][1].as_str().unwrap();
    assert_eq!(
        other, "nothing left dirty or under writeback, uncached (-o/-+D)",
        "{write}"
    );
    // --latency on both sides: each write's p50 is compared too, 10 runs a
    // side, and an O_SYNC write takes longer (lower is faster).
    let tails = doc["pairs"][0]["latency"].as_array().expect("latency");
    let p50 = tails
        .iter()
        .find(|t| t["tail"] == "p50" && t["cell"]["pass"] == "write")
        .unwrap_or_else(|| panic!("no write p50: {tails:?}"));
    assert_eq!(p50["base"]["n"], 10, "{p50}");
    assert!(p50["ratio"].as_f64().unwrap() > 1.0, "{p50}");
    assert_eq!(p50["verdict"], "slower", "{p50}");
    assert!(
        run.stdout
            .contains("write 1024 kB file, 64 kB records p50: n=10 "),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr
            .lines()
            .last()
            .is_some_and(|l| l.ends_with("slower than plain by more than 5 % (--fail-if-slower)")),
        "{}",
        run.stderr
    );
}

/// Seed 004 scaled down: the 13 tests at 4 record sizes, 3 runs each, on two
/// configurations (plain, and with fsync in the timing: -e), compared in
/// one HTML page; Chromium renders it with a mean ± sd chart and a percent
/// chart for every test.
fn seed_004_scaled_down_ends_in_the_charts() {
    let chromium = chromium().expect("chromium");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let all_tests: Vec<String> = (0..=12)
        .flat_map(|t| ["-i".to_string(), t.to_string()])
        .collect();
    for (label, extra) in [("plain", None), ("fsync", Some("-e"))] {
        let mut args: Vec<String> = [
            "-a", "-n", "256k", "-g", "256k", "-y", "8k", "-q", "64k", "--runs", "3", "--label",
            label, "-f", "t.tmp", "--json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("{label}.json"));
        args.extend(all_tests.iter().cloned());
        args.extend(extra.map(str::to_string));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        ioz(d, &args).expect_code(0);
    }
    let (_, doc) = compare_json(d, &["plain.json", "fsync.json"], 0);
    // 13 tests' passes (22 of them) × 4 record sizes, each with 3 runs a side.
    let all = cells(&doc, 0);
    assert_eq!(all.len(), 22 * 4, "cells compared");
    assert!(
        all.iter()
            .all(|c| c["base"]["n"] == 3 && c["other"]["n"] == 3)
    );
    ioz(
        d,
        &[
            "compare",
            "plain.json",
            "fsync.json",
            "--html",
            "seed004.html",
        ],
    )
    .expect_code(0);
    let page = d.join("seed004.html");
    let Some(dom) = headless(&chromium, &page, &["--dump-dom".to_string()]) else {
        skip("chromium did not finish twice")
    };
    for pass in [
        "write",
        "random read",
        "stride read",
        "fread",
        "random mix",
        "preadv",
    ] {
        assert!(
            dom.contains(&format!("<title>{pass}: mean ± sd</title>")),
            "{pass}"
        );
        assert!(
            dom.contains(&format!("<title>{pass}: fsync vs plain (%)</title>")),
            "{pass}"
        );
    }
    assert_eq!(
        dom.matches(": mean ± sd</title>").count(),
        22,
        "a chart per pass"
    );
    assert!(dom.contains("fsync / plain"));
}
