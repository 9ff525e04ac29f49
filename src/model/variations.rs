//! The I/O variations a run can apply to every test: which engine moves the
//! records, cache and timing controls, verification, data patterns and
//! telemetry. Parsed by the CLI, validated there, read by the runner.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::engines::EngineChoice;

/// `-D`/`-G`: msync after each record of an mmap'd file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MsyncMode {
    #[default]
    None,
    Async,
    Sync,
}

/// `--drop-caches`: before each read pass, evict the file's pages (untimed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropCaches {
    #[default]
    None,
    /// fsync + posix_fadvise(DONTNEED) on the test file.
    File,
    /// Also write 3 to /proc/sys/vm/drop_caches (root only).
    All,
}

/// `-V`/`-+d`: what reads check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verify {
    #[default]
    None,
    /// `-V N`: every written byte is N; every byte read is checked.
    Pattern(u8),
    /// `-+d`: a pattern per record; every byte read is checked.
    Diagnostic,
    /// `-+X`: IOzone's buffer with the byte 0xbb (short-circuit mode); the
    /// first 8 bytes of each 4 KiB page of every record read are checked.
    ShortCircuit,
    /// `-+Z`: IOzone's buffer with the byte 0xa5 (old data sets), checked
    /// as `-+X` checks.
    OldDataSets,
}

impl Verify {
    /// The pattern byte of IOzone's light check (`-+X`, `-+Z`): written in
    /// the first 8 bytes of each 4 KiB page of a record, zeros elsewhere.
    pub fn light_pattern(self) -> Option<u8> {
        match self {
            Verify::ShortCircuit => Some(0xbb),
            Verify::OldDataSets => Some(0xa5),
            Verify::None | Verify::Pattern(_) | Verify::Diagnostic => None,
        }
    }

    /// The flags that asked for it, as refusals name them.
    pub fn flags(self) -> &'static str {
        match self {
            Verify::None => "",
            Verify::Pattern(_) | Verify::Diagnostic => "-V or -+d",
            Verify::ShortCircuit => "-+X",
            Verify::OldDataSets => "-+Z",
        }
    }
}

/// IOzone's dedup controls (`-+w`, `-+y`, `-+C`, `-+S`, `-+W`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DedupOptions {
    /// `-+w`: percent of each buffer that is dedupable.
    pub percent: Option<u32>,
    /// `-+y`: percent dedupable within and across files.
    pub interior_percent: Option<u32>,
    /// `-+C`: percent unique within a file but shared across files.
    pub within_percent: Option<u32>,
    /// `-+S`: the seed.
    pub seed: Option<u32>,
    /// `-+W`: worker-id skew.
    pub worker_skew: Option<u32>,
}

impl DedupOptions {
    pub fn any(&self) -> bool {
        self.percent.is_some() || self.interior_percent.is_some() || self.within_percent.is_some()
    }

    /// W: `-+w`, or without it the `-+y` and `-+C` shares together.
    pub fn dedupable_percent(&self) -> u32 {
        self.percent
            .unwrap_or(self.interior_percent.unwrap_or(0) + self.within_percent.unwrap_or(0))
    }

    /// `-+S`, 1 when absent (and for 0, as IOzone).
    pub fn effective_seed(&self) -> u32 {
        self.seed.unwrap_or(1).max(1)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoVariations {
    pub engine: Option<EngineChoice>,
    /// Operations in flight for aio and io_uring.
    pub iodepth: u32,
    /// `-D`/`-G`.
    pub msync: MsyncMode,
    /// `-+A n`: madvise advice (0 normal … 4 willneed) on mmap'd files.
    pub madvise: Option<u32>,
    /// `-Z`: before each write pass, write one page with write() (mixing mmap and file I/O).
    pub mix_mmap_file_io: bool,
    /// `-k`: POSIX AIO without copying (the default `-H` copies).
    pub aio_no_copy: bool,
    /// `-p`: evict the CPU cache before each test.
    pub purge_cpu_cache: bool,
    /// `-S`: CPU cache size in bytes (default: detected).
    pub cpu_cache_bytes: Option<u64>,
    /// `-L`: CPU cache line size in bytes.
    pub cache_line_bytes: Option<u64>,
    /// `-U`: unmount and remount this mount point before each test.
    pub remount: Option<PathBuf>,
    /// `-J`: busy-wait this many ms before every I/O (subtracted from the time).
    pub compute_delay_ms: Option<u64>,
    /// `-K`: disrupt the read pattern every 100 records.
    pub disrupt_reads: bool,
    /// `-m`: the buffer slides through a 16 MiB area.
    pub multi_buffer: bool,
    /// `-+q`: seconds to sleep after every test.
    pub delay_between_tests_s: u64,
    /// `-+N`: do not truncate before the write test.
    pub no_truncate: bool,
    /// `-+E`: read-only tests on an existing file ioz never writes.
    pub existing_file: bool,
    pub drop_caches: DropCaches,
    pub verify: Verify,
    pub dedup: DedupOptions,
    /// `-Q`: offset/latency files per test.
    pub offset_latency_files: bool,
    /// `-X`/`-Y`: write and read telemetry files.
    pub write_telemetry: Option<PathBuf>,
    pub read_telemetry: Option<PathBuf>,
    /// `-+u`: CPU utilisation per test.
    pub cpu_utilisation: bool,
    /// `-+B`: the random mix reads and writes sequentially.
    pub sequential_mix: bool,
    /// `-+K n`: in throughput mode, workers below n read in the mix, the rest write.
    pub mix_readers: Option<u32>,
    /// `-+F`: mix writers open with O_TRUNC.
    pub mix_truncate_writers: bool,
}
