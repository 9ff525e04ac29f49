//! How records move: the engine, and IOzone's flags that choose one. The
//! engines' names, lines and what they refuse come from the engine table
//! (model::engines); the texts below are made from it when ioz is built.

use super::Spelling::{Long, Plus, Short};
use super::{Choice, Flag, Number, Section};
use crate::model::const_text::Text;
use crate::model::engines::{ENGINES, EngineChoice, NAMES, QUEUED_NAMES};
use crate::model::variations::MsyncMode;

/// Operations in flight for aio and io_uring.
const DEPTH: Number = Number::count(1, 4096, "operations in flight");

/// Where `ioz -h` starts its help lines (help.rs): each engine's line
/// starts there too.
const HELP_COLUMN: usize = 16;

/// Under the title: a line per engine, its name and what it does.
const LISTED: Text<1024> = {
    let mut text = Text::new();
    let mut i = 0;
    while i < ENGINES.len() {
        let row = &ENGINES[i];
        text = text
            .spaces(2)
            .push(row.name)
            .spaces(HELP_COLUMN - 2 - row.name.len())
            .push(row.help)
            .push("\n");
        i += 1;
    }
    text
};

const EXPECTED: Text<128> = Text::new()
    .push("an engine (")
    .list(&NAMES, ", ", ", ")
    .push(")");

const ENGINE_HELP: Text<128> = Text::new()
    .list(&NAMES, ", ", " or ")
    .push(" (tests 0-5, 8-10)");

const DEPTH_HELP: Text<128> = Text::new()
    .push("operations in flight ({range}) for ")
    .list(&QUEUED_NAMES, ", ", " and ");

pub(super) const SECTION: Section = Section {
    title: "Engines",
    note: LISTED.as_str(),
    flags: &[
        Flag::choice(
            Long("engine"),
            "NAME",
            Choice {
                names: &NAMES,
                expected: EXPECTED.as_str(),
                default: None,
            },
            ENGINE_HELP.as_str(),
            |s, name| s.variations.engine = EngineChoice::from_name(name),
        ),
        Flag::number(Long("iodepth"), "N", DEPTH, DEPTH_HELP.as_str(), |s, n| {
            s.variations.iodepth = n as u32
        }),
        Flag::switch(Short('B'), "mmap files", |s| s.mmap_flag = true)
            .header(&["Using mmap files"]),
        Flag::switch(Short('D'), "mmap files, msync(MS_ASYNC) per record", |s| {
            s.mmap_flag = true;
            s.variations.msync = MsyncMode::Async;
        })
        .header(&["Using msync(MS_ASYNC) on mmap files"]),
        Flag::switch(Short('G'), "mmap files, msync(MS_SYNC) per record", |s| {
            s.mmap_flag = true;
            s.variations.msync = MsyncMode::Sync;
        })
        .header(&["Using msync(MS_SYNC) on mmap files"]),
        Flag::number(
            Plus('A'),
            "N",
            Number::count(
                0,
                4,
                "madvise mode: 0 normal, 1 random, 2 sequential, 3 dontneed, 4 willneed",
            ),
            "madvise advice on mmap files: 0=normal, 1=random, 2=sequential, \
             3=dontneed, 4=willneed",
            |s, n| s.variations.madvise = Some(n as u32),
        )
        .header_number(|n| vec![format!("Madvise enabled: {n}")]),
        Flag::switch(
            Short('Z'),
            "write a page with write() before each write pass (mix with mmap)",
            |s| s.variations.mix_mmap_file_io = true,
        )
        .header(&["Enable mmap & file I/O mixing."]),
        Flag::number(
            Short('H'),
            "N",
            DEPTH,
            "POSIX async I/O with N ({range}) in flight, copying the data",
            |s, n| s.aio_depth = Some(('H', n as u32)),
        )
        .header_number(|n| vec![format!("POSIX async I/O (with bcopy). Depth {n}")])
        .excludes(Short('k')),
        Flag::number(
            Short('k'),
            "N",
            DEPTH,
            "POSIX async I/O with N ({range}) in flight, without copying",
            |s, n| s.aio_depth = Some(('k', n as u32)),
        )
        .header_number(|n| vec![format!("POSIX Async I/O (no bcopy). Depth {n} ")])
        .excludes(Short('H')),
    ],
};
