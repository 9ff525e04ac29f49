//! What a verdict looks like, in every view of `ioz compare` (the text and
//! its terminal colours, the HTML page, its charts, the spreadsheet) and of
//! `ioz history trend`: the one place a mark or a colour is chosen, and it
//! is chosen from the verdict alone. The band never colours anything: it
//! only makes a difference within it "same" (analysis::compare), so a
//! view can never show green or red where the summary counts none.

use crate::analysis::compare::Verdict;
use crate::report::web::better_worse_colour;

/// A verdict's mark and colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    /// After a ratio in the text: `+` faster, `-` slower, `±` mixed, a
    /// space the same.
    pub mark: char,
    /// Its SGR colour on a terminal.
    pub ansi: &'static str,
    /// A table cell's or a spreadsheet cell's background (light).
    pub fill: &'static str,
    /// A chart's bar, a cell's frame, a verdict's word (strong).
    pub ink: &'static str,
    /// Its class on an HTML page (the verdict's name).
    pub class: &'static str,
}

/// How `v` is shown (see the module).
pub fn look(v: Verdict) -> Look {
    match v {
        Verdict::Faster => Look {
            mark: '+',
            ansi: "32",
            fill: "#c6efce",
            ink: "#1a9850",
            class: "faster",
        },
        Verdict::Slower => Look {
            mark: '-',
            ansi: "31",
            fill: "#ffc7ce",
            ink: "#d73027",
            class: "slower",
        },
        Verdict::Same => Look {
            mark: ' ',
            ansi: "90",
            fill: "#e7e6e6",
            ink: "#9e9e9e",
            class: "same",
        },
        Verdict::Mixed => Look {
            mark: '±',
            ansi: "33",
            fill: "#ffeb9c",
            ink: "#9c6500",
            class: "mixed",
        },
    }
}

/// A cell of a ratio heat grid: the verdict's colour, deeper the further
/// the ratio is from 1 (`log2_gain`: log2 of how much better, ±1 at double
/// or half: the fullest, kept light enough for the ratio written on it);
/// white when the verdict is the same, however far the ratio is.
pub fn heat_fill(v: Verdict, log2_gain: f64) -> String {
    let depth = 0.25 + 0.35 * log2_gain.abs().min(1.0);
    match v {
        Verdict::Faster => better_worse_colour(depth),
        Verdict::Slower => better_worse_colour(-depth),
        Verdict::Same => better_worse_colour(0.0),
        Verdict::Mixed => look(v).fill.to_string(),
    }
}

/// The page's style rules of every verdict's table cells (`td.faster` …),
/// from [`look`].
pub fn verdict_css() -> String {
    [
        Verdict::Faster,
        Verdict::Slower,
        Verdict::Same,
        Verdict::Mixed,
    ]
    .iter()
    .map(|&v| {
        let l = look(v);
        format!("td.{} {{ background: {}; }}\n", l.class, l.fill)
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_same_cell_is_white_however_far_its_ratio() {
        assert_eq!(heat_fill(Verdict::Same, 0.9), "#ffffff");
        assert_ne!(heat_fill(Verdict::Faster, 0.01), "#ffffff");
        assert!(heat_fill(Verdict::Faster, 0.5).contains("ff"));
        // Faster is green (full green channel), slower red.
        assert!(heat_fill(Verdict::Faster, -0.3)[3..5] == *"ff");
        assert!(heat_fill(Verdict::Slower, 0.3)[1..3] == *"ff");
        assert!(verdict_css().contains("td.mixed { background: #ffeb9c; }"));
    }
}
