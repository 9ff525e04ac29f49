//! How the p-values of one comparison are adjusted for its many cells: the
//! one list of methods, with their names on the command line (`--adjust`)
//! and in reports. `analysis::adjust` computes them; `cli` reads them.

use serde::Serialize;

/// How the p-values of one comparison are adjusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Adjust {
    BenjaminiHochberg,
    Holm,
}

/// Every method and the words `--adjust` takes for it (the first its short
/// name).
pub const METHODS: &[(Adjust, &[&str])] = &[
    (
        Adjust::BenjaminiHochberg,
        &["bh", "fdr", "benjamini-hochberg"],
    ),
    (Adjust::Holm, &["holm"]),
];

/// The words of [`METHODS`] in its order, for `--adjust`'s choice (a
/// const slice the option table can hold; a test keeps the two equal).
pub const WORDS: &[&str] = &["bh", "fdr", "benjamini-hochberg", "holm"];

impl Adjust {
    /// The method's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Adjust::BenjaminiHochberg => "Benjamini-Hochberg",
            Adjust::Holm => "Holm",
        }
    }

    /// The method a word of `--adjust` names.
    pub fn named(word: &str) -> Option<Adjust> {
        METHODS
            .iter()
            .find(|(_, words)| words.contains(&word))
            .map(|&(method, _)| method)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_is_named_by_its_words_and_only_them() {
        let words: Vec<&str> = METHODS
            .iter()
            .flat_map(|(_, w)| w.iter().copied())
            .collect();
        assert_eq!(words, WORDS, "WORDS is not METHODS' words");
        for &(method, words) in METHODS {
            assert!(!words.is_empty(), "{method:?} has no word");
            for word in words {
                assert_eq!(Adjust::named(word), Some(method), "{word}");
            }
        }
        assert_eq!(Adjust::named("bonferroni"), None);
    }
}
