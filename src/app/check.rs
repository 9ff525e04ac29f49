//! `ioz check RUN.json [--rules R]`: a saved run's stamps recomputed from
//! its samples and environment by analysis::rules (the code the run wrote
//! them with), compared with the saved ones, and the file's digest checked.

use super::input_files::read_saved_run;
use super::output::{print_text, say};
use crate::analysis::rules;
use crate::cli::CheckCommand;
use crate::error::Exit;
use crate::model::rules::{CellStamp, Rules, RunStamp, Seal, Stamp, check_seal};
use crate::model::units::Size;
use crate::report::json::parse_run;
use crate::report::text::stamp::render;

pub(crate) fn check(command: CheckCommand) -> Exit {
    let shown = command.run.display().to_string();
    let parsed = read_saved_run(&command.run)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            parse_run(&bytes, &shown)
                .map(|run| (text, run))
                .map_err(|e| e.to_string())
        });
    let (text, mut result) = match parsed {
        Ok(p) => p,
        Err(e) => {
            say(format_args!("check: {e}"));
            return Exit::Usage;
        }
    };
    let saved = result.stamp.take();
    let claimed = saved.as_ref().map_or(result.config.rules, |s| s.rules);
    let rules = command.rules.unwrap_or(claimed);
    if rules == Rules::None {
        say(format_args!(
            "check: {shown} claims no rules: give ioz check --rules iozone|io500|pts"
        ));
        return Exit::Usage;
    }
    let Some(now) = rules::stamp(&result, rules) else {
        return Exit::Usage;
    };
    let mut out = String::new();
    let mut differ = 0;
    match saved.as_ref().filter(|s| s.rules == rules) {
        Some(saved) => {
            out.push_str(&format!(
                "{shown}: the {} stamps recomputed from the saved samples and environment\n",
                rules.name()
            ));
            differ += compare(saved, &now, &mut out);
        }
        None => {
            out.push_str(&format!(
                "{shown}: judged under {} (the run claimed {}: nothing to compare)",
                rules.name(),
                claimed.name()
            ));
            out.push_str(&render(&now));
        }
    }
    match check_seal(&text) {
        Seal::Intact => out.push_str("digest: the file is as ioz wrote it\n"),
        Seal::Edited { saved, now } => {
            differ += 1;
            out.push_str(&format!(
                "digest: EDITED: the file was changed after ioz wrote it (digest {saved}, its text now {now})\n"
            ));
        }
        Seal::Absent if saved.is_some() => {
            differ += 1;
            out.push_str("digest: MISSING: a stamped run holds a digest, this one none\n");
        }
        Seal::Absent => out.push_str("digest: none (the run was saved without --rules)\n"),
    }
    match print_text(&out, "the check") {
        Exit::Success if differ > 0 => Exit::Failure,
        exit => exit,
    }
}

/// Each saved stamp beside the recomputed one, a line each; the count of
/// those that differ.
fn compare(saved: &RunStamp, now: &RunStamp, out: &mut String) -> usize {
    let mut differ = 0;
    let mut line = |what: String, a: &Stamp, b: &Stamp, same: bool| {
        if same {
            out.push_str(&format!("  agrees   {what}: {}\n", words(a)));
        } else {
            differ += 1;
            out.push_str(&format!(
                "  DIFFERS  {what}: saved {}, recomputed {}\n",
                words(a),
                words(b)
            ));
        }
    };
    line("the run".into(), &saved.run, &now.run, saved.run == now.run);
    let cells = saved.cells.len().max(now.cells.len());
    for i in 0..cells {
        match (saved.cells.get(i), now.cells.get(i)) {
            (Some(a), Some(b)) => line(cell_name(a), &a.stamp, &b.stamp, same_cell(a, b)),
            (Some(a), None) => line(
                cell_name(a),
                &a.stamp,
                &Stamp::NotCheckable {
                    why: vec!["no such cell in the saved samples".into()],
                },
                false,
            ),
            (None, Some(b)) => line(
                cell_name(b),
                &Stamp::NotCheckable {
                    why: vec!["no saved stamp".into()],
                },
                &b.stamp,
                false,
            ),
            (None, None) => {}
        }
    }
    out.push_str(&format!(
        "{} of {} stamps agree\n",
        cells + 1 - differ,
        cells + 1
    ));
    differ
}

fn words(stamp: &Stamp) -> String {
    match stamp.lines() {
        [] => stamp.word().to_string(),
        lines => format!("{} ({})", stamp.word(), lines.join("; ")),
    }
}

fn cell_name(c: &CellStamp) -> String {
    format!(
        "{} {}, {} records{}",
        c.pass.name(),
        Size(c.file_bytes),
        Size(c.record_bytes),
        if c.workers > 1 {
            format!(", {} workers", c.workers)
        } else {
            String::new()
        }
    )
}

/// The same cell, stamp and steady window (its figures within a part in a
/// billion: they went through the JSON text).
fn same_cell(a: &CellStamp, b: &CellStamp) -> bool {
    let near = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0);
    let steady = match (&a.steady, &b.steady) {
        (None, None) => true,
        (Some(x), Some(y)) => {
            x.first == y.first
                && x.last == y.last
                && near(x.mean, y.mean)
                && near(x.range, y.range)
                && near(x.excursion, y.excursion)
        }
        _ => false,
    };
    (a.pass, a.file_bytes, a.record_bytes, a.workers)
        == (b.pass, b.file_bytes, b.record_bytes, b.workers)
        && a.stamp == b.stamp
        && steady
}
