//! A peer's run as text (`ioz report FILE`, `ioz history show ID`): the
//! tool, its version and command, each result as the ioz cell it maps
//! onto with its rates in ioz's units beside the figure the tool printed,
//! its settings, then what has no counterpart in ioz and what of the
//! tool's own writer was read past. What the file says of itself is shown
//! with its control characters visible.

use std::fmt::Write as _;

use crate::model::peer::{PeerRun, PeerTest};
use crate::model::units::kb_number;
use crate::model::visible::visible;

/// The run, as text; `source`: the file it was read from, `format`: what it is.
pub fn render(run: &PeerRun, source: &str, format: &str) -> String {
    let v = |s: &str| visible(s).into_owned();
    let mut out = String::new();
    let _ = writeln!(out, "{}: {} read by ioz", run.tool_words(), format);
    let _ = writeln!(out, "  file:    {}", v(source));
    let unknown = "not in the file".to_string();
    let _ = writeln!(
        out,
        "  command: {}",
        run.command.as_deref().map_or(unknown.clone(), v)
    );
    let _ = writeln!(
        out,
        "  date:    {}",
        run.date.as_deref().map_or(unknown.clone(), v)
    );
    if let Some(host) = &run.host {
        let _ = writeln!(out, "  host:    {}", v(host));
    }
    let _ = writeln!(
        out,
        "\nResults as ioz's cells (kB = 1,024 bytes; n: the samples a comparison has)"
    );
    let rows: Vec<[String; 9]> = run
        .results
        .iter()
        .map(|r| {
            let test = match r.test {
                PeerTest::Pass(p) => p.name().to_string(),
                PeerTest::Metadata(op) => op.name().to_string(),
            };
            let mean = |values: Vec<f64>| {
                if values.is_empty() {
                    "-".to_string()
                } else {
                    format!("{:.2}", values.iter().sum::<f64>() / values.len() as f64)
                }
            };
            let kb = mean(r.samples.iter().filter_map(|s| s.kb_per_sec).collect());
            let ops = mean(r.samples.iter().filter_map(|s| s.ops_per_sec).collect());
            let tail = |p: f64| {
                r.latency
                    .as_ref()
                    .and_then(|l| l.at(p))
                    .map_or("-".to_string(), |ns| format!("{:.2}", ns as f64 / 1000.0))
            };
            [
                v(&r.name),
                test,
                r.workers.map_or("-".into(), |w| w.to_string()),
                kb_number(r.file_bytes),
                kb_number(r.record_bytes),
                r.samples.len().to_string(),
                format!("{kb} / {ops}"),
                format!("{} / {}", tail(50.0), tail(99.0)),
                v(&r.printed),
            ]
        })
        .collect();
    let head = [
        "result",
        "test",
        "workers",
        "file kB",
        "record kB",
        "n",
        "kB/s / ops/s (mean)",
        "p50 / p99 µs",
        "as the tool printed it",
    ]
    .map(String::from);
    table(&mut out, &head, &rows);
    let with_settings: Vec<_> = run
        .results
        .iter()
        .filter(|r| !r.recorded.settings.is_empty())
        .collect();
    if !with_settings.is_empty() {
        let _ = writeln!(out, "\nSettings, in the words ioz compares by");
        for r in with_settings {
            let words: Vec<String> = r
                .recorded
                .settings
                .iter()
                .map(|(k, val)| format!("{k}: {}", v(val)))
                .collect();
            let _ = writeln!(out, "  {}: {}", v(&r.name), words.join("; "));
        }
    }
    let unit = run.unit();
    let outside: Vec<_> = run.outside(unit).collect();
    if !outside.is_empty() {
        let _ = writeln!(
            out,
            "\nNot compared in {} with the rest (their rates are in another unit): {}",
            crate::analysis::samples::unit_name(unit),
            outside
                .iter()
                .map(|r| v(&r.name))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !run.kept.is_empty() {
        let _ = writeln!(out, "\nNo counterpart in ioz (kept as the file gives it)");
        let rows: Vec<[String; 3]> = run
            .kept
            .iter()
            .map(|k| [v(&k.of), v(&k.name), v(&k.value)])
            .collect();
        table(&mut out, &["of", "what", "value"].map(String::from), &rows);
    }
    if !run.defects.is_empty() {
        let _ = writeln!(out, "\nRead past (defects of the tool's own writer)");
        for d in &run.defects {
            let _ = writeln!(out, "  {}", v(d));
        }
    }
    out
}

/// Rows under a header, columns aligned, the last left unpadded.
fn table<const N: usize>(out: &mut String, head: &[String; N], rows: &[[String; N]]) {
    let mut widths = head.clone().map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    for row in std::iter::once(head).chain(rows) {
        let mut line = String::from(" ");
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == N {
                let _ = write!(line, " {cell}");
            } else {
                let _ = write!(line, " {cell:<w$}");
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}
