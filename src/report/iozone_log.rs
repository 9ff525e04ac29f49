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

/// Why text that looks like IOzone's output gives no samples.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    #[error("it holds no IOzone results (no table, no throughput lines)")]
    NoResults,
    /// A value where IOzone writes a rate (or a size), which is none: NaN,
    /// inf, a negative number, one beyond what a rate can be, or garbage.
    /// Refused rather than dropped: a dropped cell would make the log
    /// compare as if it had never been measured ("shares no cell").
    #[error(
        "line {line}: {value:?} is not a usable {what} (IOzone writes whole or decimal numbers, 0 or more)"
    )]
    Unusable {
        line: usize,
        value: String,
        what: &'static str,
    },
}

/// The largest rate (or size) a log may give: beyond it a number is a
/// corruption, not a measurement (2^53, where an f64 stops being exact).
const MAX_VALUE: f64 = 9_007_199_254_740_992.0;

/// The log's samples; an error names what is missing, or the line that
/// holds a value that is no rate.
pub fn parse(text: &str) -> Result<IozoneLog, LogError> {
    let mut samples = SampleSet::new(unit(text));
    let began = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Run began:"))
        .map(|s| s.trim().to_string());
    let selected = selected_tests(text);
    read_table(text, selected.as_deref(), &mut samples)?;
    read_throughput(text, &mut samples)?;
    if samples.is_empty() {
        return Err(LogError::NoResults);
    }
    Ok(IozoneLog { began, samples })
}

/// `text` (trimmed, not empty) as a rate or size: a finite number, 0 or
/// more, at most [`MAX_VALUE`]; else the refusal naming `line` (0-based).
fn usable(text: &str, line: usize, what: &'static str) -> Result<f64, LogError> {
    match text.parse::<f64>() {
        // Digits and one point only: no "inf", "NaN", "1e5", "+3".
        Ok(v)
            if text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && (0.0..=MAX_VALUE).contains(&v) =>
        {
            Ok(v)
        }
        _ => Err(LogError::Unusable {
            line: line + 1,
            value: text.to_string(),
            what,
        }),
    }
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
/// is not a row of numbers. A blank where a test that ran has a column is
/// a cell not measured; anything else there must be a rate.
fn read_table(
    text: &str,
    selected: Option<&[u32]>,
    samples: &mut SampleSet,
) -> Result<(), LogError> {
    let mut lines = text.lines().enumerate();
    let Some((_, header)) = lines.find(|(_, l)| l.contains("KB  reclen")) else {
        return Ok(());
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
    for (n, line) in lines {
        let bytes = line.as_bytes();
        let field = |from: usize, width: usize| -> Option<&str> {
            let end = (from + width).min(bytes.len());
            Some(std::str::from_utf8(bytes.get(from..end)?).ok()?.trim())
        };
        let whole = |s: Option<&str>| s.and_then(|s| s.parse::<u64>().ok());
        let (Some(kb), Some(reclen)) = (whole(field(0, 16)), whole(field(16, 8))) else {
            break;
        };
        let (Some(file_bytes), Some(record_bytes)) =
            (kb.checked_mul(1024), reclen.checked_mul(1024))
        else {
            return Err(LogError::Unusable {
                line: n + 1,
                value: format!("{kb} {reclen}"),
                what: "file and record size (kB)",
            });
        };
        let mut at = 24;
        for (test, passes, blank) in COLUMNS {
            if !ran(test) {
                at += blank;
                continue;
            }
            for &(pass, width) in passes {
                match field(at, width) {
                    None | Some("") => {}
                    Some(text) => {
                        let value = usable(text, n, "rate")?;
                        let key = CellKey {
                            pass: Test::Pass(pass),
                            workers: None,
                            file_bytes,
                            record_bytes,
                        };
                        samples.add(key, value);
                    }
                }
                at += width;
            }
        }
    }
    Ok(())
}

/// Each throughput phase's "Children see" figure, with the file and record
/// size of the `Each process writes …` line before it.
fn read_throughput(text: &str, samples: &mut SampleSet) -> Result<(), LogError> {
    let mut shape = None;
    for (n, line) in text.lines().enumerate() {
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
        let (Some(workers), Some(pass), Some((file, record))) =
            (workers, phase_pass(&name.join(" ")), shape)
        else {
            continue;
        };
        let Some(value) = value.split_whitespace().next() else {
            continue;
        };
        let key = CellKey {
            pass: Test::Pass(pass),
            workers: Some(workers),
            file_bytes: file,
            record_bytes: record,
        };
        samples.add(key, usable(value, n, "rate")?);
    }
    Ok(())
}

/// "1024 Kbyte file in 64 Kbyte records" → bytes.
fn file_and_record(rest: &str) -> Option<(u64, u64)> {
    let w: Vec<&str> = rest.split_whitespace().collect();
    let size = |n: &str, unit: &str| -> Option<u64> {
        let n: u64 = n.parse().ok()?;
        match unit {
            "Kbyte" => n.checked_mul(1024),
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
