//! The README's quick start: its install lines and IOzone's usual runs, as
//! a newcomer copies them; the README's length and its links into docs/.

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
        the_readme_opens_with_the_two_commands,
        every_command_beyond_iozone_s_runs_parses,
        the_readme_is_short_and_its_docs_links_resolve,
    ]
}

fn package() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(package().join("README.md")).expect("README.md")
}

/// The section of README.md headed `## {title}`, up to the next heading.
fn section(title: &str) -> String {
    let readme = readme();
    let start = readme
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("README.md has no \"## {title}\" section"));
    let section = &readme[start + 1..];
    let end = section[3..].find("\n## ").map_or(section.len(), |i| i + 3);
    section[..end].to_string()
}

/// The "Quick start" section of README.md, up to the next heading.
fn quick_start() -> String {
    section("Quick start")
}

/// The `ioz …` command lines of a text's code blocks, as argv (no quoting
/// in them: words split on spaces, `#` comments dropped).
fn ioz_lines(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter_map(|l| l.strip_prefix("    "))
        .map(|l| l.split('#').next().unwrap().trim())
        .filter(|l| l.starts_with("ioz "))
        .map(|l| l.split_whitespace().map(String::from).collect())
        .collect()
}

/// The `ioz …` command lines of the quick start.
fn quick_start_runs() -> Vec<Vec<String>> {
    ioz_lines(&quick_start())
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

/// The README's first lines are the two commands a newcomer runs on a
/// fresh machine: ioz's main job (auto mode on ./ioz.tmp) and the tests.
fn the_readme_opens_with_the_two_commands() {
    let readme = readme();
    let first: Vec<&str> = readme
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .take(2)
        .map(|l| l.split('#').next().unwrap().trim())
        .collect();
    assert_eq!(
        first,
        ["cargo run --release -- -a", "cargo test"],
        "{readme}"
    );
    // `-a` alone is auto mode on the default test file of the current
    // directory, as the line's comment says.
    match cli::parse(
        vec![OsString::from("ioz"), OsString::from("-a")],
        &Host::example(),
    ) {
        Ok(Command::Run(config)) => {
            let text = format!("{config:?}");
            assert!(text.contains("ioz.tmp"), "{text}");
        }
        other => panic!("ioz -a: {other:?}"),
    }
    assert!(readme.lines().nth(2).unwrap().contains("./ioz.tmp"));
}

/// The commands of "Beyond IOzone's runs" (a saved run, compare, history,
/// mdtest) are valid command lines of the commands they name.
fn every_command_beyond_iozone_s_runs_parses() {
    let lines = ioz_lines(&section("Beyond IOzone's runs"));
    assert!(lines.len() >= 4, "{lines:?}");
    let mut seen = Vec::new();
    for argv in &lines {
        let args: Vec<OsString> = argv.iter().map(OsString::from).collect();
        let command =
            cli::parse(args, &Host::example()).unwrap_or_else(|e| panic!("{argv:?}: {}", e.0));
        let kind = match command {
            Command::Run(_) => "run",
            Command::Compare(_) => "compare",
            Command::History(_) => "history",
            other => panic!("{argv:?}: {other:?}"),
        };
        seen.push(kind);
    }
    for kind in ["run", "compare", "history"] {
        assert!(seen.contains(&kind), "no {kind} in {lines:?}");
    }
}

/// GitHub's anchor of a heading: lower case, punctuation other than `-`
/// and `_` dropped, spaces made hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings.
fn anchors(text: &str) -> Vec<String> {
    let mut in_code = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        } else if !in_code && line.starts_with('#') {
            found.push(anchor(line.trim_start_matches('#')));
        }
    }
    found
}

/// The targets of a Markdown text's inline links (`[text](target)`).
fn link_targets(text: &str) -> Vec<String> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target.to_string()))
        .collect()
}

/// Every link of `file` to a local file (and its anchor) leads somewhere;
/// the faults found, one line each.
fn broken_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let dir = file.parent().unwrap();
    let mut faults = Vec::new();
    for target in link_targets(&text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
        let linked = if path.is_empty() {
            file.to_path_buf()
        } else {
            dir.join(path)
        };
        let Ok(linked_text) = std::fs::read_to_string(&linked) else {
            faults.push(format!("{}: ({target}) is no file", file.display()));
            continue;
        };
        if !fragment.is_empty() && !anchors(&linked_text).iter().any(|a| a == fragment) {
            faults.push(format!(
                "{}: ({target}) has no such heading",
                file.display()
            ));
        }
    }
    faults
}

/// The README stays a five-minute read (at most 260 lines), links every
/// docs/ page it names to a page that exists, and every docs/ page's own
/// links resolve, anchors included.
fn the_readme_is_short_and_its_docs_links_resolve() {
    let readme = readme();
    let lines = readme.lines().count();
    assert!(lines <= 260, "README.md has {lines} lines (at most 260)");
    let docs: Vec<String> = link_targets(&readme)
        .into_iter()
        .filter(|t| t.starts_with("docs/"))
        .collect();
    // The capability pages issue 40 names, each linked from the README.
    for page in [
        "compare",
        "history",
        "latency",
        "time-series",
        "cluster",
        "metadata",
        "results",
        "safety",
        "differences",
        "measuring-ioz",
    ] {
        let target = format!("docs/{page}.md");
        assert!(docs.contains(&target), "README.md does not link {target}");
    }
    let mut faults = broken_links(&package().join("README.md"));
    let mut pages: Vec<_> = std::fs::read_dir(package().join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    for page in &pages {
        let name = page.file_name().unwrap().to_str().unwrap();
        // Every page is reachable from the README.
        assert!(
            docs.contains(&format!("docs/{name}")),
            "README.md does not link docs/{name}"
        );
        faults.extend(broken_links(page));
    }
    assert!(
        faults.is_empty(),
        "broken links:\n  {}",
        faults.join("\n  ")
    );
}
