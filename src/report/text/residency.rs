//! "What the page cache held": after the table (or the throughput blocks),
//! one line per pass kind with the regime its residency shows (the cells
//! out of the commonest regime named), and the checks a user would not make:
//! a read after --drop-caches or -U that did not start cold, an -I pass
//! whose file's cached pages grew, and a rate above the run's ceilings
//! (model/ceilings.rs: memcpy's, a device read's link). Like `-+u`'s block, each line begins with
//! words, so that no script reading IOzone's table takes it for a row.

use std::fmt::Write as _;

use crate::model::config::RunConfig;
use crate::model::regime::{Uncached, uncached};
use crate::model::residency::{MeasuredRegime, Residency, ResidencySource};
use crate::model::result::RunResult;
use crate::model::units::kb_number;
use crate::model::workload::{Direction, Pass};

/// One measured pass: its pass, where it ran (a cell or a phase's workers)
/// and its residency.
struct Seen {
    pass: Pass,
    place: String,
    residency: Residency,
}

/// The block; empty for a run that measured no residency (one saved before
/// ioz did, or with IOZ_RESIDENCY=off).
pub fn residency_block(result: &RunResult) -> String {
    let mut s = held_block(result);
    let impossible = crate::model::impossible::impossible(result);
    if !impossible.is_empty() && s.is_empty() {
        s.push_str("\nRates held against the run's ceilings:\n");
    }
    for i in impossible {
        let _ = writeln!(s, "  ! {}", i.words());
    }
    s
}

/// What the page cache held, without the ceilings' lines.
fn held_block(result: &RunResult) -> String {
    let config = &result.config;
    let repeated = config.runs > 1;
    let run = |r: u32| {
        if repeated {
            format!(" run {}", r + 1)
        } else {
            String::new()
        }
    };
    let mut seen = Vec::new();
    if config.throughput.is_some() {
        for p in &result.throughput {
            if let Some(residency) = p.residency() {
                seen.push(Seen {
                    pass: p.pass,
                    place: format!("{} workers{}", p.workers, run(p.run)),
                    residency,
                });
            }
        }
    } else {
        let rows = result.ranks.first().map_or(&result.cells, |r| &r.cells);
        for row in rows {
            for m in &row.measurements {
                if let Some(residency) = &m.residency {
                    seen.push(Seen {
                        pass: m.pass,
                        place: format!(
                            "{} kB/{} kB{}",
                            kb_number(m.file_bytes),
                            kb_number(m.record_bytes),
                            run(m.run)
                        ),
                        residency: residency.clone(),
                    });
                }
            }
        }
    }
    if seen.is_empty()
        || seen
            .iter()
            .all(|s| s.residency.source == ResidencySource::Unknown)
    {
        return match seen.first() {
            Some(s) if s.residency.why.as_deref() != Some("IOZ_RESIDENCY=off") => format!(
                "\nWhat the page cache held: unknown ({})\n",
                s.residency.why.as_deref().unwrap_or("not measured")
            ),
            _ => String::new(),
        };
    }
    let mut sources: Vec<&str> = seen
        .iter()
        .map(|s| s.residency.source.code())
        .filter(|&c| c != "unknown")
        .collect();
    sources.dedup();
    let mut s = format!(
        "\nWhat the page cache held of each pass's file ({}; reads at the clock's start, \
         writes at its end):\n",
        sources.join(", ")
    );
    let unit = if config.throughput.is_some() {
        "phases"
    } else {
        "cells"
    };
    let mut passes: Vec<Pass> = Vec::new();
    for x in &seen {
        if !passes.contains(&x.pass) {
            passes.push(x.pass);
        }
    }
    for pass in passes {
        let line = pass_line(config, pass, &seen, unit);
        let _ = writeln!(s, "  {:<18}{line}", pass.name());
    }
    for warning in checks(config, &seen) {
        let _ = writeln!(s, "  ! {warning}");
    }
    s
}

/// The regime's name for a line: without the fraction, which differs cell
/// by cell.
fn kind(m: &MeasuredRegime) -> &'static str {
    match m {
        MeasuredRegime::Device { .. } => "device",
        MeasuredRegime::PageCache { .. } => "page cache",
        MeasuredRegime::Mixed { .. } => "mixed",
        MeasuredRegime::Written {
            unwritten_pages: Some(0),
            ..
        } => "nothing left dirty",
        MeasuredRegime::Written {
            unwritten_pages: Some(_),
            ..
        } => "left dirty",
        MeasuredRegime::Written { .. } => "dirty pages not counted",
    }
}

/// The line of one pass kind: its commonest regime over its cells, then
/// each cell out of it.
fn pass_line(config: &RunConfig, pass: Pass, seen: &[Seen], unit: &str) -> String {
    let mine: Vec<(&Seen, Option<MeasuredRegime>)> = seen
        .iter()
        .filter(|x| x.pass == pass)
        .map(|x| (x, x.residency.regime(pass)))
        .collect();
    let n = mine.len();
    let mut kinds: Vec<(&'static str, usize)> = Vec::new();
    for (_, m) in &mine {
        let k = m.as_ref().map_or("unknown", kind);
        match kinds.iter_mut().find(|(name, _)| *name == k) {
            Some((_, c)) => *c += 1,
            None => kinds.push((k, 1)),
        }
    }
    let (common, count) = kinds
        .iter()
        .copied()
        .max_by_key(|&(_, c)| c)
        .unwrap_or(("unknown", 0));
    let mut line = format!("{common} in {count} of {n} {unit}");
    let others: Vec<String> = mine
        .iter()
        .filter(|(_, m)| m.as_ref().map_or("unknown", kind) != common)
        .map(|(x, m)| match m {
            Some(m) => format!("{} {}", x.place, m.words()),
            None => format!("{} unknown", x.place),
        })
        .collect();
    if !others.is_empty() {
        let _ = write!(line, "; out of it: {}", others.join(", "));
    }
    if pass.direction() == Direction::Write {
        let covered = if config.close_in_timing {
            Some("-c")
        } else if config.fsync_in_timing {
            Some("-e")
        } else {
            None
        };
        match covered {
            Some(opt) => {
                let _ = write!(line, " (the clock covered the flush: {opt})");
            }
            None if common == "left dirty" => {
                line.push_str(" (the clock did not cover their flush: -e would)");
            }
            None => {}
        }
    } else if n == 1
        && let Some((_, Some(m))) = mine.first()
    {
        line = m.words();
    }
    line
}

/// The passes that did not do what the run asked of the cache.
fn checks(config: &RunConfig, seen: &[Seen]) -> Vec<String> {
    let mut out = Vec::new();
    for x in seen {
        let (Some(start), Some(end)) = (x.residency.start, x.residency.end) else {
            continue;
        };
        let why = uncached(config, x.pass);
        let reads = x.pass.direction() != Direction::Write;
        if reads
            && matches!(why, Some(Uncached::DropCaches | Uncached::Remount))
            && start.cached_fraction() >= crate::model::residency::DEVICE_BELOW
        {
            out.push(format!(
                "{} {}: did not start cold after {}: {:.0} % of its file cached at the start",
                x.pass.name(),
                x.place,
                why.map_or("", Uncached::option),
                100.0 * start.cached_fraction()
            ));
        }
        if why == Some(Uncached::DirectIo) && end.cached > start.cached {
            out.push(format!(
                "{} {}: the file system did not honour O_DIRECT (-I): its cached pages grew \
                 from {} to {}",
                x.pass.name(),
                x.place,
                start.cached,
                end.cached
            ));
        }
    }
    out
}
