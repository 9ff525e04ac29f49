//! The engines as data: one row per engine, with everything the layers above
//! the engine need to know of it. The CLI takes from here the names
//! `--engine` accepts, the lines `ioz -h` shows and what it refuses; the
//! runner's recipe the operations kept in flight; the engine layer the
//! implementation the row names (engine::open_chosen, the one match on
//! [`EngineChoice`]). Adding an engine is a file in src/engine/, a row here,
//! its arm there and its name in the saved run's schema (ARCHITECTURE.md,
//! "An engine").

use serde::{Deserialize, Serialize};

/// What an engine is to the rest of ioz.
#[derive(Debug)]
pub struct EngineRow {
    pub choice: EngineChoice,
    /// Its name for `--engine`, and in saved runs (the variant's JSON name).
    pub name: &'static str,
    /// Its line in `ioz -h`.
    pub help: &'static str,
    /// Keeps `--iodepth` operations in flight, each with a buffer of its
    /// own: a latency runs from submission to completion, `-m`'s sliding
    /// buffer is refused, and so is `-+O`, which paces one operation at a time.
    pub queued: bool,
    /// Moves records through a mapping of the file: the one `-+A` (madvise) advises.
    pub maps_file: bool,
    /// IOzone's flags that choose it, as messages name them ("" for none).
    pub iozone_flags: &'static str,
    /// A test whose records move with it takes the run's engine instead
    /// (`--engine`, `-B`, `-H`, `-k`: IOzone's tests 0-5 and 8-10); the
    /// stdio and vectored tests keep theirs, which is what they measure.
    pub gives_way: bool,
}

/// The enum and its rows from one list, so that every variant has its row,
/// at the index of its discriminant.
macro_rules! engine_table {
    ($($(#[$doc:meta])* $variant:ident { $($field:ident: $value:expr),* $(,)? })*) => {
        /// An engine chosen for every read/write test (`--engine`, `-B`, `-H`, `-k`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum EngineChoice {
            $($(#[$doc])* $variant,)*
        }

        /// Every engine, in the order `ioz -h` lists them.
        pub const ENGINES: &[EngineRow] = &[
            $(EngineRow { choice: EngineChoice::$variant, $($field: $value),* },)*
        ];
    };
}

engine_table! {
    /// `read`/`write` at the file position.
    Sync {
        name: "sync",
        help: "read()/write() at the file position, moved with lseek()",
        queued: false,
        maps_file: false,
        iozone_flags: "",
        gives_way: true,
    }
    /// `pread`/`pwrite`.
    Psync {
        name: "psync",
        help: "pread()/pwrite()",
        queued: false,
        maps_file: false,
        iozone_flags: "",
        gives_way: true,
    }
    /// `preadv`/`pwritev`.
    Vec {
        name: "vec",
        help: "preadv()/pwritev()",
        queued: false,
        maps_file: false,
        iozone_flags: "",
        gives_way: false,
    }
    /// C stdio.
    Stdio {
        name: "stdio",
        help: "C stdio's fread()/fwrite(), with a buffer of one record",
        queued: false,
        maps_file: false,
        iozone_flags: "",
        gives_way: false,
    }
    /// `mmap` + memcpy (`-B`).
    Mmap {
        name: "mmap",
        help: "memcpy to and from the file mapped with mmap(), as -B",
        queued: false,
        maps_file: true,
        iozone_flags: "-B/-D/-G",
        gives_way: false,
    }
    /// POSIX AIO (`-H` with copy, `-k` without).
    Aio {
        name: "aio",
        help: "POSIX AIO, --iodepth requests in flight, as -H",
        queued: true,
        maps_file: false,
        iozone_flags: "-H/-k",
        gives_way: false,
    }
    /// Linux io_uring.
    IoUring {
        name: "io_uring",
        help: "Linux io_uring, --iodepth requests in flight",
        queued: true,
        maps_file: false,
        iozone_flags: "",
        gives_way: false,
    }
}

impl EngineChoice {
    /// Its row of the table.
    pub const fn row(self) -> &'static EngineRow {
        &ENGINES[self as usize]
    }

    pub fn from_name(name: &str) -> Option<EngineChoice> {
        ENGINES.iter().find(|r| r.name == name).map(|r| r.choice)
    }

    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// Whether it keeps several operations in flight ([`EngineRow::queued`]).
    pub const fn is_queued(self) -> bool {
        self.row().queued
    }

    /// The engine a test whose own engine this is runs on when the run
    /// chose `chosen` ([`EngineRow::gives_way`]).
    pub fn or_chosen(self, chosen: Option<EngineChoice>) -> EngineChoice {
        match chosen {
            Some(chosen) if self.row().gives_way => chosen,
            _ => self,
        }
    }

    /// Operations it keeps in flight when the run asks for `iodepth`.
    pub const fn depth(self, iodepth: u32) -> u32 {
        if self.is_queued() {
            if iodepth > 1 { iodepth } else { 1 }
        } else {
            1
        }
    }
}

/// Whether the run's engine (none: each test's own) keeps operations in flight.
pub fn queued(engine: Option<EngineChoice>) -> bool {
    engine.is_some_and(EngineChoice::is_queued)
}

/// Every engine's name, in table order.
pub const NAMES: [&str; ENGINES.len()] = {
    let mut names = [""; ENGINES.len()];
    let mut i = 0;
    while i < ENGINES.len() {
        names[i] = ENGINES[i].name;
        i += 1;
    }
    names
};

const QUEUED_COUNT: usize = {
    let mut count = 0;
    let mut i = 0;
    while i < ENGINES.len() {
        if ENGINES[i].queued {
            count += 1;
        }
        i += 1;
    }
    count
};

/// The names of the engines that keep operations in flight, in table order.
pub const QUEUED_NAMES: [&str; QUEUED_COUNT] = {
    let mut names = [""; QUEUED_COUNT];
    let (mut i, mut k) = (0, 0);
    while i < ENGINES.len() {
        if ENGINES[i].queued {
            names[k] = ENGINES[i].name;
            k += 1;
        }
        i += 1;
    }
    names
};

/// IOzone's flags that choose an engine that keeps operations in flight.
pub const QUEUED_IOZONE_FLAGS: &[&str] = {
    const COUNT: usize = {
        let (mut count, mut i) = (0, 0);
        while i < ENGINES.len() {
            if ENGINES[i].queued && !ENGINES[i].iozone_flags.is_empty() {
                count += 1;
            }
            i += 1;
        }
        count
    };
    const FLAGS: [&str; COUNT] = {
        let mut flags = [""; COUNT];
        let (mut i, mut k) = (0, 0);
        while i < ENGINES.len() {
            if ENGINES[i].queued && !ENGINES[i].iozone_flags.is_empty() {
                flags[k] = ENGINES[i].iozone_flags;
                k += 1;
            }
            i += 1;
        }
        flags
    };
    &FLAGS
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_sits_at_its_variant_and_saves_under_its_name() {
        for (i, row) in ENGINES.iter().enumerate() {
            assert_eq!(row.choice as usize, i, "{}", row.name);
            assert_eq!(row.choice.row().name, row.name);
            assert_eq!(EngineChoice::from_name(row.name), Some(row.choice));
            // A saved run names the engine as --engine does.
            let json = serde_json::to_string(&row.choice).unwrap();
            assert_eq!(json, format!("\"{}\"", row.name));
            let back: EngineChoice = serde_json::from_str(&json).unwrap();
            assert_eq!(back, row.choice);
        }
        assert_eq!(EngineChoice::from_name("iouring"), None);
        assert_eq!(EngineChoice::from_name(""), None);
    }

    /// The JSON schema of a saved run (schema/run.schema.json) names every
    /// engine a run may save: the table's.
    #[test]
    fn the_saved_runs_schema_names_every_engine() {
        fn engine_enum(v: &serde_json::Value) -> Option<Vec<serde_json::Value>> {
            match v {
                serde_json::Value::Object(map) => map
                    .get("engine")
                    .and_then(|e| e.get("enum"))
                    .and_then(|e| e.as_array().cloned())
                    .or_else(|| map.values().find_map(engine_enum)),
                serde_json::Value::Array(items) => items.iter().find_map(engine_enum),
                _ => None,
            }
        }
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../schema/run.schema.json")).unwrap();
        let listed = engine_enum(&schema).expect("the schema has no engine enum");
        let mut names: Vec<serde_json::Value> = vec![serde_json::Value::Null];
        names.extend(NAMES.iter().map(|&n| serde_json::Value::from(n)));
        assert_eq!(listed, names);
    }

    #[test]
    fn the_queued_engines_and_their_depth() {
        assert_eq!(QUEUED_NAMES, ["aio", "io_uring"]);
        assert_eq!(QUEUED_IOZONE_FLAGS, ["-H/-k"]);
        assert_eq!(EngineChoice::IoUring.depth(32), 32);
        assert_eq!(EngineChoice::Aio.depth(0), 1);
        assert_eq!(EngineChoice::Psync.depth(32), 1);
        assert!(queued(Some(EngineChoice::Aio)));
        assert!(!queued(Some(EngineChoice::Mmap)));
        assert!(!queued(None));
        // --engine replaces read/write and pread/pwrite, not stdio or preadv.
        let chosen = Some(EngineChoice::IoUring);
        assert_eq!(EngineChoice::Sync.or_chosen(chosen), EngineChoice::IoUring);
        assert_eq!(EngineChoice::Psync.or_chosen(chosen), EngineChoice::IoUring);
        assert_eq!(EngineChoice::Stdio.or_chosen(chosen), EngineChoice::Stdio);
        assert_eq!(EngineChoice::Vec.or_chosen(chosen), EngineChoice::Vec);
        assert_eq!(EngineChoice::Psync.or_chosen(None), EngineChoice::Psync);
        assert_eq!(
            NAMES,
            ["sync", "psync", "vec", "stdio", "mmap", "aio", "io_uring"]
        );
    }
}
