//! `ioz history trend` (seed 003's table over the stored runs) and
//! `ioz history regressions` (each label's latest run against the runs
//! before it, as `ioz compare` compares them).

use std::collections::BTreeMap;
use std::io::{self, IsTerminal};
use std::path::Path;

use super::history_runs::{RunsError, filter, open_to_read, print, refuse, samples_of};
use super::output::say;
use crate::analysis::adjust::Adjust;
use crate::analysis::compare::{Input, Options, Side, compare};
use crate::analysis::samples::SampleSet;
use crate::analysis::trend::{PASSES, TrendOptions, TrendRun, pass_named, trend as make_trend};
use crate::cli::{Selection, TrendRequest};
use crate::error::Exit;
use crate::history::{Entry, History, StampKind, StatusKind};
use crate::model::formats::Format;
use crate::model::visible::visible;
use crate::report::compare::cell_name;
use crate::report::files::write_files;
use crate::report::trend::{render_csv, render_html, render_json, render_text};
use crate::safety::outputs;

/// The runs the selection picks, complete ones unless it asks otherwise,
/// and those stamped invalid under their rules left out (and counted, on
/// stderr as `{command}: …`) unless it asks for them (`--include-invalid`,
/// or `--stamp invalid`).
fn selected(
    dir: &Path,
    selection: &Selection,
    command: &str,
) -> Result<(History, Vec<Entry>), Exit> {
    let mut filter = filter(selection).map_err(|e| refuse(&e.to_string()))?;
    filter.status = filter.status.or(Some(StatusKind::Complete));
    let history = match open_to_read(dir) {
        Ok(Some(h)) => h,
        Ok(None) => return Err(refuse(&format!("history: {} holds no runs", dir.display()))),
        Err(e) => {
            say(&e);
            return Err(Exit::Failure);
        }
    };
    let mut entries = history.list(&filter).map_err(|e| {
        say(&e);
        Exit::Failure
    })?;
    if !selection.include_invalid && filter.stamp.is_none() {
        let before = entries.len();
        entries.retain(|e| e.stamp_kind() != StampKind::Invalid);
        let left_out = before - entries.len();
        if left_out > 0 {
            say(format_args!(
                "{command}: {left_out} run(s) stamped invalid under their --rules left out (--include-invalid keeps them)"
            ));
        }
    }
    if entries.is_empty() {
        return Err(refuse(
            "history: no complete run matches (ioz history list shows them)",
        ));
    }
    Ok((history, entries))
}

pub(crate) fn trend(dir: &Path, request: TrendRequest) -> Exit {
    let mut passes = Vec::new();
    for name in &request.tests {
        match pass_named(name) {
            Some(p) => passes.push(p),
            None => {
                let names: Vec<&str> = PASSES.iter().map(|p| p.name()).collect();
                return refuse(&format!(
                    "history trend: --test '{name}' is not a test; use one of: {}",
                    names.join(", ")
                ));
            }
        }
    }
    let (history, entries) = match selected(dir, &request.selection, "history trend") {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let mut runs = Vec::new();
    for e in &entries {
        match samples_of(&history, e) {
            Ok((samples, environment)) => runs.push(TrendRun {
                id: e.id,
                date: e.date.clone(),
                label: e.label.clone(),
                samples,
                environment,
            }),
            Err(err) => return refuse(&format!("history trend: {err}")),
        }
    }
    let options = TrendOptions {
        cell: request.cell,
        passes,
        ratio_to: request.ratio_to.clone(),
        band_percent: crate::cli::DEFAULT_BAND,
    };
    let t = match make_trend(&runs, &options) {
        Ok(t) => t,
        Err(e) => return refuse(&format!("history trend: {e}")),
    };
    if request.cell.is_none() {
        let empty: Vec<&str> = (0..t.tests.len())
            .filter(|&i| t.rows.iter().all(|r| r.values[i].is_none()))
            .map(|i| t.tests[i])
            .collect();
        if !empty.is_empty() {
            say(format_args!(
                "history trend: warning: the runs share no cell of {}: pick runs of one plan (--label, --since) or one cell (--size, --record)",
                empty.join(", ")
            ));
        }
    }
    let inputs: Vec<std::path::PathBuf> = entries.iter().map(|e| history.path_of(e)).collect();
    let inputs: Vec<&Path> = inputs.iter().map(|p| p.as_path()).collect();
    let places = match outputs::check_for_compare(&request.outputs, &inputs, request.force) {
        Ok(p) => p,
        Err(e) => return refuse(&format!("history trend: {e}")),
    };
    drop(history);
    let mut exit = Exit::Success;
    if request.text {
        let colour = io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        exit = print(&render_text(&t, colour));
    }
    let written = write_files(&places, |format, _| match format {
        Format::Json => render_json(&t),
        Format::Csv => Ok(render_csv(&t)),
        Format::Html => Ok(render_html(&t).into_bytes()),
        // Its grammar offers no other format.
        _ => Err(io::Error::other(
            "ioz history trend does not write this format",
        )),
    });
    if !written {
        exit = Exit::Failure;
    }
    exit
}

pub(crate) fn regressions(dir: &Path, selection: &Selection, fail: bool, band: f64) -> Exit {
    let (history, entries) = match selected(dir, selection, "history regressions") {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    // Runs of one label on one host and target, oldest first.
    let mut groups: BTreeMap<(String, String, String), Vec<&Entry>> = BTreeMap::new();
    // What the runs say of themselves, shown with its control characters
    // visible.
    let shown = |s: &str| visible(s).into_owned();
    for e in &entries {
        let label = e
            .label
            .as_deref()
            .map_or_else(|| "(no label)".into(), shown);
        groups
            .entry((label, shown(&e.host), shown(&e.target)))
            .or_default()
            .push(e);
    }
    let mut out = String::new();
    let mut slower_total = 0;
    for ((label, host, target), runs) in &groups {
        let place = match (host.is_empty(), target.is_empty()) {
            (false, false) => format!(" on {host} ({target})"),
            (false, true) => format!(" on {host}"),
            _ => String::new(),
        };
        let Some((latest, earlier)) = runs.split_last() else {
            continue;
        };
        if earlier.is_empty() {
            out.push_str(&format!(
                "{label}{place}: run {} is its only run: nothing to compare\n",
                latest.id
            ));
            continue;
        }
        // Never called without runs: `earlier` has some, `latest` is one.
        let side = |name: &str, source: String, es: &[&Entry]| -> Result<Side, RunsError> {
            let mut pooled: Option<SampleSet> = None;
            for e in es {
                let (s, _) = samples_of(&history, e)?;
                match &mut pooled {
                    None => pooled = Some(s),
                    Some(set) => set.pool(s),
                }
            }
            Ok(Side {
                input: Input {
                    label: name.to_string(),
                    date: Some(es[es.len() - 1].date.clone()),
                    source,
                    runs: es.len(),
                    tool: None,
                },
                samples: pooled.expect("at least one run"),
                environment: None,
            })
        };
        let ids: Vec<String> = earlier.iter().map(|e| e.id.to_string()).collect();
        let base = side("earlier", format!("runs {}", ids.join(", ")), earlier);
        let last = side("latest", format!("run {}", latest.id), &[latest]);
        let (base, last) = match (base, last) {
            (Ok(b), Ok(l)) => (b, l),
            (Err(e), _) | (_, Err(e)) => return refuse(&format!("history regressions: {e}")),
        };
        let options = Options {
            band_percent: band,
            adjust: Adjust::BenjaminiHochberg,
        };
        let comparison = match compare(&base, &[last], options) {
            Ok(c) => c,
            Err(e) => {
                out.push_str(&format!("{label}{place}: not compared: {e}\n"));
                continue;
            }
        };
        let compared: usize = comparison.pairs.iter().map(|p| p.cells.len()).sum();
        let slow = comparison.slower_than(band);
        slower_total += slow.len();
        out.push_str(&format!(
            "{label}{place}: run {} ({}) against {} earlier run(s): {} of {compared} cell(s) slower\n",
            latest.id,
            shown(&latest.date),
            earlier.len(),
            slow.len()
        ));
        if slow.iter().any(|(_, c)| c.p_adjusted.is_none()) {
            out.push_str(
                "  (one sample of a cell on a side: its verdict rests on the band alone; runs with --runs N are tested)\n",
            );
        }
        for (_, cell) in &slow {
            let why = match cell.p_adjusted {
                Some(p) => format!("adjusted p = {p:.4}"),
                None => "one sample on a side: the band alone".into(),
            };
            out.push_str(&format!(
                "  {}: {:.1} % slower ({why})\n",
                cell_name(&cell.cell),
                cell.slowdown_percent(comparison.higher_is_better)
            ));
        }
    }
    drop(history);
    let printed = print(&out);
    if printed != Exit::Success {
        return printed;
    }
    if fail && slower_total > 0 {
        say(format_args!(
            "history regressions: {slower_total} cell(s) slower than the runs before (--fail)"
        ));
        return Exit::Failure;
    }
    Exit::Success
}
