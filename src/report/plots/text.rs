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
