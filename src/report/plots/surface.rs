//! The 3-D surface of a full grid: value over file size × record size, with
//! the file-size regions shaded under it and its colour bar beside it.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axis::TickedAxis;
use super::grid::Grid;
use super::labels::{lg, size_tick};
use super::regions::Regions;
use super::scale::ValueScale;
use super::text::{Typesetter, style, text_width};
use super::{DrawResult, REGION_COLORS, TEXT_GREY};

/// Room for the colour bar: an eighth of the drawing, within bounds.
fn color_bar_width(w: u32) -> u32 {
    (w / 8).clamp(100, 150)
}
/// Pixel size of tick labels.
const LABEL_SIZE: u32 = 14;

fn color_of(scale: &ValueScale, raw: f64) -> RGBColor {
    ViridisRGB.get_color(scale.shade(raw) as f32)
}

type Point3 = (f64, f64, f64);

/// The surface: x = file size, y (up) = value, z = record size.
pub(super) fn draw_surface<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    grid: &Grid,
    regions: &Regions,
    scale: &ValueScale,
) -> DrawResult<(), DB> {
    let (w, _) = area.dim_in_pixel();
    let (plot, bar) = area.split_horizontally(w - color_bar_width(w));
    let xs: Vec<f64> = grid.files.iter().map(|&b| lg(b)).collect();
    let zs: Vec<f64> = grid.records.iter().map(|&b| lg(b)).collect();
    // Padding keeps the end labels of the two size axes apart at their shared corner.
    let pad = |v: &[f64]| (0.08 * (v[v.len() - 1] - v[0])).max(0.6);
    let x_axis = TickedAxis::new(xs.clone(), pad(&xs));
    let z_axis = TickedAxis::new(zs.clone(), pad(&zs));
    let y_axis = scale.axis.clone();
    let (bottom, top) = (scale.bottom(), scale.top());
    // A tick for every size measured.
    let (x_ticks, z_ticks, y_ticks) = (
        x_axis.ticks.clone(),
        z_axis.ticks.clone(),
        y_axis.ticks.clone(),
    );
    let (x0, x1) = (x_axis.range.start, x_axis.range.end);
    let (z0, z1) = (z_axis.range.start, z_axis.range.end);

    let mut chart = ChartBuilder::on(&plot)
        .margin(10)
        .build_cartesian_3d(x_axis, y_axis, z_axis)?;
    chart.with_projection(|mut p| {
        p.yaw = 0.7;
        p.pitch = 0.4;
        p.scale = 0.76;
        p.into_matrix()
    });
    let blank = |_: &f64| String::new();
    chart
        .configure_axes()
        .x_labels(x_ticks.len())
        .z_labels(z_ticks.len())
        .y_labels(y_ticks.len())
        .x_formatter(&blank)
        .y_formatter(&blank)
        .z_formatter(&blank)
        .tick_size(0)
        .bold_grid_style(BLACK.mix(0.15))
        .light_grid_style(TRANSPARENT)
        .axis_panel_style(RGBColor(246, 246, 248))
        .draw()?;

    let coord = chart.as_coord_spec();
    let area3d = chart.plotting_area();
    let depth = |p: &Point3| coord.projected_depth(&p.0, &p.1, &p.2);
    let (z_near, z_far) = if depth(&(x0, bottom, z0)) < depth(&(x0, bottom, z1)) {
        (z0, z1)
    } else {
        (z1, z0)
    };
    let (x_near, x_far) = if depth(&(x0, bottom, z0)) < depth(&(x1, bottom, z0)) {
        (x0, x1)
    } else {
        (x1, x0)
    };

    // The regions, shaded on the floor and on the back wall, under the surface.
    for (k, (name, a, b)) in regions.bands().into_iter().enumerate() {
        let a = a.unwrap_or(x0).max(x0);
        let b = b.unwrap_or(x1).min(x1);
        if a >= b {
            continue;
        }
        let color = REGION_COLORS[k % REGION_COLORS.len()];
        area3d.draw(&Polygon::new(
            vec![
                (a, bottom, z0),
                (b, bottom, z0),
                (b, bottom, z1),
                (a, bottom, z1),
            ],
            color.mix(0.16).filled(),
        ))?;
        area3d.draw(&Polygon::new(
            vec![
                (a, bottom, z_far),
                (b, bottom, z_far),
                (b, top, z_far),
                (a, top, z_far),
            ],
            color.mix(0.10).filled(),
        ))?;
        ts.text(
            area3d,
            ((a + b) / 2.0, top, z_far),
            (0, -12),
            name,
            &style(18, color, HPos::Center, VPos::Bottom),
        )?;
    }
    for (label, x) in regions.boundaries() {
        if x <= x0 || x >= x1 {
            continue;
        }
        area3d.draw(&PathElement::new(
            vec![(x, bottom, z_near), (x, bottom, z_far), (x, top, z_far)],
            RGBColor(70, 70, 70).stroke_width(2),
        ))?;
        ts.text(
            area3d,
            (x, top, z_far),
            (-6, 8),
            &label,
            &style(15, TEXT_GREY, HPos::Right, VPos::Top),
        )?;
    }

    // Quads of the grid (triangles at its ragged edge), far ones first.
    let mut faces: Vec<(i64, Vec<Point3>, f64)> = Vec::new();
    for i in 0..xs.len().saturating_sub(1) {
        for j in 0..zs.len().saturating_sub(1) {
            // Each corner with its value (the colour is the mean value's).
            let corners: Vec<(Point3, f64)> = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
                .iter()
                .filter_map(|&(a, b)| {
                    let v = grid.values[a][b]?;
                    Some(((xs[a], scale.y(v)?, zs[b]), v))
                })
                .collect();
            if corners.len() < 3 {
                continue;
            }
            let n = corners.len();
            let mean = corners.iter().map(|c| c.1).sum::<f64>() / n as f64;
            let corners: Vec<Point3> = corners.into_iter().map(|c| c.0).collect();
            let d = corners.iter().map(|c| i64::from(depth(c))).sum::<i64>() / n as i64;
            faces.push((d, corners, mean));
        }
    }
    faces.sort_by_key(|f| std::cmp::Reverse(f.0));
    let edge = RGBColor(30, 30, 30).mix(0.45);
    for (_, corners, mean) in &faces {
        area3d.draw(&Polygon::new(
            corners.clone(),
            color_of(scale, *mean).filled(),
        ))?;
        let mut outline = corners.clone();
        outline.push(corners[0]);
        area3d.draw(&PathElement::new(outline, edge.stroke_width(1)))?;
    }
    // Points no face covers (a sparse grid) still show.
    for (i, row) in grid.values.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let Some((v, y)) = v.and_then(|v| Some((v, scale.y(v)?))) else {
                continue;
            };
            let p = (xs[i], y, zs[j]);
            if !faces.iter().any(|f| f.1.contains(&p)) {
                area3d.draw(&Circle::new(p, 5, color_of(scale, v).filled()))?;
            }
        }
    }

    // Tick labels and axis titles, on the near edges, pointing away from the box.
    // translate() gives pixels of the whole image; `plot` draws relative to its corner.
    let base = plot.get_base_pixel();
    let px = |p: Point3| {
        let (x, y) = coord.translate(&p);
        (x - base.0, y - base.1)
    };
    let centre = {
        let (a, b) = (px((x0, bottom, z0)), px((x1, top, z1)));
        ((a.0 + b.0) / 2, (a.1 + b.1) / 2)
    };
    // The vertical edge for the value axis: the leftmost of the two side edges.
    let (yx, yz) = [(x_far, z_near), (x_near, z_far)]
        .into_iter()
        .min_by_key(|&(x, z)| px((x, bottom, z)).0)
        .unwrap_or((x0, z0));
    let axes: [(Vec<Point3>, Point3, Point3, &str); 3] = [
        (
            x_ticks.iter().map(|&x| (x, bottom, z_near)).collect(),
            (x0, bottom, z_near),
            (x1, bottom, z_near),
            "File size",
        ),
        (
            z_ticks.iter().map(|&z| (x_near, bottom, z)).collect(),
            (x_near, bottom, z0),
            (x_near, bottom, z1),
            "Record size",
        ),
        (
            y_ticks.iter().map(|&y| (yx, y, yz)).collect(),
            (yx, bottom, yz),
            (yx, top, yz),
            "",
        ),
    ];
    let axis_style = BLACK.mix(0.8).stroke_width(1);
    for (k, (ticks, from, to, title)) in axes.iter().enumerate() {
        let (a, b) = (px(*from), px(*to));
        plot.draw(&PathElement::new(vec![a, b], axis_style))?;
        let n = outward_normal(a, b, centre);
        let (h, v) = anchor_for(n);
        let label_style = style(LABEL_SIZE, BLACK, h, v);
        let texts: Vec<String> = ticks
            .iter()
            .map(|p| match k {
                0 => size_tick(p.0),
                1 => size_tick(p.2),
                _ => scale.tick_label(p.1),
            })
            .collect();
        let out = stagger_step(a, b, n, ticks.len(), &texts);
        for (i, (&p, text)) in ticks.iter().zip(&texts).enumerate() {
            let q = px(p);
            // Every other label one row further out where one row would touch.
            let reach = 12.0 + if i % 2 == 1 { out } else { 0.0 };
            let tip = (
                q.0 + (n.0 * (reach - 5.0)) as i32,
                q.1 + (n.1 * (reach - 5.0)) as i32,
            );
            plot.draw(&PathElement::new(vec![q, tip], axis_style))?;
            let at = (q.0 + (n.0 * reach) as i32, q.1 + (n.1 * reach) as i32);
            ts.text(&plot, at, (0, 0), text, &label_style)?;
        }
        if !title.is_empty() {
            let mid = ((a.0 + b.0) / 2, (a.1 + b.1) / 2);
            let away = 75.0 + out;
            let at = (mid.0 + (n.0 * away) as i32, mid.1 + (n.1 * away) as i32);
            ts.text(
                &plot,
                at,
                (0, 0),
                title,
                &style(19, BLACK, HPos::Center, VPos::Center),
            )?;
        }
    }
    let y_top = px((yx, top, yz));
    ts.text(
        &plot,
        y_top,
        (0, -16),
        scale.unit,
        &style(18, BLACK, HPos::Center, VPos::Bottom),
    )?;

    draw_color_bar(&bar, ts, scale)
}

/// How much further out every other label of the axis a–b (`n` its outward
/// normal, `count` evenly spaced ticks) goes so that neighbours do not
/// touch: 0 when one row has room.
fn stagger_step(
    a: (i32, i32),
    b: (i32, i32),
    n: (f64, f64),
    count: usize,
    texts: &[String],
) -> f64 {
    if count < 2 {
        return 0.0;
    }
    let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let size = f64::from(LABEL_SIZE);
    let widest = texts
        .iter()
        .map(|t| text_width(t, size))
        .fold(0.0, f64::max);
    // The extent of a label box along the axis and across it.
    let along = widest * ux.abs() + size * uy.abs();
    let across = widest * n.0.abs() + size * n.1.abs();
    // The ticks span the axis less its padding; a close estimate suffices.
    let spacing = len / count as f64;
    if spacing < along + 4.0 {
        across + 2.0
    } else {
        0.0
    }
}

/// The unit normal of the screen segment a–b that points away from `centre`.
fn outward_normal(a: (i32, i32), b: (i32, i32), centre: (i32, i32)) -> (f64, f64) {
    let (dx, dy) = (f64::from(b.0 - a.0), f64::from(b.1 - a.1));
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (nx, ny) = (-dy / len, dx / len);
    let mid = (f64::from(a.0 + b.0) / 2.0, f64::from(a.1 + b.1) / 2.0);
    let out = (mid.0 - f64::from(centre.0), mid.1 - f64::from(centre.1));
    if nx * out.0 + ny * out.1 < 0.0 {
        (-nx, -ny)
    } else {
        (nx, ny)
    }
}

/// The text anchor that puts a label on the far side of its point along `n`.
fn anchor_for(n: (f64, f64)) -> (HPos, VPos) {
    let h = if n.0 < -0.3 {
        HPos::Right
    } else if n.0 > 0.3 {
        HPos::Left
    } else {
        HPos::Center
    };
    let v = if n.1 > 0.3 {
        VPos::Top
    } else if n.1 < -0.3 {
        VPos::Bottom
    } else {
        VPos::Center
    };
    (h, v)
}

/// The colour scale of the surface, lowest value at the bottom (log-spaced
/// on a log scale).
fn draw_color_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    scale: &ValueScale,
) -> DrawResult<(), DB> {
    let (lo, hi) = scale.extent();
    let (_, h) = area.dim_in_pixel();
    let (x, width) = (20, 28);
    let (y_top, y_bottom) = (70, h as i32 - 70);
    ts.text(
        area,
        (x + width / 2, y_top - 16),
        (0, 0),
        scale.unit,
        &style(18, BLACK, HPos::Center, VPos::Bottom),
    )?;
    let steps = 100;
    let span = f64::from(y_bottom - y_top);
    for k in 0..steps {
        let t0 = f64::from(k) / f64::from(steps);
        let t1 = f64::from(k + 1) / f64::from(steps);
        let ya = y_bottom - (t1 * span).round() as i32;
        let yb = y_bottom - (t0 * span).round() as i32;
        let color = ViridisRGB.get_color(((t0 + t1) / 2.0) as f32);
        // One pixel of overlap: no seams between the steps where the viewer smooths edges.
        area.draw(&Rectangle::new(
            [(x, ya), (x + width, (yb + 1).min(y_bottom))],
            color.filled(),
        ))?;
    }
    area.draw(&Rectangle::new(
        [(x, y_top), (x + width, y_bottom)],
        BLACK.mix(0.6).stroke_width(1),
    ))?;
    let log = scale.is_log() && lo > 0.0;
    let labels: Vec<(f64, f64)> = if hi > lo {
        (0..=4)
            .map(|k| {
                let t = f64::from(k) / 4.0;
                let v = if log {
                    lo * (hi / lo).powf(t)
                } else {
                    lo + t * (hi - lo)
                };
                (t, v)
            })
            .collect()
    } else {
        vec![(0.5, lo)]
    };
    let label_style = style(15, BLACK, HPos::Left, VPos::Center);
    for (t, v) in labels {
        let y = y_bottom - (t * span).round() as i32;
        area.draw(&PathElement::new(
            vec![(x + width, y), (x + width + 6, y)],
            BLACK.stroke_width(1),
        ))?;
        let text = scale.value_text(v);
        ts.text(area, (x + width + 10, y), (0, 0), &text, &label_style)?;
    }
    Ok(())
}
