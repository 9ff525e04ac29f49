//! Units: bytes inside, IOzone's kB (1024 bytes) at the edges, and byte
//! counts written for people.

use std::fmt;

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

/// A byte count for people, in binary units: ioz's one way to write a size
/// that is not one of IOzone's kB columns. `{}` reads "64 KiB", "1.5 GiB",
/// "512 bytes" (a fraction only when there is one); a precision keeps that
/// many decimals, as the safety messages do ("{:.1}": "64.0 KiB"); the
/// alternate form is the compact label of a chart's tick or a grid's
/// heading ("{:#}": "64K", "1.5G", "512B").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, &str); 5] = [
            ("bytes", "B"),
            ("KiB", "K"),
            ("MiB", "M"),
            ("GiB", "G"),
            ("TiB", "T"),
        ];
        let mut v = self.0 as f64;
        let mut unit = 0;
        while v >= 1024.0 && unit + 1 < UNITS.len() {
            v /= 1024.0;
            unit += 1;
        }
        let (long, short) = UNITS[unit];
        let (name, gap) = if f.alternate() {
            (short, "")
        } else {
            (long, " ")
        };
        match f.precision() {
            _ if unit == 0 => write!(f, "{}{gap}{name}", self.0),
            Some(decimals) => write!(f, "{v:.decimals$}{gap}{name}"),
            None if v.fract() == 0.0 => write!(f, "{v:.0}{gap}{name}"),
            None => write!(f, "{v:.1}{gap}{name}"),
        }
    }
}

/// A unit a latency can be written in (`ioz report --scaling
/// --latency-unit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LatencyUnit {
    Nanoseconds,
    Microseconds,
    Milliseconds,
}

impl LatencyUnit {
    /// The units' words, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["ns", "us", "ms"];

    pub fn named(name: &str) -> Option<LatencyUnit> {
        match name {
            "ns" => Some(LatencyUnit::Nanoseconds),
            "us" => Some(LatencyUnit::Microseconds),
            "ms" => Some(LatencyUnit::Milliseconds),
            _ => None,
        }
    }

    /// The unit a reader takes in at a glance for latencies up to `max_ns`:
    /// the largest under which they read 1 or more.
    pub fn for_largest(max_ns: f64) -> LatencyUnit {
        if max_ns >= 1e6 {
            LatencyUnit::Milliseconds
        } else if max_ns >= 1e3 {
            LatencyUnit::Microseconds
        } else {
            LatencyUnit::Nanoseconds
        }
    }

    /// Nanoseconds in one of this unit.
    pub fn ns(self) -> f64 {
        match self {
            LatencyUnit::Nanoseconds => 1.0,
            LatencyUnit::Microseconds => 1e3,
            LatencyUnit::Milliseconds => 1e6,
        }
    }

    /// Its symbol as the tables print it.
    pub fn symbol(self) -> &'static str {
        match self {
            LatencyUnit::Nanoseconds => "ns",
            LatencyUnit::Microseconds => "µs",
            LatencyUnit::Milliseconds => "ms",
        }
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
    fn a_latency_unit_suits_the_largest_value() {
        assert_eq!(LatencyUnit::for_largest(900.0), LatencyUnit::Nanoseconds);
        assert_eq!(LatencyUnit::for_largest(1500.0), LatencyUnit::Microseconds);
        assert_eq!(LatencyUnit::for_largest(2.5e6), LatencyUnit::Milliseconds);
        for (i, name) in LatencyUnit::NAMES.iter().enumerate() {
            let unit = LatencyUnit::named(name).unwrap();
            assert_eq!(unit.ns(), 1e3f64.powi(i as i32));
        }
        assert_eq!(LatencyUnit::named("s"), None);
    }

    #[test]
    fn sizes_read_well() {
        let all = |b: u64| {
            let s = Size(b);
            [format!("{s}"), format!("{s:.1}"), format!("{s:#}")]
        };
        assert_eq!(all(512), ["512 bytes", "512 bytes", "512B"]);
        assert_eq!(all(0), ["0 bytes", "0 bytes", "0B"]);
        assert_eq!(all(64 << 10), ["64 KiB", "64.0 KiB", "64K"]);
        assert_eq!(all(100 << 10), ["100 KiB", "100.0 KiB", "100K"]);
        assert_eq!(all(3 << 29), ["1.5 GiB", "1.5 GiB", "1.5G"]);
        assert_eq!(all(1536 << 20), ["1.5 GiB", "1.5 GiB", "1.5G"]);
        assert_eq!(all(512 << 20), ["512 MiB", "512.0 MiB", "512M"]);
        assert_eq!(all(1025), ["1.0 KiB", "1.0 KiB", "1.0K"]);
        assert_eq!(all(5 << 40), ["5 TiB", "5.0 TiB", "5T"]);
        assert_eq!(all(3 << 50), ["3072 TiB", "3072.0 TiB", "3072T"]);
        assert_eq!(format!("{:.2}", Size(1_000_000)), "976.56 KiB");
    }
}
