//! Units: bytes inside, IOzone's kB (1024 bytes) at the edges, and byte
//! counts written for people.

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * KIB;

/// A size in IOzone's kB, as a number a script can read: whole kB as an
/// integer (`64`), any other size as its exact decimal fraction of a kB
/// (`0.0078125` for 8 bytes, `1.46484375` for 1500). A kB is 2^10 bytes, so
/// every fraction ends within 10 decimals: nothing is rounded.
pub fn kb_number(bytes: u64) -> String {
    let (whole, rest) = (bytes / KIB, bytes % KIB);
    if rest == 0 {
        return whole.to_string();
    }
    // rest / 2^10 = rest * 5^10 / 10^10, and rest * 5^10 < 10^10.
    let tenths = format!("{:010}", rest * 9_765_625);
    format!("{whole}.{}", tenths.trim_end_matches('0'))
}

/// A size in kB as a spreadsheet cell holds it: exact, since a fraction of
/// 2^10 is a binary fraction.
pub fn kb_value(bytes: u64) -> f64 {
    bytes as f64 / KIB as f64
}

/// A byte count for people: 1.5 GiB.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A size for people, without a fraction when it is whole: "2 MiB", "1.5 GiB".
pub fn size_words(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} bytes")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kb_numbers_are_exact() {
        assert_eq!(kb_number(0), "0");
        assert_eq!(kb_number(64 << 10), "64");
        assert_eq!(kb_number(8), "0.0078125");
        assert_eq!(kb_number(1), "0.0009765625");
        assert_eq!(kb_number(1023), "0.9990234375");
        assert_eq!(kb_number(1500), "1.46484375");
        assert_eq!(kb_number(512), "0.5");
        for bytes in [1, 7, 8, 100, 512, 1000, 1023, 1500, 4097, (1 << 40) + 3] {
            let parsed: f64 = kb_number(bytes).parse().unwrap();
            assert_eq!(parsed * 1024.0, bytes as f64, "{bytes}");
            assert_eq!(kb_value(bytes), parsed, "{bytes}");
        }
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human(512), "512 bytes");
        assert_eq!(human(64 << 10), "64.0 KiB");
        assert_eq!(human(3 << 29), "1.5 GiB");
    }
}
