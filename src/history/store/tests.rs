use super::*;
use crate::cli::test_config;
use crate::history::Filter;
use crate::model::result::{sample_cells, sample_result};
use crate::model::workload::Pass;

fn run(label: Option<&str>, date: &str) -> RunResult {
    let config = test_config(&["-i", "0", "-s", "64k", "-r", "4k"]);
    let cells = sample_cells(&config, &[Pass::Write, Pass::Rewrite], |_, _| 1 << 20);
    let mut r = sample_result(config, cells);
    r.config.label = label.map(String::from);
    r.started_at = date.into();
    r
}

fn no_warning(w: String) {
    panic!("unexpected warning: {w}")
}

fn never() -> Option<i32> {
    None
}

/// The ids of every run listed, as listed.
fn ids(h: &History) -> Vec<i64> {
    h.list(&Filter::default())
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect()
}

/// An open that says nothing and is never stopped.
fn quiet() -> Caller<'static> {
    Caller {
        say: Box::leak(Box::new(no_warning)),
        stopped: &never,
    }
}

/// An open whose lines go to `lines`.
fn told(lines: &mut Vec<String>) -> Caller<'_> {
    Caller {
        say: Box::leak(Box::new(|w| lines.push(w))),
        stopped: &never,
    }
}

#[test]
fn a_recorded_run_is_listed_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("h");
    let mut h = History::open_to_write(&d, &mut quiet()).unwrap();
    let a = h
        .record(&run(Some("ubifs"), "2008-06-12T00:00:00Z"))
        .unwrap();
    let b = h.record(&run(None, "2007-09-06T00:00:00Z")).unwrap();
    assert_eq!((a, b), (1, 2));
    assert_eq!(ids(&h), [2, 1], "oldest first");
    let e = h.get(1).unwrap().unwrap();
    assert_eq!(e.label.as_deref(), Some("ubifs"));
    assert_eq!(e.status, "complete");
    let Stored::Run(back) = h.load(&e).unwrap() else {
        panic!("not a run")
    };
    assert_eq!(back.config.label.as_deref(), Some("ubifs"));
    assert!(d.join("runs/1.json").is_file());
    assert!(h.remove(1).unwrap());
    assert!(!h.remove(1).unwrap());
    assert!(!d.join("runs/1.json").exists());
}

#[test]
fn a_directory_with_other_files_is_not_taken() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("notes.txt"), "mine").unwrap();
    let e = History::open_to_write(dir.path(), &mut quiet())
        .err()
        .unwrap();
    assert!(matches!(e, HistoryError::NotOurs { .. }), "{e}");
    let e = History::open_to_read(dir.path(), &mut quiet())
        .err()
        .unwrap();
    assert!(e.to_string().contains("is not an ioz history"), "{e}");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn another_run_s_probe_in_a_history_still_to_be_made_is_no_foreign_file() {
    // Eight runs started at once on a new history: one's check has put its
    // probe in the empty directory when another looks (seen in CI).
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Process 1's: alive, and not this one (whose probe has that name).
    let probe = d.join(".probe.1-0.ioz-tmp");
    assert_eq!(temporary_owner(probe.file_name().unwrap()), Some(1));
    fs::write(&probe, "").unwrap();
    check(d, &mut quiet()).unwrap();
    assert!(History::open_to_read(d, &mut quiet()).unwrap().is_none());
    History::open_to_write(d, &mut quiet()).unwrap();
    assert!(d.join(MARK).is_file());
    // A foreign file beside it is still refused.
    let other = tempfile::tempdir().unwrap();
    fs::write(other.path().join(".probe.1-0.ioz-tmp"), "").unwrap();
    fs::write(other.path().join("notes.txt"), "mine").unwrap();
    let e = check(other.path(), &mut quiet()).err().unwrap();
    assert!(matches!(e, HistoryError::NotOurs { .. }), "{e}");
}

#[test]
fn reading_a_missing_history_makes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("none");
    assert!(History::open_to_read(&d, &mut quiet()).unwrap().is_none());
    assert!(!d.exists());
}

#[test]
fn a_damaged_index_is_rebuilt_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut h = History::open_to_write(d, &mut quiet()).unwrap();
    for day in 1..=3 {
        h.record(&run(Some("a"), &format!("2008-06-0{day}T00:00:00Z")))
            .unwrap();
    }
    drop(h);
    for cut in [0, 100, 5000] {
        let db = d.join("history.sqlite");
        let _ = fs::remove_file(d.join("history.sqlite-wal"));
        let _ = fs::remove_file(d.join("history.sqlite-shm"));
        let f = File::options().write(true).open(&db).unwrap();
        f.set_len(cut).unwrap();
        drop(f);
        let mut warnings = Vec::new();
        let h = History::open_to_write(d, &mut told(&mut warnings)).unwrap();
        assert_eq!(warnings.len(), 1, "cut to {cut}: {warnings:?}");
        assert!(
            warnings[0].contains("rebuilt from the 3 stored run(s)"),
            "{warnings:?}"
        );
        assert_eq!(ids(&h), [1, 2, 3], "cut to {cut}");
    }
}

#[test]
fn an_imported_log_keeps_its_text_date_and_label() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::open_to_write(dir.path(), &mut quiet()).unwrap();
    let log = ImportedLog {
        date: "2008-06-12T10:22:33Z".into(),
        label: Some("jffs2".into()),
        source: "old.txt".into(),
        text: "\tCommand line used: iozone -a\n".into(),
    };
    let id = h.import_log(log.clone()).unwrap();
    let e = h.get(id).unwrap().unwrap();
    assert_eq!(e.kind, "iozone-log");
    assert_eq!(e.command, "iozone -a");
    let Stored::Log(back) = h.load(&e).unwrap() else {
        panic!("not a log")
    };
    assert_eq!(back, log);
    let (count, left_out) = h.reindex().unwrap();
    assert_eq!((count, left_out.len()), (1, 0));
}

#[test]
fn a_cluster_run_is_indexed_by_its_hosts_and_ranks() {
    use crate::model::result::{Client, sample_phase};
    let mut r = run(None, "2026-11-24T00:00:00Z");
    r.environment.hostname = "node-a".into();
    assert_eq!(entry_of_run(&r).host, "node-a", "one machine");
    // Four ranks, two a host; each phase names every worker's rank.
    let mut phase = sample_phase(Pass::Write, 4, 1 << 20);
    for (w, result) in phase.results.iter_mut().enumerate() {
        result.client = Some(Client {
            rank: w as u32,
            host: if w < 2 { "node-a" } else { "node-b" }.into(),
        });
    }
    r.throughput = vec![phase.clone(), phase];
    assert_eq!(r.rank_hosts(), ["node-a", "node-a", "node-b", "node-b"]);
    assert_eq!(entry_of_run(&r).host, "node-a,node-b (4 ranks)");
}

/// Every entry under `dir` with its bytes (directories as "dir").
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                todo.push(p.clone());
                out.push((p, b"dir".to_vec()));
            } else {
                out.push((p.clone(), fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_reader_lists_a_damaged_or_lagging_index_from_the_files_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut h = History::open_to_write(d, &mut quiet()).unwrap();
    h.record(&run(Some("a"), "2008-06-01T00:00:00Z")).unwrap();
    h.record(&run(Some("b"), "2008-06-02T00:00:00Z")).unwrap();
    drop(h);
    // A run file put there by hand, an unreadable one, and a cut index.
    fs::copy(d.join("runs/1.json"), d.join("runs/5.json")).unwrap();
    fs::write(d.join("runs/6.json"), b"not json").unwrap();
    let f = File::options().write(true).open(d.join(INDEX)).unwrap();
    f.set_len(1000).unwrap();
    drop(f);
    let before = snapshot(d);
    let mut lines = Vec::new();
    let h = History::open_to_read(d, &mut told(&mut lines))
        .unwrap()
        .unwrap();
    assert_eq!(ids(&h), [1, 5, 2]);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].contains("listed from the 3 stored run(s)"),
        "{lines:?}"
    );
    assert!(
        lines[1].contains("6.json") && lines[1].contains("left out"),
        "{lines:?}"
    );
    drop(h);
    assert_eq!(snapshot(d), before, "a reader changed the history");
}

#[test]
fn only_canonical_names_are_runs_and_ids_stay_in_range() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut h = History::open_to_write(d, &mut quiet()).unwrap();
    h.record(&run(None, "2008-06-01T00:00:00Z")).unwrap();
    drop(h);
    for stray in ["01.json", "9223372036854775807.json", "0.json", "x.json"] {
        fs::copy(d.join("runs/1.json"), d.join("runs").join(stray)).unwrap();
    }
    let mut h = History::open_to_write(d, &mut quiet()).unwrap();
    assert_eq!(h.record(&run(None, "2008-06-02T00:00:00Z")).unwrap(), 2);
    let (count, left_out) = h.reindex().unwrap();
    assert_eq!(count, 2);
    assert_eq!(left_out.len(), 4, "{left_out:?}");
    assert!(
        left_out.iter().any(
            |l| l.contains("01.json: not a run's name: an id is written without leading zeros")
        ),
        "{left_out:?}"
    );
    assert!(
        left_out
            .iter()
            .any(|l| l.contains("9223372036854775807.json: an id beyond")),
        "{left_out:?}"
    );
    assert_eq!(h.record(&run(None, "2008-06-03T00:00:00Z")).unwrap(), 3);
}

#[test]
fn a_row_naming_another_file_is_reported_and_never_followed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("h");
    let victim = dir.path().join("victim");
    fs::write(&victim, b"mine").unwrap();
    let mut h = History::open_to_write(&d, &mut quiet()).unwrap();
    h.record(&run(None, "2008-06-01T00:00:00Z")).unwrap();
    drop(h);
    let conn = Connection::open(d.join(INDEX)).unwrap();
    conn.execute("UPDATE runs SET file = ?1", [victim.to_str().unwrap()])
        .unwrap();
    drop(conn);
    let mut lines = Vec::new();
    let mut h = History::open_to_write(&d, &mut told(&mut lines)).unwrap();
    assert!(lines[0].contains("the other was not followed"), "{lines:?}");
    assert_eq!(
        h.path_of(&h.get(1).unwrap().unwrap()),
        h.dir().join("runs/1.json")
    );
    assert!(h.remove(1).unwrap());
    assert_eq!(fs::read(&victim).unwrap(), b"mine");
}

#[test]
fn a_linked_runs_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("h");
    let other = dir.path().join("other");
    fs::create_dir(&other).unwrap();
    fs::write(other.join("1.json"), b"x").unwrap();
    drop(History::open_to_write(&d, &mut quiet()).unwrap());
    fs::remove_dir(d.join("runs")).unwrap();
    std::os::unix::fs::symlink(&other, d.join("runs")).unwrap();
    for e in [
        History::open_to_read(&d, &mut quiet()).err().unwrap(),
        History::open_to_write(&d, &mut quiet()).err().unwrap(),
    ] {
        assert!(matches!(e, HistoryError::LinkedRuns { .. }), "{e}");
    }
    assert_eq!(fs::read(other.join("1.json")).unwrap(), b"x");
}

#[test]
fn temporaries_of_ended_processes_are_swept_by_the_next_writer() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    drop(History::open_to_write(d, &mut quiet()).unwrap());
    // A process that has ended: a child, reaped.
    let ended = std::process::Command::new("true").spawn().unwrap();
    let pid = ended.id();
    let mut ended = ended;
    ended.wait().unwrap();
    let stale = d.join(format!("runs/.3.json.{pid}-0.ioz-tmp"));
    let live = d.join(format!("runs/.4.json.{}-0.ioz-tmp", std::process::id()));
    fs::write(&stale, b"{").unwrap();
    fs::write(&live, b"{").unwrap();
    let mut h = History::open_to_write(d, &mut quiet()).unwrap();
    assert!(!stale.exists());
    assert!(live.exists(), "a live process's temporary was removed");
    let (_, left_out) = h.reindex().unwrap();
    assert_eq!(left_out.len(), 1, "{left_out:?}");
    assert!(
        left_out[0].contains(&format!("process {pid}, which ended")),
        "{left_out:?}"
    );
}

#[test]
fn a_held_lock_is_waited_for_with_a_bound_and_a_stop_ends_the_wait() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    drop(History::open_to_write(d, &mut quiet()).unwrap());
    let holder = Flock::lock(File::open(d.join(MARK)).unwrap(), FlockArg::LockExclusive).unwrap();
    let began = std::time::Instant::now();
    let mut lines = Vec::new();
    let e = History::open_to_read(d, &mut told(&mut lines))
        .err()
        .unwrap();
    assert!(matches!(e, HistoryError::Busy { seconds: 5, .. }), "{e}");
    assert!(began.elapsed() >= LOCK_WAIT && began.elapsed() < LOCK_WAIT * 3);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].starts_with("waiting for "), "{lines:?}");
    let began = std::time::Instant::now();
    let e = History::open_to_write(
        d,
        &mut Caller {
            say: &mut |_| {},
            stopped: &|| Some(15),
        },
    )
    .err()
    .unwrap();
    assert_eq!(
        e.to_string(),
        format!(
            "stopped by SIGTERM while waiting for the lock on {}",
            d.canonicalize().unwrap().join(MARK).display()
        )
    );
    assert!(began.elapsed() < Duration::from_secs(1));
    drop(holder);
    assert!(History::open_to_read(d, &mut quiet()).unwrap().is_some());
}

/// An open that ignores what it is told (another's lock is waited for).
fn heedless() -> Caller<'static> {
    Caller {
        say: Box::leak(Box::new(|_: String| {})),
        stopped: &never,
    }
}

#[test]
fn runs_making_one_history_at_once_all_take_it_for_theirs() {
    // Seen in CI: of eight runs making a new history at once, one found no
    // mark, and when it listed the directory another had made the mark and
    // runs/ in it, which it took for foreign files.
    for _ in 0..60 {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("history");
        let start = std::sync::Barrier::new(4);
        let outcomes: Vec<Result<(), String>> = std::thread::scope(|s| {
            let racers: Vec<_> = (0..4)
                .map(|i| {
                    let (d, start) = (&d, &start);
                    s.spawn(move || {
                        start.wait();
                        let opened = if i % 2 == 0 {
                            History::open_to_write(d, &mut heedless()).map(drop)
                        } else {
                            check(d, &mut heedless())
                        };
                        opened.map_err(|e| e.to_string())
                    })
                })
                .collect();
            racers.into_iter().map(|r| r.join().unwrap()).collect()
        });
        for outcome in outcomes {
            outcome.unwrap();
        }
    }
}

/// A run stamped `rules` `verdict` (a stamp with no cells).
fn stamped(date: &str, rules: crate::model::rules::Rules, invalid: bool) -> RunResult {
    use crate::model::rules::{RunStamp, Stamp};
    let mut r = run(Some("s"), date);
    r.stamp = Some(RunStamp {
        rules,
        run: if invalid {
            Stamp::Invalid {
                reasons: vec!["too small".into()],
            }
        } else {
            Stamp::Valid
        },
        cells: Vec::new(),
    });
    r
}

#[test]
fn the_stamp_is_indexed_filtered_and_filled_in_an_older_index() {
    use crate::history::StampKind;
    use crate::model::rules::Rules;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut h = History::open_to_write(d, &mut quiet()).unwrap();
    h.record(&stamped("2026-12-01T00:00:00Z", Rules::Iozone, true))
        .unwrap();
    h.record(&stamped("2026-12-02T00:00:00Z", Rules::Io500, false))
        .unwrap();
    h.record(&run(None, "2026-12-03T00:00:00Z")).unwrap();
    let stamps = |h: &History| -> Vec<String> {
        h.list(&Filter::default())
            .unwrap()
            .into_iter()
            .map(|e| e.stamp)
            .collect()
    };
    assert_eq!(stamps(&h), ["iozone invalid", "io500 valid", ""]);
    let only = |h: &History, kind| -> Vec<i64> {
        let f = Filter {
            stamp: Some(kind),
            ..Filter::default()
        };
        h.list(&f).unwrap().iter().map(|e| e.id).collect()
    };
    assert_eq!(only(&h, StampKind::Invalid), [1]);
    assert_eq!(only(&h, StampKind::Valid), [2]);
    assert_eq!(only(&h, StampKind::Unchecked), [3]);
    assert!(only(&h, StampKind::NotCheckable).is_empty());
    drop(h);
    // The index as the ioz before the stamp left it (version 2): migrated,
    // and its rows made again from the run files, with their stamps.
    let conn = rusqlite::Connection::open(d.join("history.sqlite")).unwrap();
    conn.execute_batch("ALTER TABLE runs DROP COLUMN stamp; PRAGMA user_version = 2")
        .unwrap();
    drop(conn);
    let mut warnings = Vec::new();
    let h = History::open_to_write(d, &mut told(&mut warnings)).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("older ioz (version 2); rebuilt from the 3 stored run(s)"),
        "{warnings:?}"
    );
    assert_eq!(stamps(&h), ["iozone invalid", "io500 valid", ""]);
    drop(h);
    // Once migrated, an open says nothing.
    drop(History::open_to_write(d, &mut quiet()).unwrap());
}
