//! `ioz mdtest`: the HPC metadata benchmark's phases (tree, directories,
//! files: create, stat, read, remove) with mdtest's main options and its
//! SUMMARY tables, IO500's two shapes (`--shape easy|hard`), and ioz's
//! result files, latencies and history. mdtest's letters live only in
//! this table.

use std::path::PathBuf;

use super::grammar::Spelling::{Long, Short};
use super::grammar::{Choice, Flag, Grammar, Number, Section, Target};
use super::metadata_common::{CommonSeen, HasCommon, common_flags, common_section, run_config};
use super::{Command, UsageError, shared, usage};
use crate::model::config::MAX_RUNS;
use crate::model::host::Host;
use crate::model::metadata::{
    HARD_FILE_BYTES, MAX_ITEMS, MAX_TREE_DIRS, MdtestConfig, MdtestTree, MetadataConfig,
    PhaseSelection, Shape,
};
use crate::model::units::MIB;

/// What ioz mdtest's flags set.
#[derive(Default)]
pub(super) struct MdtestSeen {
    common: CommonSeen,
    given: Vec<super::grammar::Spelling<'static>>,
    items: Option<u64>,
    depth: Option<u32>,
    branch: Option<u32>,
    items_per_dir: Option<u64>,
    leaf_only: bool,
    unique_dir: bool,
    stride: Option<u32>,
    stonewall: Option<u64>,
    directories_only: bool,
    files_only: bool,
    phases: Option<PhaseSelection>,
    write_bytes: Option<u64>,
    read_bytes: Option<u64>,
    sync: bool,
    iterations: Option<u32>,
    dir: Option<PathBuf>,
    print_time: bool,
    time_only: bool,
    shape: Option<Shape>,
}

impl Target for MdtestSeen {
    fn applied(&mut self, flag: super::grammar::Spelling<'static>, _lines: Vec<String>) {
        self.given.push(flag);
    }

    fn was_given(&self, flag: super::grammar::Spelling<'_>) -> bool {
        self.given.contains(&flag)
    }
}

impl HasCommon for MdtestSeen {
    fn common(&mut self) -> &mut CommonSeen {
        &mut self.common
    }
}

impl MdtestSeen {
    /// `-C`, `-T`, `-E`, `-r`: the first one given narrows the phases to
    /// those named.
    fn only(&mut self, set: fn(&mut PhaseSelection)) {
        let mut phases = self.phases.unwrap_or(PhaseSelection {
            create: false,
            stat: false,
            read: false,
            remove: false,
        });
        set(&mut phases);
        self.phases = Some(phases);
    }
}

/// The largest `-w` and `-e`: a file's bytes move through one buffer.
const MAX_FILE_BYTES: u64 = 64 * MIB;

const OWN: &[Flag<MdtestSeen>] = &[
    Flag::number(
        Short('n'),
        "N",
        Number::count(1, MAX_ITEMS, "items per rank"),
        "every rank creates, stats, reads and removes N directories and files \
         (spread evenly over the tree's directories)",
        |s, n| s.items = Some(n),
    ),
    Flag::number(
        Short('z'),
        "DEPTH",
        Number::count(0, 64, "tree depth"),
        "depth of the directory tree (default 0: one directory)",
        |s, n| s.depth = Some(n as u32),
    ),
    Flag::number(
        Short('b'),
        "B",
        Number::count(1, 1_000_000, "branching factor"),
        "branching factor of the tree (default 1)",
        |s, n| s.branch = Some(n as u32),
    ),
    Flag::number(
        Short('I'),
        "K",
        Number::count(1, MAX_ITEMS, "items per directory"),
        "K items in every directory of the tree (instead of -n)",
        |s, n| s.items_per_dir = Some(n),
    ),
    Flag::switch(Short('L'), "items only in the tree's leaves", |s| {
        s.leaf_only = true
    }),
    Flag::switch(
        Short('u'),
        "a working directory (and tree) per rank; without it the ranks share one tree",
        |s| s.unique_dir = true,
    ),
    Flag::number(
        Short('N'),
        "S",
        Number::count(0, 1_000_000, "rank stride"),
        "rank r stats and reads the items of rank (r + S) mod ranks, so that no \
         client answers from its own cache (IO500: 1)",
        |s, n| s.stride = Some(n as u32),
    ),
    Flag::number(
        Short('W'),
        "SECONDS",
        Number::count(0, 86_400, "seconds"),
        "stonewall: file creation stops after SECONDS, then every rank creates as \
         many as the rank that created most (wear-out), and the later phases use \
         exactly those files",
        |s, n| s.stonewall = Some(n),
    ),
    Flag::switch(
        Short('D'),
        "directories only (no files)",
        |s: &mut MdtestSeen| s.directories_only = true,
    )
    .excludes(Short('F')),
    Flag::switch(
        Short('F'),
        "files only (no directories)",
        |s: &mut MdtestSeen| s.files_only = true,
    )
    .excludes(Short('D')),
    Flag::switch(
        Short('C'),
        "measure only the creation (of those flags given)",
        |s| s.only(|p| p.create = true),
    ),
    Flag::switch(
        Short('T'),
        "measure only the stat phase (of those flags given)",
        |s| s.only(|p| p.stat = true),
    ),
    Flag::switch(
        Short('E'),
        "measure only the read phase (of those flags given)",
        |s| s.only(|p| p.read = true),
    ),
    Flag::switch(
        Short('r'),
        "measure only the removal (of those flags given)",
        |s| s.only(|p| p.remove = true),
    ),
    Flag::number(
        Short('w'),
        "BYTES",
        Number::Bytes {
            max: MAX_FILE_BYTES,
        },
        "bytes written to each file after it is created (default 0)",
        |s, n| s.write_bytes = Some(n),
    ),
    Flag::number(
        Short('e'),
        "BYTES",
        Number::Bytes {
            max: MAX_FILE_BYTES,
        },
        "bytes read from each file in the read phase (default 0: open and close)",
        |s, n| s.read_bytes = Some(n),
    ),
    Flag::switch(Short('y'), "fsync each file after writing it", |s| {
        s.sync = true
    }),
    Flag::number(
        Short('i'),
        "N",
        Number::count(1, MAX_RUNS as u64, "iterations"),
        "iterations: the SUMMARY's max, min, mean and standard deviation are over them",
        |s, n| s.iterations = Some(n as u32),
    ),
    Flag::directory(
        Short('d'),
        "DIR",
        "the directory to work in (default .): ioz makes its tree in a new \
         directory there and removes it at the end",
        |s, dir| s.dir = Some(dir),
    ),
    Flag::switch(
        Short('P'),
        "print the time table beside the rate table",
        |s| s.print_time = true,
    ),
    Flag::switch(
        Short('Z'),
        "print the time table instead of the rate table",
        |s| s.time_only = true,
    ),
    Flag::switch(
        Short('t'),
        "time the unique working directory's overhead (ioz's phases always include it)",
        |_| {},
    ),
    Flag::choice(
        Long("shape"),
        "SHAPE",
        Choice {
            names: &Shape::NAMES,
            expected: "an IO500 shape (easy or hard)",
            default: None,
        },
        "IO500's shapes: easy (a directory per rank, empty files: -F -u -L -N 1) or \
         hard (one shared directory, 3901-byte files written and read back: -F -w \
         3901 -e 3901 -N 1); options given beside it change it",
        |s, name| s.shape = Shape::named(name),
    ),
    Flag::not_supported(Short('a'), "another I/O API: ioz uses POSIX calls"),
    Flag::not_supported(Short('B'), "no barriers between phases"),
    Flag::not_supported(Short('c'), "collective creates by rank 0"),
    Flag::not_supported(
        Short('f'),
        "a sweep of task counts: run ioz mdtest under mpirun -np N",
    ),
    Flag::not_supported(Short('k'), "mknod instead of creat"),
    Flag::not_supported(
        Short('l'),
        "a sweep of task counts: run ioz mdtest under mpirun -np N",
    ),
    Flag::not_supported(Short('p'), "a pre-iteration delay"),
    Flag::not_supported(Short('R'), "random stat order"),
    Flag::not_supported(Short('s'), "a stride of task counts"),
    Flag::not_supported(Short('S'), "one shared file"),
    Flag::not_supported(
        Short('U'),
        "the rename phase by request: ioz runs it whenever every phase is measured",
    ),
    Flag::not_supported(Short('V'), "a verbosity level"),
    Flag::not_supported(Short('x'), "a stonewalling status file"),
    Flag::not_supported(Short('X'), "verification of the data read"),
    Flag::not_supported(Short('Y'), "a sync after each phase"),
    Flag::version(Short('v'), "ioz's version"),
    shared::help(),
    shared::help_long(),
];

const COMMON: [Flag<MdtestSeen>; 11] = common_flags();

const SECTIONS: &[Section<MdtestSeen>] = &[
    Section {
        title: "mdtest's options",
        note: "",
        flags: OWN,
    },
    common_section(&COMMON),
];

pub(super) const GRAMMAR: Grammar<MdtestSeen> = Grammar {
    name: "mdtest",
    summary: "mdtest's metadata phases, and IO500's easy and hard shapes",
    about: "\
Runs mdtest's phases on a tree of depth -z and branching -b: tree creation;
directory creation, stat, rename and removal; file creation (with -w bytes
written, -y fsync), stat, read (-e bytes) and removal; tree removal. Each
phase is timed barrier to barrier; under mpirun every rank takes it together,
and its rate is the items of all ranks over the slowest rank's time. The
SUMMARY tables give each phase's max, min, mean and standard deviation over
the iterations (-i), in mdtest's layout.

Every operation is also timed alone (a clock read before and after its
system call), so each phase has a latency histogram (--latency prints it).
The tree is ioz's own: made in a new directory under -d, removed at the end,
also when the run fails or is stopped (Ctrl-C).",
    operands: &[],
    operand: |_, word| {
        Err(usage(format!(
            "mdtest: unexpected argument '{}' (options only: ioz mdtest -h)",
            word.to_string_lossy()
        )))
    },
    sections: SECTIONS,
    subcommands: &[],
    tail: "\
-a -B -c -f -k -l -p -R -s -S -U -V -x -X -Y: mdtest's other options, each
refused with one line (ioz does not do them).

Exit status: 0 done, 1 an operation failed (the tree is removed), 2 bad
command line, 128+N stopped by signal N.",
};

/// The run `ioz mdtest …` asks for.
pub(super) fn finish(
    seen: MdtestSeen,
    command_line: Vec<String>,
    host: &Host,
) -> Result<Command, UsageError> {
    let shaped = |easy: bool, hard: bool| match seen.shape {
        Some(Shape::Easy) => easy,
        Some(Shape::Hard) => hard,
        None => false,
    };
    let shape_bytes = if shaped(false, true) {
        HARD_FILE_BYTES
    } else {
        0
    };
    let shape_stride = if seen.shape.is_some() { 1 } else { 0 };
    if seen.directories_only && seen.shape.is_some() {
        return Err(usage(
            "mdtest: --shape measures files; -D (directories only) cannot be combined with it",
        ));
    }
    let files_only = seen.files_only || seen.shape.is_some();
    let mdtest = MdtestConfig {
        items: seen.items.unwrap_or(0),
        depth: seen.depth.unwrap_or(0),
        branch: seen.branch.unwrap_or(1),
        items_per_dir: seen.items_per_dir,
        leaf_only: seen.leaf_only || shaped(true, false),
        unique_dir: seen.unique_dir || shaped(true, false),
        stride: seen.stride.unwrap_or(shape_stride),
        stonewall_seconds: seen.stonewall.unwrap_or(0),
        directories: !files_only,
        files: !seen.directories_only,
        phases: seen.phases.unwrap_or(PhaseSelection::ALL),
        write_bytes: seen.write_bytes.unwrap_or(shape_bytes),
        read_bytes: seen.read_bytes.unwrap_or(shape_bytes),
        sync: seen.sync,
        print_time: seen.print_time,
        time_only: seen.time_only,
        dir: seen.dir.clone().unwrap_or_else(|| PathBuf::from(".")),
        shape: seen.shape,
    };
    check(&seen, &mdtest)?;
    let mut common = seen.common;
    let runs = match (seen.iterations, common_runs(&mut common)) {
        (Some(i), Some(r)) if i != r => {
            return Err(usage(format!(
                "mdtest: -i {i} and --runs {r} both set the iterations: give one"
            )));
        }
        (i, r) => i.or(r),
    };
    let config = run_config(
        common,
        MetadataConfig::Mdtest(mdtest),
        runs,
        command_line,
        host,
    )?;
    Ok(Command::Run(Box::new(config)))
}

/// `--runs`, taken out of the shared options (mdtest calls them iterations).
fn common_runs(common: &mut CommonSeen) -> Option<u32> {
    common.take_runs()
}

/// What the options ask for together: items to work on, a tree of a size
/// a machine holds.
fn check(seen: &MdtestSeen, m: &MdtestConfig) -> Result<(), UsageError> {
    if seen.items.is_some() && seen.items_per_dir.is_some() {
        return Err(usage(
            "mdtest: -n and -I cannot be combined: -n gives each rank's items, -I each \
             directory's",
        ));
    }
    if seen.items.is_none() && seen.items_per_dir.is_none() {
        return Err(usage(
            "mdtest needs the items to work on: ioz mdtest -n N (or -I K; ioz mdtest -h \
             for help)",
        ));
    }
    let tree = MdtestTree::of(m);
    let dirs = tree.dirs().filter(|&d| d <= MAX_TREE_DIRS).ok_or_else(|| {
        usage(format!(
            "mdtest: -z {} -b {} makes more than {MAX_TREE_DIRS} directories",
            m.depth, m.branch
        ))
    })?;
    let holders = tree.item_dirs().unwrap_or(dirs);
    if seen.items_per_dir.is_none() && m.items < holders {
        return Err(usage(format!(
            "mdtest: -n {} spread over {holders} directories leaves none in each: give \
             -n {holders} or more (or -I)",
            m.items
        )));
    }
    if tree.items_per_rank(m) > MAX_ITEMS {
        return Err(usage(format!(
            "mdtest: -I {} in {holders} directories is more than {MAX_ITEMS} items per rank",
            m.items_per_dir.unwrap_or(0)
        )));
    }
    if m.print_time && m.time_only {
        return Err(usage("-P and -Z cannot be combined: -P prints both tables"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {

    use super::*;

    use crate::model::config::RunConfig;

    fn parsed(args: &[&str]) -> Result<Command, UsageError> {
        crate::cli::parse_command("mdtest", args)
    }

    fn config(args: &[&str]) -> (RunConfig, MdtestConfig) {
        match parsed(args) {
            Ok(Command::Run(c)) => match c.metadata.clone() {
                Some(MetadataConfig::Mdtest(m)) => (*c, m),
                other => panic!("{args:?}: {other:?}"),
            },
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn mdtest_s_options_make_its_run() {
        let (run, m) = config(&[
            "-n", "100", "-z", "2", "-b", "3", "-u", "-N", "1", "-i", "3", "-d", "/tmp", "-P",
        ]);
        assert_eq!((m.items, m.depth, m.branch, m.stride), (100, 2, 3, 1));
        assert!(m.unique_dir && m.print_time && m.directories && m.files);
        assert_eq!(m.phases, PhaseSelection::ALL);
        assert_eq!(run.runs, 3);
        assert_eq!(run.path, PathBuf::from("/tmp/ioz-mdtest"));
        let (_, only) = config(&["-n", "10", "-C", "-r", "-F"]);
        assert!(only.phases.create && only.phases.remove && !only.phases.stat);
        assert!(only.files && !only.directories);
        assert_eq!(config(&["-n", "10", "--runs", "2"]).0.runs, 2);
        assert_eq!(
            config(&["-I", "4", "-z", "1", "-b", "2"]).1.items_per_dir,
            Some(4)
        );
    }

    #[test]
    fn the_shapes_are_io500_s() {
        let (_, easy) = config(&["-n", "10", "--shape", "easy"]);
        assert!(easy.unique_dir && easy.leaf_only && !easy.directories);
        assert_eq!((easy.stride, easy.write_bytes), (1, 0));
        let (_, hard) = config(&["-n", "10", "--shape", "hard"]);
        assert!(!hard.unique_dir && !hard.directories);
        assert_eq!(
            (hard.write_bytes, hard.read_bytes, hard.stride),
            (3901, 3901, 1)
        );
        let (_, changed) = config(&["-n", "10", "--shape", "hard", "-N", "0", "-w", "10"]);
        assert_eq!((changed.stride, changed.write_bytes), (0, 10));
    }

    #[test]
    fn bad_command_lines_are_refused_with_one_line() {
        let err = |args: &[&str]| parsed(args).unwrap_err().0;
        assert!(err(&[]).starts_with("mdtest needs the items"));
        assert!(err(&["-n", "5", "-I", "2"]).contains("cannot be combined"));
        assert_eq!(
            err(&["-n", "5", "-D", "-F"]),
            "-D and -F cannot be combined: choose one"
        );
        assert!(err(&["-n", "5", "-z", "2", "-b", "3"]).contains("leaves none in each"));
        assert!(err(&["-n", "5", "-z", "30", "-b", "10"]).contains("more than"));
        assert!(err(&["-n", "5", "-i", "2", "--runs", "3"]).contains("give one"));
        assert!(err(&["-n", "5", "-R"]).contains("is not supported"));
        assert!(err(&["-n", "5", "x"]).contains("unexpected argument 'x'"));
        assert!(err(&["-n", "5", "-D", "--shape", "easy"]).contains("-D"));
        assert!(err(&["-n", "5", "-P", "-Z"]).contains("cannot be combined"));
    }
}
