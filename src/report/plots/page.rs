//! The page of one pass: title, subtitle, the chart its data allows, and the
//! caption lines under it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::grid::Grid;
use super::labels::{human_size, unit_label};
use super::regions::Regions;
use super::surface::draw_surface;
use super::text::{Typesetter, style};
use super::throughput::draw_throughput;
use super::two_d::{draw_line, draw_single, series};
use super::{DrawResult, TEXT_GREY};
use crate::model::result::{RunResult, RunStatus};
use crate::model::workload::Pass;

const TITLE_HEIGHT: u32 = 84;
const CAPTION_HEIGHT: u32 = 60;

/// The whole plot of one pass: title, the chart its data allows, caption.
pub(super) fn draw_plot<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    result: &RunResult,
    pass: Pass,
) -> DrawResult<(), DB> {
    root.fill(&WHITE)?;
    let (w, h) = root.dim_in_pixel();
    let (top, rest) = root.split_vertically(TITLE_HEIGHT);
    let (body, bottom) = rest.split_vertically(h - TITLE_HEIGHT - CAPTION_HEIGHT);
    let grid = Grid::of(result, pass);
    let regions = Regions::of(&result.environment);
    let unit = unit_label(result.config.unit);
    let center = w as i32 / 2;

    ts.text(
        &top,
        (center, 14),
        (0, 0),
        &format!("{} ({})", pass.report_title(), pass.name()),
        &style(30, BLACK, HPos::Center, VPos::Top),
    )?;
    ts.text(
        &top,
        (center, 54),
        (0, 0),
        &subtitle(result, unit),
        &style(17, RGBColor(80, 80, 80), HPos::Center, VPos::Top),
    )?;

    let mut notes = Vec::new();
    let throughput = !result.throughput.is_empty() || result.config.throughput.is_some();
    match (grid.files.len(), grid.records.len()) {
        _ if throughput && result.throughput.iter().any(|p| p.pass == pass) => {
            notes = draw_throughput(&body, ts, result, pass, &regions, unit)?;
        }
        (0, _) | (_, 0) => {
            ts.text(
                &body,
                (center, body.dim_in_pixel().1 as i32 / 2),
                (0, 0),
                "No measurements for this pass (the run ended before it).",
                &style(22, BLACK, HPos::Center, VPos::Center),
            )?;
        }
        (1, 1) => {
            let v = grid.values[0][0].unwrap_or(0.0);
            draw_single(&body, ts, grid.files[0], grid.records[0], v, unit)?;
            notes.push(file_region_note(&regions, grid.files[0]));
        }
        (1, _) => {
            let (xs, ys) = series(&grid.records, |j| grid.values[0][j]);
            let title = format!("Record size (file size {})", human_size(grid.files[0]));
            draw_line(&body, ts, &xs, &ys, &title, unit, None)?;
            notes.push(file_region_note(&regions, grid.files[0]));
        }
        (_, 1) => {
            let (xs, ys) = series(&grid.files, |i| grid.values[i][0]);
            let title = format!("File size (record size {})", human_size(grid.records[0]));
            draw_line(&body, ts, &xs, &ys, &title, unit, Some(&regions))?;
            notes.push(regions.caption());
        }
        _ => {
            draw_surface(&body, ts, &grid, &regions, unit)?;
            notes.push(regions.caption());
        }
    }
    if result.status != RunStatus::Complete {
        notes.push("The run did not complete: the cells it did not reach are missing.".into());
    }
    for (i, note) in notes.iter().enumerate() {
        ts.text(
            &bottom,
            (center, 14 + 24 * i as i32),
            (0, 0),
            note,
            &style(16, TEXT_GREY, HPos::Center, VPos::Top),
        )?;
    }
    Ok(())
}

fn subtitle(result: &RunResult, unit: &str) -> String {
    let mut parts = vec![format!("ioz {}", result.tool_version), unit.to_string()];
    let t = &result.environment.target;
    match (t.fs_type.is_empty(), t.mount_point.is_empty()) {
        _ if t.is_raw_device() => parts.push(format!("raw device {}", t.source)),
        (false, false) => parts.push(format!("{} on {}", t.fs_type, t.mount_point)),
        (false, true) => parts.push(t.fs_type.clone()),
        (true, false) => parts.push(t.mount_point.clone()),
        (true, true) => {}
    }
    if !result.environment.hostname.is_empty() {
        parts.push(result.environment.hostname.clone());
    }
    if !result.started_at.is_empty() {
        parts.push(result.started_at.clone());
    }
    parts.join("  ·  ")
}

fn file_region_note(regions: &Regions, file: u64) -> String {
    match regions.region_of(file) {
        Some(r) => format!(
            "File size {}: {r} region. {}",
            human_size(file),
            regions.caption()
        ),
        None => regions.caption(),
    }
}
