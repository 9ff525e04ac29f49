//! The page of one view of a pass: title, subtitle, the chart its data
//! allows, and the caption lines under it (wrapped to the page).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::grid::Grid;
use super::lines::draw_lines;
use super::regions::Regions;
use super::scale::ValueScale;
use super::surface::draw_surface;
use super::text::{Typesetter, style, wrap};
use super::throughput::{draw_throughput, throughput_notes};
use super::two_d::{draw_line, draw_single, series};
use super::{DrawResult, TEXT_GREY, value_scale};
use crate::model::result::{RunResult, RunStatus};
use crate::model::result_files::PlotView;
use crate::model::units::Size;
use crate::model::workload::Pass;

/// Height of the title and subtitle; a small drawing (the HTML report's,
/// whose page says the rest) has the title alone.
const TITLE_HEIGHT: u32 = 84;
const SMALL_TITLE_HEIGHT: u32 = 46;
const SMALL_WIDTH: u32 = 1000;
const CAPTION_SIZE: u32 = 15;
const CAPTION_LINE: i32 = 21;

/// What the body of a page shows.
enum Body {
    Throughput,
    Empty,
    Single,
    OneFile,
    OneRecord,
    Surface,
    Lines(PlotView),
}

fn body_of(result: &RunResult, pass: Pass, grid: &Grid, view: PlotView) -> Body {
    let throughput = !result.throughput.is_empty() || result.config.throughput.is_some();
    match (grid.files.len(), grid.records.len()) {
        _ if throughput && result.throughput.iter().any(|p| p.pass == pass) => Body::Throughput,
        (0, _) | (_, 0) => Body::Empty,
        _ if view != PlotView::Overview => Body::Lines(view),
        (1, 1) => Body::Single,
        (1, _) => Body::OneFile,
        (_, 1) => Body::OneRecord,
        _ => Body::Surface,
    }
}

/// The whole drawing of one view of a pass: title, chart, caption.
pub(super) fn draw_plot<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    result: &RunResult,
    pass: Pass,
    view: PlotView,
) -> DrawResult<(), DB> {
    root.fill(&WHITE)?;
    let (w, h) = root.dim_in_pixel();
    let grid = Grid::of(result, pass);
    let regions = Regions::of(result, pass);
    let scale = value_scale(result, pass);
    let body_kind = body_of(result, pass, &grid, view);
    let center = w as i32 / 2;

    let mut notes = match &body_kind {
        Body::Throughput => throughput_notes(result, pass, &regions, &scale),
        Body::Empty => Vec::new(),
        Body::Single | Body::OneFile => vec![file_region_note(&regions, grid.files[0])],
        Body::Lines(PlotView::ByRecordSize) => vec![format!(
            "One line per file size; the legend groups them by region. {}",
            regions.caption()
        )],
        Body::Lines(_) => vec![format!("One line per record size. {}", regions.caption())],
        Body::OneRecord | Body::Surface => vec![regions.caption()],
    };
    if result.status != RunStatus::Complete {
        notes.push("The run did not complete: the cells it did not reach are missing.".into());
    }
    let lines: Vec<String> = notes
        .iter()
        .flat_map(|n| wrap(n, f64::from(CAPTION_SIZE), f64::from(w) - 60.0))
        .collect();
    let caption_height = 24 + CAPTION_LINE as u32 * lines.len() as u32;

    let small = w < SMALL_WIDTH;
    let title_height = if small {
        SMALL_TITLE_HEIGHT
    } else {
        TITLE_HEIGHT
    };
    let (top, rest) = root.split_vertically(title_height);
    let (body, bottom) = rest.split_vertically(h - title_height - caption_height.min(h / 3));
    let view_words = match view {
        PlotView::Overview => "",
        PlotView::ByFileSize => " by file size",
        PlotView::ByRecordSize => " by record size",
    };
    ts.text(
        &top,
        (center, 12),
        (0, 0),
        &format!(
            "{}{view_words} ({}){}",
            pass.report_title(),
            pass.name(),
            result
                .summed_words()
                .map(|s| format!(" — {s}"))
                .unwrap_or_default()
        ),
        &style(if small { 22 } else { 28 }, BLACK, HPos::Center, VPos::Top),
    )?;
    let subtitle_lines = if small { 0 } else { 2 };
    for (k, line) in wrap(&subtitle(result, &scale), 16.0, f64::from(w) - 40.0)
        .iter()
        .take(subtitle_lines)
        .enumerate()
    {
        ts.text(
            &top,
            (center, 48 + 19 * k as i32),
            (0, 0),
            line,
            &style(16, RGBColor(80, 80, 80), HPos::Center, VPos::Top),
        )?;
    }

    match body_kind {
        Body::Throughput => draw_throughput(&body, ts, result, pass, &scale)?,
        Body::Empty => {
            ts.text(
                &body,
                (center, body.dim_in_pixel().1 as i32 / 2),
                (0, 0),
                "No measurements for this pass (the run ended before it).",
                &style(20, BLACK, HPos::Center, VPos::Center),
            )?;
        }
        Body::Single => {
            let v = grid.values[0][0].unwrap_or(0.0);
            draw_single(&body, ts, grid.files[0], grid.records[0], v, &scale)?;
        }
        Body::OneFile => {
            let (xs, ys) = series(&grid.records, |j| grid.values[0][j]);
            let title = format!("Record size (file size {})", Size(grid.files[0]));
            draw_line(&body, ts, &xs, &ys, &title, &scale, None)?;
        }
        Body::OneRecord => {
            let (xs, ys) = series(&grid.files, |i| grid.values[i][0]);
            let title = format!("File size (record size {})", Size(grid.records[0]));
            draw_line(&body, ts, &xs, &ys, &title, &scale, Some(&regions))?;
        }
        Body::Surface => draw_surface(&body, ts, &grid, &regions, &scale)?,
        Body::Lines(view) => draw_lines(&body, ts, &grid, view, &regions, &scale)?,
    }
    for (i, line) in lines.iter().enumerate() {
        ts.text(
            &bottom,
            (center, 10 + CAPTION_LINE * i as i32),
            (0, 0),
            line,
            &style(CAPTION_SIZE, TEXT_GREY, HPos::Center, VPos::Top),
        )?;
    }
    Ok(())
}

fn subtitle(result: &RunResult, scale: &ValueScale) -> String {
    let mut unit = scale.unit.to_string();
    if let Some(bytes) = match scale.unit {
        "MB/s" => Some("10⁶"),
        "GB/s" => Some("10⁹"),
        _ => None,
    } {
        unit.push_str(&format!(" ({bytes} bytes/s)"));
    }
    if scale.is_log() {
        unit.push_str(", log scale");
    }
    if result.config.plot_style.shared_scale {
        unit.push_str(", one scale for all tests");
    }
    let mut parts = vec![format!("ioz {}", result.tool_version), unit];
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
            Size(file),
            regions.caption()
        ),
        None => regions.caption(),
    }
}
