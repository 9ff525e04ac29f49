//! Numbers on the command line: sizes with IOzone's k/m/g suffixes, plain
//! counts, and durations with a unit (`--interval 100ms`).
//!
//! IOzone reads numbers with `atoi`, so garbage silently becomes a default. ioz
//! refuses anything that is not a whole positive number in range.

use crate::model::units::KIB;

/// Parses a size the IOzone way: plain numbers are kB; `k`, `m`, `g` (either case)
/// scale by 1, 1024 and 1024² kB. Returns bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let (digits, scale_kb) = match text.char_indices().last() {
        None => return Err("an empty value is not a size".to_string()),
        Some((i, c)) => match c.to_ascii_lowercase() {
            'k' => (&text[..i], 1u64),
            'm' => (&text[..i], 1024),
            'g' => (&text[..i], 1024 * 1024),
            c if c.is_ascii_digit() => (text, 1),
            _ => {
                return Err(format!(
                    "'{text}' is not a size (a whole number of kB, or with a k, m or g suffix)"
                ));
            }
        },
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "'{text}' is not a size (a whole number of kB, or with a k, m or g suffix)"
        ));
    }
    let count = parse_count(digits).map_err(|_| format!("'{text}' is too large"))?;
    if count == 0 {
        return Err(format!("'{text}' is zero; a size must be positive"));
    }
    count
        .checked_mul(scale_kb)
        .and_then(|kb| kb.checked_mul(KIB))
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// Parses a record size: a size as [`parse_size`] reads it, or — an ioz
/// extension for latency studies — a number of bytes with a `b` suffix (`8b`).
pub fn parse_record_size(text: &str) -> Result<u64, String> {
    match text.strip_suffix(['b', 'B']) {
        Some(digits) => match parse_count(digits) {
            Ok(0) => Err(format!("'{text}' is zero; a size must be positive")),
            Ok(n) => Ok(n),
            Err(_) => Err(format!(
                "'{text}' is not a size (bytes with a b suffix, or kB with an optional k, m or g)"
            )),
        },
        None => parse_size(text),
    }
}

/// Parses a number of bytes as fileop reads `-s`: plain bytes, or 1024 or
/// 1024² of them with a `k` or `m` suffix (either case); 0 is allowed.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let not_bytes =
        || format!("'{text}' is not a size (a whole number of bytes, or with a k or m suffix)");
    let (digits, scale) = match text.char_indices().last() {
        None => return Err("an empty value is not a size".to_string()),
        Some((i, c)) => match c.to_ascii_lowercase() {
            'k' => (&text[..i], KIB),
            'm' => (&text[..i], KIB * KIB),
            c if c.is_ascii_digit() => (text, 1),
            _ => return Err(not_bytes()),
        },
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(not_bytes());
    }
    parse_count(digits)
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// Parses a non-negative whole number (no sign, no suffix).
pub fn parse_count(text: &str) -> Result<u64, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("'{text}' is not a whole non-negative number"));
    }
    text.parse::<u64>()
        .map_err(|_| format!("'{text}' is too large"))
}

/// The units a duration is given in, with their length in ns; a longer
/// suffix before the one it ends with ("ms" before "s").
const DURATION_UNITS: [(&str, u64); 4] = [
    ("min", 60_000_000_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("h", 3_600_000_000_000),
];

/// Parses a duration: a whole number with a unit (`100ms`, `1s`, `5min`,
/// `1h`). Returns ns.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let not_one =
        || format!("'{text}' is not a duration (a whole number with ms, s, min or h: 100ms, 1s)");
    let (digits, unit_ns) = DURATION_UNITS
        .iter()
        .find_map(|&(unit, ns)| Some((text.strip_suffix(unit)?, ns)))
        .ok_or_else(not_one)?;
    let count = parse_count(digits).map_err(|_| not_one())?;
    count
        .checked_mul(unit_ns)
        .ok_or_else(|| format!("'{text}' is too long"))
}

/// A duration in the largest unit that holds it whole (`10ms`, `1h`), as
/// [`parse_duration`] reads it.
pub fn duration_text(ns: u64) -> String {
    let (unit, unit_ns) = DURATION_UNITS
        .iter()
        .filter(|&&(_, unit_ns)| ns.is_multiple_of(unit_ns))
        .max_by_key(|&&(_, unit_ns)| unit_ns)
        .copied()
        .unwrap_or(("ms", 1_000_000));
    format!("{}{unit}", ns / unit_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_a_unit() {
        assert_eq!(parse_duration("100ms"), Ok(100_000_000));
        assert_eq!(parse_duration("1s"), Ok(1_000_000_000));
        assert_eq!(parse_duration("2min"), Ok(120_000_000_000));
        assert_eq!(parse_duration("1h"), Ok(3_600_000_000_000));
        for bad in ["", "100", "1.5s", "ms", "-1s", "10 ms", "1d", "s1"] {
            assert!(parse_duration(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(
            parse_duration("99999999999999h")
                .unwrap_err()
                .contains("too long")
        );
        assert_eq!(duration_text(10_000_000), "10ms");
        assert_eq!(duration_text(3_600_000_000_000), "1h");
        assert_eq!(duration_text(1_500_000_000), "1500ms");
    }

    #[test]
    fn bytes_are_plain_or_scaled_by_k_and_m() {
        assert_eq!(parse_bytes("4k"), Ok(4096));
        assert_eq!(parse_bytes("4K"), Ok(4096));
        assert_eq!(parse_bytes("1m"), Ok(1 << 20));
        assert_eq!(parse_bytes("3901"), Ok(3901));
        assert_eq!(parse_bytes("0"), Ok(0));
        for bad in ["", "k", "4g", "-1", "1.5k", "x"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
        assert!(parse_bytes("99999999999999999999").is_err());
    }

    #[test]
    fn plain_numbers_are_kilobytes() {
        assert_eq!(parse_size("64"), Ok(64 * 1024));
        assert_eq!(parse_size("1"), Ok(1024));
    }

    #[test]
    fn suffixes_scale_by_powers_of_1024() {
        assert_eq!(parse_size("64k"), Ok(64 * 1024));
        assert_eq!(parse_size("64K"), Ok(64 * 1024));
        assert_eq!(parse_size("4m"), Ok(4 << 20));
        assert_eq!(parse_size("4M"), Ok(4 << 20));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
    }

    #[test]
    fn garbage_zero_negative_and_overflow_are_refused() {
        for bad in [
            "", "0", "0k", "12q", "-5", "1.5m", "k", "m4", " 4", "4 k", "+4",
        ] {
            assert!(parse_size(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(parse_size("99999999999999999999").is_err());
        assert!(parse_size("18014398509481984g").is_err());
        assert!(parse_size("0").unwrap_err().contains("zero"));
    }

    #[test]
    fn record_sizes_may_be_given_in_bytes() {
        assert_eq!(parse_record_size("8b"), Ok(8));
        assert_eq!(parse_record_size("512B"), Ok(512));
        assert_eq!(parse_record_size("4k"), Ok(4096));
        assert!(parse_record_size("0b").is_err());
        assert!(parse_record_size("xb").is_err());
        assert!(parse_record_size("b").is_err());
    }

    #[test]
    fn counts_are_plain_digits() {
        assert_eq!(parse_count("17"), Ok(17));
        assert_eq!(parse_count("0"), Ok(0));
        assert!(parse_count("-1").is_err());
        assert!(parse_count("3x").is_err());
        assert!(parse_count("").is_err());
    }
}
