//! File output: each plot drawn twice, as PNG (glyph-by-glyph text) and as
//! SVG (whole strings), under the pass's slug.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::font::font_metrics;
use super::page::draw_plot;
use super::text::{Typesetter, register_embedded_font};
use super::{PLOT_SIZE, pass_slug, plotted_passes};
use crate::model::result::RunResult;
use crate::model::workload::Pass;

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
