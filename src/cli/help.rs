//! `ioz -h` and every command's `-h`, written from the tables; and `ioz -v`.

use super::COMMANDS;
use super::flags::RUN;
use super::grammar::{Count, Described, Operand};

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

/// After the run's options.
const TAIL: &str = "\
ioz report renders a saved run (--json) again without measuring: the text
table (--text, the default when no file is asked for), -R's report, and the
files of the Results options above (ioz report -h: its options).

Exit status: 0 done, 1 I/O error, 2 bad command line, 128+N stopped by signal N.
";

/// `ioz -h`: how to call ioz, every command, then every flag of the run's
/// table, section by section.
pub fn help_text() -> String {
    let mut out = String::from(
        "Usage: ioz [options]\n       \
         ioz COMMAND [options]   (ioz help COMMAND, or ioz COMMAND -h)\n",
    );
    out.push_str(RUN.about);
    out.push_str("\n\nCommands:\n");
    for command in COMMANDS {
        write_option(&mut out, command.name(), command.summary());
    }
    for section in RUN.sections() {
        if !section.title.is_empty() {
            out.push('\n');
            out.push_str(section.title);
            out.push('\n');
        }
        out.push_str(section.note);
        for flag in &section.flags {
            write_option(&mut out, &flag.label(), &flag.help);
        }
    }
    out.push('\n');
    out.push_str(TAIL);
    out
}

/// `ioz COMMAND -h`, `ioz help COMMAND`.
pub(super) fn command_help(command: &dyn Described) -> String {
    let name = command.name();
    let mut out = format!(
        "Usage: {}\n       ioz {name} -h\n\n{}\n",
        usage_line(command),
        command.about()
    );
    let subcommands = command.subcommands();
    if subcommands.is_empty() {
        let operands = command.operands();
        if !operands.is_empty() {
            out.push_str("\nArguments:\n");
            for operand in operands {
                write_option(&mut out, operand.name, operand.help);
            }
        }
    } else {
        out.push_str("\nSubcommands (each has its own -h):\n");
        for sub in subcommands {
            let label = format!(
                "{} {}",
                sub.name().rsplit(' ').next().unwrap_or_default(),
                operands_usage(sub.operands())
            );
            write_option(&mut out, label.trim_end(), sub.summary());
        }
    }
    out.push_str("\nOptions:\n");
    for section in command.sections() {
        for flag in &section.flags {
            write_option(&mut out, &flag.label(), &flag.help);
        }
    }
    if !command.tail().is_empty() {
        out.push('\n');
        out.push_str(command.tail());
        out.push('\n');
    }
    out
}

/// `ioz report RUN.json [options]`.
pub(super) fn usage_line(command: &dyn Described) -> String {
    let operands = operands_usage(command.operands());
    let words = ["ioz", command.name(), operands.as_str(), "[options]"];
    let words: Vec<&str> = words.into_iter().filter(|w| !w.is_empty()).collect();
    words.join(" ")
}

/// `BASE OTHER...`, `[PATH]`.
fn operands_usage(operands: &[Operand]) -> String {
    let words: Vec<String> = operands
        .iter()
        .map(|o| match o.count {
            Count::One => o.name.to_string(),
            Count::Optional => format!("[{}]", o.name),
            Count::Many => format!("{}...", o.name),
        })
        .collect();
    words.join(" ")
}

/// `  -s SIZE       file size …`, the text wrapped under itself; an option
/// too long for its column gets the text on the next line.
fn write_option(out: &mut String, label: &str, text: &str) {
    let mut first = format!("  {label}");
    if first.chars().count() < TEXT_COLUMN {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every help there is: ioz's, each command's, each subcommand's.
    fn every_help() -> Vec<String> {
        let mut helps = vec![help_text()];
        for command in COMMANDS {
            helps.push(command_help(*command));
            helps.extend(command.subcommands().iter().map(|s| command_help(*s)));
        }
        helps
    }

    #[test]
    fn every_line_fits_in_80_columns() {
        for help in every_help() {
            for line in help.lines() {
                assert!(line.chars().count() <= WIDTH, "too wide: {line:?}");
                assert_eq!(line, line.trim_end(), "trailing blanks: {line:?}");
            }
        }
    }

    #[test]
    fn every_flag_is_listed_with_its_value() {
        let check = |help: &str, command: &dyn Described| {
            for section in command.sections() {
                for flag in section.flags {
                    let alone = format!("  {}\n", flag.label());
                    let label = format!("  {} ", flag.label());
                    assert!(
                        help.contains(&label) || help.contains(&alone),
                        "{} is missing from the help of {:?}",
                        flag.spelling,
                        command.name()
                    );
                }
            }
        };
        check(&help_text(), &RUN);
        for command in COMMANDS {
            check(&command_help(*command), *command);
            for sub in command.subcommands() {
                check(&command_help(*sub), *sub);
            }
        }
    }

    #[test]
    fn ioz_s_help_names_every_command() {
        let help = help_text();
        for command in COMMANDS {
            assert!(
                help.contains(&format!("\n  {} ", command.name())),
                "{}",
                command.name()
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
