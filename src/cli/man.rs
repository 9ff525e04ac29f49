//! `ioz help --man`: ioz's manual page (ioz.1, in roff's man macros),
//! written from the tables: every command, every option and its help line,
//! as IOzone users have `man iozone`.

use super::COMMANDS;
use super::flags::RUN;
use super::grammar::{Count, Described, FlagDoc, Spelling};
use super::help::usage_line;

/// The page, ready for `man -l`.
pub(super) fn man_page() -> String {
    let mut out = format!(
        ".TH IOZ 1 \"\" \"ioz {}\" \"User Commands\"\n",
        env!("CARGO_PKG_VERSION")
    );
    out.push_str(
        ".SH NAME\nioz \\- a file\\-system benchmark, command\\-line compatible with IOzone\n",
    );
    out.push_str(".SH SYNOPSIS\n");
    out.push_str(".B ioz\n[\\fIoptions\\fR]\n");
    for command in COMMANDS {
        out.push_str(".br\n");
        synopsis(&mut out, *command);
    }
    out.push_str(".SH DESCRIPTION\n");
    paragraphs(
        &mut out,
        "ioz measures how fast a file system reads and writes, as IOzone does: \
         its options, its tests, its text table, its -R report and its -b \
         spreadsheet are IOzone's, and its own options (--long) add per-operation \
         latency, repeated runs, comparisons with significance, a history of runs, \
         plots and safety for the user's data.",
    );
    paragraphs(&mut out, RUN.about);
    out.push_str(".SH OPTIONS\n");
    for section in RUN.sections() {
        if !section.title.is_empty() {
            out.push_str(&format!(".SS {}\n", roff(section.title)));
        }
        if !section.note.is_empty() {
            out.push_str(".nf\n");
            out.push_str(&roff_lines(section.note));
            out.push_str(".fi\n");
        }
        for flag in &section.flags {
            flag_entry(&mut out, flag);
        }
    }
    out.push_str(".SH COMMANDS\n");
    for command in COMMANDS {
        command_entry(&mut out, *command);
        for sub in command.subcommands() {
            command_entry(&mut out, *sub);
        }
    }
    out.push_str(
        ".SH ENVIRONMENT\n\
         .TP\n.B IOZ_HISTORY\nthe history's directory (else $XDG_DATA_HOME/ioz or ~/.local/share/ioz)\n\
         .TP\n.B IOZ_NO_HISTORY\nset to 1: record no run in the history\n\
         .TP\n.B NO_COLOR\nno colours in ioz compare's text, even on a terminal\n\
         .SH EXIT STATUS\n\
         0 done, 1 an I/O error (or a result file not written), 2 a bad command line \
         or input, 128+N stopped by signal N.\n\
         .SH SEE ALSO\n\
         .BR iozone (1)\n",
    );
    out
}

/// `.B ioz report` and its words, for the synopsis.
fn synopsis(out: &mut String, command: &dyn Described) {
    let usage = usage_line(command);
    let mut words = usage.split(' ');
    let _ioz = words.next();
    out.push_str(&format!(".B ioz {}\n", roff(command.name())));
    let rest: Vec<String> = words
        .skip(command.name().split(' ').count())
        .map(|w| {
            let (open, inner, close) = match w.strip_prefix('[').and_then(|w| w.strip_suffix(']')) {
                Some(inner) => ("[", inner, "]"),
                None => ("", w, ""),
            };
            format!("{open}\\fI{}\\fR{close}", roff(inner))
        })
        .collect();
    if !rest.is_empty() {
        out.push_str(&rest.join(" "));
        out.push('\n');
    }
}

/// A command's section: what it does, its arguments, its options.
fn command_entry(out: &mut String, command: &dyn Described) {
    out.push_str(&format!(".SS ioz {}\n", roff(command.name())));
    synopsis(out, command);
    paragraphs(out, command.about());
    for operand in command.operands() {
        let shown = match operand.count {
            Count::One => operand.name.to_string(),
            Count::Optional => format!("[{}]", operand.name),
            Count::Many => format!("{}...", operand.name),
        };
        out.push_str(&format!(
            ".TP\n\\fI{}\\fR\n{}\n",
            roff(&shown),
            roff_text(operand.help)
        ));
    }
    for section in command.sections() {
        for flag in &section.flags {
            flag_entry(out, flag);
        }
    }
    paragraphs(out, command.tail());
}

/// `.TP` with the option in bold, its value in italics, then its help.
fn flag_entry(out: &mut String, flag: &FlagDoc) {
    let value = match flag.value_name {
        "" => String::new(),
        attached if attached.starts_with('[') => roff(attached),
        value => format!(" \\fI{}\\fR", roff(value)),
    };
    out.push_str(&format!(
        ".TP\n{}{value}\n{}\n",
        bold_option(flag.spelling),
        roff_text(&flag.help)
    ));
}

/// How the page writes an option: `\fB\-\-json\fR`.
pub(super) fn bold_option(spelling: Spelling<'_>) -> String {
    format!("\\fB{}\\fR", roff(&spelling.to_string()))
}

/// Text as paragraphs (a blank line between two); a paragraph whose lines
/// are indented is shown as written (examples).
fn paragraphs(out: &mut String, text: &str) {
    for paragraph in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
        out.push_str(".PP\n");
        if paragraph.lines().skip(1).any(|l| l.starts_with("  ")) {
            let (first, examples) = paragraph.split_once('\n').unwrap_or((paragraph, ""));
            out.push_str(&roff_text(first));
            out.push_str("\n.nf\n");
            out.push_str(&roff_lines(examples));
            out.push_str(".fi\n");
        } else {
            out.push_str(&roff_text(paragraph));
            out.push('\n');
        }
    }
}

/// Running text on one line (roff fills it), escaped.
fn roff_text(text: &str) -> String {
    let joined: Vec<&str> = text.split_whitespace().collect();
    line_start(&roff(&joined.join(" ")))
}

/// Lines kept as written (inside `.nf`), each escaped.
fn roff_lines(text: &str) -> String {
    text.lines()
        .map(|l| format!("{}\n", line_start(&roff(l))))
        .collect()
}

/// A line that would start with a control character starts with `\&`.
fn line_start(line: &str) -> String {
    if line.starts_with('.') || line.starts_with('\'') {
        format!("\\&{line}")
    } else {
        line.to_string()
    }
}

/// Roff's escapes: a backslash is `\e`, a hyphen a minus `\-` (options
/// copied from the page then work in a shell), and a character beyond
/// ASCII its Unicode name (`\[u2192]`), so the page needs no input encoding.
fn roff(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\e"),
            '-' => out.push_str("\\-"),
            c if c.is_ascii() => out.push(c),
            c => out.push_str(&format!("\\[u{:04X}]", u32::from(c))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_and_option_of_the_tables_is_in_the_page() {
        let page = man_page();
        let check = |command: &dyn Described| {
            for section in command.sections() {
                for flag in section.flags {
                    assert!(
                        page.contains(&format!(".TP\n{}", bold_option(flag.spelling))),
                        "{} of {:?} is not in the page",
                        flag.spelling,
                        command.name()
                    );
                }
            }
        };
        check(&RUN);
        for command in COMMANDS {
            assert!(page.contains(&format!(".SS ioz {}\n", roff(command.name()))));
            check(*command);
            for sub in command.subcommands() {
                assert!(page.contains(&format!(".SS ioz {}\n", roff(sub.name()))));
                check(*sub);
            }
        }
    }

    #[test]
    fn no_line_starts_as_a_request_by_accident() {
        for line in man_page().lines() {
            if let Some(rest) = line.strip_prefix('.') {
                let request = rest.split(' ').next().unwrap_or_default();
                assert!(
                    ["TH", "SH", "SS", "TP", "PP", "B", "BR", "br", "nf", "fi"].contains(&request),
                    "{line}"
                );
            }
            assert!(!line.starts_with('\''), "{line}");
        }
    }
}
