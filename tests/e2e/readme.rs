//! The README's quick start: its install lines and IOzone's usual runs, as
//! a newcomer copies them.

use std::ffi::OsString;
use std::path::Path;

use ioz::cli::{self, Command};
use ioz::model::host::Host;

use crate::fixtures::{Test, ioz, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        the_quick_start_says_how_to_build_and_install,
        every_quick_start_run_is_a_valid_command_line,
        the_file_size_list_run_works_as_written,
    ]
}

/// The "Quick start" section of README.md, up to the next heading.
fn quick_start() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let start = readme
        .find("\n## Quick start\n")
        .expect("README.md has no \"## Quick start\" section");
    let section = &readme[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    section[..end].to_string()
}

/// The `ioz …` command lines of the quick start's code blocks, as argv
/// (no quoting in them: words split on spaces, `#` comments dropped).
fn quick_start_runs() -> Vec<Vec<String>> {
    quick_start()
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| l.starts_with("ioz "))
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

fn the_quick_start_says_how_to_build_and_install() {
    let text = quick_start();
    for part in [
        "cargo build --release",
        "target/release/ioz",
        "cargo install --locked --path .",
        "~/.cargo/bin/ioz",
        "Rust 1.95",
    ] {
        assert!(text.contains(part), "the quick start does not say {part:?}");
    }
    // What the first build costs, as measured (issue 26: it said 1.5
    // minutes; a clean release build takes 282 s of CPU).
    assert!(!text.contains("1.5 minutes"), "{text}");
    let cpu = text
        .split(" s of CPU time")
        .next()
        .and_then(|t| t.rsplit(' ').next())
        .and_then(|n| n.parse::<u32>().ok())
        .expect("the quick start gives the first build's CPU time in seconds");
    assert!(cpu >= 200, "{cpu} s");
    assert!(text.contains("2-core machine"), "{text}");
}

/// `ioz -h`, and the seed workflows: the NFS client run with -U, the random
/// surfaces, four workers, the -l/-u sweep, the file-size list. Parsed as a
/// root user's command lines (-U needs root), without running them.
fn every_quick_start_run_is_a_valid_command_line() {
    let runs = quick_start_runs();
    let host = Host {
        root: true,
        ..Host::example()
    };
    for wanted in ["-U", "--plots", "-t", "-u", "r.wks"] {
        assert!(
            runs.iter().any(|argv| argv.iter().any(|a| a == wanted)),
            "no quick-start run with {wanted}: {runs:?}"
        );
    }
    for argv in &runs {
        let args: Vec<OsString> = argv.iter().map(OsString::from).collect();
        match cli::parse(args, &host) {
            Ok(Command::Run(_)) => {}
            Ok(Command::Help) if argv[1..] == ["-h"] => {}
            Ok(_) => panic!("not a run: {argv:?}"),
            Err(e) => panic!("{argv:?}: {}", e.0),
        }
    }
}

/// The one seed run short enough for a test (file sizes up to 4 MiB), run
/// exactly as the README shows it.
fn the_file_size_list_run_works_as_written() {
    let argv = quick_start_runs()
        .into_iter()
        .find(|argv| argv.iter().any(|a| a == "r.wks"))
        .expect("the file-size list run");
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<&str> = argv[1..].iter().map(String::as_str).collect();
    let run = ioz(dir.path(), &args);
    run.expect_code(0);
    assert!(run.stdout.contains("ioz test complete."), "{}", run.stdout);
    assert!(
        run.stdout.contains("File size set to 4096 KB"),
        "{}",
        run.stdout
    );
    let sheet = std::fs::read(dir.path().join("r.wks")).expect("r.wks written");
    // IOzone's BIFF layout: a BOF record first.
    assert_eq!(&sheet[..2], &[0x09, 0x00]);
    assert!(!dir.path().join("ioz.tmp").exists(), "test file removed");
}
