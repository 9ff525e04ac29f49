//! `ioz fileop`: IOzone's companion benchmark of metadata operations, with
//! fileop's options (`-f X`, `-l/-u/-i`, `-s`, `-e`, `-b`, `-w`, `-d`, `-t`,
//! `-U`, `-v`, `-h`) and its output layout, plus ioz's result files,
//! repetitions and latencies. fileop's letters live only in this table: they
//! mean other things in a run's.

use std::path::PathBuf;

use super::grammar::Spelling::Short;
use super::grammar::{Count, Flag, Grammar, Number, Operand, Section, Taken, Target};
use super::metadata_common::{CommonSeen, HasCommon, common_flags, common_section, run_config};
use super::number::parse_count;
use super::{Command, UsageError, shared, usage};
use crate::model::host::Host;
use crate::model::metadata::{FileopConfig, MAX_FORCE_FACTOR, MetadataConfig};
use crate::model::units::MIB;

/// What ioz fileop's flags set.
#[derive(Default)]
pub(super) struct FileopSeen {
    common: CommonSeen,
    factor: Option<u32>,
    low: Option<u32>,
    high: Option<u32>,
    step: Option<u32>,
    file_bytes: Option<u64>,
    excel: bool,
    best: bool,
    worst: bool,
    verbose: bool,
    dir: Option<PathBuf>,
    remount: Option<PathBuf>,
}

impl Target for FileopSeen {}

impl HasCommon for FileopSeen {
    fn common(&mut self) -> &mut CommonSeen {
        &mut self.common
    }
}

const FACTOR: Number = Number::count(1, MAX_FORCE_FACTOR, "force factor");

/// The largest `-s`: each file's bytes are written from one buffer.
const MAX_FILE_BYTES: u64 = 64 * MIB;

const OWN: &[Flag<FileopSeen>] = &[
    Flag::number(
        Short('f'),
        "X",
        FACTOR,
        "force factor: X directories, X subdirectories in each, X files in each of \
         those (X^3 files; X from {range})",
        |s, n| s.factor = Some(n as u32),
    ),
    Flag::number(
        Short('l'),
        "L",
        FACTOR,
        "lower limit of a sweep of force factors (with -u)",
        |s, n| s.low = Some(n as u32),
    ),
    Flag::number(
        Short('u'),
        "U",
        FACTOR,
        "upper limit of a sweep of force factors (with -l)",
        |s, n| s.high = Some(n as u32),
    ),
    Flag::number(
        Short('i'),
        "N",
        FACTOR,
        "step of the force factor in a -l/-u sweep (default 1)",
        |s, n| s.step = Some(n as u32),
    ),
    Flag::number(
        Short('s'),
        "SIZE",
        Number::Bytes {
            max: MAX_FILE_BYTES,
        },
        "bytes written to each file after it is created (default 1); a k or m \
         suffix for KiB or MiB (at most 64m)",
        |s, n| s.file_bytes = Some(n),
    ),
    Flag::switch(Short('e'), "Excel importable: no banner line", |s| {
        s.excel = true
    }),
    Flag::switch(
        Short('b'),
        "a row of each operation's best rate (1 / its fastest operation)",
        |s| s.best = true,
    ),
    Flag::switch(
        Short('w'),
        "a row of each operation's worst rate (1 / its slowest operation)",
        |s| s.worst = true,
    ),
    Flag::directory(
        Short('d'),
        "DIR",
        "the directory to work in (default .): ioz makes its tree in a new \
         directory there and removes it at the end",
        |s, dir| s.dir = Some(dir),
    ),
    Flag::switch(
        Short('t'),
        "verbose: per operation, its count, total time, average, best and worst",
        |s| s.verbose = true,
    ),
    Flag::directory(
        Short('U'),
        "DIR",
        "the mount point to unmount and mount again before each test, so that it \
         starts with cold caches (root)",
        |s, dir| s.remount = Some(dir),
    ),
    Flag::version(Short('v'), "ioz's version"),
    shared::help(),
    shared::help_long(),
];

const COMMON: [Flag<FileopSeen>; 11] = common_flags();

const SECTIONS: &[Section<FileopSeen>] = &[
    Section {
        title: "fileop's options",
        note: "",
        flags: OWN,
    },
    common_section(&COMMON),
];

const OPERANDS: &[Operand] = &[Operand {
    name: "X",
    help: "the force factor, as -f X",
    count: Count::Optional,
    path: false,
}];

pub(super) const GRAMMAR: Grammar<FileopSeen> = Grammar {
    name: "fileop",
    summary: "IOzone's fileop: metadata operations timed one by one",
    about: "\
Times fifteen metadata operations one by one (mkdir chdir rmdir create open
read write close stat access chmod readdir link unlink delete) on a tree of
directories and files, and prints fileop's table: ops/s per operation, the
average (A), with -b the best and with -w the worst. Each operation is timed
alone, a clock read before and after its system call, in nanoseconds.

The tree, for a force factor X: X directories dir_1..dir_X, in each X
subdirectories sdir_1..sdir_X, in each of those X files file_1..file_X (X^3
files; the directory test makes the third level of directories too:
X + X^2 + X^3 of them). For X = 2:

          dir_1                        dir_2
         /     \\                      /     \\
   sdir_1       sdir_2          sdir_1       sdir_2
   /     \\     /     \\          /     \\      /     \\
file_1 file_2 file_1 file_2   file_1 file_2 file_1 file_2

The tree is ioz's own: made in a new directory under -d, removed at the end,
also when the run fails or is stopped (Ctrl-C).",
    operands: OPERANDS,
    operand: |seen, word| {
        let text = word.to_string_lossy();
        if seen.factor.is_some() {
            return Err(usage(format!(
                "fileop: unexpected argument '{text}' (one force factor: -f X)"
            )));
        }
        match parse_count(&text) {
            Ok(n) if (1..=MAX_FORCE_FACTOR).contains(&n) => {
                seen.factor = Some(n as u32);
                Ok(Taken::Next)
            }
            _ => Err(usage(format!(
                "fileop: unexpected argument '{text}' (a force factor from 1 to \
                 {MAX_FORCE_FACTOR}, or an option)"
            ))),
        }
    },
    sections: SECTIONS,
    subcommands: &[],
    tail: "\
Exit status: 0 done, 1 an operation failed (the tree is removed), 2 bad
command line, 128+N stopped by signal N.",
};

/// The run `ioz fileop …` asks for.
pub(super) fn finish(
    seen: FileopSeen,
    command_line: Vec<String>,
    host: &Host,
) -> Result<Command, UsageError> {
    let factors = factors(&seen)?;
    let fileop = FileopConfig {
        factors,
        file_bytes: seen.file_bytes.unwrap_or(1),
        excel: seen.excel,
        best: seen.best,
        worst: seen.worst,
        verbose: seen.verbose,
        dir: seen.dir.unwrap_or_else(|| PathBuf::from(".")),
    };
    let mut config = run_config(
        seen.common,
        MetadataConfig::Fileop(fileop),
        None,
        command_line,
        host,
    )?;
    config.variations.remount = seen.remount;
    Ok(Command::Run(Box::new(config)))
}

/// The force factors: `-f X`, or `-l L -u U` stepped by `-i`.
fn factors(seen: &FileopSeen) -> Result<Vec<u32>, UsageError> {
    match (seen.factor, seen.low, seen.high) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(usage(
            "fileop: -f and -l/-u cannot be combined: one force factor, or a sweep",
        )),
        (Some(_), None, None) if seen.step.is_some() => Err(usage(
            "fileop: -i steps a sweep of force factors: give -l and -u with it",
        )),
        (Some(x), None, None) => Ok(vec![x]),
        (None, Some(low), Some(high)) if low > high => Err(usage(format!(
            "fileop: -l {low} is above -u {high}: the sweep runs from -l up to -u"
        ))),
        (None, Some(low), Some(high)) => {
            let step = seen.step.unwrap_or(1) as usize;
            Ok((low..=high).step_by(step).collect())
        }
        (None, Some(_), None) | (None, None, Some(_)) => Err(usage(
            "fileop: a sweep needs both -l and -u (or one force factor: -f X)",
        )),
        (None, None, None) => Err(usage(
            "fileop needs a force factor: ioz fileop -f X (or -l L -u U; ioz fileop -h \
             for help)",
        )),
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    use crate::model::config::RunConfig;

    fn parsed(args: &[&str]) -> Result<Command, UsageError> {
        crate::cli::parse_command("fileop", args)
    }

    fn config(args: &[&str]) -> (RunConfig, FileopConfig) {
        match parsed(args) {
            Ok(Command::Run(c)) => match c.metadata.clone() {
                Some(MetadataConfig::Fileop(f)) => (*c, f),
                other => panic!("{args:?}: {other:?}"),
            },
            other => panic!("{args:?}: {other:?}"),
        }
    }

    #[test]
    fn fileop_s_options_make_its_run() {
        let (run, f) = config(&["-f", "3", "-s", "4k", "-b", "-w", "-e", "-t", "-d", "/tmp"]);
        assert_eq!(f.factors, [3]);
        assert_eq!(f.file_bytes, 4096);
        assert!(f.best && f.worst && f.excel && f.verbose);
        assert_eq!(f.dir, PathBuf::from("/tmp"));
        assert!(run.tests.is_empty());
        assert_eq!(run.path, PathBuf::from("/tmp/ioz-fileop"));
        assert_eq!(
            run.command_line,
            [
                "ioz", "fileop", "-f", "3", "-s", "4k", "-b", "-w", "-e", "-t", "-d", "/tmp"
            ]
        );
        assert_eq!(config(&["2"]).1.factors, [2]);
        assert_eq!(config(&["-f2"]).1.file_bytes, 1);
        assert_eq!(config(&["-l", "2", "-u", "4"]).1.factors, [2, 3, 4]);
        assert_eq!(
            config(&["-l", "1", "-u", "6", "-i", "2"]).1.factors,
            [1, 3, 5]
        );
        assert_eq!(config(&["-f", "2", "--runs", "3"]).0.runs, 3);
    }

    #[test]
    fn ioz_s_own_options_come_along() {
        let (run, _) = config(&[
            "-f",
            "2",
            "--json",
            "r.json",
            "--latency",
            "--label",
            "ext4",
            "--no-history",
        ]);
        assert!(run.latency.histograms);
        assert_eq!(run.label.as_deref(), Some("ext4"));
        assert!(run.history.off);
        assert!(!run.outputs.is_empty());
    }

    #[test]
    fn bad_command_lines_are_refused_with_one_line() {
        let err = |args: &[&str]| parsed(args).unwrap_err().0;
        assert!(err(&[]).starts_with("fileop needs a force factor"));
        assert!(err(&["-f", "2", "-l", "1"]).contains("cannot be combined"));
        assert!(err(&["-l", "3", "-u", "2"]).contains("is above -u"));
        assert!(err(&["-l", "3"]).contains("needs both"));
        assert!(err(&["-f", "2", "-i", "2"]).contains("-i steps a sweep"));
        assert_eq!(
            err(&["-f", "0"]),
            "-f 0: out of range; give 1 to 100 (force factor)"
        );
        assert!(err(&["-f", "2", "-s", "1g"]).starts_with("-s: '1g' is not a size"));
        assert!(err(&["-f", "2", "-x"]).starts_with("fileop: unknown option -x"));
        assert!(err(&["-f", "2", "3"]).contains("unexpected argument '3'"));
        assert!(err(&["bogus"]).contains("unexpected argument 'bogus'"));
    }

    #[test]
    fn help_and_version() {
        let Ok(Command::Print(p)) = parsed(&["-h"]) else {
            panic!()
        };
        assert!(p.text.starts_with("Usage: ioz fileop"), "{}", p.text);
        assert!(p.text.contains("file_1 file_2"));
        assert!(matches!(parsed(&["-v"]), Ok(Command::Version)));
    }
}
