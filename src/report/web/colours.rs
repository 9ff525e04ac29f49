//! The colours of the web pages' charts: one per input of a comparison
//! (the baseline's grey first), one per verdict, a spectrum for many lines
//! of one chart, and the ramps of heights and ratios.

use crate::analysis::compare::Verdict;

/// One colour per input: the baseline first.
pub const SERIES: [&str; 8] = [
    "#4d4d4d", "#2166ac", "#d6604d", "#1b7837", "#762a83", "#e08214", "#35978f", "#c51b7d",
];

/// The colour of the `i`-th input.
pub fn series(i: usize) -> &'static str {
    SERIES[i % SERIES.len()]
}

pub fn verdict_colour(v: Verdict) -> &'static str {
    match v {
        Verdict::Faster => "#1a9850",
        Verdict::Slower => "#d73027",
        Verdict::Same => "#9e9e9e",
    }
}

/// From purple to red, for the many lines of one chart (a line per record
/// size, per phase).
const SPECTRUM: [&str; 8] = [
    "#5e3c99", "#3168be", "#1796a0", "#34a048", "#a09614", "#eb8214", "#d73228", "#8c1e3c",
];

/// How many lines of one chart the spectrum tells apart.
pub const DISTINCT_LINES: usize = SPECTRUM.len();

/// The colour of the `k`-th line: three steps along the spectrum from the
/// last, so that neighbouring lines differ.
pub fn spectrum(k: usize) -> &'static str {
    SPECTRUM[(k * 3) % SPECTRUM.len()]
}

/// A height's colour (0 … 1), from pale yellow through green to deep purple.
pub fn height_colour(t: f64) -> String {
    let t = t.clamp(0.0, 1.0);
    let (from, to, u) = if t < 0.5 {
        ([253.0, 231.0, 37.0], [53.0, 183.0, 121.0], t * 2.0)
    } else {
        ([53.0, 183.0, 121.0], [68.0, 1.0, 84.0], (t - 0.5) * 2.0)
    };
    let mix = |k: usize| (from[k] + (to[k] - from[k]) * u).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(0), mix(1), mix(2))
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
        assert_eq!(height_colour(0.0), "#fde725");
        assert_eq!(height_colour(0.5), "#35b779");
        assert_eq!(height_colour(1.0), "#440154");
        assert_eq!(height_colour(7.0), "#440154");
        assert_eq!(better_worse_colour(0.0), "#ffffff");
        assert_eq!(better_worse_colour(1.0), "#00ff00");
        assert_eq!(better_worse_colour(-0.5), "#ff8080");
        assert_eq!(better_worse_colour(-3.0), "#ff0000");
    }

    #[test]
    fn neighbouring_lines_differ_and_eight_are_all_different() {
        let eight: std::collections::BTreeSet<&str> = (0..8).map(spectrum).collect();
        assert_eq!(eight.len(), 8);
        assert_eq!(series(0), "#4d4d4d");
        assert_eq!(series(9), series(1));
    }
}
