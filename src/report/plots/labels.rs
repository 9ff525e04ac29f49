//! How sizes and values read on the plots: log2 sizes, tick labels, units.

use crate::model::config::OutputUnit;

pub(super) fn lg(bytes: u64) -> f64 {
    (bytes.max(1) as f64).log2()
}

fn unlg(x: f64) -> u64 {
    x.exp2().round() as u64
}

/// "64 KiB", "1.5 GiB".
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[i])
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

/// Tick label of a size: "64K", "1M", "2G".
fn short_size(bytes: u64) -> String {
    let mut s = human_size(bytes);
    s = s.replace(" bytes", "").replace(" KiB", "K");
    s.replace(" MiB", "M")
        .replace(" GiB", "G")
        .replace(" TiB", "T")
}

/// A value with a k/M/G suffix: "2.5M".
pub(super) fn compact(v: f64) -> String {
    let (div, suffix) = match v.abs() {
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e4 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / div;
    // At most three significant digits, and no trailing zeros.
    let digits = if (x - x.round()).abs() < 1e-9 || x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 || (x * 10.0 - (x * 10.0).round()).abs() < 1e-6 {
        1
    } else {
        2
    };
    format!("{x:.digits$}{suffix}")
}

pub(super) fn unit_label(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kB/s",
        OutputUnit::OpsPerSec => "ops/s",
        OutputUnit::MicrosPerOp => "µs/op",
    }
}

pub(super) fn size_tick(x: f64) -> String {
    short_size(unlg(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plots::axis::nice_top;

    #[test]
    fn sizes_and_values_read_well() {
        assert_eq!(short_size(64 << 10), "64K");
        assert_eq!(short_size(512 << 20), "512M");
        assert_eq!(short_size(100 << 10), "100K");
        assert_eq!(human_size(3 << 29), "1.5 GiB");
        assert_eq!(compact(2_500_000.0), "2.5M");
        assert_eq!(compact(800.0), "800");
        assert_eq!(compact(50_000.0), "50k");
        assert_eq!(nice_top(0.0), 1.0);
        assert_eq!(nice_top(960.0), 1000.0);
        assert!(nice_top(1001.0) >= 1001.0);
    }
}
