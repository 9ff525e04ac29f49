//! Other benchmarks' result files with the real binary (issue 39): every
//! fixture shown by `ioz report`, a fio file compared with an ioz run of
//! the same cell (and why they differ, in the text, the JSON and the
//! page), IOR's three repetitions against another IOR file as a real test,
//! the history's import, list, show, trend and `@ID`, and broken files
//! refused with one line naming where they broke.

use std::fs;
use std::path::Path;

use serde_json::Value;

use crate::fixtures::{IOZ, Test, assert_refused, data_file, ioz, ioz_ok, run, trials};

pub fn tests() -> Vec<Test> {
    trials![
        every_peer_file_is_shown_as_ioz_reads_it,
        a_fio_file_against_an_ioz_run_of_the_same_cell_says_why_they_differ,
        ior_s_repetitions_against_another_ior_file_are_a_real_test,
        a_peer_file_is_given_in_the_unit_of_the_run_it_is_compared_with,
        peer_files_are_imported_listed_shown_and_followed,
        broken_peer_files_are_refused_with_one_line,
    ]
}

fn peer(name: &str) -> String {
    data_file(&format!("peers/{name}")).display().to_string()
}

const ALL: [&str; 17] = [
    "fio-randread.json",
    "fio-write.jsonplus",
    "fio-two-jobs.jsonplus",
    "fio-numjobs2-group.jsonplus",
    "fio-uring-qd16.json",
    "fio-read.txt",
    "ior-summary.json",
    "ior-random-json-stdout.json",
    "ior-text.txt",
    "mdtest-2ranks.txt",
    "mdtest-files.txt",
    "mdtest-ranks.csv",
    "handmade/elbencho-results.csv",
    "handmade/io500-result.txt",
    "handmade/fio-client-server.json",
    "handmade/fio-status-interval.json",
    "handmade/ior-stray-text.json",
];

fn every_peer_file_is_shown_as_ioz_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    for name in ALL {
        let out = ioz_ok(dir.path(), &["report", &peer(name)]);
        let tool = ["fio", "IOR", "mdtest", "elbencho", "IO500"]
            .into_iter()
            .find(|t| {
                out.stdout.starts_with(&format!("{t} "))
                    || out.stdout.starts_with(&format!("{t}: "))
            })
            .unwrap_or_else(|| panic!("{name}: no tool named first:\n{}", out.stdout));
        assert!(
            name.to_lowercase().contains(&tool.to_lowercase()),
            "{name} read as {tool}"
        );
        assert!(
            out.stdout.contains("Results as ioz's cells"),
            "{name}:\n{}",
            out.stdout
        );
    }
    let fio = ioz_ok(dir.path(), &["report", &peer("fio-randread.json")])
        .stdout
        .clone();
    // The cell, the rate in kB/s beside fio's own figure, what is kept.
    assert!(
        fio.lines().any(|l| l.contains("random read")
            && l.contains("65536")
            && l.contains("47589.54 / 11897.39")
            && l.ends_with("47589 KiB/s")),
        "{fio}"
    );
    assert!(fio.contains("No counterpart in ioz"), "{fio}");
    let two = ioz_ok(dir.path(), &["report", &peer("fio-two-jobs.jsonplus")])
        .stdout
        .clone();
    assert!(
        two.contains("Read past (defects of the tool's own writer)"),
        "{two}"
    );
    // A report writes no run's result files of a peer's file.
    let r = ioz(
        dir.path(),
        &["report", &peer("fio-randread.json"), "--json", "x.json"],
    );
    assert_refused(&r, "ioz report shows it as text");
}

/// ioz's random read of fio-randread.json's cell: 64 MiB in 4 KiB records.
fn ioz_random_read(dir: &Path) -> String {
    ioz_ok(
        dir,
        &[
            "-s", "64m", "-r", "4k", "-i", "0", "-i", "2", "-f", "t.tmp", "--json", "run.json",
        ],
    );
    dir.join("run.json").display().to_string()
}

fn a_fio_file_against_an_ioz_run_of_the_same_cell_says_why_they_differ() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz_random_read(dir.path());
    let fio = peer("fio-randread.json");
    // --band 0: one sample a side has no test; any difference counts.
    let out = ioz_ok(
        dir.path(),
        &[
            "compare", &fio, &run, "--band", "0", "--text", "--json", "c.json", "--html", "c.html",
        ],
    );
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("c.json")).unwrap()).unwrap();
    assert_eq!(doc["baseline"]["tool"]["name"], "fio");
    assert_eq!(doc["baseline"]["tool"]["version"], "3.33");
    assert_eq!(doc["pairs"][0]["other"]["tool"]["name"], "ioz");
    let cells = doc["pairs"][0]["cells"].as_array().unwrap();
    let cell = cells
        .iter()
        .find(|c| {
            c["cell"]["pass"] == "random_read"
                && c["cell"]["file_bytes"] == 64 << 20
                && c["cell"]["record_bytes"] == 4096
        })
        .unwrap_or_else(|| panic!("no random read cell: {cells:?}"));
    assert_eq!(cell["base"]["n"], 1);
    // fio's rate, exactly: io_bytes over runtime in KiB/s.
    let want = 98779136.0 / 1024.0 / 2.027;
    assert!(
        (cell["base"]["mean"].as_f64().unwrap() - want).abs() < 1e-6,
        "{cell}"
    );
    assert_ne!(cell["verdict"], "same");
    let why: Vec<(&str, &str)> = cell["why"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w["kind"].as_str().unwrap(), w["text"].as_str().unwrap()))
        .collect();
    assert_eq!(why[0].0, "setting", "{why:?}");
    assert!(why.iter().any(|(_, t)| *t == "file's page cache dropped before the pass: fio-randread yes (fio's invalidate=1, its default), run no"), "{why:?}");
    assert!(
        why.iter()
            .any(|(k, t)| *k == "tool" && t.contains("fio 3.33") && t.contains("ioz ")),
        "{why:?}"
    );
    assert!(why.iter().any(|(k, _)| *k == "samples"), "{why:?}");
    // The text lists the same causes under the cell, numbered.
    assert!(
        out.stdout.contains("Why the numbers differ"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("    1. file's page cache dropped before the pass"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("fio-randread: fio 3.33, fio --name=randread"),
        "{}",
        out.stdout
    );
    let html = fs::read_to_string(dir.path().join("c.html")).unwrap();
    assert!(html.contains("<h2 id=\"why\">Why the numbers differ</h2>"));
    assert!(
        html.contains("<li>file&#39;s page cache dropped before the pass")
            || html.contains("<li>file's page cache dropped before the pass"),
        "no cause in the page"
    );
}

fn ior_s_repetitions_against_another_ior_file_are_a_real_test() {
    let dir = tempfile::tempdir().unwrap();
    ioz_ok(
        dir.path(),
        &[
            "compare",
            &peer("ior-summary.json"),
            &peer("ior-text.txt"),
            "--json",
            "c.json",
        ],
    );
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("c.json")).unwrap()).unwrap();
    let cells = doc["pairs"][0]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    for c in cells {
        // Three repetitions against two: Welch's t, a p-value, an interval.
        assert_eq!(
            (c["base"]["n"].as_u64(), c["other"]["n"].as_u64()),
            (Some(3), Some(2)),
            "{c}"
        );
        assert_eq!(c["basis"], "significance", "{c}");
        assert!(
            c["p_adjusted"].as_f64().is_some() && c["ci_low"].as_f64().is_some(),
            "{c}"
        );
        assert_eq!(c["cell"]["workers"], 2);
    }
    // The write cell's means are the repetitions' bwMiB × 1024.
    let write = cells.iter().find(|c| c["cell"]["pass"] == "write").unwrap();
    let mean = (3593.4173 + 1028.6381 + 1640.3623) / 3.0 * 1024.0;
    assert!((write["base"]["mean"].as_f64().unwrap() - mean).abs() < 1e-6);
}

fn a_peer_file_is_given_in_the_unit_of_the_run_it_is_compared_with() {
    let dir = tempfile::tempdir().unwrap();
    ioz_ok(
        dir.path(),
        &[
            "-s", "64m", "-r", "4k", "-i", "0", "-i", "2", "-f", "t.tmp", "-O", "--json",
            "ops.json",
        ],
    );
    ioz_ok(
        dir.path(),
        &[
            "compare",
            "ops.json",
            &peer("fio-randread.json"),
            "--json",
            "c.json",
        ],
    );
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("c.json")).unwrap()).unwrap();
    assert_eq!(doc["unit"], "ops_per_sec");
    let cell = doc["pairs"][0]["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["cell"]["pass"] == "random_read")
        .unwrap()
        .clone();
    // fio's IOPS: total_ios over runtime.
    assert!(
        (cell["other"]["mean"].as_f64().unwrap() - 24116.0 / 2.027).abs() < 1e-6,
        "{cell}"
    );
}

fn peer_files_are_imported_listed_shown_and_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let history = tmp.path().join("history");
    let h = |args: &[&str]| {
        run(std::process::Command::new(IOZ)
            .args(args)
            .current_dir(tmp.path())
            .env("IOZ_HISTORY", &history)
            .env_remove("IOZ_NO_HISTORY"))
    };
    let imported = h(&[
        "history",
        "import",
        "--label",
        "bw",
        &peer("fio-randread.json"),
        &peer("ior-summary.json"),
        &peer("handmade/io500-result.txt"),
    ]);
    imported.expect_code(0);
    let lines: Vec<&str> = imported.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", imported.stdout);
    // mdtest's rates are operations per second: a label of their own.
    h(&[
        "history",
        "import",
        "--label",
        "md",
        &peer("mdtest-files.txt"),
    ])
    .expect_code(0);
    assert!(
        lines[0].ends_with("as run 1, dated 2026-12-01T21:15:43Z (the date the file gives)"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with("as run 2, dated 2026-12-01T21:15:46Z (the date the file gives)"),
        "{}",
        lines[1]
    );
    let list = h(&["history", "list"]);
    list.expect_code(0);
    assert!(
        list.stdout
            .lines()
            .any(|l| l.starts_with(" 1 ") || l.starts_with("1 "))
            && list.stdout.contains("fio --name=randread"),
        "{}",
        list.stdout
    );
    assert!(
        list.stdout.contains("/usr/local/bin/ior -w -r -b 4m"),
        "{}",
        list.stdout
    );
    let show = h(&["history", "show", "1"]);
    show.expect_code(0);
    assert!(
        show.stdout
            .starts_with("fio 3.33: fio's JSON output read by ioz"),
        "{}",
        show.stdout
    );
    // compare @1 against the file itself: the same everywhere.
    let same = h(&[
        "compare",
        "@1",
        &peer("fio-randread.json"),
        "--json",
        "c.json",
    ]);
    same.expect_code(0);
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join("c.json")).unwrap()).unwrap();
    assert_eq!(doc["pairs"][0]["cells"][0]["ratio"], 1.0);
    assert_eq!(doc["baseline"]["tool"]["name"], "fio");
    // The trend of the random read follows the imported runs.
    let trend = h(&[
        "history",
        "trend",
        "--label",
        "bw",
        "--test",
        "random read",
        "--size",
        "64m",
        "--record",
        "4k",
        "--json",
        "t.json",
    ]);
    trend.expect_code(0);
    let t: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join("t.json")).unwrap()).unwrap();
    let text = t.to_string();
    assert!(
        text.contains("47589.5"),
        "the trend holds fio's random read: {text}"
    );
}

fn broken_peer_files_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = fs::read_to_string(peer("fio-randread.json")).unwrap();
    let cut = dir.path().join("cut.json");
    fs::write(&cut, &text[..text.find("\"trim\"").unwrap()]).unwrap();
    let cut = cut.display().to_string();
    let r = ioz(dir.path(), &["compare", &cut, &peer("fio-write.jsonplus")]);
    let line = assert_refused(&r, "fio's JSON output breaks at line");
    assert!(
        line.starts_with(&format!("ioz: compare: {cut}: ")),
        "{line}"
    );
    assert_refused(
        &ioz(dir.path(), &["report", &cut]),
        "fio's JSON output breaks at line",
    );
    let bad = dir.path().join("bad.csv");
    fs::write(&bad, "rank,items,rate-File stat\n0,,fast\n").unwrap();
    let bad = bad.display().to_string();
    let r = ioz(dir.path(), &["compare", &bad, &peer("mdtest-ranks.csv")]);
    let line = assert_refused(&r, "line 2: rate-File stat: \"fast\" is not a rate");
    assert!(
        line.contains("mdtest's --saveRankPerformanceDetails CSV"),
        "{line}"
    );
    // The history is not made: every file is read before anything is stored.
    let history = dir.path().join("h");
    let r = run(std::process::Command::new(IOZ)
        .args(["history", "import", &peer("fio-randread.json"), &cut])
        .current_dir(dir.path())
        .env("IOZ_HISTORY", &history)
        .env_remove("IOZ_NO_HISTORY"));
    assert_refused(&r, "fio's JSON output breaks at line");
    assert!(!history.exists());
    let r = ioz(
        dir.path(),
        &[
            "compare",
            &format!("{}#rank=1", peer("ior-summary.json")),
            &peer("ior-text.txt"),
        ],
    );
    assert_refused(&r, "a peer's result file has no ranks");
}
