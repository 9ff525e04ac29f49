//! Single runs and auto mode: which file and record sizes a run covers.

use super::Spelling::{Plus, Short};
use super::{Flag, Number, Scope, Section};
use crate::model::units::kb_number;

/// Kilobytes, as IOzone's header lines show sizes (a record size that is not
/// a whole kB, `-r 8b`, as its exact fraction: `0.0078125`).
fn kb(bytes: u64) -> String {
    kb_number(bytes)
}

pub(super) const SECTION: Section = Section {
    title: "Modes",
    note: "",
    // The auto-mode-only flags keep this order (-n -g -y -q -z -+x): when
    // several are given without auto mode, the error names the first.
    flags: &[
        Flag::switch(
            Short('a'),
            "auto mode: file sizes 64k..512m, record sizes 4k..16m, tests 0-7",
            |s| s.auto = true,
        )
        .header(&["Auto Mode"]),
        Flag::switch(
            Short('A'),
            "auto mode with tests 0 and 1 only and no crossover",
            |s| s.obsolete_auto = true,
        )
        .header(&["Auto Mode 2: tests 0 and 1 only, no crossover."]),
        Flag::number(
            Short('s'),
            "SIZE",
            Number::Size,
            "file size (default 512k); repeat for a list of sizes (auto mode)",
            |s, bytes| s.file_sizes.push(bytes),
        )
        .header_number(|bytes| vec![format!("File size set to {} KB", kb(bytes))]),
        Flag::number(
            Short('r'),
            "SIZE",
            Number::RecordSize,
            "record size (default 4k, at most 16m; 8b is 8 bytes, an ioz extension); \
             repeat for a list of sizes (auto mode)",
            |s, bytes| s.record_sizes.push(bytes),
        )
        .header_number(|bytes| vec![format!("Record Size {} KB", kb(bytes))]),
        Flag::number(
            Short('n'),
            "SIZE",
            Number::Size,
            "auto mode: smallest file size (default 64k)",
            |s, bytes| s.min_file = Some(bytes),
        )
        .header_number(|bytes| {
            vec![format!(
                "Using minimum file size of {} kilobytes.",
                kb(bytes)
            )]
        })
        .only_in(Scope::AutoMode),
        Flag::number(
            Short('g'),
            "SIZE",
            Number::Size,
            "auto mode: largest file size (default 512m)",
            |s, bytes| s.max_file = Some(bytes),
        )
        .header_number(|bytes| {
            vec![format!(
                "Using maximum file size of {} kilobytes.",
                kb(bytes)
            )]
        })
        .only_in(Scope::AutoMode),
        Flag::number(
            Short('y'),
            "SIZE",
            Number::RecordSize,
            "auto mode: smallest record size (default 4k)",
            |s, bytes| s.min_record = Some(bytes),
        )
        .header_number(|bytes| vec![format!("Using Minimum Record Size {} KB", kb(bytes))])
        .only_in(Scope::AutoMode),
        Flag::number(
            Short('q'),
            "SIZE",
            Number::RecordSize,
            "auto mode: largest record size (default 16m)",
            |s, bytes| s.max_record = Some(bytes),
        )
        .header_number(|bytes| vec![format!("Using Maximum Record Size {} KB", kb(bytes))])
        .only_in(Scope::AutoMode),
        Flag::switch(
            Short('z'),
            "auto mode: use every record size (no crossover at 16 MiB files)",
            |s| s.no_crossover = true,
        )
        .header(&["Cross over of record size disabled."])
        .only_in(Scope::AutoMode),
        Flag::number(
            Plus('x'),
            "N",
            // 1024 already steps from 1 kB to 1 PiB in five sizes.
            Number::count(2, 1024, "size multiplier"),
            "auto mode: size multiplier (default 2)",
            |s, n| s.multiplier = Some(n),
        )
        .only_in(Scope::AutoMode),
    ],
};
