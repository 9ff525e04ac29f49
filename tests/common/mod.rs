//! Helpers shared by the end-to-end tests: run the real `ioz` binary in a
//! directory and pick apart what it printed.

#![allow(
    dead_code,
    reason = "every test crate includes these helpers and uses some of them"
)]

pub mod flip;

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

/// The binary under test.
pub const IOZ: &str = env!("CARGO_BIN_EXE_ioz");

/// What one run of ioz left behind.
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Panics with everything printed unless the exit status is `code`.
    pub fn expect_code(&self, code: i32) -> &Run {
        assert_eq!(
            self.code,
            Some(code),
            "unexpected exit status\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.stdout,
            self.stderr
        );
        self
    }
}

fn to_run(out: Output) -> Run {
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `ioz args…` with `dir` as its current directory.
pub fn ioz(dir: &Path, args: &[&str]) -> Run {
    let out = Command::new(IOZ)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cannot start ioz");
    to_run(out)
}

/// The names in `dir`, sorted.
pub fn list_dir(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("cannot list the directory")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The table rows: non-empty lines whose whitespace-separated fields are all digits.
pub fn data_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| {
            let mut fields = l.split_whitespace().peekable();
            fields.peek().is_some() && fields.all(|f| f.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect()
}

/// The table rows as numbers.
pub fn data_rows(stdout: &str) -> Vec<Vec<u64>> {
    data_lines(stdout)
        .into_iter()
        .map(|l| {
            l.split_whitespace()
                .map(|f| f.parse().expect("a numeric field"))
                .collect()
        })
        .collect()
}

/// The two table header lines (the line before the `KB  reclen` line, and that line).
pub fn header_lines(stdout: &str) -> (&str, &str) {
    let lines: Vec<&str> = stdout.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.trim_start().starts_with("KB  reclen"))
        .unwrap_or_else(|| panic!("no table header in:\n{stdout}"));
    assert!(i > 0, "the table header has no upper line");
    (lines[i - 1], lines[i])
}
