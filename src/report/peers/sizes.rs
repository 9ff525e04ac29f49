//! Sizes as the peers write them: fio's and IOR's options ("64m", "4k",
//! "47008"; fio's default kb_base makes k, m, g powers of 1024, and so do
//! IOR's), IOR's text ("4 MiB", "65536 bytes").

/// A size option: digits, then an optional suffix k, m, g, t, p (any case,
/// with an optional "b" or "ib"), each a power of 1024; `None` when it is
/// not one (a range "4k-16k", a list).
pub(super) fn option_bytes(text: &str) -> Option<u64> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, suffix) = t.split_at(digits);
    let n: u64 = number.parse().ok()?;
    let suffix = suffix.trim().to_ascii_lowercase();
    let suffix = suffix
        .strip_suffix("ib")
        .or_else(|| suffix.strip_suffix('b'))
        .unwrap_or(&suffix);
    let power = match suffix {
        "" => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return None,
    };
    n.checked_mul(1u64.checked_shl(10 * power)?)
}

/// IOR's text sizes: "4 MiB", "65536 bytes", "32 MiB", "2 GiB" (decimals
/// allowed: "1.5 MiB").
pub(super) fn ior_text_bytes(text: &str) -> Option<u64> {
    let mut words = text.split_whitespace();
    let n: f64 = words.next()?.parse().ok()?;
    let unit = words.next().unwrap_or("bytes");
    let scale: f64 = match unit {
        "bytes" | "B" => 1.0,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "GiB" => 1024.0 * 1024.0 * 1024.0,
        "TiB" => 1024.0f64.powi(4),
        _ => return None,
    };
    let bytes = n * scale;
    (bytes.is_finite() && bytes >= 0.0 && bytes.fract() == 0.0 && bytes < 9.0e15)
        .then_some(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_sizes_are_powers_of_1024() {
        assert_eq!(option_bytes("64m"), Some(64 << 20));
        assert_eq!(option_bytes("4k"), Some(4096));
        assert_eq!(option_bytes("4KiB"), Some(4096));
        assert_eq!(option_bytes("16K"), Some(16384));
        assert_eq!(option_bytes("47008"), Some(47008));
        assert_eq!(option_bytes("9920000m"), Some(9_920_000 << 20));
        assert_eq!(option_bytes("1g"), Some(1 << 30));
        assert_eq!(option_bytes("4k-16k"), None);
        assert_eq!(option_bytes("x"), None);
        assert_eq!(option_bytes("99999999999999999999"), None);
        assert_eq!(option_bytes("20000000p"), None, "beyond 64 bits");
    }

    #[test]
    fn ior_text_sizes() {
        assert_eq!(ior_text_bytes("4 MiB"), Some(4 << 20));
        assert_eq!(ior_text_bytes("65536 bytes"), Some(65536));
        assert_eq!(ior_text_bytes("32 MiB"), Some(32 << 20));
        assert_eq!(ior_text_bytes("1.5 KiB"), Some(1536));
        assert_eq!(ior_text_bytes("3 parsecs"), None);
    }
}
