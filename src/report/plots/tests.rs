//! Tests of the plots as a whole: every grid shape, the files written.

use super::*;
use crate::cli::test_config;
use crate::model::environment::CpuCache;
use crate::model::result::sample_result;

pub(super) fn cells(args: &[&str], value: impl Fn(u64, u64) -> u64) -> (RunResult, Vec<Pass>) {
    let config = test_config(args);
    let passes = TableLayout::for_config(&config).reported_passes(&config);
    let rows = crate::model::result::sample_cells(&config, &passes, |f, r| value(f, r) << 10);
    (sample_result(config, rows), passes)
}

pub(super) fn with_caches(mut r: RunResult) -> RunResult {
    r.environment.cpu_caches = vec![
        CpuCache {
            level: 1,
            kind: "Data".into(),
            size_bytes: 48 << 10,
        },
        CpuCache {
            level: 3,
            kind: "Unified".into(),
            size_bytes: 1 << 20,
        },
    ];
    r.environment.memory_bytes = 8 << 20;
    r
}

#[test]
fn slugs_are_file_names() {
    assert_eq!(pass_slug(Pass::RandomRead), "random-read");
    assert_eq!(pass_slug(Pass::Write), "write");
}

#[test]
fn every_shape_draws_an_svg_with_text() {
    let shapes: [&[&str]; 5] = [
        &["-a", "-n", "64k", "-g", "16m", "-i", "0", "-i", "1"],
        &["-s", "1m", "-r", "64k", "-i", "0"],
        &["-a", "-s", "1m", "-i", "0"],
        &["-a", "-n", "64k", "-g", "16m", "-r", "64k", "-i", "0"],
        &["-s", "64k", "-s", "1m", "-r", "4k", "-r", "64k", "-i", "0"],
    ];
    for args in shapes {
        let (r, passes) = cells(args, |f, rec| (f >> 10) + (rec >> 10));
        let r = with_caches(r);
        for pass in passes {
            let svg = plot_svg(&r, pass).unwrap();
            assert!(svg.starts_with("<svg"), "{args:?}");
            assert!(svg.trim_end().ends_with("</svg>"));
            assert!(svg.contains(pass.report_title()), "{args:?}");
        }
    }
}

#[test]
fn a_pass_without_measurements_says_so() {
    let (mut r, _) = cells(&["-a", "-n", "64k", "-g", "256k", "-i", "0"], |_, _| 1);
    for c in &mut r.cells {
        c.measurements.clear();
    }
    let svg = plot_svg(&r, Pass::Write).unwrap();
    assert!(svg.contains("No measurements"));
}

#[test]
fn plot_files_are_a_png_and_an_svg_per_pass() {
    let (r, _) = cells(&["-a", "-n", "64k", "-g", "256k", "-i", "0"], |f, _| {
        f >> 10
    });
    let files = plot_files(&r).unwrap();
    let names: Vec<_> = files.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        ["write.png", "write.svg", "rewrite.png", "rewrite.svg"]
    );
    assert_eq!(&files[0].1[..8], b"\x89PNG\r\n\x1a\n");
    assert!(files[1].1.starts_with(b"<svg"));
}
