//! The section of one pass: its grid (file sizes down, record sizes across,
//! as in IOzone's `-R` report) shaded by value with a legend for the
//! shading, the 2-D charts beside it, and the 3-D surface folded below.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io;

use crate::model::config::OutputUnit;
use crate::model::plan::expand;
use crate::model::regime::{CacheLimits, Regime, regime};
use crate::model::result::{PhaseResult, RunResult, mean, phase_runs};
use crate::model::result_files::{PlotView, plot_file_name, plot_views};
use crate::model::units::Size;
use crate::model::workload::Pass;
use crate::report::plots::{ValueScale, measured, pass_slug, plot_svg, value_scale};
use crate::report::web::esc;

/// The size of the drawings in the page: smaller than the plot files, so
/// that their text keeps a readable size in half the page.
const INLINE_SIZE: (u32, u32) = (760, 570);

/// The shading of a grid cell, the legend's too: the run's blue, stronger
/// for higher values.
fn shade_css(t: f64) -> String {
    format!("rgba(33,102,172,{:.2})", 0.04 + 0.5 * t.clamp(0.0, 1.0))
}

/// The section of `pass`.
pub(super) fn pass_section(h: &mut String, result: &RunResult, pass: Pass) -> io::Result<()> {
    let slug = pass_slug(pass);
    let sum = result
        .summed_words()
        .map(|s| format!(", {s}"))
        .unwrap_or_default();
    let invalid = match super::stamp::invalid_count(result, pass) {
        0 => String::new(),
        1 => " <span class=\"mark\">[INVALID: 1 cell]</span>".to_string(),
        n => format!(" <span class=\"mark\">[INVALID: {n} cells]</span>"),
    };
    let _ = writeln!(
        h,
        "<section id=\"pass-{slug}\">\n<h2>{} <small>({}{})</small>{invalid}</h2>",
        esc(pass.report_title()),
        esc(pass.name()),
        esc(&sum)
    );
    let throughput = !result.throughput.is_empty() || result.config.throughput.is_some();
    let scale = value_scale(result, pass);
    let views = plot_views(&result.config);
    // Two columns: the grid and its legend, then the chart by record size,
    // beside the chart by file size and the surface; or the grid beside the
    // one chart of a degenerate grid; or a throughput pass's phases beside
    // its chart.
    let (left, right): (Vec<PlotView>, Vec<PlotView>) = if throughput {
        (Vec::new(), vec![PlotView::Overview])
    } else if views.contains(&PlotView::ByFileSize) {
        (
            vec![PlotView::ByRecordSize],
            vec![PlotView::ByFileSize, PlotView::Overview],
        )
    } else {
        (Vec::new(), vec![PlotView::Overview])
    };
    h.push_str("<div class=\"pass\">\n<div class=\"pass-column\">\n");
    if throughput {
        phases(h, result, pass, &scale);
    } else {
        grid(h, result, pass, &scale);
        heat_legend(h, &scale);
        regime_legend(h, result, pass);
    }
    for view in left {
        chart(h, result, pass, view, &scale, throughput)?;
    }
    h.push_str("</div>\n<div class=\"pass-column\">\n");
    for view in right {
        chart(h, result, pass, view, &scale, throughput)?;
    }
    h.push_str("</div>\n</div>\n");
    h.push_str("</section>\n");
    Ok(())
}

/// One view of the pass as an inline figure with its caption.
fn chart(
    h: &mut String,
    result: &RunResult,
    pass: Pass,
    view: PlotView,
    scale: &ValueScale,
    throughput: bool,
) -> io::Result<()> {
    let svg = plot_svg(result, pass, view, INLINE_SIZE)?;
    let what = match view {
        PlotView::ByFileSize => "by file size, one line per record size",
        PlotView::ByRecordSize => "by record size, one line per file size",
        PlotView::Overview if throughput => "by worker count",
        PlotView::Overview if plot_views(&result.config).contains(&PlotView::ByFileSize) => {
            "as a 3-D surface over file and record size"
        }
        PlotView::Overview => "over the sizes measured",
        // The report's own section draws it (html/intervals.rs).
        PlotView::OverTime => "over time",
    };
    let _ = writeln!(
        h,
        "<figure class=\"chart\">\n{}\n<figcaption>{}{} {what}, in {}. <code>--plots DIR</code> \
         writes it as {} and .svg.</figcaption>\n</figure>",
        inline_svg(&svg),
        esc(pass.report_title()),
        esc(&result
            .summed_words()
            .map(|s| format!(" ({s})"))
            .unwrap_or_default()),
        esc(scale.unit),
        plot_file_name(pass, view, "png")
    );
    Ok(())
}

/// An SVG document as an element of the page: without the XML namespace
/// (HTML knows it), labelled for screen readers.
fn inline_svg(svg: &str) -> String {
    svg.replacen(
        " xmlns=\"http://www.w3.org/2000/svg\"",
        " role=\"img\" aria-label=\"plot\"",
        1,
    )
}

/// The pass's grid like the `-R` report: file sizes down, record sizes
/// across, each cell in the scale's unit and shaded by value; its exact
/// value in the run's unit in the cell's title.
/// A file-by-record grid's head: the corner and one column per record size
/// (the pass grids and the residency map share it), and the body opened.
pub(super) fn grid_head(h: &mut String, records: &BTreeSet<u64>) {
    h.push_str("<thead><tr><th scope=\"col\">file \\ record</th>");
    for &rec in records {
        let _ = write!(h, "<th scope=\"col\">{:#}</th>", Size(rec));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
}

fn grid(h: &mut String, result: &RunResult, pass: Pass, scale: &ValueScale) {
    let config = &result.config;
    let plan = expand(config);
    let planned: BTreeSet<(u64, u64)> = plan
        .cells
        .iter()
        .map(|c| (c.file_bytes, c.record_bytes))
        .collect();
    let records: BTreeSet<u64> = plan.cells.iter().map(|c| c.record_bytes).collect();
    let measurement = |file: u64, rec: u64| {
        result
            .cells
            .iter()
            .find(|c| c.cell.file_bytes == file && c.cell.record_bytes == rec)
            .and_then(|c| c.get(pass))
    };
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"numbers grid\">\n<caption>{}: {}; file size down, \
         record size across. – marks a cell that did not run.</caption>",
        esc(pass.report_title()),
        esc(&unit_words(scale.unit))
    );
    grid_head(h, &records);
    for &file in &plan.file_axis {
        if !result.cells.iter().any(|c| c.cell.file_bytes == file) {
            continue;
        }
        let _ = write!(h, "<tr><th scope=\"row\">{:#}</th>", Size(file));
        for &rec in &records {
            if !planned.contains(&(file, rec)) {
                h.push_str("<td></td>");
                continue;
            }
            match measurement(file, rec) {
                Some(m) => {
                    let raw = measured(m, config.unit);
                    let regime = regime(config, &result.environment, pass, file, m.first().workers);
                    // The title holds the number of the text table; the
                    // class draws the regime's marker after the value.
                    let (mark, why) = match super::stamp::cell_mark(result, pass, file, rec) {
                        Some((mark, why)) => (
                            format!(" <span class=\"mark\">{mark}</span>"),
                            format!("; {mark} {}", esc(&why)),
                        ),
                        None => (String::new(), String::new()),
                    };
                    let _ = write!(
                        h,
                        "<td style=\"background:{}\" class=\"regime {}\" title=\"{:#} {:#}: {} {}; {}{why}\">{}{mark}</td>",
                        shade_css(scale.shade(raw)),
                        regime.code(),
                        Size(file),
                        Size(rec),
                        m.value(config.unit),
                        esc(iozone_unit(config.unit)),
                        esc(&regime.words()),
                        scale.grid_text(raw)
                    );
                }
                None => h.push_str("<td class=\"none\">–</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}

/// A throughput pass's phases, one row per worker count, in the chart's unit.
fn phases(h: &mut String, result: &RunResult, pass: Pass, scale: &ValueScale) {
    let u = result.config.unit;
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"numbers phases\">\n<caption>{}: {}; one row \
         per phase.</caption>",
        esc(pass.report_title()),
        esc(&unit_words(scale.unit))
    );
    h.push_str(
        "<thead><tr><th scope=\"col\">workers</th><th scope=\"col\">file each</th>\
         <th scope=\"col\">children see</th><th scope=\"col\">parent sees</th>\
         <th scope=\"col\">min</th><th scope=\"col\">avg</th><th scope=\"col\">max</th>\
         </tr></thead>\n<tbody>\n",
    );
    // With --runs, one row per phase still: each figure the mean over the runs.
    for runs in phase_runs(&result.throughput)
        .into_iter()
        .filter(|g| g[0].pass == pass)
    {
        let p = runs[0];
        let avg = |f: fn(&PhaseResult, OutputUnit) -> f64| mean(runs.iter().map(|p| f(p, u)));
        let _ = writeln!(
            h,
            "<tr><th scope=\"row\">{}</th><td>{:#}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td></tr>",
            p.workers,
            Size(p.file_bytes),
            scale.value_text(avg(PhaseResult::children_see)),
            scale.value_text(avg(PhaseResult::parent_sees)),
            scale.value_text(avg(PhaseResult::min_rate)),
            scale.value_text(avg(PhaseResult::avg_rate)),
            scale.value_text(avg(PhaseResult::max_rate))
        );
    }
    h.push_str("</tbody></table></div>\n");
}

/// The key to the grid's regime markers (model::regime): the regimes its
/// cells are in, with the sizes that bound them.
fn regime_legend(h: &mut String, result: &RunResult, pass: Pass) {
    let config = &result.config;
    let mut present: Vec<Regime> = Vec::new();
    for m in result.cells.iter().filter_map(|c| c.get(pass)) {
        let r = regime(
            config,
            &result.environment,
            pass,
            m.first().file_bytes,
            m.first().workers,
        );
        if !present.iter().any(|p| p.code() == r.code()) {
            present.push(r);
        }
    }
    if present.is_empty() {
        return;
    }
    present.sort_by_key(|r| REGIME_ORDER.iter().position(|c| *c == r.code()));
    let limits = CacheLimits::of(&result.environment);
    h.push_str("<div class=\"regime-legend\"><span class=\"heat-title\">Cache regime</span>");
    for r in present {
        let bound = match r.code() {
            "cpu_cache" => limits
                .llc
                .map(|b| format!(": the file fits the {} last-level cache", Size(b))),
            "page_cache" => limits
                .page_cache
                .map(|b| format!(": the file fits the page cache ({})", b.words())),
            "device" => limits
                .page_cache
                .map(|b| format!(": the file exceeds the page cache ({})", b.words())),
            "uncached" => Some(": the pass could not be served from a cache".to_string()),
            _ => Some(": the cache sizes were not recorded".to_string()),
        };
        let _ = write!(
            h,
            "<span class=\"regime-key\"><span class=\"regime {}\"></span> {}{}</span>",
            r.code(),
            esc(&r.words()),
            esc(&bound.unwrap_or_default())
        );
    }
    h.push_str("</div>\n");
}

/// The legend's order of the regimes.
const REGIME_ORDER: [&str; 5] = ["cpu_cache", "page_cache", "device", "uncached", "unknown"];

/// The key to the shading: five swatches from the lowest value to the highest.
fn heat_legend(h: &mut String, scale: &ValueScale) {
    let (lo, hi) = scale.extent();
    h.push_str(
        "<div class=\"heat-legend\"><span class=\"heat-title\">Shading</span>\
         <span class=\"heat-scale\">",
    );
    for k in 0..5 {
        let t = f64::from(k) / 4.0;
        let v = if scale.is_log() && lo > 0.0 {
            lo * (hi / lo).powf(t)
        } else {
            lo + t * (hi - lo)
        };
        let _ = write!(
            h,
            "<span class=\"heat-step\" style=\"background:{}\">{}</span>",
            shade_css(t),
            scale.value_text(v)
        );
    }
    let _ = writeln!(
        h,
        "</span><span class=\"heat-unit\">{}: lightest the lowest value, darkest the highest{}{}.</span></div>",
        esc(scale.unit),
        if scale.is_log() { ", log-spaced" } else { "" },
        if scale.extent().0 < scale.extent().1 {
            ""
        } else {
            " (all values equal)"
        }
    );
}

/// The unit of a grid in words: "MB/s (10⁶ bytes/s)".
fn unit_words(unit: &str) -> String {
    match unit {
        "MB/s" => "MB/s (10⁶ bytes per second)".to_string(),
        "GB/s" => "GB/s (10⁹ bytes per second)".to_string(),
        other => other.to_string(),
    }
}

fn iozone_unit(unit: crate::model::config::OutputUnit) -> &'static str {
    use crate::model::config::OutputUnit::*;
    match unit {
        KbPerSec => "kB/s",
        OpsPerSec => "ops/s",
        MicrosPerOp => "µs/op",
    }
}
