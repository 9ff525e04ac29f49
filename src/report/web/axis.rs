//! Axes: how the values of a chart map onto its plot area (a [`Frame`]),
//! their ticks and labels, and a title on every axis that names what it
//! measures and in what unit. The rate axes choose their unit (MB/s or
//! GB/s by magnitude, ops/s, µs/op) and round ticks as every plot of ioz
//! does (`plots::PlainAxis`).

use super::canvas::{Anchor, Paint, Svg, Text, TextSize};
use crate::model::config::OutputUnit;
use crate::model::dates;
use crate::report::plots::{PlainAxis, nice_top, number, time_ticks, value_ticks};

const KIB: f64 = 1024.0;
const MIB: f64 = 1024.0 * KIB;
const GIB: f64 = 1024.0 * MIB;

/// The gridlines across a plot area, and the line of a tick marked strong
/// (the zero of a percent axis).
const GRID: &str = "#e3e3e3";
const STRONG: &str = "#333";
/// Where an axis's title stands left of its frame (turned upwards) or
/// below it: past the tick labels.
const Y_TITLE_OFFSET: f64 = 56.0;
const X_LABEL_DROP: f64 = 14.0;
const X_TITLE_DROP: f64 = 32.0;

/// A chart's plot area, in the chart's pixels: where its axes meet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    pub left: f64,
    pub top: f64,
    pub right: f64,
    pub bottom: f64,
}

impl Frame {
    pub fn width(&self) -> f64 {
        self.right - self.left
    }

    pub fn height(&self) -> f64 {
        self.bottom - self.top
    }

    /// The x of position `t` (0 … 1, an [`Axis::at`]) from the left edge.
    pub fn x(&self, t: f64) -> f64 {
        self.left + t * self.width()
    }

    /// The y of position `t` (0 … 1) up from the bottom edge.
    pub fn y(&self, t: f64) -> f64 {
        self.bottom - t * self.height()
    }

    /// The frame's outline.
    pub fn outline(&self, svg: &mut Svg, colour: &str) {
        svg.rect(
            (self.left, self.top),
            (self.width(), self.height()),
            Paint::stroke(colour),
            None,
        );
    }

    /// `axis` up the left side: a gridline across the frame at each tick
    /// (if the axis has them), the tick's label left of the frame, and the
    /// axis's title turned upwards beside the labels.
    pub fn draw_y(&self, svg: &mut Svg, axis: &Axis) {
        for tick in &axis.ticks {
            let y = self.y(tick.at);
            if axis.gridlines || tick.strong {
                let colour = if tick.strong { STRONG } else { GRID };
                svg.line((self.left, y), (self.right, y), Paint::stroke(colour));
            }
            svg.text(Text::new(self.left - 6.0, y + 4.0, &tick.label).anchor(Anchor::End));
        }
        if !axis.title.is_empty() {
            let middle = (self.top + self.bottom) / 2.0;
            svg.text(
                Text::new(self.left - Y_TITLE_OFFSET, middle, &axis.title)
                    .anchor(Anchor::Middle)
                    .turned(-90.0),
            );
        }
    }

    /// `axis` up the right side, for a second quantity on the same chart:
    /// no gridlines (the left axis has them), each tick's label right of
    /// the frame, the title turned beside the labels.
    pub fn draw_y_right(&self, svg: &mut Svg, axis: &Axis) {
        for tick in &axis.ticks {
            let y = self.y(tick.at);
            svg.line(
                (self.right, y),
                (self.right + 4.0, y),
                Paint::stroke(STRONG),
            );
            svg.text(Text::new(self.right + 7.0, y + 4.0, &tick.label));
        }
        let middle = (self.top + self.bottom) / 2.0;
        svg.text(
            Text::new(self.right + Y_TITLE_OFFSET, middle, &axis.title)
                .anchor(Anchor::Middle)
                .turned(90.0),
        );
    }

    /// `axis` along the bottom: a gridline up the frame at each tick (if
    /// the axis has them), the tick's label under the frame (slanted if
    /// the axis says so), and the axis's title under the labels.
    pub fn draw_x(&self, svg: &mut Svg, axis: &Axis) {
        for tick in &axis.ticks {
            let x = self.x(tick.at);
            if axis.gridlines || tick.strong {
                let colour = if tick.strong { STRONG } else { GRID };
                svg.line((x, self.top), (x, self.bottom), Paint::stroke(colour));
            }
            let label = if axis.slanted {
                Text::new(x + 3.0, self.bottom + 10.0, &tick.label)
                    .anchor(Anchor::End)
                    .size(TextSize::Small)
                    .turned(-45.0)
            } else {
                Text::new(x, self.bottom + X_LABEL_DROP, &tick.label).anchor(tick.anchor)
            };
            svg.text(label);
        }
        if !axis.title.is_empty() {
            let title_y = self.bottom + axis.room_below() - 8.0;
            svg.text(
                Text::new((self.left + self.right) / 2.0, title_y, &axis.title)
                    .anchor(Anchor::Middle),
            );
        }
    }
}

/// How an axis maps its values onto 0 … 1.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mapping {
    /// From `lo` to `hi` (equal: every value in the middle).
    Linear { lo: f64, hi: f64 },
    /// Powers of ten from 10^lo to 10^hi.
    Log10 { lo: f64, hi: f64 },
    /// `n` categories side by side, value `i` in the middle of the i-th.
    Bands(usize),
}

/// A tick: where it stands (0 … 1), what it reads, whether its gridline
/// is the strong one, how its label stands on an x axis.
#[derive(Clone, Debug, PartialEq)]
struct Tick {
    at: f64,
    label: String,
    strong: bool,
    anchor: Anchor,
}

impl Tick {
    fn new(at: f64, label: String) -> Tick {
        Tick {
            at,
            label,
            strong: false,
            anchor: Anchor::Middle,
        }
    }
}

/// One axis of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    mapping: Mapping,
    /// Multiplies a value as the caller gives it into the axis's unit.
    factor: f64,
    ticks: Vec<Tick>,
    title: String,
    gridlines: bool,
    slanted: bool,
}

impl Axis {
    fn new(mapping: Mapping, ticks: Vec<Tick>, title: String) -> Axis {
        Axis {
            mapping,
            factor: 1.0,
            ticks,
            title,
            gridlines: true,
            slanted: false,
        }
    }

    /// Rates from zero to a round top above `max`, the values given in the
    /// run's unit (kB/s, ops/s, µs/op) and read in the unit that suits
    /// them ("GB/s"), which is the axis's title.
    pub fn rates(unit: OutputUnit, max: f64) -> Axis {
        let plain = PlainAxis::up_to(unit, max);
        let top = plain.top();
        let ticks = plain
            .ticks
            .iter()
            .map(|&t| Tick::new(t / top, number(t)))
            .collect();
        Axis {
            factor: plain.factor,
            ..Axis::new(
                Mapping::Linear { lo: 0.0, hi: top },
                ticks,
                plain.unit.to_string(),
            )
        }
    }

    /// Percent differences about a strong zero, reaching a round bound at
    /// or above `reach`: ticks at the bounds and halfway. Symmetric, but
    /// never below -100 %, which no rate falls under (a rate is positive).
    pub fn percent(reach: f64) -> Axis {
        let lim = round_up(reach);
        let lo = (-lim).max(-100.0);
        let ticks = [-lim, -lim / 2.0, -100.0, 0.0, lim / 2.0, lim]
            .into_iter()
            .filter(|&v| v >= lo)
            .fold(Vec::new(), |mut seen: Vec<f64>, v| {
                if !seen.contains(&v) {
                    seen.push(v);
                }
                seen
            })
            .into_iter()
            .map(|v| Tick {
                strong: v == 0.0,
                ..Tick::new((v - lo) / (lim - lo), format!("{v:+.0} %"))
            })
            .collect();
        Axis::new(
            Mapping::Linear { lo, hi: lim },
            ticks,
            "difference (%)".to_string(),
        )
    }

    /// Percent differences as [`Axis::percent`], reaching as far as
    /// `values` (bars and their intervals) do, unless a few reach much
    /// further than the rest: then the axis ends where nine in ten of them
    /// (with room to spare, and the band's) fit, and [`Axis::clipped`] tells
    /// the bars beyond it, which a chart marks. One cell's +5,000 % then no
    /// longer flattens every other bar.
    pub fn percent_clipped(values: &[f64], band: f64) -> Axis {
        let mut sizes: Vec<f64> = values
            .iter()
            .map(|v| v.abs())
            .filter(|v| v.is_finite())
            .collect();
        sizes.sort_by(f64::total_cmp);
        let largest = sizes.last().copied().unwrap_or(0.0).max(band * 1.5);
        let most = sizes
            .get(sizes.len().saturating_sub(1) * 9 / 10)
            .copied()
            .unwrap_or(0.0);
        let limit = (most * 1.5).max(band * 2.0);
        let mut axis = Axis::percent(largest.min(round_up(limit)));
        if largest > round_up(limit) {
            // Beyond ±100 % the axis is cut above alone: it ends at -100 %.
            let sign = if round_up(limit) > 100.0 { "+" } else { "±" };
            axis.title = format!(
                "difference (%), clipped at {sign}{}",
                number(round_up(limit))
            );
        }
        axis
    }

    /// Whether `value` lies beyond the ends of a linear axis (where
    /// [`Axis::at`] clamps it).
    pub fn clipped(&self, value: f64) -> bool {
        let v = value * self.factor;
        match self.mapping {
            Mapping::Linear { lo, hi } => v < lo || v > hi,
            _ => false,
        }
    }

    /// The same axis under another title ("" for none: a panel beside the
    /// one that carries it).
    pub fn titled(self, title: &str) -> Axis {
        Axis {
            title: title.to_string(),
            ..self
        }
    }

    /// Latencies in µs on a log axis of whole decades, from the decade at
    /// or below `lo` to the one at or above `hi` (one at least), a tick at
    /// each ("10 µs", "1 ms").
    pub fn latency_decades(lo_us: f64, hi_us: f64) -> Axis {
        let first = lo_us.max(1e-3).log10().floor();
        let last = hi_us.max(lo_us * 10.0).log10().ceil().max(first + 1.0);
        let ticks = (0..=(last - first) as i32)
            .map(|k| {
                let d = first + f64::from(k);
                Tick::new((d - first) / (last - first), micros(10f64.powf(d)))
            })
            .collect();
        Axis::new(
            Mapping::Log10 {
                lo: first,
                hi: last,
            },
            ticks,
            "latency (log scale)".to_string(),
        )
    }

    /// Values from zero to a round top above `max` (given in the caller's
    /// unit, read in the axis's: `factor` times it), titled `title`.
    fn from_zero(max: f64, factor: f64, title: String) -> Axis {
        let top = nice_top(max * factor);
        let ticks = value_ticks(top)
            .into_iter()
            .map(|t| Tick::new(t / top, number(t)))
            .collect();
        Axis {
            factor,
            ..Axis::new(Mapping::Linear { lo: 0.0, hi: top }, ticks, title)
        }
    }

    /// Time into a pass, given in ns, from zero to `max_ns` or one round
    /// step past it ([`time_ticks`]): read in ms under two seconds, else in
    /// seconds.
    pub fn elapsed(max_ns: f64, what: &str) -> Axis {
        let (factor, unit) = if max_ns < 2e9 {
            (1e-6, "ms")
        } else {
            (1e-9, "s")
        };
        let ticks = time_ticks(max_ns * factor);
        let top = ticks.last().copied().unwrap_or(1.0);
        let ticks = ticks
            .into_iter()
            .map(|t| Tick::new(t / top, number(t)))
            .collect();
        Axis {
            factor,
            ..Axis::new(
                Mapping::Linear { lo: 0.0, hi: top },
                ticks,
                format!("{what} ({unit})"),
            )
        }
    }

    /// Bytes, from zero past `max`: read in KiB under 4 MiB, in MiB under
    /// 4 GiB, else in GiB.
    pub fn bytes(max: f64, what: &str) -> Axis {
        let (factor, unit) = if max < 4.0 * MIB {
            (1.0 / KIB, "KiB")
        } else if max < 4.0 * GIB {
            (1.0 / MIB, "MiB")
        } else {
            (1.0 / GIB, "GiB")
        };
        Axis::from_zero(max, factor, format!("{what} ({unit})"))
    }

    /// A fraction from 0 to 1, ticked at `ticks`.
    pub fn fraction(ticks: &[f64], title: &str) -> Axis {
        let ticks = ticks.iter().map(|&q| Tick::new(q, number(q))).collect();
        Axis::new(
            Mapping::Linear { lo: 0.0, hi: 1.0 },
            ticks,
            title.to_string(),
        )
    }

    /// Time from `first` to `last` (seconds since 1970), in UTC: the ends
    /// labelled to the day, or, when both fall in one day, to the minute or
    /// the second that tells them apart; one label when they are one time.
    pub fn time(first: i64, last: i64) -> Axis {
        let (a, b) = (dates::from_epoch(first), dates::from_epoch(last));
        // "2008-06-12T10:22:33Z": the day is [..10], the minute [11..16].
        let ticks = if first == last {
            vec![Tick::new(0.5, a[..19].replace('T', " "))]
        } else {
            let (from, to) = if a[..10] != b[..10] {
                (a[..10].to_string(), b[..10].to_string())
            } else if a[..16] != b[..16] {
                (a[..16].replace('T', " "), b[11..16].to_string())
            } else {
                (a[..19].replace('T', " "), b[11..19].to_string())
            };
            vec![
                Tick {
                    anchor: Anchor::Start,
                    ..Tick::new(0.0, from)
                },
                Tick {
                    anchor: Anchor::End,
                    ..Tick::new(1.0, to)
                },
            ]
        };
        Axis {
            gridlines: false,
            ..Axis::new(
                Mapping::Linear {
                    lo: first as f64,
                    hi: last as f64,
                },
                ticks,
                "date (UTC)".to_string(),
            )
        }
    }

    /// Categories side by side (record sizes, file sizes), each labelled.
    pub fn bands(labels: Vec<String>, title: &str) -> Axis {
        let n = labels.len().max(1);
        let ticks = labels
            .into_iter()
            .enumerate()
            .map(|(i, label)| Tick::new((i as f64 + 0.5) / n as f64, label))
            .collect();
        Axis {
            gridlines: false,
            ..Axis::new(Mapping::Bands(n), ticks, title.to_string())
        }
    }

    /// The same axis with its tick labels slanted (many or long ones).
    pub fn slanted(self) -> Axis {
        Axis {
            slanted: true,
            ..self
        }
    }

    /// Where `value` stands on the axis, 0 … 1 (a value beyond the axis at
    /// its end); for bands, `value` is the category's index.
    pub fn at(&self, value: f64) -> f64 {
        let v = value * self.factor;
        let t = match self.mapping {
            Mapping::Linear { lo, hi } if hi == lo => 0.5,
            Mapping::Linear { lo, hi } => (v - lo) / (hi - lo),
            Mapping::Log10 { lo, hi } => (v.max(1e-3).log10() - lo) / (hi - lo),
            Mapping::Bands(n) => (v + 0.5) / n as f64,
        };
        t.clamp(0.0, 1.0)
    }

    /// The room this axis takes under a frame, labels and title.
    pub fn room_below(&self) -> f64 {
        if self.slanted {
            let longest = self
                .ticks
                .iter()
                .map(|t| TextSize::Small.width_of(&t.label))
                .fold(0.0, f64::max);
            10.0 + longest * std::f64::consts::FRAC_1_SQRT_2 + 26.0
        } else {
            X_TITLE_DROP + 8.0
        }
    }
}

/// A round bound at or above `v`: 1, 2, 2.5 or 5 times a power of ten, so
/// that its half is round too.
fn round_up(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .into_iter()
        .map(|step| step * mag)
        .find(|&bound| bound >= v)
        .unwrap_or(10.0 * mag)
}

/// A latency given in µs as people read it, in µs, ms or s by magnitude,
/// three significant digits: "0.1 µs", "12.3 µs", "2.5 ms", "1 s".
pub fn micros(us: f64) -> String {
    if us >= 1e6 {
        format!("{} s", number(us / 1e6))
    } else if us >= 1e3 {
        format!("{} ms", number(us / 1e3))
    } else {
        format!("{} µs", number(us))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(axis: &Axis) -> Vec<&str> {
        axis.ticks.iter().map(|t| t.label.as_str()).collect()
    }

    #[test]
    fn a_rate_axis_reads_in_the_unit_that_suits_its_values() {
        // 4.6 GB/s of IOzone's kB/s: GB/s, 0 … 5.
        let axis = Axis::rates(OutputUnit::KbPerSec, 4.6e9 / 1024.0);
        assert_eq!(axis.title, "GB/s");
        assert_eq!(labels(&axis), ["0", "1", "2", "3", "4", "5"]);
        assert_eq!(axis.at(2.5e9 / 1024.0), 0.5);
        assert_eq!(axis.at(9e9), 1.0, "beyond the top: at the top");
        assert_eq!(axis.at(-1.0), 0.0);
    }

    #[test]
    fn a_percent_axis_is_symmetric_with_a_strong_zero_above_minus_100() {
        let axis = Axis::percent(37.0);
        assert_eq!(labels(&axis), ["-50 %", "-25 %", "+0 %", "+25 %", "+50 %"]);
        let strong: Vec<f64> = axis
            .ticks
            .iter()
            .filter(|t| t.strong)
            .map(|t| t.at)
            .collect();
        assert_eq!(strong, [0.5]);
        assert_eq!(axis.at(-50.0), 0.0);
        assert_eq!(axis.at(25.0), 0.75);
        // Beyond ±100 %, no lower than -100 %: no rate falls under it.
        let wide = Axis::percent(150.0);
        assert_eq!(labels(&wide), ["-100 %", "+0 %", "+100 %", "+200 %"]);
        assert_eq!(wide.at(0.0), 1.0 / 3.0);
        assert!(wide.clipped(-101.0));
        assert_eq!(round_up(0.0), 1.0);
        assert_eq!(round_up(7.5), 10.0);
        assert_eq!(round_up(120.0), 200.0);
        assert_eq!(round_up(2.2), 2.5);
    }

    #[test]
    fn a_percent_axis_clips_the_few_that_reach_much_further() {
        // Nine cells within ±12 %, one at +5000 %: the axis ends at ±20 %.
        let mut values = vec![3.0, -5.0, 8.0, -12.0, 1.0, 0.5, -2.0, 6.0, 10.0];
        values.push(5000.0);
        let axis = Axis::percent_clipped(&values, 5.0);
        assert_eq!(labels(&axis), ["-20 %", "-10 %", "+0 %", "+10 %", "+20 %"]);
        assert_eq!(axis.title, "difference (%), clipped at ±20");
        assert!(axis.clipped(5000.0) && axis.clipped(-21.0));
        assert!(!axis.clipped(-12.0) && !axis.clipped(20.0));
        // Nothing far beyond the rest: every bar fits, nothing clipped.
        let axis = Axis::percent_clipped(&[3.0, -40.0, 25.0], 5.0);
        assert_eq!(labels(&axis)[4], "+50 %");
        assert_eq!(axis.title, "difference (%)");
        assert!(!axis.clipped(-40.0));
        // The band's reach at least.
        assert_eq!(labels(&Axis::percent_clipped(&[], 5.0))[4], "+10 %");
        assert!(!Axis::latency_decades(1.0, 10.0).clipped(1e9));
        assert_eq!(Axis::percent(10.0).titled("").title, "");
    }

    #[test]
    fn a_latency_axis_spans_whole_decades() {
        let axis = Axis::latency_decades(3.2, 2500.0);
        assert_eq!(labels(&axis), ["1 µs", "10 µs", "100 µs", "1 ms", "10 ms"]);
        assert_eq!(axis.at(100.0), 0.5);
        let sub = Axis::latency_decades(0.5, 0.6);
        assert_eq!(labels(&sub), ["0.1 µs", "1 µs", "10 µs"]);
        assert_eq!(micros(2e6), "2 s");
        assert_eq!(micros(12.345), "12.3 µs");
        assert_eq!(micros(2500.0), "2.5 ms");
    }

    #[test]
    fn a_time_axis_labels_its_ends_as_finely_as_they_differ() {
        let t = dates::to_epoch("2026-11-26T17:19:48Z").unwrap();
        let ends = |last: i64| labels(&Axis::time(t, last)).join(" | ");
        assert_eq!(ends(t + 4), "2026-11-26 17:19:48 | 17:19:52");
        assert_eq!(ends(t + 600), "2026-11-26 17:19 | 17:29");
        assert_eq!(ends(t + 86_400), "2026-11-26 | 2026-11-27");
        assert_eq!(ends(t), "2026-11-26 17:19:48");
        let axis = Axis::time(t, t + 4);
        assert_eq!(axis.at(t as f64 + 1.0), 0.25);
        assert_eq!(Axis::time(t, t).at(t as f64), 0.5);
    }

    #[test]
    fn an_elapsed_axis_ends_at_the_pass_s_end_or_one_round_step_past_it() {
        // A 3 s pass reads 0 to 3 s (it read 0 to 4 s, a quarter blank).
        let axis = Axis::elapsed(3.0e9, "time into the pass");
        assert_eq!(labels(&axis), ["0", "0.5", "1", "1.5", "2", "2.5", "3"]);
        assert_eq!(axis.title, "time into the pass (s)");
        assert_eq!(axis.at(3.0e9), 1.0);
        // 296 ms: in ms, to 300.
        let axis = Axis::elapsed(296e6, "time into the pass");
        assert_eq!(labels(&axis).last(), Some(&"300"));
        assert_eq!(axis.title, "time into the pass (ms)");
        assert_eq!(axis.at(150e6), 0.5);
        // 6.31 s: to 7 s.
        assert_eq!(labels(&Axis::elapsed(6.31e9, "t")).last(), Some(&"7"));
    }

    #[test]
    fn a_bytes_axis_reads_in_the_unit_that_suits_its_values() {
        // 4 KiB dirty in a read pass: KiB, not thousandths of a MiB.
        let axis = Axis::bytes(4096.0, "page cache");
        assert_eq!(axis.title, "page cache (KiB)");
        assert_eq!(labels(&axis).last(), Some(&"5"));
        assert_eq!(
            Axis::bytes(2.3 * GIB, "page cache").title,
            "page cache (MiB)"
        );
        assert_eq!(
            Axis::bytes(4.6 * GIB, "page cache").title,
            "page cache (GiB)"
        );
    }

    #[test]
    fn bands_stand_side_by_side() {
        let axis = Axis::bands(
            vec!["4".into(), "8".into(), "16".into(), "32".into()],
            "record kB",
        );
        assert_eq!(axis.at(0.0), 0.125);
        assert_eq!(axis.at(3.0), 0.875);
        assert_eq!(axis.room_below(), 40.0);
        // Slanted, the longest label sets the room.
        let slanted = Axis::bands(vec!["1024/1024".into()], "file kB / record kB").slanted();
        assert!(slanted.room_below() > 70.0, "{}", slanted.room_below());
    }

    #[test]
    fn every_axis_is_drawn_with_its_title() {
        let frame = Frame {
            left: 70.0,
            top: 30.0,
            right: 410.0,
            bottom: 250.0,
        };
        let mut svg = Svg::new(420.0, 300.0, "t");
        frame.draw_y(&mut svg, &Axis::percent(10.0));
        frame.draw_x(
            &mut svg,
            &Axis::bands(vec!["4".into(), "8".into()], "record size (kB)"),
        );
        let s = svg.finish();
        // The y axis: five gridlines, the zero strong, labels, its title.
        assert_eq!(s.matches("stroke=\"#e3e3e3\"").count(), 4);
        assert!(s.contains(
            "<line x1=\"70.0\" y1=\"140.0\" x2=\"410.0\" y2=\"140.0\" fill=\"none\" stroke=\"#333\"/>"
        ));
        assert!(s.contains("<text x=\"64.0\" y=\"34.0\" text-anchor=\"end\">+10 %</text>"));
        assert!(s.contains(">difference (%)</text>"));
        // The x axis: bands without gridlines, centred labels, its title.
        assert!(s.contains("<text x=\"155.0\" y=\"264.0\" text-anchor=\"middle\">4</text>"));
        assert!(s.contains(
            "<text x=\"240.0\" y=\"282.0\" text-anchor=\"middle\">record size (kB)</text>"
        ));
    }
}
