//! Dedup data (-+w, -+y, -+C, -+S, -+W) end to end: the real binary writes
//! files (kept with -w), and their 4 KiB chunks are hashed and compared with
//! the model of src/dedup.rs: how many are distinct, which repeat where, which
//! two workers share, and that every writing test and engine sends the same
//! bytes at the same offsets.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::Write;
use std::path::Path;

use crate::fixtures::{Run, Test, ioz, list_dir, trials};
use ioz::data::dedup::{CHUNK_BYTES, DedupModel};
use ioz::model::variations::DedupOptions;

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        half_dedupable_file_has_half_unique_chunks_and_one_copy_of_each_shared_slot,
        shares_nest_and_small_records_share_whole_chunks,
        every_writing_test_and_engine_sends_the_image_at_its_offset,
        io_uring_sends_the_image_at_its_offset => [IoUring],
        two_workers_share_the_c_chunks_at_the_same_positions_and_nothing_else,
        read_only_throughput_phases_prepare_each_workers_own_image,
        seed_and_skew_change_the_content,
        unique_chunks_do_not_compress,
        a_run_whose_images_do_not_fit_in_memory_is_refused_up_front,
    ]
}

/// 1 MiB in 64 KiB records: 16 records of 16 chunks.
const SIZES: [&str; 4] = ["-s", "1m", "-r", "64k"];
const FILE: usize = 1 << 20;
const REC: u64 = 64 << 10;

fn chunks(data: &[u8]) -> Vec<&[u8]> {
    data.chunks(CHUNK_BYTES).collect()
}

/// How many times each distinct chunk occurs.
fn occurrences(data: &[u8]) -> HashMap<&[u8], usize> {
    let mut n = HashMap::new();
    for c in chunks(data) {
        *n.entry(c).or_default() += 1;
    }
    n
}

/// Runs ioz in `dir` and expects success.
fn ok(dir: &Path, args: &[&str]) -> Run {
    let run = ioz(dir, args);
    run.expect_code(0);
    run
}

/// The file ioz wrote, checked to be `len` bytes long.
fn read(path: &Path, len: usize) -> Vec<u8> {
    let data = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(data.len(), len, "{}", path.display());
    data
}

/// What the model says `worker`'s file holds.
fn model_image(opts: DedupOptions, len: usize, record: u64, worker: u32) -> Vec<u8> {
    let mut v = vec![0; len];
    DedupModel::new(&opts)
        .expect("dedup options")
        .fill_file(&mut v, record, worker);
    v
}

fn opts(w: Option<u32>, y: Option<u32>, c: Option<u32>) -> DedupOptions {
    DedupOptions {
        percent: w,
        interior_percent: y,
        within_percent: c,
        seed: None,
        worker_skew: None,
    }
}

fn half_dedupable_file_has_half_unique_chunks_and_one_copy_of_each_shared_slot() {
    let dir = tempfile::tempdir().unwrap();
    let run = ok(
        dir.path(),
        &[&SIZES[..], &["-i", "0", "-+w", "50", "-w", "-f", "t"]].concat(),
    );
    assert!(run.stdout.contains("Dedup activated 50 percent."));
    let data = read(&dir.path().join("t"), FILE);
    let n = occurrences(&data);
    // 256 chunks: 128 unique, and 8 within-file slots written in all 16 records.
    assert_eq!(n.values().filter(|&&k| k == 1).count(), 128);
    assert_eq!(n.values().filter(|&&k| k == 16).count(), 8);
    assert_eq!(n.len(), 136);
    // The shared chunks sit at the same 8 positions of every record.
    let per_record: Vec<HashSet<usize>> = data
        .chunks(REC as usize)
        .map(|r| {
            chunks(r)
                .iter()
                .enumerate()
                .filter(|(_, c)| n[*c] == 16)
                .map(|(i, _)| i)
                .collect()
        })
        .collect();
    assert!(per_record.iter().all(|s| s == &per_record[0]));
    assert_eq!(data, model_image(opts(Some(50), None, None), FILE, REC, 0));
}

fn shares_nest_and_small_records_share_whole_chunks() {
    let dir = tempfile::tempdir().unwrap();
    ok(
        dir.path(),
        &[
            &SIZES[..],
            &[
                "-i", "0", "-+w", "75", "-+y", "25", "-+C", "25", "-w", "-f", "t",
            ],
        ]
        .concat(),
    );
    let data = read(&dir.path().join("t"), FILE);
    // Per record: 4 unique + 4 C (unique within one file) + 4 Y + 4 within-file slots.
    let n = occurrences(&data);
    assert_eq!(n.values().filter(|&&k| k == 1).count(), 16 * 8);
    assert_eq!(n.values().filter(|&&k| k == 16).count(), 8);
    assert_eq!(n.len(), 16 * 8 + 8);

    // 1 KiB records: the dedup engine sees 4 KiB chunks, so -+w 50 still
    // makes half of them the same (one within-file chunk, as records have one slot).
    ok(
        dir.path(),
        &[
            "-s", "64k", "-r", "1k", "-i", "0", "-+w", "50", "-w", "-f", "small",
        ],
    );
    let small = read(&dir.path().join("small"), 64 << 10);
    let n = occurrences(&small);
    assert_eq!(n.values().filter(|&&k| k == 1).count(), 8);
    assert_eq!(n.values().filter(|&&k| k == 8).count(), 1);
    assert_eq!(n.len(), 9);
}

fn every_writing_test_and_engine_sends_the_image_at_its_offset() {
    writing_tests_send_the_image_at_its_offset(false);
}

fn io_uring_sends_the_image_at_its_offset() {
    writing_tests_send_the_image_at_its_offset(true);
}

/// Every writing test and engine (with `io_uring`: the io_uring case only)
/// writes the dedup model's image.
fn writing_tests_send_the_image_at_its_offset(io_uring: bool) {
    let dir = tempfile::tempdir().unwrap();
    let expected = model_image(opts(Some(60), Some(20), Some(20)), FILE, REC, 0);
    let dedup = ["-+w", "60", "-+y", "20", "-+C", "20", "-w"];
    let cases: [&[&str]; 10] = [
        &["-i", "0"],
        &["-i", "0", "-i", "2"],
        &["-i", "0", "-i", "4"],
        &["-i", "0", "-i", "6"],
        &["-i", "0", "-i", "8"],
        &["-i", "0", "-i", "9"],
        &["-i", "0", "-i", "11"],
        &["-i", "0", "-i", "2", "--engine", "mmap"],
        &["-i", "0", "-i", "2", "--engine", "aio", "--iodepth", "4"],
        &[
            "-i",
            "0",
            "-i",
            "2",
            "--engine",
            "io_uring",
            "--iodepth",
            "4",
        ],
    ];
    for (i, tests) in cases.iter().enumerate() {
        if tests.contains(&"io_uring") != io_uring {
            continue;
        }
        let name = format!("t{i}");
        let run = ioz(
            dir.path(),
            &[&SIZES[..], &dedup[..], tests, &["-f", &name]].concat(),
        );
        run.expect_code(0);
        let data = read(&dir.path().join(&name), FILE);
        assert!(
            data == expected,
            "{tests:?} wrote other bytes than the model"
        );
    }
    if io_uring {
        return;
    }
    // A read test alone prepares the file with the same image (-+E aside).
    ok(
        dir.path(),
        &[&SIZES[..], &dedup[..], &["-i", "1", "-f", "r"]].concat(),
    );
    assert!(read(&dir.path().join("r"), FILE) == expected);
}

fn two_workers_share_the_c_chunks_at_the_same_positions_and_nothing_else() {
    for mode in [&[][..], &["-T"][..]] {
        let dir = tempfile::tempdir().unwrap();
        let args = [
            mode,
            &SIZES[..],
            &[
                "-t", "2", "-F", "a", "b", "-w", "-i", "0", "-+C", "25", "-+w", "50",
            ],
        ]
        .concat();
        let run = ok(dir.path(), &args);
        assert!(run.stdout.contains("Dedupe within 25 percent."));
        let a = read(&dir.path().join("a"), FILE);
        let b = read(&dir.path().join("b"), FILE);
        let (ca, cb) = (chunks(&a), chunks(&b));
        let same_place: Vec<usize> = (0..ca.len()).filter(|&g| ca[g] == cb[g]).collect();
        // 25 % of the 256 chunks: 4 per record.
        assert_eq!(same_place.len(), 64, "{mode:?}");
        let in_b: HashSet<&[u8]> = cb.iter().copied().collect();
        let common: Vec<usize> = (0..ca.len()).filter(|&g| in_b.contains(ca[g])).collect();
        assert_eq!(
            common, same_place,
            "{mode:?}: shared only at the same positions"
        );
        // Each shared chunk occurs once per file (unique within a file).
        let na = occurrences(&a);
        assert!(same_place.iter().all(|&g| na[ca[g]] == 1));
        // The rest of -+w (25 %) repeats within each file: 4 slots × 16 records.
        assert_eq!(na.values().filter(|&&k| k == 16).count(), 4);
        let c = opts(Some(50), None, Some(25));
        assert!(a == model_image(c, FILE, REC, 0) && b == model_image(c, FILE, REC, 1));
    }
}

fn read_only_throughput_phases_prepare_each_workers_own_image() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        &SIZES[..],
        &["-t", "2", "-F", "a", "b", "-w", "-i", "1", "-+C", "25"],
    ]
    .concat();
    ok(dir.path(), &args);
    let c = opts(None, None, Some(25));
    assert!(read(&dir.path().join("a"), FILE) == model_image(c, FILE, REC, 0));
    assert!(read(&dir.path().join("b"), FILE) == model_image(c, FILE, REC, 1));
}

fn seed_and_skew_change_the_content() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, extra: &[&str]| {
        ok(
            dir.path(),
            &[
                &SIZES[..],
                &["-i", "0", "-+w", "50", "-w", "-f", name],
                extra,
            ]
            .concat(),
        );
        read(&dir.path().join(name), FILE)
    };
    let default = write("d", &[]);
    assert!(
        write("s0", &["-+S", "0"]) == default,
        "-+S 0 means 1, the default"
    );
    let seeded = write("s9", &["-+S", "9"]);
    let before: HashSet<&[u8]> = chunks(&default).into_iter().collect();
    assert!(
        chunks(&seeded).iter().all(|c| !before.contains(c)),
        "another seed shares no chunk"
    );
    // Skew 1: the single worker writes what worker 1 writes without skew.
    let skewed = write("w1", &["-+W", "1"]);
    assert!(skewed != default);
    assert!(skewed == model_image(opts(Some(50), None, None), FILE, REC, 1));
}

/// Deflate-compressed size of `data` (the zip dev-dependency's compressor).
fn deflated_len(data: &[u8]) -> usize {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("x", options).unwrap();
    zip.write_all(data).unwrap();
    zip.finish().unwrap().into_inner().len()
}

fn unique_chunks_do_not_compress() {
    let dir = tempfile::tempdir().unwrap();
    ok(
        dir.path(),
        &[
            "-s", "256k", "-r", "64k", "-i", "0", "-+w", "0", "-w", "-f", "u",
        ],
    );
    let unique = read(&dir.path().join("u"), 256 << 10);
    let packed = deflated_len(&unique);
    assert!(packed > unique.len(), "{packed} of {} bytes", unique.len());
    // The check can fail: IOzone's own data pattern deflates to almost nothing.
    ok(
        dir.path(),
        &[
            "-s", "256k", "-r", "64k", "-i", "0", "--data", "iozone", "-w", "-f", "z",
        ],
    );
    let iozone = read(&dir.path().join("z"), 256 << 10);
    assert!(deflated_len(&iozone) < iozone.len() / 10);
}

fn a_run_whose_images_do_not_fit_in_memory_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(dir.path(), &["-s", "100000g", "-i", "0", "-+w", "50"]);
    run.expect_code(2);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", run.stderr);
    assert!(
        lines[0].starts_with("ioz: dedup data (-+w/-+y/-+C) is built in memory")
            && lines[0].contains("needs 97.7 TiB"),
        "{}",
        lines[0]
    );
    assert!(list_dir(dir.path()).is_empty());
    // Shares that do not nest: one line, exit 2.
    let run = ioz(dir.path(), &["-+w", "10", "-+y", "20"]);
    run.expect_code(2);
    assert_eq!(run.stderr.lines().count(), 1);
    assert!(run.stderr.contains("exceed -+w 10"));
    assert!(list_dir(dir.path()).is_empty());
}
