//! The analysis half, readable and right (issue 26): the comparison page of
//! auto-mode grids and the latency page laid out by Chromium at 1,400 px
//! (every chart within the page at its own size, no text under 10 px, every
//! phase's curve), environment differences keyed by each device's own name
//! and grouped under one summary line, the trend's ratio to the reference
//! run nearest in time, one rank of a cluster run (`run.json#rank=N`) and
//! "sum of N clients" on every view of the sum, `ioz report --scaling`,
//! blank cells of a run that stopped early, one kB formatter, the text
//! comparison's marks, and the target's file system on -M's lines.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use calamine::{Data, Reader, Xlsx, open_workbook};
use ioz::model::result::{Client, RankCells, RunResult, sum_of_ranks};
use ioz::report::Exporter;
use ioz::report::json::{JsonReport, parse_run};
use serde_json::Value;

use crate::fixtures::chromium::{chromium, measure};
use crate::fixtures::ioz_ok as ok;
use crate::fixtures::{
    IOZ, LoopDevice, Run, Test, assert_refused, data_file, ioz, quietly, run, skip, trials,
};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        a_comparison_of_auto_grids_fits_the_page_in_small_multiples => [Chromium],
        the_latency_page_draws_every_phase_readably => [Chromium],
        the_trend_divides_by_the_reference_run_nearest_in_time => [Chromium],
        two_loop_devices_over_one_disk_differ_only_where_they_do => [Root, LoopDevice],
        every_command_that_reads_a_run_takes_one_rank_of_it,
        a_cluster_runs_sum_says_so_in_every_title,
        report_scaling_tables_rows_workers_columns_record_sizes,
        a_minus_k_sweep_is_one_scaling_table_per_test,
        a_run_that_stopped_early_leaves_what_it_never_measured_blank,
        eight_byte_records_read_alike_in_every_table,
        text_comparison_marks_say_what_the_ratio_beside_them_says,
        dash_m_names_the_file_system_mount_source_and_device,
    ]
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// A saved run, as the library reads it.
fn read_run(path: &Path) -> RunResult {
    parse_run(&fs::read(path).unwrap(), &path.display().to_string()).unwrap()
}

fn write_run(path: &Path, run: &RunResult) {
    fs::write(path, JsonReport.render(run).unwrap()).unwrap();
}

/// The SVG of a page whose `<title>` is `title`.
fn svg_titled<'a>(html: &'a str, title: &str) -> &'a str {
    let at = html
        .find(&format!("<title>{title}</title>"))
        .unwrap_or_else(|| panic!("no chart {title:?}"));
    let start = html[..at].rfind("<svg").unwrap();
    &html[start..start + html[start..].find("</svg>").unwrap()]
}

/// Item 1: two inputs against a baseline, auto grids of five file sizes,
/// one cell of one input 60 times faster. The page holds each test's mean
/// ± sd and percent bars as small multiples (a panel per file size), the
/// percent axis shared by both inputs and clipped, the far bar marked; the
/// mountains in the plots' colours with their key; in Chromium at 1,400 px
/// no chart is wider than the page or scaled, no text is under 10 px.
fn a_comparison_of_auto_grids_fits_the_page_in_small_multiples() {
    let chromium = chromium().expect("chromium");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "-a", "-n", "64k", "-g", "1m", "-i", "0", "-i", "2", "--label", "a", "-f", "t.tmp",
            "--json", "a.json",
        ],
    );
    // b and c are a's run with set differences, not runs of their own: the
    // layout under test follows from the differences, and three real runs
    // on a busy machine differed by far more than 60x here and there (the
    // far bar then no longer stood out, and nothing was clipped).
    let a = read_json(&d.join("a.json"));
    // b: every measurement 2 % faster; c: the first cell's write 60 times.
    for (label, first, others) in [("b", 1.02, 1.02), ("c", 60.0, 1.0)] {
        let mut run = a.clone();
        run["config"]["label"] = Value::from(label);
        for (k, cell) in run["cells"].as_array_mut().unwrap().iter_mut().enumerate() {
            for (j, m) in cell["measurements"]
                .as_array_mut()
                .unwrap()
                .iter_mut()
                .enumerate()
            {
                let factor = if (k, j) == (0, 0) { first } else { others };
                let bytes = m["bytes"].as_u64().unwrap() as f64 * factor;
                m["bytes"] = Value::from(bytes as u64);
            }
        }
        fs::write(d.join(format!("{label}.json")), run.to_string()).unwrap();
    }
    ok(
        d,
        &[
            "compare", "a.json", "b.json", "c.json", "--html", "cmp.html",
        ],
    );
    let html = fs::read_to_string(d.join("cmp.html")).unwrap();
    let bars = svg_titled(&html, "write: mean ± sd");
    for file in ["64", "128", "256", "512", "1024"] {
        assert!(bars.contains(&format!(">{file} kB file</text>")), "{file}");
    }
    assert!(bars.contains(">record size (kB)</text>"));
    // Both inputs' percent charts on one axis: the same clipped title.
    let axis_title = |chart: &str| {
        let at = chart.find(">difference (%)").expect("a percent axis") + 1;
        chart[at..at + chart[at..].find('<').unwrap()].to_string()
    };
    let (b, c) = (
        svg_titled(&html, "write: b vs a (%)"),
        svg_titled(&html, "write: c vs a (%)"),
    );
    assert!(
        axis_title(c).starts_with("difference (%), clipped at "),
        "{}",
        axis_title(c)
    );
    assert_eq!(axis_title(b), axis_title(c));
    assert!(
        c.contains("beyond the axis, cut at its end"),
        "the far bar is marked"
    );
    assert!(c.contains("fill=\"#111\">+"), "with its value");
    // The mountains: the plots' colour map, with its key.
    let mountain = svg_titled(&html, "a");
    assert!(mountain.contains(">GB/s</text>") || mountain.contains(">MB/s</text>"));
    assert!(mountain.contains(">one scale</text>"));
    let Some(layout) = measure(&chromium, &d.join("cmp.html"), 1400, "body") else {
        skip("chromium did not finish twice");
    };
    let charts = layout.assert_readable();
    // Per test: the bars, two percent charts, and per input two mountains
    // and a ratio grid.
    assert_eq!(charts.len(), 4 * (1 + 2 + 2 * 3), "{charts:?}");
}

/// Item 5: `-t 1 -t 2 -t 4 -t 8 --latency --html`: the latency page draws
/// all 16 phases (a panel per test, a line per worker count, keyed above the
/// panels with "1 worker" and "8 workers"), readable at 1,400 px.
fn the_latency_page_draws_every_phase_readably() {
    let chromium = chromium().expect("chromium");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "-t",
            "1",
            "-t",
            "2",
            "-t",
            "4",
            "-t",
            "8",
            "-s",
            "64k",
            "-r",
            "4k",
            "-i",
            "0",
            "-i",
            "2",
            "--latency",
            "--html",
            "r.html",
        ],
    );
    let html = fs::read_to_string(d.join("r.html")).unwrap();
    let title = "CDF of every phase: a panel per test, a line per worker count";
    let phases = svg_titled(&html, title);
    assert_eq!(
        phases.matches("<polyline").count(),
        16,
        "every phase's curve"
    );
    for test in ["write", "rewrite", "random read", "random write"] {
        assert!(
            phases.contains(&format!("font-weight=\"bold\">{test}</text>")),
            "{test}"
        );
    }
    assert!(phases.contains(">1 worker</text>") && phases.contains(">8 workers</text>"));
    assert!(!html.contains("1 workers"));
    assert!(html.contains("16 phases, a panel per test"));
    let Some(layout) = measure(&chromium, &d.join("r.html"), 1400, "#latency") else {
        skip("chromium did not finish twice");
    };
    let charts = layout.assert_readable();
    let drawn = charts
        .iter()
        .find(|c| c.title == title)
        .expect("the phases' chart");
    assert_eq!(drawn.curves, 16);
}

/// `ioz args…` with its history in `history` (the harness sets
/// IOZ_NO_HISTORY for every test: removed here).
fn with_history(work: &Path, history: &Path, args: &[&str]) -> Run {
    run(Command::new(IOZ)
        .args(args)
        .current_dir(work)
        .env("IOZ_HISTORY", history)
        .env_remove("IOZ_NO_HISTORY"))
}

/// Item 3: runs seconds apart. Run 3 (ubifs) was ratioed to the jffs2 run
/// of its day that came last, 23 s away; now to the one 2 s before it, and
/// the ratio row says which. The page is readable at 1,400 px.
fn the_trend_divides_by_the_reference_run_nearest_in_time() {
    let chromium = chromium().expect("chromium");
    let tmp = tempfile::tempdir().unwrap();
    let (work, history) = (tmp.path().join("work"), tmp.path().join("history"));
    fs::create_dir(&work).unwrap();
    let text = fs::read_to_string(data_file("iozone-reference/auto.txt")).unwrap();
    let undated: String = text
        .lines()
        .filter(|l| !l.contains("Run began:"))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(work.join("log.txt"), undated).unwrap();
    for (date, label) in [
        ("2026-11-25T23:59:40", "jffs2"),
        ("2026-11-26T00:00:01", "jffs2"),
        ("2026-11-26T00:00:03", "ubifs"),
        ("2026-11-26T00:00:26", "jffs2"),
    ] {
        let args = [
            "history", "import", "log.txt", "--date", date, "--label", label,
        ];
        with_history(&work, &history, &args).expect_code(0);
    }
    let r = with_history(
        &work,
        &history,
        &[
            "history",
            "trend",
            "--ratio-to",
            "jffs2",
            "--text",
            "--json",
            "t.json",
            "--html",
            "t.html",
        ],
    );
    r.expect_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("Ratio to jffs2"))
        .unwrap_or_else(|| panic!("{}", r.context()));
    assert!(lines[at].contains("nearest in time"), "{}", lines[at]);
    let head: Vec<&str> = lines[at + 1].split_whitespace().collect();
    assert_eq!(&head[..4], ["run", "date", "label", "vs"]);
    let row: Vec<&str> = lines[at + 2].split_whitespace().collect();
    assert_eq!(
        (row[0], row[3], row[4]),
        ("3", "ubifs", "2"),
        "{}",
        r.context()
    );
    let doc = read_json(&work.join("t.json"));
    assert_eq!(doc["ratios"][0]["reference_id"], 2, "{doc}");
    let help = with_history(&work, &history, &["history", "trend", "-h"]);
    assert!(help.stdout.contains("nearest in time"), "{}", help.stdout);
    let html = fs::read_to_string(work.join("t.html")).unwrap();
    assert!(html.contains("ubifs / run 2"));
    let Some(layout) = measure(&chromium, &work.join("t.html"), 1400, "body") else {
        skip("chromium did not finish twice");
    };
    layout.assert_readable();
}

/// A loop device with an ext4 file system, mounted; unmounted on drop
/// (then the device is detached).
struct LoopExt4 {
    _device: LoopDevice,
    mnt: PathBuf,
}

impl LoopExt4 {
    fn new() -> LoopExt4 {
        let device = LoopDevice::new(16 << 20);
        quietly("mkfs.ext4", &["-q", "-F", device.path()]).unwrap();
        let mnt = device.dir().join("mnt");
        fs::create_dir(&mnt).unwrap();
        quietly("mount", &[device.path(), mnt.to_str().unwrap()]).unwrap();
        LoopExt4 {
            _device: device,
            mnt,
        }
    }
}

impl Drop for LoopExt4 {
    fn drop(&mut self) {
        let _ = quietly("umount", &[self.mnt.to_str().unwrap()]);
    }
}

/// Item 2: two file systems on two loop devices whose images are on the
/// same disk. What differs is their mounts and the loop devices, nothing
/// of the disk underneath, which compares with itself; every view leads
/// with one summary line, the differences grouped under it.
fn two_loop_devices_over_one_disk_differ_only_where_they_do() {
    let (one, two) = (LoopExt4::new(), LoopExt4::new());
    let tmp = tempfile::tempdir().unwrap();
    let (work, history) = (tmp.path().join("work"), tmp.path().join("history"));
    fs::create_dir(&work).unwrap();
    let run_on = |fs: &LoopExt4, json: &str| {
        let file = fs.mnt.join("ioz.tmp");
        let args = [
            "-i",
            "0",
            "-s",
            "64k",
            "-r",
            "4k",
            "-f",
            file.to_str().unwrap(),
            "--json",
            json,
        ];
        with_history(&work, &history, &args).expect_code(0);
    };
    run_on(&one, "a.json");
    run_on(&two, "b.json");
    run_on(&one, "c.json");
    let diff = ok(&work, &["env", "--diff", "a.json", "b.json"]);
    let lines: Vec<&str> = diff.stdout.lines().collect();
    assert_eq!(lines[0], "Environment differences, a.json → b.json:");
    assert!(
        lines[1]
            .starts_with("warning: 4 settings differ between the environments (mount 2, device 2)"),
        "{}",
        diff.stdout
    );
    let settings: Vec<&str> = lines[2..]
        .iter()
        .filter(|l| l.starts_with("  "))
        .map(|l| l.trim_start().split(':').next().unwrap())
        .collect();
    assert_eq!(
        settings,
        ["mount point", "mount source", "device", "backing file"],
        "{}",
        diff.stdout
    );
    assert!(!diff.stdout.contains("under"), "{}", diff.stdout);
    // ioz compare: the summary line, then a line per group, before the numbers.
    let compared = ok(
        &work,
        &["compare", "a.json", "b.json", "--text", "--html", "c.html"],
    );
    let text = &compared.stdout;
    let summary = text
        .find("  warning: 4 settings differ")
        .unwrap_or_else(|| panic!("{text}"));
    let group = text
        .find("\n    device: loop")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        summary < group && group < text.find("cells compared").unwrap(),
        "{text}"
    );
    assert!(!text.contains("under"), "{text}");
    let html = fs::read_to_string(work.join("c.html")).unwrap();
    assert!(html.contains(
        "<details class=\"envdiff\"><summary><b>b</b> against <b>a</b>: warning: 4 settings"
    ));
    // The trend: one summary line and the groups per change.
    let trend = with_history(&work, &history, &["history", "trend"]);
    trend.expect_code(0);
    let changes: Vec<&str> = trend
        .stdout
        .lines()
        .filter(|l| l.starts_with("  environment of run"))
        .collect();
    assert_eq!(changes.len(), 2, "{}", trend.stdout);
    assert!(
        changes[0].contains("warning: 4 settings differ"),
        "{}",
        trend.stdout
    );
    let groups = trend
        .stdout
        .lines()
        .filter(|l| l.starts_with("    mount: ") || l.starts_with("    device: "))
        .count();
    assert_eq!(groups, 4, "two groups a change: {}", trend.stdout);
    drop((one, two));
}

/// A cluster run made of two runs on one machine: rank 0's and rank 1's
/// tables, their sum as the run's cells, each rank on its host.
fn cluster_of(d: &Path, ranks: [&str; 2], out: &str) -> RunResult {
    let runs: Vec<RunResult> = ranks.iter().map(|r| read_run(&d.join(r))).collect();
    let mut cluster = runs[0].clone();
    cluster.ranks = runs
        .iter()
        .enumerate()
        .map(|(i, r)| RankCells {
            client: Client {
                rank: i as u32,
                host: format!("node{i}"),
            },
            test_file: format!("ioz.tmp.{i}").into(),
            cells: r.cells.clone(),
            cell_starts: Vec::new(),
            environment: None,
        })
        .collect();
    cluster.cells = sum_of_ranks(&cluster.ranks, &cluster.config);
    write_run(&d.join(out), &cluster);
    cluster
}

/// Each cell's exact rate in kB/s, by (pass, file, record).
fn rates(run: &RunResult) -> BTreeMap<(String, u64, u64), f64> {
    run.cells
        .iter()
        .flat_map(|c| &c.measurements)
        .map(|m| {
            let rate = m.bytes as f64 / 1024.0 / (m.elapsed_ns as f64 / 1e9);
            (
                (m.pass.name().to_string(), m.file_bytes, m.record_bytes),
                rate,
            )
        })
        .collect()
}

/// Item 4: `run.json#rank=N` in compare (files, directories, `@`
/// references), report and env --diff; a rank that is not there, or a
/// run of one machine, refused in one line.
fn every_command_that_reads_a_run_takes_one_rank_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (json, file) in [("r0.json", "t0"), ("r1.json", "t1")] {
        ok(
            d,
            &[
                "-s", "64k", "-r", "4k", "-i", "0", "-i", "2", "-f", file, "--json", json,
            ],
        );
    }
    let cluster = cluster_of(d, ["r0.json", "r1.json"], "vm.json");
    let compared = ok(
        d,
        &[
            "compare",
            "vm.json#rank=0",
            "vm.json#rank=1",
            "--json",
            "c.json",
            "--text",
        ],
    );
    let doc = read_json(&d.join("c.json"));
    assert_eq!(doc["baseline"]["label"], "vm (rank 0)", "{doc}");
    assert_eq!(doc["pairs"][0]["other"]["label"], "vm (rank 1)");
    assert_eq!(doc["pairs"][0]["other"]["source"], "vm.json#rank=1");
    let cells = doc["pairs"][0]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 4, "{}", compared.stdout);
    let (r0, r1) = (
        rates(&read_run(&d.join("r0.json"))),
        rates(&read_run(&d.join("r1.json"))),
    );
    for c in cells {
        let key = (
            c["cell"]["pass"].as_str().unwrap().replace('_', " "),
            c["cell"]["file_bytes"].as_u64().unwrap(),
            c["cell"]["record_bytes"].as_u64().unwrap(),
        );
        let ratio = r1[&key] / r0[&key];
        assert!(
            (c["ratio"].as_f64().unwrap() / ratio - 1.0).abs() < 1e-9,
            "{c}"
        );
    }
    // The whole run is the sum, and its label says so.
    ok(d, &["compare", "vm.json", "r0.json", "--json", "s.json"]);
    assert_eq!(
        read_json(&d.join("s.json"))["baseline"]["label"],
        "vm (sum of 2 clients)"
    );
    // A directory of cluster runs, each of rank 1.
    fs::create_dir(d.join("runs")).unwrap();
    fs::copy(d.join("vm.json"), d.join("runs/vm.json")).unwrap();
    ok(
        d,
        &["compare", "runs#rank=1", "r1.json", "--json", "dir.json"],
    );
    let same = read_json(&d.join("dir.json"));
    assert!(
        same["pairs"][0]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["ratio"] == 1.0)
    );
    // ioz report: rank 1's own run.
    ok(d, &["report", "vm.json#rank=1", "--json", "one.json"]);
    let one = read_run(&d.join("one.json"));
    assert_eq!(one.cells, cluster.ranks[1].cells);
    assert!(one.ranks.is_empty());
    assert_eq!(one.environment.hostname, "node1");
    // ioz env --diff: each rank on its host.
    let diff = ok(d, &["env", "--diff", "vm.json#rank=0", "vm.json#rank=1"]);
    assert!(
        diff.stdout.contains("  host: node0 → node1"),
        "{}",
        diff.stdout
    );
    // Refused in one line, before anything is written.
    assert_refused(
        &ioz(d, &["report", "vm.json#rank=2"]),
        "vm.json#rank=2: it has ranks 0 to 1, not 2",
    );
    assert_refused(
        &ioz(d, &["compare", "r0.json#rank=0", "r1.json"]),
        "r0.json#rank=0: it ran on one machine: it has no ranks",
    );
    assert_refused(
        &ioz(d, &["report", "vm.json#rank=x"]),
        "'#rank=' takes a rank's number",
    );
    let log = data_file("iozone-reference/auto.txt").display().to_string();
    assert_refused(
        &ioz(d, &["compare", &format!("{log}#rank=0"), &log]),
        "IOzone's output has no ranks",
    );
    // `@` references of the history.
    let history = d.join("history");
    with_history(d, &history, &["history", "import", "vm.json"]).expect_code(0);
    let at = with_history(
        d,
        &history,
        &["compare", "@1#rank=0", "@1#rank=1", "--json", "h.json"],
    );
    at.expect_code(0);
    let h = read_json(&d.join("h.json"));
    assert!(
        h["baseline"]["label"]
            .as_str()
            .unwrap()
            .ends_with("(rank 0)"),
        "{h}"
    );
    // The same cells; their causes name the inputs, which are named apart.
    let without_why = |v: &Value| {
        let mut cells = v["pairs"][0]["cells"].clone();
        for c in cells.as_array_mut().unwrap() {
            c.as_object_mut().unwrap().remove("why");
        }
        cells
    };
    assert_eq!(without_why(&h), without_why(&doc));
    let summed = with_history(
        d,
        &history,
        &["compare", "@1", "r0.json", "--json", "hs.json"],
    );
    summed.expect_code(0);
    assert!(
        read_json(&d.join("hs.json"))["baseline"]["label"]
            .as_str()
            .unwrap()
            .ends_with("(sum of 2 clients)")
    );
    let none = with_history(d, &history, &["compare", "@1#rank=3", "r0.json"]);
    assert_refused(&none, "run 1#rank=3: it has ranks 0 to 1, not 3");
    // Throughput mode: each rank's workers of every phase.
    ok(
        d,
        &[
            "-t", "4", "-s", "64k", "-r", "4k", "-i", "0", "--json", "t.json",
        ],
    );
    let mut t = read_run(&d.join("t.json"));
    for p in &mut t.throughput {
        for (i, w) in p.results.iter_mut().enumerate() {
            w.client = Some(Client {
                rank: i as u32 % 2,
                host: format!("node{}", i % 2),
            });
        }
    }
    write_run(&d.join("t.json"), &t);
    ok(d, &["report", "t.json#rank=1", "--json", "t1.json"]);
    let t1 = read_run(&d.join("t1.json"));
    for p in &t1.throughput {
        assert_eq!(p.workers, 2);
        assert!(
            p.results
                .iter()
                .all(|w| w.client.as_ref().unwrap().rank == 1)
        );
    }
    ok(
        d,
        &[
            "compare",
            "t.json#rank=0",
            "t.json#rank=1",
            "--json",
            "tc.json",
        ],
    );
    let tc = read_json(&d.join("tc.json"));
    assert!(
        tc["pairs"][0]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["cell"]["workers"] == 2)
    );
}

/// Item 4's other half: every view of a cluster run's sum says "sum of 2
/// clients": the plots' titles, the HTML report's sections and captions,
/// the .xlsx sheets and charts.
fn a_cluster_runs_sum_says_so_in_every_title() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (json, file) in [("r0.json", "t0"), ("r1.json", "t1")] {
        ok(
            d,
            &[
                "-a", "-n", "64k", "-g", "128k", "-i", "0", "-i", "2", "-f", file, "--json", json,
            ],
        );
    }
    cluster_of(d, ["r0.json", "r1.json"], "vm.json");
    ok(
        d,
        &[
            "report", "vm.json", "--plots", "plots", "--html", "r.html", "-b", "r.xlsx",
        ],
    );
    let svg = fs::read_to_string(d.join("plots/random-write.svg")).unwrap();
    assert!(svg.contains("— sum of 2 clients"), "the plot's title");
    let html = fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("(random write, sum of 2 clients)</small></h2>"));
    assert_eq!(
        html.matches("<figcaption>Random write report (sum of 2 clients)")
            .count(),
        3,
        "each of the test's charts"
    );
    let mut book: Xlsx<_> = open_workbook(d.join("r.xlsx")).unwrap();
    let sheet = book.worksheet_range("Random Write Report").unwrap();
    assert_eq!(
        sheet.get_value((0, 0)),
        Some(&Data::String(
            "Random Write Report (kB/s, sum of 2 clients)".into()
        ))
    );
    let mut archive = zip::ZipArchive::new(fs::File::open(d.join("r.xlsx")).unwrap()).unwrap();
    let mut chart = String::new();
    std::io::Read::read_to_string(
        &mut archive.by_name("xl/charts/chart1.xml").unwrap(),
        &mut chart,
    )
    .unwrap();
    assert!(
        chart.contains("by record size, sum of 2 clients"),
        "{chart}"
    );
    // One rank's report is its own: no sum said.
    ok(d, &["report", "vm.json#rank=0", "--html", "one.html"]);
    assert!(
        !fs::read_to_string(d.join("one.html"))
            .unwrap()
            .contains("sum of 2 clients")
    );
}

/// The number in a scaling table's cell.
fn cell_of(text: &str, title: &str, workers: &str, column: usize) -> f64 {
    let mut lines = text.lines().skip_while(|l| *l != title);
    assert!(lines.next().is_some(), "no table {title:?}:\n{text}");
    lines
        .skip(1)
        .take_while(|l| !l.is_empty())
        .find(|l| l.split_whitespace().next() == Some(workers))
        .and_then(|l| l.split_whitespace().nth(column))
        .unwrap_or_else(|| panic!("{title}: no {workers} workers:\n{text}"))
        .parse()
        .unwrap()
}

/// Item 6: the scaling study, scaled down: 1, 2 and 4 threads × 8-byte,
/// 8 kB and 64 kB records, a run per record size. `ioz report --scaling`
/// gives a table per test, rows worker counts, columns record sizes, in
/// MB/s (Children see), then p50 and p99 tables in the unit asked for.
fn report_scaling_tables_rows_workers_columns_record_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for rec in ["8b", "8k", "64k"] {
        let json = format!("r{rec}.json");
        ok(
            d,
            &[
                "-t",
                "1",
                "-t",
                "2",
                "-t",
                "4",
                "-T",
                "-s",
                "64k",
                "-r",
                rec,
                "-i",
                "0",
                "-i",
                "2",
                "--latency",
                "--json",
                &json,
            ],
        );
    }
    let args = ["report", "--scaling", "r8b.json", "r8k.json", "r64k.json"];
    let tables = ok(d, &args).stdout.clone();
    let head = tables
        .lines()
        .skip_while(|l| *l != "random write: throughput in MB/s")
        .nth(1)
        .unwrap_or_else(|| panic!("{tables}"));
    assert_eq!(
        head.split_whitespace().collect::<Vec<_>>(),
        ["workers", "8", "bytes", "8", "KiB", "64", "KiB"]
    );
    // 2 workers of 8 KiB records: the run's Children see, in MB/s.
    let run = read_json(&d.join("r8k.json"));
    let phase = run["throughput"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pass"] == "random_write" && p["workers"] == 2)
        .unwrap();
    let children: f64 = phase["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["bytes"].as_f64().unwrap() / (w["elapsed_ns"].as_f64().unwrap() / 1e9))
        .sum();
    let shown = cell_of(&tables, "random write: throughput in MB/s", "2", 2);
    assert!(
        (shown / (children / 1e6) - 1.0).abs() < 0.01,
        "{shown} against {}",
        children / 1e6
    );
    for test in ["write", "rewrite", "random read"] {
        assert!(
            tables.contains(&format!("\n{test}: throughput in MB/s\n")),
            "{test}"
        );
        assert!(
            tables.contains(&format!("\n{test}: p50 latency in ")),
            "{test}"
        );
        assert!(
            tables.contains(&format!("\n{test}: p99 latency in ")),
            "{test}"
        );
    }
    let mut with_unit = args.to_vec();
    with_unit.extend(["--latency-unit", "ns"]);
    let ns = ok(d, &with_unit).stdout.clone();
    let p50 = cell_of(&ns, "write: p50 latency in ns", "1", 2);
    let saved = run["throughput"][0]["latency"]["percentiles"][0]["ns"]
        .as_f64()
        .unwrap();
    assert!((p50 / saved - 1.0).abs() < 0.01, "{p50} against {saved}");
    // A sweep in one run: -l 1 -u 2.
    ok(
        d,
        &[
            "-l",
            "1",
            "-u",
            "2",
            "-s",
            "64k",
            "-r",
            "4k",
            "-i",
            "0",
            "--json",
            "sweep.json",
        ],
    );
    let sweep = ok(d, &["report", "--scaling", "sweep.json"]).stdout.clone();
    assert!(sweep.contains("No latency tables: the runs were not measured with --latency."));
    cell_of(&sweep, "write: throughput in MB/s", "2", 1);
    assert_refused(
        &ioz(d, &["report", "r8b.json", "--latency-unit", "ms"]),
        "--latency-unit is the unit of --scaling's tables",
    );
    assert_refused(
        &ioz(d, &["report", "r8b.json", "r8k.json"]),
        "several with --scaling",
    );
}

/// Seed 002's table: a `-t 1 -t 2 -t 4 -t 8 -+k` sweep per record size
/// (each worker writes 1/N of the file, so every row's workers have
/// another share of it) is one table per test, rows 1, 2, 4, 8 workers,
/// columns the record sizes, each cell the phase's Children see. Before,
/// a table per worker's file size, of one row each.
fn a_minus_k_sweep_is_one_scaling_table_per_test() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let records = ["4k", "64k"];
    for rec in records {
        let json = format!("r{rec}.json");
        let mut args = vec!["-t", "1", "-t", "2", "-t", "4", "-t", "8", "-+k", "-T"];
        args.extend(["-s", "1m", "-r", rec, "-i", "0", "-i", "1", "--json", &json]);
        ok(d, &args);
    }
    let tables = ok(d, &["report", "--scaling", "r4k.json", "r64k.json"])
        .stdout
        .clone();
    assert!(tables.contains("with -+k the workers of a row share the file size"));
    for test in ["write", "rewrite", "read", "reread"] {
        let title = format!("{test}: throughput in MB/s");
        assert_eq!(
            tables
                .lines()
                .filter(|l| l.starts_with(test) && l.contains("throughput"))
                .count(),
            1,
            "one {test} table:\n{tables}"
        );
        let mut lines = tables.lines().skip_while(|l| *l != title).skip(1);
        assert_eq!(
            lines.next().unwrap().split_whitespace().collect::<Vec<_>>(),
            ["workers", "4", "KiB", "64", "KiB"],
            "{tables}"
        );
        let rows: Vec<&str> = lines
            .take_while(|l| !l.is_empty())
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(rows, ["1", "2", "4", "8"], "{test}:\n{tables}");
    }
    // Each cell is its phase's Children see (the workers' bytes over their
    // own times, summed), in MB/s.
    for (column, rec) in records.iter().enumerate() {
        let run = read_json(&d.join(format!("r{rec}.json")));
        for phase in run["throughput"].as_array().unwrap() {
            let workers = phase["workers"].as_u64().unwrap();
            let pass = phase["pass"].as_str().unwrap();
            let children: f64 = phase["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| w["bytes"].as_f64().unwrap() / (w["elapsed_ns"].as_f64().unwrap() / 1e9))
                .sum();
            let title = format!("{}: throughput in MB/s", pass.replace('_', " "));
            let shown = cell_of(&tables, &title, &workers.to_string(), column + 1);
            let expected = children / 1e6;
            // The table prints three significant digits.
            assert!(
                (shown / expected - 1.0).abs() < 0.01,
                "{title} {workers} workers, {rec}: {shown} against {expected}"
            );
        }
    }
}

/// The cells of a BIFF2 worksheet that hold numbers, by (row, column).
fn biff_numbers(bytes: &[u8]) -> BTreeMap<(u16, u16), f64> {
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
    let mut numbers = BTreeMap::new();
    let mut i = 8;
    while i + 4 <= bytes.len() {
        let (op, len) = (u16_at(i), usize::from(u16_at(i + 2)));
        if op == 0x0003 {
            let at = (u16_at(i + 4), u16_at(i + 6));
            numbers.insert(
                at,
                f64::from_le_bytes(bytes[i + 11..i + 19].try_into().unwrap()),
            );
        }
        i += 4 + len;
    }
    numbers
}

/// Item 7: a run that failed in the rewrite of the 128 kB file's 8 kB
/// cell (its saved run cut there). Its -R report and .xls leave the cells
/// it never measured blank (IOzone's 0 would read as measured); the
/// measured zero stays 0; the complete run's report is as before.
fn a_run_that_stopped_early_leaves_what_it_never_measured_blank() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "-a",
            "-n",
            "64k",
            "-g",
            "128k",
            "-i",
            "0",
            "-f",
            "t.tmp",
            "--json",
            "full.json",
        ],
    );
    let mut run = read_run(&d.join("full.json"));
    // The 128 kB row: 4 kB measured (its rewrite moved nothing: a measured
    // 0), 8 kB written only, 16 kB onwards never reached.
    run.cells.truncate(5 + 2);
    let last = run.cells.last_mut().unwrap();
    last.measurements.truncate(1);
    let rewrite = &mut run.cells[5].measurements[1];
    rewrite.bytes = 0;
    run.status = ioz::model::result::RunStatus::Failed("write failed".into());
    write_run(&d.join("failed.json"), &run);
    let out = ok(d, &["report", "failed.json", "-R", "-b", "f.xls"])
        .stdout
        .clone();
    let block = |title: &str| -> Vec<String> {
        out.lines()
            .skip_while(|l| *l != format!("\"{title}\""))
            .skip(2)
            .take_while(|l| l.starts_with('"'))
            .map(str::to_string)
            .collect()
    };
    let writer = block("Writer report");
    assert_eq!(
        writer[0].split_whitespace().count(),
        1 + 5,
        "64 kB: 5 records: {out}"
    );
    assert_eq!(
        writer[1].split_whitespace().count(),
        1 + 2,
        "128 kB: two measured: {out}"
    );
    let rewriter = block("Re-writer report");
    assert_eq!(
        rewriter[1].split_whitespace().collect::<Vec<_>>(),
        ["\"128\"", "0"],
        "the measured 0 alone: {out}"
    );
    let numbers = biff_numbers(&fs::read(d.join("f.xls")).unwrap());
    // Row 3 "Writer Report", 4 record sizes, 5 the 64 kB row, 6 the 128 kB row.
    let row = |r: u16| -> Vec<f64> {
        (1..=6)
            .filter_map(|c| numbers.get(&(r, c)).copied())
            .collect()
    };
    assert_eq!(row(5).len(), 5);
    assert_eq!(
        row(6).len(),
        2,
        "no 0 where nothing was measured: {:?}",
        row(6)
    );
    // The complete run: IOzone's layout, every cell present.
    let full = ok(d, &["report", "full.json", "-R"]).stdout.clone();
    assert!(full.contains("\"128\"  "), "{full}");
}

/// Item 8: an 8-byte record reads 0.0078125 kB in the latency table as in
/// the main table (it read 0).
fn eight_byte_records_read_alike_in_every_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(
        dir.path(),
        &[
            "-s",
            "64k",
            "-r",
            "8b",
            "-i",
            "0",
            "--latency",
            "--html",
            "r.html",
        ],
    );
    let row = out
        .stdout
        .lines()
        .find(|l| l.starts_with("write "))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    assert_eq!(
        &row.split_whitespace().collect::<Vec<_>>()[..3],
        ["write", "64", "0.0078125"]
    );
    let html = fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(
        html.contains("<th scope=\"row\">0.0078125</th>"),
        "the HTML's table"
    );
}

/// Item 9: a test whose mean ratio is within the band, one of its cells
/// 15 % slower (significantly): the grid marks the cell, and the per-test
/// row's mark beside its 0.97 is what a legend says it is. Since issue 35
/// (item 8) a test's mark is its cells' verdicts', never the band's (a
/// mean beyond the band over cells none of which differs was marked `+`
/// under "0 faster"): one cell slower and none faster, `-`.
fn text_comparison_marks_say_what_the_ratio_beside_them_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut other = read_json(&data_file("compare/base.json"));
    for m in other["cells"][0]["measurements"].as_array_mut().unwrap() {
        if m["pass"] == "write" {
            let bytes = m["bytes"].as_f64().unwrap() * 0.85;
            m["bytes"] = Value::from(bytes as u64);
        }
    }
    fs::write(d.join("other.json"), other.to_string()).unwrap();
    let base = data_file("compare/base.json").display().to_string();
    let out = ok(d, &["compare", &base, "other.json"]).stdout.clone();
    assert!(
        out.contains("after a ratio, + faster or - slower (adjusted p < 0.05 and beyond ±5 %), no mark the same"),
        "{out}"
    );
    assert!(out.contains("  0.850-"), "the cell: {out}");
    let row = out
        .lines()
        .find(|l| l.starts_with("other / base"))
        .unwrap_or_else(|| panic!("{out}"));
    let write = row.split_whitespace().nth(3).unwrap();
    assert!(write.starts_with("0.9"), "{row}");
    assert!(write.ends_with('-'), "a cell slower, none faster: {row}");
    assert!(
        out.contains("marked by its cells' verdicts: + some faster and none slower, - some slower and none faster"),
        "{out}"
    );
}

/// Item 11: -M's lines name the file system, its mount and mount source,
/// then the device, as the run's JSON does.
fn dash_m_names_the_file_system_mount_source_and_device() {
    let dir = tempfile::tempdir().unwrap();
    let out = ok(
        dir.path(),
        &[
            "-M", "-i", "0", "-s", "64k", "-r", "4k", "-f", "ioz.tmp", "--json", "r.json",
        ],
    );
    let target = &read_json(&dir.path().join("r.json"))["environment"]["target"];
    let lines: Vec<&str> = out.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("\tFile system: "))
        .unwrap_or_else(|| panic!("{}", out.stdout));
    let expected = format!(
        "\tFile system: {} on {} (mount source {}, options {})",
        target["fs_type"].as_str().unwrap(),
        target["mount_point"].as_str().unwrap(),
        target["source"].as_str().unwrap(),
        target["mount_options"].as_str().unwrap()
    );
    assert_eq!(lines[at], expected);
    assert!(lines[at + 1].starts_with("\tDevice: "), "{}", out.stdout);
}
