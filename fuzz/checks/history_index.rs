//! A history whose index (history.sqlite) holds any bytes, beside a mark
//! and one stored run: `ioz history list`, `show`, `trend`, then the
//! writers `reindex` and `rm`. Each reads the history or refuses it in one
//! line, never panics (a negative `user_version` did, in every command),
//! and the stored run is never lost to what the index says.

use std::ffi::OsString;
use std::fs;
use std::path::Path;

/// A run saved by ioz, the history's one run file.
static RUN: &[u8] = include_bytes!("../corpus/report_json/run_single.json");

/// One input of the fuzz target (fuzz_targets/history_index.rs: `ioz` is
/// ioz's own entry point, in the process), and of the test over its corpus
/// (tests/e2e/fuzz_corpora.rs: `ioz` runs the binary). The history is made
/// in `dir` (created, and removed at the end) and `ioz` gets each argv,
/// argv[0] included, and gives its exit status.
pub fn check(data: &[u8], dir: &Path, ioz: &mut dyn FnMut(Vec<OsString>) -> i32) {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir.join("runs")).unwrap();
    fs::write(dir.join("ioz-history"), "ioz's history, for the fuzzer\n").unwrap();
    fs::write(dir.join("runs/1.json"), RUN).unwrap();
    fs::write(dir.join("history.sqlite"), data).unwrap();
    let h = dir.to_str().unwrap();
    let commands: [&[&str]; 5] = [
        &["list"],
        &["show", "last"],
        &["trend"],
        &["reindex"],
        &["rm", "7"],
    ];
    for words in commands {
        let argv: Vec<OsString> = ["ioz", "history"]
            .iter()
            .chain(words)
            .chain(&["--history", h])
            .map(OsString::from)
            .collect();
        let code = ioz(argv);
        assert!(
            matches!(code, 0..=2),
            "history {words:?}: exit status {code}"
        );
    }
    assert_eq!(
        fs::read(dir.join("runs/1.json")).unwrap(),
        RUN,
        "the run file changed"
    );
    let _ = fs::remove_dir_all(dir);
}
