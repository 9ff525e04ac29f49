//! Result files (--json, --csv, --html, --plots, -b, and every `ioz report`
//! output) never land on data ioz does not own: devices (also through a
//! link), the inputs of the same command (the saved run, a telemetry trace,
//! a test file), another output of the same command, and a user's existing
//! file are refused before anything runs (exit 2, one line), and so are the
//! places no file can be written. A result file ioz wrote is replaced by the
//! next one, through a temporary name renamed into place: a write that fails
//! leaves the old file as it was and no temporary behind.

use std::fs;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use crate::fixtures::{
    self, Ext4, IOZ, LoopDevice, Run, Test, Tmpfs, assert_refused, ioz, is_root, list_dir, quietly,
    trials,
};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        json_onto_an_ext4_loop_device_is_refused => [Root, LoopDevice, Ext4],
        csv_onto_the_device_of_a_mounted_ext4_is_refused => [Root, LoopDevice, Ext4],
        csv_onto_a_gpt_loop_device_is_refused => [LoopDevice],
        html_onto_an_mbr_loop_device_is_refused => [LoopDevice],
        a_spreadsheet_linked_to_a_swap_device_is_refused => [LoopDevice, Mkswap],
        report_never_writes_over_the_saved_run_it_reads,
        a_telemetry_trace_is_never_overwritten,
        a_worker_test_file_is_never_overwritten,
        two_outputs_on_one_file_are_refused,
        every_result_option_given_twice_writes_both_files,
        a_users_file_is_replaced_only_with_force,
        a_result_file_ioz_wrote_is_replaced,
        a_link_to_a_result_file_is_followed,
        a_mark_on_someone_elses_file_is_not_trusted => [Root],
        plot_files_follow_the_same_rule,
        unwritable_places_are_refused_before_the_header,
        a_read_only_mount_is_refused_before_the_header => [Tmpfs],
        a_directory_the_user_cannot_write_in_is_refused => [Unprivileged],
        a_failed_write_leaves_the_old_file_and_no_temporary => [Tmpfs],
        latency_files_are_appended_only_to_ioz_s_own,
        latency_files_are_never_devices_inputs_or_other_outputs,
    ]
}

/// The smallest run: one write pass of one record.
const RUN: [&str; 6] = ["-s", "64k", "-r", "64k", "-i", "0"];

/// `RUN` followed by `extra`.
fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    RUN.iter().copied().chain(extra.iter().copied()).collect()
}

/// Every byte of a file or device.
fn contents(path: &str) -> Vec<u8> {
    fs::read(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Writes `bytes` at `offset` of a device (or file), durably.
fn poke(path: &str, offset: u64, bytes: &[u8]) {
    let file = fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_SYNC)
        .open(path)
        .unwrap();
    file.write_all_at(bytes, offset).unwrap();
}

/// A saved run in `dir`/`name`, written by ioz itself.
fn saved_run(dir: &Path, name: &str) {
    ioz(dir, &run_args(&["--json", name])).expect_code(0);
}

/// `ioz args` in `dir`, which must be refused naming `part`, with `dir`
/// unchanged (see [`assert_refused`]).
fn refused_in(dir: &Path, args: &[&str], part: &str) -> String {
    assert_refused(&ioz(dir, args), part).to_string()
}

fn json_onto_an_ext4_loop_device_is_refused() {
    let dev = LoopDevice::new(8 << 20);
    let d = dev.path();
    quietly("mkfs.ext4", &["-q", "-F", d]).unwrap();
    let before = contents(d);
    let dir = tempfile::tempdir().unwrap();
    let line = refused_in(dir.path(), &run_args(&["--json", d]), "block device");
    assert!(line.contains(&format!("--json: {d}")), "{line}");
    assert!(contents(d) == before, "the file system on {d} was written");
}

fn csv_onto_the_device_of_a_mounted_ext4_is_refused() {
    let fs = Ext4::new("relatime");
    fs::write(fs.mnt().join("precious"), b"keep me").unwrap();
    // ext4 never writes its first 1024 bytes (the boot block), where a CSV
    // would land; the superblock after them the mounted kernel may update.
    let boot_block = contents(&fs.device)[..1024].to_vec();
    let dir = tempfile::tempdir().unwrap();
    let line = refused_in(
        dir.path(),
        &run_args(&["--csv", &fs.device]),
        "block device",
    );
    assert!(line.contains(&format!("--csv: {}", fs.device)), "{line}");
    let now = contents(&fs.device);
    assert_eq!(&now[..1024], &boot_block[..], "the device was written");
    assert_eq!(&now[1080..1082], &[0x53, 0xef], "the ext4 magic is gone");
    assert_eq!(fs::read(fs.mnt().join("precious")).unwrap(), b"keep me");
}

fn csv_onto_a_gpt_loop_device_is_refused() {
    let dev = LoopDevice::new(1 << 20);
    let d = dev.path();
    // A protective MBR and a GPT header.
    poke(d, 446 + 4, &[0xee]);
    poke(d, 510, &[0x55, 0xaa]);
    poke(d, 512, b"EFI PART");
    let before = contents(d);
    let dir = tempfile::tempdir().unwrap();
    refused_in(dir.path(), &run_args(&["--csv", d]), "block device");
    assert!(
        contents(d) == before,
        "the partition table on {d} was written"
    );
}

fn html_onto_an_mbr_loop_device_is_refused() {
    let dev = LoopDevice::new(1 << 20);
    let d = dev.path();
    // One Linux partition in an MBR.
    poke(d, 446, &[0x80, 0, 0, 0, 0x83]);
    poke(d, 446 + 8, &2048u32.to_le_bytes());
    poke(d, 446 + 12, &4096u32.to_le_bytes());
    poke(d, 510, &[0x55, 0xaa]);
    let before = contents(d);
    let dir = tempfile::tempdir().unwrap();
    refused_in(dir.path(), &run_args(&["--html", d]), "block device");
    assert!(
        contents(d) == before,
        "the partition table on {d} was written"
    );
}

fn a_spreadsheet_linked_to_a_swap_device_is_refused() {
    let dev = LoopDevice::new(1 << 20);
    let d = dev.path();
    quietly("mkswap", &[d]).unwrap();
    let before = contents(d);
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(d, dir.path().join("res.xls")).unwrap();
    let line = refused_in(dir.path(), &run_args(&["-b", "res.xls"]), "block device");
    assert!(
        line.contains(&format!("-b: res.xls leads to {d}")),
        "{line}"
    );
    assert!(contents(d) == before, "the swap area on {d} was written");
    assert_eq!(&contents(d)[4086..4096], b"SWAPSPACE2");
}

fn report_never_writes_over_the_saved_run_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    saved_run(d, "run.json");
    let saved = fs::read(d.join("run.json")).unwrap();
    std::os::unix::fs::symlink("run.json", d.join("link.json")).unwrap();
    fs::hard_link(d.join("run.json"), d.join("hard.xls")).unwrap();
    // However it is spelled: itself, another path, a link, a hard link.
    for (args, named) in [
        (
            ["report", "run.json", "--csv", "run.json"],
            "--csv: run.json",
        ),
        (
            ["report", "run.json", "--json", "./run.json"],
            "--json: ./run.json",
        ),
        (
            ["report", "run.json", "--html", "link.json"],
            "--html: link.json",
        ),
        (["report", "link.json", "-b", "hard.xls"], "-b: hard.xls"),
    ] {
        let line = refused_in(d, &args, "the saved run");
        assert!(line.contains(named), "{line}");
    }
    // --force does not make an input an output.
    refused_in(
        d,
        &["report", "run.json", "--csv", "run.json", "--force"],
        "the saved run",
    );
    assert_eq!(fs::read(d.join("run.json")).unwrap(), saved);
}

fn a_telemetry_trace_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let trace = b"0 65536\n";
    fs::write(d.join("t"), trace).unwrap();
    for out in ["--csv", "--json", "--html", "-b"] {
        let name = if out == "-b" { "t.xls" } else { "t" };
        if out == "-b" {
            fs::write(d.join(name), trace).unwrap();
        }
        let line = refused_in(d, &["-i", "0", "-X", name, out, name], "-X telemetry");
        assert!(line.contains(&format!("{out}: {name}")), "{line}");
        assert_eq!(fs::read(d.join(name)).unwrap(), trace);
    }
    let line = refused_in(
        d,
        &["-i", "0", "-i", "1", "-Y", "t", "--json", "./t", "--force"],
        "-Y telemetry",
    );
    assert!(line.contains("--json: ./t"), "{line}");
    assert_eq!(fs::read(d.join("t")).unwrap(), trace);
}

fn a_worker_test_file_is_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tp = ["-s", "64k", "-r", "64k", "-i", "0", "-t", "2"];
    let with = |extra: &[&'static str]| -> Vec<&str> { tp.iter().chain(extra).copied().collect() };
    // Files that do not exist yet: compared by directory and name.
    let line = refused_in(d, &with(&["-F", "a", "b", "--json", "a"]), "test file");
    assert!(line.contains("--json: a"), "{line}");
    refused_in(d, &with(&["-F", "a", "b", "--csv", "./b"]), "test file");
    // The names ioz gives the workers of -f (`<-f>.<n>`), up to the largest count.
    refused_in(d, &with(&["-f", "w", "--json", "w.1"]), "test file");
    let lu = ["-s", "64k", "-r", "64k", "-i", "0", "-l", "1", "-u", "3"];
    let mut args = lu.to_vec();
    args.extend(["-f", "w", "--html", "w.2"]);
    refused_in(d, &args, "test file");
    // The single-mode test file, existing and ioz's own (kept with -w).
    ioz(d, &run_args(&["-w", "-f", "kept"])).expect_code(0);
    let kept = fs::read(d.join("kept")).unwrap();
    fs::hard_link(d.join("kept"), d.join("other")).unwrap();
    refused_in(
        d,
        &run_args(&["-f", "kept", "--json", "other", "--force"]),
        "test file",
    );
    assert_eq!(fs::read(d.join("kept")).unwrap(), kept);
}

fn two_outputs_on_one_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let line = refused_in(d, &run_args(&["--json", "r", "--csv", "r"]), "--json");
    assert!(line.contains("--csv: r"), "{line}");
    refused_in(d, &run_args(&["--json", "r", "--html", "./r"]), "--json");
    refused_in(
        d,
        &run_args(&["--plots", "p", "--json", "p/write.png"]),
        "--plots",
    );
    refused_in(
        d,
        &run_args(&["--plots", "p.xls", "-b", "p.xls"]),
        "--plots",
    );
}

/// Every format of the one list (model::formats), its flag given twice
/// with two paths: a run writes both files, alike, and saves both paths;
/// `ioz report` of the saved run does the same. Before, only the last
/// was written (but for -b), and nothing said so. The same file twice is
/// refused, as any two outputs on one file are.
fn every_result_option_given_twice_writes_both_files() {
    use ioz::model::formats::{FORMATS, Format};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let paths = |row: &ioz::model::formats::FormatRow, prefix: &str| -> [String; 2] {
        let ext = row.extensions.first().copied().unwrap_or("out");
        match row.format {
            // An .xls and an .xlsx, as -b was given twice before.
            Format::Spreadsheet => [format!("{prefix}a.xls"), format!("{prefix}b.xlsx")],
            Format::Plots => [format!("{prefix}a"), format!("{prefix}b")],
            _ => [format!("{prefix}a.{ext}"), format!("{prefix}b.{ext}")],
        }
    };
    let same = |a: &Path, b: &Path, row: &ioz::model::formats::FormatRow| {
        if row.format == Format::Plots {
            assert_eq!(list_dir(a), list_dir(b), "{}", row.flag);
            assert!(!list_dir(a).is_empty(), "{}", row.flag);
        } else if row.format != Format::Spreadsheet {
            assert_eq!(
                fs::read(a).unwrap(),
                fs::read(b).unwrap(),
                "{}: the two differ",
                row.flag
            );
        }
    };
    for row in &FORMATS {
        let [a, b] = paths(row, "run-");
        let saved = if row.format == Format::Json {
            a.as_str()
        } else {
            "saved.json"
        };
        let mut args = vec!["-s", "1m", "-r", "64k", "-i", "0", "-f", "t.tmp"];
        args.extend(["--interval", "10ms", row.flag, &a, row.flag, &b]);
        if row.format != Format::Json {
            args.extend(["--json", saved]);
        }
        ioz(d, &args).expect_code(0);
        let (pa, pb) = (d.join(&a), d.join(&b));
        assert!(pa.exists() && pb.exists(), "{}: {a} and {b}", row.flag);
        same(&pa, &pb, row);
        let json: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(d.join(saved)).unwrap()).unwrap();
        assert_eq!(
            json["config"]["outputs"][row.saved_as],
            serde_json::json!([a, b]),
            "{}: both paths saved",
            row.flag
        );
        // ioz report of the saved run, the flag twice.
        let [ra, rb] = paths(row, "report-");
        ioz(d, &["report", saved, row.flag, &ra, row.flag, &rb]).expect_code(0);
        let (qa, qb) = (d.join(&ra), d.join(&rb));
        assert!(
            qa.exists() && qb.exists(),
            "report {}: {ra} and {rb}",
            row.flag
        );
        same(&qa, &qb, row);
        // The same file twice is one file for two outputs.
        let refused = ioz(
            d,
            &["report", saved, row.flag, &ra, row.flag, &format!("./{ra}")],
        );
        assert_refused(&refused, &format!("is also the {} ", row.flag));
    }
}

fn a_users_file_is_replaced_only_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("foo.csv"), b"my own notes\n").unwrap();
    let line = refused_in(d, &run_args(&["--csv", "foo.csv"]), "not written by ioz");
    assert!(line.contains("--csv: foo.csv"), "{line}");
    assert!(line.contains("--force"), "{line}");
    assert_eq!(fs::read(d.join("foo.csv")).unwrap(), b"my own notes\n");
    // The same through `ioz report`.
    saved_run(d, "run.json");
    let r = ioz(d, &["report", "run.json", "--csv", "foo.csv"]);
    assert_refused(&r, "not written by ioz");
    assert_eq!(fs::read(d.join("foo.csv")).unwrap(), b"my own notes\n");
    // --force replaces it.
    ioz(d, &["report", "run.json", "--csv", "foo.csv", "--force"]).expect_code(0);
    let csv = fs::read_to_string(d.join("foo.csv")).unwrap();
    assert!(csv.contains("write"), "{csv}");
    fs::write(d.join("bar.json"), b"{}").unwrap();
    ioz(d, &run_args(&["--json", "bar.json", "--force"])).expect_code(0);
    assert!(fs::read(d.join("bar.json")).unwrap().len() > 2);
    assert_no_temporaries(d);
}

fn a_result_file_ioz_wrote_is_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    keeps_marks(d);
    let outputs = [
        "--json", "r.json", "--csv", "r.csv", "-b", "r.xls", "--html", "r.html", "--plots", "p",
    ];
    let args = run_args(&[&["-+n"][..], &outputs[..]].concat());
    ioz(d, &args).expect_code(0);
    let first = fs::metadata(d.join("r.json")).unwrap().ino();
    // Twice more: a run, then `ioz report` onto the same files.
    ioz(d, &args).expect_code(0);
    let mut report = vec!["report", "r.json"];
    report.extend(&outputs[2..]);
    ioz(d, &report).expect_code(0);
    // Each was replaced (a new file renamed into place), none left beside it.
    assert_ne!(fs::metadata(d.join("r.json")).unwrap().ino(), first);
    assert_eq!(
        list_dir(d),
        ["p", "r.csv", "r.html", "r.json", "r.xls"],
        "temporaries left"
    );
    assert_eq!(list_dir(&d.join("p")), ["write.png", "write.svg"]);
}

fn a_link_to_a_result_file_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    keeps_marks(d);
    fs::create_dir(d.join("results")).unwrap();
    saved_run(d, "results/r.json");
    std::os::unix::fs::symlink("results/r.json", d.join("latest.json")).unwrap();
    let old = fs::read(d.join("results/r.json")).unwrap();
    ioz(d, &run_args(&["-+n", "--json", "latest.json"])).expect_code(0);
    // The link stays a link; the file it leads to holds the new run.
    assert!(
        fs::symlink_metadata(d.join("latest.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_ne!(fs::read(d.join("results/r.json")).unwrap(), old);
    assert_eq!(list_dir(&d.join("results")), ["r.json"]);
    // A link to nothing is refused: ioz does not create files where links point.
    std::os::unix::fs::symlink("gone/x.json", d.join("dangling.json")).unwrap();
    refused_in(d, &run_args(&["--json", "dangling.json"]), "dangling.json");
}

fn a_mark_on_someone_elses_file_is_not_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    keeps_marks(d);
    saved_run(d, "r.json");
    let saved = fs::read(d.join("r.json")).unwrap();
    // ioz's mark, but the file belongs to someone else now.
    std::os::unix::fs::chown(d.join("r.json"), Some(65534), Some(65534)).unwrap();
    let line = refused_in(d, &run_args(&["--json", "r.json"]), "not written by ioz");
    assert!(line.contains("--json: r.json"), "{line}");
    assert_eq!(fs::read(d.join("r.json")).unwrap(), saved);
    // A file of the running user with no mark is not ioz's either.
    fs::write(d.join("plain.json"), b"{}").unwrap();
    refused_in(
        d,
        &run_args(&["--json", "plain.json"]),
        "not written by ioz",
    );
}

fn plot_files_follow_the_same_rule() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("p")).unwrap();
    fs::write(d.join("p/write.png"), b"my picture").unwrap();
    let line = refused_in(d, &run_args(&["-+n", "--plots", "p"]), "not written by ioz");
    assert!(line.contains("--plots: p/write.png"), "{line}");
    assert_eq!(fs::read(d.join("p/write.png")).unwrap(), b"my picture");
    // A file where the directory should be.
    fs::write(d.join("f"), b"x").unwrap();
    refused_in(d, &run_args(&["--plots", "f"]), "not a directory");
    // A plot file that is the test file.
    refused_in(
        d,
        &run_args(&["-f", "p/write.svg", "--plots", "p"]),
        "test file",
    );
}

fn unwritable_places_are_refused_before_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::create_dir(d.join("dir.xls")).unwrap();
    let cases: [(&[&str], &str); 9] = [
        (&["-b", "dir.xls"], "-b: dir.xls is a directory"),
        (&["-b", "/proc/x.xls"], "proc"),
        (&["--json", "."], "--json: . is a directory"),
        (&["--json", "new/"], "--json: new/"),
        (&["--html", "/sys/x.html"], "sysfs"),
        (
            &["--plots", "/dev/null"],
            "--plots: /dev/null is a character device",
        ),
        (&["--csv", "nodir/x.csv"], "nodir does not exist"),
        (&["--json", "/dev/x.json"], "--json: cannot write in /dev"),
        (
            &["--csv", "/dev/null"],
            "--csv: /dev/null is a character device",
        ),
    ];
    for (extra, part) in cases {
        let r: Run = ioz(d, &run_args(extra));
        assert_refused(&r, part);
    }
    for written in ["/proc/x.xls", "/sys/x.html", "/dev/x.json"] {
        // Today's main creates /dev/x.json (as root): not left behind.
        let _ = fs::remove_file(written);
    }
}

fn a_read_only_mount_is_refused_before_the_header() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ro = Tmpfs::mount(&d.join("ro"), "size=256k,ro");
    let out = ro.path().join("r.csv");
    let line = refused_in(d, &run_args(&["--csv", out.to_str().unwrap()]), "read-only");
    assert!(line.starts_with("ioz: --csv: "), "{line}");
    saved_run(d, "run.json");
    let r = ioz(d, &["report", "run.json", "--csv", out.to_str().unwrap()]);
    assert_refused(&r, "read-only");
}

fn a_directory_the_user_cannot_write_in_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let locked = d.join("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    // The test file's directory is open to all, as nobody writes it below.
    fs::set_permissions(d, fs::Permissions::from_mode(0o777)).unwrap();
    let args = run_args(&["--csv", "locked/r.csv"]);
    let run = if is_root() {
        fixtures::run(
            Command::new("setpriv")
                .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .args(["--inh-caps=-all", IOZ])
                .args(&args)
                .current_dir(d),
        )
    } else {
        ioz(d, &args)
    };
    let line = assert_refused(&run, "permission denied");
    assert!(line.starts_with("ioz: --csv: cannot write in "), "{line}");
    assert!(list_dir(&locked).is_empty());
}

fn a_failed_write_leaves_the_old_file_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let small = Tmpfs::mount(&d.join("small"), "size=256k");
    let html = small.path().join("r.html");
    let html_arg = html.to_str().unwrap();
    saved_run(d, "run.json");
    fs::write(&html, b"an older report\n").unwrap();
    // Leave less room than a report needs (tens of kB).
    let filler = nix_free_bytes(small.path()) - 8192;
    let f = fs::File::create(small.path().join("filler")).unwrap();
    f.write_all_at(&vec![1u8; filler as usize], 0).unwrap();
    drop(f);
    let r = ioz(d, &["report", "run.json", "--html", html_arg, "--force"]);
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("--html"), "{}", r.stderr);
    assert_eq!(
        fs::read(&html).unwrap(),
        b"an older report\n",
        "the old file was touched"
    );
    assert_eq!(
        list_dir(small.path()),
        ["filler", "r.html"],
        "a temporary was left"
    );
}

/// Goes on only where the file system of `dir` keeps user extended
/// attributes, as ioz's mark on its result files is one (tmpfs before Linux
/// 6.6 has none): elsewhere a result file needs --force to be replaced, and
/// the test is skipped.
fn keeps_marks(dir: &Path) {
    let probe = dir.join(".xattr-probe");
    fs::write(&probe, b"").unwrap();
    let path = std::ffi::CString::new(probe.to_str().unwrap()).unwrap();
    // SAFETY: the strings are NUL-terminated and the value is one byte long.
    let r = unsafe {
        libc::setxattr(
            path.as_ptr(),
            c"user.probe".as_ptr(),
            c"1".as_ptr().cast(),
            1,
            0,
        )
    };
    let e = std::io::Error::last_os_error();
    fs::remove_file(&probe).unwrap();
    if r < 0 {
        fixtures::skip(format!("no user xattrs in the temporary directory: {e}"));
    }
}

/// Bytes free for a new file on the file system of `dir`.
fn nix_free_bytes(dir: &Path) -> u64 {
    let c = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
    // SAFETY: statvfs is plain data; zeroed is a valid value.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: c is NUL-terminated and st is a valid statvfs to fill.
    assert_eq!(unsafe { libc::statvfs(c.as_ptr(), &mut st) }, 0);
    st.f_bavail * st.f_frsize
}

/// No name in `dir` looks like one of ioz's temporaries (hidden files).
fn assert_no_temporaries(dir: &Path) {
    let hidden: Vec<String> = list_dir(dir)
        .into_iter()
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(hidden.is_empty(), "temporaries left: {hidden:?}");
}

fn latency_files_are_appended_only_to_ioz_s_own() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    keeps_marks(d);
    // -Q appends, as IOzone does: twice into the file ioz made.
    let args = run_args(&["-+n", "-Q"]);
    ioz(d, &args).expect_code(0);
    ioz(d, &args).expect_code(0);
    let text = fs::read_to_string(d.join("wol.dat")).unwrap();
    assert_eq!(text.matches("Offset in Kbytes").count(), 2, "{text}");
    // A wol.dat that is not ioz's is not written: refused before the run,
    // appended to only with --force (its content kept).
    let user = tempfile::tempdir().unwrap();
    let u = user.path();
    fs::write(u.join("wol.dat"), b"my notes\n").unwrap();
    let line = refused_in(u, &args, "-Q: wol.dat exists and was not written by ioz");
    assert!(line.contains("--force"), "{line}");
    assert_eq!(fs::read(u.join("wol.dat")).unwrap(), b"my notes\n");
    let mut forced = args.clone();
    forced.push("--force");
    ioz(u, &forced).expect_code(0);
    let text = fs::read_to_string(u.join("wol.dat")).unwrap();
    assert!(text.starts_with("my notes\nOffset in Kbytes"), "{text}");
}

fn latency_files_are_never_devices_inputs_or_other_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A link from a latency file's name to a device.
    std::os::unix::fs::symlink("/dev/null", d.join("wol.dat")).unwrap();
    refused_in(d, &run_args(&["-Q"]), "-Q: wol.dat leads to /dev/null");
    fs::remove_file(d.join("wol.dat")).unwrap();
    // Another output, or the test file, on a latency file's name.
    refused_in(
        d,
        &run_args(&["-Q", "--json", "wol.dat"]),
        "--json: wol.dat is also a -Q latency file of this run",
    );
    refused_in(
        d,
        &run_args(&["-Q", "-f", "rwol.dat"]),
        "-Q: rwol.dat is the test file",
    );
    // Throughput mode: every worker's file is checked.
    fs::write(d.join("Child_1_wol.dat"), b"x").unwrap();
    refused_in(
        d,
        &["-t", "2", "-s", "64k", "-r", "64k", "-i", "0", "-Q"],
        "-Q: Child_1_wol.dat exists and was not written by ioz",
    );
}
