//! Where a command's result files go, as the guard (`safety::outputs`)
//! approved them before any I/O, for `report::files` to write at the end.

use std::ffi::OsString;
use std::path::PathBuf;

use super::config::RunConfig;
use super::formats::Format;
use super::plan::{expand, passes};
use super::workload::Pass;

/// A file as the kernel knows it: its file system's device and its inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
}

/// One result file, approved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The path as the command named it (for messages, and the format of -b).
    pub given: PathBuf,
    /// The directory the file goes in, every link followed.
    pub dir: PathBuf,
    /// The file's name in `dir`.
    pub name: OsString,
    /// The file found there before the run (ioz's own result file, or one
    /// `--force` gave up), which this one replaces; `None`: nothing may be
    /// there when the result is put in place.
    pub replaces: Option<FileId>,
}

impl Place {
    /// The file itself: `dir`/`name`.
    pub fn real_path(&self) -> PathBuf {
        self.dir.join(&self.name)
    }
}

/// A directory format's directory (`--plots DIR`), approved, and every
/// file the command may write in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirPlaces {
    /// DIR as the command named it.
    pub given: PathBuf,
    /// DIR, every link followed.
    pub dir: PathBuf,
    /// DIR does not exist yet: ioz makes it (its parent exists).
    pub create: bool,
    /// One per file (see [`files_in_directory`]).
    pub files: Vec<Place>,
}

impl DirPlaces {
    /// The approved place of the file `name`.
    pub fn file(&self, name: &str) -> Option<&Place> {
        self.files.iter().find(|p| p.name == name)
    }
}

/// Every result file of a command, approved, each with its format, in the
/// order of the format list (model::formats).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResultPlaces {
    /// The formats the guard judges as one file (every `-b` in
    /// command-line order).
    pub files: Vec<(Format, Place)>,
    /// The formats written as a directory of files.
    pub dirs: Vec<(Format, DirPlaces)>,
    /// `-Q`: every latency file the run may append to (in the current
    /// directory). A place's `replaces` is the file found there before the
    /// run, which is appended to; `None`: ioz makes it.
    pub latency: Vec<Place>,
}

/// The files a directory format writes in its directory for a run of
/// `config`, so that the guard knows each before the run: for `--plots`,
/// a PNG and an SVG of each view of each pass.
pub fn files_in_directory(format: Format, config: &RunConfig) -> Vec<String> {
    match format {
        Format::Plots => passes(config)
            .into_iter()
            .flat_map(|pass| plot_file_names(config, pass))
            .collect(),
        _ => Vec::new(),
    }
}

/// The stem of a pass's plot files: its name with dashes ("random-read").
pub fn plot_stem(pass: Pass) -> String {
    pass.name().replace(' ', "-")
}

/// One drawing `--plots` makes of a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotView {
    /// The whole pass: the 3-D surface of a file × record grid, a line or a
    /// bar when the grid is one row, column or cell, the worker counts in
    /// throughput mode. Named after the pass alone ("write.png").
    Overview,
    /// Value against file size, one line per record size ("write-by-file-size.png").
    ByFileSize,
    /// Value against record size, one line per file size ("write-by-record-size.png").
    ByRecordSize,
    /// `--interval`: the rate of each interval over the pass, with the page
    /// cache ("write-over-time.png").
    OverTime,
}

impl PlotView {
    /// What the view adds to the pass's file-name stem.
    pub fn suffix(self) -> &'static str {
        match self {
            PlotView::Overview => "",
            PlotView::ByFileSize => "-by-file-size",
            PlotView::ByRecordSize => "-by-record-size",
            PlotView::OverTime => "-over-time",
        }
    }
}

/// The drawings of each pass of a run: the overview, and the two 2-D views
/// when the plan is a grid of several file sizes and several record sizes
/// (otherwise the overview is already the one 2-D view). Decided by the
/// configuration, so that the guard knows every file before the run.
pub fn plot_views(config: &RunConfig) -> Vec<PlotView> {
    let mut views = grid_views(config);
    if config.interval_ns.is_some() {
        views.push(PlotView::OverTime);
    }
    views
}

/// The views of the pass's measurements (plot_views without --interval's).
fn grid_views(config: &RunConfig) -> Vec<PlotView> {
    if config.throughput.is_some() {
        return vec![PlotView::Overview];
    }
    let plan = expand(config);
    let distinct = |size: fn(&super::plan::Cell) -> u64| {
        let mut v: Vec<u64> = plan.cells.iter().map(size).collect();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    if distinct(|c| c.file_bytes) > 1 && distinct(|c| c.record_bytes) > 1 {
        vec![
            PlotView::Overview,
            PlotView::ByFileSize,
            PlotView::ByRecordSize,
        ]
    } else {
        vec![PlotView::Overview]
    }
}

/// The file `--plots` writes for one view of a pass, as `ext` ("png", "svg").
pub fn plot_file_name(pass: Pass, view: PlotView, ext: &str) -> String {
    format!("{}{}.{ext}", plot_stem(pass), view.suffix())
}

/// The files `--plots` writes for a pass: a PNG and an SVG of each view.
pub fn plot_file_names(config: &RunConfig, pass: Pass) -> Vec<String> {
    plot_views(config)
        .into_iter()
        .flat_map(|view| ["png", "svg"].map(|ext| plot_file_name(pass, view, ext)))
        .collect()
}

/// `-Q`: the file a pass's latencies go to (IOzone's names, and its
/// throughput names for the tests it has no single-mode file for).
pub fn latency_file_name(pass: Pass) -> &'static str {
    use Pass::*;
    match pass {
        Write => "wol.dat",
        Rewrite => "rwol.dat",
        Read => "rol.dat",
        Reread => "rrol.dat",
        RandomRead => "randrol.dat",
        RandomWrite => "randwol.dat",
        BackwardRead => "revol.dat",
        RecordRewrite => "rrewol.dat",
        StrideRead => "strol.dat",
        Fwrite | Frewrite => "fwol.dat",
        Fread | Freread => "frol.dat",
        RandomMix => "mixol.dat",
        Pwrite | Repwrite => "pwol.dat",
        Pread | Repread => "prol.dat",
        Pwritev | Repwritev => "pwvol.dat",
        Preadv | Repreadv => "prvol.dat",
    }
}

/// `-Q` in throughput mode: worker `worker`'s file, IOzone's `Child_<n>_…`.
pub fn worker_latency_file_name(pass: Pass, worker: u32) -> String {
    format!("Child_{worker}_{}", latency_file_name(pass))
}

/// `-+z`: worker `worker`'s IOzone histogram file (in single and auto mode,
/// worker 0's), in the current directory.
pub fn iozone_histogram_file_name(worker: u32) -> String {
    format!("Iozone_histogram_child_{worker}.txt")
}

/// `-+T`: worker `worker`'s log of phase starts and ends, in the current directory.
pub fn worker_log_file_name(worker: u32) -> String {
    format!("Child_{worker}.log")
}
