//! The history of runs (issue 15), always in a temporary data directory
//! (`IOZ_HISTORY`), never the user's: runs recorded with the line that says
//! where, `--no-history` and `IOZ_NO_HISTORY`, parallel runs, a damaged
//! index rebuilt, `ioz history list/show/rm/reindex/import/trend/regressions`,
//! and `ioz compare @42 @last @label:NAME`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::fixtures::{IOZ, Run, Test, assert_refused, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_run_is_recorded_and_says_so_on_stderr,
        no_history_leaves_the_directory_untouched,
        eight_concurrent_runs_are_all_recorded,
        a_truncated_index_is_rebuilt_with_one_warning,
        a_directory_that_is_not_a_history_is_refused,
    ]
}

/// A working directory and a history directory beside it (not made).
struct Place {
    _tmp: tempfile::TempDir,
    work: PathBuf,
    history: PathBuf,
}

fn place() -> Place {
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
fn command(p: &Place, args: &[&str]) -> Command {
    let mut c = Command::new(IOZ);
    c.args(args)
        .current_dir(&p.work)
        .env("IOZ_HISTORY", &p.history)
        .env_remove("IOZ_NO_HISTORY");
    c
}

fn ioz_h(p: &Place, args: &[&str]) -> Run {
    run(&mut command(p, args))
}

/// A small run: the write test on a 64 KiB file.
const SMALL: [&str; 6] = ["-i", "0", "-s", "64k", "-r", "4k"];

fn small(p: &Place, extra: &[&str]) -> Run {
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

fn run_files(p: &Place) -> Vec<String> {
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
