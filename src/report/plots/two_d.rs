//! 2-D charts, for runs whose grid is degenerate: one cell (a bar), one file
//! size or one record size (a line), and the frame the throughput plots share.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::{TickedAxis, nice_top, value_ticks};
use super::labels::{compact, human_size, lg, size_tick};
use super::regions::Regions;
use super::text::{Typesetter, style};
use super::{DrawResult, LINE_COLOR, REGION_COLORS, TEXT_GREY};

/// The measured points of one row or column, as (log2 size, value).
pub(super) fn series(sizes: &[u64], value: impl Fn(usize) -> Option<f64>) -> (Vec<f64>, Vec<f64>) {
    sizes
        .iter()
        .enumerate()
        .filter_map(|(i, &s)| value(i).map(|v| (lg(s), v)))
        .unzip()
}

/// A 2-D chart over `x_axis` and values 0..`top`, with its labels: ticks,
/// `x_title` under the x axis, `unit` over the value axis.
pub(super) fn chart_2d<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    ts: Typesetter,
    x_axis: TickedAxis,
    x_label: &dyn Fn(f64) -> String,
    top: f64,
    x_title: &str,
    unit: &str,
) -> DrawResult<ChartContext<'a, DB, Cartesian2d<TickedAxis, TickedAxis>>, DB> {
    let y_axis = TickedAxis::new(value_ticks(top), 0.0);
    let x_ticks = x_axis.thinned(20);
    let y_ticks = y_axis.ticks.clone();
    let (x0, y0) = (x_axis.range.start, 0.0);
    let mut chart = ChartBuilder::on(area)
        .margin(30)
        .margin_right(60)
        .x_label_area_size(70)
        .y_label_area_size(90)
        .build_cartesian_2d(x_axis, y_axis)?;
    let blank = |_: &f64| String::new();
    chart
        .configure_mesh()
        .x_labels(x_ticks.len())
        .y_labels(y_ticks.len())
        .x_label_formatter(&blank)
        .y_label_formatter(&blank)
        .bold_line_style(BLACK.mix(0.12))
        .light_line_style(TRANSPARENT)
        .axis_style(BLACK.mix(0.8))
        .draw()?;
    let plot = chart.plotting_area();
    let tick = style(16, BLACK, HPos::Center, VPos::Top);
    for &x in &x_ticks {
        ts.text(plot, (x, y0), (0, 12), &x_label(x), &tick)?;
    }
    let tick = style(16, BLACK, HPos::Right, VPos::Center);
    for &y in &y_ticks {
        ts.text(plot, (x0, y), (-12, 0), &compact(y), &tick)?;
    }
    let (w, _) = plot.dim_in_pixel();
    ts.text(
        plot,
        (x0, y0),
        (w as i32 / 2, 44),
        x_title,
        &style(19, BLACK, HPos::Center, VPos::Top),
    )?;
    ts.text(
        plot,
        (x0, top),
        (0, -14),
        unit,
        &style(18, BLACK, HPos::Center, VPos::Bottom),
    )?;
    Ok(chart)
}

/// One cell: a single bar.
pub(super) fn draw_single<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    file: u64,
    record: u64,
    value: f64,
    unit: &str,
) -> DrawResult<(), DB> {
    let top = nice_top(value);
    let x_axis = TickedAxis::new(vec![0.5], 0.5);
    // A telemetry run (-X/-Y) has no record size: its file sets the sizes.
    let records = match record {
        0 => "sizes from a telemetry file".to_string(),
        r => format!("record size {}", human_size(r)),
    };
    let x_title = format!("One cell: file size {}, {records}", human_size(file));
    let no_label = |_: f64| String::new();
    let chart = chart_2d(area, ts, x_axis, &no_label, top, &x_title, unit)?;
    chart.plotting_area().draw(&Rectangle::new(
        [(0.35, 0.0), (0.65, value)],
        LINE_COLOR.filled(),
    ))?;
    ts.text(
        chart.plotting_area(),
        (0.5, value),
        (0, -6),
        &format!("{value:.0} {unit}"),
        &style(20, BLACK, HPos::Center, VPos::Bottom),
    )
}

/// A value over one size axis (log2), with the file-size regions when given.
pub(super) fn draw_line<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    xs: &[f64],
    ys: &[f64],
    x_title: &str,
    unit: &str,
    regions: Option<&Regions>,
) -> DrawResult<(), DB> {
    let top = nice_top(ys.iter().copied().fold(0.0, f64::max));
    let x_axis = TickedAxis::new(xs.to_vec(), 0.4);
    let (x0, x1) = (x_axis.range.start, x_axis.range.end);
    let chart = chart_2d(area, ts, x_axis, &size_tick, top, x_title, unit)?;
    let plot = chart.plotting_area();
    if let Some(regions) = regions {
        for (k, (name, lo, hi)) in regions.bands().into_iter().enumerate() {
            let a = lo.unwrap_or(x0).max(x0);
            let b = hi.unwrap_or(x1).min(x1);
            if a >= b {
                continue;
            }
            let color = REGION_COLORS[k % REGION_COLORS.len()];
            plot.draw(&Rectangle::new(
                [(a, 0.0), (b, top)],
                color.mix(0.08).filled(),
            ))?;
            ts.text(
                plot,
                ((a + b) / 2.0, top),
                (0, 8),
                name,
                &style(18, color, HPos::Center, VPos::Top),
            )?;
        }
        for (label, x) in regions.boundaries() {
            if x <= x0 || x >= x1 {
                continue;
            }
            plot.draw(&PathElement::new(
                vec![(x, 0.0), (x, top)],
                RGBColor(90, 90, 90).stroke_width(2),
            ))?;
            ts.text(
                plot,
                (x, top),
                (-6, 34),
                &label,
                &style(15, TEXT_GREY, HPos::Right, VPos::Top),
            )?;
        }
    }
    plot.draw(&PathElement::new(
        xs.iter()
            .copied()
            .zip(ys.iter().copied())
            .collect::<Vec<_>>(),
        LINE_COLOR.stroke_width(3),
    ))?;
    for (&x, &y) in xs.iter().zip(ys) {
        plot.draw(&Circle::new((x, y), 5, LINE_COLOR.filled()))?;
    }
    if xs.len() <= 12 {
        for (&x, &y) in xs.iter().zip(ys) {
            ts.text(
                plot,
                (x, y),
                (0, -9),
                &compact(y),
                &style(14, BLACK, HPos::Center, VPos::Bottom),
            )?;
        }
    }
    Ok(())
}
