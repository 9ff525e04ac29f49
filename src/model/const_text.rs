//! Text put together at compile time. The CLI's option table is a `const`,
//! so a help line that names the engines of the engine table (model::engines)
//! must be made from it in a `const` too: with [`Text`], pushed piece by
//! piece into a fixed buffer and read back with [`Text::as_str`].

/// Up to `N` bytes of text, made in `const` code.
#[derive(Clone, Copy, Debug)]
pub struct Text<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Text<N> {
    pub const fn new() -> Text<N> {
        Text {
            bytes: [0; N],
            len: 0,
        }
    }

    /// The text with `piece` after it. More than `N` bytes in all stops the
    /// build (a `const` that overflows does not compile).
    pub const fn push(mut self, piece: &str) -> Text<N> {
        let piece = piece.as_bytes();
        assert!(self.len + piece.len() <= N, "Text: the buffer is too small");
        let mut i = 0;
        while i < piece.len() {
            self.bytes[self.len + i] = piece[i];
            i += 1;
        }
        self.len += piece.len();
        self
    }

    /// The text with `count` spaces after it.
    pub const fn spaces(mut self, count: usize) -> Text<N> {
        let mut i = 0;
        while i < count {
            self = self.push(" ");
            i += 1;
        }
        self
    }

    /// The text with `words` after it, separated by `separator`, the last
    /// two by `last` ("a, b or c" with ", " and " or ").
    pub const fn list(mut self, words: &[&str], separator: &str, last: &str) -> Text<N> {
        let mut i = 0;
        while i < words.len() {
            if i > 0 {
                self = self.push(if i + 1 == words.len() {
                    last
                } else {
                    separator
                });
            }
            self = self.push(words[i]);
            i += 1;
        }
        self
    }

    pub const fn as_str(&self) -> &str {
        match std::str::from_utf8(self.bytes.split_at(self.len).0) {
            Ok(text) => text,
            // Only whole `&str`s are pushed.
            Err(_) => panic!("Text: not UTF-8"),
        }
    }
}

impl<const N: usize> Default for Text<N> {
    fn default() -> Text<N> {
        Text::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTED: Text<64> = Text::new()
        .push("(")
        .list(&["a", "bb", "ccc"], ", ", " or ")
        .push(")");

    #[test]
    fn pieces_lists_and_spaces_join_in_order() {
        assert_eq!(LISTED.as_str(), "(a, bb or ccc)");
        let one: Text<8> = Text::new().list(&["x"], ", ", " and ");
        assert_eq!(one.as_str(), "x");
        let none: Text<8> = Text::new().list(&[], ", ", " and ");
        assert_eq!(none.as_str(), "");
        let padded: Text<8> = Text::new().push("ab").spaces(3).push("c");
        assert_eq!(padded.as_str(), "ab   c");
        let full: Text<4> = Text::new().push("abcd");
        assert_eq!(full.as_str(), "abcd");
    }

    #[test]
    #[should_panic(expected = "too small")]
    fn text_past_the_buffer_is_refused() {
        let _ = Text::<3>::new().push("abcd");
    }
}
