//! Units: bytes inside, IOzone's kB (1024 bytes) at the edges, and byte
//! counts written for people.

pub const KIB: u64 = 1024;
pub const MIB: u64 = 1024 * KIB;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_well() {
        assert_eq!(human(512), "512 bytes");
        assert_eq!(human(64 << 10), "64.0 KiB");
        assert_eq!(human(3 << 29), "1.5 GiB");
    }
}
