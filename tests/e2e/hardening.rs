//! The history, compare and their text views against hostile input and
//! faults (issue 25): a history's files are never a result path, the
//! history acts only on `runs/<id>.json` and never follows a link out of
//! it, reads change nothing, a version ioz does not know is refused before
//! measuring, the lock is waited for a few seconds and a signal ends the
//! wait, a history that cannot take a run is refused before it, stray
//! names and stale temporaries are dealt with, a full disk is named;
//! control characters of saved runs reach no terminal, an IOzone log's
//! unusable rates are refused naming their line, and `--date` wins on
//! import. (The -+m launcher's cases are in cluster.rs, one stop delivered
//! twice in safety_signals.rs.) Always in temporary histories.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::fixtures::{
    IOZ, Run, Test, Tmpfs, assert_refused, data_file, is_root, list_dir, quietly, run, trials,
};
use crate::history::{Place, SMALL, command, ioz_h, place, rows, run_files, small};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_history_s_files_are_never_a_result_path,
        rm_removes_runs_id_json_and_never_what_a_row_names,
        a_linked_runs_directory_is_refused_and_left_alone,
        an_index_of_a_version_no_ioz_writes_is_refused_before_measuring,
        a_held_lock_is_waited_for_seconds_and_a_signal_ends_the_wait,
        a_history_that_cannot_take_the_run_is_refused_before_it,
        a_read_only_history_refuses_a_run_before_it => [Root, Tmpfs],
        a_history_the_user_may_not_write_refuses_a_run_before_it => [Unprivileged],
        stray_names_in_runs_are_no_runs_and_reindex_says_why,
        reading_a_history_changes_nothing,
        a_history_on_a_read_only_mount_is_read => [Root, Tmpfs],
        a_stale_temporary_of_a_killed_writer_is_swept,
        a_full_history_names_enospc_and_leaves_no_journal => [Root, Tmpfs],
        control_characters_of_saved_runs_never_reach_the_terminal,
        unusable_rates_in_an_iozone_log_are_refused_naming_the_line,
        the_date_given_on_import_wins_and_is_said,
    ]
}

/// Every file under `dir` with its bytes, and every directory: what a
/// command must leave as it was.
fn contents(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                todo.push(path.clone());
                out.push((path, b"(a directory)".to_vec()));
            } else if meta.file_type().is_symlink() {
                let to = fs::read_link(&path).unwrap();
                out.push((path, to.into_os_string().into_encoded_bytes()));
            } else {
                out.push((path.clone(), fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// [`contents`] with each file's modification time: nothing rewritten.
fn untouched(dir: &Path) -> Vec<String> {
    contents(dir)
        .into_iter()
        .map(|(path, bytes)| {
            let m = fs::symlink_metadata(&path).unwrap();
            format!(
                "{} {:?} {:x?}",
                path.display(),
                m.modified().unwrap(),
                bytes
            )
        })
        .collect()
}

/// Two small runs recorded, their JSON kept in the work directory as
/// a.json and b.json.
fn two_runs(p: &Place) {
    small(p, &["--json", "a.json"]).expect_code(0);
    small(p, &["--json", "b.json"]).expect_code(0);
}

/// The index of `p`'s history, opened to change it by hand.
fn index(p: &Place) -> rusqlite::Connection {
    rusqlite::Connection::open(p.history.join("history.sqlite")).unwrap()
}

/// The history's lines on stderr other than the waiting line, and a
/// check that nothing panicked.
fn no_panic(r: &Run) {
    assert_ne!(r.code, Some(101), "a panic: {}", r.context());
    assert!(!r.stderr.contains("panicked"), "{}", r.context());
}

fn a_history_s_files_are_never_a_result_path() {
    let p = place();
    two_runs(&p);
    let at = |name: &str| p.history.join(name).display().to_string();
    let (one, two, nine) = (at("runs/1.json"), at("runs/2.json"), at("runs/9.json"));
    let (index, mark, runs) = (at("history.sqlite"), at("ioz-history"), at("runs"));
    let history = p.history.display().to_string();
    let before = contents(&p.history);
    let run = |extra: &[&str]| {
        let mut args = SMALL.to_vec();
        args.extend(extra);
        args.extend(["--history", &history]);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let cases: Vec<Vec<String>> = vec![
        ["compare", "a.json", "b.json", "--json", &one]
            .map(String::from)
            .to_vec(),
        ["compare", "a.json", "b.json", "--csv", &two, "--force"]
            .map(String::from)
            .to_vec(),
        run(&["--csv", &one]),
        run(&["--json", &index, "--force"]),
        ["report", "a.json", "--json", &one]
            .map(String::from)
            .to_vec(),
        ["report", "a.json", "--html", &mark, "--force"]
            .map(String::from)
            .to_vec(),
        ["report", "a.json", "--plots", &runs]
            .map(String::from)
            .to_vec(),
        ["history", "show", "1", "--csv", &two]
            .map(String::from)
            .to_vec(),
        ["history", "trend", "--json", &nine]
            .map(String::from)
            .to_vec(),
    ];
    for args in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = ioz_h(&p, &args);
        let line = assert_refused(&r, "is in the ioz history");
        assert!(line.contains("which only ioz history changes"), "{line}");
    }
    assert_eq!(contents(&p.history), before);
    // The history still works as it did.
    ioz_h(&p, &["history", "trend"]).expect_code(0);
    let r = ioz_h(&p, &["history", "reindex"]);
    r.expect_code(0);
    assert!(r.stdout.starts_with("indexed 2 run(s)"), "{}", r.context());
}

fn rm_removes_runs_id_json_and_never_what_a_row_names() {
    let p = place();
    two_runs(&p);
    small(&p, &[]).expect_code(0);
    let victim = p.work.join("victim");
    fs::write(&victim, b"not ioz's").unwrap();
    let conn = index(&p);
    conn.execute(
        "UPDATE runs SET file = ?1 WHERE id = 1",
        [victim.to_str().unwrap()],
    )
    .unwrap();
    conn.execute("UPDATE runs SET file = '../work/victim' WHERE id = 2", [])
        .unwrap();
    drop(conn);
    let r = ioz_h(&p, &["history", "rm", "1", "2"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        "removed run 1\nremoved run 2\n",
        "{}",
        r.context()
    );
    // The row was reported, and the history rebuilt from its own files.
    assert!(
        r.stderr.contains("the other was not followed"),
        "{}",
        r.context()
    );
    assert!(r.stderr.contains("victim"), "{}", r.context());
    assert_eq!(fs::read(&victim).unwrap(), b"not ioz's");
    assert_eq!(run_files(&p), ["3.json"]);
}

fn a_linked_runs_directory_is_refused_and_left_alone() {
    let p = place();
    small(&p, &[]).expect_code(0);
    // Someone else's directory of *.json files, named by runs/.
    let other = p.work.join("other");
    fs::create_dir(&other).unwrap();
    fs::copy(p.history.join("runs/1.json"), other.join("1.json")).unwrap();
    fs::write(other.join("7.json"), b"my notes, not a run").unwrap();
    fs::rename(p.history.join("runs"), p.work.join("runs.moved")).unwrap();
    std::os::unix::fs::symlink(&other, p.history.join("runs")).unwrap();
    let before = contents(&other);
    for args in [
        &["history", "list"][..],
        &["history", "show", "1"],
        &["history", "trend"],
        &["history", "reindex"],
        &["history", "rm", "1"],
        &["compare", "@1", "@1"],
    ] {
        let r = ioz_h(&p, args);
        no_panic(&r);
        assert_ne!(r.code, Some(0), "{args:?}: {}", r.context());
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.context());
        assert!(
            r.stderr
                .contains("is a symbolic link; a history's runs/ is its own directory"),
            "{args:?}: {}",
            r.context()
        );
    }
    assert_refused(&small(&p, &[]), "is a symbolic link");
    assert_eq!(contents(&other), before);
}

fn an_index_of_a_version_no_ioz_writes_is_refused_before_measuring() {
    let p = place();
    two_runs(&p);
    index(&p).execute_batch("PRAGMA user_version = -1").unwrap();
    let before = contents(&p.history);
    for args in [
        &["history", "list"][..],
        &["history", "show", "1"],
        &["history", "reindex"],
        &["history", "import", "a.json"],
        &["compare", "@1", "@2"],
    ] {
        let r = ioz_h(&p, args);
        no_panic(&r);
        assert_ne!(r.code, Some(0), "{args:?}: {}", r.context());
        assert!(
            r.stderr.contains("of version -1, which no ioz writes"),
            "{args:?}: {}",
            r.context()
        );
    }
    // A run: before anything is measured (it panicked after, at 101).
    let r = small(&p, &[]);
    let line = assert_refused(&r, "of version -1, which no ioz writes");
    assert!(line.starts_with("ioz: history: "), "{line}");
    assert_eq!(contents(&p.history), before);
}

/// Takes the history's lock as a stopped holder would keep it.
fn hold_lock(p: &Place) -> nix::fcntl::Flock<fs::File> {
    let mark = fs::File::open(p.history.join("ioz-history")).unwrap();
    nix::fcntl::Flock::lock(mark, nix::fcntl::FlockArg::LockExclusive)
        .map_err(|(_, e)| e)
        .unwrap()
}

/// `ioz args…` with its output in files of `p.work` (out.txt, err.txt),
/// so a test can watch them as it runs.
fn spawn_logged(p: &Place, args: &[&str]) -> Child {
    let out = fs::File::create(p.work.join("out.txt")).unwrap();
    let err = fs::File::create(p.work.join("err.txt")).unwrap();
    command(p, args)
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .unwrap()
}

fn logged(p: &Place, name: &str) -> String {
    fs::read_to_string(p.work.join(name)).unwrap_or_default()
}

/// Polls `done` until it holds, for `seconds` at most.
fn within(seconds: u64, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while !done() {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The child's exit code once it ends, within `seconds` (killed and a
/// panic if not).
fn ends_within(child: &mut Child, seconds: u64, what: &str) -> Option<i32> {
    let mut status = None;
    if !within(seconds, || {
        status = child.try_wait().unwrap();
        status.is_some()
    }) {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{what}: still running after {seconds} s");
    }
    status.unwrap().code()
}

fn a_held_lock_is_waited_for_seconds_and_a_signal_ends_the_wait() {
    let p = place();
    two_runs(&p);
    let held = hold_lock(&p);
    // A reader: a few seconds said on stderr, then one line (it waited for
    // ever).
    let began = Instant::now();
    let mut list = spawn_logged(&p, &["history", "list"]);
    let code = ends_within(&mut list, 30, "ioz history list");
    let waited = began.elapsed();
    let err = logged(&p, "err.txt");
    assert_eq!(code, Some(1), "{err}");
    assert!(waited >= Duration::from_secs(4), "{waited:?}: {err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(lines[0].starts_with("ioz: history: waiting for "), "{err}");
    assert!(
        lines[0].ends_with("locked by another process (at most 5 s)"),
        "{err}"
    );
    assert!(
        lines[1].contains("stayed locked by another process for 5 s"),
        "{err}"
    );
    // A run: refused before it measures, as a history that cannot take it.
    let r = small(&p, &[]);
    assert_eq!(r.code, Some(2), "{}", r.context());
    assert!(r.stdout.is_empty(), "{}", r.context());
    assert!(r.stderr.contains("stayed locked"), "{}", r.context());
    drop(held);
    // A run that finds the lock held at its end, stopped by SIGTERM while it
    // waits (it ignored it): -J 2 makes its four passes last two seconds.
    let mut child = spawn_logged(
        &p,
        &[
            "-s", "1m", "-r", "4k", "-i", "0", "-i", "1", "-J", "2", "--json", "r.json",
        ],
    );
    assert!(
        within(60, || logged(&p, "out.txt").contains("KB  reclen")),
        "no table: {}",
        logged(&p, "err.txt")
    );
    let held = hold_lock(&p);
    assert!(
        within(60, || logged(&p, "err.txt").contains("waiting for ")),
        "no wait: {}",
        logged(&p, "err.txt")
    );
    let waiting_since = Instant::now();
    // SAFETY: kill sends a signal to our own child, which is still running.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let code = ends_within(&mut child, 30, "the waiting run");
    let err = logged(&p, "err.txt");
    // Well before the 5 s the wait would last (a busy machine takes its
    // time to end a process; the message below says it stopped waiting).
    assert!(
        waiting_since.elapsed() < Duration::from_millis(4500),
        "{:?}: {err}",
        waiting_since.elapsed()
    );
    assert_eq!(code, Some(128 + libc::SIGTERM), "{err}");
    assert!(
        err.contains("stopped by SIGTERM while waiting for the lock on")
            && err.contains("this run is not recorded"),
        "{err}"
    );
    // What was measured is kept: the whole table, and its JSON.
    assert!(logged(&p, "out.txt").contains("test complete."));
    assert!(p.work.join("r.json").is_file());
    drop(held);
    assert_eq!(run_files(&p), ["1.json", "2.json"]);
}

fn a_history_that_cannot_take_the_run_is_refused_before_it() {
    let p = place();
    two_runs(&p);
    // An index of a newer version.
    index(&p).execute_batch("PRAGMA user_version = 99").unwrap();
    let r = small(&p, &[]);
    assert_refused(&r, "a history index of version 99, written by a newer ioz");
    // A link to nothing.
    let dangling = p.work.join("dangling");
    std::os::unix::fs::symlink(p.work.join("nowhere"), &dangling).unwrap();
    let r = run(command(&p, &SMALL).env("IOZ_HISTORY", &dangling));
    assert_refused(&r, "which does not exist");
    // A file where the directory should be.
    let file = p.work.join("file");
    fs::write(&file, b"x").unwrap();
    let r = run(command(&p, &SMALL).env("IOZ_HISTORY", file.join("h")));
    assert_refused(&r, "is not a directory");
}

fn a_read_only_history_refuses_a_run_before_it() {
    let p = place();
    let mount = Tmpfs::mount(&p.work.join("mnt"), "size=4m");
    let history = mount.path().join("h");
    let h = history.to_str().unwrap();
    let mut args = SMALL.to_vec();
    args.extend(["--history", h]);
    ioz_h(&p, &args).expect_code(0);
    quietly(
        "mount",
        &["-o", "remount,ro", mount.path().to_str().unwrap()],
    )
    .unwrap();
    let r = ioz_h(&p, &args);
    assert_refused(&r, "Read-only file system");
    // One still to be made there.
    let new = mount.path().join("new/h");
    let mut args = SMALL.to_vec();
    args.extend(["--history", new.to_str().unwrap()]);
    assert_refused(&ioz_h(&p, &args), "Read-only file system");
}

fn a_history_the_user_may_not_write_refuses_a_run_before_it() {
    let p = place();
    two_runs(&p);
    // Others may read it and the work directory (and write there), not the
    // history.
    for d in [p.work.parent().unwrap(), &p.work] {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(d, fs::Permissions::from_mode(0o777)).unwrap();
    }
    let history = p.history.display().to_string();
    let mut args = SMALL.to_vec();
    args.extend(["--history", &history]);
    let mut c = if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .args(["--inh-caps=-all", IOZ]);
        c
    } else {
        Command::new(IOZ)
    };
    c.args(&args)
        .current_dir(&p.work)
        .env_remove("IOZ_NO_HISTORY");
    let r = run(&mut c);
    assert_refused(&r, "Permission denied");
    assert_eq!(run_files(&p), ["1.json", "2.json"]);
}

fn stray_names_in_runs_are_no_runs_and_reindex_says_why() {
    let p = place();
    small(&p, &[]).expect_code(0);
    let runs = p.history.join("runs");
    for stray in ["01.json", "9223372036854775807.json"] {
        fs::copy(runs.join("1.json"), runs.join(stray)).unwrap();
    }
    // Listed as the one run it is (every command failed: UNIQUE constraint).
    let list = ioz_h(&p, &["history", "list"]);
    list.expect_code(0);
    assert_eq!(rows(&list).len(), 1, "{}", list.context());
    // Recorded with the next id (every record failed: database or disk is
    // full).
    let r = small(&p, &[]);
    r.expect_code(0);
    assert!(
        r.stderr
            .ends_with("ioz: saved as run 2 — ioz history show 2\n"),
        "{}",
        r.context()
    );
    let r = ioz_h(&p, &["history", "reindex"]);
    r.expect_code(0);
    assert!(r.stdout.starts_with("indexed 2 run(s)"), "{}", r.context());
    assert!(
        r.stderr.contains("01.json: not a run's name: an id is written without leading zeros; not a run of the history, left as it is"),
        "{}",
        r.context()
    );
    assert!(
        r.stderr.contains(
            "9223372036854775807.json: an id beyond the history's range (1 to 2147483647)"
        ),
        "{}",
        r.context()
    );
    assert_eq!(
        run_files(&p),
        ["01.json", "1.json", "2.json", "9223372036854775807.json"]
    );
}

fn reading_a_history_changes_nothing() {
    let p = place();
    two_runs(&p);
    // An index that lags behind its files, and one lost: a reader lists the
    // files, and leaves the rebuilding to the next writer.
    fs::copy(p.history.join("runs/1.json"), p.history.join("runs/5.json")).unwrap();
    let before = untouched(&p.history);
    for args in [
        &["history", "list"][..],
        &["history", "show", "5"],
        &["history", "trend"],
        &["history", "regressions"],
        &["compare", "@1", "@5"],
    ] {
        let r = ioz_h(&p, args);
        r.expect_code(0);
        assert!(
            r.stderr.contains("listed from the 3 stored run(s)"),
            "{args:?}: {}",
            r.context()
        );
    }
    assert_eq!(untouched(&p.history), before);
    fs::remove_file(p.history.join("history.sqlite")).unwrap();
    let before = untouched(&p.history);
    let list = ioz_h(&p, &["history", "list"]);
    list.expect_code(0);
    assert_eq!(rows(&list).len(), 3, "{}", list.context());
    assert_eq!(untouched(&p.history), before);
    // The next run rebuilds it.
    let r = small(&p, &[]);
    r.expect_code(0);
    assert!(
        r.stderr.contains("rebuilt from the 3 stored run(s)"),
        "{}",
        r.context()
    );
    let r = ioz_h(&p, &["history", "list"]);
    assert!(r.stderr.is_empty(), "{}", r.context());
}

fn a_history_on_a_read_only_mount_is_read() {
    let p = place();
    let mount = Tmpfs::mount(&p.work.join("mnt"), "size=4m");
    let history = mount.path().join("h");
    let h = history.to_str().unwrap();
    for label in ["a", "b"] {
        let mut args = SMALL.to_vec();
        args.extend(["--history", h, "--label", label]);
        ioz_h(&p, &args).expect_code(0);
    }
    quietly(
        "mount",
        &["-o", "remount,ro", mount.path().to_str().unwrap()],
    )
    .unwrap();
    for args in [
        &["history", "list"][..],
        &["history", "show", "2"],
        &["history", "trend"],
        &["compare", "@1", "@2"],
    ] {
        let r = run(command(&p, args).env("IOZ_HISTORY", &history));
        r.expect_code(0);
        assert!(r.stderr.is_empty(), "{args:?}: {}", r.context());
    }
    let list = run(command(&p, &["history", "list"]).env("IOZ_HISTORY", &history));
    assert_eq!(rows(&list).len(), 2, "{}", list.context());
}

/// The pid of a process that has ended (a child, reaped).
fn ended_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

fn a_stale_temporary_of_a_killed_writer_is_swept() {
    let p = place();
    small(&p, &[]).expect_code(0);
    // What a writer killed (-9) between its write and its rename leaves.
    let runs = p.history.join("runs");
    let stale = runs.join(format!(".2.json.{}-0.ioz-tmp", ended_pid()));
    fs::write(&stale, b"{\"half").unwrap();
    small(&p, &[]).expect_code(0);
    assert_eq!(list_dir(&runs), ["1.json", "2.json"]);
    // reindex sweeps them too, and says so.
    let stale = runs.join(format!(".3.json.{}-0.ioz-tmp", ended_pid()));
    fs::write(&stale, b"{").unwrap();
    let r = ioz_h(&p, &["history", "reindex"]);
    r.expect_code(0);
    assert!(
        r.stderr.contains("a temporary file of process")
            && r.stderr.contains("which ended before it was done"),
        "{}",
        r.context()
    );
    assert_eq!(list_dir(&runs), ["1.json", "2.json"]);
}

fn a_full_history_names_enospc_and_leaves_no_journal() {
    let p = place();
    let mount = Tmpfs::mount(&p.work.join("mnt"), "size=1m");
    let history = mount.path().join("h");
    let h = history.to_str().unwrap();
    let mut args = SMALL.to_vec();
    args.extend(["--history", h]);
    ioz_h(&p, &args).expect_code(0);
    // A run whose history fills up while it measures (-J 1: a second).
    let mut child = spawn_logged(
        &p,
        &[
            "-s",
            "1m",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "1",
            "-J",
            "1",
            "--history",
            h,
        ],
    );
    assert!(
        within(60, || logged(&p, "out.txt").contains("KB  reclen")),
        "no table: {}",
        logged(&p, "err.txt")
    );
    let filler = mount.path().join("filler");
    let mut f = fs::File::create(&filler).unwrap();
    let chunk = vec![0x5au8; 16 << 10];
    while std::io::Write::write_all(&mut f, &chunk).is_ok() {}
    drop(f);
    let code = ends_within(&mut child, 60, "the run");
    let err = logged(&p, "err.txt");
    assert_eq!(code, Some(1), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("ioz: history: cannot record the run in "),
        "{err}"
    );
    assert!(
        last.contains("No space left on device (os error 28)"),
        "{err}"
    );
    // Nothing beside the index, no temporary, the first run intact.
    assert_eq!(
        list_dir(&history),
        ["history.sqlite", "ioz-history", "runs"]
    );
    assert_eq!(list_dir(&history.join("runs")), ["1.json"]);
    fs::remove_file(&filler).unwrap();
    let list = run(command(&p, &["history", "list"]).env("IOZ_HISTORY", &history));
    list.expect_code(0);
    assert_eq!(rows(&list).len(), 1, "{}", list.context());
    assert!(list.stderr.is_empty(), "{}", list.context());
}

/// A saved run whose label and host name hold escape sequences and a
/// newline, as evil.json in `p.work`.
fn evil_run(p: &Place) {
    let r = small(p, &["--json", "plain.json", "--no-history"]);
    r.expect_code(0);
    let mut run: serde_json::Value =
        serde_json::from_slice(&fs::read(p.work.join("plain.json")).unwrap()).unwrap();
    let label = "evil\u{1b}]0;pwned\u{7}\u{1b}[2J\nioz: forged line";
    run["config"]["label"] = label.into();
    // The header line a run prints for its label, and its command line.
    let lines = run["config"]["option_lines"].as_array_mut().unwrap();
    lines.push(format!("Label: {label}").into());
    let words = run["config"]["command_line"].as_array_mut().unwrap();
    words.extend(["--label".into(), label.into()]);
    run["environment"]["hostname"] = "host\u{1b}[31m\u{202e}".into();
    fs::write(p.work.join("evil.json"), serde_json::to_vec(&run).unwrap()).unwrap();
}

fn control_characters_of_saved_runs_never_reach_the_terminal() {
    let p = place();
    evil_run(&p);
    ioz_h(&p, &["history", "import", "evil.json"]).expect_code(0);
    ioz_h(&p, &["history", "import", "plain.json", "--label", "plain"]).expect_code(0);
    for args in [
        &["compare", "evil.json", "plain.json"][..],
        &[
            "compare",
            "plain.json",
            "evil.json",
            "--fail-if-slower",
            "0",
        ],
        &["history", "list"],
        &["history", "show", "1"],
        &["history", "trend"],
        &["history", "regressions"],
        &["report", "evil.json"],
        &["env", "--diff", "plain.json", "evil.json"],
    ] {
        let r = ioz_h(&p, args);
        no_panic(&r);
        for (name, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
            assert!(
                !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{202e}'),
                "{args:?}: a control character on {name}: {}",
                r.context()
            );
            assert!(
                !text.lines().any(|l| l.starts_with("ioz: forged line")),
                "{args:?}: a forged line on {name}: {}",
                r.context()
            );
        }
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains("\\x1b]0;pwned\\x07\\x1b[2J\\x0aioz: forged line")
                || all.contains("host\\x1b[31m\\u{202e}"),
            "{args:?}: {}",
            r.context()
        );
    }
    // The data formats keep the text as it was.
    ioz_h(
        &p,
        &["compare", "evil.json", "plain.json", "--json", "c.json"],
    )
    .expect_code(0);
    let doc: serde_json::Value =
        serde_json::from_slice(&fs::read(p.work.join("c.json")).unwrap()).unwrap();
    assert_eq!(
        doc["baseline"]["label"],
        "evil\u{1b}]0;pwned\u{7}\u{1b}[2J\nioz: forged line"
    );
}

/// IOzone's auto log with `value` as its first write rate, as `name`.
fn log_with_rate(p: &Place, name: &str, value: &str) -> (String, usize) {
    let text = fs::read_to_string(data_file("iozone-reference/auto.txt")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let row = lines.iter().position(|l| l.contains("KB  reclen")).unwrap() + 1;
    let mut bytes = lines[row].clone().into_bytes();
    bytes.splice(24..32, format!("{value:>8}").into_bytes());
    lines[row] = String::from_utf8(bytes).unwrap();
    fs::write(p.work.join(name), lines.join("\n") + "\n").unwrap();
    (name.to_string(), row + 1)
}

fn unusable_rates_in_an_iozone_log_are_refused_naming_the_line() {
    let p = place();
    for bad in ["NaN", "inf", "-1017549"] {
        let (log, line) = log_with_rate(&p, "bad.txt", bad);
        let r = ioz_h(&p, &["compare", &log, &log]);
        assert_refused(
            &r,
            &format!("bad.txt: line {line}: \"{bad}\" is not a usable rate"),
        );
        let r = ioz_h(&p, &["history", "import", &log]);
        assert_refused(&r, &format!("line {line}: \"{bad}\""));
    }
    assert!(!p.history.exists(), "an import stored something");
}

fn the_date_given_on_import_wins_and_is_said() {
    let p = place();
    let log = data_file("iozone-reference/auto.txt");
    let log = log.to_str().unwrap();
    let r = ioz_h(&p, &["history", "import", log, "--date", "2007-09-06"]);
    r.expect_code(0);
    assert_eq!(
        r.stdout,
        format!("imported {log} as run 1, dated 2007-09-06T00:00:00Z (--date)\n")
    );
    let r = ioz_h(&p, &["history", "import", log]);
    r.expect_code(0);
    assert!(
        r.stdout
            .ends_with("as run 2, dated 2026-11-21T21:05:03Z (its Run began: line)\n"),
        "{}",
        r.context()
    );
    // A saved run too.
    small(&p, &["--json", "r.json", "--no-history"]).expect_code(0);
    let r = ioz_h(&p, &["history", "import", "r.json", "--date", "2008-06-12"]);
    r.expect_code(0);
    assert!(
        r.stdout.ends_with("dated 2008-06-12T00:00:00Z (--date)\n"),
        "{}",
        r.context()
    );
    let list = ioz_h(&p, &["history", "list"]);
    let dates: Vec<String> = rows(&list).into_iter().map(|r| r[1].clone()).collect();
    assert_eq!(
        dates,
        [
            "2007-09-06T00:00:00Z",
            "2008-06-12T00:00:00Z",
            "2026-11-21T21:05:03Z"
        ],
        "{}",
        list.context()
    );
}
