//! Plots of a run (--plots DIR): for each reported pass, its value over file
//! size × record size as a 3-D surface, in the spirit of IOzone's Excel surface
//! plots, written as PNG and SVG. Both size axes are log2. The file-size axis is
//! split where the file outgrows the CPU's last-level cache and then the RAM
//! (page cache) of the machine that ran it. Runs with one file size, one record
//! size or one cell get 2-D plots instead.
//!
//! Text is drawn with DejaVu Sans, embedded from assets/fonts, never a system
//! font. Plotters' ab_glyph text drawing drops each glyph's left side bearing,
//! which spaces PNG text unevenly ("12 8K"), so PNG text is set glyph by glyph
//! from the font's own metrics; SVG text stays whole strings for the viewer to
//! lay out. All labels are drawn here for that reason, none by plotters.

use std::fs;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Once, OnceLock};

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::{CoordTranslate, Shift};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use super::layout::TableLayout;
use crate::config::OutputUnit;
use crate::env::Environment;
use crate::result::{PhaseResult, RunResult, RunStatus};
use crate::workload::Pass;

/// Width and height of every plot, in pixels (PNG) or user units (SVG).
pub const PLOT_SIZE: (u32, u32) = (1200, 900);

/// The family every text of a plot asks for. The embedded font is registered
/// under this generic name, so an SVG viewer without DejaVu falls back sensibly.
const FONT: &str = "sans-serif";
static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

const TITLE_HEIGHT: u32 = 84;
const CAPTION_HEIGHT: u32 = 60;
const COLOR_BAR_WIDTH: u32 = 150;

/// Colours of the file-size regions: CPU cache, page cache, device.
const REGION_COLORS: [RGBColor; 3] = [
    RGBColor(214, 96, 77),
    RGBColor(67, 147, 195),
    RGBColor(120, 120, 120),
];
const LINE_COLOR: RGBColor = RGBColor(33, 102, 172);
const TEXT_GREY: RGBColor = RGBColor(60, 60, 60);

type DrawResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn register_embedded_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are the TrueType font checked in with the source; were they
        // refused, text would be missing from the plots, nothing worse.
        let _ = register_font(FONT, FontStyle::Normal, DEJAVU_SANS);
    });
}

/// File-name stem of a pass's plots: its name with dashes ("random-read").
pub fn pass_slug(pass: Pass) -> String {
    pass.name().replace(' ', "-")
}

/// The passes that get a plot, in table order.
pub fn plotted_passes(result: &RunResult) -> Vec<Pass> {
    TableLayout::for_config(&result.config).reported_passes(&result.config)
}

/// Writes the run's plots into `dir` (created if missing); returns the files written.
pub fn write_plots(result: &RunResult, dir: &Path) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for pass in plotted_passes(result) {
        let slug = pass_slug(pass);
        let png = dir.join(format!("{slug}.png"));
        write_png(result, pass, &png)?;
        written.push(png);
        let svg = dir.join(format!("{slug}.svg"));
        fs::write(&svg, plot_svg(result, pass)?)?;
        written.push(svg);
    }
    Ok(written)
}

fn write_png(result: &RunResult, pass: Pass, path: &Path) -> io::Result<()> {
    register_embedded_font();
    let root = BitMapBackend::new(path, PLOT_SIZE).into_drawing_area();
    let setter = Typesetter {
        per_glyph: font_metrics().is_some(),
    };
    draw_plot(&root, setter, result, pass).map_err(draw_error)?;
    root.present().map_err(draw_error)
}

/// The plot of one pass as an SVG document (for files and for the HTML report).
pub fn plot_svg(result: &RunResult, pass: Pass) -> io::Result<String> {
    register_embedded_font();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, PLOT_SIZE).into_drawing_area();
        let setter = Typesetter { per_glyph: false };
        draw_plot(&root, setter, result, pass).map_err(draw_error)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

fn draw_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("cannot draw the plot: {e}"))
}

/// Draws text: whole strings (SVG, laid out by the viewer) or glyph by glyph
/// at the font's own offsets (PNG, see the module note).
#[derive(Clone, Copy)]
struct Typesetter {
    per_glyph: bool,
}

/// A text style of the embedded font.
fn style(size: u32, color: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle {
        font: (FONT, size).into_font(),
        color: color.to_backend_color(),
        pos: Pos::new(h, v),
    }
}

impl Typesetter {
    /// `text` anchored (per `style.pos`) at `at` moved by `offset` pixels.
    fn text<DB: DrawingBackend, CT: CoordTranslate>(
        self,
        area: &DrawingArea<DB, CT>,
        at: CT::From,
        offset: (i32, i32),
        text: &str,
        style: &TextStyle,
    ) -> DrawResult<(), DB>
    where
        CT::From: Clone,
    {
        let metrics = match font_metrics() {
            Some(m) if self.per_glyph => m,
            _ => {
                return area.draw(
                    &(EmptyElement::at(at) + Text::new(text.to_string(), offset, style.clone())),
                );
            }
        };
        let scale = style.font.get_size() / metrics.height_units;
        let width: f64 = text.chars().map(|c| metrics.glyph(c).1 * scale).sum();
        let start = match style.pos.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        let glyph_style = style.pos(Pos::new(HPos::Left, style.pos.v_pos));
        let mut pen = start;
        for c in text.chars() {
            let (x_min, advance) = metrics.glyph(c);
            if !c.is_whitespace() {
                let x = offset.0 + pen.round() as i32 + (x_min * scale).floor() as i32;
                area.draw(
                    &(EmptyElement::at(at.clone())
                        + Text::new(c.to_string(), (x, offset.1), glyph_style.clone())),
                )?;
            }
            pen += advance * scale;
        }
        Ok(())
    }
}

/// What the text drawing needs from the embedded font's tables: per glyph,
/// the left edge of its outline and its advance, in font units.
struct FontMetrics {
    /// Ascent minus descent: ab_glyph scales a font of size `s` by `s / height`.
    height_units: f64,
    cmap: &'static [u8],
    hmtx: &'static [u8],
    loca: &'static [u8],
    glyf: &'static [u8],
    long_loca: bool,
    h_metrics: usize,
}

fn font_metrics() -> Option<&'static FontMetrics> {
    static METRICS: OnceLock<Option<FontMetrics>> = OnceLock::new();
    METRICS
        .get_or_init(|| FontMetrics::parse(DEJAVU_SANS))
        .as_ref()
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

impl FontMetrics {
    fn parse(font: &'static [u8]) -> Option<FontMetrics> {
        let table = |tag: &[u8; 4]| -> Option<&'static [u8]> {
            (0..usize::from(be16(font, 4)?))
                .map(|i| 12 + 16 * i)
                .find(|&r| font.get(r..r + 4) == Some(&tag[..]))
                .and_then(|r| {
                    let start = be32(font, r + 8)? as usize;
                    font.get(start..start + be32(font, r + 12)? as usize)
                })
        };
        let head = table(b"head")?;
        let hhea = table(b"hhea")?;
        let cmap = table(b"cmap")?;
        // The Unicode BMP subtable (format 4): Windows (3, 1) or Unicode (0, x).
        let cmap4 = (0..usize::from(be16(cmap, 2)?))
            .map(|i| 4 + 8 * i)
            .filter_map(|r| {
                let platform = be16(cmap, r)?;
                let encoding = be16(cmap, r + 2)?;
                let sub = cmap.get(be32(cmap, r + 4)? as usize..)?;
                let bmp = (platform == 3 && encoding == 1) || platform == 0;
                (bmp && be16(sub, 0)? == 4).then_some(sub)
            })
            .next()?;
        let ascent = be16(hhea, 4)? as i16;
        let descent = be16(hhea, 6)? as i16;
        Some(FontMetrics {
            height_units: f64::from(ascent) - f64::from(descent),
            cmap: cmap4,
            hmtx: table(b"hmtx")?,
            loca: table(b"loca")?,
            glyf: table(b"glyf")?,
            long_loca: be16(head, 50)? == 1,
            h_metrics: usize::from(be16(hhea, 34)?),
        })
    }

    fn glyph_id(&self, c: char) -> u16 {
        let Ok(c) = u16::try_from(u32::from(c)) else {
            return 0;
        };
        let t = self.cmap;
        let lookup = || -> Option<u16> {
            let segs = usize::from(be16(t, 6)? / 2);
            let ends = 14;
            let starts = ends + 2 * segs + 2;
            let deltas = starts + 2 * segs;
            let offsets = deltas + 2 * segs;
            let i = (0..segs).find(|&i| be16(t, ends + 2 * i).is_some_and(|e| e >= c))?;
            let start = be16(t, starts + 2 * i)?;
            if start > c {
                return None;
            }
            let delta = be16(t, deltas + 2 * i)?;
            let offset = usize::from(be16(t, offsets + 2 * i)?);
            if offset == 0 {
                return Some(c.wrapping_add(delta));
            }
            let g = be16(t, offsets + 2 * i + offset + 2 * usize::from(c - start))?;
            (g != 0).then(|| g.wrapping_add(delta))
        };
        lookup().unwrap_or(0)
    }

    /// (left edge of the outline, advance width) of `c`'s glyph, font units.
    fn glyph(&self, c: char) -> (f64, f64) {
        let g = usize::from(self.glyph_id(c));
        let advance = be16(self.hmtx, 4 * g.min(self.h_metrics.saturating_sub(1))).unwrap_or(0);
        let start = if self.long_loca {
            be32(self.loca, 4 * g).map(|o| o as usize)
        } else {
            be16(self.loca, 2 * g).map(|o| 2 * usize::from(o))
        };
        let x_min = start
            .and_then(|s| be16(self.glyf, s + 2))
            .map_or(0, |v| v as i16);
        (f64::from(x_min), f64::from(advance))
    }
}

/// The measured values of one pass on the file × record grid.
struct Grid {
    files: Vec<u64>,
    records: Vec<u64>,
    /// `values[file][record]`, `None` where the cell was not measured.
    values: Vec<Vec<Option<f64>>>,
}

impl Grid {
    fn of(result: &RunResult, pass: Pass) -> Grid {
        let unit = result.config.unit;
        let points: Vec<(u64, u64, f64)> = result
            .cells
            .iter()
            .filter_map(|c| {
                c.get(pass)
                    .map(|m| (c.cell.file_bytes, c.cell.record_bytes, m.value(unit) as f64))
            })
            .collect();
        let mut files: Vec<u64> = points.iter().map(|p| p.0).collect();
        files.sort_unstable();
        files.dedup();
        let mut records: Vec<u64> = points.iter().map(|p| p.1).collect();
        records.sort_unstable();
        records.dedup();
        let mut values = vec![vec![None; records.len()]; files.len()];
        for (f, r, v) in points {
            if let (Ok(i), Ok(j)) = (files.binary_search(&f), records.binary_search(&r)) {
                values[i][j] = Some(v);
            }
        }
        Grid {
            files,
            records,
            values,
        }
    }

    fn all(&self) -> impl Iterator<Item = f64> + '_ {
        self.values.iter().flatten().flatten().copied()
    }

    fn min_max(&self) -> (f64, f64) {
        self.all()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            })
    }
}

/// Where the file-size axis passes from one cache to the next.
struct Regions {
    /// Largest last-level cache, bytes.
    llc: Option<u64>,
    /// RAM, bytes: files above it cannot stay in the page cache.
    ram: Option<u64>,
}

impl Regions {
    fn of(env: &Environment) -> Regions {
        let ram = Some(env.memory_bytes).filter(|&b| b > 0);
        let llc = env
            .last_level_cache_bytes()
            .filter(|&b| b > 0 && ram.is_none_or(|r| b < r));
        Regions { llc, ram }
    }

    /// The named regions, as log2(bytes) bounds (`None`: unbounded).
    fn bands(&self) -> Vec<(&'static str, Option<f64>, Option<f64>)> {
        let (llc, ram) = (self.llc.map(lg), self.ram.map(lg));
        match (llc, ram) {
            (Some(c), Some(m)) => vec![
                ("CPU cache", None, Some(c)),
                ("page cache", Some(c), Some(m)),
                ("device", Some(m), None),
            ],
            (Some(c), None) => vec![
                ("CPU cache", None, Some(c)),
                ("page cache or device", Some(c), None),
            ],
            (None, Some(m)) => vec![
                ("CPU or page cache", None, Some(m)),
                ("device", Some(m), None),
            ],
            (None, None) => Vec::new(),
        }
    }

    /// The boundaries between regions: (label, log2 bytes).
    fn boundaries(&self) -> Vec<(String, f64)> {
        let mut b = Vec::new();
        if let Some(c) = self.llc {
            b.push((format!("LLC {}", human_size(c)), lg(c)));
        }
        if let Some(m) = self.ram {
            b.push((format!("RAM {}", human_size(m)), lg(m)));
        }
        b
    }

    /// One line that says what the marks on the file-size axis mean.
    fn caption(&self) -> String {
        match (self.llc, self.ram) {
            (Some(c), Some(m)) => format!(
                "File-size regions: CPU cache up to the {} last-level cache, page cache up to {} of RAM, device beyond.",
                human_size(c),
                human_size(m)
            ),
            (Some(c), None) => format!(
                "File-size regions: CPU cache up to the {} last-level cache. RAM size unknown: no page-cache/device boundary drawn.",
                human_size(c)
            ),
            (None, Some(m)) => format!(
                "File-size regions: device beyond {} of RAM. Last-level cache size unknown: no CPU-cache boundary drawn.",
                human_size(m)
            ),
            (None, None) => {
                "Cache and RAM sizes unknown: no CPU-cache, page-cache or device boundary drawn."
                    .to_string()
            }
        }
    }

    /// The region a file of `bytes` falls in, if any is known.
    fn region_of(&self, bytes: u64) -> Option<&'static str> {
        let x = lg(bytes);
        self.bands()
            .into_iter()
            .find(|(_, lo, hi)| lo.is_none_or(|l| x > l) && hi.is_none_or(|h| x <= h))
            .map(|(name, _, _)| name)
    }
}

fn lg(bytes: u64) -> f64 {
    (bytes.max(1) as f64).log2()
}

fn unlg(x: f64) -> u64 {
    x.exp2().round() as u64
}

/// "64 KiB", "1.5 GiB".
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut i = 0;
    while v >= 1024.0 && i + 1 < UNITS.len() {
        v /= 1024.0;
        i += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[i])
    } else {
        format!("{v:.1} {}", UNITS[i])
    }
}

/// Tick label of a size: "64K", "1M", "2G".
fn short_size(bytes: u64) -> String {
    let mut s = human_size(bytes);
    s = s.replace(" bytes", "").replace(" KiB", "K");
    s.replace(" MiB", "M")
        .replace(" GiB", "G")
        .replace(" TiB", "T")
}

/// A value with a k/M/G suffix: "2.5M".
fn compact(v: f64) -> String {
    let (div, suffix) = match v.abs() {
        a if a >= 1e9 => (1e9, "G"),
        a if a >= 1e6 => (1e6, "M"),
        a if a >= 1e4 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let x = v / div;
    // At most three significant digits, and no trailing zeros.
    let digits = if (x - x.round()).abs() < 1e-9 || x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 || (x * 10.0 - (x * 10.0).round()).abs() < 1e-6 {
        1
    } else {
        2
    };
    format!("{x:.digits$}{suffix}")
}

fn unit_label(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kB/s",
        OutputUnit::OpsPerSec => "ops/s",
        OutputUnit::MicrosPerOp => "µs/op",
    }
}

/// A round number at or above `v`, a little above it (1, 1.2, 1.5, 2, 2.5, 3,
/// 4, 5, 6 or 8 times a power of ten).
fn nice_top(v: f64) -> f64 {
    if v.is_nan() || v <= 0.0 {
        return 1.0;
    }
    let v = v * 1.04;
    let p = 10f64.powf(v.log10().floor());
    [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|&t| t >= v)
        .unwrap_or(10.0 * p)
}

/// Ticks for a value axis from 0 to `top` (a [`nice_top`]): 4 to 10 round steps.
fn value_ticks(top: f64) -> Vec<f64> {
    let e = top.log10().floor();
    let mut best: Option<(f64, f64)> = None;
    for p in [e - 2.0, e - 1.0, e] {
        for m in [1.0, 2.0, 2.5, 5.0] {
            let step = m * 10f64.powf(p);
            let n = top / step;
            if (n - n.round()).abs() < 1e-6 && (4.0..=10.0).contains(&n.round()) {
                let score = (n.round() - 6.0).abs();
                if best.is_none_or(|(s, _)| score < s) {
                    best = Some((score, step));
                }
            }
        }
    }
    let step = best.map_or(top / 5.0, |(_, s)| s);
    let n = (top / step).round() as usize;
    (0..=n).map(|k| k as f64 * step).collect()
}

/// A linear axis with the ticks it is given: log2 sizes (the sizes the run
/// measured) or values (round steps).
#[derive(Clone)]
struct TickedAxis {
    range: Range<f64>,
    ticks: Vec<f64>,
}

impl TickedAxis {
    /// An axis over `ticks`, `pad` beyond the first and the last.
    fn new(ticks: Vec<f64>, pad: f64) -> TickedAxis {
        let lo = ticks.first().copied().unwrap_or(0.0);
        let hi = ticks.last().copied().unwrap_or(1.0);
        TickedAxis {
            range: lo - pad..hi + pad,
            ticks,
        }
    }

    /// At most `max` of the ticks, evenly thinned.
    fn thinned(&self, max: usize) -> Vec<f64> {
        let step = self.ticks.len().div_ceil(max.max(1)).max(1);
        self.ticks.iter().step_by(step).copied().collect()
    }
}

impl Ranged for TickedAxis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = if span > 0.0 {
            (value - self.range.start) / span
        } else {
            0.5
        };
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        self.thinned(hint.max_num_points())
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

fn size_tick(x: f64) -> String {
    short_size(unlg(x))
}

/// The whole plot of one pass: title, the chart its data allows, caption.
fn draw_plot<DB: DrawingBackend>(
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

/// The measured points of one row or column, as (log2 size, value).
fn series(sizes: &[u64], value: impl Fn(usize) -> Option<f64>) -> (Vec<f64>, Vec<f64>) {
    sizes
        .iter()
        .enumerate()
        .filter_map(|(i, &s)| value(i).map(|v| (lg(s), v)))
        .unzip()
}

/// A 2-D chart over `x_axis` and values 0..`top`, with its labels: ticks,
/// `x_title` under the x axis, `unit` over the value axis.
fn chart_2d<'a, DB: DrawingBackend>(
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
fn draw_single<DB: DrawingBackend>(
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
fn draw_line<DB: DrawingBackend>(
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

/// A throughput-mode pass: over its worker counts when it ran several, else
/// each worker's rate. Returns the caption lines.
fn draw_throughput<DB: DrawingBackend>(
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

fn color_of(v: f64, lo: f64, hi: f64) -> RGBColor {
    let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
    ViridisRGB.get_color(t.clamp(0.0, 1.0) as f32)
}

type Point3 = (f64, f64, f64);

/// The surface: x = file size, y (up) = value, z = record size.
fn draw_surface<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    grid: &Grid,
    regions: &Regions,
    unit: &str,
) -> DrawResult<(), DB> {
    let (w, _) = area.dim_in_pixel();
    let (plot, bar) = area.split_horizontally(w - COLOR_BAR_WIDTH);
    let xs: Vec<f64> = grid.files.iter().map(|&b| lg(b)).collect();
    let zs: Vec<f64> = grid.records.iter().map(|&b| lg(b)).collect();
    let (lo, hi) = grid.min_max();
    let top = nice_top(hi);
    // Padding keeps the end labels of the two size axes apart at their shared corner.
    let pad = |v: &[f64]| (0.08 * (v[v.len() - 1] - v[0])).max(0.6);
    let x_axis = TickedAxis::new(xs.clone(), pad(&xs));
    let z_axis = TickedAxis::new(zs.clone(), pad(&zs));
    let y_axis = TickedAxis::new(value_ticks(top), 0.0);
    let (x_ticks, z_ticks, y_ticks) =
        (x_axis.thinned(10), z_axis.thinned(10), y_axis.ticks.clone());
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
    let (z_near, z_far) = if depth(&(x0, 0.0, z0)) < depth(&(x0, 0.0, z1)) {
        (z0, z1)
    } else {
        (z1, z0)
    };
    let (x_near, x_far) = if depth(&(x0, 0.0, z0)) < depth(&(x1, 0.0, z0)) {
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
            vec![(a, 0.0, z0), (b, 0.0, z0), (b, 0.0, z1), (a, 0.0, z1)],
            color.mix(0.16).filled(),
        ))?;
        area3d.draw(&Polygon::new(
            vec![
                (a, 0.0, z_far),
                (b, 0.0, z_far),
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
            vec![(x, 0.0, z_near), (x, 0.0, z_far), (x, top, z_far)],
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
            let corners: Vec<Point3> = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)]
                .iter()
                .filter_map(|&(a, b)| grid.values[a][b].map(|v| (xs[a], v, zs[b])))
                .collect();
            if corners.len() < 3 {
                continue;
            }
            let n = corners.len();
            let mean = corners.iter().map(|c| c.1).sum::<f64>() / n as f64;
            let d = corners.iter().map(|c| i64::from(depth(c))).sum::<i64>() / n as i64;
            faces.push((d, corners, mean));
        }
    }
    faces.sort_by_key(|f| std::cmp::Reverse(f.0));
    let edge = RGBColor(30, 30, 30).mix(0.45);
    for (_, corners, mean) in &faces {
        area3d.draw(&Polygon::new(
            corners.clone(),
            color_of(*mean, lo, hi).filled(),
        ))?;
        let mut outline = corners.clone();
        outline.push(corners[0]);
        area3d.draw(&PathElement::new(outline, edge.stroke_width(1)))?;
    }
    // Points no face covers (a sparse grid) still show.
    for (i, row) in grid.values.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            let Some(v) = *v else { continue };
            let p = (xs[i], v, zs[j]);
            if !faces.iter().any(|f| f.1.contains(&p)) {
                area3d.draw(&Circle::new(p, 5, color_of(v, lo, hi).filled()))?;
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
        let (a, b) = (px((x0, 0.0, z0)), px((x1, top, z1)));
        ((a.0 + b.0) / 2, (a.1 + b.1) / 2)
    };
    // The vertical edge for the value axis: the leftmost of the two side edges.
    let (yx, yz) = [(x_far, z_near), (x_near, z_far)]
        .into_iter()
        .min_by_key(|&(x, z)| px((x, 0.0, z)).0)
        .unwrap_or((x0, z0));
    let axes: [(Vec<Point3>, Point3, Point3, &str); 3] = [
        (
            x_ticks.iter().map(|&x| (x, 0.0, z_near)).collect(),
            (x0, 0.0, z_near),
            (x1, 0.0, z_near),
            "File size",
        ),
        (
            z_ticks.iter().map(|&z| (x_near, 0.0, z)).collect(),
            (x_near, 0.0, z0),
            (x_near, 0.0, z1),
            "Record size",
        ),
        (
            y_ticks.iter().map(|&y| (yx, y, yz)).collect(),
            (yx, 0.0, yz),
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
        let label_style = style(15, BLACK, h, v);
        for &p in ticks {
            let q = px(p);
            let tip = (q.0 + (n.0 * 7.0) as i32, q.1 + (n.1 * 7.0) as i32);
            plot.draw(&PathElement::new(vec![q, tip], axis_style))?;
            let text = match k {
                0 => size_tick(p.0),
                1 => size_tick(p.2),
                _ => compact(p.1),
            };
            let at = (q.0 + (n.0 * 12.0) as i32, q.1 + (n.1 * 12.0) as i32);
            ts.text(&plot, at, (0, 0), &text, &label_style)?;
        }
        if !title.is_empty() {
            let mid = ((a.0 + b.0) / 2, (a.1 + b.1) / 2);
            let at = (mid.0 + (n.0 * 75.0) as i32, mid.1 + (n.1 * 75.0) as i32);
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
        unit,
        &style(18, BLACK, HPos::Center, VPos::Bottom),
    )?;

    draw_color_bar(&bar, ts, lo, hi, unit)
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

/// The colour scale of the surface, lowest value at the bottom.
fn draw_color_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    ts: Typesetter,
    lo: f64,
    hi: f64,
    unit: &str,
) -> DrawResult<(), DB> {
    let (_, h) = area.dim_in_pixel();
    let (x, width) = (20, 28);
    let (y_top, y_bottom) = (70, h as i32 - 70);
    ts.text(
        area,
        (x + width / 2, y_top - 16),
        (0, 0),
        unit,
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
        area.draw(&Rectangle::new([(x, ya), (x + width, yb)], color.filled()))?;
    }
    area.draw(&Rectangle::new(
        [(x, y_top), (x + width, y_bottom)],
        BLACK.mix(0.6).stroke_width(1),
    ))?;
    let labels: Vec<(f64, f64)> = if hi > lo {
        (0..=4)
            .map(|k| {
                let t = f64::from(k) / 4.0;
                (t, lo + t * (hi - lo))
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
        ts.text(area, (x + width + 10, y), (0, 0), &compact(v), &label_style)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::env::CpuCache;
    use crate::result::sample_result;

    fn cells(args: &[&str], value: impl Fn(u64, u64) -> u64) -> (RunResult, Vec<Pass>) {
        let config = test_config(args);
        let passes = TableLayout::for_config(&config).reported_passes(&config);
        let rows = crate::result::sample_cells(&config, &passes, |f, r| value(f, r) << 10);
        (sample_result(config, rows), passes)
    }

    fn with_caches(mut r: RunResult) -> RunResult {
        r.environment.cpu_caches = vec![
            CpuCache {
                level: 1,
                kind: "Data".into(),
                size_bytes: 48 << 10,
            },
            CpuCache {
                level: 3,
                kind: "Unified".into(),
                size_bytes: 1 << 20,
            },
        ];
        r.environment.memory_bytes = 8 << 20;
        r
    }

    #[test]
    fn the_embedded_font_gives_its_metrics() {
        let m = font_metrics().expect("DejaVu Sans parses");
        assert!(m.height_units > 2000.0, "{}", m.height_units);
        let (one_left, one_advance) = m.glyph('1');
        assert!(one_left > 100.0, "'1' sits right of its origin: {one_left}");
        assert_eq!(m.glyph('2').1, one_advance, "digits share one advance");
        assert!(m.glyph('M').1 > m.glyph('i').1);
        assert_ne!(m.glyph_id('µ'), 0);
        assert_eq!(m.glyph_id('\u{10FFFF}'), 0);
    }

    #[test]
    fn slugs_are_file_names() {
        assert_eq!(pass_slug(Pass::RandomRead), "random-read");
        assert_eq!(pass_slug(Pass::Write), "write");
    }

    #[test]
    fn sizes_and_values_read_well() {
        assert_eq!(short_size(64 << 10), "64K");
        assert_eq!(short_size(512 << 20), "512M");
        assert_eq!(short_size(100 << 10), "100K");
        assert_eq!(human_size(3 << 29), "1.5 GiB");
        assert_eq!(compact(2_500_000.0), "2.5M");
        assert_eq!(compact(800.0), "800");
        assert_eq!(compact(50_000.0), "50k");
        assert_eq!(nice_top(0.0), 1.0);
        assert_eq!(nice_top(960.0), 1000.0);
        assert!(nice_top(1001.0) >= 1001.0);
    }

    #[test]
    fn regions_follow_the_environment() {
        let (r, _) = cells(&["-a", "-n", "64k", "-g", "1m", "-i", "0"], |_, _| 1);
        let none = Regions::of(&r.environment);
        assert!(none.bands().is_empty());
        assert!(none.caption().contains("unknown"));
        let r = with_caches(r);
        let known = Regions::of(&r.environment);
        assert_eq!(known.llc, Some(1 << 20));
        assert_eq!(known.ram, Some(8 << 20));
        assert_eq!(known.region_of(512 << 10), Some("CPU cache"));
        assert_eq!(known.region_of(4 << 20), Some("page cache"));
        assert_eq!(known.region_of(16 << 20), Some("device"));
        assert!(!known.caption().contains("unknown"));
    }

    #[test]
    fn every_shape_draws_an_svg_with_text() {
        let shapes: [&[&str]; 5] = [
            &["-a", "-n", "64k", "-g", "16m", "-i", "0", "-i", "1"],
            &["-s", "1m", "-r", "64k", "-i", "0"],
            &["-a", "-s", "1m", "-i", "0"],
            &["-a", "-n", "64k", "-g", "16m", "-r", "64k", "-i", "0"],
            &["-s", "64k", "-s", "1m", "-r", "4k", "-r", "64k", "-i", "0"],
        ];
        for args in shapes {
            let (r, passes) = cells(args, |f, rec| (f >> 10) + (rec >> 10));
            let r = with_caches(r);
            for pass in passes {
                let svg = plot_svg(&r, pass).unwrap();
                assert!(svg.starts_with("<svg"), "{args:?}");
                assert!(svg.trim_end().ends_with("</svg>"));
                assert!(svg.contains(pass.report_title()), "{args:?}");
            }
        }
    }

    #[test]
    fn a_pass_without_measurements_says_so() {
        let (mut r, _) = cells(&["-a", "-n", "64k", "-g", "256k", "-i", "0"], |_, _| 1);
        for c in &mut r.cells {
            c.measurements.clear();
        }
        let svg = plot_svg(&r, Pass::Write).unwrap();
        assert!(svg.contains("No measurements"));
    }

    #[test]
    fn write_plots_writes_png_and_svg_per_pass() {
        let (r, _) = cells(&["-a", "-n", "64k", "-g", "256k", "-i", "0"], |f, _| {
            f >> 10
        });
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("plots");
        let files = write_plots(&r, &out).unwrap();
        let names: Vec<_> = files
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            ["write.png", "write.svg", "rewrite.png", "rewrite.svg"]
        );
        let png = fs::read(&files[0]).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
}
