//! `ioz -h`, written from the option table; `ioz report -h`; and `ioz -v`.

use super::flags::{self, Action, Flag, Number, Section, Spelling};

pub fn version_text() -> String {
    format!(
        "ioz {} — a file-system benchmark, command-line compatible with IOzone\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// The help is read on an 80-column terminal.
const WIDTH: usize = 80;
/// Where the help lines start: after two spaces and the option with its value.
const TEXT_COLUMN: usize = 16;

const HEAD: &str = "\
Usage: ioz [options]
       ioz report RUN.json [--text] [-R] [-b FILE] [--json FILE] [--csv FILE]
                           [--html FILE] [--plots DIR] [--force]
       ioz history SUBCOMMAND [OPTIONS]   (list, show, trend…: ioz history -h)
Sizes are in kB unless they end in k, m or g (1 kB = 1024 bytes).
";

const TAIL: &str = "\
ioz report renders a saved run (--json) again without measuring: the text
table (--text, the default when no file is asked for), -R's report, and the
files of the Results options above (ioz report -h: its options).

Exit status: 0 done, 1 I/O error, 2 bad command line, 128+N stopped by signal N.
";

/// `ioz -h`: every flag of the table, section by section.
pub fn help_text() -> String {
    let mut out = String::from(HEAD);
    for section in flags::SECTIONS {
        out.push('\n');
        write_section(&mut out, section);
    }
    out.push('\n');
    out.push_str(TAIL);
    out
}

const REPORT_HEAD: &str = "\
Usage: ioz report RUN.json [--text] [-R] [-b FILE]... [--json FILE] [--csv FILE]
                  [--html FILE] [--plots DIR] [--plot-scale SCALE] [--plot-log]
                  [--force]
       ioz report -h

Renders a run saved with --json again, without measuring: the text it printed
and the result files, written as a run writes them.

";

const REPORT_TAIL: &str = "\
Exit status: 0 done, 1 a result file could not be written, 2 bad command line
or saved run.
";

/// `ioz report`'s options of its own; the result files follow, with the
/// help lines of the run's Results options (the same flags, the same files).
const REPORT_OWN: [(&str, &str); 3] = [
    ("RUN.json", "the saved run (written by ioz --json FILE)"),
    (
        "--text",
        "print the text the run printed (the default when no file is asked for)",
    ),
    (
        "-R",
        "print the text with its -R report, whatever files are also asked for",
    ),
];

/// The run's flags `ioz report` takes, in its help's order.
const REPORT_RESULTS: [Spelling<'static>; 7] = [
    Spelling::Short('b'),
    Spelling::Long("json"),
    Spelling::Long("csv"),
    Spelling::Long("html"),
    Spelling::Long("plots"),
    Spelling::Long("plot-scale"),
    Spelling::Long("plot-log"),
];

const REPORT_LAST: [(&str, &str); 2] = [
    (
        "--force",
        "replace an existing result file that ioz did not write",
    ),
    ("-h, --help", "this help"),
];

/// `ioz report -h`.
pub fn report_help_text() -> String {
    let mut out = String::from(REPORT_HEAD);
    for (label, text) in REPORT_OWN {
        write_option(&mut out, label, text);
    }
    for spelling in REPORT_RESULTS {
        if let Some(flag) = flags::find(spelling) {
            write_option(&mut out, &label(flag), &help_line(flag));
        }
    }
    for (label, text) in REPORT_LAST {
        write_option(&mut out, label, text);
    }
    out.push('\n');
    out.push_str(REPORT_TAIL);
    out
}

fn write_section(out: &mut String, section: &Section) {
    out.push_str(section.title);
    out.push('\n');
    out.push_str(section.note);
    for flag in section.flags {
        write_flag(out, flag);
    }
}

fn write_flag(out: &mut String, flag: &Flag) {
    write_option(out, &label(flag), &help_line(flag));
}

/// `  -s SIZE       file size …`, the text wrapped under itself; an option
/// too long for its column gets the text on the next line.
fn write_option(out: &mut String, label: &str, text: &str) {
    let mut first = format!("  {label}");
    if first.len() < TEXT_COLUMN {
        first = format!("{first:<TEXT_COLUMN$}");
    } else {
        out.push_str(&first);
        out.push('\n');
        first = " ".repeat(TEXT_COLUMN);
    }
    let mut line = first;
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = " ".repeat(TEXT_COLUMN);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// The option as written, with its value: `-s SIZE`, `--drop-caches[=all]`.
fn label(flag: &Flag) -> String {
    let spelling = flag.spelling.to_string();
    match flag.value_name {
        "" => spelling,
        attached if attached.starts_with('[') => format!("{spelling}{attached}"),
        value => format!("{spelling} {value}"),
    }
}

/// The help line, with `{range}` standing for a count's bounds.
fn help_line(flag: &Flag) -> String {
    match &flag.action {
        Action::Number(Number::Count(b), _) => flag
            .help
            .replace("{range}", &format!("{} to {}", b.min, b.max)),
        _ => flag.help.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_fits_in_80_columns() {
        for line in help_text().lines() {
            assert!(line.chars().count() <= WIDTH, "too wide: {line:?}");
            assert_eq!(line, line.trim_end(), "trailing blanks: {line:?}");
        }
    }

    #[test]
    fn every_flag_is_listed_with_its_value() {
        let help = help_text();
        for flag in flags::all() {
            let alone = format!("  {}\n", label(flag));
            let label = format!("  {} ", label(flag));
            assert!(
                help.contains(&label) || help.contains(&alone),
                "{} is missing from the help",
                flag.spelling
            );
        }
    }

    #[test]
    fn bounds_are_written_from_the_table() {
        let help = help_text();
        assert!(!help.contains("{range}"));
        assert!(
            help.contains("  -t N          N workers (1 to 1024)"),
            "{help}"
        );
    }

    #[test]
    fn long_options_put_their_text_on_the_next_line() {
        let help = help_text();
        assert!(help.contains("\n  --drop-caches[=all]\n                evict"));
    }
}
