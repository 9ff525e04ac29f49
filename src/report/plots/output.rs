//! File output: each view of each pass drawn twice, as PNG (glyph-by-glyph
//! text) and as SVG (whole strings), under the pass's slug and the view's
//! suffix. Drawn in memory: the files are put in place like every result
//! file (report/files.rs).

use std::io;

use image::ImageEncoder;
use image::codecs::png::PngEncoder;
use plotters::prelude::*;

use super::font::font_metrics;
use super::page::draw_plot;
use super::text::{Typesetter, register_embedded_font};
use super::{PLOT_SIZE, plotted_passes};
use crate::model::result::RunResult;
use crate::model::result_files::{PlotView, plot_file_name, plot_views};
use crate::model::workload::Pass;

/// The run's plot files, by name: a PNG and an SVG of each view of each
/// plotted pass.
pub fn plot_files(result: &RunResult) -> io::Result<Vec<(String, Vec<u8>)>> {
    let mut files = Vec::new();
    for pass in plotted_passes(result) {
        for view in plot_views(&result.config) {
            files.push((
                plot_file_name(pass, view, "png"),
                plot_png(result, pass, view)?,
            ));
            files.push((
                plot_file_name(pass, view, "svg"),
                plot_svg(result, pass, view, PLOT_SIZE)?.into_bytes(),
            ));
        }
    }
    Ok(files)
}

/// One view of one pass as a PNG file's bytes.
fn plot_png(result: &RunResult, pass: Pass, view: PlotView) -> io::Result<Vec<u8>> {
    register_embedded_font();
    let (width, height) = PLOT_SIZE;
    let mut rgb = vec![0u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, PLOT_SIZE).into_drawing_area();
        let setter = Typesetter {
            per_glyph: font_metrics().is_some(),
        };
        draw_plot(&root, setter, result, pass, view).map_err(draw_error)?;
        root.present().map_err(draw_error)?;
    }
    let mut png = Vec::new();
    PngEncoder::new(&mut png)
        .write_image(&rgb, width, height, image::ColorType::Rgb8)
        .map_err(draw_error)?;
    Ok(png)
}

/// One view of one pass as an SVG document of `size` (PLOT_SIZE for the
/// files, smaller for the HTML report, where the text keeps its size).
pub fn plot_svg(
    result: &RunResult,
    pass: Pass,
    view: PlotView,
    size: (u32, u32),
) -> io::Result<String> {
    register_embedded_font();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let setter = Typesetter { per_glyph: false };
        draw_plot(&root, setter, result, pass, view).map_err(draw_error)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

fn draw_error(e: impl std::fmt::Display) -> io::Error {
    io::Error::other(format!("cannot draw the plot: {e}"))
}
