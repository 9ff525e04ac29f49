//! How an option is written on the command line: what the option tables,
//! the options seen and every error message name it by; and which word a
//! mistyped one most likely meant.

use std::fmt;

/// How an option is written on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Spelling<'a> {
    /// `-s`: IOzone's single-dash letters, which cluster (`-Raz`).
    Short(char),
    /// `-+n`: IOzone's plus options; a value is always the next word.
    Plus(char),
    /// `--json`: ioz's own options.
    Long(&'a str),
}

impl Spelling<'static> {
    /// The spelling of a flag as written (`--json`, `-b`, `-+n`): how the
    /// format list (model::formats) names its flags.
    pub const fn of(flag: &'static str) -> Spelling<'static> {
        match flag.as_bytes() {
            [b'-', b'-', ..] => Spelling::Long(flag.split_at(2).1),
            [b'-', b'+', letter] => Spelling::Plus(*letter as char),
            [b'-', letter] => Spelling::Short(*letter as char),
            _ => panic!("a flag is written -x, -+x or --name"),
        }
    }
}

impl fmt::Display for Spelling<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spelling::Short(c) => write!(f, "-{c}"),
            Spelling::Plus(c) => write!(f, "-+{c}"),
            Spelling::Long(name) => write!(f, "--{name}"),
        }
    }
}

/// The candidate `word` is most likely a typo of (`josn` → `json`): the
/// nearest by edits (a swap of two neighbours counts as one), if it is
/// near enough to be a typo rather than another word: one edit for a word
/// of up to four letters, two for a longer one.
pub(super) fn closest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let allowed = if word.chars().count() <= 4 { 1 } else { 2 };
    candidates
        .map(|c| (strsim::osa_distance(word, c), c))
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_its_word_and_another_word_finds_none() {
        let words = ["json", "csv", "html", "plots", "force", "report", "history"];
        let near = |w: &str| closest(w, words.iter().copied());
        assert_eq!(near("josn"), Some("json"));
        assert_eq!(near("jsn"), Some("json"));
        assert_eq!(near("reprot"), Some("report"));
        assert_eq!(near("histroy"), Some("history"));
        assert_eq!(near("plot"), Some("plots"));
        for far in ["bogus", "wat", "no-such-option", "x"] {
            assert_eq!(near(far), None, "{far}");
        }
    }

    #[test]
    fn a_flag_is_read_as_written() {
        assert_eq!(Spelling::of("--json"), Spelling::Long("json"));
        assert_eq!(Spelling::of("-b"), Spelling::Short('b'));
        assert_eq!(Spelling::of("-+n"), Spelling::Plus('n'));
        for flag in ["--json", "-b", "-+n"] {
            assert_eq!(Spelling::of(flag).to_string(), flag);
        }
    }
}
