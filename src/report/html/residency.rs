//! The residency map in the HTML report: for each pass kind, the grid of
//! cells (file size down, record size across; a throughput run's phases, a
//! row per worker count) coloured by the regime their residency shows, each
//! with the share cached at the clock's start, and start and end in its
//! title; then the rates above the run's ceilings (model/ceilings.rs).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::model::ceilings::rate_words;
use crate::model::impossible::impossible;
use crate::model::plan::expand;
use crate::model::residency::Residency;
use crate::model::result::RunResult;
use crate::model::units::Size;
use crate::model::workload::Pass;
use crate::report::web::esc;

/// The regimes' colours (the figures' page-cache blue, the device's grey).
pub(super) const STYLE: &str = r#"
table.resmap { font-size: 0.8em; margin-top: 0; }
table.resmap th, table.resmap td { padding: 0.2em 0.35em; white-space: nowrap; }
table.resmap caption { font-size: 1.1em; }
td.res { text-align: center; font-variant-numeric: tabular-nums; min-width: 3.4em; }
.res.device { background: #d0d0d0; }
.res.page_cache { background: #9ecae1; }
.res.mixed { background: #dadaeb; }
.res.written_through { background: #c7e9c0; }
.res.left_dirty { background: #fdd0a2; }
.res.written { background: #eeeeee; }
.res.unknown { background: #fff; color: #999; }
.res-legend { display: flex; flex-wrap: wrap; gap: 0.3em 1em; font-size: 0.85em; color: #555; margin: 0.3em 0 0.8em; }
.res-legend span.res { display: inline-block; width: 1.6em; height: 1.1em; border: 1px solid #d5d9e0; vertical-align: middle; }
.res-maps { display: flex; flex-wrap: wrap; gap: 0.5em 2em; align-items: flex-start; }
p.impossible { color: #b42318; font-weight: 600; margin: 0.2em 0; }
"#;

const LEGEND: [(&str, &str); 7] = [
    (
        "device",
        "read from the device (under 5 % cached at its start)",
    ),
    ("page_cache", "read from the page cache (over 95 %)"),
    ("mixed", "mixed"),
    ("written_through", "written, nothing left dirty"),
    ("left_dirty", "written, pages left dirty or under writeback"),
    ("written", "written (dirty pages not counted)"),
    ("unknown", "not measured"),
];

/// A cell: its class, its text (the share cached at the start) and its
/// title (start and end, the regime's words).
fn cell(pass: Pass, place: &str, r: Option<&Residency>) -> String {
    let pct = |f: f64| format!("{:.0} %", 100.0 * f);
    let Some(r) = r else {
        return "<td class=\"res unknown\">?</td>".into();
    };
    let (Some(start), Some(end), Some(m)) = (r.start, r.end, r.regime(pass)) else {
        return format!(
            "<td class=\"res unknown\" title=\"{}: {}\">?</td>",
            esc(place),
            esc(r.why.as_deref().unwrap_or("not measured"))
        );
    };
    format!(
        "<td class=\"res {}\" title=\"{}: {} cached at the start, {} at the end; {} ({})\">{}</td>",
        m.code(),
        esc(place),
        pct(start.cached_fraction()),
        pct(end.cached_fraction()),
        esc(&m.words()),
        r.source.code(),
        pct(start.cached_fraction())
    )
}

/// The section; nothing for a run that measured no residency.
pub(super) fn residency_section(h: &mut String, result: &RunResult, passes: &[Pass]) {
    if !measured(result) {
        return;
    }
    h.push_str("<section id=\"residency\">\n<h2>What the page cache held</h2>\n");
    h.push_str(
        "<p>Each pass's file as the page cache held it just before its clock started and just \
         after it stopped: the share cached at the start in each cell, start and end in its \
         title (hover).</p>\n<div class=\"res-legend\">",
    );
    for (class, words) in LEGEND {
        let _ = write!(
            h,
            "<span><span class=\"res {class}\"></span> {}</span>",
            esc(words)
        );
    }
    h.push_str("</div>\n<div class=\"res-maps\">\n");
    for &pass in passes {
        if result.config.throughput.is_some() {
            phases(h, result, pass);
        } else {
            grid(h, result, pass);
        }
    }
    h.push_str("</div>\n");
    for i in impossible(result) {
        let _ = writeln!(h, "<p class=\"impossible\">! {}</p>", esc(&i.words()));
    }
    if let Some(c) = &result.ceilings {
        let words = |r: Option<f64>| r.map_or("not measured".to_string(), rate_words);
        let link = c
            .device
            .as_ref()
            .and_then(|d| Some((d.link.clone()?, d.link_bytes_per_sec?)))
            .map_or("none reported".to_string(), |(l, r)| {
                format!("{l}, {}", rate_words(r))
            });
        let _ = writeln!(
            h,
            "<p>Ceilings measured at the run's start: one core's memcpy {}, a cached read loop {}, \
             the device's link {}.</p>",
            esc(&words(c.memcpy_bytes_per_sec)),
            esc(&words(c.cached_read_bytes_per_sec)),
            esc(&link)
        );
    }
    h.push_str("</section>\n");
}

/// Whether any pass's residency was counted.
pub(super) fn measured(result: &RunResult) -> bool {
    result
        .cells
        .iter()
        .flat_map(|c| &c.measurements)
        .filter_map(|m| m.residency.clone())
        .chain(result.throughput.iter().filter_map(|p| p.residency()))
        .any(|r| r.start.is_some())
}

/// A pass's cells (the first run's), file size down, record size across.
fn grid(h: &mut String, result: &RunResult, pass: Pass) {
    let plan = expand(&result.config);
    let planned: BTreeSet<(u64, u64)> = plan
        .cells
        .iter()
        .map(|c| (c.file_bytes, c.record_bytes))
        .collect();
    let records: BTreeSet<u64> = plan.cells.iter().map(|c| c.record_bytes).collect();
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"resmap\">\n<caption>{}</caption>",
        esc(pass.report_title())
    );
    super::pass::grid_head(h, &records);
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
            let m = result
                .cells
                .iter()
                .filter(|c| c.cell.file_bytes == file && c.cell.record_bytes == rec)
                .flat_map(|c| &c.measurements)
                .find(|m| m.pass == pass);
            match m {
                Some(m) => {
                    let place = format!("{:#} {:#}", Size(file), Size(rec));
                    h.push_str(&cell(pass, &place, m.residency.as_ref()));
                }
                None => h.push_str("<td class=\"none\">–</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}

/// A throughput pass's phases: a row per worker count (each run's).
fn phases(h: &mut String, result: &RunResult, pass: Pass) {
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"resmap\">\n<caption>{}</caption>\n\
         <thead><tr><th scope=\"col\">workers</th><th scope=\"col\">their files</th></tr></thead>\n<tbody>",
        esc(pass.report_title())
    );
    for p in result.throughput.iter().filter(|p| p.pass == pass) {
        let place = crate::model::impossible::workers_words(p.workers);
        let _ = writeln!(
            h,
            "<tr><th scope=\"row\">{}</th>{}</tr>",
            p.workers,
            cell(pass, &place, p.residency().as_ref())
        );
    }
    h.push_str("</tbody></table></div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::ceilings::Ceilings;
    use crate::model::residency::{PageCounts, ResidencySource};
    use crate::model::result::{sample_cells, sample_result};

    fn counts(cached: u64, dirty: u64) -> PageCounts {
        PageCounts {
            pages: 100,
            cached,
            dirty: Some(dirty),
            writeback: Some(0),
            ..PageCounts::default()
        }
    }

    #[test]
    fn each_cell_is_coloured_by_its_regime_with_start_and_end_in_its_title() {
        let config = test_config(&["-a", "-n", "64k", "-g", "128k", "-i", "0", "-i", "1"]);
        let passes = [Pass::Write, Pass::Rewrite, Pass::Read, Pass::Reread];
        let mut r = sample_result(
            config.clone(),
            sample_cells(&config, &passes, |_, _| 1 << 20),
        );
        let mut h = String::new();
        residency_section(&mut h, &r, &passes);
        assert!(h.is_empty(), "nothing measured, no section: {h}");
        for (i, m) in r
            .cells
            .iter_mut()
            .flat_map(|c| &mut c.measurements)
            .enumerate()
        {
            let start = if m.pass == Pass::Read { 2 } else { 100 };
            m.residency = Some(Residency {
                source: ResidencySource::Cachestat,
                why: None,
                start: Some(counts(start, 0)),
                end: Some(counts(100, if i % 2 == 0 { 40 } else { 0 })),
            });
        }
        r.ceilings = Some(Ceilings {
            memcpy_bytes_per_sec: Some(1e5),
            ..Ceilings::default()
        });
        residency_section(&mut h, &r, &passes);
        assert_eq!(h.matches("<table class=\"resmap\">").count(), 4);
        // -a from 64k to 128k at 4k..: 64k has 5 records, 128k 6.
        let read = h.split("Reader report").nth(1).unwrap();
        let read = read.split("</table>").next().unwrap();
        assert_eq!(read.matches("class=\"res device\"").count(), 11, "{read}");
        assert!(read.contains("title=\"64K 4K: 2 % cached at the start, 100 % at the end; device (2 % cached) (cachestat)\">2 %</td>"), "{read}");
        let reread = h.split("Re-Reader report").nth(1).unwrap();
        let reread = reread.split("</table>").next().unwrap();
        assert_eq!(reread.matches("class=\"res page_cache\"").count(), 11);
        assert!(h.contains("class=\"res left_dirty\""));
        assert!(h.contains("class=\"res written_through\""));
        // 1 MiB in a second against a memcpy of 100 kB/s: every cell.
        assert_eq!(h.matches("<p class=\"impossible\">! ").count(), 44);
    }
}
