//! Text from outside ioz (a saved run's label, host name or command line,
//! an IOzone log, a path) made safe to print on a terminal: every control
//! character is shown as what it is (`\x1b`, `\x0a`), so that an escape
//! sequence stored in a run cannot move the cursor, recolour or retitle
//! the user's terminal, and a newline cannot forge a line of ioz's own.
//! The invisible format characters — bidirectional overrides and marks
//! (which reorder what the reader sees), zero-width spaces and joiners,
//! the line and paragraph separators, a byte-order mark — are shown the
//! same way (`\u{202e}`, `\u{feff}`).
//!
//! Every text view (compare, history list and show, trend, regressions,
//! env, report) and every line on stderr ([`say`](super::say::say)) shows
//! outside text through these functions — a field at a time, or a whole
//! saved run or environment at once ([`for_terminal`]) before it is laid
//! out; HTML escapes its own, and the data formats (JSON, CSV) keep the
//! text as it is.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// `text` with every control character shown as an escape: for one line,
/// or one cell of a table.
pub fn visible(text: &str) -> Cow<'_, str> {
    shown(text, |_, _| false)
}

/// `text` with its control characters shown, but its line structure kept:
/// newlines and tabs (IOzone's layout is made of them), and a carriage
/// return that ends a line (a log saved on Windows).
pub fn visible_lines(text: &str) -> Cow<'_, str> {
    shown(text, |c, next| {
        c == '\n' || c == '\t' || (c == '\r' && next == Some('\n'))
    })
}

/// `data` (a saved run, an environment) with every string in it shown as
/// [`visible`] shows it: what a text view lays out, so that a newline in a
/// label cannot start a line of its own. `None` if it does not go through
/// JSON and back (then the caller shows its text with [`visible_lines`]).
pub fn for_terminal<T: Serialize + DeserializeOwned>(data: &T) -> Option<T> {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::String(s) => {
                if let Cow::Owned(shown) = visible(s) {
                    *s = shown;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(walk),
            serde_json::Value::Object(fields) => fields.values_mut().for_each(walk),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(data).ok()?;
    walk(&mut value);
    serde_json::from_value(value).ok()
}

/// Whether `c` must not reach a terminal as it is.
fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}'
        )
}

fn shown(text: &str, kept: impl Fn(char, Option<char>) -> bool) -> Cow<'_, str> {
    let mut chars = text.chars().peekable();
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    while let Some(c) = chars.next() {
        if !hidden(c) || kept(c, chars.peek().copied()) {
            out.push(c);
        } else if (c as u32) < 0x100 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_newlines_are_shown_as_what_they_are() {
        assert_eq!(visible("ext4-a"), "ext4-a");
        assert!(matches!(visible("ext4-a"), Cow::Borrowed(_)));
        assert_eq!(
            visible("\x1b]0;pwned\x07lab\nel\u{9b}2J"),
            "\\x1b]0;pwned\\x07lab\\x0ael\\x9b2J"
        );
        assert_eq!(visible("a\u{202e}b\tc\x7f"), "a\\u{202e}b\\x09c\\x7f");
        assert_eq!(visible("\u{feff}n\u{200b}1"), "\\u{feff}n\\u{200b}1");
        // Letters of any script are text, not controls.
        assert_eq!(visible("nœud-é 節点"), "nœud-é 節点");
    }

    #[test]
    fn every_string_of_a_document_is_shown() {
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct Run {
            label: Option<String>,
            hosts: Vec<String>,
            n: u32,
        }
        let run = Run {
            label: Some("a\nb".into()),
            hosts: vec!["h\x1b".into(), "ok".into()],
            n: 3,
        };
        assert_eq!(
            for_terminal(&run),
            Some(Run {
                label: Some("a\\x0ab".into()),
                hosts: vec!["h\\x1b".into(), "ok".into()],
                n: 3
            })
        );
    }

    #[test]
    fn lines_keep_their_breaks_and_tabs() {
        assert_eq!(
            visible_lines("\tKB  reclen\r\n\x1b[2Jrow\rover\n"),
            "\tKB  reclen\r\n\\x1b[2Jrow\\x0dover\n"
        );
    }
}
