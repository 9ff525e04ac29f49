//! `ioz -h`, written from the option table, and `ioz -v`.

use super::flags::{self, Action, Flag, Number, Section};

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
Sizes are in kB unless they end in k, m or g (1 kB = 1024 bytes).
";

const TAIL: &str = "\
ioz report renders a saved run (--json) again without measuring: the text
table (--text, the default when no file is asked for), -R's report, and the
files of the Results options above.

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

fn write_section(out: &mut String, section: &Section) {
    out.push_str(section.title);
    out.push('\n');
    out.push_str(section.note);
    for flag in section.flags {
        write_flag(out, flag);
    }
}

/// `  -s SIZE       file size …`, the text wrapped under itself; an option
/// too long for its column gets the text on the next line.
fn write_flag(out: &mut String, flag: &Flag) {
    let label = label(flag);
    let mut first = format!("  {label}");
    if first.len() < TEXT_COLUMN {
        first = format!("{first:<TEXT_COLUMN$}");
    } else {
        out.push_str(&first);
        out.push('\n');
        first = " ".repeat(TEXT_COLUMN);
    }
    let text = help_line(flag);
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
