//! `--interval`'s view of a pass (`<pass>-over-time.png`/`.svg`, and the
//! HTML report's charts, which take their lines from here): the rate of
//! every interval as a step over it, with the page cache's Dirty and
//! Writeback at each interval's end on a second axis. Single and auto
//! mode: the cell with the largest file at its smallest record, a line per
//! run; throughput mode: the phase with the most workers (its first run), a
//! line per worker and one for their sum.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{TickedAxis, nice_top, time_ticks, value_ticks};
use super::lines::line_color;
use super::scale::{ValueScale, number};
use super::text::{Typesetter, style};
use super::two_d::chart_2d;
use super::{DrawResult, LINE_COLOR, TEXT_GREY};
use crate::model::config::OutputUnit;
use crate::model::intervals::{Interval, between_stalls, dirty_limit, measured_runs, usual};
use crate::model::result::{Measurement, PhaseResult, RunResult};
use crate::model::units::Size;
use crate::model::workload::Pass;

/// The page cache in greys and a dark brown, which no worker's line takes
/// (the lines' stops never mix to them; the HTML report's, html/intervals.rs).
const DIRTY: RGBColor = RGBColor(99, 99, 99);
const WRITEBACK: RGBColor = RGBColor(150, 150, 150);
/// Dirty + Writeback: what the kernel holds to its dirty limit.
const HELD: RGBColor = RGBColor(84, 48, 5);
const LIMIT: RGBColor = RGBColor(180, 35, 24);
/// A stall's shading (the HTML report's too).
const STALL: RGBColor = RGBColor(253, 184, 99);

/// One line of an over-time view.
pub struct TimeLine<'a> {
    pub label: String,
    /// The phase's sum (drawn heavier), rather than one run or worker.
    pub sum: bool,
    pub intervals: &'a [Interval],
}

/// What an over-time view draws: its lines, and the intervals whose page
/// cache it shows.
pub struct OverTime<'a> {
    /// What it is of: "write, file 64 MiB, record 4 KiB".
    pub title: String,
    pub lines: Vec<TimeLine<'a>>,
    pub cache: &'a [Interval],
}

/// Single and auto mode: `pass`'s intervals in the cell with the largest
/// file at its smallest record, a line per run.
pub fn of_pass(result: &RunResult, pass: Pass) -> Option<OverTime<'_>> {
    let of_pass = || {
        result
            .cells
            .iter()
            .flat_map(|c| &c.measurements)
            .filter(move |m| m.pass == pass && !m.intervals.is_empty())
    };
    let chosen = of_pass().max_by_key(|m| (m.file_bytes, std::cmp::Reverse(m.record_bytes)))?;
    let cell = (chosen.file_bytes, chosen.record_bytes);
    let runs: Vec<&Measurement> = of_pass()
        .filter(|m| (m.file_bytes, m.record_bytes) == cell)
        .collect();
    let lines = runs
        .iter()
        .map(|m| TimeLine {
            label: if runs.len() > 1 {
                format!("run {}", m.run + 1)
            } else {
                pass.name().to_string()
            },
            sum: false,
            intervals: &m.intervals,
        })
        .collect();
    Some(OverTime {
        title: format!(
            "{}, file {}, record {}",
            pass.name(),
            Size(cell.0),
            Size(cell.1)
        ),
        lines,
        cache: &runs[0].intervals,
    })
}

/// Throughput mode: a phase's workers, a line each, and their sum.
pub fn of_phase(phase: &PhaseResult) -> OverTime<'_> {
    let mut lines: Vec<TimeLine> = phase
        .results
        .iter()
        .map(|w| TimeLine {
            label: match &w.client {
                Some(c) => format!("worker {} (rank {})", w.worker, c.rank),
                None => format!("worker {}", w.worker),
            },
            sum: false,
            intervals: &w.intervals,
        })
        .collect();
    lines.push(TimeLine {
        label: "all workers".to_string(),
        sum: true,
        intervals: &phase.intervals,
    });
    let mut title = format!(
        "{}, {} workers, file {} each, record {}",
        phase.pass.name(),
        phase.workers,
        Size(phase.file_bytes),
        Size(phase.record_bytes)
    );
    if phase.run > 0 {
        title.push_str(&format!(" (run {})", phase.run + 1));
    }
    OverTime {
        title,
        lines,
        cache: &phase.intervals,
    }
}

/// The view of `pass` a plot file draws.
pub(super) fn of_plotted_pass(result: &RunResult, pass: Pass) -> Option<OverTime<'_>> {
    if result.throughput.is_empty() {
        return of_pass(result, pass);
    }
    let most = result
        .throughput
        .iter()
        .filter(|p| p.pass == pass && !p.intervals.is_empty())
        .max_by_key(|p| (p.workers, std::cmp::Reverse(p.run)))?;
    Some(of_phase(most))
}

/// An interval's rate in the run's unit.
pub fn rate(i: &Interval, unit: OutputUnit) -> f64 {
    match unit {
        OutputUnit::KbPerSec => i.kb_per_sec(),
        OutputUnit::OpsPerSec => i.ops_per_sec(),
        OutputUnit::MicrosPerOp if i.ops == 0 => 0.0,
        OutputUnit::MicrosPerOp => i.length_ns as f64 / 1e3 / i.ops as f64,
    }
}

/// Where the view ends: its last interval's end, ns.
pub fn end_ns(view: &OverTime) -> u64 {
    view.lines
        .iter()
        .filter_map(|l| l.intervals.last())
        .map(Interval::end_ns)
        .max()
        .unwrap_or(1)
        .max(1)
}

/// The value scale of the view: over every interval's rate.
pub(super) fn scale_of(result: &RunResult, pass: Pass) -> Option<ValueScale> {
    let view = of_plotted_pass(result, pass)?;
    let unit = result.config.unit;
    let rates: Vec<f64> = view
        .lines
        .iter()
        .flat_map(|l| usual(l.intervals))
        .map(|i| rate(i, unit))
        .collect();
    Some(ValueScale::over(unit, rates, false))
}

/// The notes under the chart.
pub(super) fn notes(result: &RunResult, pass: Pass) -> Vec<String> {
    let Some(view) = of_plotted_pass(result, pass) else {
        return vec!["No intervals for this pass (the run ended before it).".into()];
    };
    let mut notes = vec![format!(
        "{}: the rate in each interval of {} ms, a step over it.",
        view.title,
        result.config.interval_ns.unwrap_or(0) as f64 / 1e6
    )];
    if view
        .lines
        .iter()
        .any(|l| l.intervals.iter().any(Interval::stalled))
    {
        notes.push(
            "Shaded: a stall, an interval in which no operation completed (one was in flight)."
                .into(),
        );
    }
    if view.cache.iter().any(|i| i.cache.is_some()) {
        notes.push(
            "Dirty (dashed), Writeback (dotted) and their sum (what the kernel holds to its dirty \
             limit) of /proc/meminfo when each interval ended, on the right axis."
                .into(),
        );
    }
    notes
}

/// The chart of the over-time view of `pass`.
pub(super) fn draw_over_time<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    result: &RunResult,
    pass: Pass,
    scale: &ValueScale,
) -> DrawResult<(), DB> {
    let Some(view) = of_plotted_pass(result, pass) else {
        return Ok(());
    };
    let unit = result.config.unit;
    let end = end_ns(&view) as f64 / 1e9;
    let x_axis = TickedAxis::new(time_ticks(end), 0.0);
    let seconds = |x: f64| number(x);
    let chart = chart_2d(area, ts, x_axis, &seconds, scale, "Time into the pass (s)")?;
    let plot = chart.plotting_area();
    let n = view.lines.len();
    for (k, line) in view.lines.iter().enumerate() {
        let (color, width) = if line.sum {
            (LINE_COLOR, 4)
        } else if n == 1 {
            (LINE_COLOR, 3)
        } else {
            (line_color(k, n.max(2) - 1), 2)
        };
        // A stall (no operation completed) is a shaded gap, not a step.
        let (y0, y1) = (scale.bottom(), scale.top());
        for i in line.intervals.iter().filter(|i| i.stalled()) {
            let (x0, x1) = (i.start_ns as f64 / 1e9, i.end_ns() as f64 / 1e9);
            plot.draw(&Rectangle::new(
                [(x0, y0), (x1, y1)],
                STALL.mix(0.35).filled(),
            ))?;
        }
        for run in between_stalls(line.intervals) {
            let mut points = Vec::with_capacity(2 * run.len());
            for i in run {
                // A short interval's spike past the scale is clipped at its top.
                let Some(y) = scale.y(rate(i, unit)).map(|y| y.min(scale.top())) else {
                    continue;
                };
                points.push((i.start_ns as f64 / 1e9, y));
                points.push((i.end_ns() as f64 / 1e9, y));
            }
            plot.draw(&PathElement::new(points, color.stroke_width(width)))?;
        }
    }
    // The page cache, on its own axis at the right.
    let samples: Vec<(f64, [f64; 3])> = view
        .cache
        .iter()
        .filter_map(|i| {
            let c = i.cache?;
            let (d, w) = (c.dirty_bytes as f64, c.writeback_bytes as f64);
            Some((i.end_ns() as f64 / 1e9, [d, w, d + w]))
        })
        .collect();
    let limit = dirty_limit(&result.environment).map(|(bytes, _)| bytes as f64);
    if !samples.is_empty() {
        let most = samples.iter().map(|s| s.1[2]).fold(0.0, f64::max);
        // The limit when the curve comes near it (else it would flatten it).
        let limit = limit.filter(|&l| most >= 0.5 * l && most <= 2.0 * l);
        let mib = most.max(limit.unwrap_or(0.0)) / 1048576.0;
        let top = nice_top(mib.max(1.0));
        let (y0, y1) = (scale.bottom(), scale.top());
        let y_of = |bytes: f64| y0 + (y1 - y0) * (bytes / 1048576.0 / top);
        // Dashed (Dirty) and dotted (Writeback), as on the HTML report,
        // so that no line of a worker reads as one of them.
        for (color, k, dash) in [
            (DIRTY, 0, (9, 5)),
            (WRITEBACK, 1, (3, 4)),
            (HELD, 2, (0, 0)),
        ] {
            // Broken where no sample was taken for a while.
            for run in measured_runs(&samples) {
                let points: Vec<(f64, f64)> = run.iter().map(|s| (s.0, y_of(s.1[k]))).collect();
                if dash.0 == 0 {
                    plot.draw(&PathElement::new(points, color.stroke_width(2)))?;
                } else {
                    plot.draw(&DashedPathElement::new(
                        points,
                        dash.0,
                        dash.1,
                        color.stroke_width(2),
                    ))?;
                }
            }
        }
        if let Some(bytes) = limit {
            let (x0, x1) = (plot.get_x_range().start, plot.get_x_range().end);
            let y = y_of(bytes);
            plot.draw(&PathElement::new(
                vec![(x0, y), (x1, y)],
                LIMIT.stroke_width(1),
            ))?;
            ts.text(
                plot,
                (x1, y),
                (-8, -4),
                &format!("dirty limit {}", Size(bytes as u64)),
                &style(14, LIMIT, HPos::Right, VPos::Bottom),
            )?;
        }
        let x1 = plot.get_x_range().end;
        let tick = style(14, TEXT_GREY, HPos::Left, VPos::Center);
        for t in value_ticks(top) {
            ts.text(plot, (x1, y_of(t * 1048576.0)), (8, 0), &number(t), &tick)?;
        }
        ts.text(
            plot,
            (x1, y1),
            (8, -12),
            "MiB",
            &style(15, TEXT_GREY, HPos::Left, VPos::Bottom),
        )?;
    }
    // The legend, top left inside the chart.
    let x0 = plot.get_x_range().start;
    let y1 = plot.get_y_range().end;
    let mut keys: Vec<(RGBColor, String)> = view
        .lines
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let color = if l.sum || n == 1 {
                LINE_COLOR
            } else {
                line_color(k, n.max(2) - 1)
            };
            (color, l.label.clone())
        })
        .collect();
    if view
        .lines
        .iter()
        .any(|l| l.intervals.iter().any(Interval::stalled))
    {
        keys.push((STALL, "stalled: no operation completed".into()));
    }
    if !samples.is_empty() {
        keys.push((DIRTY, "Dirty (dashed)".into()));
        keys.push((WRITEBACK, "Writeback (dotted)".into()));
        keys.push((HELD, "Dirty + Writeback".into()));
    }
    for (k, (color, label)) in keys.iter().enumerate() {
        let dy = 14 + 20 * k as i32;
        plot.draw(
            &(EmptyElement::at((x0, y1))
                + PathElement::new(vec![(12, dy), (36, dy)], color.stroke_width(3))),
        )?;
        ts.text(
            plot,
            (x0, y1),
            (42, dy),
            label,
            &style(14, BLACK, HPos::Left, VPos::Center),
        )?;
    }
    Ok(())
}
