//! `-+z` and `-+T`: the text of IOzone's `Iozone_histogram_child_<n>.txt`
//! blocks and `Child_<n>.log` lines (IOZONE-SEMANTICS §5.8), appended by
//! [`super::latency_files::LatencyFiles`] after each pass or phase.
//!
//! Where ioz differs from IOzone: each bucket ends where its label says
//! (IOzone's Band 8 ends at 20, 30, 60, 90 and 120 s under the labels 20s,
//! 40s, 60s, 80s and 120s); the counts are one worker's for one phase (IOzone
//! never resets them, and its threads share one array); single and auto mode
//! write child 0's file too; the record rewrite and random mix passes, which
//! IOzone does not log, get blocks named `Record Rewrite` and `Random Mix`.

use std::fmt::Write;

use crate::model::latency::{IOZONE_BANDS, IozoneBands};
use crate::model::workload::Pass;

/// The name of `pass` in a `-+z` block (`Op: <name>`).
pub fn histogram_op_name(pass: Pass) -> &'static str {
    use Pass::*;
    match pass {
        Write => "write",
        Rewrite => "Rewrite",
        Read => "Read",
        Reread => "Reread",
        RandomRead => "Random Read",
        RandomWrite => "Random Write",
        BackwardRead => "Read Backwards",
        StrideRead => "Stride Read",
        Pwrite | Repwrite | Pwritev | Repwritev => "Pwrite",
        Pread | Repread | Preadv | Repreadv => "Pread",
        Fwrite | Frewrite => "Fwrite",
        Fread | Freread => "Fread",
        RecordRewrite => "Record Rewrite",
        RandomMix => "Random Mix",
    }
}

/// One `-+z` block: `Child: <n> Op: <name>`, nine `Band k:` lines, an empty line.
pub fn histogram_block(worker: u32, pass: Pass, bands: &IozoneBands) -> String {
    let mut out = format!("Child: {worker} Op: {}\n", histogram_op_name(pass));
    let mut counts = bands.counts.iter();
    for (k, labels) in IOZONE_BANDS.iter().enumerate() {
        let _ = write!(out, "{:<10}", format!("Band {}:", k + 1));
        for label in labels.iter() {
            let count = counts.next().copied().unwrap_or(0);
            let _ = write!(out, "{label:>5}:{count:<7} ");
        }
        out.push('\n');
    }
    out.push('\n');
    out
}

/// `-+T`: the start and finish labels IOzone logs for `pass` (random,
/// backward, record rewrite and mix phases log nothing).
pub fn log_labels(pass: Pass) -> Option<(&'static str, &'static str)> {
    use Pass::*;
    Some(match pass {
        Write => ("Write test start: ", "Write test finished: "),
        Rewrite => ("Rewrite test start: ", "Rewrite test finished: "),
        Read => ("Read test start: ", "Read test finished: "),
        Reread => ("Reread test start: ", "Reread test finished: "),
        Pwrite => ("Pwrite test start: ", "Pwrite test finished: "),
        Pread => ("Pread test start: ", "Pread test finished: "),
        StrideRead => ("Stride test start: ", "Stride test finished: "),
        Fwrite => ("fwrite test start: ", "Fwrite test finished: "),
        Fread => ("fread test start: ", "Fread test finished: "),
        _ => return None,
    })
}

/// `-+T`: a phase's two lines, each label padded to 25 columns and followed
/// by a ctime(3) date (`started`, `finished`, without their newline).
pub fn log_lines(pass: Pass, started: &str, finished: &str) -> Option<String> {
    let (start, finish) = log_labels(pass)?;
    Some(format!("{start:<25}{started}\n{finish:<25}{finished}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_is_in_iozones_layout() {
        let mut bands = IozoneBands::default();
        bands.counts[0] = 3;
        bands.counts[9] = 1234567;
        bands.counts[39] = 2;
        let block = histogram_block(1, Pass::Write, &bands);
        let lines: Vec<&str> = block.split('\n').collect();
        assert_eq!(lines[0], "Child: 1 Op: write");
        assert_eq!(
            lines[1],
            "Band 1:    20us:3        40us:0        60us:0        80us:0       100us:0       "
        );
        assert!(
            lines[2].starts_with("Band 2:   200us:0      "),
            "{}",
            lines[2]
        );
        assert!(lines[2].ends_with("  1ms:1234567 "), "{}", lines[2]);
        assert_eq!(lines[9], "Band 9:   120+s:2       ");
        assert_eq!(&lines[10..], ["", ""], "an empty line ends the block");
    }

    #[test]
    fn log_lines_pad_the_label() {
        assert_eq!(
            log_lines(
                Pass::Fwrite,
                "Tue Nov 24 11:13:49 2026",
                "Tue Nov 24 11:13:50 2026"
            )
            .unwrap(),
            "fwrite test start:       Tue Nov 24 11:13:49 2026\n\
             Fwrite test finished:    Tue Nov 24 11:13:50 2026\n"
        );
        assert_eq!(log_lines(Pass::RandomRead, "a", "b"), None);
    }
}
