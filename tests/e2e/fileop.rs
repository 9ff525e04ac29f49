//! `ioz fileop` (issue 28): fileop's layout reproduced for every reference
//! output (tests/fixtures/metadata/fileop/), the tree's counts, the tree
//! removed on success, on a full file system and on Ctrl-C, never a file
//! outside it touched; its JSON, CSV, HTML, history and comparison.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::fixtures::cluster::{expect, mpirun_ioz};
use crate::fixtures::{
    Ext4, IOZ, Test, Tmpfs, assert_refused, data_file, ioz, list_dir, run, trials,
};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        every_reference_layout_is_reproduced,
        the_tree_has_fileop_s_counts,
        best_and_worst_are_numbers_never_inf,
        nothing_is_left_and_nothing_else_touched,
        bad_command_lines_and_places_are_refused_with_one_line,
        a_full_file_system_fails_the_run_and_leaves_no_tree => [Tmpfs],
        ctrl_c_stops_the_run_and_removes_the_tree,
        a_second_ctrl_c_removes_the_tree_at_once,
        repeated_runs_are_saved_reported_and_compared,
        csv_and_html_hold_every_operation,
        a_run_is_recorded_and_shown_from_the_history,
        dash_u_mounts_the_file_system_again_before_each_test => [Ext4],
        two_ranks_each_make_and_remove_a_tree_of_their_own => [Mpi],
    ]
}

/// A reference output of fileop.
fn reference(name: &str) -> String {
    fs::read_to_string(data_file(&format!("metadata/fileop/{name}"))).unwrap()
}

/// A line as its layout: each number (or fileop's `inf`) becomes `#`,
/// spaces kept, so that two lines of the same layout with other numbers
/// read alike when their numbers have the same widths.
fn shape(line: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in line.replace("inf", "0").chars() {
        let digit = c.is_ascii_digit() || (in_number && c == '.');
        if digit {
            if !in_number {
                out.push('#');
            }
        } else {
            out.push(c);
        }
        in_number = digit;
    }
    out
}

/// The words of a line with each number as `#`: the same column rules
/// whatever the numbers' widths.
fn words(line: &str) -> Vec<String> {
    shape(line).split_whitespace().map(String::from).collect()
}

/// The right edge of each field of a table row (where each number ends).
fn column_ends(line: &str) -> Vec<usize> {
    let b = line.as_bytes();
    (0..b.len())
        .filter(|&i| b[i] != b' ' && (i + 1 == b.len() || b[i + 1] == b' '))
        .collect()
}

fn ioz_fileop(dir: &Path, args: &[&str]) -> crate::fixtures::Run {
    let mut all = vec!["fileop"];
    all.extend_from_slice(args);
    let r = ioz(dir, &all);
    r.expect_code(0);
    r
}

fn every_reference_layout_is_reproduced() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    let work_arg = work.to_str().unwrap().to_string();
    let cases: [(&str, Vec<&str>); 7] = [
        ("f3.txt", vec!["-f", "3"]),
        ("f3bw.txt", vec!["-f", "3", "-b", "-w"]),
        ("f2e.txt", vec!["-f", "2", "-e"]),
        ("l2u4.txt", vec!["-l", "2", "-u", "4"]),
        ("f2t.txt", vec!["-f", "2", "-t"]),
        ("f2s.txt", vec!["-f", "2", "-s", "4k"]),
        ("f2d.txt", vec!["-f", "2", "-d", &work_arg]),
    ];
    for (name, args) in cases {
        let expected = reference(name);
        let got = ioz_fileop(dir.path(), &args).stdout.clone();
        let got = got.replace(&work_arg, "DIR");
        let (want, have): (Vec<&str>, Vec<&str>) =
            (expected.lines().collect(), got.lines().collect());
        assert_eq!(have.len(), want.len(), "{name}: lines\n{got}");
        for (w, h) in want.iter().zip(&have) {
            if w.starts_with(" .") || w.starts_with("Fileop:") {
                // The header and the banner: fileop's, byte for byte.
                assert_eq!(h, w, "{name}");
            } else if w.starts_with(['A', 'B', 'W']) {
                assert_eq!(words(h), words(w), "{name}: {h}");
                // Each number ends where fileop's does (ioz's fit its columns).
                assert_eq!(column_ends(h), column_ends(w), "{name}:\n{w}\n{h}");
                assert_eq!(h.len(), w.len(), "{name}: the trailing space");
            } else {
                assert_eq!(words(h), words(w), "{name}: {h}");
            }
        }
    }
}

/// The saved run of `ioz fileop args…` (with --json).
fn saved(dir: &Path, args: &[&str]) -> Value {
    let json = dir.join("run.json");
    let mut all = args.to_vec();
    let json_arg = json.to_str().unwrap().to_string();
    all.extend(["--json", &json_arg]);
    ioz_fileop(dir, &all);
    let doc = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    // Every saved metadata run is what schema/run.schema.json describes.
    crate::json_schema::assert_valid(&doc);
    doc
}

/// Each operation's count, by its name, for force factor `x`.
fn counts(doc: &Value, x: u64) -> Vec<(String, u64)> {
    doc["metadata"]["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["factor"] == x)
        .map(|m| {
            (
                m["op"].as_str().unwrap().to_string(),
                m["items"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn the_tree_has_fileop_s_counts() {
    let dir = tempfile::tempdir().unwrap();
    let doc = saved(dir.path(), &["-l", "2", "-u", "3"]);
    for x in [2u64, 3] {
        let c = counts(&doc, x);
        assert_eq!(c.len(), 15, "{c:?}");
        for (op, n) in c {
            let want = match op.as_str() {
                "mkdir" | "chdir" | "rmdir" => x + x * x + x * x * x,
                "readdir" => x * x,
                _ => x * x * x,
            };
            assert_eq!(n, want, "{op} at X={x}");
        }
    }
    // The saved configuration says what was asked.
    assert_eq!(
        doc["config"]["metadata"]["fileop"]["factors"],
        serde_json::json!([2, 3])
    );
    assert_eq!(doc["config"]["tests"], serde_json::json!([]));
}

fn best_and_worst_are_numbers_never_inf() {
    let dir = tempfile::tempdir().unwrap();
    let out = ioz_fileop(dir.path(), &["-f", "2", "-b", "-w"])
        .stdout
        .clone();
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with(['A', 'B', 'W']))
        .collect();
    assert_eq!(rows.len(), 3, "{out}");
    for row in rows {
        let fields: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(fields.len(), 18, "{row}");
        for f in &fields[1..] {
            let n: u64 = f.parse().unwrap_or_else(|_| panic!("{f} in {row}"));
            assert!(n > 0, "{row}");
        }
    }
    // A: operations over their time; B at least A, W at most A.
    let doc = saved(dir.path(), &["-f", "2"]);
    for m in doc["metadata"]["measurements"].as_array().unwrap() {
        let (a, b, w) = (
            m["ops_per_sec"].as_f64().unwrap(),
            m["best_ops_per_sec"].as_f64().unwrap(),
            m["worst_ops_per_sec"].as_f64().unwrap(),
        );
        assert!(w <= a && a <= b, "{m}");
        let expected = m["items"].as_f64().unwrap() * 1e9 / m["elapsed_ns"].as_f64().unwrap();
        assert!((a - expected).abs() < 1e-6 * a, "{m}");
    }
}

fn nothing_is_left_and_nothing_else_touched() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("precious"), b"keep").unwrap();
    fs::create_dir(dir.path().join("dir_1")).unwrap();
    fs::write(dir.path().join("dir_1/file_1"), b"mine").unwrap();
    let r = ioz_fileop(dir.path(), &["-f", "3", "-s", "1k"]);
    let (before, after) = r.listing.clone().unwrap();
    assert_eq!(before, after);
    assert_eq!(fs::read(dir.path().join("precious")).unwrap(), b"keep");
    assert_eq!(fs::read(dir.path().join("dir_1/file_1")).unwrap(), b"mine");
    // And in -d: its own directory, gone at the end.
    let other = tempfile::tempdir().unwrap();
    ioz_fileop(
        dir.path(),
        &["-f", "2", "-d", other.path().to_str().unwrap()],
    );
    assert_eq!(list_dir(other.path()), Vec::<String>::new());
}

fn bad_command_lines_and_places_are_refused_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a-file"), b"x").unwrap();
    let cases: [(&[&str], &str); 7] = [
        (&["fileop"], "fileop needs a force factor"),
        (&["fileop", "-f", "101"], "-f 101: out of range"),
        (&["fileop", "-f", "2", "-l", "1"], "cannot be combined"),
        (
            &["fileop", "-f", "2", "-d", "missing"],
            "-d missing: No such file",
        ),
        (
            &["fileop", "-f", "2", "-d", "a-file"],
            "-d a-file is a regular file, not a directory",
        ),
        (&["fileop", "-f", "2", "-q"], "fileop: unknown option -q"),
        (&["fileop", "-f", "2", "--json", "a-file"], "a-file"),
    ];
    for (args, part) in cases {
        let r = ioz(dir.path(), args);
        assert_refused(&r, part);
    }
    assert_eq!(fs::read(dir.path().join("a-file")).unwrap(), b"x");
}

fn a_full_file_system_fails_the_run_and_leaves_no_tree() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    // Room for a few dozen inodes: the directory test of X = 4 (84
    // directories) runs out of them.
    let _tmpfs = Tmpfs::mount(&mnt, "size=1m,nr_inodes=40");
    let r = ioz(
        dir.path(),
        &["fileop", "-f", "4", "-d", mnt.to_str().unwrap()],
    );
    assert_eq!(r.code, Some(1), "{}", r.context());
    let line = r
        .stderr
        .lines()
        .find(|l| l.contains("No space left on device"))
        .unwrap_or_else(|| panic!("no ENOSPC line: {}", r.context()));
    assert!(line.starts_with("ioz: mkdir "), "{line}");
    assert!(
        line.contains("/fileop_dir_"),
        "the line names the directory: {line}"
    );
    assert_eq!(list_dir(&mnt), Vec::<String>::new(), "the tree was left");
}

/// ioz fileop started on a tree large enough to last, once its tree's
/// directory exists (and holds something).
fn started(dir: &Path) -> std::process::Child {
    let child = Command::new(IOZ)
        .args(["fileop", "-l", "30", "-u", "40"])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let busy = list_dir(dir).iter().any(|name| {
            name.starts_with("ioz-fileop.")
                && fs::read_dir(dir.join(name)).is_ok_and(|mut d| d.next().is_some())
        });
        if busy || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn interrupt(child: &std::process::Child) {
    // SAFETY: kill takes a pid and a signal number.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
}

fn ctrl_c_stops_the_run_and_removes_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let child = started(dir.path());
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("stopped by SIGINT"), "{stderr}");
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn a_second_ctrl_c_removes_the_tree_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let child = started(dir.path());
    interrupt(&child);
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
}

fn repeated_runs_are_saved_reported_and_compared() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let live = ioz_fileop(d, &["-f", "2", "-b", "--runs", "3", "--json", "a.json"])
        .stdout
        .clone();
    assert!(live.contains("Over 3 runs"), "{live}");
    let doc: Value = serde_json::from_str(&fs::read_to_string(d.join("a.json")).unwrap()).unwrap();
    assert_eq!(
        doc["metadata"]["measurements"].as_array().unwrap().len(),
        45
    );
    let summaries = doc["metadata"]["summaries"].as_array().unwrap();
    assert_eq!(summaries.len(), 15);
    assert_eq!(summaries[0]["n"], 3);
    assert!(summaries[0]["ci95"]["low"].is_number());
    // ioz report prints the same bytes.
    let again = ioz(d, &["report", "a.json"]);
    again.expect_code(0);
    assert_eq!(again.stdout, live);
    // Compared with another configuration's runs: each operation judged.
    ioz_fileop(
        d,
        &["-f", "2", "-s", "0", "--runs", "3", "--json", "b.json"],
    );
    let cmp = ioz(d, &["compare", "a.json", "b.json", "--json", "c.json"]);
    cmp.expect_code(0);
    // -s 0 and -s 1 are other cells (file sizes): nothing in common.
    assert!(cmp.stderr.contains("shares no cell"), "{}", cmp.context());
    ioz_fileop(d, &["-f", "2", "--runs", "3", "--json", "d.json"]);
    let cmp = ioz(
        d,
        &["compare", "a.json", "d.json", "--json", "e.json", "--text"],
    );
    cmp.expect_code(0);
    let e: Value = serde_json::from_str(&fs::read_to_string(d.join("e.json")).unwrap()).unwrap();
    let cells = e["pairs"][0]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 15, "{}", cmp.stdout);
    assert!(cmp.stdout.contains("Ratio per operation"), "{}", cmp.stdout);
    assert!(cmp.stdout.contains("\n  mkdir (X=2) "), "{}", cmp.stdout);
    assert_eq!(cells[0]["cell"]["pass"]["op"], "mkdir");
    assert!(
        cells.iter().all(|x| x["p"].is_number()),
        "three runs a side: p-values"
    );
}

fn csv_and_html_hold_every_operation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let r = ioz(
        d,
        &["fileop", "-f", "2", "--csv", "r.csv", "--html", "r.html"],
    );
    r.expect_code(0);
    let csv = fs::read_to_string(d.join("r.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 16, "{csv}");
    assert!(lines[0].starts_with("op,factor,run,items,elapsed_ns,ops_per_sec"));
    assert!(lines[1].starts_with("mkdir,2,0,14,"), "{}", lines[1]);
    assert!(lines[12].starts_with("readdir,2,0,4,"), "{}", lines[12]);
    let html = fs::read_to_string(d.join("r.html")).unwrap();
    for op in ["mkdir", "chdir", "readdir", "delete"] {
        assert!(html.contains(&format!("<section id=\"op-{op}\">")), "{op}");
    }
    assert_eq!(html.matches("<svg").count(), 15);
    assert!(html.contains("Fileop:  Working in ."));
}

fn a_run_is_recorded_and_shown_from_the_history() {
    let dir = tempfile::tempdir().unwrap();
    let history = dir.path().join("h");
    let out = run(Command::new(IOZ)
        .args(["fileop", "-f", "2", "--label", "tmp"])
        .env_remove("IOZ_NO_HISTORY")
        .env("IOZ_HISTORY", &history)
        .current_dir(dir.path()));
    out.expect_code(0);
    assert!(out.stderr.contains("saved as run 1"), "{}", out.context());
    let shown = run(Command::new(IOZ)
        .args(["history", "show", "1"])
        .env_remove("IOZ_NO_HISTORY")
        .env("IOZ_HISTORY", &history)
        .current_dir(dir.path()));
    shown.expect_code(0);
    assert_eq!(shown.stdout, out.stdout);
    let list = run(Command::new(IOZ)
        .args(["history", "list"])
        .env_remove("IOZ_NO_HISTORY")
        .env("IOZ_HISTORY", &history)
        .current_dir(dir.path()));
    assert!(list.stdout.contains("ioz fileop -f 2"), "{}", list.stdout);
}

fn dash_u_mounts_the_file_system_again_before_each_test() {
    let ext4 = Ext4::new("noatime");
    fs::write(ext4.mnt().join("keep.bin"), b"foreign").unwrap();
    let before = ext4.mount_count();
    let mnt = ext4.mnt_str();
    let r = ioz(
        Path::new("/"),
        &["fileop", "-f", "2", "-U", &mnt, "-d", &mnt],
    );
    r.expect_code(0);
    let rows: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with('A')).collect();
    assert_eq!(rows.len(), 1, "{}", r.stdout);
    // Twelve tests: mkdir, chdir, rmdir, create (with write and close),
    // stat, open (with read), access, chmod, readdir, link, unlink, delete.
    assert_eq!(ext4.mount_count(), before + 12);
    assert_eq!(fs::read(ext4.mnt().join("keep.bin")).unwrap(), b"foreign");
    assert_eq!(list_dir(&ext4.mnt()), ["keep.bin", "lost+found"]);
}

/// `mpirun -np 2 ioz fileop`: a tree per rank, every rank's items summed
/// (mdtest's rule), each rank's environment in the run, nothing left.
fn two_ranks_each_make_and_remove_a_tree_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let r = mpirun_ioz(dir.path(), 2, &["fileop", "-f", "2", "--json", "r.json"]);
    expect(&r, 0);
    let a_rows: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with('A')).collect();
    assert_eq!(a_rows.len(), 1, "{}", r.stdout);
    let doc: Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("r.json")).unwrap()).unwrap();
    crate::json_schema::assert_valid(&doc);
    let c = counts(&doc, 2);
    assert_eq!(c.len(), 15, "{c:?}");
    for (op, n) in c {
        let per_rank = match op.as_str() {
            "mkdir" | "chdir" | "rmdir" => 2 + 4 + 8,
            "readdir" => 4,
            _ => 8,
        };
        assert_eq!(n, 2 * per_rank, "{op}");
    }
    assert_eq!(doc["metadata"]["hosts"].as_array().unwrap().len(), 2);
    assert_eq!(doc["ranks"].as_array().unwrap().len(), 2);
    assert_eq!(list_dir(dir.path()), ["r.json"]);
}
