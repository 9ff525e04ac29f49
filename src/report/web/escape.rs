//! The one escape of every text ioz puts in an HTML page or an SVG chart.

/// `s` as HTML or SVG text, or as an attribute's value in either quotes:
/// `&`, `<`, `>`, `"` and `'` become entities, everything else is kept.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn markup_characters_become_entities() {
        assert_eq!(
            esc(r#"<a href="x">Tom's & Jerry's</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; Jerry&#39;s&lt;/a&gt;"
        );
        assert_eq!(esc("µs ± 5 % → 1 KiB"), "µs ± 5 % → 1 KiB");
        assert_eq!(
            esc("&amp;"),
            "&amp;amp;",
            "escaped once more, never skipped"
        );
        assert_eq!(esc(""), "");
    }
}
