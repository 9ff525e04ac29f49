//! The comparison page's figures, drawn with the web pages' kit
//! (report::web): seed 004's mean ± sd bars and percent differences with
//! the band, seed 001's mountains on one scale, and a ratio heat grid.

use std::collections::BTreeSet;

use super::format::{percent, ratio, size_kb};
use crate::analysis::compare::{CellComparison, Moments, Verdict};
use crate::model::config::OutputUnit;
use crate::report::plots::{PlainAxis, number};
use crate::report::web::{
    Anchor, Axis, Frame, Paint, Path, Svg, Text, TextSize, better_worse_colour, height_colour,
    series, verdict_colour,
};

/// Each cell's label under a bar chart, and the axis's title: the record
/// size, or file and record size when the test covers several files.
fn cell_axis(cells: &[(u64, u64)]) -> Axis {
    let several_files = cells.iter().map(|c| c.0).collect::<BTreeSet<_>>().len() > 1;
    let labels = cells
        .iter()
        .map(|&(file, record)| {
            if several_files {
                format!("{}/{}", size_kb(file), size_kb(record))
            } else {
                size_kb(record)
            }
        })
        .collect();
    let title = if several_files {
        "file kB / record kB"
    } else {
        "record size (kB)"
    };
    Axis::bands(labels, title)
}

/// A label in the small size: the mountains' and the heat grid's.
fn small(x: f64, y: f64, text: &str) -> Text<'_> {
    Text::new(x, y, text).size(TextSize::Small)
}

/// A chart's title over its plot area.
fn heading(svg: &mut Svg, x: f64, title: &str) {
    svg.text(Text::new(x, 16.0, title).size(TextSize::Heading));
}

/// Seed 004's chart for one test: per cell (grouped by file size, then
/// record size) a bar per input at its mean, with a ±1 sd whisker.
/// `groups`: (file bytes, record bytes, each input's moments or None).
pub fn mean_sd_bars(
    title: &str,
    unit: OutputUnit,
    labels: &[String],
    groups: &[(u64, u64, Vec<Option<Moments>>)],
) -> String {
    let inputs = labels.len().max(1);
    let bar = 14.0_f64.min(60.0 / inputs as f64).max(5.0);
    let gap = 14.0;
    let group_w = bar * inputs as f64 + gap;
    let (left, top, plot_h) = (70.0, 30.0, 220.0);
    let width = (left + group_w * groups.len() as f64 + 20.0).max(420.0);
    let frame = Frame {
        left,
        top,
        right: width - 10.0,
        bottom: top + plot_h,
    };
    let x_axis = cell_axis(&groups.iter().map(|g| (g.0, g.1)).collect::<Vec<_>>());
    let legend_y = frame.bottom + x_axis.room_below() + 10.0;
    let height = legend_y + 10.0 + 18.0 * inputs.div_ceil(legend_columns(width, left)) as f64;
    let max = groups
        .iter()
        .flat_map(|g| g.2.iter().flatten())
        .map(|m| m.mean + m.sd.unwrap_or(0.0))
        .fold(0.0, f64::max);
    // Values in the run's unit; the axis reads in MB/s or GB/s (or k ops/s)
    // with round ticks, as every plot of ioz does.
    let y_axis = Axis::rates(unit, max);
    let y = |v: f64| frame.y(y_axis.at(v));
    let mut svg = Svg::new(width, height, title);
    heading(&mut svg, left, title);
    frame.draw_y(&mut svg, &y_axis);
    for (gi, (_, _, sides)) in groups.iter().enumerate() {
        let x0 = frame.x(x_axis.at(gi as f64)) - bar * inputs as f64 / 2.0;
        for (i, m) in sides.iter().enumerate() {
            let Some(m) = m else { continue };
            let x = x0 + i as f64 * bar;
            let tip = format!(
                "{}: {:.0} ± {} (n={})",
                labels[i],
                m.mean,
                m.sd.map(|v| format!("{v:.0}")).unwrap_or("-".into()),
                m.n
            );
            svg.rect(
                (x, y(m.mean)),
                (bar - 1.0, frame.bottom - y(m.mean)),
                Paint::fill(series(i)),
                Some(&tip),
            );
            if let Some(sd) = m.sd {
                let cx = x + (bar - 1.0) / 2.0;
                let (lo, hi) = (y((m.mean - sd).max(0.0)), y(m.mean + sd));
                svg.path(
                    &whisker(cx, lo, hi),
                    Paint::stroke("black").width(1.0),
                    None,
                );
            }
        }
    }
    svg.line(
        (frame.left, frame.bottom),
        (frame.right, frame.bottom),
        Paint::stroke("#333"),
    );
    frame.draw_x(&mut svg, &x_axis);
    legend(&mut svg, labels, left, legend_y, width);
    svg.finish()
}

/// A whisker from `lo` to `hi` at `cx`, with a cap at each end.
fn whisker(cx: f64, lo: f64, hi: f64) -> Path {
    Path::new()
        .move_to(cx, lo)
        .down_to(hi)
        .move_to(cx - 3.0, lo)
        .across(6.0)
        .move_to(cx - 3.0, hi)
        .across(6.0)
}

/// How many legend entries a row holds, 170 px each.
fn legend_columns(width: f64, left: f64) -> usize {
    (((width - left) / 170.0).floor() as usize).max(1)
}

fn legend(svg: &mut Svg, labels: &[String], x0: f64, y0: f64, width: f64) {
    let per_row = legend_columns(width, x0);
    for (i, l) in labels.iter().enumerate() {
        let x = x0 + (i % per_row) as f64 * 170.0;
        let y = y0 + (i / per_row) as f64 * 18.0;
        svg.key((x, y), series(i), &l.chars().take(24).collect::<String>());
    }
}

/// Seed 004's second chart: each cell's percent difference from the
/// baseline, coloured by verdict, with its 95 % interval and the band shaded.
pub fn percent_bars(title: &str, band: f64, cells: &[&CellComparison]) -> String {
    let bar = 16.0;
    let gap = 8.0;
    let (left, top, plot_h) = (70.0, 30.0, 200.0);
    let width = (left + (bar + gap) * cells.len() as f64 + 20.0).max(420.0);
    let frame = Frame {
        left,
        top,
        right: width - 10.0,
        bottom: top + plot_h,
    };
    let x_axis = cell_axis(
        &cells
            .iter()
            .map(|c| (c.cell.file_bytes, c.cell.record_bytes))
            .collect::<Vec<_>>(),
    )
    .slanted();
    let height = frame.bottom + x_axis.room_below();
    let pct = |v: f64| (v - 1.0) * 100.0;
    let reach = cells
        .iter()
        .flat_map(|c| {
            [
                c.percent,
                c.ci_low.map_or(0.0, pct),
                c.ci_high.map_or(0.0, pct),
            ]
        })
        .map(f64::abs)
        .fold(band * 1.5, f64::max);
    let y_axis = Axis::percent(reach);
    let y = |v: f64| frame.y(y_axis.at(v));
    let mut svg = Svg::new(width, height, title);
    heading(&mut svg, left, title);
    svg.rect(
        (frame.left, y(band)),
        (frame.width(), y(-band) - y(band)),
        Paint::fill("#d9d9d9").opacity(0.6),
        Some(&format!("band ±{band} %")),
    );
    frame.draw_y(&mut svg, &y_axis);
    for (i, c) in cells.iter().enumerate() {
        let cx = frame.x(x_axis.at(i as f64));
        let (a, b) = (y(0.0), y(c.percent));
        let tip = format!(
            "{} kB / {} kB: {} ({})",
            size_kb(c.cell.file_bytes),
            size_kb(c.cell.record_bytes),
            percent(c.percent),
            c.verdict.name()
        );
        svg.rect(
            (cx - bar / 2.0, a.min(b)),
            (bar, (a - b).abs().max(0.5)),
            Paint::fill(verdict_colour(c.verdict)),
            Some(&tip),
        );
        if let (Some(lo), Some(hi)) = (c.ci_low, c.ci_high) {
            svg.path(
                &whisker(cx, y(pct(lo)), y(pct(hi))),
                Paint::stroke("black"),
                None,
            );
        }
    }
    frame.draw_x(&mut svg, &x_axis);
    svg.finish()
}

/// Seed 001's mountain: a surface over (record size, file size), drawn in
/// an oblique projection, its height `value / zmax` so that two mountains
/// drawn with one `zmax` share a scale.
pub fn mountain(
    title: &str,
    files: &[u64],
    records: &[u64],
    value: &dyn Fn(u64, u64) -> Option<f64>,
    zmax: f64,
    unit: OutputUnit,
) -> String {
    let (nx, ny) = (records.len().max(1) as f64, files.len().max(1) as f64);
    // The floor's diagonal spans 320 px whatever the grid; heights up to 150 px.
    let dx = 320.0 / (nx + ny);
    let dy = dx * 0.5;
    let zh = 150.0;
    let ox = 50.0 + ny * dx;
    let oy = 40.0 + zh;
    let (w, h) = (50.0 + (nx + ny) * dx + 90.0, oy + (nx + ny) * dy + 60.0);
    let p = |xi: f64, yi: f64, z: f64| (ox + (xi - yi) * dx, oy + (xi + yi) * dy - z * zh);
    let mut svg = Svg::new(w, h, title);
    heading(&mut svg, 10.0, title);
    let z = |fi: usize, ri: usize| -> Option<f64> {
        value(files[fi], records[ri]).map(|v| (v / zmax).clamp(0.0, 1.0))
    };
    // The floor's outline, then the tiles from the back to the front.
    svg.path(
        &Path::polygon(&[
            p(0.0, 0.0, 0.0),
            p(nx, 0.0, 0.0),
            p(nx, ny, 0.0),
            p(0.0, ny, 0.0),
        ]),
        Paint::fill("#f4f4f4").and_stroke("#bbb"),
        None,
    );
    let mut tiles: Vec<(usize, usize)> = (0..files.len())
        .flat_map(|fi| (0..records.len()).map(move |ri| (fi, ri)))
        .collect();
    tiles.sort_by_key(|&(fi, ri)| fi + ri);
    for (fi, ri) in tiles {
        let Some(v) = z(fi, ri) else { continue };
        let (x, y) = (ri as f64, fi as f64);
        let top = [
            p(x, y, v),
            p(x + 1.0, y, v),
            p(x + 1.0, y + 1.0, v),
            p(x, y + 1.0, v),
        ];
        let front_r = [
            p(x + 1.0, y, v),
            p(x + 1.0, y + 1.0, v),
            p(x + 1.0, y + 1.0, 0.0),
            p(x + 1.0, y, 0.0),
        ];
        let front_l = [
            p(x, y + 1.0, v),
            p(x + 1.0, y + 1.0, v),
            p(x + 1.0, y + 1.0, 0.0),
            p(x, y + 1.0, 0.0),
        ];
        let colour = height_colour(v);
        let tip = format!(
            "{} kB file, {} kB records: {:.0}",
            size_kb(files[fi]),
            size_kb(records[ri]),
            v * zmax
        );
        for (face, shade) in [(front_r, 0.75), (front_l, 0.6), (top, 1.0)] {
            svg.path(
                &Path::polygon(&face),
                Paint::fill(&colour)
                    .fill_opacity(shade)
                    .and_stroke("#555")
                    .width(0.4),
                Some(&tip),
            );
        }
    }
    // Axis labels along the floor's front edges.
    for (ri, r) in records.iter().enumerate() {
        let (x, y) = p(ri as f64 + 0.5, ny, 0.0);
        svg.text(small(x + 4.0, y + 14.0, &size_kb(*r)).anchor(Anchor::Middle));
    }
    for (fi, f) in files.iter().enumerate() {
        let (x, y) = p(nx, fi as f64 + 0.5, 0.0);
        svg.text(small(x + 6.0, y + 8.0, &size_kb(*f)));
    }
    let (ax, ay) = p(nx / 2.0, ny, 0.0);
    svg.text(small(ax - 10.0, ay + 30.0, "record kB").anchor(Anchor::End));
    let (bx, by) = p(nx, ny / 2.0, 0.0);
    svg.text(small(bx + 30.0, by + 24.0, "file kB"));
    let top = PlainAxis::up_to(unit, zmax);
    let note = format!(
        "height: 0 … {} {} (shared scale)",
        number(zmax * top.factor),
        top.unit
    );
    svg.text(small(10.0, h - 6.0, &note).fill("#555"));
    svg.finish()
}

/// A ratio heat grid: rows file size, columns record size, red (slower)
/// through white to green (faster), the ratio written in each cell and
/// cells with a verdict framed.
pub fn ratio_heat(title: &str, cells: &[&CellComparison], higher_is_better: bool) -> String {
    let files: BTreeSet<u64> = cells.iter().map(|c| c.cell.file_bytes).collect();
    let records: BTreeSet<u64> = cells.iter().map(|c| c.cell.record_bytes).collect();
    let (cw, ch, left, top) = (52.0, 24.0, 70.0, 58.0);
    let width = left + cw * records.len() as f64 + 20.0;
    let height = top + ch * files.len() as f64 + 30.0;
    let mut svg = Svg::new(width, height, title);
    heading(&mut svg, 10.0, title);
    for (j, r) in records.iter().enumerate() {
        let x = left + cw * (j as f64 + 0.5);
        svg.text(small(x, top - 6.0, &size_kb(*r)).anchor(Anchor::Middle));
    }
    svg.text(small(left, top - 20.0, "record kB →"));
    for (i, f) in files.iter().enumerate() {
        let y = top + ch * i as f64;
        svg.text(small(left - 6.0, y + ch / 2.0 + 4.0, &size_kb(*f)).anchor(Anchor::End));
        for (j, r) in records.iter().enumerate() {
            let Some(c) = cells
                .iter()
                .find(|c| c.cell.file_bytes == *f && c.cell.record_bytes == *r)
            else {
                continue;
            };
            // log2 of the ratio, ±1 (half or double) at full colour.
            let better = c.ratio.log2() * if higher_is_better { 1.0 } else { -1.0 };
            let x = left + cw * j as f64;
            let (stroke, stroke_width) = match c.verdict {
                Verdict::Same => ("#ccc", 1.0),
                v => (verdict_colour(v), 2.0),
            };
            let tip = format!("{}: {}", percent(c.percent), c.verdict.name());
            svg.rect(
                (x, y),
                (cw, ch),
                Paint::fill(&better_worse_colour(better))
                    .and_stroke(stroke)
                    .width(stroke_width),
                Some(&tip),
            );
            svg.text(
                small(x + cw / 2.0, y + ch / 2.0 + 4.0, &ratio(c.ratio)).anchor(Anchor::Middle),
            );
        }
    }
    svg.text(small(
        10.0,
        top + ch * files.len() as f64 + 18.0,
        "file kB ↓",
    ));
    svg.finish()
}
