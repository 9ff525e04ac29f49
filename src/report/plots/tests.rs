//! Tests of the plots as a whole: every grid shape and view, the files
//! written, the ticks, the units and the scales.

use super::*;
use crate::cli::test_config;
use crate::model::environment::CpuCache;
use crate::model::result::{PhaseResult, sample_phase, sample_result};
use crate::model::result_files::{PlotView, plot_views};

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

fn svg(r: &RunResult, pass: Pass, view: PlotView) -> String {
    plot_svg(r, pass, view, PLOT_SIZE).unwrap()
}

/// The text of every `<text>` element of an SVG.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let start = t.find('>')? + 1;
            let end = t.find("</text>")?;
            Some(t[start..end].trim().to_string())
        })
        .collect()
}

#[test]
fn slugs_are_file_names() {
    assert_eq!(pass_slug(Pass::RandomRead), "random-read");
    assert_eq!(pass_slug(Pass::Write), "write");
}

#[test]
fn every_shape_draws_every_view_as_an_svg_with_text() {
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
            for view in plot_views(&r.config) {
                for size in [PLOT_SIZE, (760, 570)] {
                    let svg = plot_svg(&r, pass, view, size).unwrap();
                    assert!(svg.starts_with("<svg"), "{args:?}");
                    assert!(svg.trim_end().ends_with("</svg>"));
                    assert!(svg.contains(pass.report_title()), "{args:?}");
                }
            }
        }
    }
}

#[test]
fn a_grid_gets_the_two_2d_views_and_a_degenerate_one_only_its_line() {
    let (grid, _) = cells(&["-a", "-n", "64k", "-g", "1m", "-i", "0"], |_, _| 1);
    assert_eq!(
        plot_views(&grid.config),
        [
            PlotView::Overview,
            PlotView::ByFileSize,
            PlotView::ByRecordSize
        ]
    );
    let (line, _) = cells(&["-a", "-s", "1m", "-i", "0"], |_, _| 1);
    assert_eq!(plot_views(&line.config), [PlotView::Overview]);
}

#[test]
fn the_2d_views_have_a_line_per_size_and_a_tick_for_every_size() {
    let (r, _) = cells(&["-a", "-n", "64k", "-g", "16m", "-i", "0"], |f, rec| {
        (f >> 10) + (rec >> 12)
    });
    let r = with_caches(r);
    let files = ["64K", "128K", "256K", "512K", "1M", "2M", "4M", "8M", "16M"];
    let records = [
        "4K", "8K", "16K", "32K", "64K", "128K", "256K", "512K", "1M", "2M", "4M", "8M", "16M",
    ];
    let by_file = texts(&svg(&r, Pass::Write, PlotView::ByFileSize));
    let by_record = texts(&svg(&r, Pass::Write, PlotView::ByRecordSize));
    let surface = texts(&svg(&r, Pass::Write, PlotView::Overview));
    for label in files.iter().chain(&records) {
        // On the x axis of one view, in the legend of the other, on the surface.
        assert!(by_file.iter().any(|t| t == label), "{label} by file size");
        assert!(
            by_record.iter().any(|t| t == label),
            "{label} by record size"
        );
        assert!(surface.iter().any(|t| t == label), "{label} on the surface");
    }
    assert!(by_file.iter().any(|t| t == "File size (log2)"));
    assert!(
        by_file.iter().any(|t| t == "Record size"),
        "the legend's title"
    );
    // Regions: bands on the file-size view, legend groups on the other.
    for name in ["CPU cache", "page cache", "device"] {
        assert!(by_file.iter().any(|t| t == name), "{name}");
        assert!(by_record.iter().any(|t| t == name), "{name}");
    }
    assert!(by_file.iter().any(|t| t == "LLC 1 MiB"));
}

#[test]
fn values_read_in_mb_or_gb_per_second_and_ops_or_micros_under_o_and_n() {
    // 1024 kB/s per 1 MiB moved in a second: 1.05 MB/s … 16.8 MB/s.
    let (r, _) = cells(&["-a", "-n", "1m", "-g", "16m", "-i", "0"], |f, _| f >> 10);
    let t = texts(&svg(&r, Pass::Write, PlotView::ByFileSize));
    assert!(t.iter().any(|t| t == "MB/s"), "{t:?}");
    assert!(!t.iter().any(|t| t.contains("kB/s")), "{t:?}");
    let (r, _) = cells(&["-a", "-n", "1m", "-g", "16m", "-i", "0"], |f, _| f << 4);
    assert!(texts(&svg(&r, Pass::Write, PlotView::ByFileSize)).contains(&"GB/s".to_string()));
    let (r, _) = cells(&["-a", "-n", "1m", "-g", "4m", "-i", "0", "-N"], |f, _| f);
    assert!(svg(&r, Pass::Write, PlotView::ByFileSize).contains("µs/op"));
    let (r, _) = cells(&["-a", "-n", "1m", "-g", "4m", "-i", "0", "-O"], |f, _| f);
    assert!(svg(&r, Pass::Write, PlotView::ByFileSize).contains("ops/s"));
}

#[test]
fn a_shared_scale_gives_every_test_the_same_axis_and_a_log_axis_its_decades() {
    let args = ["-a", "-n", "1m", "-g", "4m", "-i", "0", "-i", "1"];
    // Reads ten times faster than writes.
    let config = test_config(&args);
    let passes = TableLayout::for_config(&config).reported_passes(&config);
    let mut rows = crate::model::result::sample_cells(&config, &passes, |f, _| f << 4);
    for row in &mut rows {
        for m in &mut row.measurements {
            if matches!(m.pass, Pass::Read | Pass::Reread) {
                m.bytes *= 10;
            }
        }
    }
    let mut r = sample_result(config, rows);
    let own = (
        value_scale(&r, Pass::Write).top(),
        value_scale(&r, Pass::Read).top(),
    );
    assert_ne!(own.0, own.1);
    r.config.plot_style.shared_scale = true;
    let shared = (value_scale(&r, Pass::Write), value_scale(&r, Pass::Read));
    assert_eq!(shared.0.top(), shared.1.top());
    assert_eq!(shared.0.unit, shared.1.unit);
    assert!(svg(&r, Pass::Write, PlotView::ByFileSize).contains("one scale for all tests"));
    r.config.plot_style.log_values = true;
    let t = texts(&svg(&r, Pass::Write, PlotView::ByFileSize));
    assert!(t.iter().any(|t| t.ends_with("(log scale)")), "{t:?}");
    assert!(
        t.iter().any(|t| t == "10") && t.iter().any(|t| t == "100"),
        "{t:?}"
    );
}

#[test]
fn a_pass_without_measurements_says_so() {
    let (mut r, _) = cells(&["-a", "-n", "64k", "-g", "256k", "-i", "0"], |_, _| 1);
    for c in &mut r.cells {
        c.measurements.clear();
    }
    for view in plot_views(&r.config) {
        assert!(svg(&r, Pass::Write, view).contains("No measurements"));
    }
}

#[test]
fn plot_files_are_a_png_and_an_svg_per_view_of_each_pass() {
    let (r, _) = cells(&["-a", "-n", "64k", "-g", "256k", "-i", "0"], |f, _| {
        f >> 10
    });
    let files = plot_files(&r).unwrap();
    let names: Vec<_> = files.iter().map(|(name, _)| name.as_str()).collect();
    let mut expected = Vec::new();
    for pass in ["write", "rewrite"] {
        for view in ["", "-by-file-size", "-by-record-size"] {
            expected.push(format!("{pass}{view}.png"));
            expected.push(format!("{pass}{view}.svg"));
        }
    }
    assert_eq!(names, expected);
    assert_eq!(&files[0].1[..8], b"\x89PNG\r\n\x1a\n");
    assert!(files[1].1.starts_with(b"<svg"));
}

fn throughput_run(args: &[&str], phases: Vec<PhaseResult>) -> RunResult {
    let mut r = sample_result(test_config(args), Vec::new());
    r.throughput = phases;
    r
}

#[test]
fn under_plus_k_the_caption_gives_each_file_its_share() {
    let args = [
        "-s", "64m", "-r", "64k", "-i", "0", "-l", "1", "-u", "4", "-+k",
    ];
    let phases = (1..=4)
        .map(|n| {
            let mut p = sample_phase(Pass::Write, n, 1 << 20);
            p.file_bytes = (64 << 20) / u64::from(n) / (64 << 10) * (64 << 10);
            p
        })
        .collect();
    let r = throughput_run(&args, phases);
    let svg = svg(&r, Pass::Write, PlotView::Overview);
    let caption = texts(&svg).join(" ");
    assert!(
        caption.contains("each file is 64 MiB/N (64 MiB with 1, 32 MiB with 2, 21.3 MiB with 3, 16 MiB with 4), 64 MiB in total"),
        "{caption}"
    );
    assert!(!caption.contains("256 MiB"), "{caption}");

    let args = ["-s", "1m", "-r", "64k", "-i", "0", "-l", "1", "-u", "2"];
    let phases = (1..=2)
        .map(|n| sample_phase(Pass::Write, n, 1 << 20))
        .collect();
    let caption = texts(&svg_of(&throughput_run(&args, phases))).join(" ");
    assert!(
        caption
            .contains("Each process: file size 1 MiB, record size 64 KiB; 2 MiB in total with 2."),
        "{caption}"
    );
}

fn svg_of(r: &RunResult) -> String {
    svg(r, Pass::Write, PlotView::Overview)
}
