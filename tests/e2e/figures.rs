//! Figures a paper can use (issue 13): the 2-D views of every test next to
//! the 3-D surface, their ticks and units, `--plot-scale shared` and
//! `--plot-log` for a run and for `ioz report`, the captions of a `-+k`
//! sweep, a virtual disk's rotational flag in the kernel's words, and a run
//! saved before all this (tests/fixtures/saved-runs/before-2d-views.json,
//! written by ioz 0.1.0 before the 2-D views) rendered again.

use std::fs;
use std::io::Read;
use std::path::Path;

use crate::fixtures::{Test, assert_refused, data_file, ioz, list_dir, skip, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        an_auto_run_draws_the_2d_views_of_every_test,
        every_size_has_a_tick_and_throughput_reads_in_mb_or_gb_per_second,
        micros_per_op_runs_keep_their_unit,
        plot_scale_and_plot_log_apply_to_a_run_and_to_ioz_report,
        a_bad_plot_scale_is_refused,
        a_plus_k_sweep_gives_each_file_its_share_in_the_captions,
        a_virtio_disk_is_rotational_in_the_kernel_s_words,
        a_live_run_on_a_virtio_disk_says_so,
        a_run_saved_before_the_2d_views_still_renders,
    ]
}

/// The size of every plot file (src/report/plots/mod.rs, PLOT_SIZE).
const PLOT_SIZE: (u32, u32) = (1200, 900);

/// The names of the PNG and SVG of each view of each pass.
fn plot_names(passes: &[&str], views: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = passes
        .iter()
        .flat_map(|p| {
            views
                .iter()
                .flat_map(move |v| [format!("{p}{v}.png"), format!("{p}{v}.svg")])
        })
        .collect();
    names.sort();
    names
}

const ALL_VIEWS: [&str; 3] = ["", "-by-file-size", "-by-record-size"];

/// Decodes a PNG: its size, and that it is a drawing (many colours), not a
/// blank page.
fn check_png(path: &Path) {
    let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let image = image::load_from_memory_with_format(&bytes, image::ImageFormat::Png)
        .unwrap_or_else(|e| panic!("{} does not decode: {e}", path.display()))
        .to_rgb8();
    assert_eq!(image.dimensions(), PLOT_SIZE, "{}", path.display());
    let mut colours: Vec<[u8; 3]> = image.pixels().step_by(7).map(|p| p.0).collect();
    colours.sort_unstable();
    colours.dedup();
    assert!(
        colours.len() > 30,
        "{} has {} colours: blank?",
        path.display(),
        colours.len()
    );
}

/// The text of every `<text>` element of an SVG, trimmed.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let start = t.find('>')? + 1;
            let end = t.find("</text>")?;
            Some(t[start..end].trim().to_string())
        })
        .collect()
}

/// An SVG plot file: whole, of the plot size; returns its texts.
fn check_svg(path: &Path) -> Vec<String> {
    let svg = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(svg.trim_start().starts_with("<svg"), "{}", path.display());
    assert!(svg.trim_end().ends_with("</svg>"), "{}", path.display());
    let (w, h) = PLOT_SIZE;
    assert!(
        svg.contains(&format!("viewBox=\"0 0 {w} {h}\"")),
        "{}",
        path.display()
    );
    svg_texts(&svg)
}

fn an_auto_run_draws_the_2d_views_of_every_test() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-a", "-n", "64k", "-g", "512k", "-i", "0", "-i", "2", "--plots", "p", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    let p = dir.path().join("p");
    let passes = ["write", "rewrite", "random-read", "random-write"];
    assert_eq!(list_dir(&p), plot_names(&passes, &ALL_VIEWS));
    for pass in passes {
        for view in ALL_VIEWS {
            check_png(&p.join(format!("{pass}{view}.png")));
            let texts = check_svg(&p.join(format!("{pass}{view}.svg")));
            let title = texts[0].as_str();
            match view {
                "-by-file-size" => {
                    assert!(title.contains("by file size"), "{title}");
                    assert!(texts.iter().any(|t| t == "File size (log2)"), "{texts:?}");
                    assert!(texts.iter().any(|t| t == "Record size"), "the legend");
                }
                "-by-record-size" => {
                    assert!(title.contains("by record size"), "{title}");
                    assert!(texts.iter().any(|t| t == "Record size (log2)"), "{texts:?}");
                    assert!(texts.iter().any(|t| t == "File size"), "the legend");
                }
                _ => assert!(texts.iter().any(|t| t == "File size")),
            }
        }
    }
}

fn every_size_has_a_tick_and_throughput_reads_in_mb_or_gb_per_second() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-a", "-n", "64k", "-g", "2m", "-i", "0", "-+n", "--plots", "p", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    let files = ["64K", "128K", "256K", "512K", "1M", "2M"];
    let records = [
        "4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K", "1M", "2M",
    ];
    for view in ALL_VIEWS {
        let texts = check_svg(&dir.path().join(format!("p/write{view}.svg")));
        // The largest file size too (it had no tick before).
        for label in files.iter().chain(&records) {
            assert!(
                texts.iter().any(|t| t == label),
                "write{view}.svg: no {label} in {texts:?}"
            );
        }
        let units: Vec<&String> = texts
            .iter()
            .filter(|t| t.starts_with("MB/s") || t.starts_with("GB/s"))
            .collect();
        assert!(
            !units.is_empty(),
            "write{view}.svg: no MB/s or GB/s: {texts:?}"
        );
        assert!(
            !texts.iter().any(|t| t.contains("kB/s")),
            "write{view}.svg: {texts:?}"
        );
        // No value label with a k/M suffix on a rate ("25M").
        assert!(
            !texts
                .iter()
                .any(|t| t.len() > 1 && t.ends_with('M') && t[..t.len() - 1].contains('.')),
            "write{view}.svg: {texts:?}"
        );
    }
}

fn micros_per_op_runs_keep_their_unit() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-a", "-n", "64k", "-g", "256k", "-i", "0", "-+n", "-N", "--plots", "p", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    for view in ALL_VIEWS {
        let texts = check_svg(&dir.path().join(format!("p/write{view}.svg")));
        assert!(texts.iter().any(|t| t == "µs/op"), "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("MB/s")), "{texts:?}");
    }
}

fn plot_scale_and_plot_log_apply_to_a_run_and_to_ioz_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = ioz(
        d,
        &[
            "-a",
            "-n",
            "64k",
            "-g",
            "256k",
            "-i",
            "0",
            "-+n",
            "--plots",
            "p",
            "--json",
            "r.json",
            "--plot-scale",
            "shared",
            "--plot-log",
            "-f",
            "t.tmp",
        ],
    );
    run.expect_code(0);
    let texts = check_svg(&d.join("p/write-by-file-size.svg"));
    let subtitle = &texts[1];
    assert!(subtitle.contains("log scale"), "{subtitle}");
    assert!(subtitle.contains("one scale for all tests"), "{subtitle}");
    assert!(
        texts.iter().any(|t| t.ends_with("(log scale)")),
        "{texts:?}"
    );
    let json = fs::read_to_string(d.join("r.json")).unwrap();
    assert!(json.contains("\"shared_scale\": true"), "saved in the run");

    // ioz report keeps the saved style, and its flags change it.
    let report = ioz(
        d,
        &[
            "report",
            "r.json",
            "--plots",
            "q",
            "--plot-scale",
            "own",
            "--html",
            "q.html",
        ],
    );
    report.expect_code(0);
    let subtitle = check_svg(&d.join("q/write-by-file-size.svg"))[1].clone();
    assert!(subtitle.contains("log scale"), "{subtitle}");
    assert!(!subtitle.contains("one scale"), "{subtitle}");
    let html = fs::read_to_string(d.join("q.html")).unwrap();
    assert!(html.contains("logarithmic value axis; each test on its own scale"));

    // Without flags, as saved.
    ioz(d, &["report", "r.json", "--plots", "saved"]).expect_code(0);
    let subtitle = check_svg(&d.join("saved/write-by-file-size.svg"))[1].clone();
    assert!(
        subtitle.contains("log scale, one scale for all tests"),
        "{subtitle}"
    );
}

fn a_bad_plot_scale_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-s",
            "64k",
            "-r",
            "64k",
            "-i",
            "0",
            "--plot-scale",
            "wide",
            "-f",
            "t.tmp",
        ],
    );
    let line = assert_refused(&run, "--plot-scale");
    assert_eq!(
        line,
        "ioz: --plot-scale: 'wide' is not a plot scale (own or shared)"
    );
    let run = ioz(dir.path(), &["report", "r.json", "--plot-scale", "wide"]);
    assert_refused(&run, "--plot-scale: 'wide' is not a plot scale");
    let run = ioz(dir.path(), &["report", "r.json", "--plot-scale"]);
    assert_refused(&run, "--plot-scale");
}

fn a_plus_k_sweep_gives_each_file_its_share_in_the_captions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let run = ioz(
        d,
        &[
            "-s", "4m", "-r", "64k", "-i", "0", "-+n", "-l", "1", "-u", "4", "-+k", "--plots", "p",
            "--html", "h.html", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    let want = "each file is 4 MiB/N (4 MiB with 1, 2 MiB with 2, 1.3 MiB with 3, 1 MiB with 4), \
                4 MiB in total";
    let caption = check_svg(&d.join("p/write.svg")).join(" ");
    assert!(caption.contains(want), "{caption}");
    assert!(!caption.contains("16 MiB"), "{caption}");
    let html = fs::read_to_string(d.join("h.html")).unwrap();
    let texts = svg_texts(&html).join(" ");
    assert!(texts.contains(want), "the HTML's plot: {texts}");
    assert!(!texts.contains("16 MiB"), "{texts}");

    // Without -+k every file has the whole size.
    let run = ioz(
        d,
        &[
            "-s", "1m", "-r", "64k", "-i", "0", "-+n", "-l", "1", "-u", "2", "--plots", "q", "-f",
            "t.tmp",
        ],
    );
    run.expect_code(0);
    let caption = check_svg(&d.join("q/write.svg")).join(" ");
    assert!(
        caption
            .contains("Each process: file size 1 MiB, record size 64 KiB; 2 MiB in total with 2."),
        "{caption}"
    );
}

/// The value of the Environment sheet's row `key` in an .xlsx workbook.
fn xlsx_environment(path: &Path, key: &str) -> Option<String> {
    use calamine::{Reader, Xlsx, open_workbook};
    let mut book: Xlsx<_> = open_workbook(path).unwrap();
    let sheet = book.worksheet_range("Environment").unwrap();
    sheet.rows().find_map(|row| {
        (*row.first()? == key).then(|| row.get(1).map(|c| c.to_string()).unwrap_or_default())
    })
}

/// The saved run before the 2-D views, on a virtio disk ("vda") with the
/// driver written in as a new run records it.
fn saved_run_with_driver(dir: &Path) -> std::path::PathBuf {
    let saved = fs::read_to_string(data_file("saved-runs/before-2d-views.json")).unwrap();
    let old = "\"scheduler\": \"mq-deadline\"";
    assert!(saved.contains(old), "the fixture changed");
    let path = dir.join("virtio.json");
    fs::write(
        &path,
        saved.replacen(
            old,
            "\"scheduler\": \"mq-deadline\", \"driver\": \"virtio_blk\"",
            1,
        ),
    )
    .unwrap();
    path
}

fn a_virtio_disk_is_rotational_in_the_kernel_s_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    saved_run_with_driver(d);
    ioz(
        d,
        &["report", "virtio.json", "--html", "h.html", "-b", "e.xlsx"],
    )
    .expect_code(0);
    let words = "the kernel reports rotational (queue/rotational = 1) for this virtio disk \
                 (virtio_blk); a virtual disk does not show the medium behind it";
    let html = fs::read_to_string(d.join("h.html")).unwrap();
    assert!(
        html.contains(&format!(
            "<tr><th scope=\"row\">Rotational</th><td>{words}</td></tr>"
        )),
        "HTML"
    );
    assert!(!html.contains("<th scope=\"row\">Rotational</th><td>yes</td>"));
    assert_eq!(
        xlsx_environment(&d.join("e.xlsx"), "Rotational").as_deref(),
        Some(words)
    );
    assert_eq!(
        xlsx_environment(&d.join("e.xlsx"), "Driver").as_deref(),
        Some("virtio_blk")
    );

    // A run saved before ioz recorded the driver: the disk's name tells.
    let saved = data_file("saved-runs/before-2d-views.json");
    ioz(
        d,
        &["report", saved.to_str().unwrap(), "--html", "old.html"],
    )
    .expect_code(0);
    let html = fs::read_to_string(d.join("old.html")).unwrap();
    assert!(
        html.contains(
            "<tr><th scope=\"row\">Rotational</th><td>the kernel reports rotational \
             (queue/rotational = 1) for this virtio disk; a virtual disk"
        ),
        "old run"
    );
}

/// The driver of block device `name` here, from sysfs.
fn driver_of(name: &str) -> Option<String> {
    let link = fs::read_link(format!("/sys/block/{name}/device/driver")).ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

fn a_live_run_on_a_virtio_disk_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ioz(
        d,
        &[
            "-s", "64k", "-r", "64k", "-i", "0", "-+n", "--json", "r.json", "--html", "h.html",
            "-f", "t.tmp",
        ],
    )
    .expect_code(0);
    let json: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(d.join("r.json")).unwrap()).unwrap();
    let device = &json["environment"]["target"]["device"];
    let Some(name) = device["name"].as_str() else {
        skip("the temporary directory is on no block device here");
    };
    let driver = driver_of(name);
    assert_eq!(device["driver"].as_str(), driver.as_deref(), "{device}");
    if driver.as_deref() != Some("virtio_blk") {
        skip(format!("{name} is not a virtio disk here"));
    }
    let html = fs::read_to_string(d.join("h.html")).unwrap();
    let row = html
        .lines()
        .find(|l| l.starts_with("<tr><th scope=\"row\">Rotational</th>"))
        .expect("a Rotational row");
    if device["rotational"].as_bool().is_some() {
        assert!(row.contains("for this virtio disk (virtio_blk)"), "{row}");
    }
}

fn a_run_saved_before_the_2d_views_still_renders() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let saved = data_file("saved-runs/before-2d-views.json");
    let mut text = String::new();
    fs::File::open(&saved)
        .unwrap()
        .read_to_string(&mut text)
        .unwrap();
    assert!(
        !text.contains("plot_style") && !text.contains("driver"),
        "an older run"
    );
    let report = ioz(
        d,
        &[
            "report",
            saved.to_str().unwrap(),
            "--plots",
            "p",
            "--html",
            "h.html",
        ],
    );
    report.expect_code(0);
    assert!(report.stderr.is_empty(), "{}", report.stderr);
    let passes = ["write", "rewrite", "random-read", "random-write"];
    assert_eq!(list_dir(&d.join("p")), plot_names(&passes, &ALL_VIEWS));
    check_png(&d.join("p/random-write-by-record-size.png"));
    let html = fs::read_to_string(d.join("h.html")).unwrap();
    assert_eq!(html.matches("<table class=\"numbers grid\">").count(), 4);
    assert_eq!(html.matches("<svg").count(), 12);
}
