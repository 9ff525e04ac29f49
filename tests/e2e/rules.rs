//! `--rules`: every run stamped valid, invalid (each reason) or not
//! checkable, in the text and the JSON; `ioz check` recomputes the stamp
//! from the saved run with the writer's own code.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::fixtures::{Test, ioz, ioz_ok, trials};
use crate::json_schema::assert_valid;

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_small_file_is_invalid_under_iozone_with_its_reasons,
        direct_io_makes_a_small_file_valid_under_iozone => [ODirect],
        a_result_file_on_the_target_is_invalid_under_io500,
        pts_finds_the_steady_window_of_the_runs,
        rules_takes_only_its_words,
        check_catches_a_rate_edited_and_a_stamp_changed,
        until_steady_stops_at_the_first_steady_round,
        until_steady_is_refused_where_it_cannot_run,
        compare_names_the_settings_of_another_workload,
        the_history_lists_filters_and_leaves_out_invalid_runs,
        the_html_report_shows_the_stamp_and_marks_the_cells,
        a_throughput_csv_has_each_phase_s_stamp,
    ]
}

/// `ioz args… --json r.json -f t.tmp` in `dir`, without a history: its
/// stdout and the saved run (checked against the schema, and by `ioz check`).
pub fn stamped_run(dir: &Path, args: &[&str]) -> (String, Value) {
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--json", "r.json", "-f", "t.tmp", "--no-history"]);
    let run = ioz_ok(dir, &all);
    let text = fs::read_to_string(dir.join("r.json")).expect("r.json written");
    let doc: Value = serde_json::from_str(&text).expect("r.json is JSON");
    assert_valid(&doc);
    if doc.get("stamp").is_some() {
        checker_agrees(dir, "r.json");
    }
    (run.stdout, doc)
}

/// `ioz check FILE` agrees with the writer on every stamp and finds the
/// file intact.
pub fn checker_agrees(dir: &Path, file: &str) {
    let check = ioz(dir, &["check", file]);
    check.expect_code(0);
    assert!(!check.stdout.contains("DIFFERS"), "{}", check.stdout);
    assert!(
        check.stdout.contains("digest: the file is as ioz wrote it"),
        "{}",
        check.stdout
    );
    let agree = check
        .stdout
        .lines()
        .find(|l| l.ends_with(" stamps agree"))
        .unwrap_or_else(|| panic!("no count of agreements: {}", check.stdout));
    let words: Vec<&str> = agree.split(' ').collect();
    assert_eq!(words[0], words[2], "{agree}");
}

fn a_small_file_is_invalid_under_iozone_with_its_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, doc) = stamped_run(
        dir.path(),
        &[
            "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "--rules", "iozone",
        ],
    );
    let stamp = &doc["stamp"];
    assert_eq!(stamp["rules"], "iozone");
    assert_eq!(stamp["run"]["verdict"], "invalid");
    let reasons: Vec<&str> = stamp["run"]["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    // The start residency decides where it was measured (the reread
    // begins with its file cached: not met), and is not checkable where
    // the file system told nothing.
    let measured = doc.to_string().contains("\"source\":\"cachestat\"")
        || doc.to_string().contains("\"source\":\"mincore\"");
    let residency_words = if measured {
        "start residency under 5 %: not met"
    } else {
        "not checkable: residency not measured"
    };
    assert!(
        reasons.iter().any(
            |r| r.contains("files of 256 KiB are under 3 × RAM") && r.contains(residency_words)
        ),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains("durability claim")),
        "{reasons:?}"
    );
    // Four passes (write, rewrite, read, reread), each judged.
    let cells = stamp["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    assert!(cells.iter().all(|c| c["stamp"]["verdict"] == "invalid"));
    // The reads make no durability claim.
    let read = cells.iter().find(|c| c["pass"] == "read").unwrap();
    assert_eq!(read["stamp"]["reasons"].as_array().unwrap().len(), 1);
    // The rewrite finds its file cached; the first write, measured, found
    // no page of its new file there (a device claim met: only its
    // durability claim fails).
    assert!(
        stdout.contains("[INVALID] rewrite 256 KiB, 64 KiB records: device claim"),
        "{stdout}"
    );
    assert_eq!(
        stdout.contains("[INVALID] write 256 KiB, 64 KiB records: device claim"),
        !measured,
        "{stdout}"
    );
    assert!(
        stdout.contains("Rules iozone: the run is INVALID (2 reasons)"),
        "{stdout}"
    );
}

fn direct_io_makes_a_small_file_valid_under_iozone() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, doc) = stamped_run(
        dir.path(),
        &[
            "-s", "256k", "-r", "64k", "-i", "0", "-i", "1", "-I", "--rules", "iozone",
        ],
    );
    assert_eq!(doc["stamp"]["run"]["verdict"], "valid", "{stdout}");
    assert!(!stdout.contains("[INVALID]"), "{stdout}");
    assert!(
        stdout.contains("Rules iozone: the run is VALID\n"),
        "{stdout}"
    );
}

fn a_result_file_on_the_target_is_invalid_under_io500() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, doc) = stamped_run(
        dir.path(),
        &["-s", "64k", "-r", "16k", "-i", "0", "--rules", "io500"],
    );
    let run = &doc["stamp"]["run"];
    assert_eq!(run["verdict"], "invalid");
    let reasons = run["reasons"].as_array().unwrap();
    let on_target: Vec<&Value> = reasons
        .iter()
        .filter(|r| {
            r.as_str()
                .unwrap()
                .contains("is on the file system under test")
        })
        .collect();
    assert_eq!(on_target.len(), 1, "{reasons:?}");
    assert!(
        on_target[0].as_str().unwrap().starts_with("the json file "),
        "{on_target:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.as_str().unwrap().contains("under IO500's 300 s")),
        "{reasons:?}"
    );
    let places = doc["environment"]["result_places"].as_array().unwrap();
    assert_eq!(places.len(), 1);
    assert_eq!(
        places[0]["file_system"],
        doc["environment"]["target"]["file_system"]
    );
    assert!(
        stdout.contains("Rules io500: the run is INVALID"),
        "{stdout}"
    );
    // ioz's default data is incompressible; IOzone's buffer is not.
    assert!(!stdout.contains("compressible data"));
    let (_, iozone_data) = stamped_run(
        dir.path(),
        &[
            "-s", "64k", "-r", "16k", "-i", "0", "--rules", "io500", "--data", "iozone",
        ],
    );
    let reasons = iozone_data["stamp"]["run"]["reasons"].to_string();
    assert!(
        reasons.contains("--data iozone writes compressible data"),
        "{reasons}"
    );
}

fn pts_finds_the_steady_window_of_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    // Two runs: no window of 5 rounds.
    let (stdout, doc) = stamped_run(
        dir.path(),
        &[
            "-s", "64k", "-r", "16k", "-i", "0", "--runs", "2", "--rules", "pts",
        ],
    );
    let cell = &doc["stamp"]["cells"][0];
    assert_eq!(cell["stamp"]["verdict"], "invalid");
    assert!(
        cell["stamp"]["reasons"][0]
            .as_str()
            .unwrap()
            .starts_with("2 rounds: SNIA's steady state needs a window of 5")
    );
    assert!(stdout.contains("Rules pts: the run is INVALID"), "{stdout}");
}

fn rules_takes_only_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &["-s", "64k", "--rules", "spec", "--no-history"],
    );
    let line = crate::fixtures::assert_refused(&run, "--rules");
    assert!(line.contains("iozone, io500, pts or none"), "{line}");
    // none: no stamp at all.
    let (stdout, doc) = stamped_run(
        dir.path(),
        &["-s", "64k", "-r", "16k", "-i", "0", "--rules", "none"],
    );
    assert!(doc.get("stamp").is_none());
    assert!(!stdout.contains("Rules "));
}

fn check_catches_a_rate_edited_and_a_stamp_changed() {
    let dir = tempfile::tempdir().unwrap();
    let (_, doc) = stamped_run(
        dir.path(),
        &[
            "-s", "64k", "-r", "16k", "-i", "0", "-i", "1", "--rules", "iozone",
        ],
    );
    let text = fs::read_to_string(dir.path().join("r.json")).unwrap();
    // A rate made ten times faster, as a hand would edit it.
    let rate = doc["cells"][0]["measurements"][0]["kib_per_sec"]
        .as_u64()
        .unwrap();
    let from = format!("\"kib_per_sec\": {rate},");
    assert_eq!(text.matches(&from).count(), 1, "{from}");
    fs::write(
        dir.path().join("edited.json"),
        text.replacen(&from, &format!("\"kib_per_sec\": {}0,", rate), 1),
    )
    .unwrap();
    let check = ioz(dir.path(), &["check", "edited.json"]);
    check.expect_code(1);
    assert!(
        check
            .stdout
            .contains("digest: EDITED: the file was changed after ioz wrote it"),
        "{}",
        check.stdout
    );
    // A stamp turned valid by hand: the recomputed one says otherwise.
    let mut forged = doc.clone();
    forged["stamp"]["cells"][2]["stamp"] = serde_json::json!({"verdict": "valid"});
    fs::write(
        dir.path().join("forged.json"),
        serde_json::to_string_pretty(&forged).unwrap(),
    )
    .unwrap();
    let check = ioz(dir.path(), &["check", "forged.json"]);
    check.expect_code(1);
    let differs: Vec<&str> = check
        .stdout
        .lines()
        .filter(|l| l.contains("DIFFERS"))
        .collect();
    assert_eq!(differs.len(), 1, "{}", check.stdout);
    assert!(
        differs[0].contains("read 64 KiB, 16 KiB records: saved valid, recomputed invalid"),
        "{}",
        differs[0]
    );
    assert!(
        check.stdout.contains("4 of 5 stamps agree"),
        "{}",
        check.stdout
    );
    // Judged under other rules: shown, not compared.
    let other = ioz(dir.path(), &["check", "r.json", "--rules", "pts"]);
    other.expect_code(0);
    assert!(
        other
            .stdout
            .contains("judged under pts (the run claimed iozone: nothing to compare)"),
        "{}",
        other.stdout
    );
    assert!(
        other.stdout.contains("Rules pts: the run is INVALID"),
        "{}",
        other.stdout
    );
    // A run without rules has nothing to check.
    let plain = ioz(
        dir.path(),
        &[
            "-s",
            "64k",
            "-i",
            "0",
            "-f",
            "t.tmp",
            "--json",
            "plain.json",
            "--no-history",
        ],
    );
    plain.expect_code(0);
    crate::fixtures::assert_refused(
        &ioz(dir.path(), &["check", "plain.json"]),
        "claims no rules",
    );
}

/// Runs measured of each pass of the first cell.
fn runs_measured(doc: &Value) -> u64 {
    let ms = doc["cells"][0]["measurements"].as_array().unwrap();
    ms.iter().filter(|m| m["pass"] == "write").count() as u64
}

fn until_steady_stops_at_the_first_steady_round() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, doc) = stamped_run(
        dir.path(),
        &[
            "-s",
            "256k",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "--until-steady",
            "25",
        ],
    );
    assert_eq!(doc["config"]["until_steady"], 25);
    assert_eq!(doc["stamp"]["rules"], "pts");
    let runs = runs_measured(&doc);
    let cells = doc["stamp"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4);
    // Whatever the machine's noise: steady, and stopped at the round the
    // last cell's first steady window closed on; or never, and 25 rounds.
    if doc["stamp"]["run"]["verdict"] == "valid" {
        let last = cells
            .iter()
            .map(|c| c["steady"]["last"].as_u64().unwrap())
            .max()
            .unwrap();
        assert_eq!(runs, last + 1, "{stdout}");
        assert!(runs >= 5);
        for c in cells {
            let (first, last) = (
                c["steady"]["first"].as_u64().unwrap(),
                c["steady"]["last"].as_u64().unwrap(),
            );
            assert_eq!(last, first + 4);
            assert!(
                stdout.contains(&format!("steady over rounds {}-{}", first + 1, last + 1)),
                "{stdout}"
            );
        }
        assert!(stdout.contains("Rules pts: the run is VALID"), "{stdout}");
    } else {
        assert_eq!(runs, 25, "{stdout}");
        assert!(stdout.contains("not steady within 25 rounds"), "{stdout}");
    }
}

fn until_steady_is_refused_where_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    for (args, part) in [
        (
            &["--until-steady", "25", "--runs", "3"][..],
            "leave out --runs",
        ),
        (
            &["--until-steady", "25", "--rules", "iozone"],
            "not under --rules iozone",
        ),
        (&["--until-steady", "4"], "--until-steady"),
        (&["--until-steady", "26"], "--until-steady"),
        (&["--until-steady", "10", "-t", "2"], "throughput mode"),
    ] {
        let mut all = vec!["-s", "64k", "-i", "0", "--no-history"];
        all.extend_from_slice(args);
        crate::fixtures::assert_refused(&ioz(dir.path(), &all), part);
    }
}

fn compare_names_the_settings_of_another_workload() {
    let dir = tempfile::tempdir().unwrap();
    let save = |name: &str, args: &[&str]| {
        let mut all = vec![
            "-s",
            "64k",
            "-i",
            "0",
            "-f",
            "t.tmp",
            "--no-history",
            "--json",
            name,
        ];
        all.extend_from_slice(args);
        ioz_ok(dir.path(), &all);
        let doc: Value =
            serde_json::from_str(&fs::read_to_string(dir.path().join(name)).unwrap()).unwrap();
        doc["workload_id"].as_str().unwrap().to_string()
    };
    let a = save("a.json", &["-r", "16k"]);
    let again = save("again.json", &["-r", "16k", "--label", "other name"]);
    let b = save("b.json", &["-r", "16k", "-e"]);
    assert_eq!(a, again, "a label is not the workload");
    assert_ne!(a, b);
    let same = ioz(dir.path(), &["compare", "a.json", "again.json"]);
    same.expect_code(0);
    assert!(
        !same.stderr.contains("not the same workload"),
        "{}",
        same.stderr
    );
    let other = ioz(dir.path(), &["compare", "a.json", "b.json"]);
    other.expect_code(0);
    let line = other
        .stderr
        .lines()
        .find(|l| l.contains("not the same workload"))
        .unwrap_or_else(|| panic!("{}", other.stderr));
    assert!(line.contains(&format!("(workload {b} vs {a})")), "{line}");
    assert!(
        line.ends_with("timing: fsync off close off vs fsync on close off"),
        "{line}"
    );
}

/// The history keeps each run's stamp: `list` shows it and `--stamp`
/// filters on it; `trend` and `regressions` leave the invalid runs out,
/// counted on stderr, unless `--include-invalid`.
fn the_history_lists_filters_and_leaves_out_invalid_runs() {
    use crate::history::{ioz_h, place, small};
    let p = place();
    small(&p, &["--label", "x"]).expect_code(0);
    small(&p, &["--label", "x", "--rules", "iozone"]).expect_code(0);
    small(&p, &["--label", "x"]).expect_code(0);
    let list = ioz_h(&p, &["history", "list"]);
    list.expect_code(0);
    let lines: Vec<&str> = list.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", list.context());
    let head: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        head,
        [
            "id", "date", "label", "host", "fs", "device", "job", "status", "stamp", "command"
        ],
        "{}",
        list.context()
    );
    assert!(
        lines[2].contains("  iozone invalid  "),
        "{}",
        list.context()
    );
    for line in [lines[1], lines[3]] {
        assert!(
            line.contains("  complete  -  "),
            "an unstamped run's stamp: {}",
            list.context()
        );
    }
    let ids = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["history", "list"];
        all.extend(args);
        let r = ioz_h(&p, &all);
        r.expect_code(0);
        r.stdout
            .lines()
            .skip(1)
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&["--stamp", "invalid"]), ["2"]);
    assert_eq!(ids(&["--stamp", "unchecked"]), ["1", "3"]);
    assert!(ids(&["--stamp", "valid"]).is_empty());
    let bad = ioz_h(&p, &["history", "list", "--stamp", "ok"]);
    bad.expect_code(2);
    assert!(bad.stderr.contains("is not a stamp"), "{}", bad.context());

    // trend: the invalid run left out and counted, or kept when asked.
    let left_out = "1 run(s) stamped invalid under their --rules left out";
    let rows = |r: &crate::fixtures::Run| -> Vec<String> {
        r.stdout
            .lines()
            .skip(2)
            .take_while(|l| !l.trim().is_empty())
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    let t = ioz_h(&p, &["history", "trend"]);
    t.expect_code(0);
    assert!(
        t.stderr.contains(&format!("history trend: {left_out}")),
        "{}",
        t.context()
    );
    assert_eq!(rows(&t), ["1", "3"], "{}", t.context());
    let t = ioz_h(&p, &["history", "trend", "--include-invalid"]);
    t.expect_code(0);
    assert!(!t.stderr.contains("stamped invalid"), "{}", t.context());
    assert_eq!(rows(&t), ["1", "2", "3"], "{}", t.context());

    // regressions: the latest run against the valid ones before it only.
    let r = ioz_h(&p, &["history", "regressions"]);
    r.expect_code(0);
    assert!(
        r.stderr
            .contains(&format!("history regressions: {left_out}")),
        "{}",
        r.context()
    );
    assert!(
        r.stdout.contains("run 3 (") && r.stdout.contains("against 1 earlier run(s)"),
        "{}",
        r.context()
    );
    let r = ioz_h(&p, &["history", "regressions", "--include-invalid"]);
    r.expect_code(0);
    assert!(
        r.stdout.contains("against 2 earlier run(s)"),
        "{}",
        r.context()
    );
    // Asking for the invalid ones is asking for them: nothing left out.
    let r = ioz_h(&p, &["history", "trend", "--stamp", "invalid"]);
    r.expect_code(0);
    assert_eq!(rows(&r), ["2"], "{}", r.context());
}

/// The HTML report: the run's stamp under the title with each reason, and
/// `[INVALID]` on every invalid cell of the results table and the grids.
fn the_html_report_shows_the_stamp_and_marks_the_cells() {
    let dir = tempfile::tempdir().unwrap();
    let (_, doc) = stamped_run(
        dir.path(),
        &[
            "-a", "-n", "64k", "-g", "128k", "-y", "64k", "-q", "64k", "-i", "0", "--rules",
            "iozone", "--html", "r.html",
        ],
    );
    let page = fs::read_to_string(dir.path().join("r.html")).unwrap();
    let reasons = doc["stamp"]["run"]["reasons"].as_array().unwrap().len();
    assert!(
        page.contains(&format!(
            "<div class=\"stamp stamp-invalid\"><strong>[INVALID] Rules iozone: the run is invalid ({reasons} reasons)</strong><ul>"
        )),
        "{page}"
    );
    let stamp_div = &page[page.find("<div class=\"stamp").unwrap()..];
    let stamp_div = &stamp_div[..stamp_div.find("</div>").unwrap()];
    assert_eq!(stamp_div.matches("<li>").count(), reasons);
    // The stamp line comes before the first section.
    assert!(page.find("class=\"stamp ").unwrap() < page.find("<section").unwrap());
    let invalid = doc["stamp"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["stamp"]["verdict"] == "invalid")
        .count();
    // Two cells (64k and 128k files, 64k records), write and rewrite.
    assert_eq!(invalid, 4, "{}", doc["stamp"]);
    let marks = page
        .matches("<span class=\"mark\">[INVALID]</span>")
        .count();
    // Once in the results table and once in its test's grid.
    assert_eq!(marks, 2 * invalid, "{page}");
    assert!(
        page.contains("<span class=\"mark\">[INVALID: 2 cells]</span></h2>"),
        "{page}"
    );
}

/// Throughput mode's CSV: a `stamp` column, each phase's row (and its
/// workers' rows, -C) holding the JSON's verdict of that phase.
fn a_throughput_csv_has_each_phase_s_stamp() {
    let dir = tempfile::tempdir().unwrap();
    let (_, doc) = stamped_run(
        dir.path(),
        &[
            "-t", "2", "-s", "128k", "-r", "64k", "-i", "0", "-C", "--rules", "iozone", "--csv",
            "t.csv",
        ],
    );
    let csv = fs::read_to_string(dir.path().join("t.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (stamp, pass, workers) = (col("stamp"), col("pass"), col("workers"));
    assert_eq!(stamp, header.len() - 1, "{csv}");
    let verdicts: Vec<(String, u64, String)> = doc["stamp"]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["pass"].as_str().unwrap().to_string(),
                c["workers"].as_u64().unwrap(),
                c["stamp"]["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(verdicts.len(), 2, "write and rewrite: {verdicts:?}");
    let mut rows = 0;
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        let (p, w) = (f[pass], f[workers].parse::<u64>().unwrap());
        let expected = verdicts
            .iter()
            .find(|(vp, vw, _)| vp == p && *vw == w)
            .unwrap_or_else(|| panic!("no stamp for {p} {w}: {verdicts:?}"));
        assert_eq!(f[stamp], expected.2, "{line}");
        rows += 1;
    }
    // A row per phase and one per worker of each.
    assert_eq!(rows, 2 * 3, "{csv}");
    assert!(csv.contains(",invalid\n"), "{csv}");
}
