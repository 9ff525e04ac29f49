//! `--interval` in the HTML report: what happened during each pass. For
//! each pass of single and auto mode (the cell the latency section shows:
//! the largest file at its smallest record; a line per run), and for each
//! phase of throughput mode (a line per worker and their sum), the rate in
//! every interval as a step, with the page cache's Dirty and Writeback at
//! each interval's end on a second axis (and the kernel's dirty limit,
//! when the curve comes near it); with `--latency`, p50 and p99 in every
//! interval. Drawn with the web pages' kit (report::web).

use std::fmt::Write;

use crate::model::config::OutputUnit;
use crate::model::environment::Environment;
use crate::model::intervals::{CacheSample, Interval, dirty_limit};
use crate::model::result::RunResult;
use crate::model::workload::Pass;
use crate::report::plots::{OverTime, TimeLine, of_pass, of_phase};
use crate::report::web::{
    CacheCurve, StepLine, Svg, esc, latency_over_time, ordered, rate_over_time, series,
};

/// The page cache's curves in greys and a dark brown, which no worker's
/// line takes (neither the spectrum nor the colour map has them).
const DIRTY: &str = "#636363";
const WRITEBACK: &str = "#969696";
const HELD: &str = "#543005";

/// The section, empty without intervals.
pub(super) fn intervals_section(h: &mut String, result: &RunResult) {
    let Some(interval_ns) = result.config.interval_ns.filter(|_| result.has_intervals()) else {
        return;
    };
    h.push_str("<section id=\"over-time\">\n<h2>Over time</h2>\n");
    let _ = writeln!(
        h,
        "<p>Each pass in intervals of {} (<code>--interval</code>): the rate of each interval \
         as a step over it; the page cache's Dirty and Writeback (<code>/proc/meminfo</code>) \
         when each ended, on the right axis. An interval ends at the first operation \
         boundary after its time is up, so its length is its own; they add up exactly to \
         the pass. When no operation completes, one in flight, the interval ends all the \
         same at its time with nothing in it: a stall, shaded, the rate's line broken \
         over it. <code>--interval-csv</code> holds every number.</p>",
        esc(&span_words(interval_ns))
    );
    let unit = result.config.unit;
    let mut passes: Vec<Pass> = Vec::new();
    for m in result.cells.iter().flat_map(|c| &c.measurements) {
        if !m.intervals.is_empty() && !passes.contains(&m.pass) {
            passes.push(m.pass);
        }
    }
    let views = passes
        .into_iter()
        .filter_map(|pass| of_pass(result, pass))
        .chain(
            result
                .throughput
                .iter()
                .filter(|p| !p.intervals.is_empty())
                .map(of_phase),
        );
    for view in views {
        let _ = writeln!(h, "<h3>{}</h3>", esc(&view.title));
        charts(h, &view, (unit, &result.environment));
    }
    h.push_str("</section>\n");
}

/// An interval's length in words: "100 ms", "1 s", "2 min".
fn span_words(ns: u64) -> String {
    match ns {
        ns if ns % 60_000_000_000 == 0 => format!("{} min", ns / 60_000_000_000),
        ns if ns % 1_000_000_000 == 0 => format!("{} s", ns / 1_000_000_000),
        ns => format!("{} ms", ns as f64 / 1e6),
    }
}

fn figure(h: &mut String, svg: Svg, caption: &str) {
    let _ = writeln!(
        h,
        "<figure class=\"chart wide\">{}<figcaption>{}</figcaption></figure>",
        svg.finish(),
        esc(caption)
    );
}

/// A line's colour and width: the phase's sum dark and heavy, else one
/// of the ordered lines' (a pass's one line, the run's blue).
fn look(view: &OverTime, k: usize) -> (String, f64) {
    let n = view.lines.len();
    match &view.lines[k] {
        TimeLine { sum: true, .. } => (series(0).to_string(), 2.6),
        _ if n == 1 => (series(1).to_string(), 2.0),
        _ if view.lines.iter().any(|l| l.sum) => (ordered(k, n), 1.2),
        _ => (ordered(k, n), 2.0),
    }
}

/// The view's charts: its rates with the page cache, then (--latency) the
/// percentiles of a pass's runs or of a phase's sum.
fn charts(h: &mut String, view: &OverTime, (unit, env): (OutputUnit, &Environment)) {
    let looks: Vec<(String, f64)> = (0..view.lines.len()).map(|k| look(view, k)).collect();
    let lines: Vec<StepLine> = view
        .lines
        .iter()
        .zip(&looks)
        .map(|(l, (colour, width))| StepLine {
            label: &l.label,
            colour,
            width: *width,
            filled: l.sum || view.lines.len() == 1,
            intervals: l.intervals,
        })
        .collect();
    let cache = cache_curves(view.cache, "");
    let limit = dirty_limit(env);
    let (svg, limited) = rate_over_time(
        &view.title,
        &lines,
        &cache,
        unit,
        limit.as_ref().map(|l| l.0 as f64),
    );
    let mut caption = format!("{}: the rate in each interval, a step over it", view.title);
    if view.lines.iter().any(|l| l.sum) {
        // Seen in a 4-worker write: the sum at zero under four busy lines.
        caption.push_str(
            "; all workers: the intervals that ended in each span of the interval, added (a \
             span in which every worker was inside one operation shows none)",
        );
    }
    if !cache.is_empty() {
        caption.push_str(
            "; Dirty (dashed), Writeback (dotted) and their sum (what the kernel holds to its \
             dirty limit) when each interval ended, right axis",
        );
    }
    if let (true, Some((_, words))) = (limited, &limit) {
        let _ = write!(caption, "; the dirty limit ({words})");
    }
    figure(h, svg, &caption);
    let sum: Vec<StepLine> = match view.lines.iter().position(|l| l.sum) {
        Some(k) => lines.into_iter().skip(k).take(1).collect(),
        None => lines,
    };
    if let Some(svg) = latency_over_time(&view.title, &sum) {
        let caption = format!(
            "{}: p99 (solid) and p50 (dashed) latency of each interval's operations",
            view.title
        );
        figure(h, svg, &caption);
    }
}

/// The page-cache curves of `intervals` (none when they hold no sample),
/// their labels after `prefix`.
pub(crate) fn cache_curves<'a>(intervals: &[Interval], prefix: &str) -> Vec<CacheCurve<'a>> {
    let samples: Vec<(f64, CacheSample)> = intervals
        .iter()
        .filter_map(|i| Some((i.end_ns() as f64, i.cache?)))
        .collect();
    if samples.is_empty() {
        return Vec::new();
    }
    vec![
        CacheCurve {
            label: format!("{prefix}Dirty"),
            colour: DIRTY,
            dash: Some("6 3"),
            points: samples
                .iter()
                .map(|(ns, c)| (*ns, c.dirty_bytes as f64))
                .collect(),
        },
        CacheCurve {
            label: format!("{prefix}Writeback"),
            colour: WRITEBACK,
            dash: Some("2 3"),
            points: samples
                .iter()
                .map(|(ns, c)| (*ns, c.writeback_bytes as f64))
                .collect(),
        },
        // What the kernel holds to its dirty limit.
        CacheCurve {
            label: format!("{prefix}Dirty+Writeback"),
            colour: HELD,
            dash: None,
            points: samples
                .iter()
                .map(|(ns, c)| (*ns, (c.dirty_bytes + c.writeback_bytes) as f64))
                .collect(),
        },
    ]
}
