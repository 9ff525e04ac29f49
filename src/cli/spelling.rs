//! How an option is written on the command line: what the option table,
//! the options seen and every error message name it by.

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

impl fmt::Display for Spelling<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Spelling::Short(c) => write!(f, "-{c}"),
            Spelling::Plus(c) => write!(f, "-+{c}"),
            Spelling::Long(name) => write!(f, "--{name}"),
        }
    }
}
