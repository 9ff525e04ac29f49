//! `ioz compare`'s text: for each input, a ratio grid per test (file size ×
//! record size) with each cell's verdict, every cell with a p-value in
//! detail, then seed 003's table (rows: the inputs, columns: the tests). Colours
//! (green faster, red slower, grey same: compare/look.rs) only when the
//! caller says the output is a terminal that wants them.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::format::{cell_name, p_value, percent, ratio, size_kb, test_name, unit_of};
use super::look::look;
use crate::analysis::compare::{
    Basis, CellComparison, Comparison, Input, Pair, TailComparison, Verdict,
};
use crate::analysis::samples::Test;
use crate::model::env_facts::Difference;
use crate::model::visible::visible;
use crate::report::environment_text::differences_lines;

/// The text report; `colour`: ANSI colours for a terminal.
pub fn render_text(c: &Comparison, colour: bool) -> String {
    let c = &for_terminal(c);
    let mut out = String::new();
    let paint = Paint(colour);
    let _ = writeln!(
        out,
        "ioz compare: baseline {}{}",
        c.baseline.label,
        described(&c.baseline)
    );
    let _ = writeln!(
        out,
        "Values in {}; ratio = input / baseline (of geometric means); faster or slower when \
         adjusted p < {} ({}) and beyond the band of {} %.",
        unit_of(c),
        c.alpha,
        c.adjust.name(),
        c.band_percent
    );
    for pair in &c.pairs {
        render_pair(&mut out, c, pair, paint);
    }
    render_tests_table(&mut out, c, paint);
    out
}

/// The comparison with what its inputs say of themselves (labels, sources,
/// dates, environments: saved runs' text) shown with its control
/// characters visible: an escape sequence in a label never reaches the
/// terminal.
fn for_terminal(c: &Comparison) -> Comparison {
    fn input(i: &mut Input) {
        i.label = visible(&i.label).into_owned();
        i.source = visible(&i.source).into_owned();
        i.date = i.date.as_deref().map(|d| visible(d).into_owned());
        if let Some(t) = &mut i.tool {
            t.name = visible(&t.name).into_owned();
            t.version = t.version.as_deref().map(|v| visible(v).into_owned());
            t.command = t.command.as_deref().map(|v| visible(v).into_owned());
        }
    }
    fn differences(ds: &mut [Difference]) {
        for d in ds {
            d.name = visible(&d.name).into_owned();
            for side in [&mut d.old, &mut d.new] {
                *side = side.as_deref().map(|v| visible(v).into_owned());
            }
            differences(&mut d.with_it);
        }
    }
    let mut c = c.clone();
    input(&mut c.baseline);
    for pair in &mut c.pairs {
        input(&mut pair.other);
        if let Some(ds) = &mut pair.environment_differences {
            differences(ds);
        }
        for cell in &mut pair.cells {
            for cause in &mut cell.why {
                cause.text = visible(&cause.text).into_owned();
            }
        }
    }
    c
}

/// A difference that counts and its causes, in words.
pub struct Explained {
    /// "random read …: B is 31.0 % slower than A".
    pub headline: String,
    /// Each cause, the likeliest first.
    pub causes: Vec<String>,
}

/// Each cell of a pair whose difference counts (faster or slower), with
/// its causes, the likeliest first.
pub fn why_lines(c: &Comparison, pair: &Pair) -> Vec<Explained> {
    pair.cells
        .iter()
        .filter(|x| x.verdict != Verdict::Same)
        .map(|x| {
            let slower = x.slowdown_percent(c.higher_is_better);
            let headline = format!(
                "{}: {} is {:.1} % {} than {}",
                cell_name(&x.cell),
                pair.other.label,
                slower.abs(),
                if slower > 0.0 { "slower" } else { "faster" },
                c.baseline.label
            );
            let causes = if x.why.is_empty() {
                vec!["nothing the two inputs recorded differs: the tool, the settings and the environment agree as far as both say".to_string()]
            } else {
                x.why.iter().map(|w| w.text.clone()).collect()
            };
            Explained { headline, causes }
        })
        .collect()
}

/// The commands that measured each side, where the inputs give them.
pub fn command_lines(c: &Comparison, pair: &Pair) -> Vec<String> {
    [&c.baseline, &pair.other]
        .iter()
        .filter_map(|i| {
            let t = i.tool.as_ref()?;
            Some(format!(
                "{}: {}{}",
                i.label,
                t.words(),
                t.command
                    .as_deref()
                    .map(|cmd| format!(", {cmd}"))
                    .unwrap_or_default()
            ))
        })
        .collect()
}

fn described(input: &crate::analysis::compare::Input) -> String {
    let mut parts = vec![input.source.clone()];
    if let Some(tool) = &input.tool {
        parts.push(format!("measured by {}", tool.words()));
    }
    if input.runs > 1 {
        parts.push(format!("{} runs pooled", input.runs));
    }
    if let Some(d) = &input.date {
        parts.push(d.clone());
    }
    format!(" ({})", parts.join(", "))
}

#[derive(Clone, Copy)]
struct Paint(bool);

impl Paint {
    fn verdict(self, v: Verdict, text: &str) -> String {
        if !self.0 {
            return text.to_string();
        }
        format!("\x1b[{}m{text}\x1b[0m", look(v).ansi)
    }
}

/// What the mark after a cell's ratio says: the cell's verdict.
fn cell_marks_legend(c: &Comparison) -> String {
    format!(
        "after a ratio, + faster or - slower (adjusted p < {} and beyond ±{} %), no mark the same",
        c.alpha, c.band_percent
    )
}

/// The mark after a ratio: a reader without colours sees the verdict too.
/// A cell's ratio carries its cell's verdict; a test's (the geometric mean
/// of its cells') what its cells' verdicts say together.
fn mark(v: Verdict) -> char {
    look(v).mark
}

/// The cells whose cache regime differs between the two inputs, in one
/// line (the first few named), or `None` when every regime agrees.
pub fn regime_line(pair: &Pair) -> Option<String> {
    const NAMED: usize = 4;
    let differ: Vec<String> = pair
        .cells
        .iter()
        .filter_map(|x| {
            let (old, new) = x.regimes_differ.as_ref()?;
            Some(format!("{}: {old} → {new}", cell_name(&x.cell)))
        })
        .collect();
    if differ.is_empty() {
        return None;
    }
    let more = match differ.len().saturating_sub(NAMED) {
        0 => String::new(),
        n => format!("; and {n} more"),
    };
    Some(format!(
        "warning: {} cell(s) in different cache regimes, whose numbers measure different things: {}{more}",
        differ.len(),
        differ[..differ.len().min(NAMED)].join("; ")
    ))
}

/// The pair's environment differences, a line each (report::environment_text),
/// or why there are none to show.
pub fn environment_lines(c: &Comparison, pair: &Pair) -> Vec<String> {
    match &pair.environment_differences {
        Some(diffs) => differences_lines(diffs),
        None => vec![format!(
            "environments: not compared ({} or {} records none: IOzone's output and other benchmarks' result files do not)",
            c.baseline.label, pair.other.label
        )],
    }
}

fn render_pair(out: &mut String, c: &Comparison, pair: &Pair, paint: Paint) {
    let _ = writeln!(
        out,
        "\n{} against {}{}",
        pair.other.label,
        c.baseline.label,
        described(&pair.other)
    );
    // What measured each, and what else differs between the machines,
    // before any number: a comparison means little when more than the
    // intended setting changed.
    for line in command_lines(c, pair) {
        let _ = writeln!(out, "  {line}");
    }
    for line in environment_lines(c, pair) {
        let _ = writeln!(out, "  {line}");
    }
    let count = |v| pair.cells.iter().filter(|x| x.verdict == v).count();
    let _ = writeln!(
        out,
        "  {} cells compared: {} faster, {} slower, {} the same{}",
        pair.cells.len(),
        count(Verdict::Faster),
        count(Verdict::Slower),
        count(Verdict::Same),
        only_in(c, pair)
    );
    if let Some(line) = regime_line(pair) {
        let _ = writeln!(out, "  {line}");
    }
    let band_only = pair
        .cells
        .iter()
        .filter(|x| x.basis == Basis::BandOnly)
        .count();
    if band_only > 0 {
        let _ = writeln!(
            out,
            "  {band_only} of them with a single sample on a side: no p-value, the verdict uses the band of {} % alone",
            c.band_percent
        );
    }
    if pair.cells.is_empty() {
        let _ = writeln!(out, "  no cell in common: nothing to compare");
        return;
    }
    if pair.cells.iter().any(|x| x.cell.pass.pass().is_some()) {
        let _ = writeln!(
            out,
            "  Ratio grids: rows file size (kB), columns record size (kB); {}",
            cell_marks_legend(c)
        );
    } else {
        let _ = writeln!(out, "  Ratio per operation; {}", cell_marks_legend(c));
    }
    let mut groups: Vec<(Test, Option<u32>)> = pair
        .cells
        .iter()
        .map(|x| (x.cell.pass, x.cell.workers))
        .collect();
    groups.dedup();
    for (pass, workers) in groups {
        let cells: Vec<&CellComparison> = pair
            .cells
            .iter()
            .filter(|x| x.cell.pass == pass && x.cell.workers == workers)
            .collect();
        match pass {
            Test::Pass(_) => render_grid(out, pass, workers, &cells, paint),
            // A metadata benchmark's operation is one cell: a line.
            Test::Metadata { .. } => {
                for x in cells {
                    let text = format!("{:>7}{}", ratio(x.ratio), mark(x.verdict));
                    let _ = writeln!(
                        out,
                        "  {:<28} {}",
                        test_name(pass, workers),
                        paint.verdict(x.verdict, &text)
                    );
                }
            }
        }
    }
    let differing: Vec<&CellComparison> = pair
        .cells
        .iter()
        .filter(|x| x.basis == Basis::Significance)
        .collect();
    if !differing.is_empty() {
        let _ = writeln!(
            out,
            "\n  Every cell: n, mean ± sd of each side, ratio [95 % interval], adjusted p"
        );
        for x in differing {
            let _ = writeln!(out, "  {}", paint.verdict(x.verdict, &detail(x)));
        }
    }
    let why = why_lines(c, pair);
    if !why.is_empty() {
        let _ = writeln!(
            out,
            "\n  Why the numbers differ: for each difference, what the two inputs recorded differently, the likeliest first"
        );
        for Explained { headline, causes } in why {
            let _ = writeln!(out, "  {headline}:");
            for (i, cause) in causes.iter().enumerate() {
                let _ = writeln!(out, "    {}. {cause}", i + 1);
            }
        }
    }
    if !pair.latency.is_empty() {
        let _ = writeln!(
            out,
            "\n  Latency per operation (--latency; µs, lower is faster): each cell's p50 and p99, \
             n runs a side, ratio [95 % interval], adjusted p"
        );
        for t in &pair.latency {
            let _ = writeln!(
                out,
                "  {}",
                paint.verdict(t.comparison.verdict, &tail_detail(t))
            );
        }
    }
}

/// One latency percentile of a cell on one line, in µs with two decimals.
fn tail_detail(t: &TailComparison) -> String {
    let x = &t.comparison;
    let side = |m: &crate::analysis::compare::Moments| match m.sd {
        Some(sd) => format!("n={} {:.2} ± {:.2} µs", m.n, m.mean, sd),
        None => format!("n={} {:.2} µs", m.n, m.mean),
    };
    let ci = match (x.ci_low, x.ci_high) {
        (Some(lo), Some(hi)) => format!(" [{} … {}]", ratio(lo), ratio(hi)),
        _ => String::new(),
    };
    let p = x.p_adjusted.map_or("no p (one sample)".to_string(), |p| {
        format!("p={}", p_value(p))
    });
    format!(
        "{} {}: {} vs {}: ratio {}{ci} ({}), {p}: {}",
        cell_name(&x.cell),
        t.tail.name(),
        side(&x.base),
        side(&x.other),
        ratio(x.ratio),
        percent(x.percent),
        x.verdict.name()
    )
}

fn only_in(c: &Comparison, pair: &Pair) -> String {
    let mut parts = Vec::new();
    if pair.only_in_base > 0 {
        parts.push(format!(
            "{} only in {}",
            pair.only_in_base, c.baseline.label
        ));
    }
    if pair.only_in_other > 0 {
        parts.push(format!(
            "{} only in {}",
            pair.only_in_other, pair.other.label
        ));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({}, not compared)", parts.join(", "))
    }
}

fn render_grid(
    out: &mut String,
    pass: Test,
    workers: Option<u32>,
    cells: &[&CellComparison],
    paint: Paint,
) {
    let files: BTreeSet<u64> = cells.iter().map(|x| x.cell.file_bytes).collect();
    let records: BTreeSet<u64> = cells.iter().map(|x| x.cell.record_bytes).collect();
    let _ = writeln!(out, "\n  {}", test_name(pass, workers));
    let mut head = format!("  {:>10}", "kB");
    for r in &records {
        let _ = write!(head, " {:>8}", size_kb(*r));
    }
    let _ = writeln!(out, "{}", head.trim_end());
    for f in &files {
        let mut row = format!("  {:>10}", size_kb(*f));
        for r in &records {
            match cells
                .iter()
                .find(|x| x.cell.file_bytes == *f && x.cell.record_bytes == *r)
            {
                Some(x) => {
                    let text = format!("{:>7}{}", ratio(x.ratio), mark(x.verdict));
                    let _ = write!(row, " {}", paint.verdict(x.verdict, &text));
                }
                None => row.push_str("         "),
            }
        }
        let _ = writeln!(out, "{}", row.trim_end());
    }
}

/// One cell on one line: where, both sides, ratio, interval, p, verdict.
fn detail(x: &CellComparison) -> String {
    let side = |m: &crate::analysis::compare::Moments| match m.sd {
        Some(sd) => format!("n={} {:.0} ± {:.0}", m.n, m.mean, sd),
        None => format!("n={} {:.0}", m.n, m.mean),
    };
    let ci = match (x.ci_low, x.ci_high) {
        (Some(lo), Some(hi)) => format!(" [{} … {}]", ratio(lo), ratio(hi)),
        _ => String::new(),
    };
    let p = match (x.p_adjusted, x.basis) {
        (Some(p), _) => format!("p={}", p_value(p)),
        (None, _) => "no p (one sample)".to_string(),
    };
    let mw = x
        .mann_whitney_p
        .map(|p| format!(", Mann-Whitney p={}", p_value(p)))
        .unwrap_or_default();
    format!(
        "{}: {} vs {}: ratio {}{ci} ({}), {p}{mw}: {}",
        cell_name(&x.cell),
        side(&x.base),
        side(&x.other),
        ratio(x.ratio),
        percent(x.percent),
        x.verdict.name()
    )
}

/// Seed 003's table: a row per input (the mean over the cells compared of
/// each test), then a ratio row per input against the baseline, coloured
/// by the test's cells' verdicts.
fn render_tests_table(out: &mut String, c: &Comparison, paint: Paint) {
    let Some(first) = c.pairs.first() else {
        return;
    };
    let passes: Vec<Test> = {
        let mut seen = Vec::new();
        for pair in &c.pairs {
            for s in pair.by_pass() {
                if !seen.contains(&s.pass) {
                    seen.push(s.pass);
                }
            }
        }
        seen.sort();
        seen
    };
    if passes.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nPer test: the mean over the cells compared ({}), then each input's ratio to {} \
         (the geometric mean of its cells' ratios), marked by its cells' verdicts: + some \
         faster and none slower, - some slower and none faster, ± both, no mark every cell \
         the same (the grids above give each cell's)",
        unit_of(c),
        c.baseline.label,
    );
    let label_width = c
        .pairs
        .iter()
        .map(|p| p.other.label.chars().count() + c.baseline.label.chars().count() + 3)
        .chain(std::iter::once(c.baseline.label.chars().count()))
        .max()
        .unwrap_or(8)
        .max(8);
    let col = |p: &Test| p.name().len().max(11);
    let mut head = format!("{:label_width$}", "");
    for p in &passes {
        let _ = write!(head, " {:>w$}", p.name(), w = col(p));
    }
    let _ = writeln!(out, "{}", head.trim_end());
    let row_of = |label: &str, values: &dyn Fn(Test) -> Option<String>| {
        let mut row = format!("{label:label_width$}");
        for p in &passes {
            let v = values(*p).unwrap_or_default();
            let _ = write!(row, " {v:>w$}", w = col(p));
        }
        row.trim_end().to_string()
    };
    let base = first.by_pass();
    let _ = writeln!(
        out,
        "{}",
        row_of(&c.baseline.label, &|p| base
            .iter()
            .find(|s| s.pass == p)
            .map(|s| format!("{:.0}", s.base_mean)))
    );
    for pair in &c.pairs {
        let s = pair.by_pass();
        let _ = writeln!(
            out,
            "{}",
            row_of(&pair.other.label, &|p| s
                .iter()
                .find(|x| x.pass == p)
                .map(|x| format!("{:.0}", x.other_mean)))
        );
    }
    for pair in &c.pairs {
        let s = pair.by_pass();
        let label = format!("{} / {}", pair.other.label, c.baseline.label);
        let mut row = format!("{label:label_width$}");
        for p in &passes {
            let w = col(p);
            match s.iter().find(|x| x.pass == *p) {
                Some(x) => {
                    let text = format!("{:>w$}", format!("{}{}", ratio(x.ratio), mark(x.verdict)));
                    let _ = write!(row, " {}", paint.verdict(x.verdict, &text));
                }
                None => {
                    let _ = write!(row, " {:w$}", "");
                }
            }
        }
        let _ = writeln!(out, "{}", row.trim_end());
    }
}
