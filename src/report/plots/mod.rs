//! Plots of a run (--plots DIR): for each reported pass, its value over file
//! size × record size as a 3-D surface, in the spirit of IOzone's Excel surface
//! plots, and the two 2-D views that can be read off (value against file size,
//! a line per record size; value against record size, a line per file size),
//! each written as PNG and SVG. Both size axes are log2, with a tick for every
//! size measured. The file-size axis is split where the file outgrows the CPU's
//! last-level cache and then the RAM (page cache) of the machine that ran it.
//! Runs with one file size, one record size or one cell get one 2-D plot
//! instead; throughput runs, their rate over the worker counts. Values read in
//! MB/s or GB/s by magnitude (ops/s, µs/op under -O, -N), on each test's own
//! scale or one shared by all (`--plot-scale`), linear or log (`--plot-log`).
//!
//! Text is drawn with DejaVu Sans, embedded from assets/fonts, never a system
//! font. Plotters' ab_glyph text drawing drops each glyph's left side bearing,
//! which spaces PNG text unevenly ("12 8K"), so PNG text is set glyph by glyph
//! from the font's own metrics; SVG text stays whole strings for the viewer to
//! lay out. All labels are drawn here for that reason, none by plotters.

mod axis;
mod font;
mod grid;
mod labels;
mod lines;
mod output;
mod over_time;
mod page;
mod regions;
mod scale;
mod surface;
mod text;
mod throughput;
mod two_d;

use plotters::prelude::*;

use super::layout::TableLayout;
use crate::model::result::RunResult;
use crate::model::workload::Pass;

pub use axis::{nice_top, time_ticks, value_ticks};
pub use output::{plot_files, plot_svg};
pub use over_time::{OverTime, TimeLine, of_pass, of_phase, rate};
pub use scale::{PlainAxis, ValueScale, measured, number};

/// Width and height of every plot file, in pixels (PNG) or user units (SVG).
pub const PLOT_SIZE: (u32, u32) = (1200, 900);

/// Colours of the file-size regions: CPU cache, page cache, device.
const REGION_COLORS: [RGBColor; 3] = [
    RGBColor(214, 96, 77),
    RGBColor(67, 147, 195),
    RGBColor(120, 120, 120),
];
const LINE_COLOR: RGBColor = RGBColor(33, 102, 172);
const TEXT_GREY: RGBColor = RGBColor(60, 60, 60);

type DrawResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// The plots' colour map for values (viridis: deep purple for the lowest,
/// yellow for the highest; `t` from 0 to 1), as CSS writes a colour: the
/// web pages' charts that show a value by its colour use it too, so that a
/// colour means the same on a page as in a plot.
pub fn value_colour(t: f64) -> String {
    let c = ViridisRGB.get_color(t.clamp(0.0, 1.0) as f32);
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// File-name stem of a pass's plots: its name with dashes ("random-read").
pub fn pass_slug(pass: Pass) -> String {
    crate::model::result_files::plot_stem(pass)
}

/// The passes that get a plot, in table order.
pub fn plotted_passes(result: &RunResult) -> Vec<Pass> {
    TableLayout::for_config(&result.config).reported_passes(&result.config)
}

/// The values the plot of `pass` draws, in the run's unit.
fn drawn_values(result: &RunResult, pass: Pass) -> Vec<f64> {
    let throughput = !result.throughput.is_empty() || result.config.throughput.is_some();
    if throughput {
        throughput::throughput_values(result, pass)
    } else {
        grid::Grid::of(result, pass).all().collect()
    }
}

/// The value scale of `pass`'s plots (and of its HTML grid): over its own
/// values, or over every plotted pass's with `--plot-scale shared`.
pub fn value_scale(result: &RunResult, pass: Pass) -> ValueScale {
    let style = result.config.plot_style;
    let values = if style.shared_scale {
        plotted_passes(result)
            .into_iter()
            .flat_map(|p| drawn_values(result, p))
            .collect()
    } else {
        drawn_values(result, pass)
    };
    ValueScale::over(result.config.unit, values, style.log_values)
}

#[cfg(test)]
mod tests;
