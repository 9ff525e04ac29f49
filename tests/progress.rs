//! The progress bar shows only on a terminal: with stderr redirected, a run
//! writes nothing there.

mod common;

use common::ioz;

#[test]
fn no_progress_output_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &["-s", "1m", "-r", "64k", "-i", "0", "-i", "1", "-f", "t.tmp"],
    );
    run.expect_code(0);
    assert_eq!(
        run.stderr, "",
        "stderr should stay empty without a terminal"
    );
    assert!(run.stdout.contains("ioz test complete."));
}
