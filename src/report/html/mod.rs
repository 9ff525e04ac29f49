//! The HTML report (--html): one self-contained file. The style sheet is inline,
//! the plots are inline SVG, and there is no script, font or image to fetch.
//! The page fits 1400 pixels without sideways scrolling: each test's grid
//! with its charts beside it, and the long tables folded.

mod cost;
mod environment;
mod intervals;
mod latency;
mod metadata;
mod pass;
mod residency;
mod stamp;
mod tables;

use std::fmt::Write as _;
use std::io;

use super::Exporter;
use super::plots::{pass_slug, plotted_passes};
use super::text::render_output;
use super::web::esc;
use crate::model::config::{OutputUnit, PlotStyle};
use crate::model::result::{RunResult, RunStatus};
use environment::environment_section;
use pass::pass_section;
use tables::{results_table, throughput_table};

pub struct HtmlReport;

impl Exporter for HtmlReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        Ok(render_html(result)?.into_bytes())
    }
}

const STYLE: &str = r#"
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; margin: 0 auto;
  max-width: 1340px; padding: 1.2em 1.5em 3em; color: #1d1d1f; background: #fff; line-height: 1.4; }
h1 { font-size: 1.8em; margin: 0 0 0.2em; }
h2 { font-size: 1.35em; margin: 1.8em 0 0.6em; padding-bottom: 0.2em; border-bottom: 2px solid #2166ac; }
h3 { font-size: 1.1em; margin: 1.4em 0 0.5em; }
p.lead { color: #555; margin: 0 0 1em; }
nav ul { margin: 0.4em 0 0; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; }
a { color: #2166ac; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.4em 0 1em; font-size: 0.92em; }
th, td { border: 1px solid #d5d9e0; padding: 0.25em 0.6em; }
thead th { background: #eef2f7; }
caption { caption-side: top; text-align: left; color: #555; padding: 0.2em 0; }
table.facts th { text-align: left; background: #f6f7f9; font-weight: 600; white-space: nowrap; vertical-align: top; }
table.facts td { min-width: 24em; overflow-wrap: anywhere; }
table.numbers td { text-align: right; font-variant-numeric: tabular-nums; }
table.numbers th[scope=row] { text-align: right; background: #f6f7f9; font-variant-numeric: tabular-nums; }
table.results { font-size: 0.8em; }
table.results th, table.results td { padding: 0.2em 0.4em; }
table.grid { font-size: 0.8em; margin-top: 0; }
table.grid th, table.grid td { padding: 0.2em 0.35em; white-space: nowrap; }
table.grid caption { font-size: 1.1em; }
td.none { background: #fafafa; color: #aaa; text-align: center; }
.unknown { color: #999; font-style: italic; }
.status-complete { color: #1a7f37; font-weight: 600; }
.status-problem { color: #b42318; font-weight: 600; }
.stamp { margin: 0 0 1em; padding: 0.4em 0.8em; border-left: 4px solid; }
.stamp ul { margin: 0.3em 0 0; padding-left: 1.4em; font-size: 0.9em; color: #1d1d1f; }
.stamp-valid { border-color: #1a7f37; color: #1a7f37; background: #f0f8f2; }
.stamp-invalid { border-color: #b42318; color: #b42318; background: #fdf1f0; }
.stamp-unchecked { border-color: #8a6d00; color: #8a6d00; background: #fbf7e8; }
.mark { color: #b42318; font-size: 0.75em; font-weight: 600; }
.scroll { overflow-x: auto; max-width: 100%; }
.pass { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 1em 2em; align-items: start; }
@media (max-width: 1000px) { .pass { grid-template-columns: minmax(0, 1fr); } }
.pass-column { display: flex; flex-direction: column; gap: 0.8em; min-width: 0; }
.heat-legend { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3em 0.6em; font-size: 0.85em; color: #555; }
.heat-title { font-weight: 600; color: #1d1d1f; }
/* A cell's cache regime: a stripe down its left edge (the figures' region
   colours) and a small letter in its corner, neither taking any width. */
.regime-legend { display: flex; flex-wrap: wrap; gap: 0.3em 1em; font-size: 0.85em; color: #555; }
.regime { position: relative; }
.regime::after { position: absolute; top: 1px; left: 4px; font-size: 0.6em; line-height: 1; color: #444; }
.regime-key .regime { display: inline-block; width: 1.6em; height: 1.1em; border: 1px solid #d5d9e0; vertical-align: middle; }
.regime.cpu_cache { box-shadow: inset 3px 0 0 rgb(214,96,77); }
.regime.page_cache { box-shadow: inset 3px 0 0 rgb(67,147,195); }
.regime.device { box-shadow: inset 3px 0 0 rgb(120,120,120); }
.regime.uncached { box-shadow: inset 3px 0 0 #1d1d1f; }
.regime.cpu_cache::after { content: "C"; }
.regime.page_cache::after { content: "P"; }
.regime.device::after { content: "D"; }
.regime.uncached::after { content: "U"; }
.regime.unknown::after { content: "?"; }
.heat-scale { display: inline-flex; border: 1px solid #d5d9e0; }
.heat-step { display: inline-block; min-width: 3.2em; padding: 0.1em 0.4em; text-align: center; color: #1d1d1f; font-variant-numeric: tabular-nums; }
figure { margin: 0 0 1em; }
figure svg { display: block; width: 100%; height: auto; border: 1px solid #e3e6ea; }
figure.chart svg { max-width: 760px; }
figure.chart.wide svg { width: auto; max-width: 100%; }
figure.latency-chart svg { width: auto; max-width: 100%; }
figcaption { color: #555; font-size: 0.85em; }
details { margin: 1em 0; }
summary { cursor: pointer; font-weight: 600; }
pre { background: #f6f7f9; padding: 0.8em; overflow-x: auto; border: 1px solid #e3e6ea; }
footer { margin-top: 3em; color: #888; font-size: 0.85em; }
"#;

/// The whole report of a run.
pub fn render_html(result: &RunResult) -> io::Result<String> {
    let config = &result.config;
    let passes = plotted_passes(result);
    let unit = unit_words(config.unit);
    let throughput = !result.throughput.is_empty() || config.throughput.is_some();
    let host = &result.environment.hostname;
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        h,
        "<title>ioz report{}{}</title>",
        if host.is_empty() { "" } else { " – " },
        esc(host)
    );
    let _ = writeln!(
        h,
        "<style>{STYLE}{}</style>\n</head>\n<body>",
        residency::STYLE
    );

    let _ = writeln!(h, "<header>\n<h1>ioz report</h1>");
    let _ = writeln!(
        h,
        "<p class=\"lead\">File-system benchmark results: {}{}{}{}.</p>",
        if host.is_empty() {
            String::new()
        } else {
            format!("{} · ", esc(host))
        },
        esc(&result.started_at),
        match result.summed_words() {
            Some(sum) => format!(
                " · {} (each client's own: <code>ioz report RUN.json#rank=N</code>)",
                esc(&sum)
            ),
            None => String::new(),
        },
        if result.status == RunStatus::Complete {
            ""
        } else {
            " · <span class=\"status-problem\">incomplete run</span>"
        }
    );
    stamp::stamp_line(&mut h, result);
    h.push_str("<nav><ul>\n<li><a href=\"#run\">Run</a></li>\n<li><a href=\"#environment\">Environment</a></li>\n<li><a href=\"#results\">Results</a></li>\n");
    for &pass in &passes {
        let _ = writeln!(
            h,
            "<li><a href=\"#pass-{}\">{}</a></li>",
            pass_slug(pass),
            esc(pass.name())
        );
    }
    if residency::measured(result) {
        h.push_str("<li><a href=\"#residency\">Page cache</a></li>\n");
    }
    if result.has_intervals() {
        h.push_str("<li><a href=\"#over-time\">Over time</a></li>\n");
    }
    for op in result.metadata.iter().flat_map(metadata::operations) {
        let _ = writeln!(
            h,
            "<li><a href=\"#{}\">{}</a></li>",
            metadata::slug(op),
            esc(op.name())
        );
    }
    h.push_str("<li><a href=\"#text-output\">Text output</a></li>\n</ul></nav>\n</header>\n");

    // The run.
    h.push_str("<section id=\"run\">\n<h2>Run</h2>\n<table class=\"facts\">\n");
    fact(
        &mut h,
        "Command line",
        &code(&config.command_line.join(" ")),
    );
    fact(
        &mut h,
        "Tool version",
        &text_or_unknown(&result.tool_version),
    );
    fact(
        &mut h,
        "Started",
        &format!(
            "{} <span class=\"unknown\">({})</span>",
            text_or_unknown(&result.started_at),
            esc(&result.started)
        ),
    );
    fact(&mut h, "Finished", &text_or_unknown(&result.finished_at));
    fact(&mut h, "Status", &status_html(&result.status));
    fact(&mut h, "Output unit", &esc(unit));
    fact(&mut h, "Plots", &esc(&plot_style_words(config.plot_style)));
    if !passes.is_empty() {
        let names: Vec<&str> = passes.iter().map(|p| p.name()).collect();
        fact(&mut h, "Passes", &esc(&names.join(", ")));
    }
    if let Some(cluster) = cluster_words(result) {
        fact(&mut h, "Cluster", &cluster);
    }
    let test_files = if result.ranks.is_empty() {
        code(&config.path.display().to_string())
    } else {
        let files: Vec<String> = result
            .ranks
            .iter()
            .map(|r| code(&r.test_file.display().to_string()))
            .collect();
        files.join(", ")
    };
    match &config.metadata {
        Some(m) => fact(
            &mut h,
            &format!("ioz {}'s tree made in", m.command()),
            &code(&m.dir().display().to_string()),
        ),
        None => fact(&mut h, "Test file", &test_files),
    }
    fact(
        &mut h,
        "Time resolution",
        &format!("{} ns", result.time_resolution_ns),
    );
    h.push_str("</table>\n</section>\n");

    environment_section(&mut h, &result.environment);
    environment::rank_differences_section(&mut h, result);

    if let Some(meta) = &result.metadata {
        metadata::metadata_sections(&mut h, meta, config.runs);
        return Ok(closing(h, result));
    }
    h.push_str("<section id=\"results\">\n<h2>Results</h2>\n");
    if throughput {
        throughput_table(&mut h, result, unit);
    } else {
        results_table(&mut h, result, &passes, unit);
    }
    h.push_str("</section>\n");

    residency::residency_section(&mut h, result, &passes);
    cost::cost_section(&mut h, result);
    latency::latency_section(&mut h, result);
    intervals::intervals_section(&mut h, result);

    for &pass in &passes {
        pass_section(&mut h, result, pass)?;
    }

    Ok(closing(h, result))
}

/// The page's end: the text the run printed, folded, and the footer.
fn closing(mut h: String, result: &RunResult) -> String {
    h.push_str("<section id=\"text-output\">\n<h2>Text output</h2>\n<details>\n<summary>What ioz printed (the IOzone-compatible table)</summary>\n<pre>");
    h.push_str(&esc(&render_output(result)));
    h.push_str("</pre>\n</details>\n</section>\n");
    let _ = writeln!(
        h,
        "<footer>Written by ioz {}. This file is self-contained: it loads nothing.</footer>\n</body>\n</html>",
        esc(&result.tool_version)
    );
    h
}

/// How the plots draw values, in words.
fn plot_style_words(style: PlotStyle) -> String {
    format!(
        "{} value axis; {}",
        if style.log_values {
            "logarithmic"
        } else {
            "linear"
        },
        if style.shared_scale {
            "one scale shared by every test (--plot-scale shared)"
        } else {
            "each test on its own scale"
        }
    )
}

fn unit_words(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kB/s",
        OutputUnit::OpsPerSec => "operations/s",
        OutputUnit::MicrosPerOp => "µs per operation",
    }
}

fn code(s: &str) -> String {
    format!("<code>{}</code>", esc(s))
}

pub(super) const UNKNOWN: &str = "<span class=\"unknown\">unknown</span>";

pub(super) fn text_or_unknown(s: &str) -> String {
    if s.trim().is_empty() {
        UNKNOWN.to_string()
    } else {
        esc(s)
    }
}

pub(super) fn opt_or_unknown(s: Option<&str>) -> String {
    s.map_or_else(|| UNKNOWN.to_string(), text_or_unknown)
}

/// One row of a facts table; `value` is HTML.
/// What a cluster run was, for its Run table (none on one machine): the
/// ranks and their hosts, and what the figures below add up.
fn cluster_words(result: &RunResult) -> Option<String> {
    let hosts = result.rank_hosts();
    if hosts.is_empty() {
        return None;
    }
    let ranks: Vec<String> = hosts
        .iter()
        .enumerate()
        .map(|(rank, host)| format!("rank {rank} on {}", esc(host)))
        .collect();
    let n = hosts.len();
    Some(if result.rank_tables().is_empty() {
        format!(
            "{n} ranks ({}); the throughput figures count every rank's workers; the \
             environment below is rank 0's",
            ranks.join(", ")
        )
    } else {
        format!(
            "{n} ranks at once, each on its own test file ({}); every table and figure \
             below is their sum, cell by cell: the aggregate of {n} simultaneous clients \
             (each rank's own table is in the text output); the environment below is \
             rank 0's",
            ranks.join(", ")
        )
    })
}

pub(super) fn fact(h: &mut String, name: &str, value: &str) {
    let _ = writeln!(
        h,
        "<tr><th scope=\"row\">{}</th><td>{value}</td></tr>",
        esc(name)
    );
}

fn status_html(status: &RunStatus) -> String {
    match status {
        RunStatus::Complete => "<span class=\"status-complete\">complete</span>".into(),
        RunStatus::Interrupted(sig) => {
            let name = nix::sys::signal::Signal::try_from(*sig)
                .map(|s| s.as_str().to_string())
                .unwrap_or_else(|_| format!("signal {sig}"));
            format!(
                "<span class=\"status-problem\">interrupted by {}</span>: the cells after it did not run",
                esc(&name)
            )
        }
        RunStatus::Failed(msg) => {
            format!("<span class=\"status-problem\">failed</span>: {}", esc(msg))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::environment::{CpuCache, DeviceInfo};
    use crate::model::result::{PhaseResult, WorkerResult, sample_result};
    use crate::model::workload::Pass;

    fn run(args: &[&str]) -> RunResult {
        let config = test_config(args);
        let passes = plotted_passes(&sample_result(config.clone(), Vec::new()));
        let cells = crate::model::result::sample_cells(&config, &passes, |f, r| (f + r) << 4);
        sample_result(config, cells)
    }

    #[test]
    fn a_report_has_its_tables_and_plots_inline() {
        let mut r = run(&["-a", "-n", "64k", "-g", "256k", "-i", "0", "-i", "2"]);
        r.environment.hostname = "host<1>".into();
        r.environment.cpu_caches = vec![CpuCache {
            level: 3,
            kind: "Unified".into(),
            size_bytes: 8 << 20,
        }];
        r.environment.target.device = Some(DeviceInfo {
            name: "vda".into(),
            model: None,
            rotational: Some(false),
            scheduler: Some("none".into()),
            driver: Some("nvme".into()),
            ..Default::default()
        });
        let html = render_html(&r).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.trim_end().ends_with("</html>"));
        assert!(html.contains("host&lt;1&gt;"), "escaped");
        assert!(!html.contains("host<1>"));
        assert!(html.contains("L3 8 MiB"));
        assert!(html.contains("<table class=\"numbers results\">"));
        for pass in plotted_passes(&r) {
            assert!(html.contains(&format!("id=\"pass-{}\"", pass_slug(pass))));
        }
        // Each pass: the two 2-D views and the surface.
        assert_eq!(html.matches("<svg").count(), 12);
        assert_eq!(html.matches("</svg>").count(), 12);
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(!html.contains("<script"));
        // The results table: a row per cell.
        assert_eq!(html.matches("<tr><th scope=\"row\">64</th><th").count(), 5);
        // The grids: one per pass, a row per file size, a column per record
        // size, shaded, with a legend for the shading.
        assert_eq!(html.matches("<table class=\"numbers grid\">").count(), 4);
        assert_eq!(html.matches("<tr><th scope=\"row\">256K</th>").count(), 4);
        assert_eq!(html.matches("<th scope=\"col\">256K</th>").count(), 4);
        // 5 + 6 + 7 cells: records from 4K up to the file size.
        assert_eq!(html.matches("<td style=\"background:rgba(").count(), 4 * 18);
        assert_eq!(html.matches("class=\"heat-legend\"").count(), 4);
        assert!(html.contains("MB/s (10⁶ bytes per second)"));
        assert!(html.contains("<tr><th scope=\"row\">Rotational</th><td>no</td></tr>"));
        assert!(html.contains("unknown"), "empty environment fields say so");
    }

    #[test]
    fn a_throughput_run_gets_a_row_per_phase_and_its_plots() {
        let mut r = run(&["-i", "0", "-t", "2", "-s", "64k", "-r", "64k", "-+n"]);
        r.cells.clear();
        let worker = |worker, bytes| WorkerResult {
            worker,
            bytes,
            records: bytes >> 16,
            latency: None,
            elapsed_ns: 1_000_000_000,
            start_after_release_ns: 0,
            end_after_release_ns: 1_000_000_000,
            stonewalled: false,
            cpu_user_ns: 0,
            cpu_system_ns: 0,
            usage: None,
            residency: None,
            client: None,
            intervals: Vec::new(),
        };
        r.throughput = vec![PhaseResult {
            pass: Pass::Write,
            workers: 2,
            threads: false,
            file_bytes: 64 << 10,
            record_bytes: 64 << 10,
            parent_elapsed_ns: 2_000_000_000,
            parent_estimated: false,
            stonewall: false,
            latency: None,
            results: vec![worker(0, 64 << 10), worker(1, 128 << 10)],
            run: 0,
            intervals: Vec::new(),
            rank_intervals: Vec::new(),
            skew: None,
        }];
        let html = render_html(&r).unwrap();
        assert!(
            html.contains(
                "<td>2 processes</td><td>64</td><td>64</td><td>192.00</td><td>96.00</td>"
            )
        );
        assert_eq!(html.matches("<svg").count(), 1);
        assert!(!html.contains("numbers grid"));
        assert!(!html.contains("<th scope=\"col\">run</th>"));

        // With --runs, each run's phase is a row that says which run it is.
        let mut second = r.throughput[0].clone();
        second.run = 1;
        second.results[1].bytes = 64 << 10;
        r.throughput.push(second);
        let html = render_html(&r).unwrap();
        assert!(html.contains("One row per phase and run"));
        assert!(html.contains("<th scope=\"col\">pass</th><th scope=\"col\">run</th>"));
        assert!(html.contains(
            "<th scope=\"row\">write</th><td>1</td><td>2 processes</td><td>64</td><td>64</td><td>192.00</td>"
        ));
        assert!(html.contains(
            "<th scope=\"row\">write</th><td>2</td><td>2 processes</td><td>64</td><td>64</td><td>128.00</td>"
        ));
    }

    #[test]
    fn a_virtio_disk_is_rotational_in_the_kernel_s_words() {
        let mut r = run(&["-s", "64k", "-r", "64k", "-i", "0"]);
        r.environment.target.device = Some(DeviceInfo {
            name: "vda".into(),
            model: None,
            rotational: Some(true),
            scheduler: None,
            driver: Some("virtio_blk".into()),
            ..Default::default()
        });
        let html = render_html(&r).unwrap();
        assert!(html.contains(
            "<tr><th scope=\"row\">Rotational</th><td>the kernel reports rotational \
             (queue/rotational = 1) for this virtio disk (virtio_blk)"
        ));
        assert!(!html.contains("<td>yes</td>"));
    }

    #[test]
    fn status_and_units_read_as_words() {
        assert!(status_html(&RunStatus::Interrupted(2)).contains("SIGINT"));
        assert!(status_html(&RunStatus::Failed("write <x>".into())).contains("write &lt;x&gt;"));
        let mut r = run(&["-s", "64k", "-r", "64k", "-i", "0", "-O"]);
        r.status = RunStatus::Interrupted(15);
        let html = render_html(&r).unwrap();
        assert!(html.contains("operations/s"));
        assert!(html.contains("SIGTERM"));
        assert!(html.contains("incomplete run"));
    }
}
