//! How sizes read on the plots: log2 sizes, tick labels.

use crate::model::units::Size;

pub(super) fn lg(bytes: u64) -> f64 {
    (bytes.max(1) as f64).log2()
}

fn unlg(x: f64) -> u64 {
    x.exp2().round() as u64
}

/// The label of a tick at log2 size `x`: "512B", "64K", "1M", "2G".
pub(super) fn size_tick(x: f64) -> String {
    format!("{:#}", Size(unlg(x)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::plots::axis::nice_top;

    #[test]
    fn sizes_and_values_read_well() {
        assert_eq!(size_tick(lg(64 << 10)), "64K");
        assert_eq!(size_tick(lg(512 << 20)), "512M");
        assert_eq!(size_tick(lg(100 << 10)), "100K");
        assert_eq!(size_tick(lg(512)), "512B");
        assert_eq!(nice_top(0.0), 1.0);
        assert_eq!(nice_top(960.0), 1000.0);
        assert!(nice_top(1001.0) >= 1001.0);
    }
}
