//! The table's own consistency: what the compiler cannot check.

use std::ffi::OsString;

use super::*;
use crate::cli::grammar::{Action, Lines};
use crate::cli::parse::{Walked, walk};
use crate::model::engines::{ENGINES, EngineChoice};
use crate::model::host::Host;
use crate::model::workload::TestId;

/// A value the flag accepts, as a command-line word.
fn valid_word(flag: &Flag) -> Option<String> {
    Some(match &flag.action {
        Action::Number(Number::Size | Number::RecordSize | Number::Bytes { .. }, _) => "64k".into(),
        Action::Number(Number::Count(b), _) => b.min.to_string(),
        Action::Number(Number::Duration(b), _) => crate::cli::number::duration_text(b.min),
        Action::Path(..) | Action::Paths(..) | Action::Output(..) => "out.xls".into(),
        Action::Choice(c, _) => c.names[0].into(),
        Action::Word(..) | Action::Text(_) => "wwn-1".into(),
        Action::Percent(..) => "5".into(),
        Action::Switch(_) | Action::Help | Action::Version | Action::NotSupported(_) => {
            return None;
        }
    })
}

fn argv(words: &[String]) -> Vec<OsString> {
    words.iter().map(OsString::from).collect()
}

#[test]
fn every_spelling_is_defined_once() {
    let spellings: Vec<_> = all().map(|f| f.spelling).collect();
    for (i, s) in spellings.iter().enumerate() {
        assert!(!spellings[..i].contains(s), "{s} is defined twice");
    }
    // `-+` is how plus options start, never a flag of its own.
    assert!(RUN.find(Spelling::Short('+')).is_none());
}

#[test]
fn every_iozone_letter_is_done_or_refused() {
    for c in ('a'..='z').chain('A'..='Z') {
        assert!(
            RUN.find(Spelling::Short(c)).is_some(),
            "-{c} is not in the table"
        );
    }
}

#[test]
fn every_flag_applies_its_value_and_header_lines() {
    let host = Host::example();
    for flag in all() {
        if matches!(
            flag.action,
            Action::Help | Action::Version | Action::NotSupported(_)
        ) {
            continue;
        }
        let mut words = vec![flag.spelling.to_string()];
        match &flag.action {
            // An optional value is only taken attached.
            Action::Choice(c, _) if c.default.is_some() => words[0] += "=all",
            _ => words.extend(valid_word(flag)),
        }
        let Ok(Walked::Done(seen, _)) = walk(&RUN, argv(&words), &host) else {
            panic!("{words:?} was not applied");
        };
        assert_eq!(seen.given, [flag.spelling], "{words:?}");
        let lines_expected = !matches!(flag.lines, Lines::None);
        assert_eq!(
            !seen.option_lines.is_empty(),
            lines_expected,
            "{words:?}: {:?}",
            seen.option_lines
        );
    }
}

#[test]
fn header_lines_fit_the_value_they_show() {
    for flag in all() {
        let fits = match flag.lines {
            Lines::OfNumber(_) => matches!(flag.action, Action::Number(..)),
            Lines::OfPath(_) => matches!(flag.action, Action::Path(..)),
            Lines::None | Lines::Fixed(_) | Lines::OfHost(_) => true,
        };
        assert!(fits, "{}: header lines of another kind", flag.spelling);
    }
}

#[test]
fn only_counts_and_durations_write_their_range_in_the_help() {
    for flag in all() {
        if flag.help.contains("{range}") {
            assert!(
                matches!(
                    flag.action,
                    Action::Number(Number::Count(_) | Number::Duration(_), _)
                ),
                "{} has no range to show",
                flag.spelling
            );
        }
    }
}

#[test]
fn choices_name_every_word_they_take() {
    for flag in all() {
        if let Action::Choice(choice, _) = &flag.action {
            for name in choice.names {
                assert!(
                    choice.expected.contains(name),
                    "{}: {name} missing from {:?}",
                    flag.spelling,
                    choice.expected
                );
            }
        }
    }
}

#[test]
fn engine_takes_every_engine_of_the_table_and_lists_each_in_the_help() {
    let Some(Flag {
        action: Action::Choice(choice, set),
        ..
    }) = RUN.find(Spelling::Long("engine"))
    else {
        panic!("--engine is not a choice");
    };
    let section = SECTIONS.iter().find(|s| s.title == "Engines").unwrap();
    assert_eq!(choice.names.len(), ENGINES.len());
    for row in ENGINES {
        assert!(choice.names.contains(&row.name), "{}", row.name);
        let mut seen = crate::cli::seen::Seen::default();
        set(&mut seen, row.name);
        assert_eq!(seen.variations.engine, Some(row.choice));
        let line = format!("  {:<14}{}\n", row.name, row.help);
        assert!(section.note.contains(&line), "{line:?}");
        assert!(line.len() <= 81, "{line:?}");
    }
    assert_eq!(
        choice.expected,
        "an engine (sync, psync, vec, stdio, mmap, aio, io_uring)"
    );
    assert_eq!(
        EngineChoice::from_name("io_uring"),
        Some(EngineChoice::IoUring)
    );
}

#[test]
fn test_numbers_are_bounded_by_the_tests_there_are() {
    let Some(Flag {
        action: Action::Number(Number::Count(b), _),
        ..
    }) = RUN.find(Spelling::Short('i'))
    else {
        panic!("-i is not a count");
    };
    assert_eq!(b.min, 0);
    for n in b.min..=b.max {
        assert!(TestId::from_number(n).is_some(), "{n}");
    }
    assert!(TestId::from_number(b.max + 1).is_none());
}

#[test]
fn exclusions_go_both_ways() {
    for flag in all() {
        if let Some(other) = flag.excludes {
            let back = RUN.find(other).and_then(|f| f.excludes);
            assert_eq!(
                back,
                Some(flag.spelling),
                "{} excludes {other}",
                flag.spelling
            );
        }
    }
}

#[test]
fn every_section_has_flags_with_help() {
    for section in SECTIONS {
        assert!(!section.flags.is_empty(), "{}", section.title);
        for flag in section.flags {
            assert!(!flag.help.trim().is_empty(), "{}", flag.spelling);
        }
    }
}
