//! The frame of every 2-D chart (a size or count axis, the value axis of a
//! [`ValueScale`], their labels), the file-size regions drawn on it, and the
//! charts of degenerate grids: one cell (a bar), one file size or one record
//! size (a line).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::TickedAxis;
use super::labels::{lg, size_tick};
use super::regions::Regions;
use super::scale::ValueScale;
use super::text::{Typesetter, style, text_width};
use super::{DrawResult, LINE_COLOR, REGION_COLORS, TEXT_GREY};
use crate::model::units::Size;

/// Pixel size of tick labels.
const TICK_SIZE: u32 = 15;

pub(super) type Chart2d<'a, DB> = ChartContext<'a, DB, Cartesian2d<TickedAxis, TickedAxis>>;

/// The measured points of one row or column, as (log2 size, value).
pub(super) fn series(sizes: &[u64], value: impl Fn(usize) -> Option<f64>) -> (Vec<f64>, Vec<f64>) {
    sizes
        .iter()
        .enumerate()
        .filter_map(|(i, &s)| value(i).map(|v| (lg(s), v)))
        .unzip()
}

/// A 2-D chart over `x_axis` and the scale's value axis, with its labels:
/// a label under every x tick (in two staggered rows where one row would
/// run them together), `x_title` under the axis, the unit over the value axis.
pub(super) fn chart_2d<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    ts: Typesetter,
    x_axis: TickedAxis,
    x_label: &dyn Fn(f64) -> String,
    scale: &ValueScale,
    x_title: &str,
) -> DrawResult<Chart2d<'a, DB>, DB> {
    let y_axis = scale.axis.clone();
    let x_ticks = x_axis.ticks.clone();
    let y_ticks = y_axis.ticks.clone();
    let (x0, y0, y1) = (x_axis.range.start, scale.bottom(), scale.top());
    let mut chart = ChartBuilder::on(area)
        .margin(24)
        .margin_right(40)
        .x_label_area_size(96)
        .y_label_area_size(80)
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
    let labels: Vec<String> = x_ticks.iter().map(|&x| x_label(x)).collect();
    let stagger = crowded(plot, &x_ticks, &labels);
    let tick = style(TICK_SIZE, BLACK, HPos::Center, VPos::Top);
    for (k, (&x, label)) in x_ticks.iter().zip(&labels).enumerate() {
        let dy = if stagger && k % 2 == 1 { 32 } else { 12 };
        if dy > 12 {
            // A leader from the axis down to the lower row.
            plot.draw(
                &(EmptyElement::at((x, y0))
                    + PathElement::new(vec![(0, 8), (0, dy - 3)], BLACK.mix(0.35).stroke_width(1))),
            )?;
        }
        ts.text(plot, (x, y0), (0, dy), label, &tick)?;
    }
    let tick = style(TICK_SIZE, BLACK, HPos::Right, VPos::Center);
    for &y in &y_ticks {
        ts.text(plot, (x0, y), (-10, 0), &scale.tick_label(y), &tick)?;
    }
    let (w, _) = plot.dim_in_pixel();
    ts.text(
        plot,
        (x0, y0),
        (w as i32 / 2, if stagger { 62 } else { 44 }),
        x_title,
        &style(18, BLACK, HPos::Center, VPos::Top),
    )?;
    let unit = if scale.is_log() {
        format!("{} (log scale)", scale.unit)
    } else {
        scale.unit.to_string()
    };
    ts.text(
        plot,
        (x0, y1),
        (0, -12),
        &unit,
        &style(17, BLACK, HPos::Center, VPos::Bottom),
    )?;
    Ok(chart)
}

/// Whether two neighbouring x labels would touch on one row.
fn crowded<DB: DrawingBackend>(
    plot: &DrawingArea<DB, Cartesian2d<TickedAxis, TickedAxis>>,
    ticks: &[f64],
    labels: &[String],
) -> bool {
    let y = plot.get_y_range().start;
    let px = |x: f64| f64::from(plot.map_coordinate(&(x, y)).0);
    let size = f64::from(TICK_SIZE);
    ticks.windows(2).zip(labels.windows(2)).any(|(x, l)| {
        let room = px(x[1]) - px(x[0]);
        room < (text_width(&l[0], size) + text_width(&l[1], size)) / 2.0 + 8.0
    })
}

/// The file-size regions on a chart whose x axis is log2 file size: tinted
/// bands named at the top, and a line at each boundary.
pub(super) fn draw_regions<DB: DrawingBackend>(
    plot: &DrawingArea<DB, Cartesian2d<TickedAxis, TickedAxis>>,
    ts: Typesetter,
    regions: &Regions,
) -> DrawResult<(), DB> {
    let (x0, x1) = (plot.get_x_range().start, plot.get_x_range().end);
    let (y0, y1) = (plot.get_y_range().start, plot.get_y_range().end);
    for (k, (name, lo, hi)) in regions.bands().into_iter().enumerate() {
        let a = lo.unwrap_or(x0).max(x0);
        let b = hi.unwrap_or(x1).min(x1);
        if a >= b {
            continue;
        }
        let color = REGION_COLORS[k % REGION_COLORS.len()];
        plot.draw(&Rectangle::new(
            [(a, y0), (b, y1)],
            color.mix(0.08).filled(),
        ))?;
        ts.text(
            plot,
            ((a + b) / 2.0, y1),
            (0, 8),
            name,
            &style(17, color, HPos::Center, VPos::Top),
        )?;
    }
    for (label, x) in regions.boundaries() {
        if x <= x0 || x >= x1 {
            continue;
        }
        plot.draw(&PathElement::new(
            vec![(x, y0), (x, y1)],
            RGBColor(90, 90, 90).stroke_width(2),
        ))?;
        ts.text(
            plot,
            (x, y1),
            (-6, 32),
            &label,
            &style(14, TEXT_GREY, HPos::Right, VPos::Top),
        )?;
    }
    Ok(())
}

/// One cell: a single bar.
pub(super) fn draw_single<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    file: u64,
    record: u64,
    value: f64,
    scale: &ValueScale,
) -> DrawResult<(), DB> {
    let x_axis = TickedAxis::new(vec![0.5], 0.5);
    // A telemetry run (-X/-Y) has no record size: its file sets the sizes.
    let records = match record {
        0 => "sizes from a telemetry file".to_string(),
        r => format!("record size {}", Size(r)),
    };
    let x_title = format!("One cell: file size {}, {records}", Size(file));
    let no_label = |_: f64| String::new();
    let chart = chart_2d(area, ts, x_axis, &no_label, scale, &x_title)?;
    let plot = chart.plotting_area();
    if let Some(y) = scale.y(value) {
        plot.draw(&Rectangle::new(
            [(0.35, scale.bottom()), (0.65, y)],
            LINE_COLOR.filled(),
        ))?;
        ts.text(
            plot,
            (0.5, y),
            (0, -6),
            &format!("{} {}", scale.value_text(value), scale.unit),
            &style(20, BLACK, HPos::Center, VPos::Bottom),
        )?;
    }
    Ok(())
}

/// A value over one size axis (log2), with the file-size regions when given.
pub(super) fn draw_line<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    xs: &[f64],
    values: &[f64],
    x_title: &str,
    scale: &ValueScale,
    regions: Option<&Regions>,
) -> DrawResult<(), DB> {
    let x_axis = TickedAxis::new(xs.to_vec(), 0.4);
    let chart = chart_2d(area, ts, x_axis, &size_tick, scale, x_title)?;
    let plot = chart.plotting_area();
    if let Some(regions) = regions {
        draw_regions(plot, ts, regions)?;
    }
    let points: Vec<(f64, f64, f64)> = xs
        .iter()
        .zip(values)
        .filter_map(|(&x, &v)| scale.y(v).map(|y| (x, y, v)))
        .collect();
    plot.draw(&PathElement::new(
        points.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
        LINE_COLOR.stroke_width(3),
    ))?;
    for p in &points {
        plot.draw(&Circle::new((p.0, p.1), 5, LINE_COLOR.filled()))?;
    }
    if points.len() <= 12 {
        for p in &points {
            ts.text(
                plot,
                (p.0, p.1),
                (0, -9),
                &scale.value_text(p.2),
                &style(14, BLACK, HPos::Center, VPos::Bottom),
            )?;
        }
    }
    Ok(())
}
