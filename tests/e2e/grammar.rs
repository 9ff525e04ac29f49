//! One grammar for every command: `ioz -h` names every command, `ioz help`
//! and `ioz help CMD` print what `-h` prints, a mistyped option, command or
//! subcommand is refused with the nearest word, and the man page and the
//! completion scripts hold every option every help lists (each written from
//! the same tables), and work: man renders the page, bash completes.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Command;

use crate::fixtures::{Run, Test, assert_refused, ioz, skip, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        ioz_s_help_names_every_command,
        help_of_a_command_is_its_dash_h,
        a_mistyped_option_or_command_gets_the_nearest_word,
        the_man_page_has_every_option_and_renders,
        the_completions_have_every_option_of_every_help,
        bash_completes_commands_options_and_values,
        zsh_reads_its_completions,
        fish_reads_its_completions,
    ]
}

/// The commands `ioz -h` lists, and the history's subcommands.
const COMMANDS: [&str; 5] = ["report", "compare", "history", "env", "help"];
const HISTORY: [&str; 7] = [
    "list",
    "show",
    "rm",
    "reindex",
    "import",
    "trend",
    "regressions",
];

/// ioz run with `args` where it can write nothing of consequence; exit 0.
fn shown(dir: &Path, args: &[&str]) -> String {
    let run = ioz(dir, args);
    run.expect_code(0);
    assert_eq!(run.stderr, "", "{args:?}");
    run.stdout
}

/// Every help there is, with the words that ask for it: `ioz -h`, each
/// command's, each history subcommand's.
fn every_help(dir: &Path) -> Vec<(Vec<&'static str>, String)> {
    let mut helps = vec![(vec![], shown(dir, &["-h"]))];
    for command in COMMANDS {
        helps.push((vec![command], shown(dir, &[command, "-h"])));
    }
    for sub in HISTORY {
        helps.push((vec!["history", sub], shown(dir, &["history", sub, "-h"])));
    }
    helps
}

/// The options a help lists: the first word of each line that starts with
/// two spaces and a dash (`-s`, `-+n`, `--drop-caches`).
fn options_of(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| l.split([' ', '[', ',']).next())
        .map(str::to_string)
        .collect()
}

fn ioz_s_help_names_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let help = shown(dir.path(), &["-h"]);
    assert!(help.starts_with("Usage: ioz [options]\n"), "{help}");
    for command in COMMANDS {
        assert!(
            help.contains(&format!("\n  {command} ")),
            "ioz -h does not name {command}:\n{help}"
        );
    }
    // The run's options are all there too (a few of IOzone's and ioz's own).
    let options = options_of(&help);
    for option in [
        "-a", "-s", "-+n", "-F", "--json", "-b", "--plots", "--force",
    ] {
        assert!(options.contains(option), "{option}: {options:?}");
    }
    assert_eq!(shown(dir.path(), &["--help"]), help);
    assert!(fs::read_dir(dir.path()).unwrap().next().is_none());
}

fn help_of_a_command_is_its_dash_h() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(shown(d, &["help"]), shown(d, &["-h"]));
    for (words, help) in every_help(d).into_iter().skip(1) {
        let mut asked = vec!["help"];
        asked.extend(&words);
        assert_eq!(shown(d, &asked), help, "ioz help {words:?}");
        assert!(
            help.starts_with(&format!("Usage: ioz {}", words.join(" "))),
            "{help}"
        );
        assert!(help.lines().all(|l| l.chars().count() <= 80), "{help}");
        // `ioz CMD --help` too, anywhere among the options.
        let mut long = words.clone();
        long.push("--help");
        assert_eq!(shown(d, &long), help);
    }
    assert_refused(
        &ioz(d, &["help", "frobnicate"]),
        "help: unknown command 'frobnicate' (ioz -h names the commands)",
    );
}

fn a_mistyped_option_or_command_gets_the_nearest_word() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let line = |args: &[&str], part: &str| {
        let run = ioz(d, args);
        assert_refused(&run, part).to_string()
    };
    assert_eq!(
        line(&["-a", "--josn", "r.json"], "--josn"),
        "ioz: unknown option --josn; did you mean --json?"
    );
    assert_eq!(
        line(&["reprot", "r.json"], "reprot"),
        "ioz: unknown command 'reprot'; did you mean report?"
    );
    assert_eq!(
        line(&["report", "r.json", "--plto-log"], "--plto-log"),
        "ioz: report: unknown option --plto-log; did you mean --plot-log?"
    );
    assert_eq!(
        line(&["compare", "a", "b", "--bnad", "3"], "--bnad"),
        "ioz: compare: unknown option --bnad; did you mean --band?"
    );
    assert_eq!(
        line(&["history", "lsit"], "lsit"),
        "ioz: history: unknown subcommand 'lsit'; did you mean list?"
    );
    assert_eq!(
        line(&["help", "hisotry"], "hisotry"),
        "ioz: help: unknown command 'hisotry'; did you mean history?"
    );
    // A word near nothing keeps the message that says where the options are.
    assert_eq!(
        line(&["--bogus"], "--bogus"),
        "ioz: unknown option --bogus (ioz -h lists the options)"
    );
    assert_eq!(
        line(&["env", "--wat"], "--wat"),
        "ioz: env: unknown option --wat (ioz env -h lists its options)"
    );
}

/// Runs `program` with `args` in `dir`; `None` when it is not installed.
fn tool(program: &str, args: &[&str], dir: &Path) -> Option<Run> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("MANWIDTH", "100")
        .env("LC_ALL", "C.UTF-8")
        .output()
        .ok()?;
    Some(Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        listing: None,
    })
}

fn the_man_page_has_every_option_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let page = shown(d, &["help", "--man"]);
    assert!(page.starts_with(".TH IOZ 1 "), "{page}");
    assert!(page.is_ascii(), "the page needs no input encoding");
    let file = d.join("ioz.1");
    fs::write(&file, &page).unwrap();
    // man renders it; else groff, else mandoc; with none of them, nothing
    // can say the page renders.
    let rendered = tool("man", &["-l", "ioz.1"], d)
        .or_else(|| tool("groff", &["-man", "-Tutf8", "-ww", "ioz.1"], d))
        .or_else(|| tool("mandoc", &["-Tutf8", "ioz.1"], d))
        .unwrap_or_else(|| skip("neither man, groff nor mandoc is installed"));
    assert_eq!(rendered.code, Some(0), "{}", rendered.context());
    assert_eq!(rendered.stderr, "", "{}", rendered.context());
    // Without the overstrikes of bold and underline (man's output to a pipe).
    let text = strip_overstrike(&rendered.stdout);
    for heading in ["NAME", "SYNOPSIS", "OPTIONS", "COMMANDS", "EXIT STATUS"] {
        assert!(
            text.contains(&format!("\n{heading}\n")),
            "{heading}:\n{text}"
        );
    }
    for (words, help) in every_help(d) {
        if !words.is_empty() {
            let section = format!("ioz {}", words.join(" "));
            assert!(text.contains(&section), "{section} is not in the page");
        }
        for option in options_of(&help) {
            assert!(
                text.contains(&option),
                "{option} (ioz {words:?} -h) is not in the page"
            );
        }
    }
    let groff = tool("groff", &["-man", "-Tutf8", "-ww", "-z", "ioz.1"], d);
    if let Some(checked) = groff {
        assert_eq!(checked.stderr, "", "groff's warnings on the page");
    }
}

/// `b\bb` (bold) and `_\bx` (underlined) as man writes them to a pipe
/// without a pager, made plain.
fn strip_overstrike(text: &str) -> String {
    let mut out: Vec<char> = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{8}' {
            out.pop();
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out.into_iter().collect()
}

fn the_completions_have_every_option_of_every_help() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let helps = every_help(d);
    for shell in ["bash", "zsh", "fish"] {
        let script = shown(d, &["help", "--completions", shell]);
        for command in COMMANDS.iter().chain(&HISTORY) {
            assert!(script.contains(command), "{shell}: {command}");
        }
        for (words, help) in &helps {
            for option in options_of(help) {
                let written = match (shell, option.strip_prefix("--")) {
                    ("fish", Some(long)) => format!("-l {long} "),
                    ("fish", None) => match option.strip_prefix("-+") {
                        Some(plus) => format!("-o +{plus} "),
                        None => format!("-s {} ", &option[1..]),
                    },
                    _ => option.clone(),
                };
                assert!(
                    script.contains(&written),
                    "{shell}: {option} of ioz {words:?} is missing"
                );
            }
        }
    }
    assert_refused(
        &ioz(d, &["help", "--completions", "tcsh"]),
        "--completions: 'tcsh' is not a shell ioz completes (bash, zsh or fish)",
    );
}

/// What bash completes after `words` (the last one is the word under the
/// cursor), with the script `ioz help --completions bash` wrote.
fn bash_completes(script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={}; _ioz; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words.len() - 1
    );
    let run = tool("bash", &["--norc", "-c", &program], Path::new("/"))
        .unwrap_or_else(|| skip("bash is not installed"));
    assert_eq!(run.code, Some(0), "{}", run.context());
    assert_eq!(run.stderr, "", "{}", run.context());
    // printf prints one empty line for no word at all.
    run.stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn bash_completes_commands_options_and_values() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = d.join("ioz.bash");
    fs::write(&script, shown(d, &["help", "--completions", "bash"])).unwrap();
    let syntax = tool("bash", &["-n", "ioz.bash"], d).unwrap_or_else(|| skip("no bash"));
    assert_eq!(syntax.code, Some(0), "{}", syntax.context());
    let completes = |words: &[&str]| bash_completes(&script, words);
    assert_eq!(completes(&["ioz", "rep"]), ["report"]);
    assert_eq!(completes(&["ioz", "report", "--js"]), ["--json"]);
    assert_eq!(completes(&["ioz", "--plot-scale", ""]), ["own", "shared"]);
    let plus_options = options_of(&shown(d, &["-h"]))
        .into_iter()
        .filter(|o| o.starts_with("-+"))
        .count();
    assert_eq!(completes(&["ioz", "-+"]).len(), plus_options);
    assert_eq!(completes(&["ioz", "history", "reg"]), ["regressions"]);
    assert_eq!(
        completes(&["ioz", "history", "--history", "/h", "list", "--stat"]),
        ["--status"]
    );
    assert_eq!(
        completes(&["ioz", "history", "list", "--status", "i"]),
        ["interrupted"]
    );
    assert_eq!(completes(&["ioz", "compare", "--adjust", "h"]), ["holm"]);
    // A value that is a number or a name: nothing to offer.
    assert!(completes(&["ioz", "-s", ""]).is_empty());
    // A file where a file goes.
    fs::write(d.join("run.json"), "{}").unwrap();
    let file = d.join("ru").display().to_string();
    assert_eq!(
        completes(&["ioz", "report", &file]),
        [d.join("run.json").display().to_string()]
    );
}

/// `shell -n` on the script `ioz help --completions shell` writes.
fn shell_reads_its_completions(shell: &str) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = format!("_ioz.{shell}");
    fs::write(d.join(&file), shown(d, &["help", "--completions", shell])).unwrap();
    let run =
        tool(shell, &["-n", &file], d).unwrap_or_else(|| skip(format!("{shell} is not installed")));
    assert_eq!(run.code, Some(0), "{}", run.context());
    assert_eq!(run.stderr, "", "{}", run.context());
}

fn zsh_reads_its_completions() {
    shell_reads_its_completions("zsh");
}

fn fish_reads_its_completions() {
    shell_reads_its_completions("fish");
}
