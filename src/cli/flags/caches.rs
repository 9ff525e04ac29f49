//! Caches, delays and the state of the file between passes.

use super::Spelling::{Long, Plus, Short};
use super::{Choice, Flag, Number, Section};
use crate::model::config::MAX_DELAY_SECONDS;
use crate::model::units::KIB;
use crate::model::variations::DropCaches;

pub(super) const SECTION: Section = Section {
    title: "Caches and delays",
    note: "",
    flags: &[
        Flag::choice(
            Long("drop-caches"),
            "[=all]",
            Choice {
                names: &["file", "all"],
                expected: "file or all",
                default: Some("file"),
            },
            "evict the file's pages before each read pass (untimed); =all also \
             drops every clean page of the machine (root)",
            |s, scope| {
                s.variations.drop_caches = if scope == "all" {
                    DropCaches::All
                } else {
                    DropCaches::File
                }
            },
        ),
        Flag::path(
            Short('U'),
            "MNT",
            "unmount and mount back the file system at MNT (holding the test \
             file) before every pass, untimed: a cold cache (root)",
            |s, mount| s.variations.remount = Some(mount),
        ),
        Flag::switch(
            Short('p'),
            "evict the CPU caches before each pass (untimed)",
            |s| s.variations.purge_cpu_cache = true,
        )
        .header(&["Purge Mode On"]),
        Flag::number(
            Short('S'),
            "KB",
            // -p walks a buffer twice this size: 4 GiB is over three times
            // the largest CPU cache made (1152 MiB of L3), and keeps the
            // buffer within what a test machine can spare.
            Number::count(1, 4 << 20, "kB of CPU cache"),
            "CPU cache size (a header line; -p's size)",
            |s, kb| s.variations.cpu_cache_bytes = Some(kb * KIB),
        ),
        Flag::number(
            Short('L'),
            "B",
            Number::count(1, 1 << 20, "bytes per cache line"),
            "CPU cache line size (a header line)",
            |s, bytes| s.variations.cache_line_bytes = Some(bytes),
        ),
        Flag::number(
            Short('J'),
            "MS",
            Number::count(0, MAX_DELAY_SECONDS * 1000, "ms of computation"),
            "busy-wait MS ms before every I/O (not counted in the rates)",
            |s, ms| s.variations.compute_delay_ms = Some(ms),
        ),
        Flag::number(
            Plus('q'),
            "S",
            Number::count(0, MAX_DELAY_SECONDS, "seconds of delay"),
            "sleep S seconds after every test",
            |s, secs| s.variations.delay_between_tests_s = secs,
        )
        .header_number(|secs| vec![format!("Delay {secs} seconds between tests enabled.")]),
        Flag::switch(
            Short('K'),
            "disrupt reads: before every 100th record of test 1 (and of the \
             throughput readers) read 1 byte at 0 and at 4096 (a page with -I)",
            |s| s.variations.disrupt_reads = true,
        )
        .header(&["Disrupted read patterns selected."]),
        Flag::switch(
            Short('m'),
            "the buffer slides through a 16 MiB area, a record per I/O",
            |s| s.variations.multi_buffer = true,
        )
        .header(&["Multi_buffer. Work area 16777216 bytes"]),
        Flag::switch(Plus('N'), "never truncate the test file", |s| {
            s.variations.no_truncate = true
        }),
        Flag::switch(
            Plus('E'),
            "read-only tests (-i 1, 2, 3, 5, 7, 10, 12) on an existing file named \
             with -f, which ioz never writes, truncates or removes",
            |s| s.variations.existing_file = true,
        )
        .header(&[">>> Read-only tests on an existing file: nothing is written. <<<"]),
    ],
};
