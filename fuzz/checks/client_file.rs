//! The `-+m` client file's reader (app::fuzzing::parse_clients, what
//! `ioz -+m FILE` runs on the file's text before it resolves any host):
//! any text is clients or a one-line refusal naming the line, never a
//! panic; and no word it keeps could break the launch file (empty, white
//! space, a NUL, a byte-order mark, a control character).

use ioz::app::fuzzing::parse_clients;

/// One input of the fuzz target (fuzz_targets/client_file.rs), and of the
/// test over its corpus (tests/e2e/fuzz_corpora.rs).
pub fn check(data: &[u8]) {
    // A file that is not UTF-8 is refused before it is parsed.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_clients("clients", text) {
        Ok(clients) => {
            assert!(!clients.is_empty());
            for c in &clients {
                let words = [
                    Some(&c.host),
                    Some(&c.workdir),
                    Some(&c.ioz),
                    c.test_file.as_ref(),
                ];
                for w in words.into_iter().flatten() {
                    assert!(!w.is_empty(), "an empty word");
                    assert!(
                        !w.chars()
                            .any(|ch| ch.is_whitespace() || ch.is_control() || ch == '\u{feff}'),
                        "a word the launch file cannot carry: {w:?}"
                    );
                }
            }
        }
        Err(e) => assert!(!e.to_string().contains('\n'), "multi-line error: {e}"),
    }
}
