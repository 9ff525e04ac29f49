//! elbencho's `--csvfile` rows, read as a run. elbencho appends one row
//! per phase (and a header when the file is new), so one file may hold
//! several runs: rows of one command and phase are repetitions, samples of
//! one cell. Columns are found by their header names, not their places
//! (they grow between versions). elbencho writes no quotes: its command's
//! commas are spaces, so a row splits on commas.
//!
//! The rate is elbencho's end result, "last done" (MiB/s of 2^20 bytes,
//! which elbencho writes as a whole number; ×1024 is kB/s); "first done",
//! the rate until the fastest thread finished, is kept. WRITE and READ of
//! files are ioz's write and read (random ones with `random`); MKDIRS,
//! RMDIRS, RMFILES, STAT and a directory run's WRITE and READ (files
//! made, read) are mdtest's operations, in entries per second.

use super::{PeerError, figure};
use crate::model::dates;
use crate::model::metadata::MetaOp;
use crate::model::peer::{Kept, PeerResult, PeerRun, PeerSample, PeerTest, PeerTool};
use crate::model::recorded::{self as rec, Recorded, Settings, yes};
use crate::model::workload::Pass;

const WHAT: &str = "elbencho's --csvfile CSV";

/// One row, with its header's names.
struct Row<'a> {
    line: usize,
    columns: &'a [&'a str],
    fields: Vec<&'a str>,
}

impl Row<'_> {
    fn text(&self, name: &str) -> Option<&str> {
        let i = self.columns.iter().position(|c| *c == name)?;
        self.fields
            .get(i)
            .map(|f| f.trim())
            .filter(|f| !f.is_empty())
    }

    fn number(&self, name: &str) -> Result<Option<f64>, PeerError> {
        self.text(name)
            .map(|t| figure(t, WHAT, self.line, name, "number"))
            .transpose()
    }

    fn whole(&self, name: &str) -> Result<u64, PeerError> {
        Ok(self.number(name)?.unwrap_or(0.0) as u64)
    }
}

/// What a phase is in ioz's terms.
enum Phase {
    Data(Pass),
    Meta(MetaOp),
    Mix(u32),
    Other,
}

fn phase(operation: &str, dir_mode: bool, random: bool) -> Phase {
    match (operation, dir_mode) {
        ("WRITE", false) => Phase::Data(if random {
            Pass::RandomWrite
        } else {
            Pass::Write
        }),
        ("READ", false) => Phase::Data(if random { Pass::RandomRead } else { Pass::Read }),
        ("WRITE", true) => Phase::Meta(MetaOp::FileCreation),
        ("READ", true) => Phase::Meta(MetaOp::FileRead),
        ("MKDIRS", _) => Phase::Meta(MetaOp::DirectoryCreation),
        ("RMDIRS", _) => Phase::Meta(MetaOp::DirectoryRemoval),
        ("RMFILES", _) => Phase::Meta(MetaOp::FileRemoval),
        ("STAT", _) => Phase::Meta(MetaOp::FileStat),
        (op, false) if op.starts_with("RWMIX") => op[5..].parse().map_or(Phase::Other, Phase::Mix),
        _ => Phase::Other,
    }
}

/// elbencho's quoted arguments ("elbencho" "-w" …) as a command line.
fn command_words(quoted: &str) -> String {
    quoted
        .split('"')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn parse(text: &str) -> Result<PeerRun, PeerError> {
    let mut lines = text.lines().enumerate();
    let Some((_, header)) = lines.next() else {
        return Err(PeerError::NoResults {
            what: WHAT,
            why: "it is empty".into(),
        });
    };
    let columns: Vec<&str> = header.split(',').collect();
    for needed in [
        "operation",
        "MiB/s [last]",
        "file size",
        "block size",
        "threads",
    ] {
        if !columns.contains(&needed) {
            return Err(PeerError::Line {
                what: WHAT,
                line: 1,
                why: format!("the header has no \"{needed}\" column"),
            });
        }
    }
    let mut run = PeerRun::empty(PeerTool::Elbencho);
    let mut commands: Vec<String> = Vec::new();
    let mut previous_op: Option<String> = None;
    for (n, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        // A second header: another run appended to a file a newer version began.
        if line.starts_with("ISO date,") {
            continue;
        }
        let mut fields: Vec<&str> = line.split(',').collect();
        if fields.len() < columns.len() {
            return Err(PeerError::Line {
                what: WHAT,
                line: n + 1,
                why: format!(
                    "{} fields where the header names {}",
                    fields.len(),
                    columns.len()
                ),
            });
        }
        fields.truncate(columns.len());
        let row = Row {
            line: n + 1,
            columns: &columns,
            fields,
        };
        let op = row.text("operation").unwrap_or("").to_string();
        let command = row.text("command").map(command_words).unwrap_or_default();
        if !commands.contains(&command) {
            commands.push(command.clone());
        }
        if run.version.is_none() {
            run.version = row.text("version").map(String::from);
        }
        if run.date.is_none() {
            run.date = row.text("ISO date").and_then(|d| dates::from_user(d).ok());
        }
        let dir_mode = row.text("path type") == Some("dir");
        let random = row.whole("random")? == 1;
        let threads = row.whole("threads")?.max(1);
        let hosts = row.whole("hosts")?.max(1);
        let workers = threads * hosts;
        let of = format!("{op} of \"{command}\"");
        let after_drop = previous_op.as_deref() == Some("DROPCACHE");
        previous_op = Some(op.clone());
        let mut read_share = None;
        let (test, sample, printed) = match phase(&op, dir_mode, random) {
            Phase::Data(pass) => {
                let Some(mib) = row.number("MiB/s [last]")? else {
                    continue;
                };
                (
                    PeerTest::Pass(pass),
                    PeerSample {
                        kb_per_sec: Some(mib * 1024.0),
                        ops_per_sec: row.number("IOPS [last]")?,
                    },
                    format!("{mib} MiB/s [last]"),
                )
            }
            Phase::Mix(share) => {
                read_share = Some(share);
                let write = row.number("MiB/s [last]")?.unwrap_or(0.0);
                let read = row.number("rwmix read MiB/s [last]")?.unwrap_or(0.0);
                let iops = row.number("IOPS [last]")?.unwrap_or(0.0)
                    + row.number("rwmix read IOPS [last]")?.unwrap_or(0.0);
                (
                    PeerTest::Pass(Pass::RandomMix),
                    PeerSample {
                        kb_per_sec: Some((write + read) * 1024.0),
                        ops_per_sec: Some(iops),
                    },
                    format!("write {write} + read {read} MiB/s [last]"),
                )
            }
            Phase::Meta(meta) => {
                let Some(entries) = row.number("entries/s [last]")? else {
                    continue;
                };
                if let Some(mib) = row.number("MiB/s [last]")? {
                    run.kept
                        .push(Kept::new(&of, "MiB/s [last]", &mib.to_string()));
                }
                (
                    PeerTest::Metadata(meta),
                    PeerSample {
                        kb_per_sec: None,
                        ops_per_sec: Some(entries),
                    },
                    format!("{entries} entries/s [last]"),
                )
            }
            Phase::Other => {
                run.kept
                    .push(Kept::new(&of, "phase", "no counterpart in ioz"));
                continue;
            }
        };
        for name in [
            "MiB/s [first]",
            "IOPS [first]",
            "entries/s [first]",
            "time ms [first]",
            "time ms [last]",
            "CPU% [last]",
            "IO lat us [avg]",
            "IO lat us [max]",
            "Ent lat us [avg]",
        ] {
            if let Some(v) = row.text(name) {
                run.kept.push(Kept::new(&of, name, v));
            }
        }
        if let Some(label) = row.text("label") {
            run.kept.push(Kept::new(&of, "label", label));
        }
        let mut settings = Settings::new();
        let direct = row.whole("direct IO")? == 1;
        let depth = row.whole("IO depth")?.max(1);
        if let PeerTest::Pass(pass) = test {
            settings.insert(rec::DIRECT.into(), yes(direct));
            settings.insert(rec::DEPTH.into(), depth.to_string());
            settings.insert(
                rec::ENGINE.into(),
                if depth > 1 {
                    "libaio (elbencho's, at depth above 1)".into()
                } else {
                    "psync".into()
                },
            );
            if matches!(pass, Pass::Read | Pass::RandomRead) {
                settings.insert(
                    rec::CACHE_DROPPED.into(),
                    if after_drop {
                        "yes (elbencho's --dropcache)".into()
                    } else {
                        "no".into()
                    },
                );
            }
            settings.insert(rec::ENDS.into(), "every record once".into());
            if let Some(share) = read_share {
                settings.insert(rec::READ_SHARE.into(), format!("{share} %"));
            }
            if workers > 1 {
                settings.insert(
                    rec::SHARED_FILE.into(),
                    yes(!dir_mode && row.whole("paths")? <= 1),
                );
                settings.insert(
                    rec::RATE_OF_WORKERS.into(),
                    "all workers' bytes until the last one finished (elbencho's last done)".into(),
                );
            }
        }
        let result = PeerResult {
            name: op.clone(),
            test,
            workers: (workers > 1).then_some(workers as u32),
            file_bytes: row.whole("file size")?,
            record_bytes: if matches!(test, PeerTest::Pass(_)) {
                row.whole("block size")?
            } else {
                0
            },
            samples: vec![sample],
            printed,
            latency: None,
            recorded: Recorded {
                settings,
                ..Recorded::default()
            },
            series: Vec::new(),
        };
        // Rows of one command and phase: repetitions of one result.
        match run.results.iter_mut().find(|r| {
            r.name == result.name
                && r.test == result.test
                && r.workers == result.workers
                && r.file_bytes == result.file_bytes
                && r.record_bytes == result.record_bytes
                && r.recorded.settings == result.recorded.settings
        }) {
            Some(same) => {
                same.samples.extend(result.samples);
                same.printed = format!("{}, {}", same.printed, result.printed);
            }
            None => run.results.push(result),
        }
    }
    run.command = match commands.as_slice() {
        [] => None,
        [one] => Some(one.clone()),
        many => Some(format!("{} commands: {}", many.len(), many.join("; "))),
    };
    run.kept.push(Kept::new(
        "the run",
        "rates",
        "elbencho writes MiB/s as whole numbers: a rate is as exact as that",
    ));
    Ok(run)
}
