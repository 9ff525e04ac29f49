//! Which tests run, and the options that shape one test.

use super::Spelling::{Plus, Short};
use super::{Flag, Number, Section};
use crate::model::config::MAX_FILE_BYTES;
use crate::model::workload::TestId;

/// The largest test number `-i` takes.
const LAST_TEST: u64 = TestId::ALL.len() as u64 - 1;

pub(super) const SECTION: Section = Section {
    title: "Tests",
    note: "  0 write/rewrite   1 read/reread        2 random read/write   3 backward read
  4 record rewrite  5 stride read        6 fwrite/frewrite     7 fread/freread
  8 random mix      9 pwrite/repwrite    10 pread/repread
  11 pwritev/repwritev                   12 preadv/repreadv
",
    flags: &[
        Flag::number(
            Short('i'),
            "N",
            Number::count(0, LAST_TEST, "test numbers"),
            "run test N ({range}); repeat for several (default 0-7)",
            |s, n| {
                // The bounds keep n a test number.
                if let Some(test) = TestId::from_number(n)
                    && !s.tests.contains(&test)
                {
                    s.tests.push(test);
                }
            },
        ),
        Flag::switch(Short('E'), "add tests 9 and 10", |s| s.extended = true),
        Flag::number(
            Short('j'),
            "N",
            // No file holds more records: 1 PiB of 1-byte records.
            Number::count(1, MAX_FILE_BYTES, "records per stride"),
            "stride of test 5 in records (default 17)",
            |s, n| s.stride = Some(n),
        ),
        Flag::switch(
            Plus('n'),
            "skip the second pass (rewrite, reread, ...)",
            |s| s.no_retest = true,
        )
        .header(&["No retest option selected"]),
        Flag::number(
            Plus('p'),
            "P",
            Number::percent(),
            "test 8: P percent of the operations read (default 50)",
            |s, n| s.mix_read_percent = Some(n as u32),
        )
        .header_number(|n| vec![format!("Percent read in mix test is {n}")]),
        Flag::switch(
            Plus('B'),
            "test 8: sequential reads and writes instead of random ones",
            |s| s.variations.sequential_mix = true,
        )
        .header(&[">>> Sequential Mixed workload. <<<"]),
        Flag::path(
            Short('X'),
            "FILE",
            "replay a telemetry file in test 0's writes: its lines `offset size \
             [delay_ms]` (bytes, ms; # comments) in order; the file size is the \
             largest offset+size, and reclen shows 0",
            |s, file| s.variations.write_telemetry = Some(file),
        )
        .header_path(|file| format!("Using write telemetry file \"{}\"", file.display())),
        Flag::path(
            Short('Y'),
            "FILE",
            "the same for test 1's reads",
            |s, file| s.variations.read_telemetry = Some(file),
        )
        .header_path(|file| format!("Using read telemetry file \"{}\"", file.display())),
    ],
};
