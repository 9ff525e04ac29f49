//! The embedded DejaVu Sans and the few of its TrueType tables the PNG text
//! needs: where each glyph's outline starts and how far it advances.

use std::sync::OnceLock;

pub(super) static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// What the text drawing needs from the embedded font's tables: per glyph,
/// the left edge of its outline and its advance, in font units.
pub(super) struct FontMetrics {
    /// Ascent minus descent: ab_glyph scales a font of size `s` by `s / height`.
    pub(super) height_units: f64,
    cmap: &'static [u8],
    hmtx: &'static [u8],
    loca: &'static [u8],
    glyf: &'static [u8],
    long_loca: bool,
    h_metrics: usize,
}

pub(super) fn font_metrics() -> Option<&'static FontMetrics> {
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
    pub(super) fn glyph(&self, c: char) -> (f64, f64) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
