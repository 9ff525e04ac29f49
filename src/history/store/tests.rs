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

fn no_warning() -> impl FnMut(String) {
    |w| panic!("unexpected warning: {w}")
}

#[test]
fn a_recorded_run_is_listed_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("h");
    let mut h = History::open_to_write(&d, &mut no_warning()).unwrap();
    let a = h
        .record(&run(Some("ubifs"), "2008-06-12T00:00:00Z"))
        .unwrap();
    let b = h.record(&run(None, "2007-09-06T00:00:00Z")).unwrap();
    assert_eq!((a, b), (1, 2));
    let listed: Vec<i64> = h
        .list(&Filter::default())
        .unwrap()
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(listed, [2, 1], "oldest first");
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
    let e = History::open_to_write(dir.path(), &mut no_warning())
        .err()
        .unwrap();
    assert!(matches!(e, HistoryError::NotOurs { .. }), "{e}");
    let e = History::open_to_read(dir.path(), &mut no_warning())
        .err()
        .unwrap();
    assert!(e.to_string().contains("is not an ioz history"), "{e}");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn reading_a_missing_history_makes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("none");
    assert!(
        History::open_to_read(&d, &mut no_warning())
            .unwrap()
            .is_none()
    );
    assert!(!d.exists());
}

#[test]
fn a_damaged_index_is_rebuilt_with_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut h = History::open_to_write(d, &mut no_warning()).unwrap();
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
        let h = History::open_to_read(d, &mut |w| warnings.push(w))
            .unwrap()
            .unwrap();
        assert_eq!(warnings.len(), 1, "cut to {cut}: {warnings:?}");
        assert!(
            warnings[0].contains("rebuilt from the 3 stored run(s)"),
            "{warnings:?}"
        );
        let ids: Vec<i64> = h
            .list(&Filter::default())
            .unwrap()
            .iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, [1, 2, 3], "cut to {cut}");
    }
}

#[test]
fn an_imported_log_keeps_its_text_date_and_label() {
    let dir = tempfile::tempdir().unwrap();
    let mut h = History::open_to_write(dir.path(), &mut no_warning()).unwrap();
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
