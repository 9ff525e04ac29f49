//! The command line the user typed under `-+m`, carried to the ranks in one
//! variable of the launch file: rank 0 shows and saves it as "Command line
//! used", where the ranks' own command line (without `-+m FILE`, its result
//! paths made absolute) would say what no one typed. A launch file cannot
//! carry white space in a value, so each argument is percent-encoded (every
//! byte but letters, digits and `-_./=+:@`) and the arguments are joined
//! by commas.

/// The variable that holds it.
pub(crate) const TYPED_COMMAND_VARIABLE: &str = "IOZ_TYPED_COMMAND";

/// Bytes that stand for themselves.
fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-_./=+:@".contains(&b)
}

/// `args` as one word with no white space, comma or percent sign unencoded.
pub(crate) fn encode(args: &[String]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        for &b in a.as_bytes() {
            if plain(b) {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// The arguments `word` encodes; `None` unless [`encode`] made it.
#[cfg_attr(
    all(not(feature = "mpi"), not(test)),
    expect(dead_code, reason = "read by the MPI build's ranks (rank.rs)")
)]
pub(crate) fn decode(word: &str) -> Option<Vec<String>> {
    word.split(',')
        .map(|arg| {
            let bytes = arg.as_bytes();
            let mut out = Vec::with_capacity(bytes.len());
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i] == b'%' {
                    let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                    out.push(u8::from_str_radix(hex, 16).ok()?);
                    i += 3;
                } else if plain(bytes[i]) {
                    out.push(bytes[i]);
                    i += 1;
                } else {
                    return None;
                }
            }
            String::from_utf8(out).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_command_line_comes_back_whole() {
        let args: Vec<String> = ["ioz", "-+m", "my clients", "-t", "2", "--json", "r,1%.json"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let word = encode(&args);
        assert!(!word.contains(char::is_whitespace), "{word}");
        assert_eq!(word, "ioz,-+m,my%20clients,-t,2,--json,r%2C1%25.json");
        assert_eq!(decode(&word), Some(args));
        assert_eq!(decode(&encode(&["é\t\n".to_string()])).unwrap(), ["é\t\n"]);
        // Not ours: refused, never half read.
        for bad in ["a b", "%4", "%zz", "a;b", "%FF"] {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}
