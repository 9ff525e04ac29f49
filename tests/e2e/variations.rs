//! Cache and timing controls: --drop-caches, -J, -+q, -+N.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::fixtures::{IOZ, Test, assert_refused, data_rows, ioz, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        drop_caches_runs_before_reads_and_only_root_may_drop_everything,
        drop_caches_evicts_the_file_pages,
        compute_delay_is_left_out_of_the_rates,
        a_stop_cuts_a_long_compute_delay_short,
        a_delay_between_tests_sleeps_after_every_pass,
        no_truncate_keeps_a_longer_file_long,
        cpu_utilisation_adds_iozone_cpu_blocks,
        cache_size_options_show_in_the_header_and_purge_runs_untimed,
        an_existing_file_is_only_read_with_plus_e,
        sequential_mix_and_mmap_file_io_mixing_run,
        offset_latency_files_record_every_operation,
    ]
}

/// The page cache is the machine's: --drop-caches=all (root) empties it for
/// every test, so the tests that drop it all or look into it take turns.
static PAGE_CACHE: Mutex<()> = Mutex::new(());

fn page_cache_turn() -> MutexGuard<'static, ()> {
    PAGE_CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

fn drop_caches_runs_before_reads_and_only_root_may_drop_everything() {
    let _turn = page_cache_turn();
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s",
            "1m",
            "-r",
            "64k",
            "-i",
            "0",
            "-i",
            "1",
            "--drop-caches",
            "-f",
            "t.tmp",
        ],
    );
    run.expect_code(0);
    assert!(
        !run.stderr.contains("fits in RAM"),
        "dropping caches: no page-cache warning"
    );
    let rows = data_rows(&run.stdout);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].len(), 6, "write, rewrite, read, reread");
    assert_eq!(list_dir(dir.path()), Vec::<String>::new());
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        ioz(
            dir.path(),
            &[
                "-s",
                "256k",
                "-i",
                "0",
                "-i",
                "1",
                "--drop-caches=all",
                "-f",
                "t.tmp",
            ],
        )
        .expect_code(0);
    } else {
        let refused = ioz(dir.path(), &["-s", "256k", "--drop-caches=all"]);
        refused.expect_code(2);
        assert!(refused.stderr.contains("needs root"));
    }
}

fn drop_caches_evicts_the_file_pages() {
    // After a write pass the file is cached; the untimed eviction before the
    // read pass must leave (almost) none of its pages resident. Checked with
    // mincore on a kept file after a run whose last pass is a read of it with
    // --drop-caches… the read itself re-caches, so look right after a run that
    // only evicts: `-i 0 -w` (writes, cached) then `-i 1 --drop-caches -+n`
    // reads once — the reread would re-cache, so the run reads once and the
    // test checks the page cache directly before and after eviction instead.
    let _turn = page_cache_turn();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    ioz(
        dir.path(),
        &[
            "-s", "8m", "-r", "1m", "-i", "0", "-w", "--quiet", "-f", "t.tmp",
        ],
    )
    .expect_code(0);
    let before = resident_fraction(&path);
    assert!(
        before > 0.5,
        "the freshly written file should be cached ({before})"
    );
    // SAFETY: plain syscalls on a file we opened.
    unsafe {
        let f = std::fs::File::open(&path).unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&f);
        assert_eq!(libc::fsync(fd), 0);
        assert_eq!(libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED), 0);
    }
    let after = resident_fraction(&path);
    assert!(
        after < 0.1,
        "fadvise(DONTNEED) left {after} resident: page-cache eviction does not work here"
    );
}

/// The fraction of the file's pages in the page cache (mincore).
fn resident_fraction(path: &std::path::Path) -> f64 {
    let f = std::fs::File::open(path).unwrap();
    let len = f.metadata().unwrap().len() as usize;
    let page = 4096;
    let pages = len.div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: a read-only shared mapping of the whole file, unmapped below.
    unsafe {
        let map = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            std::os::fd::AsRawFd::as_raw_fd(&f),
            0,
        );
        assert_ne!(map, libc::MAP_FAILED);
        assert_eq!(libc::mincore(map, len, vec.as_mut_ptr()), 0);
        libc::munmap(map, len);
    }
    vec.iter().filter(|&&b| b & 1 == 1).count() as f64 / pages as f64
}

fn compute_delay_is_left_out_of_the_rates() {
    let dir = tempfile::tempdir().unwrap();
    // 4 records, 25 ms of busy-waiting before each: 100 ms per pass that must
    // not count. 64 kB in 100 ms would be 640 kB/s.
    let started = Instant::now();
    let run = ioz(
        dir.path(),
        &[
            "-s", "64k", "-r", "16k", "-i", "0", "-J", "25", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    assert!(
        started.elapsed() >= Duration::from_millis(200),
        "the delay was not spent"
    );
    let rows = data_rows(&run.stdout);
    let (write, rewrite) = (rows[0][2], rows[0][3]);
    assert!(
        write > 6400 && rewrite > 6400,
        "busy time counted: {write} {rewrite} kB/s"
    );
}

fn a_stop_cuts_a_long_compute_delay_short() {
    // -J 60000: a minute of busy work before every record. Ctrl-C must not
    // wait for it to end.
    let dir = tempfile::tempdir().unwrap();
    let child = std::process::Command::new(IOZ)
        .args(["-s", "64k", "-i", "0", "-J", "60000", "-f", "t.tmp"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    // SAFETY: kill(2) on the child we started and still wait for.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    assert!(
        sent.elapsed() < Duration::from_secs(10),
        "the stop waited {:?} for the delay",
        sent.elapsed()
    );
    assert!(
        list_dir(dir.path()).is_empty(),
        "{:?}",
        list_dir(dir.path())
    );
}

fn a_delay_between_tests_sleeps_after_every_pass() {
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "-+q", "1", "-f", "t.tmp"],
    )
    .expect_code(0);
    assert!(
        started.elapsed() >= Duration::from_secs(2),
        "two passes, a second after each"
    );
}

fn no_truncate_keeps_a_longer_file_long() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let len = || std::fs::metadata(&path).unwrap().len();
    ioz(
        dir.path(),
        &["-s", "256k", "-i", "0", "-w", "--quiet", "-f", "t.tmp"],
    )
    .expect_code(0);
    ioz(
        dir.path(),
        &[
            "-s", "64k", "-i", "0", "-w", "--quiet", "-+N", "-f", "t.tmp",
        ],
    )
    .expect_code(0);
    assert_eq!(len(), 256 << 10, "-+N must not truncate");
    ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "-w", "--quiet", "-f", "t.tmp"],
    )
    .expect_code(0);
    assert_eq!(len(), 64 << 10, "without -+N the write test truncates");
}

fn cpu_utilisation_adds_iozone_cpu_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s", "2m", "-r", "64k", "-i", "0", "-i", "1", "-+u", "-R", "--quiet", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    let out = &run.stdout;
    assert!(
        out.contains("\tCPU utilization Resolution = ")
            && out.contains("\tCPU utilization Excel chart enabled\n")
    );
    for title in ["Writer", "Re-writer", "Reader", "Re-Reader"] {
        let head = format!(
            "\n\"{title} CPU utilization report (Zero values should be ignored)\"\n        \"64\"\n\"2048\"  "
        );
        let at = out
            .find(&head)
            .unwrap_or_else(|| panic!("no {title} CPU block in:\n{out}"));
        let value: f64 = out[at + head.len()..]
            .lines()
            .next()
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        assert!((0.0..=400.0).contains(&value), "{title}: {value}");
    }
    // The table itself is unchanged: one row, six numbers.
    assert_eq!(data_rows(out)[0].len(), 6);

    let run = ioz(
        dir.path(),
        &[
            "-t", "2", "-T", "-s", "1m", "-r", "64k", "-i", "0", "-+u", "-R", "-x", "-C", "--quiet",
        ],
    );
    run.expect_code(0);
    let out = &run.stdout;
    assert!(out.contains("\tCPU Utilization: Wall time "), "{out}");
    assert!(
        out.contains("\tCPU utilization: Wall time "),
        "rewriters' line"
    );
    assert!(out.contains(", wall=") && out.contains(", cpu=") && out.contains(", %="));
    assert!(out.contains("\n\"CPU utilization report Y-axis is type of test X-axis is number of processes\"\n\"Record size = 64 Kbytes \"\n\"Output is in CPU%\"\n\n\"  Initial write \""));
}

fn cache_size_options_show_in_the_header_and_purge_runs_untimed() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s", "256k", "-i", "0", "-i", "1", "-p", "-S", "2048", "-L", "64", "--quiet", "-f",
            "t.tmp",
        ],
    );
    run.expect_code(0);
    for line in [
        "\tPurge Mode On\n",
        "\tProcessor cache size set to 2048 Kbytes.\n",
        "\tProcessor cache line size set to 64 bytes.\n",
    ] {
        assert!(run.stdout.contains(line), "{line:?} missing");
    }
    assert_eq!(data_rows(&run.stdout)[0].len(), 6);
    let plain = ioz(
        dir.path(),
        &["-s", "64k", "-i", "0", "--quiet", "-f", "t.tmp"],
    );
    assert!(plain.stdout.contains(
        "\tProcessor cache size set to 1024 Kbytes.\n\tProcessor cache line size set to 32 bytes.\n"
    ));
    let bad = ioz(dir.path(), &["-S", "0"]);
    bad.expect_code(2);
    assert!(bad.stderr.contains("-S 0: out of range"));
}

fn an_existing_file_is_only_read_with_plus_e() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine.dat");
    let content: Vec<u8> = (0..256 * 1024).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(&mine, &content).unwrap();
    let mtime = std::fs::metadata(&mine).unwrap().modified().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s", "256k", "-r", "16k", "-+E", "-i", "1", "-i", "2", "-i", "3", "-i", "5",
            "--quiet", "-f", "mine.dat",
        ],
    );
    run.expect_code(0);
    let row = &data_rows(&run.stdout)[0];
    // read, reread, random read, backward, stride: five numbers after KB and reclen.
    assert_eq!(row.len(), 7, "{row:?}");
    assert_eq!(
        std::fs::read(&mine).unwrap(),
        content,
        "-+E wrote to the file"
    );
    assert_eq!(std::fs::metadata(&mine).unwrap().modified().unwrap(), mtime);
    assert_eq!(list_dir(dir.path()), vec!["mine.dat"]);

    for (args, want) in [
        (
            &["-+E", "-i", "0", "-f", "mine.dat"][..],
            "a test that writes",
        ),
        (&["-+E", "-i", "1"][..], "name it with -f"),
        (&["-+E", "-f", "mine.dat"][..], "needs the read tests"),
        (&["-+E", "-i", "1", "-f", "absent.dat"][..], "cannot use"),
    ] {
        let r = ioz(dir.path(), args);
        r.expect_code(2);
        assert!(r.stderr.contains(want), "{args:?}: {}", r.stderr);
    }
    let short = ioz(
        dir.path(),
        &["-s", "1m", "-+E", "-i", "1", "--quiet", "-f", "mine.dat"],
    );
    // Refused before the run, not found at the first pass.
    assert_refused(
        &short,
        "mine.dat holds 262144 bytes but the test reads 1048576",
    );
    assert_eq!(std::fs::read(&mine).unwrap(), content);
}

fn sequential_mix_and_mmap_file_io_mixing_run() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s", "256k", "-r", "16k", "-i", "8", "-+B", "-+p", "30", "--quiet", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("\t>>> Sequential Mixed workload. <<<\n")
    );
    let row = &data_rows(&run.stdout)[0];
    assert_eq!(row.len(), 3, "the random mix column: {row:?}");
    assert!(row[2] > 0);

    // -Z writes a page with write() before each write pass; the pass then
    // overwrites it, so the file ends as a run without -Z leaves it.
    let args = [
        "-s", "256k", "-r", "16k", "-i", "0", "-i", "1", "-B", "-w", "--quiet", "-f",
    ];
    let mut with_z = args.to_vec();
    with_z.extend(["z.tmp", "-Z"]);
    let z = ioz(dir.path(), &with_z);
    z.expect_code(0);
    assert!(z.stdout.contains("\tEnable mmap & file I/O mixing.\n"));
    let mut plain = args.to_vec();
    plain.push("p.tmp");
    ioz(dir.path(), &plain).expect_code(0);
    assert_eq!(
        std::fs::read(dir.path().join("z.tmp")).unwrap(),
        std::fs::read(dir.path().join("p.tmp")).unwrap()
    );
}

fn offset_latency_files_record_every_operation() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s", "64k", "-r", "16k", "-i", "0", "-i", "1", "-Q", "--quiet", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    assert!(run.stdout.contains("\tOffset/latency files enabled.\n"));
    assert_eq!(
        list_dir(dir.path()),
        vec!["rol.dat", "rrol.dat", "rwol.dat", "wol.dat"]
    );
    for name in ["wol.dat", "rwol.dat", "rol.dat", "rrol.dat"] {
        let text = std::fs::read_to_string(dir.path().join(name)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "Offset in Kbytes   Latency in microseconds  Transfer size in bytes"
        );
        let ops: Vec<Vec<f64>> = lines[1..5]
            .iter()
            .map(|l| l.split_whitespace().map(|f| f.parse().unwrap()).collect())
            .collect();
        let offsets: Vec<f64> = ops.iter().map(|o| o[0]).collect();
        assert_eq!(offsets, vec![0.0, 16.0, 32.0, 48.0], "{name}");
        assert!(
            ops.iter().all(|o| o[1] >= 0.0 && o[2] == 16384.0),
            "{name}: {ops:?}"
        );
        assert_eq!(lines[5], "");
        assert!(
            lines[6].starts_with("System time ") && lines[6].ends_with("(seconds)"),
            "{name}"
        );
    }
    // Appended, as IOzone does: a second run adds a second section.
    ioz(
        dir.path(),
        &[
            "-s", "64k", "-r", "16k", "-i", "0", "-Q", "--quiet", "-f", "t.tmp",
        ],
    )
    .expect_code(0);
    let text = std::fs::read_to_string(dir.path().join("wol.dat")).unwrap();
    assert_eq!(text.matches("Offset in Kbytes").count(), 2);
    // -Q with io_uring and AIO: throughput_variations.rs.
}
