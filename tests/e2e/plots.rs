//! --plots DIR with the real binary: a PNG and an SVG of each view of each
//! reported pass, of the promised size and shape, for full grids and for
//! degenerate runs.

use std::fs;
use std::path::Path;

use crate::fixtures::{Test, ioz, list_dir, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        an_auto_run_plots_every_pass_as_png_and_svg,
        degenerate_runs_still_get_plots_in_a_new_directory,
    ]
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
/// The size of every plot (src/report/plots/mod.rs, PLOT_SIZE).
const WIDTH: u32 = 1200;
const HEIGHT: u32 = 900;

/// Width and height from a PNG's IHDR chunk, which must come first.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert!(png.len() > 24, "a PNG of {} bytes", png.len());
    assert_eq!(&png[..8], PNG_SIGNATURE, "not a PNG");
    assert_eq!(&png[12..16], b"IHDR", "the first chunk is not IHDR");
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

/// Checks the PNG and SVG of each stem in `dir`: shape, size, and that the SVG
/// has text. Returns the SVGs.
fn check_plots(dir: &Path, stems: &[&str]) -> Vec<String> {
    let mut expected: Vec<String> = stems
        .iter()
        .flat_map(|s| [format!("{s}.png"), format!("{s}.svg")])
        .collect();
    expected.sort();
    assert_eq!(list_dir(dir), expected);
    let mut svgs = Vec::new();
    for stem in stems {
        let png = fs::read(dir.join(format!("{stem}.png"))).unwrap();
        assert_eq!(png_size(&png), (WIDTH, HEIGHT), "{stem}.png");
        assert!(
            (10_000..4_000_000).contains(&png.len()),
            "{stem}.png has {} bytes",
            png.len()
        );
        let svg = fs::read_to_string(dir.join(format!("{stem}.svg"))).unwrap();
        let head = svg.trim_start();
        assert!(
            head.starts_with("<svg") || head.starts_with("<?xml"),
            "{stem}.svg starts with {:?}",
            &head[..head.len().min(40)]
        );
        assert!(
            svg.trim_end().ends_with("</svg>"),
            "{stem}.svg is cut short"
        );
        assert!(svg.contains("<text"), "{stem}.svg has no text");
        assert!(svg.contains(&format!("viewBox=\"0 0 {WIDTH} {HEIGHT}\"")));
        assert!(
            (2_000..4_000_000).contains(&svg.len()),
            "{stem}.svg has {} bytes",
            svg.len()
        );
        svgs.push(svg);
    }
    svgs
}

fn an_auto_run_plots_every_pass_as_png_and_svg() {
    let dir = tempfile::tempdir().unwrap();
    let run = ioz(
        dir.path(),
        &[
            "-a", "-n", "64k", "-g", "256k", "-q", "64k", "-i", "0", "-i", "1", "--plots", "p",
            "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    assert!(!run.stderr.contains("--plots"), "stderr: {}", run.stderr);
    // Each pass: the surface and the two 2-D views (tests/e2e/figures.rs
    // looks at those closely).
    let passes = ["write", "rewrite", "read", "reread"];
    let stems: Vec<String> = passes
        .iter()
        .flat_map(|p| ["", "-by-file-size", "-by-record-size"].map(|v| format!("{p}{v}")))
        .collect();
    let stems: Vec<&str> = stems.iter().map(String::as_str).collect();
    let svgs = check_plots(&dir.path().join("p"), &stems);
    let titles = [
        "Writer report",
        "Re-writer report",
        "Reader report",
        "Re-Reader report",
    ];
    for (k, svg) in svgs.iter().enumerate() {
        let title = titles[k / 3];
        assert!(svg.contains(title), "no {title:?}");
        assert!(svg.contains("File size") && svg.contains("Record size"));
        if k % 3 == 0 {
            // A surface: polygons.
            assert!(svg.contains("<polygon"));
        }
    }
    assert_eq!(list_dir(dir.path()), ["p"], "the test file is removed");
}

fn degenerate_runs_still_get_plots_in_a_new_directory() {
    let cases: [(&[&str], &str); 4] = [
        (&["-s", "64k", "-r", "16k"], "One cell"),
        (&["-a", "-s", "256k", "-q", "64k"], "Record size"),
        (&["-a", "-n", "64k", "-g", "256k", "-r", "64k"], "File size"),
        (
            &[
                "-i", "0", "-t", "2", "-s", "64k", "-r", "64k", "-F", "a", "b",
            ],
            "Process",
        ),
    ];
    for (args, axis) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut all: Vec<&str> = args.to_vec();
        if !all.contains(&"-t") {
            all.extend(["-i", "0", "-f", "t.tmp"]);
        }
        // -+n: no rewrite pass, one plot (a PNG costs most of a second in a debug build).
        all.extend(["-+n", "--plots", "new"]);
        let run = ioz(dir.path(), &all);
        run.expect_code(0);
        for svg in check_plots(&dir.path().join("new"), &["write"]) {
            assert!(svg.contains(axis), "{args:?}: no {axis:?} in the plot");
        }
    }
}
