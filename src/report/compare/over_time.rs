//! `--interval` on ioz compare's page: for each cell the baseline and
//! another input both recorded in intervals (their first runs'), their rates
//! over the pass overlaid, each input's Dirty beside on the right axis — a
//! change that moves the flush cliff shows where it moved. At most
//! [`MOST_CELLS`] cells, in the report's order.

use std::fmt::Write as _;

use super::format::cell_name;
use crate::analysis::compare::Comparison;
use crate::model::intervals::Interval;
use crate::report::web::{CacheCurve, StepLine, esc, latency_over_time, rate_over_time, series};

/// The most cells overlaid (the page stays light; --interval-csv of each
/// run holds the rest).
const MOST_CELLS: usize = 12;

/// The section, empty when no two inputs share a cell with intervals.
pub(super) fn over_time_section(h: &mut String, c: &Comparison, labels: &[String]) {
    let Some(base) = c.series.first() else {
        return;
    };
    let shared: Vec<_> = base
        .keys()
        .filter(|key| c.series[1..].iter().any(|other| other.contains_key(key)))
        .take(MOST_CELLS)
        .collect();
    if shared.is_empty() {
        return;
    }
    h.push_str("<h2 id=\"over-time\">Over time</h2>");
    let _ = write!(
        h,
        "<p class=\"note\">Each input's first run of the cell in its <code>--interval</code> \
         intervals: the rate of each interval as a step over it, and the page cache's Dirty \
         when each ended (dashed, right axis), one colour per input.</p>"
    );
    for key in shared {
        let inputs: Vec<(usize, &[Interval])> = c
            .series
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i, &s.get(key)?[..])))
            .collect();
        let lines: Vec<StepLine> = inputs
            .iter()
            .map(|&(i, intervals)| StepLine {
                label: &labels[i],
                colour: series(i),
                width: 2.0,
                filled: false,
                intervals,
            })
            .collect();
        let dirty: Vec<CacheCurve> = inputs
            .iter()
            .filter_map(|&(i, intervals)| {
                let points: Vec<(f64, f64)> = intervals
                    .iter()
                    .filter_map(|v| Some((v.end_ns() as f64, v.cache?.dirty_bytes as f64)))
                    .collect();
                (!points.is_empty()).then(|| CacheCurve {
                    label: format!("{}: Dirty", labels[i]),
                    colour: series(i),
                    dash: Some("6 3"),
                    points,
                })
            })
            .collect();
        let name = cell_name(key);
        let _ = write!(h, "<h3>{}</h3>", esc(&name));
        let (svg, _) = rate_over_time(&name, &lines, &dirty, c.unit, None);
        figure(
            h,
            &svg.finish(),
            &format!("{name}: each input's rate in each interval"),
        );
        if let Some(svg) = latency_over_time(&name, &lines) {
            figure(
                h,
                &svg.finish(),
                &format!("{name}: p99 (solid) and p50 (dashed) of each interval, per input"),
            );
        }
    }
}

fn figure(h: &mut String, svg: &str, caption: &str) {
    let _ = write!(
        h,
        "<figure class=\"time\">{svg}<figcaption class=\"note\">{}</figcaption></figure>",
        esc(caption)
    );
}
