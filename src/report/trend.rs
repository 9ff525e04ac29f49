//! `ioz history trend`'s views: the text table (seed 003's layout: runs by
//! date, tests across, then ratio rows coloured as `ioz compare` colours
//! its verdicts), CSV and JSON for scripts, and an HTML page with one line
//! per label per test over time (inline SVG, as the comparison page's).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::compare::{look, verdict_css};
use super::plots::number;
use super::web::{Anchor, Axis, Frame, Paint, Svg, Text, TextSize, esc, series};
use crate::analysis::compare::Verdict;
use crate::analysis::trend::Trend;
use crate::model::dates::to_epoch;
use crate::model::visible::visible;
use crate::report::environment_text::{differences_html, differences_lines};

/// The JSON's format name and version.
pub const TREND_FORMAT: &str = "ioz-history-trend";
pub const TREND_VERSION: u32 = 1;

/// A date as the table shows it: `2008-06-12 10:22` (UTC).
fn short_date(d: &str) -> String {
    d.get(..16).unwrap_or(d).replace('T', " ")
}

fn value_text(v: Option<f64>) -> String {
    match v {
        Some(v) if v.abs() >= 100.0 => format!("{v:.0}"),
        Some(v) => format!("{v:.2}"),
        None => "-".into(),
    }
}

fn mark(v: Option<Verdict>) -> char {
    v.map_or(' ', |v| look(v).mark)
}

/// A row's label in the text table, its control characters shown.
fn label_text(label: &Option<String>) -> String {
    visible(label.as_deref().unwrap_or("-")).into_owned()
}

/// The text table; `colour` paints the ratios (a terminal without NO_COLOR).
pub fn render_text(t: &Trend, colour: bool) -> String {
    let mut out = format!("ioz history trend: {}, {}\n", t.unit, t.basis);
    // What changed on the machine, before any number.
    for change in &t.environment_changes {
        let mut lines = differences_lines(&change.differences).into_iter();
        let _ = writeln!(
            out,
            "  environment of run {} against run {}: {}",
            change.id,
            change.previous_id,
            visible(&lines.next().unwrap_or_default())
        );
        for line in lines {
            let _ = writeln!(out, "  {}", visible(&line));
        }
    }
    let label_w = t
        .rows
        .iter()
        .map(|r| label_text(&r.label).chars().count())
        .max()
        .unwrap_or(1)
        .max(5);
    let widths: Vec<usize> = t
        .tests
        .iter()
        .enumerate()
        .map(|(i, name)| {
            t.rows
                .iter()
                .map(|r| value_text(r.values[i]).len())
                .max()
                .unwrap_or(1)
                .max(name.chars().count())
                .max(7)
        })
        .collect();
    let head = |out: &mut String| {
        let _ = write!(out, "{:>5}  {:<16}  {:<label_w$}", "run", "date", "label");
        for (name, w) in t.tests.iter().zip(&widths) {
            let _ = write!(out, "  {name:>w$}");
        }
        out.push('\n');
    };
    head(&mut out);
    for r in &t.rows {
        let _ = write!(
            out,
            "{:>5}  {:<16}  {:<label_w$}",
            r.id,
            visible(&short_date(&r.date)),
            label_text(&r.label)
        );
        for (v, w) in r.values.iter().zip(&widths) {
            let _ = write!(out, "  {:>w$}", value_text(*v));
        }
        out.push('\n');
    }
    if let Some(reference) = &t.ratio_to {
        let _ = writeln!(
            out,
            "\nRatio to {reference} (each run / the {reference} run nearest in time, run \"vs\"; + {}, - {} beyond the band of {} %)",
            if t.higher_is_better {
                "faster"
            } else {
                "lower"
            },
            if t.higher_is_better {
                "slower"
            } else {
                "higher"
            },
            number(t.band_percent)
        );
        let _ = write!(
            out,
            "{:>5}  {:<16}  {:<label_w$}  {:>5}",
            "run", "date", "label", "vs"
        );
        for (name, w) in t.tests.iter().zip(&widths) {
            let _ = write!(out, "  {name:>w$}");
        }
        out.push('\n');
        for r in &t.ratios {
            let _ = write!(
                out,
                "{:>5}  {:<16}  {:<label_w$}  {:>5}",
                r.id,
                visible(&short_date(&r.date)),
                label_text(&r.label),
                r.reference_id
            );
            for ((v, verdict), w) in r.values.iter().zip(&r.verdicts).zip(&widths) {
                let text = match v {
                    Some(v) => format!("{v:.3}{}", mark(*verdict)),
                    None => "- ".into(),
                };
                let padded = format!("{text:>w$}", w = w + 1);
                let painted = match (colour, verdict) {
                    (true, Some(v)) => format!("\x1b[{}m{padded}\x1b[0m", look(*v).ansi),
                    _ => padded,
                };
                let _ = write!(out, " {painted}");
            }
            out.push('\n');
        }
    }
    out
}

/// One row per run, then one per ratio row: `kind` says which.
pub fn render_csv(t: &Trend) -> Vec<u8> {
    let mut out = String::from("kind,id,date,label,reference_id");
    for name in &t.tests {
        let _ = write!(out, ",{}", name.replace(' ', "_"));
    }
    out.push('\n');
    let quote = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    for r in &t.rows {
        let _ = write!(
            out,
            "value,{},{},{},",
            r.id,
            r.date,
            quote(r.label.as_deref().unwrap_or(""))
        );
        for v in &r.values {
            let _ = write!(out, ",{}", v.map(|v| v.to_string()).unwrap_or_default());
        }
        out.push('\n');
    }
    for r in &t.ratios {
        let _ = write!(
            out,
            "ratio,{},{},{},{}",
            r.id,
            r.date,
            quote(r.label.as_deref().unwrap_or("")),
            r.reference_id
        );
        for v in &r.values {
            let _ = write!(out, ",{}", v.map(|v| v.to_string()).unwrap_or_default());
        }
        out.push('\n');
    }
    out.into_bytes()
}

#[derive(Serialize)]
struct TrendFile<'a> {
    format: &'static str,
    version: u32,
    #[serde(flatten)]
    trend: &'a Trend,
}

pub fn render_json(t: &Trend) -> std::io::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(&TrendFile {
        format: TREND_FORMAT,
        version: TREND_VERSION,
        trend: t,
    })
    .map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// The page: the table (ratio cells coloured by verdict), then per test a
/// chart with one line per label over time.
pub fn render_html(t: &Trend) -> String {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>ioz history trend</title><style>\
         body{font-family:sans-serif;margin:24px;max-width:1400px}\
         table{border-collapse:collapse;font-size:13px}\
         td,th{padding:3px 8px;border-bottom:1px solid #ddd;text-align:right}\
         td.l,th.l{text-align:left;white-space:nowrap}\
         .charts{display:flex;flex-wrap:wrap;gap:16px}\n",
    );
    // The verdicts' colours are ioz compare's (compare/look.rs).
    html.push_str(&verdict_css());
    html.push_str("</style></head><body>\n");
    let _ = writeln!(
        html,
        "<h1>ioz history trend</h1><p>Values in {}: {}.</p>",
        esc(t.unit),
        esc(&t.basis)
    );
    for change in &t.environment_changes {
        let lead = format!(
            "Environment of run {} against run {}",
            change.id, change.previous_id
        );
        html.push_str(&differences_html(&lead, &change.differences));
        html.push('\n');
    }
    html.push_str("<div style=\"overflow-x:auto\"><table><tr><th>run</th><th class=\"l\">date</th><th class=\"l\">label</th>");
    for name in &t.tests {
        let _ = write!(html, "<th>{}</th>", esc(name));
    }
    html.push_str("</tr>\n");
    for r in &t.rows {
        let _ = write!(
            html,
            "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td>",
            r.id,
            esc(&short_date(&r.date)),
            esc(r.label.as_deref().unwrap_or("-"))
        );
        for v in &r.values {
            let _ = write!(html, "<td>{}</td>", value_text(*v));
        }
        html.push_str("</tr>\n");
    }
    if let Some(reference) = &t.ratio_to {
        let _ = writeln!(
            html,
            "<tr><th colspan=\"{}\" class=\"l\">Ratio to {}: each run over the {} run nearest in time (band {} %)</th></tr>",
            t.tests.len() + 3,
            esc(reference),
            esc(reference),
            number(t.band_percent)
        );
        for r in &t.ratios {
            let _ = write!(
                html,
                "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{} / run {}</td>",
                r.id,
                esc(&short_date(&r.date)),
                esc(r.label.as_deref().unwrap_or("-")),
                r.reference_id
            );
            for (v, verdict) in r.values.iter().zip(&r.verdicts) {
                match (v, verdict) {
                    (Some(v), Some(verdict)) => {
                        // Coloured beyond the band only, light enough for
                        // the number on it, as ioz compare's tables are.
                        let _ = write!(html, "<td class=\"{}\">{v:.3}</td>", look(*verdict).class);
                    }
                    _ => html.push_str("<td>-</td>"),
                }
            }
            html.push_str("</tr>\n");
        }
    }
    html.push_str("</table></div>\n<div class=\"charts\">\n");
    for (i, name) in t.tests.iter().enumerate() {
        html.push_str(&chart(t, i, name));
    }
    html.push_str("</div>\n</body></html>\n");
    html
}

/// One test over time: a line per label, a dot per run.
fn chart(t: &Trend, test: usize, name: &str) -> String {
    const W: f64 = 640.0;
    const H: f64 = 300.0;
    let frame = Frame {
        left: 70.0,
        top: 30.0,
        right: W - 130.0,
        bottom: H - 50.0,
    };
    let mut series_of: BTreeMap<&str, Vec<(i64, f64)>> = BTreeMap::new();
    for r in &t.rows {
        if let (Some(v), Some(x)) = (r.values[test], to_epoch(&r.date)) {
            series_of
                .entry(r.label.as_deref().unwrap_or("(no label)"))
                .or_default()
                .push((x, v));
        }
    }
    let mut svg = Svg::new(W, H, name);
    svg.text(
        Text::new((frame.left + frame.right) / 2.0, 18.0, name)
            .anchor(Anchor::Middle)
            .size(TextSize::Heading),
    );
    let points: Vec<(i64, f64)> = series_of.values().flatten().copied().collect();
    if points.is_empty() {
        svg.text(Text::new(W / 2.0, H / 2.0, "no values").anchor(Anchor::Middle));
        return svg.finish() + "\n";
    }
    let (x0, x1) = points
        .iter()
        .fold((i64::MAX, i64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let max = points.iter().map(|p| p.1).fold(0.0, f64::max);
    let x_axis = Axis::time(x0, x1);
    let y_axis = Axis::rates(t.output_unit, max);
    frame.draw_y(&mut svg, &y_axis);
    frame.draw_x(&mut svg, &x_axis);
    let at = |(x, v): (i64, f64)| (frame.x(x_axis.at(x as f64)), frame.y(y_axis.at(v)));
    for (n, (label, pts)) in series_of.iter().enumerate() {
        // The colours of ioz compare's inputs after the baseline's grey.
        let colour = series(n + 1);
        let line: Vec<(f64, f64)> = pts.iter().copied().map(at).collect();
        svg.polyline(&line, Paint::stroke(colour).width(2.0));
        for (&point, &(_, v)) in line.iter().zip(pts) {
            let tip = format!("{label}: {}", value_text(Some(v)));
            svg.circle(point, 3.0, Paint::fill(colour), Some(&tip));
        }
        svg.key(
            (frame.right + 10.0, frame.top + 10.0 + 16.0 * n as f64),
            colour,
            label,
        );
    }
    svg.finish() + "\n"
}
