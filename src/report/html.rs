//! The HTML report (--html): one self-contained file. The style sheet is inline,
//! the plots are inline SVG, and there is no script, font or image to fetch.

use std::fmt::Write as _;
use std::io;

use super::Exporter;
use super::plots::{human_size, pass_slug, plot_svg, plotted_passes};
use super::text::render_output;
use crate::model::config::OutputUnit;
use crate::model::environment::Environment;
use crate::model::plan::expand;
use crate::model::result::{RunResult, RunStatus};
use crate::model::units::KIB;
use crate::model::workload::Pass;

pub struct HtmlReport;

impl Exporter for HtmlReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        Ok(render_html(result)?.into_bytes())
    }
}

const STYLE: &str = r#"
:root { color-scheme: light; }
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; margin: 0 auto;
  max-width: 1240px; padding: 1.5em 2em 3em; color: #1d1d1f; background: #fff; line-height: 1.4; }
h1 { font-size: 1.8em; margin: 0 0 0.2em; }
h2 { font-size: 1.35em; margin: 2em 0 0.6em; padding-bottom: 0.2em; border-bottom: 2px solid #2166ac; }
h3 { font-size: 1.1em; margin: 1.4em 0 0.5em; }
p.lead { color: #555; margin: 0 0 1em; }
nav ul { margin: 0.4em 0 0; padding: 0; list-style: none; display: flex; flex-wrap: wrap; gap: 0.3em 1.2em; }
a { color: #2166ac; }
code, pre { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
table { border-collapse: collapse; margin: 0.4em 0 1em; font-size: 0.92em; }
th, td { border: 1px solid #d5d9e0; padding: 0.25em 0.6em; }
thead th { background: #eef2f7; position: sticky; top: 0; }
caption { caption-side: top; text-align: left; color: #555; padding: 0.2em 0; }
table.facts th { text-align: left; background: #f6f7f9; font-weight: 600; white-space: nowrap; vertical-align: top; }
table.facts td { min-width: 24em; }
table.numbers td { text-align: right; font-variant-numeric: tabular-nums; }
table.numbers th[scope=row] { text-align: right; background: #f6f7f9; font-variant-numeric: tabular-nums; }
td.none { background: #fafafa; color: #aaa; text-align: center; }
.unknown { color: #999; font-style: italic; }
.status-complete { color: #1a7f37; font-weight: 600; }
.status-problem { color: #b42318; font-weight: 600; }
.scroll { overflow-x: auto; }
figure { margin: 1em 0 2em; }
figure svg { width: 100%; height: auto; max-width: 1200px; border: 1px solid #e3e6ea; }
figcaption { color: #555; font-size: 0.9em; }
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
    let _ = writeln!(h, "<style>{STYLE}</style>\n</head>\n<body>");

    let _ = writeln!(h, "<header>\n<h1>ioz report</h1>");
    let _ = writeln!(
        h,
        "<p class=\"lead\">File-system benchmark results: {}{}{}.</p>",
        if host.is_empty() {
            String::new()
        } else {
            format!("{} · ", esc(host))
        },
        esc(&result.started_at),
        if result.status == RunStatus::Complete {
            ""
        } else {
            " · <span class=\"status-problem\">incomplete run</span>"
        }
    );
    h.push_str("<nav><ul>\n<li><a href=\"#run\">Run</a></li>\n<li><a href=\"#environment\">Environment</a></li>\n<li><a href=\"#results\">Results</a></li>\n");
    for &pass in &passes {
        let _ = writeln!(
            h,
            "<li><a href=\"#pass-{}\">{}</a></li>",
            pass_slug(pass),
            esc(pass.name())
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
    if !passes.is_empty() {
        let names: Vec<&str> = passes.iter().map(|p| p.name()).collect();
        fact(&mut h, "Passes", &esc(&names.join(", ")));
    }
    fact(
        &mut h,
        "Test file",
        &code(&config.path.display().to_string()),
    );
    fact(
        &mut h,
        "Time resolution",
        &format!("{} ns", result.time_resolution_ns),
    );
    h.push_str("</table>\n</section>\n");

    environment_section(&mut h, &result.environment);

    h.push_str("<section id=\"results\">\n<h2>Results</h2>\n");
    if throughput {
        throughput_table(&mut h, result, unit);
    } else {
        results_table(&mut h, result, &passes, unit);
    }
    h.push_str("</section>\n");

    for &pass in &passes {
        let _ = writeln!(
            h,
            "<section id=\"pass-{}\">\n<h2>{} <small>({})</small></h2>",
            pass_slug(pass),
            esc(pass.report_title()),
            esc(pass.name())
        );
        if !throughput {
            pass_grid(&mut h, result, pass, unit);
        }
        let svg = plot_svg(result, pass)?;
        let _ = writeln!(
            h,
            "<figure>\n{}\n<figcaption>{} in {}. <code>--plots DIR</code> writes this \
             drawing as {slug}.png and {slug}.svg.</figcaption>\n</figure>",
            inline_svg(&svg),
            esc(pass.report_title()),
            esc(unit),
            slug = pass_slug(pass)
        );
        h.push_str("</section>\n");
    }

    h.push_str("<section id=\"text-output\">\n<h2>Text output</h2>\n<details>\n<summary>What ioz printed (the IOzone-compatible table)</summary>\n<pre>");
    h.push_str(&esc(&render_output(result)));
    h.push_str("</pre>\n</details>\n</section>\n");
    let _ = writeln!(
        h,
        "<footer>Written by ioz {}. This file is self-contained: it loads nothing.</footer>\n</body>\n</html>",
        esc(&result.tool_version)
    );
    Ok(h)
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

fn unit_words(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kB/s",
        OutputUnit::OpsPerSec => "operations/s",
        OutputUnit::MicrosPerOp => "µs per operation",
    }
}

fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn code(s: &str) -> String {
    format!("<code>{}</code>", esc(s))
}

const UNKNOWN: &str = "<span class=\"unknown\">unknown</span>";

fn text_or_unknown(s: &str) -> String {
    if s.trim().is_empty() {
        UNKNOWN.to_string()
    } else {
        esc(s)
    }
}

fn opt_or_unknown(s: Option<&str>) -> String {
    s.map_or_else(|| UNKNOWN.to_string(), text_or_unknown)
}

/// One row of a facts table; `value` is HTML.
fn fact(h: &mut String, name: &str, value: &str) {
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

fn environment_section(h: &mut String, env: &Environment) {
    h.push_str("<section id=\"environment\">\n<h2>Environment</h2>\n<table class=\"facts\">\n");
    fact(h, "Host", &text_or_unknown(&env.hostname));
    fact(h, "Kernel", &text_or_unknown(&env.kernel));
    let cpu = match (env.cpu_model.trim().is_empty(), env.cpu_count) {
        (true, 0) => UNKNOWN.to_string(),
        (true, n) => format!("{n} logical CPUs, model {UNKNOWN}"),
        (false, 0) => esc(&env.cpu_model),
        (false, n) => format!("{} ({n} logical CPUs)", esc(&env.cpu_model)),
    };
    fact(h, "CPU", &cpu);
    let caches = if env.cpu_caches.is_empty() {
        UNKNOWN.to_string()
    } else {
        let list = env
            .cpu_caches
            .iter()
            .map(|c| {
                let kind = match c.kind.as_str() {
                    "Data" => "d",
                    "Instruction" => "i",
                    _ => "",
                };
                format!("L{}{kind} {}", c.level, human_size(c.size_bytes))
            })
            .collect::<Vec<_>>()
            .join(", ");
        let llc = env
            .last_level_cache_bytes()
            .map(|b| format!(" (last level: {})", human_size(b)))
            .unwrap_or_default();
        esc(&format!("{list}{llc}"))
    };
    fact(h, "CPU caches", &caches);
    fact(
        h,
        "Memory",
        &if env.memory_bytes == 0 {
            UNKNOWN.to_string()
        } else {
            esc(&human_size(env.memory_bytes))
        },
    );
    let t = &env.target;
    fact(h, "Test file", &text_or_unknown(&t.path));
    fact(h, "Mount point", &text_or_unknown(&t.mount_point));
    fact(h, "File system", &text_or_unknown(&t.file_system_words()));
    fact(h, "Mount options", &text_or_unknown(&t.mount_options));
    fact(h, "Mount source", &text_or_unknown(&t.source));
    let dev = t.device.as_ref();
    fact(h, "Device", &opt_or_unknown(dev.map(|d| d.name.as_str())));
    fact(
        h,
        "Model",
        &opt_or_unknown(dev.and_then(|d| d.model.as_deref())),
    );
    fact(
        h,
        "Rotational",
        &opt_or_unknown(
            dev.and_then(|d| d.rotational)
                .map(|r| if r { "yes" } else { "no" }),
        ),
    );
    fact(
        h,
        "I/O scheduler",
        &opt_or_unknown(dev.and_then(|d| d.scheduler.as_deref())),
    );
    h.push_str("</table>\n</section>\n");
}

/// The results table: one row per cell, one column per reported pass.
fn results_table(h: &mut String, result: &RunResult, passes: &[Pass], unit: &str) {
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"numbers results\">\n<caption>One row per file size and record size, in run order; values in {}.</caption>",
        esc(unit)
    );
    h.push_str("<thead><tr><th scope=\"col\">file kB</th><th scope=\"col\">record kB</th>");
    for p in passes {
        let _ = write!(h, "<th scope=\"col\">{}</th>", esc(p.name()));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for row in &result.cells {
        let _ = write!(
            h,
            "<tr><th scope=\"row\">{}</th><th scope=\"row\">{}</th>",
            size_kb(row.cell.file_bytes),
            size_kb(row.cell.record_bytes)
        );
        for &p in passes {
            match row.get(p) {
                Some(m) => {
                    let _ = write!(h, "<td>{}</td>", m.value(result.config.unit));
                }
                None => h.push_str("<td class=\"none\">–</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    if result.cells.is_empty() {
        let _ = writeln!(
            h,
            "<tr><td colspan=\"{}\" class=\"none\">no cell was measured</td></tr>",
            passes.len() + 2
        );
    }
    h.push_str("</tbody></table></div>\n");
}

/// A size in kB as IOzone prints it (bytes when not a whole kB).
fn size_kb(bytes: u64) -> String {
    if bytes.is_multiple_of(KIB) {
        (bytes / KIB).to_string()
    } else {
        format!("{bytes} B")
    }
}

/// A pass's grid like the `-R` report: file sizes down, record sizes across,
/// shaded by value.
fn pass_grid(h: &mut String, result: &RunResult, pass: Pass, unit: &str) {
    let config = &result.config;
    let plan = expand(config);
    let value = |file: u64, rec: u64| {
        result
            .cells
            .iter()
            .find(|c| c.cell.file_bytes == file && c.cell.record_bytes == rec)
            .and_then(|c| c.get(pass))
            .map(|m| m.value(config.unit))
    };
    let max = result
        .cells
        .iter()
        .filter_map(|c| c.get(pass))
        .map(|m| m.value(config.unit))
        .max()
        .unwrap_or(0);
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"numbers grid\">\n<caption>{}: file size (kB) down, record size (kB) across, values in {}. – marks a cell that did not run.</caption>",
        esc(pass.report_title()),
        esc(unit)
    );
    h.push_str("<thead><tr><th scope=\"col\">file \\ record</th>");
    for rec in &plan.record_axis {
        let _ = write!(h, "<th scope=\"col\">{}</th>", size_kb(*rec));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for &file in &plan.file_axis {
        if !result.cells.iter().any(|c| c.cell.file_bytes == file) {
            continue;
        }
        let _ = write!(h, "<tr><th scope=\"row\">{}</th>", size_kb(file));
        for &rec in &plan.record_axis {
            if rec > file {
                h.push_str("<td></td>");
                continue;
            }
            match value(file, rec) {
                Some(v) => {
                    let t = if max > 0 { v as f64 / max as f64 } else { 0.0 };
                    let _ = write!(
                        h,
                        "<td style=\"background:rgba(33,102,172,{:.2})\">{v}</td>",
                        0.04 + 0.32 * t
                    );
                }
                None => h.push_str("<td class=\"none\">–</td>"),
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}

/// Throughput mode: one row per phase.
fn throughput_table(h: &mut String, result: &RunResult, unit: &str) {
    let u = result.config.unit;
    let _ = writeln!(
        h,
        "<div class=\"scroll\"><table class=\"numbers throughput\">\n<caption>One row per phase, in run order; rates in {}.</caption>",
        esc(unit)
    );
    h.push_str("<thead><tr><th scope=\"col\">pass</th><th scope=\"col\">workers</th><th scope=\"col\">file kB</th><th scope=\"col\">record kB</th><th scope=\"col\">children see</th><th scope=\"col\">parent sees</th><th scope=\"col\">min</th><th scope=\"col\">max</th><th scope=\"col\">avg</th></tr></thead>\n<tbody>\n");
    for p in &result.throughput {
        let _ = writeln!(
            h,
            "<tr><th scope=\"row\">{}</th><td>{} {}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td><td>{:.2}</td></tr>",
            esc(p.pass.name()),
            p.workers,
            match (p.threads, p.workers) {
                (true, 1) => "thread",
                (true, _) => "threads",
                (false, 1) => "process",
                (false, _) => "processes",
            },
            size_kb(p.file_bytes),
            size_kb(p.record_bytes),
            p.children_see(u),
            p.parent_sees(u),
            p.min_rate(u),
            p.max_rate(u),
            p.avg_rate(u)
        );
    }
    if result.throughput.is_empty() {
        h.push_str("<tr><td colspan=\"9\" class=\"none\">no phase was measured</td></tr>\n");
    }
    h.push_str("</tbody></table></div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::environment::{CpuCache, DeviceInfo};
    use crate::model::result::{PhaseResult, WorkerResult, sample_result};

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
        assert_eq!(html.matches("<svg").count(), 4);
        assert_eq!(html.matches("</svg>").count(), 4);
        assert!(!html.contains("http://") && !html.contains("https://"));
        assert!(!html.contains("<script"));
        // The results table: a row per cell; the grid: one row per file size.
        assert_eq!(html.matches("<tr><th scope=\"row\">64</th><th").count(), 5);
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
            elapsed_ns: 1_000_000_000,
            start_after_release_ns: 0,
            end_after_release_ns: 1_000_000_000,
            stonewalled: false,
            cpu_user_ns: 0,
            cpu_system_ns: 0,
        };
        r.throughput = vec![PhaseResult {
            pass: Pass::Write,
            workers: 2,
            threads: false,
            file_bytes: 64 << 10,
            record_bytes: 64 << 10,
            parent_elapsed_ns: 2_000_000_000,
            stonewall: false,
            results: vec![worker(0, 64 << 10), worker(1, 128 << 10)],
            run: 0,
        }];
        let html = render_html(&r).unwrap();
        assert!(
            html.contains(
                "<td>2 processes</td><td>64</td><td>64</td><td>192.00</td><td>96.00</td>"
            )
        );
        assert_eq!(html.matches("<svg").count(), 1);
        assert!(!html.contains("numbers grid"));
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
