//! `ioz compare BASE OTHER…`: inputs read, result paths approved, the
//! comparison made, its text printed and its files written; with
//! `--fail-if-slower`, exit 1 naming every cell slower than allowed.

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use super::compare_inputs::{Loaded, load};
use super::output::{SIGPIPE, say};
use crate::analysis::compare::{Options, compare as make_comparison};
use crate::cli::CompareRequest;
use crate::error::Exit;
use crate::model::workload_id;
use crate::report::compare::{cell_name, render_text, write_all};
use crate::safety::outputs;

pub(crate) fn compare(request: CompareRequest) -> Exit {
    let mut loaded: Vec<Loaded> = Vec::new();
    for path in std::iter::once(&request.base).chain(&request.others) {
        match load(path) {
            Ok(l) => loaded.push(l),
            Err(e) => return refuse(&e.to_string()),
        }
    }
    // A peer's file gives its rates in the unit of the first input that is
    // not one (fio's IOPS against an ioz run of -O).
    if let Some(unit) = loaded
        .iter()
        .find(|l| l.peers.is_empty())
        .map(|l| l.side.samples.unit)
    {
        for l in &mut loaded {
            l.in_unit(unit);
        }
    }
    let inputs: Vec<&Path> = loaded
        .iter()
        .flat_map(|l| l.files.iter().map(|f| f.as_path()))
        .collect();
    let places = match outputs::check_for_compare(&request.outputs, &inputs, request.force) {
        Ok(p) => p,
        Err(e) => return refuse(&e.to_string()),
    };
    let options = Options {
        band_percent: request.band_percent,
        adjust: request.adjust,
    };
    not_the_same_workload(&request);
    let mut sides = loaded.into_iter().map(|l| l.side);
    let Some(base) = sides.next() else {
        return refuse("no baseline");
    };
    let others: Vec<_> = sides.collect();
    let comparison = match make_comparison(&base, &others, options) {
        Ok(c) => c,
        Err(e) => return refuse(&e),
    };
    if comparison.pairs.iter().all(|p| p.cells.is_empty()) {
        say(format_args!(
            "compare: warning: {} shares no cell with any input (different sizes or tests): nothing compared",
            comparison.baseline.source
        ));
    }
    if request.text {
        let colour = io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        if io::stdout()
            .write_all(render_text(&comparison, colour).as_bytes())
            .is_err()
        {
            return Exit::Signal(SIGPIPE);
        }
    }
    let written = write_all(&comparison, &places);
    let mut exit = if written {
        Exit::Success
    } else {
        Exit::Failure
    };
    if let Some(limit) = request.fail_if_slower {
        let slow = comparison.slower_than(limit);
        for (input, cell) in &slow {
            let why = match cell.p_adjusted {
                Some(p) => format!("adjusted p = {}", fmt_p(p)),
                None => "one sample: the band alone".into(),
            };
            say(format_args!(
                "compare: {}: {} is {:.1} % slower than {} ({why})",
                input.label,
                cell_name(&cell.cell),
                cell.slowdown_percent(comparison.higher_is_better),
                comparison.baseline.label
            ));
        }
        if !slow.is_empty() {
            say(format_args!(
                "compare: {} cell(s) slower than {} by more than {limit} % (--fail-if-slower)",
                slow.len(),
                comparison.baseline.label
            ));
            exit = Exit::Failure;
        }
    }
    exit
}

fn fmt_p(p: f64) -> String {
    if p != 0.0 && p < 1e-4 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

/// Says which inputs (saved runs) are not the workload of the baseline,
/// naming the settings that differ (model::workload_id).
fn not_the_same_workload(request: &CompareRequest) {
    let config = |path: &Path| {
        (path.is_file() && path.extension().is_some_and(|e| e == "json"))
            .then(|| super::input_files::read_run(path).ok())
            .flatten()
            .map(|r| r.config)
    };
    let Some(base) = config(&request.base) else {
        return;
    };
    for other in &request.others {
        let Some(theirs) = config(other) else {
            continue;
        };
        let differ = workload_id::differences(&base, &theirs);
        if differ.is_empty() {
            continue;
        }
        let named: Vec<String> = differ
            .iter()
            .map(|(name, a, b)| format!("{name}: {a} vs {b}"))
            .collect();
        say(format_args!(
            "compare: warning: {} is not the same workload as {} (workload {} vs {}): {}",
            other.display(),
            request.base.display(),
            workload_id::id(&theirs),
            workload_id::id(&base),
            named.join("; ")
        ));
    }
}

fn refuse(e: &str) -> Exit {
    say(format_args!("compare: {e}"));
    Exit::Usage
}
