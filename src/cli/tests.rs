use std::ffi::OsString;
use std::path::PathBuf;

use super::*;
use crate::model::config::*;
use crate::model::formats::Format;
use crate::model::host::Host;
use crate::model::workload::TestId;
use crate::model::workload::TestId::*;

fn run(args: &[&str]) -> Result<RunConfig, UsageError> {
    let mut argv: Vec<OsString> = vec!["ioz".into()];
    argv.extend(args.iter().map(OsString::from));
    match parse(argv, &Host::example())? {
        Command::Run(c) => Ok(*c),
        other => panic!("expected a run, got {other:?}"),
    }
}

fn err(args: &[&str]) -> String {
    run(args).expect_err("accepted").0
}

#[test]
fn clustered_flags_set_every_letter() {
    let c = run(&["-Raz"]).unwrap();
    assert!(c.excel_report);
    let Sizes::Auto(a) = &c.sizes else { panic!() };
    assert!(!a.crossover);
    let c = run(&["-azcR", "-n", "64k", "-g", "256k"]).unwrap();
    assert!(c.close_in_timing && c.excel_report);
}

#[test]
fn values_attached_or_separate() {
    for args in [&["-s64m"][..], &["-s", "64m"]] {
        let c = run(args).unwrap();
        assert_eq!(
            c.sizes,
            Sizes::Single {
                file_bytes: 64 << 20,
                record_bytes: 4096
            }
        );
    }
    let c = run(&["-s", "1m", "-r64k"]).unwrap();
    assert_eq!(
        c.sizes,
        Sizes::Single {
            file_bytes: 1 << 20,
            record_bytes: 64 << 10
        }
    );
}

#[test]
fn repeated_sizes_force_auto_mode_over_exactly_those_values() {
    let c = run(&["-s", "64", "-s", "128", "-s", "256"]).unwrap();
    let Sizes::Auto(a) = &c.sizes else { panic!() };
    assert_eq!(
        a.file_sizes,
        SizeAxis::List(vec![64 << 10, 128 << 10, 256 << 10])
    );
    assert!(!a.crossover);
    let c = run(&["-s", "64m", "-r", "4k", "-r", "64k"]).unwrap();
    let Sizes::Auto(a) = &c.sizes else { panic!() };
    assert_eq!(a.record_sizes, SizeAxis::List(vec![4 << 10, 64 << 10]));
    assert_eq!(a.file_sizes, SizeAxis::List(vec![64 << 20]));
}

#[test]
fn auto_range_options() {
    let c = run(&[
        "-a", "-n", "64k", "-g", "4m", "-y", "8k", "-q", "256k", "-+x", "4",
    ])
    .unwrap();
    let Sizes::Auto(a) = &c.sizes else { panic!() };
    assert_eq!(
        a.file_sizes,
        SizeAxis::Range {
            min: 64 << 10,
            max: 4 << 20,
            multiplier: 4
        }
    );
    assert_eq!(
        a.record_sizes,
        SizeAxis::Range {
            min: 8 << 10,
            max: 256 << 10,
            multiplier: 4
        }
    );
    assert!(!a.crossover, "-y/-q turn the crossover off");
    let Sizes::Auto(a) = run(&["-a"]).unwrap().sizes else {
        panic!()
    };
    assert!(a.crossover);
}

#[test]
fn tests_default_select_and_extend() {
    assert_eq!(run(&["-a"]).unwrap().tests, TestId::ALL[..8].to_vec());
    assert_eq!(
        run(&["-i", "2", "-i", "0", "-i", "2"]).unwrap().tests,
        vec![Write, Random]
    );
    let c = run(&["-E"]).unwrap();
    assert!(c.tests.contains(&Pwrite) && c.tests.contains(&Pread) && c.extended);
    assert_eq!(run(&["-i", "12"]).unwrap().tests, vec![Preadv]);
    assert_eq!(run(&["-A"]).unwrap().tests, vec![Write, Read]);
}

#[test]
fn plus_options_take_the_next_word() {
    let c = run(&["-+p", "30", "-+n", "-+D", "-+r"]).unwrap();
    assert_eq!(c.mix_read_percent, 30);
    assert!(c.no_retest && c.open.dsync_writes && c.open.sync_all);
    assert!(err(&["-+x4", "-a"]).contains("one letter"));
    assert!(err(&["-+p"]).contains("-+p needs a value"));
}

#[test]
fn io_flags_and_units() {
    let c = run(&["-e", "-c", "-o", "-I", "-W", "-N", "-w", "-f", "/tmp/x"]).unwrap();
    assert!(c.fsync_in_timing && c.close_in_timing && c.open.sync_writes && c.open.direct);
    assert!(c.lock_file && c.keep_file);
    assert_eq!(c.unit, OutputUnit::MicrosPerOp);
    assert_eq!(c.path, PathBuf::from("/tmp/x"));
    assert_eq!(run(&["-O"]).unwrap().unit, OutputUnit::OpsPerSec);
    assert_eq!(
        run(&["--data", "iozone"]).unwrap().data,
        DataPattern::Iozone
    );
    assert!(run(&["--force"]).unwrap().force);
}

#[test]
fn option_lines_keep_command_line_order() {
    let c = run(&["-R", "-a", "-n", "64k"]).unwrap();
    assert_eq!(
        c.option_lines,
        vec![
            "Excel chart generation enabled",
            "Auto Mode",
            "Using minimum file size of 64 kilobytes."
        ]
    );
}

#[test]
fn bad_values_name_the_option() {
    let cases: &[(&[&str], &str)] = &[
        (&["-s", "0"], "-s: '0' is zero"),
        (&["-s", "12q"], "-s: '12q' is not a size"),
        (&["-s", "-5"], "-s: '-5' is not a size"),
        (
            &["-s", "99999999999999999999"],
            "-s: '99999999999999999999' is too large",
        ),
        (
            &["-i", "13"],
            "-i 13: out of range; give 0 to 12 (test numbers)",
        ),
        (&["-i", "-1"], "-i: '-1' is not a whole"),
        (
            &["-r", "8m", "-s", "4m"],
            "-r: record size 8192 kB is larger than the file size 4096 kB",
        ),
        (
            &["-r", "32m"],
            "-r 32m: out of range; give 1b to 16m (record size)",
        ),
        (
            &["-a", "-n", "2m", "-g", "1m"],
            "-n: minimum file size 2048 kB is larger than the maximum 1024 kB",
        ),
        (
            &["-a", "-y", "64k", "-q", "8k"],
            "-y: minimum record size 64 kB",
        ),
        (&["-s"], "-s needs a value"),
        (&["-n", "64k"], "-n only applies to auto mode"),
        (&["-N", "-O"], "-N and -O cannot be combined"),
        (&["-9"], "unknown option -9"),
        (&["--bogus"], "unknown option --bogus"),
        (&["stray"], "unexpected argument 'stray'"),
        (
            &["-j", "0"],
            "-j 0: out of range; give 1 to 1125899906842624 (records per stride)",
        ),
        (
            &["-+p", "101"],
            "-+p 101: out of range; give 0 to 100 (percent)",
        ),
        (
            &["-+x", "1", "-a"],
            "-+x 1: out of range; give 2 to 1024 (size multiplier)",
        ),
        (&["-A", "-i", "2"], "-A runs only tests 0 and 1"),
        (
            &["--data", "zeros"],
            "--data: 'zeros' is not a data pattern",
        ),
        (
            &["-a", "-n", "8k", "-y", "16k"],
            "record size 16 kB is larger than the smallest file size 8 kB",
        ),
    ];
    for (args, want) in cases {
        let got = err(args);
        assert!(got.contains(want), "{args:?}: {got:?} lacks {want:?}");
    }
}

#[test]
fn telemetry_sets_the_file_size_the_tests_and_a_one_row_plan() {
    // The files are read before the run, not by the parser.
    let run = |args: &[&str]| {
        run(args).map(|mut c| {
            crate::safety::preflight::attach_telemetry(&mut c).unwrap();
            c
        })
    };
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.txt");
    std::fs::write(&w, "100 5000 7\n0 10\n").unwrap();
    let w = w.to_str().unwrap();
    let c = run(&["-X", w, "-r", "16k"]).unwrap();
    assert_eq!(
        c.sizes,
        Sizes::Single {
            file_bytes: 5100,
            record_bytes: 16 << 10
        }
    );
    assert_eq!(c.tests, [Write, Read], "tests 0 and 1 by default");
    let t = c.telemetry.as_ref().unwrap();
    assert_eq!((t.write.as_ref().unwrap().ops, t.read.as_ref()), (2, None));
    let plan = crate::model::plan::expand(&c);
    assert_eq!(plan.cells.len(), 1);
    assert_eq!(plan.cells[0].record_bytes, 0);
    assert_eq!(plan.record_axis, [0]);
    assert_eq!(run(&["-X", w, "-i", "1"]).unwrap().tests, [Read]);
    // The same file for both, and -r defaults to 4 KiB.
    let c = run(&["-X", w, "-Y", w, "-i", "0"]).unwrap();
    assert_eq!(
        c.sizes,
        Sizes::Single {
            file_bytes: 5100,
            record_bytes: 4 << 10
        }
    );
    assert!(err(&["-X", w, "-i", "8"]).starts_with("-i 8: a telemetry file"));
    // Throughput mode: every worker replays; tests 0 and 1 by default.
    let c = run(&["-Y", w, "-t", "2"]).unwrap();
    assert_eq!(c.tests, [TestId::Write, TestId::Read]);
    assert!(err(&["-Y", w, "-t", "2", "-+k"]).starts_with("-+k cannot be combined"));
    assert!(err(&["-Y", w, "-E"]).starts_with("-E cannot be combined"));
}

#[test]
fn telemetry_and_dedup_conflicts_are_refused() {
    assert!(
        err(&["-X", "t.txt", "-s", "64k"])
            .starts_with("-s cannot be combined with a telemetry file")
    );
    assert!(err(&["-Y", "t.txt", "-K"]).starts_with("-K cannot be combined"));
    assert!(err(&["-Y", "t.txt", "-a"]).starts_with("-a cannot be combined"));
    assert!(
        err(&["-I", "-r", "8b"]).starts_with("-r: a 8-byte record cannot be moved with O_DIRECT")
    );
    assert!(err(&["-I", "-a", "-y", "1000b"]).starts_with("-y: a 1000-byte record"));
    assert!(run(&["-I", "-r", "1k"]).is_ok());
    assert!(err(&["-Y", "t.txt", "-m"]).starts_with("-m cannot be combined"));
    assert!(err(&["-X", "t.txt", "-+w", "50"]).starts_with("-+w/-+y/-+C cannot be combined"));
    assert!(err(&["-+w", "50", "-+d"]).starts_with("dedup data (-+w/-+y/-+C) cannot be combined"));
    assert!(err(&["-+S", "7"]).starts_with("-+S and -+W shape dedup data"));
    assert!(err(&["-+w", "101"]).starts_with("-+w 101: out of range"));
    assert!(
        err(&["-U", "/mnt", "-t", "2"])
            .starts_with("-U (remount between tests) cannot be combined")
    );
}

#[test]
fn unsupported_iozone_options_are_refused_by_name() {
    assert_eq!(
        err(&["-+X"]),
        "-+X (short-circuit verification) is not supported yet"
    );
    assert!(err(&["-b", "x.txt"]).contains("needs a .xls, .wks or .xlsx extension"));
    assert!(err(&["-+Q"]).contains("unknown option -+Q"));
}

#[test]
fn no_arguments_is_an_error_and_help_is_not() {
    assert!(parse(vec!["ioz".into()], &Host::example()).is_err());
    assert!(matches!(
        parse(vec!["ioz".into(), "-h".into()], &Host::example()),
        Ok(Command::Help)
    ));
    assert!(matches!(
        parse(vec!["ioz".into(), "-v".into()], &Host::example()),
        Ok(Command::Version)
    ));
}

#[test]
fn output_files_and_the_report_subcommand() {
    let c = run(&[
        "-b", "out.xls", "--json", "r.json", "--csv", "r.csv", "--html", "r.html", "--plots", "p",
        "--quiet",
    ])
    .unwrap();
    assert!(c.excel_report, "-b implies -R");
    assert_eq!(
        c.outputs
            .of(Format::Spreadsheet)
            .cloned()
            .collect::<Vec<_>>(),
        [PathBuf::from("out.xls")]
    );
    assert_eq!(
        c.outputs.of(Format::Json).last(),
        Some(&PathBuf::from("r.json"))
    );
    assert_eq!(c.outputs.requested().count(), 5);
    assert!(c.quiet);
    let argv = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>();
    match parse(argv(&["ioz", "report", "r.json"]), &Host::example()).unwrap() {
        Command::Report(r) => {
            assert_eq!(r.input, PathBuf::from("r.json"));
            assert!(r.text, "text is the default output");
        }
        other => panic!("{other:?}"),
    }
    match parse(
        argv(&["ioz", "report", "r.json", "-b", "x.xlsx"]),
        &Host::example(),
    )
    .unwrap()
    {
        // -b implies -R, as in a run, and -R prints the text.
        Command::Report(r) => {
            assert!(r.text && r.excel_report && r.outputs.of(Format::Spreadsheet).count() == 1)
        }
        other => panic!("{other:?}"),
    }
    assert!(
        parse(argv(&["ioz", "report"]), &Host::example())
            .unwrap_err()
            .0
            .contains("needs a saved run")
    );
    assert!(
        parse(argv(&["ioz", "report", "a", "b"]), &Host::example())
            .unwrap_err()
            .0
            .contains("unexpected argument 'b'")
    );
}

#[test]
fn throughput_options() {
    let c = run(&[
        "-t", "2", "-t", "4", "-T", "-C", "-x", "-d", "50", "-+k", "-s", "1m", "-r", "8b", "-i",
        "0",
    ])
    .unwrap();
    let tp = c.throughput.expect("throughput mode");
    assert_eq!(tp.worker_counts, vec![2, 4]);
    assert!(tp.threads && tp.per_worker_lines && tp.constant_total && !tp.stonewall);
    assert_eq!(tp.start_delay_us, 50);
    assert_eq!(
        c.sizes,
        Sizes::Single {
            file_bytes: 1 << 20,
            record_bytes: 8
        }
    );
    let tp = run(&["-l", "2", "-u", "4"]).unwrap().throughput.unwrap();
    assert_eq!(tp.worker_counts, vec![2, 3, 4]);
    assert_eq!(
        run(&["-u", "3"]).unwrap().throughput.unwrap().worker_counts,
        vec![1, 2, 3]
    );
    let c = run(&["-t", "2", "-F", "a", "b", "-+L"]).unwrap();
    let tp = c.throughput.unwrap();
    assert!(tp.shared_file && c.record_locking);
    assert_eq!(
        tp.worker_path(std::path::Path::new("x"), 1),
        PathBuf::from("a"),
        "shared: worker 0's file"
    );
    let tp = run(&["-t", "3", "-f", "/m/f"]).unwrap().throughput.unwrap();
    assert_eq!(
        tp.worker_path(std::path::Path::new("/m/f"), 2),
        PathBuf::from("/m/f.2")
    );
    assert!(!run(&["-t", "2"]).unwrap().tests.contains(&RecordRewrite));
    assert!(run(&["-+l", "-s", "64k"]).unwrap().record_locking);
}

#[test]
fn io_variation_options() {
    use crate::model::engines::EngineChoice;
    use crate::model::variations::*;
    let v = run(&["-B", "-+A", "2"]).unwrap().variations;
    assert_eq!((v.engine, v.madvise), (Some(EngineChoice::Mmap), Some(2)));
    assert_eq!(run(&["-G"]).unwrap().variations.msync, MsyncMode::Sync);
    let v = run(&["-k", "8"]).unwrap().variations;
    assert_eq!(
        (v.engine, v.iodepth, v.aio_no_copy),
        (Some(EngineChoice::Aio), 8, true)
    );
    let v = run(&["--engine", "io_uring", "--iodepth", "32"])
        .unwrap()
        .variations;
    assert_eq!((v.engine, v.iodepth), (Some(EngineChoice::IoUring), 32));
    assert_eq!(
        run(&["--drop-caches"]).unwrap().variations.drop_caches,
        DropCaches::File
    );
    let v = run(&["-+q", "2", "-+N", "-J", "5", "-V", "165"])
        .unwrap()
        .variations;
    assert_eq!(v.delay_between_tests_s, 2);
    assert!(v.no_truncate);
    assert_eq!(v.compute_delay_ms, Some(5));
    assert_eq!(v.verify, Verify::Pattern(165));
    assert_eq!(run(&["-+d"]).unwrap().variations.verify, Verify::Diagnostic);
    assert!(err(&["-B", "-H", "4"]).contains("cannot be combined"));
    assert!(err(&["-H", "4", "-k", "4"]).contains("-H and -k cannot be combined"));
    assert!(err(&["--iodepth", "8"]).contains("--iodepth only applies"));
    assert!(err(&["-+A", "1"]).contains("needs mmap files"));
    assert!(err(&["--engine", "spdk"]).contains("is not an engine"));
    assert!(err(&["--engine", "sync", "-B"]).contains("contradicts"));
    assert!(err(&["-+A", "7", "-B"]).contains("give 0 to 4 (madvise mode"));
    assert!(err(&["-V", "256"]).contains("-V 256: out of range; give 0 to 255"));
    assert!(err(&["--drop-caches=some"]).contains("is not file or all"));
}

#[test]
fn mix_roles_follow_plus_k_unless_plus_p_is_given() {
    let c = run(&["-t", "3", "-i", "0", "-i", "8", "-+K", "1", "-+F"]).unwrap();
    let percents: Vec<u32> = (0..3).map(|w| c.mix_read_percent_of(w)).collect();
    assert_eq!(percents, [100, 0, 0]);
    let truncating: Vec<bool> = (0..3).map(|w| c.truncates_in_mix(w)).collect();
    assert_eq!(truncating, [false, true, true]);
    // -+K 0: every worker writes; more readers than workers: every worker reads.
    let c = run(&["-t", "2", "-i", "8", "-+K", "0"]).unwrap();
    assert_eq!([c.mix_read_percent_of(0), c.mix_read_percent_of(1)], [0, 0]);
    let c = run(&["-t", "2", "-+K", "5"]).unwrap();
    assert_eq!(
        [c.mix_read_percent_of(0), c.mix_read_percent_of(1)],
        [100, 100]
    );
    // Without -+K every worker mixes in -+p's proportion.
    let c = run(&["-t", "2", "-i", "8", "-+p", "30"]).unwrap();
    assert_eq!(
        [c.mix_read_percent_of(0), c.mix_read_percent_of(1)],
        [30, 30]
    );
    assert!(!c.truncates_in_mix(1));
    // -+p wins over -+K, and the header says so.
    let c = run(&["-t", "2", "-i", "8", "-+K", "1", "-+p", "30"]).unwrap();
    assert_eq!(c.variations.mix_readers, None);
    assert_eq!(c.mix_read_percent_of(0), 30);
    assert!(
        c.option_lines
            .iter()
            .any(|l| l.contains("-+K 1 is not used"))
    );
    assert!(err(&["-t", "2", "-i", "8", "-+K", "1", "-+p", "30", "-+F"]).contains("-+F"));
    assert!(err(&["-+K", "1", "-i", "8"]).contains("throughput mode"));
    assert!(err(&["-t", "2", "-i", "1", "-+K", "1"]).contains("add -i 8"));
    assert!(err(&["-t", "2", "-i", "8", "-+K", "1", "-+F", "-+L"]).contains("shared file"));
}

#[test]
fn dedup_shares_must_nest_inside_the_dedupable_share() {
    assert_eq!(
        err(&["-+w", "40", "-+y", "30", "-+C", "20"]),
        "-+y 30 and -+C 20 are parts of the dedupable share, but together they exceed -+w 40"
    );
    assert!(err(&["-+y", "60", "-+C", "50"]).contains("together exceed 100 percent"));
    assert!(err(&["-+w", "50", "--data", "iozone"]).starts_with("--data and dedup data"));
    assert!(
        err(&["-+w", "50", "-+E", "-i", "1", "-f", "/etc/hostname"])
            .starts_with("-+E never writes, so dedup data")
    );
    // The shares may fill -+w exactly; -+w defaults to -+y + -+C.
    let c = run(&[
        "-+w", "50", "-+y", "30", "-+C", "20", "-+S", "0", "-+W", "3",
    ])
    .unwrap();
    assert_eq!(c.variations.dedup.dedupable_percent(), 50);
    assert_eq!(c.variations.dedup.effective_seed(), 1);
    assert!(c.option_lines.contains(&"Dedup chid_skew 3 .".to_string()));
    let c = run(&["-+y", "30", "-+C", "20"]).unwrap();
    assert_eq!(c.variations.dedup.dedupable_percent(), 50);
    assert!(err(&["-+w", "50", "-m"]).starts_with("-m slides writes"));
}

#[test]
fn every_range_error_reads_the_same_way() {
    // Below the least, above the most, and past 64 bits, for every count in
    // the table, attached or separate.
    for flag in flags::all() {
        let grammar::Action::Number(grammar::Number::Count(b), _) = &flag.action else {
            continue;
        };
        let opt = flag.spelling.to_string();
        let mut words = vec!["99999999999999999999".to_string()];
        if b.min > 0 {
            words.push((b.min - 1).to_string());
        }
        if b.max < u64::MAX {
            words.push((b.max + 1).to_string());
        }
        for word in words {
            let want = format!("{opt} {word}: out of range; give {} ", b.min);
            let mut forms = vec![vec![opt.clone(), word.clone()]];
            match flag.spelling {
                flags::Spelling::Short(_) => forms.push(vec![format!("{opt}{word}")]),
                flags::Spelling::Long(_) => forms.push(vec![format!("{opt}={word}")]),
                flags::Spelling::Plus(_) => {}
            }
            for form in forms {
                let form: Vec<&str> = form.iter().map(String::as_str).collect();
                let got = err(&form);
                assert!(got.starts_with(&want), "{form:?}: {got}");
            }
        }
    }
    assert_eq!(
        err(&["-t", "0"]),
        "-t 0: out of range; give 1 to 1024 (workers)"
    );
    assert_eq!(
        err(&["-t99999999999999999999"]),
        "-t 99999999999999999999: out of range; give 1 to 1024 (workers)"
    );
    assert_eq!(
        err(&["-d", "99999999999999999999", "-t", "1"]),
        "-d 99999999999999999999: out of range; give 0 to 3600000000 (µs of delay)"
    );
    assert_eq!(
        err(&["-S", "0"]),
        "-S 0: out of range; give 1 to 4194304 (kB of CPU cache)"
    );
    assert_eq!(
        err(&["-t", "1", "-P", "4"]),
        "-P 4: out of range; give 0 to 3 (this machine's CPUs)"
    );
    assert_eq!(
        err(&["-q", "16385k", "-a"]),
        "-q 16385k: out of range; give 1b to 16m (record size)"
    );
    // Words that are not numbers keep their own refusal.
    assert_eq!(
        err(&["-t", "x"]),
        "-t: 'x' is not a whole non-negative number"
    );
}

#[test]
fn every_unsupported_iozone_option_is_refused_with_its_reason() {
    let mut refused = 0;
    for flag in flags::all() {
        if let grammar::Action::NotSupported(why) = flag.action {
            let opt = flag.spelling.to_string();
            assert_eq!(err(&[&opt]), format!("{opt} ({why}) is not supported yet"));
            refused += 1;
        }
    }
    assert!(refused >= 10);
}

#[test]
fn mode_only_flags_are_refused_outside_their_mode() {
    assert_eq!(
        err(&["-s", "1m", "-z"]),
        "-z only applies to auto mode (add -a)"
    );
    // Several misplaced flags: the first in the table's order is named.
    assert_eq!(
        err(&["-+x", "3", "-g", "4m", "-n", "64k"]),
        "-n only applies to auto mode (add -a)"
    );
    assert_eq!(
        err(&["-+V", "-C", "-T"]),
        "-T only applies to throughput mode (add -t N)"
    );
    // -+l (record locking) applies anywhere; -+V named with it is the culprit.
    assert_eq!(
        err(&["-+V", "-+l"]),
        "-+V only applies to throughput mode (add -t N)"
    );
    assert!(run(&["-+l"]).is_ok());
    assert!(run(&["-+V", "-+l", "-t", "2"]).is_ok());
}

#[test]
fn async_io_flags_exclude_each_other_in_either_order() {
    for args in [["-H", "4", "-k", "4"], ["-k", "4", "-H", "4"]] {
        assert_eq!(err(&args), "-H and -k cannot be combined: choose one");
    }
    assert_eq!(run(&["-H", "4", "-H", "8"]).unwrap().variations.iodepth, 8);
}

#[test]
fn every_count_in_the_table_has_an_upper_bound() {
    // A number with no bound is multiplied or slept on somewhere: every
    // count says how large it may be.
    for flag in flags::all() {
        if let grammar::Action::Number(grammar::Number::Count(b), _) = &flag.action {
            assert!(b.max < u64::MAX, "{} has no upper bound", flag.spelling);
        }
    }
}

#[test]
fn delays_and_pauses_stop_at_an_hour() {
    // -J was multiplied by 10^6 and wrapped to 0; -+q and -d slept forever.
    assert_eq!(
        err(&["-J", "18446744073709551615"]),
        "-J 18446744073709551615: out of range; give 0 to 3600000 (ms of computation)"
    );
    let c = run(&["-J", "3600000"]).unwrap();
    assert_eq!(c.variations.compute_delay_ms, Some(3_600_000));
    assert_eq!(
        err(&["-+q", "18446744073709551615"]),
        "-+q 18446744073709551615: out of range; give 0 to 3600 (seconds of delay)"
    );
    assert_eq!(
        run(&["-+q", "3600"])
            .unwrap()
            .variations
            .delay_between_tests_s,
        3600
    );
    assert_eq!(
        err(&["-t", "3", "-d", "9223372036854775808"]),
        "-d 9223372036854775808: out of range; give 0 to 3600000000 (µs of delay)"
    );
    // Worker i starts i × -d late: the last one too within the hour.
    assert_eq!(
        err(&["-t", "3", "-d", "3600000000"]),
        "-d 3600000000: worker 2 would start 7200 s late; with 3 workers give at most \
         1800000000 µs, so that the last one starts within an hour"
    );
    assert!(run(&["-t", "3", "-d", "1800000000"]).is_ok());
    assert!(run(&["-t", "1", "-d", "3600000000"]).is_ok());
    assert!(err(&["-l", "1", "-u", "5", "-d", "1000000000"]).contains("worker 4 would start"));
}

#[test]
fn sizes_and_counts_that_multiply_are_bounded() {
    // 1 PiB is the largest file: sizes × workers stay inside 64 bits.
    assert_eq!(
        err(&["-s", "1048577g"]),
        "-s 1048577g: out of range; give 1k to 1048576g (file size)"
    );
    assert!(run(&["-s", "1048576g"]).is_ok());
    assert!(err(&["-a", "-g", "2000000g"]).starts_with("-g 2000000g: out of range"));
    assert!(err(&["-a", "-n", "2000000g"]).starts_with("-n 2000000g: out of range"));
    // -p's buffer is twice -S: at most 4 GiB of cache.
    assert_eq!(
        err(&["-p", "-S", "1073741824"]),
        "-S 1073741824: out of range; give 1 to 4194304 (kB of CPU cache)"
    );
    assert_eq!(
        run(&["-p", "-S", "4194304"])
            .unwrap()
            .variations
            .cpu_cache_bytes,
        Some(4 << 30)
    );
    assert!(err(&["-t", "2", "-P", "8192"]).starts_with("-P 8192: out of range; give 0 to 8191"));
    assert!(err(&["-t", "2", "-i", "8", "-+K", "1025"]).starts_with("-+K 1025: out of range"));
    assert!(err(&["-a", "-+x", "1025"]).starts_with("-+x 1025: out of range; give 2 to 1024"));
}

#[test]
fn constant_total_leaves_every_worker_a_record() {
    // Refused here, before the header, rather than by the runner mid-run.
    assert_eq!(
        err(&["-t", "2", "-+k", "-s", "4k", "-r", "4k"]),
        "-+k: 4 kB shared by 2 workers leaves less than one 4 kB record each; \
         give a larger file (-s), smaller records (-r) or fewer workers"
    );
    // The most workers of a -l/-u range decide.
    assert!(err(&["-l", "1", "-u", "3", "-+k", "-s", "8k", "-r", "4k"]).contains("by 3 workers"));
    assert!(
        err(&["-t", "2", "-+k", "-s", "1k", "-r", "600b"])
            .contains("1 kB shared by 2 workers leaves less than one 600-byte record each")
    );
    assert!(run(&["-t", "2", "-+k", "-s", "8k", "-r", "4k"]).is_ok());
    assert!(
        run(&["-t", "2", "-s", "4k", "-r", "4k"]).is_ok(),
        "without -+k each has all"
    );
}

#[test]
fn size_lists_are_bounded() {
    let mut args: Vec<String> = Vec::new();
    for i in 1..=257 {
        args.extend(["-s".to_string(), format!("{}k", 64 + i)]);
    }
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    assert_eq!(
        err(&words),
        "-s given 257 times; give at most 256 file sizes (auto mode runs each file size with \
         each record size)"
    );
    assert!(run(&words[2..]).is_ok());
    let records: Vec<&str> = std::iter::repeat_n(["-r", "4k"], 257).flatten().collect();
    assert!(err(&records).starts_with("-r given 257 times"));
}
