//! Text of the plots: styles of the embedded font, and the typesetter that
//! draws strings whole (SVG) or glyph by glyph (PNG): see the note at the top
//! of plots/mod.rs for why.

use std::sync::Once;

use plotters::coord::CoordTranslate;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use super::DrawResult;
use super::font::{DEJAVU_SANS, font_metrics};

/// The family every text of a plot asks for. The embedded font is registered
/// under this generic name, so an SVG viewer without DejaVu falls back sensibly.
const FONT: &str = "sans-serif";

pub(super) fn register_embedded_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The bytes are the TrueType font checked in with the source; were they
        // refused, text would be missing from the plots, nothing worse.
        let _ = register_font(FONT, FontStyle::Normal, DEJAVU_SANS);
    });
}

/// Draws text: whole strings (SVG, laid out by the viewer) or glyph by glyph
/// at the font's own offsets (PNG, see the note in plots/mod.rs).
#[derive(Clone, Copy)]
pub(super) struct Typesetter {
    pub(super) per_glyph: bool,
}

/// A text style of the embedded font.
pub(super) fn style(size: u32, color: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle {
        font: (FONT, size).into_font(),
        color: color.to_backend_color(),
        pos: Pos::new(h, v),
    }
}

impl Typesetter {
    /// `text` anchored (per `style.pos`) at `at` moved by `offset` pixels.
    pub(super) fn text<DB: DrawingBackend, CT: CoordTranslate>(
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

/// The width of `text` set in the embedded font at `size` pixels (an
/// estimate of 0.6 em a character if the font cannot be read).
pub(super) fn text_width(text: &str, size: f64) -> f64 {
    match font_metrics() {
        Some(m) => {
            let scale = size / m.height_units;
            text.chars().map(|c| m.glyph(c).1 * scale).sum()
        }
        None => 0.6 * size * text.chars().count() as f64,
    }
}

/// `text` broken at spaces into lines no wider than `width` pixels at `size`.
pub(super) fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(&candidate, size) > width {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_at_spaces() {
        let text = "File-size regions: CPU cache up to the 32 MiB last-level cache, page cache up to 23.5 GiB of RAM, device beyond.";
        let one = wrap(text, 16.0, 2000.0);
        assert_eq!(one, [text]);
        let lines = wrap(text, 16.0, 500.0);
        assert!(lines.len() >= 2, "{lines:?}");
        assert!(lines.iter().all(|l| text_width(l, 16.0) <= 500.0));
        assert_eq!(lines.join(" "), text);
        assert!(text_width("512M", 16.0) > text_width("4K", 16.0));
    }
}
