//! Throughput-mode plots: a pass's rate over its worker counts, or each
//! worker's rate when it ran one count.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::TickedAxis;
use super::regions::Regions;
use super::scale::ValueScale;
use super::text::{Typesetter, style, text_width};
use super::two_d::chart_2d;
use super::{DrawResult, LINE_COLOR, REGION_COLORS};
use crate::model::config::OutputUnit;
use crate::model::result::{PhaseResult, RunResult, mean};
use crate::model::units::Size;
use crate::model::workload::Pass;

/// The phases of `pass`, in run order.
fn phases_of(result: &RunResult, pass: Pass) -> Vec<&PhaseResult> {
    result
        .throughput
        .iter()
        .filter(|p| p.pass == pass)
        .collect()
}

/// The worker counts of `phases`, ascending, each with its last phase (a
/// run repeats none, normally).
fn by_count<'a>(phases: &[&'a PhaseResult]) -> Vec<&'a PhaseResult> {
    let mut counts: Vec<u32> = phases.iter().map(|p| p.workers).collect();
    counts.sort_unstable();
    counts.dedup();
    counts
        .iter()
        .filter_map(|&n| phases.iter().rev().find(|p| p.workers == n).copied())
        .collect()
}

/// `figure` of the phase with `p`'s worker count: with `--runs`, the mean
/// over the runs (for one run, its figure).
fn over_runs(
    phases: &[&PhaseResult],
    p: &PhaseResult,
    figure: impl Fn(&PhaseResult) -> f64,
) -> f64 {
    mean(
        phases
            .iter()
            .filter(|q| q.workers == p.workers)
            .map(|q| figure(q)),
    )
}

/// Each worker's rate in the phase with `p`'s worker count, the mean over the runs.
fn worker_rates(phases: &[&PhaseResult], p: &PhaseResult, u: OutputUnit) -> Vec<f64> {
    (0..p.results.len())
        .map(|i| over_runs(phases, p, |q| q.results.get(i).map_or(0.0, |w| w.rate(u))))
        .collect()
}

/// The values the plot of a throughput pass draws, in the run's unit: the
/// children's and the parent's rates by worker count, or each worker's rate.
pub(super) fn throughput_values(result: &RunResult, pass: Pass) -> Vec<f64> {
    let u = result.config.unit;
    let phases = phases_of(result, pass);
    let counts = by_count(&phases);
    match counts.as_slice() {
        [] => Vec::new(),
        [one] => worker_rates(&phases, one, u),
        many => many
            .iter()
            .flat_map(|p| {
                [
                    over_runs(&phases, p, |q| q.children_see(u)),
                    over_runs(&phases, p, |q| q.parent_sees(u)),
                ]
            })
            .collect(),
    }
}

/// The bytes of all workers' files together, at the largest worker count.
fn total_bytes(counts: &[&PhaseResult]) -> u64 {
    counts
        .iter()
        .map(|p| p.file_bytes * u64::from(p.workers))
        .max()
        .unwrap_or(0)
}

/// What each worker's file was: one size, or under `-+k` a share of the
/// file size that shrinks as workers are added. Returns the caption line.
fn sizes_note(result: &RunResult, counts: &[&PhaseResult]) -> String {
    let first = counts[0];
    let noun = if first.threads { "thread" } else { "process" };
    let record = Size(first.record_bytes);
    let constant_total = result
        .config
        .throughput
        .as_ref()
        .is_some_and(|t| t.constant_total);
    let varies = counts.iter().any(|p| p.file_bytes != first.file_bytes);
    if constant_total || varies {
        // -+k: the file size is split between the workers.
        let shares = counts
            .iter()
            .map(|p| format!("{} with {}", Size(p.file_bytes), p.workers))
            .collect::<Vec<_>>()
            .join(", ");
        let nouns = if first.threads {
            "threads"
        } else {
            "processes"
        };
        let total = Size(total_bytes(counts));
        format!(
            "-+k: {total} shared by the {nouns}: each file is {total}/N ({shares}), \
             {total} in total; record size {record}."
        )
    } else {
        let most = counts.last().map_or(1, |p| p.workers);
        format!(
            "Each {noun}: file size {}, record size {record}; {} in total with {most}.",
            Size(first.file_bytes),
            Size(total_bytes(counts))
        )
    }
}

/// The caption of a throughput pass: the workers' files, the region all of
/// them fall in, and with one worker count what the children and the parent saw.
pub(super) fn throughput_notes(
    result: &RunResult,
    pass: Pass,
    regions: &Regions,
    scale: &ValueScale,
) -> Vec<String> {
    let u = result.config.unit;
    let phases = phases_of(result, pass);
    let counts = by_count(&phases);
    let Some(&phase) = counts.first() else {
        return Vec::new();
    };
    let mut notes = vec![sizes_note(result, &counts)];
    if let Some(region) = regions.region_of(total_bytes(&counts)) {
        notes[0].push_str(&format!(" All files together: {region} region."));
    }
    if counts.len() == 1 {
        notes.push(format!(
            "Children see {} {unit}, parent sees {} {unit}.",
            scale.value_text(over_runs(&phases, phase, |q| q.children_see(u))),
            scale.value_text(over_runs(&phases, phase, |q| q.parent_sees(u))),
            unit = scale.unit,
        ));
    }
    notes
}

/// A throughput-mode pass: over its worker counts when it ran several, else
/// each worker's rate.
pub(super) fn draw_throughput<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    result: &RunResult,
    pass: Pass,
    scale: &ValueScale,
) -> DrawResult<(), DB> {
    let u = result.config.unit;
    let phases = phases_of(result, pass);
    let counts = by_count(&phases);
    let Some(&first) = counts.first() else {
        return Ok(());
    };
    if counts.len() > 1 {
        let rows: Vec<(f64, f64, f64)> = counts
            .iter()
            .map(|p| {
                (
                    f64::from(p.workers),
                    over_runs(&phases, p, |q| q.children_see(u)),
                    over_runs(&phases, p, |q| q.parent_sees(u)),
                )
            })
            .collect();
        let x_axis = TickedAxis::new(rows.iter().map(|r| r.0).collect(), 0.5);
        let count_label = |x: f64| format!("{x:.0}");
        let title = if first.threads {
            "Threads"
        } else {
            "Processes"
        };
        let chart = chart_2d(area, ts, x_axis, &count_label, scale, title)?;
        let plot = chart.plotting_area();
        let children: Vec<(f64, f64)> = rows.iter().map(|r| (r.0, r.1)).collect();
        let parent: Vec<(f64, f64)> = rows.iter().map(|r| (r.0, r.2)).collect();
        let series = [
            ("children see", LINE_COLOR, children),
            ("parent sees", REGION_COLORS[0], parent),
        ];
        // The key, in one row above the plot's right end, clear of the lines.
        let corner = (plot.get_x_range().end, scale.top());
        let mut right = 0;
        let entries: Vec<(i32, &str, RGBColor)> = series
            .iter()
            .rev()
            .map(|(name, color, _)| {
                right -= text_width(name, 15.0).ceil() as i32 + 44;
                (right, *name, *color)
            })
            .collect();
        for (_, color, points) in series {
            let points: Vec<(f64, f64)> = points
                .into_iter()
                .filter_map(|(x, v)| scale.y(v).map(|y| (x, y)))
                .collect();
            plot.draw(&PathElement::new(points.clone(), color.stroke_width(3)))?;
            for &p in &points {
                plot.draw(&Circle::new(p, 5, color.filled()))?;
            }
        }
        for (x, name, color) in entries {
            plot.draw(
                &(EmptyElement::at(corner)
                    + PathElement::new(vec![(x, -12), (x + 28, -12)], color.stroke_width(3))),
            )?;
            ts.text(
                plot,
                corner,
                (x + 34, -12),
                name,
                &style(15, BLACK, HPos::Left, VPos::Center),
            )?;
        }
    } else {
        let phase = first;
        let rates = worker_rates(&phases, phase, u);
        let x_axis = TickedAxis::new((0..rates.len()).map(|i| i as f64).collect(), 0.6);
        let worker_label = |x: f64| format!("{x:.0}");
        let title = format!(
            "{} (of {})",
            if phase.threads { "Thread" } else { "Process" },
            phase.workers
        );
        let chart = chart_2d(area, ts, x_axis, &worker_label, scale, &title)?;
        let plot = chart.plotting_area();
        for (i, &r) in rates.iter().enumerate() {
            let Some(y) = scale.y(r) else { continue };
            let x = i as f64;
            plot.draw(&Rectangle::new(
                [(x - 0.3, scale.bottom()), (x + 0.3, y)],
                LINE_COLOR.filled(),
            ))?;
            if rates.len() <= 16 {
                ts.text(
                    plot,
                    (x, y),
                    (0, -6),
                    &scale.value_text(r),
                    &style(14, BLACK, HPos::Center, VPos::Bottom),
                )?;
            }
        }
    }
    Ok(())
}
