//! The test file, how it is opened, and what the timing includes.

use super::Spelling::{Plus, Short};
use super::{Flag, Section};

pub(super) const SECTION: Section = Section {
    title: "I/O and timing",
    note: "",
    flags: &[
        Flag::path(
            Short('f'),
            "PATH",
            "test file (default ./ioz.tmp)",
            |s, path| s.path = Some(path),
        ),
        Flag::switch(Short('w'), "keep the test file at the end", |s| {
            s.keep_file = true
        })
        .header(&["Setting no_unlink"]),
        Flag::switch(Short('e'), "include fsync in the timing", |s| {
            s.fsync_in_timing = true
        })
        .header(&["Include fsync in write timing"]),
        Flag::switch(Short('c'), "include close in the timing", |s| {
            s.close_in_timing = true
        })
        .header(&["Include close in write timing"]),
        Flag::switch(Short('o'), "O_SYNC writes", |s| s.open.sync_writes = true)
            .header(&["SYNC Mode. "]),
        Flag::switch(Plus('D'), "O_DSYNC writes", |s| s.open.dsync_writes = true)
            .header(&[">>> O_DSYNC mode enabled. <<<"]),
        Flag::switch(Plus('r'), "O_RSYNC|O_SYNC on every open", |s| {
            s.open.sync_all = true
        })
        .header(&["Read & Write sync mode active."]),
        Flag::switch(
            Short('I'),
            "O_DIRECT (fails clearly if the file system refuses it)",
            |s| s.open.direct = true,
        )
        .header(&["O_DIRECT feature enabled"]),
        Flag::switch(Short('W'), "lock the file while reading/writing", |s| {
            s.lock_file = true
        })
        .header(&["Lock file when reading/writing."]),
        Flag::switch(Plus('l'), "lock each record (fcntl) while moving it", |s| {
            s.record_locking = true
        })
        .header(&[">>> Record locking mode enabled. <<<"]),
    ],
};
