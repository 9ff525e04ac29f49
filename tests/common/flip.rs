//! The fault-injection shim (tests/fixtures/flip_byte.c): an LD_PRELOAD
//! library, compiled here with `cc`, that corrupts what one read of a file
//! whose name ends in "t.tmp" returns, as a faulty disk or cache would.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::{IOZ, Run};

const SHIM_SOURCE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/flip_byte.c");

/// The compiled shim, or None (with the reason printed) where there is no C compiler.
pub fn shim() -> Option<&'static Path> {
    static SHIM: OnceLock<Option<(tempfile::TempDir, PathBuf)>> = OnceLock::new();
    SHIM.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let so = dir.path().join("flip.so");
        let built = Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&so)
            .arg(SHIM_SOURCE)
            .arg("-ldl")
            .output();
        match built {
            Err(e) => {
                eprintln!("skipping the fault-injection tests: cannot run cc: {e}");
                None
            }
            Ok(out) => {
                assert!(
                    out.status.success(),
                    "cc failed on {SHIM_SOURCE}:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                Some((dir, so))
            }
        }
    })
    .as_ref()
    .map(|(_, so)| so.as_path())
}

/// Runs ioz in `dir` under the shim with the FLIP_* settings `flip`.
pub fn ioz_flipped(shim: &Path, dir: &Path, args: &[&str], flip: &[(&str, &str)]) -> Run {
    let out = Command::new(IOZ)
        .args(args)
        .current_dir(dir)
        .env("LD_PRELOAD", shim)
        .envs(flip.iter().copied())
        .output()
        .expect("cannot start ioz");
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The error lines ioz printed (its warnings left out).
pub fn errors(run: &Run) -> Vec<&str> {
    run.stderr
        .lines()
        .filter(|l| !l.starts_with("ioz: warning"))
        .collect()
}

/// The one error line of a failed run; checks that the run stopped with 1.
pub fn mismatch_line(run: &Run) -> &str {
    run.expect_code(1);
    let lines = errors(run);
    assert_eq!(lines.len(), 1, "one error line expected:\n{}", run.stderr);
    assert!(lines[0].contains("data mismatch"), "{}", lines[0]);
    lines[0]
}

pub fn assert_contains(line: &str, parts: &[&str]) {
    for part in parts {
        assert!(line.contains(part), "{part:?} missing from:\n{line}");
    }
}
