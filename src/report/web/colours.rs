//! The colours of the web pages' charts: one per input of a comparison
//! (the baseline's grey first), a spectrum for many lines of one chart, and
//! the ramps of heights and ratios (a verdict's colours are compare's:
//! report/compare/look.rs).

use crate::report::plots::value_colour;

/// One colour per input: the baseline first.
pub const SERIES: [&str; 8] = [
    "#4d4d4d", "#2166ac", "#d6604d", "#1b7837", "#762a83", "#e08214", "#35978f", "#c51b7d",
];

/// The colour of the `i`-th input.
pub fn series(i: usize) -> &'static str {
    SERIES[i % SERIES.len()]
}

/// From purple to red, for the many lines of one chart (a line per record
/// size, per phase).
const SPECTRUM: [&str; 8] = [
    "#5e3c99", "#3168be", "#1796a0", "#34a048", "#a09614", "#eb8214", "#d73228", "#8c1e3c",
];

/// The colour of the `k`-th line: three steps along the spectrum from the
/// last, so that neighbouring lines differ.
pub fn spectrum(k: usize) -> &'static str {
    SPECTRUM[(k * 3) % SPECTRUM.len()]
}

/// A height's colour (0 … 1): the plots' colour map, deep purple for the
/// lowest through green to yellow for the highest, as `--plots` colours
/// its surfaces.
pub fn height_colour(t: f64) -> String {
    value_colour(t)
}

/// The colour of the `k`-th of `n` ordered lines (worker counts, sizes):
/// the spectrum's, stepping so that neighbours differ, while it has enough;
/// past that, evenly along the plots' colour map (short of its palest end).
pub fn ordered(k: usize, n: usize) -> String {
    if n <= SPECTRUM.len() {
        spectrum(k).to_string()
    } else {
        value_colour(0.85 * k as f64 / (n - 1) as f64)
    }
}

/// A ratio's colour by how much better (`t` up to 1: green) or worse
/// (down to -1: red) it is, white at 0.
pub fn better_worse_colour(t: f64) -> String {
    let t = t.clamp(-1.0, 1.0);
    let k = (255.0 * (1.0 - t.abs())).round() as u8;
    if t >= 0.0 {
        format!("#{k:02x}ff{k:02x}")
    } else {
        format!("#ff{k:02x}{k:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramps_run_between_their_ends() {
        // The plots' viridis: the lowest deep purple, the highest yellow.
        assert_eq!(height_colour(0.0), "#440154");
        assert_eq!(height_colour(1.0), "#fee825");
        assert_eq!(height_colour(7.0), height_colour(1.0));
        assert_eq!(better_worse_colour(0.0), "#ffffff");
        assert_eq!(better_worse_colour(1.0), "#00ff00");
        assert_eq!(better_worse_colour(-0.5), "#ff8080");
        assert_eq!(better_worse_colour(-3.0), "#ff0000");
    }

    #[test]
    fn many_ordered_lines_each_have_a_colour_of_their_own() {
        let twelve: std::collections::BTreeSet<String> = (0..12).map(|k| ordered(k, 12)).collect();
        assert_eq!(twelve.len(), 12);
        assert_eq!(ordered(1, 4), spectrum(1));
    }

    #[test]
    fn neighbouring_lines_differ_and_eight_are_all_different() {
        let eight: std::collections::BTreeSet<&str> = (0..8).map(spectrum).collect();
        assert_eq!(eight.len(), 8);
        assert_eq!(series(0), "#4d4d4d");
        assert_eq!(series(9), series(1));
    }
}
