//! The comparison page's figures, drawn with the web pages' kit
//! (report::web), each at its own size within the page: seed 004's mean ±
//! sd bars and percent differences as small multiples (a panel per file
//! size, record sizes along each, every panel on the test's one value
//! axis; the percent axis shared by every input and clipped where a few
//! bars reach far beyond the rest, those bars marked), seed 001's mountains
//! on one scale in the plots' colour map with its key, and a ratio heat
//! grid coloured beyond the band.

use std::collections::BTreeSet;

use super::format::{percent, ratio, size_kb};
use super::look::{heat_fill, look};
use crate::analysis::compare::{CellComparison, Moments, Verdict};
use crate::model::config::OutputUnit;
use crate::report::plots::{PlainAxis, number};
use crate::report::web::{
    Anchor, Axis, Margins, Paint, Panels, Path, Svg, Text, TextSize, height_colour, series,
};

/// The widest figure: the page's column.
pub const MAX_WIDTH: f64 = 1220.0;

/// A panel's plot area height.
const PLOT_HEIGHT: f64 = 170.0;

/// The heading of a figure, above its panels.
const HEAD: f64 = 30.0;

/// How a test's cells are laid out in panels: a panel per file size with
/// the record sizes along it, or (a test of one record size and several
/// files) one panel with the file sizes along it.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Each panel's file size; `None`: the one panel of every file.
    panels: Vec<Option<u64>>,
    /// The categories along every panel: record sizes, or file sizes.
    bands: Vec<u64>,
    by_file: bool,
}

impl Layout {
    /// The layout of a test's cells (file bytes, record bytes).
    pub fn of(cells: &[(u64, u64)]) -> Layout {
        let files: BTreeSet<u64> = cells.iter().map(|c| c.0).collect();
        let records: BTreeSet<u64> = cells.iter().map(|c| c.1).collect();
        if records.len() == 1 && files.len() > 1 {
            Layout {
                panels: vec![None],
                bands: files.into_iter().collect(),
                by_file: true,
            }
        } else {
            Layout {
                panels: files.into_iter().map(Some).collect(),
                bands: records.into_iter().collect(),
                by_file: false,
            }
        }
    }

    /// Panel and band of a cell, if it is in the layout.
    fn place(&self, file: u64, record: u64) -> Option<(usize, usize)> {
        let (panel, band) = if self.by_file {
            (None, file)
        } else {
            (Some(file), record)
        };
        Some((
            self.panels.iter().position(|&p| p == panel)?,
            self.bands.iter().position(|&b| b == band)?,
        ))
    }

    /// The widest of the labels along the panels, px.
    fn widest_label(&self) -> f64 {
        self.bands
            .iter()
            .map(|&b| TextSize::Body.width_of(&size_kb(b)))
            .fold(0.0, f64::max)
    }

    /// How wide a band is: `slot` for its bars, or room for its label
    /// standing upright when that is a little more (a kB number of up to 5
    /// digits); a longer label (8-byte records' 0.0078125) slants instead.
    fn band_width(&self, slot: f64) -> f64 {
        let label = self.widest_label() + 6.0;
        if label <= 40.0 { slot.max(label) } else { slot }
    }

    /// The axis along every panel, its unit in the title, its labels
    /// slanted when they would not fit their band.
    fn x_axis(&self, band_width: f64) -> Axis {
        let labels: Vec<String> = self.bands.iter().map(|&b| size_kb(b)).collect();
        let title = if self.by_file {
            "file size (kB)"
        } else {
            "record size (kB)"
        };
        let axis = Axis::bands(labels, title);
        if self.widest_label() > band_width - 4.0 {
            axis.slanted()
        } else {
            axis
        }
    }

    /// A panel's title: its file size.
    fn title(&self, panel: usize) -> String {
        match self.panels[panel] {
            Some(file) => format!("{} kB file", size_kb(file)),
            None => String::new(),
        }
    }

    /// The panels of `slot` px per band, with `extra_head` px for a key
    /// under the figure's title.
    fn panels(&self, slot: f64, x_axis: &Axis, extra_head: f64) -> Panels {
        let plot_w = (slot * self.bands.len() as f64).max(160.0);
        // Room left of the plot for the tick labels ("+100 %") and the
        // y axis's title beside them.
        let margins = Margins {
            left: 64.0,
            top: if self.by_file { 8.0 } else { 24.0 },
            right: 16.0,
            bottom: x_axis.room_below() + 4.0,
        };
        Panels::new(
            self.panels.len(),
            (plot_w, PLOT_HEIGHT),
            margins,
            HEAD + extra_head,
            MAX_WIDTH,
        )
    }
}

/// A figure's title.
fn heading(svg: &mut Svg, title: &str) {
    svg.text(Text::new(10.0, 18.0, title).size(TextSize::Heading));
}

/// Each panel's frame, title and axes (the y axis titled at the start of
/// each row only: the panels share it).
fn draw_panels(svg: &mut Svg, layout: &Layout, panels: &Panels, x_axis: &Axis, y_axis: &Axis) {
    for i in 0..layout.panels.len() {
        let frame = panels.frame(i);
        svg.text(Text::new(frame.left, frame.top - 8.0, &layout.title(i)).size(TextSize::Heading));
        let y = if panels.starts_row(i) {
            y_axis.clone()
        } else {
            y_axis.clone().titled("")
        };
        frame.draw_y(svg, &y);
        frame.draw_x(svg, x_axis);
        svg.line(
            (frame.left, frame.bottom),
            (frame.right, frame.bottom),
            Paint::stroke("#333"),
        );
    }
}

/// A bar's width for `inputs` bars side by side in a band.
fn bar_width(inputs: usize) -> f64 {
    match inputs {
        0..=2 => 9.0,
        3..=4 => 7.0,
        _ => 5.0,
    }
}

/// The gap between two bands' bars.
const GAP: f64 = 10.0;

/// Seed 004's chart for one test, as small multiples: per cell a bar per
/// input at its mean with a ±1 sd whisker, every panel on one rate axis.
/// `cells`: (file bytes, record bytes, each input's moments or None).
pub fn mean_sd_bars(
    title: &str,
    unit: OutputUnit,
    labels: &[String],
    cells: &[(u64, u64, Vec<Option<Moments>>)],
) -> String {
    let inputs = labels.len().max(1);
    let bar = bar_width(inputs);
    let layout = Layout::of(&cells.iter().map(|c| (c.0, c.1)).collect::<Vec<_>>());
    let slot = layout.band_width(bar * inputs as f64 + GAP);
    let x_axis = layout.x_axis(slot);
    // The key: a row of inputs (wrapped when they do not fit).
    let key_rows = key_rows(labels, MAX_WIDTH);
    let panels = layout.panels(slot, &x_axis, 22.0 * key_rows.len() as f64);
    let max = cells
        .iter()
        .flat_map(|c| c.2.iter().flatten())
        .map(|m| m.mean + m.sd.unwrap_or(0.0))
        .fold(0.0, f64::max);
    // Values in the run's unit; the axis reads in MB/s or GB/s (or k ops/s)
    // with round ticks, as every plot of ioz does.
    let y_axis = Axis::rates(unit, max);
    let width = panels.width().max(key_width(labels, &key_rows));
    let mut svg = Svg::new(width, panels.height(), title);
    heading(&mut svg, title);
    for (row, keys) in key_rows.iter().enumerate() {
        let mut x = 10.0;
        for &i in keys {
            let label = short(&labels[i]);
            svg.key((x, HEAD + 14.0 + 22.0 * row as f64), series(i), &label);
            x += key_entry_width(&label);
        }
    }
    draw_panels(&mut svg, &layout, &panels, &x_axis, &y_axis);
    for (file, record, sides) in cells {
        let Some((p, b)) = layout.place(*file, *record) else {
            continue;
        };
        let frame = panels.frame(p);
        let y = |v: f64| frame.y(y_axis.at(v));
        let x0 = frame.x(x_axis.at(b as f64)) - bar * inputs as f64 / 2.0;
        for (i, m) in sides.iter().enumerate() {
            let Some(m) = m else { continue };
            let x = x0 + i as f64 * bar;
            let tip = format!(
                "{}, {} kB file, {} kB records: {:.0} ± {} (n={})",
                labels[i],
                size_kb(*file),
                size_kb(*record),
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
                    &whisker(cx, lo, hi, bar / 2.0 - 1.0),
                    Paint::stroke("black").width(1.0),
                    None,
                );
            }
        }
    }
    svg.finish()
}

/// A label short enough for a key.
fn short(label: &str) -> String {
    const LONGEST: usize = 32;
    if label.chars().count() <= LONGEST {
        label.to_string()
    } else {
        let mut s: String = label.chars().take(LONGEST - 1).collect();
        s.push('…');
        s
    }
}

/// How wide a key's entry is: its swatch, its label, a gap.
fn key_entry_width(label: &str) -> f64 {
    16.0 + TextSize::Body.width_of(label) + 22.0
}

/// The inputs' keys in rows that fit `width`.
fn key_rows(labels: &[String], width: f64) -> Vec<Vec<usize>> {
    let mut rows: Vec<Vec<usize>> = vec![Vec::new()];
    let mut x = 10.0;
    for (i, label) in labels.iter().enumerate() {
        let w = key_entry_width(&short(label));
        if x + w > width
            && let Some(last) = rows.last()
            && !last.is_empty()
        {
            rows.push(Vec::new());
            x = 10.0;
        }
        if let Some(last) = rows.last_mut() {
            last.push(i);
        }
        x += w;
    }
    rows
}

/// The widest row of the key.
fn key_width(labels: &[String], rows: &[Vec<usize>]) -> f64 {
    rows.iter()
        .map(|r| {
            10.0 + r
                .iter()
                .map(|&i| key_entry_width(&short(&labels[i])))
                .sum::<f64>()
        })
        .fold(0.0, f64::max)
}

/// A whisker from `lo` to `hi` at `cx`, with a cap of half-width `cap` at each end.
fn whisker(cx: f64, lo: f64, hi: f64, cap: f64) -> Path {
    let cap = cap.clamp(2.0, 4.0);
    Path::new()
        .move_to(cx, lo)
        .down_to(hi)
        .move_to(cx - cap, lo)
        .across(2.0 * cap)
        .move_to(cx - cap, hi)
        .across(2.0 * cap)
}

/// The percent axis every input's percent chart of a test shares: over
/// every bar and interval of every input, clipped where a few reach far
/// beyond the rest.
pub fn shared_percent_axis(band: f64, cells: &[&CellComparison]) -> Axis {
    let pct = |v: f64| (v - 1.0) * 100.0;
    let values: Vec<f64> = cells
        .iter()
        .flat_map(|c| [Some(c.percent), c.ci_low.map(pct), c.ci_high.map(pct)])
        .flatten()
        .collect();
    Axis::percent_clipped(&values, band)
}

/// Seed 004's second chart, as small multiples on the test's shared
/// percent axis: each cell's percent difference from the baseline,
/// coloured by verdict, with its 95 % interval and the band shaded; a bar
/// beyond the axis ends at it, marked with an arrowhead and its value.
pub fn percent_bars(title: &str, band: f64, y_axis: &Axis, cells: &[&CellComparison]) -> String {
    let bar = 14.0;
    let layout = Layout::of(
        &cells
            .iter()
            .map(|c| (c.cell.file_bytes, c.cell.record_bytes))
            .collect::<Vec<_>>(),
    );
    let slot = layout.band_width(bar + GAP);
    let x_axis = layout.x_axis(slot);
    let panels = layout.panels(slot, &x_axis, 0.0);
    let mut svg = Svg::new(panels.width(), panels.height(), title);
    heading(&mut svg, title);
    for i in 0..layout.panels.len() {
        let frame = panels.frame(i);
        let y = |v: f64| frame.y(y_axis.at(v));
        svg.rect(
            (frame.left, y(band)),
            (frame.width(), y(-band) - y(band)),
            Paint::fill("#d9d9d9").opacity(0.6),
            Some(&format!("band ±{band} %")),
        );
    }
    draw_panels(&mut svg, &layout, &panels, &x_axis, y_axis);
    let pct = |v: f64| (v - 1.0) * 100.0;
    for c in cells {
        let Some((p, b)) = layout.place(c.cell.file_bytes, c.cell.record_bytes) else {
            continue;
        };
        let frame = panels.frame(p);
        let y = |v: f64| frame.y(y_axis.at(v));
        let cx = frame.x(x_axis.at(b as f64));
        let (a, end) = (y(0.0), y(c.percent));
        let tip = format!(
            "{} kB file, {} kB records: {} ({})",
            size_kb(c.cell.file_bytes),
            size_kb(c.cell.record_bytes),
            percent(c.percent),
            c.verdict.name()
        );
        let colour = look(c.verdict).ink;
        svg.rect(
            (cx - bar / 2.0, a.min(end)),
            (bar, (a - end).abs().max(0.5)),
            Paint::fill(colour),
            Some(&tip),
        );
        if let (Some(lo), Some(hi)) = (c.ci_low, c.ci_high) {
            svg.path(
                &whisker(cx, y(pct(lo)), y(pct(hi)), 3.0),
                Paint::stroke("black"),
                None,
            );
        }
        if y_axis.clipped(c.percent) {
            clipped_mark(
                &mut svg,
                cx,
                end,
                c.percent > 0.0,
                &percent(c.percent),
                &tip,
            );
        }
    }
    svg.finish()
}

/// The mark of a bar cut at the end of its axis: an arrowhead past the
/// end, and the bar's value to its left, inside the plot area.
fn clipped_mark(svg: &mut Svg, cx: f64, end: f64, up: bool, value: &str, tip: &str) {
    let dir = if up { -1.0 } else { 1.0 };
    let tip_y = end + dir * 8.0;
    svg.path(
        &Path::polygon(&[(cx - 6.0, end), (cx + 6.0, end), (cx, tip_y)]),
        Paint::fill("#111"),
        Some(&format!("{tip}: beyond the axis, cut at its end")),
    );
    svg.text(
        Text::new(cx - 8.0, end + if up { 10.0 } else { -4.0 }, value)
            .anchor(Anchor::End)
            .size(TextSize::Small)
            .fill("#111"),
    );
}

/// Seed 001's mountain: a surface over (record size, file size), drawn in
/// an oblique projection, its height and colour `value / zmax` so that two
/// mountains drawn with one `zmax` share a scale; the colours are the
/// plots' (the lowest deep purple, the highest yellow), with their key.
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
    let key_w = 90.0;
    let (w, h) = (
        50.0 + (nx + ny) * dx + 60.0 + key_w,
        oy + (nx + ny) * dy + 60.0,
    );
    let p = |xi: f64, yi: f64, z: f64| (ox + (xi - yi) * dx, oy + (xi + yi) * dy - z * zh);
    let mut svg = Svg::new(w, h, title);
    svg.text(Text::new(10.0, 18.0, title).size(TextSize::Heading));
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
    // Axis labels along the floor's front edges, each axis with its unit.
    for (ri, r) in records.iter().enumerate() {
        let (x, y) = p(ri as f64 + 0.5, ny, 0.0);
        svg.text(small(x + 4.0, y + 14.0, &size_kb(*r)).anchor(Anchor::Middle));
    }
    for (fi, f) in files.iter().enumerate() {
        let (x, y) = p(nx, fi as f64 + 0.5, 0.0);
        svg.text(small(x + 6.0, y + 8.0, &size_kb(*f)));
    }
    let (ax, ay) = p(nx / 2.0, ny, 0.0);
    svg.text(small(ax - 10.0, ay + 30.0, "record size (kB)").anchor(Anchor::End));
    let (bx, by) = p(nx, ny / 2.0, 0.0);
    svg.text(small(bx + 30.0, by + 24.0, "file size (kB)"));
    colour_key(&mut svg, w - key_w + 10.0, 50.0, zh, zmax, unit);
    svg.finish()
}

/// The key of the mountains' colours: the plots' colour map from 0 (at
/// the bottom) to `zmax`, in the unit that suits it, noted as shared.
fn colour_key(svg: &mut Svg, x: f64, top: f64, height: f64, zmax: f64, unit: OutputUnit) {
    let axis = PlainAxis::up_to(unit, zmax);
    let steps = 40;
    for k in 0..steps {
        let t = (f64::from(k) + 0.5) / f64::from(steps);
        let y = top + height * (1.0 - f64::from(k + 1) / f64::from(steps));
        svg.rect(
            (x, y),
            (16.0, height / f64::from(steps) + 0.5),
            Paint::fill(&height_colour(t)),
            None,
        );
    }
    svg.rect((x, top), (16.0, height), Paint::stroke("#555"), None);
    let top_value = zmax * axis.factor;
    for (t, v) in [(0.0, 0.0), (0.5, top_value / 2.0), (1.0, top_value)] {
        svg.text(small(x + 20.0, top + height * (1.0 - t) + 4.0, &number(v)));
    }
    svg.text(small(x, top - 10.0, axis.unit).fill("#333"));
    svg.text(small(x, top + height + 16.0, "one scale").fill("#555"));
    svg.text(small(x, top + height + 28.0, "for both").fill("#555"));
}

/// A label in the small size: the mountains' and the heat grid's.
fn small(x: f64, y: f64, text: &str) -> Text<'_> {
    Text::new(x, y, text).size(TextSize::Small)
}

/// A verdict in a tooltip: "same" says why (within the band of ±`band` %,
/// or not significant beyond it).
fn same_why(v: Verdict, percent: f64, band: f64) -> String {
    match v {
        Verdict::Same if percent.abs() <= band => format!("same (within ±{band} %)"),
        Verdict::Same => "same (not a significant difference)".into(),
        v => v.name().into(),
    }
}

/// A ratio heat grid: rows file size, columns record size, the ratio
/// written in each cell; coloured by the cell's verdict, red (slower) or
/// green (faster) and framed in its colour, white when the same whatever
/// the ratio (the band of ±`band` % only names why in the tooltip).
pub fn ratio_heat(
    title: &str,
    band: f64,
    cells: &[&CellComparison],
    higher_is_better: bool,
) -> String {
    let files: BTreeSet<u64> = cells.iter().map(|c| c.cell.file_bytes).collect();
    let records: BTreeSet<u64> = cells.iter().map(|c| c.cell.record_bytes).collect();
    let (cw, ch, left, top) = (52.0, 24.0, 70.0, 58.0);
    let width =
        (left + cw * records.len() as f64 + 20.0).max(TextSize::Heading.width_of(title) + 20.0);
    let height = top + ch * files.len() as f64 + 30.0;
    let mut svg = Svg::new(width, height, title);
    svg.text(Text::new(10.0, 18.0, title).size(TextSize::Heading));
    for (j, r) in records.iter().enumerate() {
        let x = left + cw * (j as f64 + 0.5);
        svg.text(small(x, top - 6.0, &size_kb(*r)).anchor(Anchor::Middle));
    }
    svg.text(small(left, top - 20.0, "record size (kB) →"));
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
            // Coloured by the verdict alone (compare/look.rs), deeper the
            // further the ratio is from 1.
            let better = c.ratio.log2() * if higher_is_better { 1.0 } else { -1.0 };
            let fill = heat_fill(c.verdict, better);
            let x = left + cw * j as f64;
            let (stroke, stroke_width) = match c.verdict {
                Verdict::Same => ("#ccc", 1.0),
                v => (look(v).ink, 2.0),
            };
            let tip = format!(
                "{}: {}",
                percent(c.percent),
                same_why(c.verdict, c.percent, band)
            );
            svg.rect(
                (x, y),
                (cw, ch),
                Paint::fill(&fill).and_stroke(stroke).width(stroke_width),
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
        "file size (kB) ↓",
    ));
    svg.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_is_a_panel_per_file_size_a_single_record_one_panel_of_files() {
        let grid = Layout::of(&[(64, 4), (64, 8), (128, 4), (128, 8), (128, 16)]);
        assert_eq!(grid.panels, [Some(64), Some(128)]);
        assert_eq!(grid.bands, [4, 8, 16]);
        assert_eq!(grid.place(128, 16), Some((1, 2)));
        assert_eq!(grid.place(64, 32), None);
        let files = Layout::of(&[(64, 4), (128, 4), (256, 4)]);
        assert_eq!(files.panels, [None]);
        assert_eq!(files.bands, [64, 128, 256]);
        assert_eq!(files.place(128, 4), Some((0, 1)));
        assert_eq!(Layout::of(&[(64, 4)]).panels, [Some(64)]);
    }

    #[test]
    fn keys_wrap_to_the_width() {
        let labels: Vec<String> = (0..6).map(|i| format!("configuration {i}")).collect();
        let rows = key_rows(&labels, 400.0);
        assert!(rows.len() > 1, "{rows:?}");
        assert_eq!(rows.concat(), (0..6).collect::<Vec<_>>());
        assert_eq!(short(&"x".repeat(40)).chars().count(), 32);
    }
}
