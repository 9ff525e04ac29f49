//! An SVG chart written as text, element by element: its size and title,
//! text in the kit's three sizes, shapes painted and (where a reader may
//! want the exact number) carrying a tooltip, and the swatch of a legend.
//! Every text goes through the one escape; every coordinate is written to
//! a tenth of a pixel.

use std::fmt::Write as _;

use super::escape::esc;

/// The sizes of text on a chart, in px at the chart's own size: a page
/// shows them at least that large (no chart is drawn wider than its page),
/// so none is under 10 px.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextSize {
    /// Slanted tick labels, tile values, notes: 10 px.
    Small,
    /// Everything else: 11 px, the chart's own size.
    Body,
    /// A chart's title: 13 px, bold.
    Heading,
}

impl TextSize {
    pub const fn px(self) -> u32 {
        match self {
            TextSize::Small => 10,
            TextSize::Body => 11,
            TextSize::Heading => 13,
        }
    }

    /// About how wide `text` is in this size of a sans-serif font: for
    /// laying out what must not overlap (a legend's rows, slanted labels).
    pub fn width_of(self, text: &str) -> f64 {
        0.6 * f64::from(self.px()) * text.chars().count() as f64
    }
}

/// Where a text stands relative to its point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// One line of text on a chart: at a point (its baseline), in a size,
/// anchored, coloured, turned.
#[derive(Clone, Copy, Debug)]
pub struct Text<'a> {
    x: f64,
    y: f64,
    text: &'a str,
    anchor: Anchor,
    size: TextSize,
    fill: Option<&'a str>,
    degrees: f64,
}

impl<'a> Text<'a> {
    /// `text` with its baseline starting at (x, y), in the body size.
    pub fn new(x: f64, y: f64, text: &'a str) -> Text<'a> {
        Text {
            x,
            y,
            text,
            anchor: Anchor::Start,
            size: TextSize::Body,
            fill: None,
            degrees: 0.0,
        }
    }

    pub fn anchor(self, anchor: Anchor) -> Text<'a> {
        Text { anchor, ..self }
    }

    pub fn size(self, size: TextSize) -> Text<'a> {
        Text { size, ..self }
    }

    pub fn fill(self, colour: &'a str) -> Text<'a> {
        Text {
            fill: Some(colour),
            ..self
        }
    }

    /// Turned about its point: -90 reads upwards, -45 slants up.
    pub fn turned(self, degrees: f64) -> Text<'a> {
        Text { degrees, ..self }
    }
}

/// How a shape is painted: its fill (none unless given), its stroke and
/// the stroke's width and dashes, its opacity.
#[derive(Clone, Copy, Debug, Default)]
pub struct Paint<'a> {
    fill: Option<&'a str>,
    stroke: Option<&'a str>,
    width: Option<f64>,
    dash: Option<&'a str>,
    opacity: Option<f64>,
    fill_opacity: Option<f64>,
}

impl<'a> Paint<'a> {
    /// Filled with `colour`, no stroke.
    pub fn fill(colour: &'a str) -> Paint<'a> {
        Paint {
            fill: Some(colour),
            ..Paint::default()
        }
    }

    /// A stroke of `colour`, not filled.
    pub fn stroke(colour: &'a str) -> Paint<'a> {
        Paint {
            stroke: Some(colour),
            ..Paint::default()
        }
    }

    /// This paint with a stroke of `colour` as well.
    pub fn and_stroke(self, colour: &'a str) -> Paint<'a> {
        Paint {
            stroke: Some(colour),
            ..self
        }
    }

    pub fn width(self, width: f64) -> Paint<'a> {
        Paint {
            width: Some(width),
            ..self
        }
    }

    /// Dashes of the stroke, as SVG's `stroke-dasharray` ("5 4").
    pub fn dash(self, pattern: &'a str) -> Paint<'a> {
        Paint {
            dash: Some(pattern),
            ..self
        }
    }

    pub fn opacity(self, opacity: f64) -> Paint<'a> {
        Paint {
            opacity: Some(opacity),
            ..self
        }
    }

    pub fn fill_opacity(self, opacity: f64) -> Paint<'a> {
        Paint {
            fill_opacity: Some(opacity),
            ..self
        }
    }

    fn write(&self, out: &mut String) {
        let _ = write!(out, " fill=\"{}\"", self.fill.unwrap_or("none"));
        if let Some(o) = self.fill_opacity {
            let _ = write!(out, " fill-opacity=\"{o}\"");
        }
        if let Some(s) = self.stroke {
            let _ = write!(out, " stroke=\"{s}\"");
        }
        if let Some(w) = self.width {
            let _ = write!(out, " stroke-width=\"{w}\"");
        }
        if let Some(d) = self.dash {
            let _ = write!(out, " stroke-dasharray=\"{d}\"");
        }
        if let Some(o) = self.opacity {
            let _ = write!(out, " opacity=\"{o}\"");
        }
    }
}

/// The outline of a shape, as SVG path data: moves, lines, and runs
/// across or down from where the pen is.
#[derive(Clone, Debug, Default)]
pub struct Path(String);

impl Path {
    pub fn new() -> Path {
        Path::default()
    }

    /// A closed polygon through `points`.
    pub fn polygon(points: &[(f64, f64)]) -> Path {
        let mut path = Path::new();
        for (i, &(x, y)) in points.iter().enumerate() {
            path = if i == 0 {
                path.move_to(x, y)
            } else {
                path.line_to(x, y)
            };
        }
        path.close()
    }

    pub fn move_to(mut self, x: f64, y: f64) -> Path {
        let _ = write!(self.0, "M{x:.1} {y:.1}");
        self
    }

    pub fn line_to(mut self, x: f64, y: f64) -> Path {
        let _ = write!(self.0, "L{x:.1} {y:.1}");
        self
    }

    /// A vertical line to height `y`.
    pub fn down_to(mut self, y: f64) -> Path {
        let _ = write!(self.0, "V{y:.1}");
        self
    }

    /// A horizontal line `dx` along from the pen.
    pub fn across(mut self, dx: f64) -> Path {
        let _ = write!(self.0, "h{dx:.1}");
        self
    }

    pub fn close(mut self) -> Path {
        self.0.push('Z');
        self
    }
}

/// An SVG chart being written.
pub struct Svg {
    out: String,
}

impl Svg {
    /// A chart drawn at its own size, `width` × `height` px, named `title`
    /// (which a browser shows over the chart's background).
    /// Drawn at its own size, its text is the kit's size on the page (no
    /// chart is scaled into a narrower figure, where its text would shrink).
    pub fn new(width: f64, height: f64, title: &str) -> Svg {
        Svg {
            out: format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.0} {height:.0}\" \
                 font-family=\"sans-serif\" font-size=\"{}\"><title>{}</title>",
                TextSize::Body.px(),
                esc(title)
            ),
        }
    }

    pub fn text(&mut self, t: Text) {
        let _ = write!(self.out, "<text x=\"{:.1}\" y=\"{:.1}\"", t.x, t.y);
        match t.anchor {
            Anchor::Start => {}
            Anchor::Middle => self.out.push_str(" text-anchor=\"middle\""),
            Anchor::End => self.out.push_str(" text-anchor=\"end\""),
        }
        match t.size {
            TextSize::Body => {}
            TextSize::Small => {
                let _ = write!(self.out, " font-size=\"{}\"", t.size.px());
            }
            TextSize::Heading => {
                let _ = write!(
                    self.out,
                    " font-size=\"{}\" font-weight=\"bold\"",
                    t.size.px()
                );
            }
        }
        if let Some(fill) = t.fill {
            let _ = write!(self.out, " fill=\"{fill}\"");
        }
        if t.degrees != 0.0 {
            let _ = write!(
                self.out,
                " transform=\"rotate({} {:.1} {:.1})\"",
                t.degrees, t.x, t.y
            );
        }
        let _ = write!(self.out, ">{}</text>", esc(t.text));
    }

    pub fn line(&mut self, (x1, y1): (f64, f64), (x2, y2): (f64, f64), paint: Paint) {
        let _ = write!(
            self.out,
            "<line x1=\"{x1:.1}\" y1=\"{y1:.1}\" x2=\"{x2:.1}\" y2=\"{y2:.1}\""
        );
        self.close(paint, None, "line");
    }

    /// A rectangle from (x, y) down and right.
    pub fn rect(
        &mut self,
        (x, y): (f64, f64),
        (w, h): (f64, f64),
        paint: Paint,
        tip: Option<&str>,
    ) {
        let _ = write!(
            self.out,
            "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\""
        );
        self.close(paint, tip, "rect");
    }

    pub fn path(&mut self, path: &Path, paint: Paint, tip: Option<&str>) {
        let _ = write!(self.out, "<path d=\"{}\"", path.0);
        self.close(paint, tip, "path");
    }

    /// A line through `points`, in order.
    pub fn polyline(&mut self, points: &[(f64, f64)], paint: Paint) {
        self.out.push_str("<polyline points=\"");
        for (i, (x, y)) in points.iter().enumerate() {
            let _ = write!(self.out, "{}{x:.1},{y:.1}", if i == 0 { "" } else { " " });
        }
        self.out.push('"');
        self.close(paint, None, "polyline");
    }

    pub fn circle(&mut self, (cx, cy): (f64, f64), r: f64, paint: Paint, tip: Option<&str>) {
        let _ = write!(self.out, "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"{r}\"");
        self.close(paint, tip, "circle");
    }

    /// A legend's entry: a square of `colour` whose bottom sits on the
    /// baseline `y`, and `label` after it.
    pub fn key(&mut self, (x, y): (f64, f64), colour: &str, label: &str) {
        self.rect((x, y - 10.0), (12.0, 12.0), Paint::fill(colour), None);
        self.text(Text::new(x + 16.0, y, label));
    }

    /// The chart, finished.
    pub fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }

    /// The rest of a shape's tag: its paint, and its tooltip if it has one.
    fn close(&mut self, paint: Paint, tip: Option<&str>, tag: &str) {
        paint.write(&mut self.out);
        match tip {
            Some(tip) => {
                let _ = write!(self.out, "><title>{}</title></{tag}>", esc(tip));
            }
            None => self.out.push_str("/>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_is_one_svg_element_with_its_title() {
        let mut svg = Svg::new(420.0, 300.0, "write: a < b");
        svg.text(Text::new(70.0, 16.0, "write").size(TextSize::Heading));
        svg.text(
            Text::new(14.0, 150.0, "GB/s")
                .anchor(Anchor::Middle)
                .turned(-90.0),
        );
        svg.text(
            Text::new(5.0, 6.0, "64/4")
                .anchor(Anchor::End)
                .size(TextSize::Small)
                .fill("#555"),
        );
        let s = svg.finish();
        assert!(s.starts_with(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"420\" height=\"300\" \
             viewBox=\"0 0 420 300\" font-family=\"sans-serif\" font-size=\"11\">\
             <title>write: a &lt; b</title>"
        ));
        assert!(s.contains(
            "<text x=\"70.0\" y=\"16.0\" font-size=\"13\" font-weight=\"bold\">write</text>"
        ));
        assert!(s.contains(
            "<text x=\"14.0\" y=\"150.0\" text-anchor=\"middle\" transform=\"rotate(-90 14.0 150.0)\">GB/s</text>"
        ));
        assert!(s.contains(
            "<text x=\"5.0\" y=\"6.0\" text-anchor=\"end\" font-size=\"10\" fill=\"#555\">64/4</text>"
        ));
        assert!(s.ends_with("</svg>"));
        assert_eq!(s.matches("<svg").count(), 1);
    }

    #[test]
    fn shapes_carry_their_paint_and_tooltips() {
        let mut svg = Svg::new(10.0, 10.0, "t");
        svg.rect(
            (1.0, 2.0),
            (3.0, 4.5),
            Paint::fill("#2166ac").opacity(0.6),
            Some("base: 5 & 6"),
        );
        svg.line((0.0, 1.0), (2.0, 1.0), Paint::stroke("#333"));
        svg.polyline(
            &[(0.0, 0.0), (1.25, 2.0)],
            Paint::stroke("red").width(2.0).dash("5 4"),
        );
        svg.circle((1.0, 1.0), 3.0, Paint::fill("red"), None);
        let whisker = Path::new()
            .move_to(5.0, 9.0)
            .down_to(1.0)
            .move_to(2.0, 9.0)
            .across(6.0);
        svg.path(&whisker, Paint::stroke("black").width(1.0), None);
        svg.path(
            &Path::polygon(&[(0.0, 0.0), (1.0, 0.0), (1.0, 1.0)]),
            Paint::fill("#eee").fill_opacity(0.75).and_stroke("#555"),
            Some("tile"),
        );
        svg.key((10.0, 20.0), "#4d4d4d", "base");
        let s = svg.finish();
        for part in [
            "<rect x=\"1.0\" y=\"2.0\" width=\"3.0\" height=\"4.5\" fill=\"#2166ac\" opacity=\"0.6\"><title>base: 5 &amp; 6</title></rect>",
            "<line x1=\"0.0\" y1=\"1.0\" x2=\"2.0\" y2=\"1.0\" fill=\"none\" stroke=\"#333\"/>",
            "<polyline points=\"0.0,0.0 1.2,2.0\" fill=\"none\" stroke=\"red\" stroke-width=\"2\" stroke-dasharray=\"5 4\"/>",
            "<circle cx=\"1.0\" cy=\"1.0\" r=\"3\" fill=\"red\"/>",
            "<path d=\"M5.0 9.0V1.0M2.0 9.0h6.0\" fill=\"none\" stroke=\"black\" stroke-width=\"1\"/>",
            "<path d=\"M0.0 0.0L1.0 0.0L1.0 1.0Z\" fill=\"#eee\" fill-opacity=\"0.75\" stroke=\"#555\"><title>tile</title></path>",
            "<rect x=\"10.0\" y=\"10.0\" width=\"12.0\" height=\"12.0\" fill=\"#4d4d4d\"/><text x=\"26.0\" y=\"20.0\">base</text>",
        ] {
            assert!(s.contains(part), "no {part} in {s}");
        }
    }

    #[test]
    fn no_text_is_smaller_than_ten_pixels() {
        for size in [TextSize::Small, TextSize::Body, TextSize::Heading] {
            assert!(size.px() >= 10, "{size:?}");
        }
        assert_eq!(TextSize::Small.width_of("1024/1024"), 54.0);
    }
}
