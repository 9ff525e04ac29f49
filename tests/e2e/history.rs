//! The history of runs (issue 15), always in a temporary data directory
//! (`IOZ_HISTORY`), never the user's: runs recorded with the line that says
//! where, `--no-history` and `IOZ_NO_HISTORY`, parallel runs, a damaged
//! index rebuilt, `ioz history list/show/rm/reindex/import/trend/regressions`,
//! and `ioz compare @42 @last @label:NAME`.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::fixtures::{
    Ext4, IOZ, Run, Test, Tmpfs, assert_refused, data_file, list_dir, quiet, run, trials,
};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_run_is_recorded_and_says_so_on_stderr,
        no_history_leaves_the_directory_untouched,
        eight_concurrent_runs_are_all_recorded,
        a_truncated_index_is_rebuilt_with_one_warning,
        a_directory_that_is_not_a_history_is_refused,
        the_default_directory_is_the_xdg_data_home_and_never_fails_a_run,
        a_failed_run_is_recorded_with_its_status => [Root, Tmpfs],
        an_interrupted_run_is_recorded_with_its_status,
        runs_are_listed_and_shown_byte_identical_to_report,
        the_iozone_reference_logs_are_imported,
        an_undated_log_takes_the_date_given_else_the_files_time,
        removed_runs_are_gone_and_reindex_rebuilds_the_index,
        a_fifo_among_the_stored_runs_is_set_aside_not_waited_for,
        compare_takes_history_references,
        bad_history_commands_are_refused_with_one_line,
        trends_over_runs_given_fixed_dates_by_import,
        regressions_are_found_in_a_deliberately_slower_run,
        o_sync_nightly_run_is_a_regression_on_ext4 => [Ext4],
    ]
}

/// A working directory and a history directory beside it (not made).
pub(crate) struct Place {
    _tmp: tempfile::TempDir,
    pub(crate) work: PathBuf,
    pub(crate) history: PathBuf,
}

pub(crate) fn place() -> Place {
    let tmp = tempfile::tempdir().unwrap();
    let work = tmp.path().join("work");
    fs::create_dir(&work).unwrap();
    let history = tmp.path().join("history");
    Place {
        work,
        history,
        _tmp: tmp,
    }
}

/// `ioz args…` in `p.work` with its history in `p.history` (the harness
/// sets IOZ_NO_HISTORY for every other test: removed here).
pub(crate) fn command(p: &Place, args: &[&str]) -> Command {
    let mut c = Command::new(IOZ);
    c.args(args)
        .current_dir(&p.work)
        .env("IOZ_HISTORY", &p.history)
        .env_remove("IOZ_NO_HISTORY");
    c
}

pub(crate) fn ioz_h(p: &Place, args: &[&str]) -> Run {
    run(&mut command(p, args))
}

/// A small run: the write test on a 64 KiB file.
pub(crate) const SMALL: [&str; 6] = ["-i", "0", "-s", "64k", "-r", "4k"];

pub(crate) fn small(p: &Place, extra: &[&str]) -> Run {
    let mut args = SMALL.to_vec();
    args.extend(extra);
    ioz_h(p, &args)
}

/// Every file under `dir` with its size and modification time.
fn snapshot(dir: &Path) -> Vec<String> {
    if !dir.exists() {
        return vec!["absent".into()];
    }
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            if m.is_dir() {
                todo.push(e.path());
            }
            out.push(format!(
                "{} {} {:?}",
                e.path().display(),
                m.len(),
                m.modified().unwrap()
            ));
        }
    }
    out.sort();
    out
}

pub(crate) fn run_files(p: &Place) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(p.history.join("runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn a_run_is_recorded_and_says_so_on_stderr() {
    let p = place();
    let r = small(&p, &["--label", "first", "--json", "r.json"]);
    r.expect_code(0);
    let last = r.stderr.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        "ioz: saved as run 1 — ioz history show 1",
        "{}",
        r.context()
    );
    // Standard output is IOzone's text, which scripts parse to its end.
    assert!(!r.stdout.contains("saved as"), "{}", r.context());
    assert!(
        r.stdout.trim_end().ends_with("test complete."),
        "{}",
        r.context()
    );
    // The stored run is the run's JSON, byte for byte.
    let stored = fs::read(p.history.join("runs/1.json")).unwrap();
    assert_eq!(stored, fs::read(p.work.join("r.json")).unwrap());
    let r = small(&p, &[]);
    r.expect_code(0);
    assert!(
        r.stderr
            .ends_with("ioz: saved as run 2 — ioz history show 2\n"),
        "{}",
        r.context()
    );
    assert_eq!(run_files(&p), ["1.json", "2.json"]);
}

fn no_history_leaves_the_directory_untouched() {
    let p = place();
    // Nothing made where there is no history yet.
    small(&p, &["--no-history"]).expect_code(0);
    let quiet = run(command(&p, &SMALL).env("IOZ_NO_HISTORY", "1"));
    quiet.expect_code(0);
    assert!(!quiet.stderr.contains("saved as"), "{}", quiet.context());
    assert!(!p.history.exists());
    // Nothing changed in one that exists.
    small(&p, &[]).expect_code(0);
    let before = snapshot(&p.history);
    let r = small(&p, &["--no-history"]);
    r.expect_code(0);
    assert!(!r.stderr.contains("saved as"), "{}", r.context());
    run(command(&p, &SMALL).env("IOZ_NO_HISTORY", "1")).expect_code(0);
    assert_eq!(snapshot(&p.history), before);
}

fn eight_concurrent_runs_are_all_recorded() {
    let p = place();
    let children: Vec<_> = (0..8)
        .map(|i| {
            let file = format!("f{i}");
            let label = format!("job{i}");
            let mut args = SMALL.to_vec();
            args.extend(["-f", &file, "--label", &label]);
            command(&p, &args)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids: Vec<u32> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            assert_eq!(out.status.code(), Some(0), "{stderr}");
            let line = stderr.lines().last().unwrap_or_default();
            line.strip_prefix("ioz: saved as run ")
                .and_then(|rest| rest.split(' ').next())
                .and_then(|id| id.parse().ok())
                .unwrap_or_else(|| panic!("no saved line: {stderr}"))
        })
        .collect();
    ids.sort();
    assert_eq!(ids, (1..=8).collect::<Vec<_>>());
    assert_eq!(run_files(&p).len(), 8);
}

fn a_truncated_index_is_rebuilt_with_one_warning() {
    let p = place();
    small(&p, &[]).expect_code(0);
    small(&p, &[]).expect_code(0);
    let db = p.history.join("history.sqlite");
    let f = fs::File::options().write(true).open(&db).unwrap();
    f.set_len(1000).unwrap();
    drop(f);
    let r = small(&p, &[]);
    r.expect_code(0);
    let warnings: Vec<&str> = r.stderr.lines().filter(|l| l.contains("rebuilt")).collect();
    assert_eq!(warnings.len(), 1, "{}", r.context());
    assert!(warnings[0].contains("history.sqlite"), "{}", r.context());
    assert!(
        warnings[0].contains("rebuilt from the 2 stored run(s)"),
        "{}",
        r.context()
    );
    assert!(
        r.stderr
            .ends_with("ioz: saved as run 3 — ioz history show 3\n"),
        "{}",
        r.context()
    );
    // Once: the next run finds a sound index.
    let r = small(&p, &[]);
    assert!(!r.stderr.contains("rebuilt"), "{}", r.context());
}

fn a_directory_that_is_not_a_history_is_refused() {
    let p = place();
    fs::create_dir(&p.history).unwrap();
    fs::write(p.history.join("notes.txt"), "mine").unwrap();
    let before = snapshot(&p.history);
    let r = small(&p, &[]);
    assert_refused(&r, "is not an ioz history");
    let dir = p.history.display().to_string();
    let r = run(command(&p, &SMALL)
        .env("IOZ_HISTORY", &p.work)
        .arg("--history")
        .arg(&dir));
    assert_refused(&r, &dir);
    assert_eq!(snapshot(&p.history), before);
}

fn a_failed_run_is_recorded_with_its_status() {
    let p = place();
    let mount = Tmpfs::mount(&p.work.join("mnt"), "size=12m");
    let file = mount.path().join("f");
    // As in faults.rs: 8-byte records make the write pass long, and the
    // disk is filled by someone else while it runs.
    let mut child = command(
        &p,
        &[
            "-s",
            "8m",
            "-r",
            "8b",
            "-i",
            "0",
            "-f",
            file.to_str().unwrap(),
        ],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    assert!(lines.any(|l| l.unwrap_or_default().trim_start().starts_with("KB  reclen")));
    let mut f = fs::File::create(mount.path().join("filler")).unwrap();
    let chunk = vec![0xa5u8; 64 << 10];
    while let Ok(n) = f.write(&chunk) {
        if n == 0 {
            break;
        }
    }
    drop(f);
    let _rest: Vec<_> = lines.collect();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.ends_with("ioz: saved as run 1 — ioz history show 1\n"),
        "{stderr}"
    );
    let failed = ioz_h(&p, &["history", "list", "--status", "failed"]);
    failed.expect_code(0);
    assert_eq!(failed.stdout.lines().count(), 2, "{}", failed.context());
    assert!(failed.stdout.contains("failed: "), "{}", failed.context());
    let complete = ioz_h(&p, &["history", "list", "--status", "complete"]);
    assert_eq!(complete.stdout.lines().count(), 1, "{}", complete.context());
}

/// `ioz history list`'s rows (the header left out), split on blanks.
pub(crate) fn rows(list: &Run) -> Vec<Vec<String>> {
    list.stdout
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

fn runs_are_listed_and_shown_byte_identical_to_report() {
    let p = place();
    small(&p, &["--label", "ext4-a"]).expect_code(0);
    let mut args = SMALL.to_vec();
    args.extend(["-i", "1", "--label", "ext4-b"]);
    ioz_h(&p, &args).expect_code(0);
    let list = ioz_h(&p, &["history", "list"]);
    list.expect_code(0);
    assert!(list.stdout.starts_with("id  date"), "{}", list.context());
    let listed = rows(&list);
    assert_eq!(listed.len(), 2, "{}", list.context());
    assert_eq!(listed[0][0], "1");
    assert_eq!(listed[0][2], "ext4-a");
    assert_eq!(listed[1][2], "ext4-b");
    assert!(list.stdout.contains("complete"), "{}", list.context());
    assert!(
        list.stdout
            .contains("-i 0 -s 64k -r 4k -i 1 --label ext4-b"),
        "{}",
        list.context()
    );
    let only_b = ioz_h(&p, &["history", "list", "--label", "ext4-b"]);
    assert_eq!(rows(&only_b).len(), 1, "{}", only_b.context());
    let none = ioz_h(&p, &["history", "list", "--since", "2999-01-01"]);
    assert_eq!(rows(&none).len(), 0, "{}", none.context());

    // Shown as ioz report shows the stored file, with every output.
    let stored = p.history.join("runs/2.json");
    let stored = stored.to_str().unwrap();
    for (show, report) in [
        (vec!["history", "show", "2"], vec!["report", stored]),
        (
            vec!["history", "show", "last", "-R"],
            vec!["report", stored, "-R"],
        ),
    ] {
        let a = ioz_h(&p, &show);
        let b = ioz_h(&p, &report);
        a.expect_code(0);
        assert_eq!(a.stdout, b.stdout, "{}", a.context());
        assert!(a.stdout.contains("Label: ext4-b"), "{}", a.context());
    }
    ioz_h(
        &p,
        &[
            "history", "show", "@2", "--json", "a.json", "--csv", "a.csv",
        ],
    )
    .expect_code(0);
    ioz_h(
        &p,
        &["report", stored, "--json", "b.json", "--csv", "b.csv"],
    )
    .expect_code(0);
    for (a, b) in [("a.json", "b.json"), ("a.csv", "b.csv")] {
        assert_eq!(
            fs::read(p.work.join(a)).unwrap(),
            fs::read(p.work.join(b)).unwrap(),
            "{a}"
        );
    }
}

/// The IOzone logs of tests/fixtures/iozone-reference/.
fn reference_logs() -> Vec<PathBuf> {
    let dir = data_file("iozone-reference");
    let mut logs: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    logs.sort();
    logs
}

fn the_iozone_reference_logs_are_imported() {
    let p = place();
    let logs = reference_logs();
    assert!(logs.len() >= 10, "{logs:?}");
    let mut args = vec![
        "history".to_string(),
        "import".into(),
        "--label".into(),
        "iozone".into(),
    ];
    args.extend(logs.iter().map(|l| l.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = ioz_h(&p, &args);
    r.expect_code(0);
    assert_eq!(r.stdout.lines().count(), logs.len(), "{}", r.context());
    let list = ioz_h(&p, &["history", "list", "--label", "iozone"]);
    let listed = rows(&list);
    assert_eq!(listed.len(), logs.len(), "{}", list.context());
    // Dated by their `Run began:` lines (Sat Nov 21 21:05:03 2026 …).
    for row in &listed {
        assert!(row[1].starts_with("2026-11-21T21:0"), "{}", list.context());
    }
    assert!(list.stdout.contains("./iozone -a"), "{}", list.context());
    // A log is shown as IOzone printed it.
    let first = ioz_h(&p, &["history", "show", "1"]);
    first.expect_code(0);
    assert_eq!(first.stdout, fs::read_to_string(&logs[0]).unwrap());
}

fn an_undated_log_takes_the_date_given_else_the_files_time() {
    let p = place();
    let text = fs::read_to_string(data_file("iozone-reference/auto.txt")).unwrap();
    let undated: String = text
        .lines()
        .filter(|l| !l.contains("Run began:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let log = p.work.join("undated.txt");
    fs::write(&log, undated).unwrap();
    let f = fs::File::options().write(true).open(&log).unwrap();
    // 2008-06-12T10:22:33Z
    f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_213_266_153))
        .unwrap();
    drop(f);
    let log = log.to_str().unwrap();
    ioz_h(&p, &["history", "import", log, "--date", "2007-09-06"]).expect_code(0);
    ioz_h(&p, &["history", "import", log]).expect_code(0);
    let list = ioz_h(&p, &["history", "list"]);
    let dates: Vec<String> = rows(&list).into_iter().map(|r| r[1].clone()).collect();
    assert_eq!(
        dates,
        ["2007-09-06T00:00:00Z", "2008-06-12T10:22:33Z"],
        "{}",
        list.context()
    );
}

fn removed_runs_are_gone_and_reindex_rebuilds_the_index() {
    let p = place();
    for label in ["a", "b", "c"] {
        small(&p, &["--label", label]).expect_code(0);
    }
    let r = ioz_h(&p, &["history", "rm", "2", "@3"]);
    r.expect_code(0);
    assert_eq!(r.stdout, "removed run 2\nremoved run 3\n");
    assert_eq!(run_files(&p), ["1.json"]);
    // An unknown id removes nothing.
    small(&p, &["--label", "d"]).expect_code(0);
    assert_refused(&ioz_h(&p, &["history", "rm", "4", "99"]), "no run 99");
    assert_eq!(run_files(&p), ["1.json", "4.json"]);
    let before = ioz_h(&p, &["history", "list"]).stdout;
    fs::remove_file(p.history.join("history.sqlite")).unwrap();
    let r = ioz_h(&p, &["history", "reindex"]);
    r.expect_code(0);
    assert!(r.stdout.starts_with("indexed 2 run(s)"), "{}", r.context());
    assert_eq!(ioz_h(&p, &["history", "list"]).stdout, before);
}

/// A FIFO put among the stored runs by hand: `ioz history list` finds a
/// file more than the index lists, lists the runs from the files and
/// leaves the FIFO out, refused by its kind; it never waits for a writer
/// (before, it waited for ever), and, reading, changes nothing: `ioz
/// history reindex` sets the FIFO aside.
fn a_fifo_among_the_stored_runs_is_set_aside_not_waited_for() {
    let p = place();
    small(&p, &[]).expect_code(0);
    let fifo = p.history.join("runs/7.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let finished = |args: &[&str]| {
        let mut child = command(&p, args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("ioz {args:?} waited on the FIFO {}", fifo.display());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
        (stdout, stderr)
    };
    let (stdout, stderr) = finished(&["history", "list"]);
    assert!(
        stderr.contains("listed from the 1 stored run(s)"),
        "{stderr}"
    );
    assert!(stderr.contains("it is a FIFO"), "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert_eq!(run_files(&p), ["1.json", "7.json"]);
    finished(&["history", "reindex"]);
    assert_eq!(run_files(&p), ["1.json", "7.json.unreadable"]);
}

fn compare_takes_history_references() {
    let p = place();
    let log = |name: &str| {
        data_file(&format!("iozone-reference/{name}"))
            .display()
            .to_string()
    };
    for (label, file) in [
        ("jffs2", "auto.txt"),
        ("jffs2", "auto2.txt"),
        ("ubifs", "auto.txt"),
    ] {
        ioz_h(&p, &["history", "import", "--label", label, &log(file)]).expect_code(0);
    }
    let r = ioz_h(
        &p,
        &[
            "compare",
            "@label:jffs2",
            "@label:ubifs",
            "--json",
            "c.json",
        ],
    );
    r.expect_code(0);
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(p.work.join("c.json")).unwrap()).unwrap();
    assert_eq!(doc["baseline"]["label"], "jffs2", "{doc}");
    assert_eq!(doc["baseline"]["runs"], 2, "{doc}");
    assert_eq!(doc["pairs"][0]["other"]["label"], "ubifs", "{doc}");
    assert_eq!(doc["pairs"][0]["other"]["source"], "@label:ubifs", "{doc}");
    // The run against itself: the same everywhere.
    let r = ioz_h(&p, &["compare", "@1", "@label:jffs2", "--text"]);
    r.expect_code(0);
    let r = ioz_h(&p, &["compare", "@3", "@last"]);
    r.expect_code(0);
    assert!(r.stdout.contains("0 faster, 0 slower"), "{}", r.context());
    assert_refused(
        &ioz_h(&p, &["compare", "@label:none", "@1"]),
        "no complete run with the label 'none'",
    );
    assert_refused(&ioz_h(&p, &["compare", "@1", "@77"]), "no run 77");
}

fn bad_history_commands_are_refused_with_one_line() {
    let p = place();
    small(&p, &[]).expect_code(0);
    for (args, part) in [
        (&["history"][..], "needs a subcommand"),
        (&["history", "lst"], "unknown subcommand 'lst'"),
        (
            &["history", "list", "--since", "yesterday"],
            "--since 'yesterday' is not a date",
        ),
        (&["history", "show", "42"], "no run 42"),
        (&["history", "show", "x"], "'x' is not a run"),
        (&["history", "import", "nothing.txt"], "nothing.txt"),
        (
            &["history", "trend", "--size", "1m"],
            "give both or neither",
        ),
        (
            &["history", "regressions", "--bogus"],
            "unknown option --bogus",
        ),
    ] {
        assert_refused(&ioz_h(&p, args), part);
    }
    for sub in [
        "list",
        "show",
        "rm",
        "reindex",
        "import",
        "trend",
        "regressions",
    ] {
        let r = ioz_h(&p, &["history", sub, "-h"]);
        r.expect_code(0);
        assert!(
            r.stdout.starts_with(&format!("Usage: ioz history {sub}")),
            "{}",
            r.context()
        );
    }
}

/// `auto.txt` without its `Run began:` line, as `name` in `p.work`: dated
/// by --date on import.
fn undated_log(p: &Place, source: &str, name: &str) -> String {
    let text = fs::read_to_string(data_file(&format!("iozone-reference/{source}"))).unwrap();
    let undated: String = text
        .lines()
        .filter(|l| !l.contains("Run began:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let path = p.work.join(name);
    fs::write(&path, undated).unwrap();
    path.display().to_string()
}

fn trends_over_runs_given_fixed_dates_by_import() {
    let p = place();
    // Seed 003's shape: two file systems measured on two dates.
    let jffs2 = undated_log(&p, "auto.txt", "jffs2.txt");
    let ubifs = undated_log(&p, "auto_report.txt", "ubifs.txt");
    for (date, label, log) in [
        ("2008-06-12", "ubifs", &ubifs),
        ("2007-09-06", "jffs2-lzo", &jffs2),
        ("2007-09-06", "ubifs", &ubifs),
        ("2008-06-12", "jffs2-lzo", &jffs2),
    ] {
        ioz_h(
            &p,
            &["history", "import", log, "--date", date, "--label", label],
        )
        .expect_code(0);
    }
    let r = ioz_h(
        &p,
        &[
            "history",
            "trend",
            "--ratio-to",
            "jffs2-lzo",
            "--csv",
            "t.csv",
            "--json",
            "t.json",
            "--html",
            "t.html",
            "--text",
        ],
    );
    r.expect_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(
        lines[0].starts_with("ioz history trend: kB/s, each test's mean"),
        "{}",
        r.context()
    );
    let head: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        &head[..6],
        ["run", "date", "label", "write", "rewrite", "read"],
        "{}",
        r.context()
    );
    // Rows by date: ids 2, 3 (2007-09-06), then 1, 4 (2008-06-12).
    let ids: Vec<&str> = lines[2..6]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ids, ["2", "3", "1", "4"], "{}", r.context());
    assert!(
        lines[2].contains("2007-09-06 00:00  jffs2-lzo"),
        "{}",
        r.context()
    );
    // The ratio rows: each ubifs run against the jffs2-lzo run of its day.
    assert!(
        lines[7].starts_with("Ratio to jffs2-lzo"),
        "{}",
        r.context()
    );
    let ratio_ids: Vec<&str> = lines[9..]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(ratio_ids, ["3", "1"], "{}", r.context());
    // Not a terminal: no colours.
    assert!(!r.stdout.contains('\x1b'), "{}", r.context());

    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(p.work.join("t.json")).unwrap()).unwrap();
    assert_eq!(doc["format"], "ioz-history-trend");
    assert_eq!(doc["rows"].as_array().unwrap().len(), 4);
    assert_eq!(doc["ratios"][0]["reference_id"], 2, "{doc}");
    assert_eq!(doc["ratios"][1]["reference_id"], 4, "{doc}");
    // The same log on both days: the same value.
    assert_eq!(doc["rows"][0]["values"], doc["rows"][3]["values"], "{doc}");
    let csv = fs::read_to_string(p.work.join("t.csv")).unwrap();
    assert!(
        csv.starts_with("kind,id,date,label,reference_id,write,"),
        "{csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("value,")).count(),
        4,
        "{csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("ratio,")).count(),
        2,
        "{csv}"
    );
    let html = fs::read_to_string(p.work.join("t.html")).unwrap();
    // One chart per test, one line per label in each.
    let tests = doc["tests"].as_array().unwrap().len();
    assert_eq!(html.matches("<svg").count(), tests);
    assert_eq!(html.matches("<polyline").count(), 2 * tests);
    // Each chart's time axis labelled at its ends to the day and titled;
    // its value axis titled with the unit.
    for label in [
        ">2007-09-06</text>",
        ">2008-06-12</text>",
        ">date (UTC)</text>",
    ] {
        assert_eq!(html.matches(label).count(), tests, "{label}");
    }
    assert_eq!(
        html.matches(" transform=\"rotate(-90 ").count(),
        tests,
        "a turned unit title per chart"
    );

    // One cell, some tests.
    let r = ioz_h(
        &p,
        &[
            "history",
            "trend",
            "--size",
            "64k",
            "--record",
            "4k",
            "--test",
            "write",
            "--test",
            "random_read",
            "--label",
            "ubifs",
        ],
    );
    r.expect_code(0);
    assert!(
        r.stdout.contains("the cell of 64 kB files in 4 kB records"),
        "{}",
        r.context()
    );
    let head: Vec<&str> = r
        .stdout
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        head,
        ["run", "date", "label", "write", "random", "read"],
        "{}",
        r.context()
    );
    assert_eq!(r.stdout.lines().count(), 4, "{}", r.context());
    assert_refused(
        &ioz_h(&p, &["history", "trend", "--test", "wrte"]),
        "--test 'wrte' is not a test",
    );
    assert_refused(
        &ioz_h(&p, &["history", "trend", "--ratio-to", "yaffs"]),
        "--ratio-to yaffs",
    );
}

/// A saved run with `rate` × a fixed rate in every measurement (a little
/// jitter per repetition, so the statistics have a spread), dated `date`.
fn fabricated(
    template: &serde_json::Value,
    date: &str,
    slowdown: f64,
    seed: u64,
) -> serde_json::Value {
    let mut run = template.clone();
    run["started_at"] = date.into();
    run["config"]["label"] = "nightly".into();
    for cell in run["cells"].as_array_mut().unwrap() {
        for (j, m) in cell["measurements"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            let jitter = 1.0 + 0.01 * (((seed + j as u64) % 3) as f64 - 1.0);
            m["elapsed_ns"] = ((1_000_000.0 * slowdown * jitter) as u64).into();
        }
    }
    run
}

fn regressions_are_found_in_a_deliberately_slower_run() {
    let p = place();
    let r = ioz_h(
        &p,
        &[
            "-i",
            "0",
            "-s",
            "64k",
            "-r",
            "4k",
            "--runs",
            "3",
            "--json",
            "t.json",
            "--no-history",
        ],
    );
    r.expect_code(0);
    let template: serde_json::Value =
        serde_json::from_slice(&fs::read(p.work.join("t.json")).unwrap()).unwrap();
    let import = |name: &str, run: serde_json::Value| {
        let path = p.work.join(name);
        fs::write(&path, serde_json::to_vec(&run).unwrap()).unwrap();
        ioz_h(&p, &["history", "import", path.to_str().unwrap()]).expect_code(0);
    };
    for (i, day) in ["2026-11-01", "2026-11-02", "2026-11-03"]
        .iter()
        .enumerate()
    {
        import(
            &format!("n{i}.json"),
            fabricated(&template, &format!("{day}T02:00:00Z"), 1.0, i as u64),
        );
    }
    // As fast as before: nothing to report, even with --fail.
    let r = ioz_h(&p, &["history", "regressions", "--fail"]);
    r.expect_code(0);
    assert!(r.stdout.contains("nightly"), "{}", r.context());
    assert!(
        r.stdout.contains(
            "run 3 (2026-11-03T02:00:00Z) against 2 earlier run(s): 0 of 2 cell(s) slower"
        ),
        "{}",
        r.context()
    );
    // Twice as slow.
    import(
        "slow.json",
        fabricated(&template, "2026-11-04T02:00:00Z", 2.0, 0),
    );
    let r = ioz_h(&p, &["history", "regressions"]);
    r.expect_code(0);
    assert!(
        r.stdout.contains(
            "run 4 (2026-11-04T02:00:00Z) against 3 earlier run(s): 2 of 2 cell(s) slower"
        ),
        "{}",
        r.context()
    );
    assert!(r.stdout.contains("write 64 kB"), "{}", r.context());
    assert!(
        r.stdout.contains("50.0 % slower (adjusted p = "),
        "{}",
        r.context()
    );
    let r = ioz_h(
        &p,
        &["history", "regressions", "--fail", "--label", "nightly"],
    );
    r.expect_code(1);
    assert!(
        r.stderr
            .contains("2 cell(s) slower than the runs before (--fail)"),
        "{}",
        r.context()
    );
    // Another label is not compared with these.
    let r = ioz_h(
        &p,
        &["history", "regressions", "--fail", "--label", "other"],
    );
    assert_refused(&r, "no complete run matches");
}

/// Real runs, recorded as they end: two nightly runs on ext4, then one
/// with O_SYNC writes (-o), which the regressions step must name. Plain
/// writes go at memory speed, some 30x O_SYNC's, on a quiet machine; on
/// a busy one (other processes' dirty pages throttling every writer) a
/// plain run came out as slow, and no cell differed significantly: when
/// none does, the page cache's speed is measured and the test skipped
/// with it if it was slow.
fn o_sync_nightly_run_is_a_regression_on_ext4() {
    let fs = Ext4::new("relatime");
    let p = place();
    let file = fs.mnt().join("t.tmp");
    let file = file.to_str().unwrap();
    for extra in [None, None, Some("-o")] {
        let mut args = vec![
            "-s", "1m", "-r", "64k", "-i", "0", "--runs", "5", "--label", "nightly", "-f", file,
        ];
        args.extend(extra);
        ioz_h(&p, &args).expect_code(0);
    }
    let r = ioz_h(&p, &["history", "regressions", "--fail"]);
    if r.code != Some(1) {
        quiet::skip_unless_page_cache_is_fast(
            &std::env::temp_dir(),
            (256u64 << 20) as f64,
            "plain writes well faster than O_SYNC ones",
        );
    }
    r.expect_code(1);
    assert!(
        r.stdout.contains("nightly on ") && r.stdout.contains("run 3 ("),
        "{}",
        r.context()
    );
    assert!(
        r.stdout
            .contains("against 2 earlier run(s): 2 of 2 cell(s) slower"),
        "{}",
        r.context()
    );
    for pass in ["write", "rewrite"] {
        assert!(
            r.stdout
                .contains(&format!("  {pass} 1024 kB file, 64 kB records: ")),
            "{}",
            r.context()
        );
    }
    assert!(r.stderr.contains("(--fail)"), "{}", r.context());
}

fn an_interrupted_run_is_recorded_with_its_status() {
    let p = place();
    // 8-byte records: a long write pass, stopped once its table has begun.
    let mut child = command(&p, &["-s", "8m", "-r", "8b", "-i", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    assert!(lines.any(|l| l.unwrap_or_default().trim_start().starts_with("KB  reclen")));
    // SAFETY: kill sends a signal to our own child, which is still running.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let _rest: Vec<_> = lines.collect();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(
        stderr.ends_with("ioz: saved as run 1 — ioz history show 1\n"),
        "{stderr}"
    );
    let list = ioz_h(&p, &["history", "list", "--status", "interrupted"]);
    assert!(
        list.stdout.contains("interrupted by SIGINT"),
        "{}",
        list.context()
    );
    // Left out of trends and regressions, which take complete runs.
    assert_refused(&ioz_h(&p, &["history", "trend"]), "no complete run matches");
}

/// Without IOZ_HISTORY: `$XDG_DATA_HOME/ioz`, else `~/.local/share/ioz`
/// (here a temporary HOME); a default directory that is not ioz's is a
/// warning, never a failed run.
fn the_default_directory_is_the_xdg_data_home_and_never_fails_a_run() {
    let p = place();
    let home = p.work.parent().unwrap().join("home");
    fs::create_dir(&home).unwrap();
    let plain = |extra: &[(&str, &Path)]| {
        let mut c = command(&p, &SMALL);
        c.env_remove("IOZ_HISTORY")
            .env_remove("XDG_DATA_HOME")
            .env("HOME", &home);
        for (k, v) in extra {
            c.env(k, v);
        }
        run(&mut c)
    };
    let r = plain(&[]);
    r.expect_code(0);
    assert!(
        r.stderr
            .ends_with("ioz: saved as run 1 — ioz history show 1\n"),
        "{}",
        r.context()
    );
    assert!(home.join(".local/share/ioz/runs/1.json").is_file());
    let xdg = home.join("xdg");
    let r = plain(&[("XDG_DATA_HOME", &xdg)]);
    r.expect_code(0);
    assert!(xdg.join("ioz/runs/1.json").is_file(), "{}", r.context());
    // A data directory holding someone else's files: left alone.
    let foreign = home.join("other");
    fs::create_dir_all(foreign.join("ioz")).unwrap();
    fs::write(foreign.join("ioz/notes.txt"), "mine").unwrap();
    let r = plain(&[("XDG_DATA_HOME", &foreign)]);
    r.expect_code(0);
    assert!(
        r.stderr.contains("is not an ioz history"),
        "{}",
        r.context()
    );
    assert!(
        r.stderr.contains("this run is not recorded"),
        "{}",
        r.context()
    );
    assert_eq!(list_dir(&foreign.join("ioz")), ["notes.txt"]);
}
