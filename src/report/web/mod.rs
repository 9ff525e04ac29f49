//! The kit every HTML page draws its charts with: ioz compare's page,
//! `ioz history trend --html` and the run report's latency section. One
//! escape for every text put in HTML or SVG ([`esc`]), one SVG canvas
//! ([`Svg`], with [`Text`] in three sizes, none under 10 px, [`Paint`]ed
//! shapes carrying tooltips, legend keys), the axes ([`Axis`] on a
//! [`Frame`]: rates, percent (clipped where a few bars reach far beyond the
//! rest), latency decades, fractions, time, bands of sizes; each with its
//! ticks, labels and a title that names the unit), small multiples
//! ([`Panels`]: frames of one size sharing their axes, in rows that fit the
//! page), the colours (the values' colour map is the plots'), and the charts
//! of `--interval`'s series over time.
//!
//! Hand-written SVG rather than the plots module's figures (plotters): the
//! pages need many small charts whose every bar or point carries a tooltip
//! with its exact numbers, text that stays text at the page's size, and
//! little weight (a comparison page holds a hundred charts). The value
//! axes still choose their unit and ticks exactly as the plots do.

mod axis;
mod canvas;
mod colours;
mod escape;
mod panels;
mod time_chart;

pub use axis::{Axis, Frame, micros};
pub use canvas::{Anchor, Paint, Path, Svg, Text, TextSize};
pub use colours::{better_worse_colour, height_colour, ordered, series};
pub use escape::esc;
pub use panels::{Margins, Panels};
pub use time_chart::{CacheCurve, StepLine, latency_over_time, rate_over_time};
