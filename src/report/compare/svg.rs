//! The comparison page's figures, as inline SVG written by hand (no
//! fonts, no scripts, no files): seed 004's mean ± sd bars and percent
//! differences with the band, seed 001's mountains on one scale, and a
//! ratio heat grid.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::format::{percent, ratio, size_kb};
use crate::analysis::compare::{CellComparison, Moments, Verdict};
use crate::model::config::OutputUnit;
use crate::report::plots::{PlainAxis, number};

/// One colour per input: the baseline first.
pub const SERIES: [&str; 8] = [
    "#4d4d4d", "#2166ac", "#d6604d", "#1b7837", "#762a83", "#e08214", "#35978f", "#c51b7d",
];

pub fn verdict_colour(v: Verdict) -> &'static str {
    match v {
        Verdict::Faster => "#1a9850",
        Verdict::Slower => "#d73027",
        Verdict::Same => "#9e9e9e",
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A "nice" upper bound for an axis.
fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let mag = 10f64.powf(v.log10().floor());
    for step in [1.0, 2.0, 2.5, 5.0, 10.0] {
        if step * mag >= v {
            return step * mag;
        }
    }
    10.0 * mag
}

/// Seed 004's chart for one test: per cell (grouped by file size, then
/// record size) a bar per input at its mean, with a ±1 sd whisker.
/// `groups`: (file bytes, record bytes, each input's moments or None).
pub fn mean_sd_bars(
    title: &str,
    unit: OutputUnit,
    labels: &[String],
    groups: &[(u64, u64, Vec<Option<Moments>>)],
) -> String {
    let inputs = labels.len().max(1);
    let bar = 14.0_f64.min(60.0 / inputs as f64).max(5.0);
    let gap = 14.0;
    let group_w = bar * inputs as f64 + gap;
    let (left, top, plot_h) = (70.0, 30.0, 220.0);
    let width = (left + group_w * groups.len() as f64 + 20.0).max(420.0);
    let per_row = (((width - left) / 170.0).floor() as usize).max(1);
    let height = top + plot_h + 60.0 + 18.0 * inputs.div_ceil(per_row) as f64;
    let max = groups
        .iter()
        .flat_map(|g| g.2.iter().flatten())
        .map(|m| m.mean + m.sd.unwrap_or(0.0))
        .fold(0.0, f64::max);
    // Values in the run's unit; the axis reads in MB/s or GB/s (or k ops/s)
    // with round ticks, as every plot of ioz does.
    let axis = PlainAxis::up_to(unit, max);
    let ymax = axis.top() / axis.factor;
    let y = |v: f64| top + plot_h - plot_h * (v / ymax).clamp(0.0, 1.0);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="11"><title>{}</title>"#,
        esc(title)
    );
    let _ = write!(
        s,
        r#"<text x="{left}" y="16" font-size="13" font-weight="bold">{}</text>"#,
        esc(title)
    );
    for &tick in &axis.ticks {
        let yy = y(tick / axis.factor);
        let _ = write!(
            s,
            r##"<line x1="{left}" x2="{:.1}" y1="{yy:.1}" y2="{yy:.1}" stroke="#e3e3e3"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            width - 10.0,
            left - 6.0,
            yy + 4.0,
            number(tick)
        );
    }
    let _ = write!(
        s,
        r#"<text transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        top + plot_h / 2.0,
        esc(axis.unit)
    );
    let several_files = groups.iter().map(|g| g.0).collect::<BTreeSet<_>>().len() > 1;
    for (gi, (file, record, sides)) in groups.iter().enumerate() {
        let x0 = left + gap / 2.0 + gi as f64 * group_w;
        for (i, m) in sides.iter().enumerate() {
            let Some(m) = m else { continue };
            let x = x0 + i as f64 * bar;
            let colour = SERIES[i % SERIES.len()];
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"><title>{}: {:.0} ± {} (n={})</title></rect>"#,
                y(m.mean),
                bar - 1.0,
                top + plot_h - y(m.mean),
                esc(&labels[i]),
                m.mean,
                m.sd.map(|v| format!("{v:.0}")).unwrap_or("-".into()),
                m.n
            );
            if let Some(sd) = m.sd {
                let cx = x + (bar - 1.0) / 2.0;
                let (lo, hi) = (y((m.mean - sd).max(0.0)), y(m.mean + sd));
                let _ = write!(
                    s,
                    r#"<path d="M{cx:.1} {lo:.1}V{hi:.1}M{:.1} {lo:.1}h{:.1}M{:.1} {hi:.1}h{:.1}" stroke="black" stroke-width="1"/>"#,
                    cx - 3.0,
                    6.0,
                    cx - 3.0,
                    6.0
                );
            }
        }
        let label = if several_files {
            format!("{}/{}", size_kb(*file), size_kb(*record))
        } else {
            size_kb(*record)
        };
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            x0 + bar * inputs as f64 / 2.0,
            top + plot_h + 14.0,
            esc(&label)
        );
    }
    let axis = if several_files {
        "file kB / record kB"
    } else {
        "record size (kB)"
    };
    let _ = write!(
        s,
        r##"<line x1="{left}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="#333"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{axis}</text>"##,
        width - 10.0,
        top + plot_h,
        top + plot_h,
        left + (width - left) / 2.0,
        top + plot_h + 32.0
    );
    legend(&mut s, labels, left, top + plot_h + 50.0, width);
    s.push_str("</svg>");
    s
}

fn legend(s: &mut String, labels: &[String], x0: f64, y0: f64, width: f64) {
    let per_row = (((width - x0) / 170.0).floor() as usize).max(1);
    for (i, l) in labels.iter().enumerate() {
        let x = x0 + (i % per_row) as f64 * 170.0;
        let y = y0 + (i / per_row) as f64 * 18.0;
        let _ = write!(
            s,
            r#"<rect x="{x:.1}" y="{:.1}" width="12" height="12" fill="{}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            y - 10.0,
            SERIES[i % SERIES.len()],
            x + 16.0,
            y,
            esc(&l.chars().take(24).collect::<String>())
        );
    }
}

/// Seed 004's second chart: each cell's percent difference from the
/// baseline, coloured by verdict, with its 95 % interval and the band shaded.
pub fn percent_bars(title: &str, band: f64, cells: &[&CellComparison]) -> String {
    let bar = 16.0;
    let gap = 8.0;
    let (left, top, plot_h) = (60.0, 30.0, 200.0);
    let width = (left + (bar + gap) * cells.len() as f64 + 20.0).max(420.0);
    let height = top + plot_h + 50.0;
    let pct = |v: f64| (v - 1.0) * 100.0;
    let reach = cells
        .iter()
        .flat_map(|c| {
            [
                c.percent,
                c.ci_low.map_or(0.0, pct),
                c.ci_high.map_or(0.0, pct),
            ]
        })
        .map(f64::abs)
        .fold(band * 1.5, f64::max);
    let lim = nice_max(reach);
    let y = |v: f64| top + plot_h / 2.0 - plot_h / 2.0 * (v / lim).clamp(-1.0, 1.0);
    let several_files = cells
        .iter()
        .map(|c| c.cell.file_bytes)
        .collect::<BTreeSet<_>>()
        .len()
        > 1;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="11"><title>{}</title>"#,
        esc(title)
    );
    let _ = write!(
        s,
        r#"<text x="{left}" y="16" font-size="13" font-weight="bold">{}</text>"#,
        esc(title)
    );
    let _ = write!(
        s,
        r##"<rect x="{left}" y="{:.1}" width="{:.1}" height="{:.1}" fill="#d9d9d9" opacity="0.6"><title>band ±{band} %</title></rect>"##,
        y(band),
        width - 10.0 - left,
        y(-band) - y(band)
    );
    for v in [-lim, -lim / 2.0, 0.0, lim / 2.0, lim] {
        let _ = write!(
            s,
            r##"<line x1="{left}" x2="{:.1}" y1="{:.1}" y2="{:.1}" stroke="{}"/><text x="{:.1}" y="{:.1}" text-anchor="end">{v:+.0} %</text>"##,
            width - 10.0,
            y(v),
            y(v),
            if v == 0.0 { "#333" } else { "#e3e3e3" },
            left - 6.0,
            y(v) + 4.0
        );
    }
    for (i, c) in cells.iter().enumerate() {
        let x = left + gap / 2.0 + i as f64 * (bar + gap);
        let (a, b) = (y(0.0), y(c.percent));
        let _ = write!(
            s,
            r#"<rect x="{x:.1}" y="{:.1}" width="{bar}" height="{:.1}" fill="{}"><title>{} kB / {} kB: {} ({})</title></rect>"#,
            a.min(b),
            (a - b).abs().max(0.5),
            verdict_colour(c.verdict),
            size_kb(c.cell.file_bytes),
            size_kb(c.cell.record_bytes),
            percent(c.percent),
            c.verdict.name()
        );
        if let (Some(lo), Some(hi)) = (c.ci_low, c.ci_high) {
            let cx = x + bar / 2.0;
            let _ = write!(
                s,
                r#"<path d="M{cx:.1} {:.1}V{:.1}M{:.1} {:.1}h6M{:.1} {:.1}h6" stroke="black"/>"#,
                y(pct(lo)),
                y(pct(hi)),
                cx - 3.0,
                y(pct(lo)),
                cx - 3.0,
                y(pct(hi))
            );
        }
        let label = if several_files {
            format!(
                "{}/{}",
                size_kb(c.cell.file_bytes),
                size_kb(c.cell.record_bytes)
            )
        } else {
            size_kb(c.cell.record_bytes)
        };
        let _ = write!(
            s,
            r#"<text transform="translate({:.1} {:.1}) rotate(-45)" text-anchor="end" font-size="9">{}</text>"#,
            x + bar / 2.0 + 3.0,
            top + plot_h + 10.0,
            esc(&label)
        );
    }
    s.push_str("</svg>");
    s
}

/// A height's colour (0 … 1), from pale yellow through green to deep purple.
fn ramp(t: f64) -> String {
    let t = t.clamp(0.0, 1.0);
    // From a pale yellow to a deep blue, through green (viridis-like).
    let (r, g, b) = if t < 0.5 {
        let u = t * 2.0;
        let l = |a: f64, b: f64| (a + (b - a) * u).round() as u8;
        (l(253.0, 53.0), l(231.0, 183.0), l(37.0, 121.0))
    } else {
        let u = (t - 0.5) * 2.0;
        let l = |a: f64, b: f64| (a + (b - a) * u).round() as u8;
        (l(53.0, 68.0), l(183.0, 1.0), l(121.0, 84.0))
    };
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Seed 001's mountain: a surface over (record size, file size), drawn in
/// an oblique projection, its height `value / zmax` so that two mountains
/// drawn with one `zmax` share a scale.
pub fn mountain(
    title: &str,
    files: &[u64],
    records: &[u64],
    value: &dyn Fn(u64, u64) -> Option<f64>,
    zmax: f64,
    unit: OutputUnit,
) -> String {
    let (nx, ny) = (records.len().max(1) as f64, files.len().max(1) as f64);
    // The floor's diagonal spans 320 px whatever the grid; heights up to 150 px.
    let dx = 320.0 / (nx + ny);
    let dy = dx * 0.5;
    let zh = 150.0;
    let ox = 50.0 + ny * dx;
    let oy = 40.0 + zh;
    let (w, h) = (50.0 + (nx + ny) * dx + 90.0, oy + (nx + ny) * dy + 60.0);
    let p = |xi: f64, yi: f64, z: f64| (ox + (xi - yi) * dx, oy + (xi + yi) * dy - z * zh);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" font-family="sans-serif" font-size="10"><title>{}</title><text x="10" y="16" font-size="13" font-weight="bold">{}</text>"#,
        esc(title),
        esc(title)
    );
    let z = |fi: usize, ri: usize| -> Option<f64> {
        value(files[fi], records[ri]).map(|v| (v / zmax).clamp(0.0, 1.0))
    };
    // The floor's outline, then the tiles from the back to the front.
    let corners = [
        p(0.0, 0.0, 0.0),
        p(nx, 0.0, 0.0),
        p(nx, ny, 0.0),
        p(0.0, ny, 0.0),
    ];
    let _ = write!(
        s,
        r##"<path d="M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="#f4f4f4" stroke="#bbb"/>"##,
        corners[0].0,
        corners[0].1,
        corners[1].0,
        corners[1].1,
        corners[2].0,
        corners[2].1,
        corners[3].0,
        corners[3].1
    );
    let mut tiles: Vec<(usize, usize)> = (0..files.len())
        .flat_map(|fi| (0..records.len()).map(move |ri| (fi, ri)))
        .collect();
    tiles.sort_by_key(|&(fi, ri)| fi + ri);
    for (fi, ri) in tiles {
        let Some(v) = z(fi, ri) else { continue };
        let (x, y) = (ri as f64, fi as f64);
        let top = [
            p(x, y, v),
            p(x + 1.0, y, v),
            p(x + 1.0, y + 1.0, v),
            p(x, y + 1.0, v),
        ];
        let front_r = [
            p(x + 1.0, y, v),
            p(x + 1.0, y + 1.0, v),
            p(x + 1.0, y + 1.0, 0.0),
            p(x + 1.0, y, 0.0),
        ];
        let front_l = [
            p(x, y + 1.0, v),
            p(x + 1.0, y + 1.0, v),
            p(x + 1.0, y + 1.0, 0.0),
            p(x, y + 1.0, 0.0),
        ];
        let colour = ramp(v);
        for (face, shade) in [(front_r, 0.75), (front_l, 0.6), (top, 1.0)] {
            let d = format!(
                "M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z",
                face[0].0,
                face[0].1,
                face[1].0,
                face[1].1,
                face[2].0,
                face[2].1,
                face[3].0,
                face[3].1
            );
            let _ = write!(
                s,
                r##"<path d="{d}" fill="{colour}" fill-opacity="{shade}" stroke="#555" stroke-width="0.4"><title>{} kB file, {} kB records: {:.0}</title></path>"##,
                size_kb(files[fi]),
                size_kb(records[ri]),
                v * zmax
            );
        }
    }
    // Axis labels along the floor's front edges.
    for (ri, r) in records.iter().enumerate() {
        let (x, y) = p(ri as f64 + 0.5, ny, 0.0);
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            x + 4.0,
            y + 14.0,
            size_kb(*r)
        );
    }
    for (fi, f) in files.iter().enumerate() {
        let (x, y) = p(nx, fi as f64 + 0.5, 0.0);
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            x + 6.0,
            y + 8.0,
            size_kb(*f)
        );
    }
    let (ax, ay) = p(nx / 2.0, ny, 0.0);
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="end">record kB</text>"#,
        ax - 10.0,
        ay + 30.0
    );
    let (bx, by) = p(nx, ny / 2.0, 0.0);
    let top = PlainAxis::up_to(unit, zmax);
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}">file kB</text>"#,
        bx + 30.0,
        by + 24.0
    );
    let _ = write!(
        s,
        r##"<text x="10" y="{:.1}" fill="#555">height: 0 … {} {} (shared scale)</text>"##,
        h - 6.0,
        number(zmax * top.factor),
        top.unit
    );
    s.push_str("</svg>");
    s
}

/// A ratio heat grid: rows file size, columns record size, red (slower)
/// through white to green (faster), the ratio written in each cell and
/// cells with a verdict framed.
pub fn ratio_heat(title: &str, cells: &[&CellComparison], higher_is_better: bool) -> String {
    let files: BTreeSet<u64> = cells.iter().map(|c| c.cell.file_bytes).collect();
    let records: BTreeSet<u64> = cells.iter().map(|c| c.cell.record_bytes).collect();
    let (cw, ch, left, top) = (52.0, 24.0, 70.0, 58.0);
    let width = left + cw * records.len() as f64 + 20.0;
    let height = top + ch * files.len() as f64 + 30.0;
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="10"><title>{}</title><text x="10" y="16" font-size="13" font-weight="bold">{}</text>"#,
        esc(title),
        esc(title)
    );
    for (j, r) in records.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            left + cw * (j as f64 + 0.5),
            top - 6.0,
            size_kb(*r)
        );
    }
    let _ = write!(
        s,
        r#"<text x="{left}" y="{:.1}">record kB →</text>"#,
        top - 20.0
    );
    for (i, f) in files.iter().enumerate() {
        let y = top + ch * i as f64;
        let _ = write!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 6.0,
            y + ch / 2.0 + 4.0,
            size_kb(*f)
        );
        for (j, r) in records.iter().enumerate() {
            let Some(c) = cells
                .iter()
                .find(|c| c.cell.file_bytes == *f && c.cell.record_bytes == *r)
            else {
                continue;
            };
            // log2 of the ratio, ±1 (half or double) at full colour.
            let mut t = c.ratio.log2().clamp(-1.0, 1.0);
            if !higher_is_better {
                t = -t;
            }
            let fill = if t >= 0.0 {
                let k = (255.0 * (1.0 - t)).round() as u8;
                format!("#{k:02x}ff{k:02x}")
            } else {
                let k = (255.0 * (1.0 + t)).round() as u8;
                format!("#ff{k:02x}{k:02x}")
            };
            let x = left + cw * j as f64;
            let stroke = if c.verdict == Verdict::Same {
                "#ccc"
            } else {
                verdict_colour(c.verdict)
            };
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{cw}" height="{ch}" fill="{fill}" stroke="{stroke}" stroke-width="{}"><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                if c.verdict == Verdict::Same { 1 } else { 2 },
                percent(c.percent),
                c.verdict.name(),
                x + cw / 2.0,
                y + ch / 2.0 + 4.0,
                ratio(c.ratio)
            );
        }
    }
    let _ = write!(
        s,
        r#"<text x="10" y="{:.1}" text-anchor="start">file kB ↓</text>"#,
        top + ch * files.len() as f64 + 18.0
    );
    s.push_str("</svg>");
    s
}
