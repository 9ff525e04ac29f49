//! IOzone's own text output read back as samples, so years of IOzone logs
//! can be compared with ioz runs: the results table of single and auto
//! mode (`iozone -a …`, `-A`, `-E`, `-O`/`-N`, with or without `-R`) and
//! the "Children see" line of each throughput phase. The `-R` blocks repeat
//! the table and are not read.
//!
//! The table is read by column position, not by splitting on spaces:
//! IOzone prints a wide value with no space before it (its numbers fuse,
//! `1290201715972885`), and leaves a blank of its own width for each test
//! not run, which shifts the later columns (../shared/IOZONE-SEMANTICS.md
//! §5.2). Which tests ran comes from the `-i` options of `Command line used`.

use crate::analysis::samples::{CellKey, SampleSet, Test};
use crate::model::config::OutputUnit;
use crate::model::workload::Pass;

/// What an IOzone log holds.
#[derive(Debug, PartialEq)]
pub struct IozoneLog {
    /// `Run began:`'s text.
    pub began: Option<String>,
    pub samples: SampleSet,
}

/// Whether `text` looks like IOzone's output at all.
pub fn looks_like_iozone(text: &str) -> bool {
    text.contains("Iozone: Performance Test of File I/O")
        || text.contains("KB  reclen")
        || text.contains("Children see throughput for")
}

/// Text that looks like IOzone's output but holds none of its results.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("it holds no IOzone results (no table, no throughput lines)")]
pub struct NoResults;

/// The log's samples; an error names what is missing.
pub fn parse(text: &str) -> Result<IozoneLog, NoResults> {
    let mut samples = SampleSet::new(unit(text));
    let began = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Run began:"))
        .map(|s| s.trim().to_string());
    let selected = selected_tests(text);
    read_table(text, selected.as_deref(), &mut samples);
    read_throughput(text, &mut samples);
    if samples.is_empty() {
        return Err(NoResults);
    }
    Ok(IozoneLog { began, samples })
}

fn unit(text: &str) -> OutputUnit {
    if text.contains("OPS Mode") {
        OutputUnit::OpsPerSec
    } else if text.contains("Microseconds/op Mode") {
        OutputUnit::MicrosPerOp
    } else {
        OutputUnit::KbPerSec
    }
}

/// The `-i` numbers of `Command line used`; `None` when it names none
/// (every test ran).
fn selected_tests(text: &str) -> Option<Vec<u32>> {
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Command line used:"))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut tests = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let value = if let Some(rest) = w.strip_prefix("-i") {
            if rest.is_empty() {
                words.get(i + 1).copied()
            } else {
                Some(rest)
            }
        } else if w.starts_with('-')
            && !w.starts_with("-+")
            && w.len() > 2
            && w[1..].chars().all(|c| c.is_ascii_alphabetic())
            && w.ends_with('i')
        {
            // A group of flags ending with -i (`-Rzi 0`).
            words.get(i + 1).copied()
        } else {
            None
        };
        if let Some(n) = value.and_then(|v| v.parse().ok()) {
            tests.push(n);
        }
    }
    (!tests.is_empty()).then_some(tests)
}

/// A test's columns in the table: its number, each pass with its printed
/// width, and the width of the blank IOzone leaves when the test did not run.
type TestColumns = (u32, &'static [(Pass, usize)], usize);

/// Every test's columns, in the table's order (§5.2).
const COLUMNS: [TestColumns; 11] = [
    (0, &[(Pass::Write, 8), (Pass::Rewrite, 8)], 16),
    (1, &[(Pass::Read, 9), (Pass::Reread, 9)], 18),
    (2, &[(Pass::RandomRead, 8), (Pass::RandomWrite, 8)], 16),
    (3, &[(Pass::BackwardRead, 8)], 8),
    (4, &[(Pass::RecordRewrite, 9)], 8),
    (5, &[(Pass::StrideRead, 9)], 8),
    (6, &[(Pass::Fwrite, 9), (Pass::Frewrite, 9)], 18),
    (7, &[(Pass::Fread, 8), (Pass::Freread, 9)], 16),
    (8, &[], 0),
    (9, &[(Pass::Pwrite, 8), (Pass::Repwrite, 9)], 17),
    (10, &[(Pass::Pread, 8), (Pass::Repread, 9)], 19),
];

/// The results table: from its `KB  reclen` header to the first line that
/// is not a row of numbers.
fn read_table(text: &str, selected: Option<&[u32]>, samples: &mut SampleSet) {
    let mut lines = text.lines();
    let Some(header) = lines.find(|l| l.contains("KB  reclen")) else {
        return;
    };
    // -A prints write … reread only; -E adds the four p-columns.
    let only_first_two = header.split_whitespace().last() == Some("reread");
    let with_e = header.contains("pwrite");
    let ran = |test: u32| {
        if only_first_two {
            test <= 1
        } else if test >= 9 && !with_e {
            false
        } else {
            selected.is_none_or(|s| s.contains(&test))
        }
    };
    for line in lines {
        let bytes = line.as_bytes();
        let field = |from: usize, width: usize| -> Option<u64> {
            let end = (from + width).min(bytes.len());
            let s = std::str::from_utf8(bytes.get(from..end)?).ok()?.trim();
            s.parse().ok()
        };
        let (Some(kb), Some(reclen)) = (field(0, 16), field(16, 8)) else {
            break;
        };
        let mut at = 24;
        for (test, passes, blank) in COLUMNS {
            if !ran(test) {
                at += blank;
                continue;
            }
            for &(pass, width) in passes {
                if let Some(value) = field(at, width) {
                    let key = CellKey {
                        pass: Test::Pass(pass),
                        workers: None,
                        file_bytes: kb << 10,
                        record_bytes: reclen << 10,
                    };
                    samples.add(key, value as f64);
                }
                at += width;
            }
        }
    }
}

/// Each throughput phase's "Children see" figure, with the file and record
/// size of the `Each process writes …` line before it.
fn read_throughput(text: &str, samples: &mut SampleSet) {
    let mut shape = None;
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line
            .strip_prefix("Each process writes a ")
            .or_else(|| line.strip_prefix("Each thread writes a "))
        {
            shape = file_and_record(rest);
            continue;
        }
        let Some(rest) = line.strip_prefix("Children see throughput for") else {
            continue;
        };
        let Some((label, value)) = rest.split_once('=') else {
            continue;
        };
        let mut words = label.split_whitespace();
        let workers: Option<u32> = words.next().and_then(|w| w.parse().ok());
        let name: Vec<&str> = words.collect();
        let value: Option<f64> = value.split_whitespace().next().and_then(|v| v.parse().ok());
        let (Some(workers), Some(pass), Some(value), Some((file, record))) =
            (workers, phase_pass(&name.join(" ")), value, shape)
        else {
            continue;
        };
        let key = CellKey {
            pass: Test::Pass(pass),
            workers: Some(workers),
            file_bytes: file,
            record_bytes: record,
        };
        samples.add(key, value);
    }
}

/// "1024 Kbyte file in 64 Kbyte records" → bytes.
fn file_and_record(rest: &str) -> Option<(u64, u64)> {
    let w: Vec<&str> = rest.split_whitespace().collect();
    let size = |n: &str, unit: &str| -> Option<u64> {
        let n: u64 = n.parse().ok()?;
        match unit {
            "Kbyte" => Some(n << 10),
            "byte" => Some(n),
            _ => None,
        }
    };
    match w.as_slice() {
        [f, fu, "file", "in", r, ru, "records"] => Some((size(f, fu)?, size(r, ru)?)),
        _ => None,
    }
}

/// A throughput phase's label → its pass.
fn phase_pass(name: &str) -> Option<Pass> {
    use Pass::*;
    Some(match name {
        "initial writers" => Write,
        "rewriters" => Rewrite,
        "readers" => Read,
        "re-readers" => Reread,
        "reverse readers" => BackwardRead,
        "stride readers" => StrideRead,
        "random readers" => RandomRead,
        "mixed workload" => RandomMix,
        "random writers" => RandomWrite,
        "pwrite writers" => Pwrite,
        "pread readers" => Pread,
        "fwriters" => Fwrite,
        "freaders" => Fread,
        "pwritev writers" => Pwritev,
        "preadv readers" => Preadv,
        _ => return None,
    })
}

#[cfg(test)]
mod tests;
