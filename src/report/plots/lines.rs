//! The 2-D views of a grid, IOzone's classic graphs made legible: value
//! against file size with a line per record size, and value against record
//! size with a line per file size. Every size measured has its tick; the
//! file-size regions are bands on the first view and group the legend of
//! the second.

use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::TickedAxis;
use super::grid::Grid;
use super::labels::{lg, size_tick};
use super::regions::Regions;
use super::scale::ValueScale;
use super::text::{Typesetter, style};
use super::two_d::{chart_2d, draw_regions};
use super::{DrawResult, REGION_COLORS, TEXT_GREY};
use crate::model::result_files::PlotView;

/// Stops of the line colours, in size order: dark and saturated enough to
/// read on white and on the region tints.
const LINE_STOPS: [RGBColor; 8] = [
    RGBColor(94, 60, 153),
    RGBColor(49, 104, 190),
    RGBColor(23, 150, 160),
    RGBColor(52, 160, 72),
    RGBColor(160, 150, 20),
    RGBColor(235, 130, 20),
    RGBColor(215, 50, 40),
    RGBColor(140, 30, 60),
];

/// The colour of line `k` of `n`, evenly along the stops.
pub(super) fn line_color(k: usize, n: usize) -> RGBColor {
    let t = if n > 1 {
        k as f64 / (n - 1) as f64
    } else {
        0.0
    };
    let pos = t * (LINE_STOPS.len() - 1) as f64;
    let i = (pos.floor() as usize).min(LINE_STOPS.len() - 2);
    let f = pos - i as f64;
    let (a, b) = (LINE_STOPS[i], LINE_STOPS[i + 1]);
    let mix = |p: u8, q: u8| (f64::from(p) + f * (f64::from(q) - f64::from(p))).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Marker `k`: a circle, triangle, square or diamond, so that neighbouring
/// lines differ in shape as well as colour.
fn marker<DB: DrawingBackend, C: CoordTranslate>(
    area: &DrawingArea<DB, C>,
    at: C::From,
    k: usize,
    color: RGBColor,
) -> DrawResult<(), DB>
where
    C::From: Clone,
{
    let fill = color.filled();
    match k % 4 {
        0 => area.draw(&Circle::new(at, 5, fill)),
        1 => area.draw(&TriangleMarker::new(at, 7, fill)),
        2 => area.draw(&(EmptyElement::at(at) + Rectangle::new([(-4, -4), (5, 5)], fill))),
        _ => area.draw(
            &(EmptyElement::at(at) + Polygon::new(vec![(0, -6), (6, 0), (0, 6), (-6, 0)], fill)),
        ),
    }
}

/// One of the two 2-D views of a grid, with its legend on the right.
pub(super) fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    grid: &Grid,
    view: PlotView,
    regions: &Regions,
    scale: &ValueScale,
) -> DrawResult<(), DB> {
    let (w, h) = area.dim_in_pixel();
    let legend_width = (w / 7).clamp(120, 170);
    let (chart_area, legend_area) = area.split_horizontally(w - legend_width);
    let by_file = view != PlotView::ByRecordSize;
    let (x_sizes, line_sizes) = if by_file {
        (&grid.files, &grid.records)
    } else {
        (&grid.records, &grid.files)
    };
    let value = |x: usize, line: usize| {
        if by_file {
            grid.values[x][line]
        } else {
            grid.values[line][x]
        }
    };
    let x_axis = TickedAxis::new(x_sizes.iter().map(|&b| lg(b)).collect(), 0.4);
    let (x_title, legend_title) = if by_file {
        ("File size (log2)", "Record size")
    } else {
        ("Record size (log2)", "File size")
    };
    let chart = chart_2d(&chart_area, ts, x_axis, &size_tick, scale, x_title)?;
    let plot = chart.plotting_area();
    if by_file {
        draw_regions(plot, ts, regions)?;
    }
    let n = line_sizes.len();
    for line in 0..n {
        let color = line_color(line, n);
        let points: Vec<(f64, f64)> = x_sizes
            .iter()
            .enumerate()
            .filter_map(|(x, &b)| value(x, line).and_then(|v| scale.y(v)).map(|y| (lg(b), y)))
            .collect();
        plot.draw(&PathElement::new(points.clone(), color.stroke_width(2)))?;
        for p in points {
            marker(plot, p, line, color)?;
        }
    }

    // The legend: a swatch per line; by record size, grouped under the
    // region each file size falls in.
    let bands = regions.bands();
    let group = |k: usize| -> Option<(&'static str, RGBColor)> {
        if by_file {
            return None;
        }
        let name = regions.region_of(line_sizes[k])?;
        let i = bands.iter().position(|b| b.0 == name)?;
        Some((name, REGION_COLORS[i % REGION_COLORS.len()]))
    };
    let headings = (0..n)
        .filter(|&k| k == 0 || group(k).map(|g| g.0) != group(k - 1).map(|g| g.0))
        .filter(|&k| group(k).is_some())
        .count();
    let top = 40;
    let rows = (n + headings) as i32;
    let step = ((h as i32 - top - 60) / rows.max(1)).clamp(12, 24);
    let text_size = if step >= 20 { 15 } else { 13 };
    ts.text(
        &legend_area,
        (8, top - 14),
        (0, 0),
        legend_title,
        &style(16, BLACK, HPos::Left, VPos::Bottom),
    )?;
    let mut y = top + step / 2;
    for (k, &size) in line_sizes.iter().enumerate() {
        if let Some((name, color)) = group(k)
            && (k == 0 || group(k - 1).map(|g| g.0) != Some(name))
        {
            ts.text(
                &legend_area,
                (8, y),
                (0, 0),
                name,
                &style(text_size, color, HPos::Left, VPos::Center),
            )?;
            y += step;
        }
        let color = line_color(k, n);
        legend_area.draw(&PathElement::new(
            vec![(12, y), (42, y)],
            color.stroke_width(2),
        ))?;
        marker(&legend_area, (27, y), k, color)?;
        ts.text(
            &legend_area,
            (50, y),
            (0, 0),
            &size_tick(lg(size)),
            &style(text_size, TEXT_GREY, HPos::Left, VPos::Center),
        )?;
        y += step;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_colours_run_from_the_first_stop_to_the_last() {
        assert_eq!(line_color(0, 5), LINE_STOPS[0]);
        assert_eq!(line_color(4, 5), LINE_STOPS[7]);
        assert_eq!(line_color(0, 1), LINE_STOPS[0]);
        let middle = line_color(7, 15);
        assert_ne!(middle, line_color(6, 15));
    }
}
