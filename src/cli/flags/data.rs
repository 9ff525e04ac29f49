//! What writes send and what reads check.

use super::Spelling::{Plus, Short};
use super::{Flag, Number, Section};
use crate::model::variations::Verify;

/// IOzone's warning under every checking mode.
const INVALID: &str = "Performance measurements are invalid in this mode.";

pub(super) const SECTION: Section = Section {
    title: "Data and checks",
    note: "",
    flags: &[
        Flag::number(
            Short('V'),
            "N",
            Number::count(0, 255, "byte value"),
            "write byte N ({range}) everywhere and check every byte read",
            |s, n| s.variations.verify = Verify::Pattern(n as u8),
        )
        .header_number(|n| {
            vec![
                format!(
                    "Verify Mode. Pattern {:x}",
                    u32::from_ne_bytes([n as u8; 4])
                ),
                INVALID.to_string(),
            ]
        }),
        Flag::switch(
            Plus('d'),
            "check every byte read against a per-word pattern",
            |s| s.variations.verify = Verify::Diagnostic,
        )
        .header(&[">>> I/O Diagnostic mode enabled. <<<", INVALID]),
        Flag::switch(
            Plus('X'),
            "short-circuit mode: IOzone's buffer with the byte 0xbb, and IOzone's light \
             check of reads (the first 8 bytes of each 4 KiB page of a record)",
            |s| s.variations.verify = Verify::ShortCircuit,
        )
        // A sentence IOzone wraps: the second line goes on after the tab.
        .header(&[
            "Short circuit mode. For",
            " filesystem development testing ONLY !",
        ]),
        Flag::switch(
            Plus('Z'),
            "old data sets: IOzone's buffer with the byte 0xa5, checked as -+X checks",
            |s| s.variations.verify = Verify::OldDataSets,
        )
        // IOzone prints two lines more, which IOZONE-SEMANTICS.md does not
        // give: this is the one it names.
        .header(&["Using old data sets."]),
        Flag::number(
            Plus('w'),
            "P",
            Number::percent(),
            "dedup data: P percent of the 4 KiB chunks dedupable, the rest unique \
             and incompressible (built in memory before the clock)",
            |s, n| s.variations.dedup.percent = Some(n as u32),
        )
        .header_number(|n| vec![format!("Dedup activated {n} percent.")]),
        Flag::number(
            Plus('y'),
            "P",
            Number::percent(),
            "of those, P percent the same in every record of every file",
            |s, n| s.variations.dedup.interior_percent = Some(n as u32),
        )
        .header_number(|n| vec![format!("Dedupe within & across {n} percent.")]),
        Flag::number(
            Plus('C'),
            "P",
            Number::percent(),
            "of those, P percent the same across files, unique within one",
            |s, n| s.variations.dedup.within_percent = Some(n as u32),
        )
        .header_number(|n| vec![format!("Dedupe within {n} percent.")]),
        Flag::number(
            Plus('S'),
            "N",
            Number::count(0, u32::MAX as u64, "dedup seed"),
            "dedup seed (default 1; 0 means 1, as in IOzone)",
            |s, n| s.variations.dedup.seed = Some(n.max(1) as u32),
        )
        .header_number(|n| vec![format!("Dedup manual seed {} .", n.max(1))]),
        Flag::number(
            Plus('W'),
            "N",
            Number::count(0, u32::MAX as u64, "worker number skew"),
            "add N to the worker number in the dedup data",
            |s, n| s.variations.dedup.worker_skew = Some(n as u32),
        )
        .header_number(|n| vec![format!("Dedup chid_skew {n} .")]),
    ],
};
