//! How sizes read on the plots: log2 sizes, tick labels.

use crate::model::units::size_words;

pub(super) fn lg(bytes: u64) -> f64 {
    (bytes.max(1) as f64).log2()
}

fn unlg(x: f64) -> u64 {
    x.exp2().round() as u64
}

/// "64 KiB", "1.5 GiB".
pub fn human_size(bytes: u64) -> String {
    size_words(bytes)
}

/// Tick label of a size: "512B", "64K", "1M", "2G".
fn short_size(bytes: u64) -> String {
    let mut s = human_size(bytes);
    s = s.replace(" bytes", "B").replace(" KiB", "K");
    s.replace(" MiB", "M")
        .replace(" GiB", "G")
        .replace(" TiB", "T")
}

pub(super) fn size_tick(x: f64) -> String {
    short_size(unlg(x))
}

/// A size as the plots' ticks and the HTML grids show it: "512B", "64K", "1M".
pub fn size_label(bytes: u64) -> String {
    short_size(bytes)
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
        assert_eq!(short_size(512), "512B");
        assert_eq!(human_size(3 << 29), "1.5 GiB");
        assert_eq!(nice_top(0.0), 1.0);
        assert_eq!(nice_top(960.0), 1000.0);
        assert!(nice_top(1001.0) >= 1001.0);
    }
}
