//! `--html FILE` of a comparison: one self-contained page (inline style
//! and SVG, nothing to fetch): seed 003's coloured ratio table, then per
//! test seed 004's mean ± sd bars and percent differences with the band,
//! and, where a test covers a grid of cells, seed 001's mountains of the
//! baseline and each input on one scale beside a ratio heat grid.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::format::{cell_name, p_value, percent, ratio, test_name, unit_of};
use super::look::{look, verdict_css};
use super::over_time::over_time_section;
use super::svg::{mean_sd_bars, mountain, percent_bars, ratio_heat, shared_percent_axis};
use super::text::{Explained, command_lines, environment_lines, regime_line, why_lines};
use crate::analysis::compare::{Basis, CellComparison, Comparison, Moments, Pair, Verdict};
use crate::analysis::samples::Test;
use crate::report::environment_text::differences_html;
use crate::report::plots::{PlainAxis, number};
use crate::report::web::{esc, series};

const STYLE: &str = r#"
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 0 auto; max-width: 1300px;
  padding: 1.5em 2em 3em; color: #1d1d1f; background: #fff; line-height: 1.4; }
h1 { font-size: 1.7em; margin: 0 0 0.3em; }
h2 { font-size: 1.3em; margin: 2em 0 0.6em; border-bottom: 2px solid #2166ac; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
table { border-collapse: collapse; margin: 0.4em 0 1em; font-size: 0.9em; }
.scroll { overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #d5d9e0; padding: 0.2em 0.55em; text-align: right; }
th { background: #eef2f7; }
.figs { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.fig { margin: 0.6em 0 1em; }
.fig svg, .figs svg { flex: none; display: block; max-width: 100%; height: auto; }
.note { color: #555; }
.key span { display: inline-block; padding: 0 0.5em; margin-right: 0.5em; }
figure.time { margin: 0 0 1em; }
p.why { margin: 0.8em 0 0.2em; }
ol.why { margin: 0 0 0.6em; padding-left: 2em; }
figure.time svg { display: block; width: auto; max-width: 100%; height: auto; border: 1px solid #e3e6ea; }
"#;

pub fn render_html(c: &Comparison) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>ioz compare: {}</title><style>{STYLE}{}</style></head><body>",
        esc(&c.baseline.label),
        verdict_css()
    );
    let _ = write!(h, "<h1>ioz compare</h1>");
    let _ = write!(
        h,
        "<p class=\"note\">Baseline <b>{}</b> ({}{}). Values in {}. Ratio = input / baseline, of geometric means; \
         its 95 % interval from Welch's t on the log rates. Faster or slower: adjusted p &lt; {} ({}) and beyond \
         the band of ±{} %; with one sample on a side, the band alone.</p>",
        esc(&c.baseline.label),
        esc(&c.baseline.source),
        c.baseline
            .date
            .as_deref()
            .map(|d| format!(", {}", esc(d)))
            .unwrap_or_default(),
        unit_of(c),
        c.alpha,
        c.adjust.name(),
        c.band_percent
    );
    h.push_str("<p class=\"key\">");
    for v in [
        Verdict::Faster,
        Verdict::Slower,
        Verdict::Same,
        Verdict::Mixed,
    ] {
        let l = look(v);
        let _ = write!(
            h,
            "<span class=\"{}\" style=\"background:{}\">{}</span>",
            l.class,
            l.fill,
            match v {
                Verdict::Mixed => "mixed (a test: cells faster and slower)",
                v => v.name(),
            }
        );
    }
    h.push_str("</p>");
    // What differs between the machines, before any number.
    let _ = write!(h, "<h2>Environments</h2>");
    if let Some(t) = &c.baseline.tool {
        let _ = write!(
            h,
            "<p class=\"note\">measured: {}: {}{}</p>",
            esc(&c.baseline.label),
            esc(&t.words()),
            t.command
                .as_deref()
                .map(|cmd| format!(", {}", esc(cmd)))
                .unwrap_or_default()
        );
    }
    for pair in &c.pairs {
        environment_differences(&mut h, c, pair);
    }
    tests_table(&mut h, c);
    why_section(&mut h, c);
    let labels: Vec<String> = std::iter::once(c.baseline.label.clone())
        .chain(c.pairs.iter().map(|p| p.other.label.clone()))
        .collect();
    for (pass, workers) in groups(c) {
        let name = test_name(pass, workers);
        let _ = write!(h, "<h2 id=\"{}\">{}</h2>", slug(&name), esc(&name));
        let of = |x: &&CellComparison| x.cell.pass == pass && x.cell.workers == workers;
        // Every cell of this test any pair has, with each input's moments.
        let keys: BTreeSet<(u64, u64)> = c
            .pairs
            .iter()
            .flat_map(|p| p.cells.iter().filter(of))
            .map(|x| (x.cell.file_bytes, x.cell.record_bytes))
            .collect();
        let bars: Vec<(u64, u64, Vec<Option<Moments>>)> = keys
            .iter()
            .map(|&(f, r)| {
                fn at(
                    p: &crate::analysis::compare::Pair,
                    key: (Test, Option<u32>, u64, u64),
                ) -> Option<&CellComparison> {
                    p.cells.iter().find(|x| {
                        (
                            x.cell.pass,
                            x.cell.workers,
                            x.cell.file_bytes,
                            x.cell.record_bytes,
                        ) == key
                    })
                }
                let key = (pass, workers, f, r);
                let base = c.pairs.iter().find_map(|p| at(p, key).map(|x| x.base));
                let sides = std::iter::once(base)
                    .chain(c.pairs.iter().map(|p| at(p, key).map(|x| x.other)))
                    .collect();
                (f, r, sides)
            })
            .collect();
        let _ = write!(h, "<div class=\"fig\">");
        h.push_str(&mean_sd_bars(
            &format!("{name}: mean ± sd"),
            c.unit,
            &labels,
            &bars,
        ));
        let _ = write!(h, "</div>");
        // One percent axis for every input's chart of the test, so that
        // their bars compare at a glance.
        let every: Vec<&CellComparison> = c
            .pairs
            .iter()
            .flat_map(|p| p.cells.iter().filter(of))
            .collect();
        let axis = shared_percent_axis(c.band_percent, &every);
        // Side by side where they fit (a test of a few cells).
        let _ = write!(h, "<div class=\"figs\">");
        for pair in &c.pairs {
            let cells: Vec<&CellComparison> = pair.cells.iter().filter(of).collect();
            h.push_str(&percent_bars(
                &format!("{name}: {} vs {} (%)", pair.other.label, c.baseline.label),
                c.band_percent,
                &axis,
                &cells,
            ));
        }
        let _ = write!(h, "</div>");
        for pair in &c.pairs {
            let cells: Vec<&CellComparison> = pair.cells.iter().filter(of).collect();
            let files: Vec<u64> = cells
                .iter()
                .map(|x| x.cell.file_bytes)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let records: Vec<u64> = cells
                .iter()
                .map(|x| x.cell.record_bytes)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            if files.len() < 2 || records.len() < 2 {
                continue;
            }
            let zmax = cells
                .iter()
                .map(|x| x.base.mean.max(x.other.mean))
                .fold(0.0, f64::max);
            let find = |f: u64, r: u64| {
                cells
                    .iter()
                    .find(|x| x.cell.file_bytes == f && x.cell.record_bytes == r)
            };
            let _ = write!(
                h,
                "<h3>{}: mountains on one scale, and the ratio</h3><div class=\"figs\">",
                esc(&pair.other.label)
            );
            h.push_str(&mountain(
                &c.baseline.label,
                &files,
                &records,
                &|f, r| find(f, r).map(|x| x.base.mean),
                zmax,
                c.unit,
            ));
            h.push_str(&mountain(
                &pair.other.label,
                &files,
                &records,
                &|f, r| find(f, r).map(|x| x.other.mean),
                zmax,
                c.unit,
            ));
            h.push_str(&ratio_heat(
                &format!("{} / {}", pair.other.label, c.baseline.label),
                c.band_percent,
                &cells,
                c.higher_is_better,
            ));
            let _ = write!(h, "</div>");
        }
        details(&mut h, c, pass, workers);
    }
    over_time_section(&mut h, c, &labels);
    let _ = write!(
        h,
        "<p class=\"note\">Bars: one colour per input ({}); whiskers ±1 sd. Percent bars: the grey band is ±{} %, whiskers the 95 % interval; a bar beyond a clipped axis ends in an arrowhead with its value. Mountains: the plots' colours, on one scale.</p></body></html>",
        labels
            .iter()
            .enumerate()
            .map(|(i, l)| format!("<span style=\"color:{}\">{}</span>", series(i), esc(l)))
            .collect::<Vec<_>>()
            .join(", "),
        c.band_percent
    );
    h.push('\n');
    h
}

/// What differs between the baseline's environment and an input's: one
/// summary line, the differences folded under it by topic; then the cells
/// in different cache regimes, if any.
fn environment_differences(h: &mut String, c: &Comparison, pair: &Pair) {
    let who = format!(
        "<b>{}</b> against <b>{}</b>",
        esc(&pair.other.label),
        esc(&c.baseline.label)
    );
    // The baseline's tool is said once, at the top.
    for line in command_lines(c, pair)
        .iter()
        .skip(usize::from(c.baseline.tool.is_some()))
    {
        let _ = write!(h, "<p class=\"note\">measured: {}</p>", esc(line));
    }
    match &pair.environment_differences {
        Some(diffs) => h.push_str(&differences_html(&who, diffs)),
        None => {
            for line in environment_lines(c, pair) {
                let _ = write!(h, "<p class=\"note envdiff\">{who}: {}</p>", esc(&line));
            }
        }
    }
    if let Some(line) = regime_line(pair) {
        let _ = write!(h, "<p class=\"note\">{}</p>", esc(&line));
    }
}

/// For each difference that counts, what the two inputs recorded
/// differently, the likeliest cause first (analysis/why.rs).
fn why_section(h: &mut String, c: &Comparison) {
    let pairs: Vec<(&Pair, Vec<Explained>)> = c
        .pairs
        .iter()
        .map(|p| (p, why_lines(c, p)))
        .filter(|(_, w)| !w.is_empty())
        .collect();
    if pairs.is_empty() {
        return;
    }
    let _ = write!(
        h,
        "<h2 id=\"why\">Why the numbers differ</h2><p class=\"note\">For each cell faster or slower, what the two inputs recorded differently, the likeliest cause first: the cache regime, the settings, the tools, the environments, the tool's own cost, the workers' start, the rate's course, the samples.</p>"
    );
    for (pair, why) in pairs {
        let _ = write!(
            h,
            "<h3>{} against {}</h3>",
            esc(&pair.other.label),
            esc(&c.baseline.label)
        );
        for Explained { headline, causes } in why {
            let _ = write!(
                h,
                "<p class=\"why\"><b>{}</b></p><ol class=\"why\">",
                esc(&headline)
            );
            for cause in causes {
                let _ = write!(h, "<li>{}</li>", esc(&cause));
            }
            let _ = write!(h, "</ol>");
        }
    }
}

fn groups(c: &Comparison) -> Vec<(Test, Option<u32>)> {
    let set: BTreeSet<(Test, Option<u32>)> = c
        .pairs
        .iter()
        .flat_map(|p| p.cells.iter().map(|x| (x.cell.pass, x.cell.workers)))
        .collect();
    set.into_iter().collect()
}

fn class(v: Verdict) -> &'static str {
    look(v).class
}

/// Seed 003's table: rows are the inputs, columns the tests; then each
/// input's ratio row, coloured by its cells' verdicts.
fn tests_table(h: &mut String, c: &Comparison) {
    let passes: Vec<Test> = groups(c)
        .into_iter()
        .map(|g| g.0)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    if passes.is_empty() {
        let _ = write!(h, "<p>No cell in common: nothing to compare.</p>");
        return;
    }
    // The means read in MB/s or GB/s (k ops/s …) with three significant
    // digits, as ioz's figures do, so that thirteen tests fit the page.
    let first = c.pairs[0].by_pass();
    let largest = first
        .iter()
        .map(|s| s.base_mean)
        .chain(
            c.pairs
                .iter()
                .flat_map(|p| p.by_pass().into_iter().map(|s| s.other_mean)),
        )
        .fold(0.0, f64::max);
    let axis = PlainAxis::up_to(c.unit, largest);
    // A row per test, as many as a run has (22 passes for the 13 tests),
    // and a column per input and per ratio: a page holds it without
    // scrolling sideways.
    let _ = write!(
        h,
        "<h2>Per test</h2><p class=\"note\">Means over the cells compared, in {}; ratio columns: the geometric mean of the cells' ratios, coloured by the cells' verdicts: green when some are faster and none slower, red when some are slower and none faster, amber when both, grey when every cell is the same (each cell's own verdict is in the test's charts and table below).</p><div class=\"scroll\"><table><tr><th style=\"text-align:left\">test</th>",
        axis.unit
    );
    let inputs = std::iter::once(&c.baseline).chain(c.pairs.iter().map(|p| &p.other));
    for input in inputs {
        let _ = write!(
            h,
            "<th>{}{}</th>",
            esc(&input.label),
            input
                .date
                .as_deref()
                .map(|d| format!("<br><small>{}</small>", esc(d)))
                .unwrap_or_default()
        );
    }
    for pair in &c.pairs {
        let _ = write!(
            h,
            "<th>{} / {}</th>",
            esc(&pair.other.label),
            esc(&c.baseline.label)
        );
    }
    h.push_str("</tr>");
    let summaries: Vec<_> = c.pairs.iter().map(|p| p.by_pass()).collect();
    let mean = |v: Option<f64>| v.map(|v| number(v * axis.factor)).unwrap_or_default();
    for p in &passes {
        let _ = write!(h, "<tr><th style=\"text-align:left\">{}</th>", p.name());
        let base = first.iter().find(|s| s.pass == *p).map(|s| s.base_mean);
        let _ = write!(h, "<td>{}</td>", mean(base));
        for s in &summaries {
            let other = s.iter().find(|x| x.pass == *p).map(|x| x.other_mean);
            let _ = write!(h, "<td>{}</td>", mean(other));
        }
        for s in &summaries {
            match s.iter().find(|x| x.pass == *p) {
                Some(x) => {
                    let _ = write!(
                        h,
                        "<td class=\"{}\">{}</td>",
                        class(x.verdict),
                        ratio(x.ratio)
                    );
                }
                None => h.push_str("<td></td>"),
            }
        }
        h.push_str("</tr>");
    }
    let _ = write!(h, "</table></div>");
}

/// Every cell of a test in a table: both sides, ratio, interval, p, verdict.
fn details(h: &mut String, c: &Comparison, pass: Test, workers: Option<u32>) {
    let _ = write!(
        h,
        "<details><summary>Every cell</summary><table><tr><th>input</th><th>cell</th><th>base n</th><th>base mean ± sd</th>\
         <th>n</th><th>mean ± sd</th><th>ratio</th><th>95 % interval</th><th>%</th><th>p (adjusted)</th><th>Mann-Whitney p</th><th>verdict</th></tr>"
    );
    let ms = |m: &Moments| match m.sd {
        Some(sd) => format!("{:.0} ± {:.0}", m.mean, sd),
        None => format!("{:.0}", m.mean),
    };
    for pair in &c.pairs {
        for x in pair
            .cells
            .iter()
            .filter(|x| x.cell.pass == pass && x.cell.workers == workers)
        {
            let _ = write!(
                h,
                "<tr><td>{}</td><td style=\"text-align:left\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td class=\"{}\" style=\"color:{}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&pair.other.label),
                esc(&cell_name(&x.cell)),
                x.base.n,
                ms(&x.base),
                x.other.n,
                ms(&x.other),
                class(x.verdict),
                look(x.verdict).ink,
                ratio(x.ratio),
                match (x.ci_low, x.ci_high) {
                    (Some(a), Some(b)) => format!("{} … {}", ratio(a), ratio(b)),
                    _ => String::new(),
                },
                percent(x.percent),
                x.p_adjusted.map(p_value).unwrap_or_default(),
                x.mann_whitney_p.map(p_value).unwrap_or_default(),
                match x.basis {
                    Basis::Significance => x.verdict.name().to_string(),
                    Basis::BandOnly => format!("{} (band only)", x.verdict.name()),
                }
            );
        }
    }
    let _ = write!(h, "</table></details>");
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}
