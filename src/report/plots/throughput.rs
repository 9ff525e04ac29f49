//! Throughput-mode plots: a pass's rate over its worker counts, or each
//! worker's rate when it ran one count.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{TickedAxis, nice_top};
use super::labels::{compact, human_size};
use super::regions::Regions;
use super::text::{Typesetter, style};
use super::two_d::chart_2d;
use super::{DrawResult, LINE_COLOR, REGION_COLORS};
use crate::model::result::{PhaseResult, RunResult};
use crate::model::workload::Pass;

/// A throughput-mode pass: over its worker counts when it ran several, else
/// each worker's rate. Returns the caption lines.
pub(super) fn draw_throughput<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    result: &RunResult,
    pass: Pass,
    regions: &Regions,
    unit: &str,
) -> DrawResult<Vec<String>, DB> {
    let u = result.config.unit;
    let phases: Vec<&PhaseResult> = result
        .throughput
        .iter()
        .filter(|p| p.pass == pass)
        .collect();
    let mut counts: Vec<u32> = phases.iter().map(|p| p.workers).collect();
    counts.sort_unstable();
    counts.dedup();
    let first = phases[0];
    let noun = if first.threads { "thread" } else { "process" };
    let mut notes = vec![format!(
        "Each {noun}: file size {}, record size {}.",
        human_size(first.file_bytes),
        human_size(first.record_bytes)
    )];
    if counts.len() > 1 {
        // The last phase of each worker count (a run repeats none, normally).
        let rows: Vec<(f64, f64, f64)> = counts
            .iter()
            .filter_map(|&n| {
                let p = phases.iter().rev().find(|p| p.workers == n)?;
                Some((f64::from(n), p.children_see(u), p.parent_sees(u)))
            })
            .collect();
        let top = nice_top(rows.iter().map(|r| r.1.max(r.2)).fold(0.0, f64::max));
        let x_axis = TickedAxis::new(rows.iter().map(|r| r.0).collect(), 0.5);
        let count_label = |x: f64| format!("{x:.0}");
        let title = if first.threads {
            "Threads"
        } else {
            "Processes"
        };
        let chart = chart_2d(area, ts, x_axis, &count_label, top, title, unit)?;
        let plot = chart.plotting_area();
        let series = [
            (
                "children see",
                LINE_COLOR,
                rows.iter().map(|r| (r.0, r.1)).collect::<Vec<_>>(),
            ),
            (
                "parent sees",
                REGION_COLORS[0],
                rows.iter().map(|r| (r.0, r.2)).collect(),
            ),
        ];
        for (k, (name, color, points)) in series.iter().enumerate() {
            plot.draw(&PathElement::new(points.clone(), color.stroke_width(3)))?;
            for &p in points {
                plot.draw(&Circle::new(p, 5, color.filled()))?;
            }
            let x0 = rows[0].0 - 0.5;
            let y = 20 + 26 * k as i32;
            plot.draw(
                &(EmptyElement::at((x0, top))
                    + PathElement::new(vec![(20, y), (50, y)], color.stroke_width(3))),
            )?;
            ts.text(
                plot,
                (x0, top),
                (58, y),
                name,
                &style(16, BLACK, HPos::Left, VPos::Center),
            )?;
        }
    } else {
        let phase = phases[phases.len() - 1];
        let rates: Vec<f64> = phase.results.iter().map(|w| w.rate(u)).collect();
        let top = nice_top(rates.iter().copied().fold(0.0, f64::max));
        let x_axis = TickedAxis::new((0..rates.len()).map(|i| i as f64).collect(), 0.6);
        let worker_label = |x: f64| format!("{x:.0}");
        let title = format!(
            "{} (of {})",
            if phase.threads { "Thread" } else { "Process" },
            phase.workers
        );
        let chart = chart_2d(area, ts, x_axis, &worker_label, top, &title, unit)?;
        let plot = chart.plotting_area();
        for (i, &r) in rates.iter().enumerate() {
            let x = i as f64;
            plot.draw(&Rectangle::new(
                [(x - 0.3, 0.0), (x + 0.3, r)],
                LINE_COLOR.filled(),
            ))?;
            if rates.len() <= 16 {
                ts.text(
                    plot,
                    (x, r),
                    (0, -6),
                    &compact(r),
                    &style(14, BLACK, HPos::Center, VPos::Bottom),
                )?;
            }
        }
        notes.push(format!(
            "Children see {} {unit}, parent sees {} {unit}.",
            compact(phase.children_see(u)),
            compact(phase.parent_sees(u))
        ));
    }
    let total = first.file_bytes * u64::from(counts.last().copied().unwrap_or(1));
    if let Some(region) = regions.region_of(total) {
        notes[0].push_str(&format!(
            " All files together, up to {}: {region} region.",
            human_size(total)
        ));
    }
    Ok(notes)
}
