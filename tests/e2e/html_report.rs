//! --html FILE with the real binary: one self-contained page with the run's
//! tables, each test's grid and inline SVG plots; opened in headless
//! Chromium where it works (elsewhere those tests are listed as ignored with
//! the reason): the grids and charts are there, and the page fits 1400
//! pixels without sideways scrolling.

use std::fs;
use std::path::Path;

use crate::fixtures::chromium::{Headless, chromium, headless_once};
use crate::fixtures::{Test, data_rows, ioz, skip, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        the_report_is_one_self_contained_page_with_tables_and_plots,
        chromium_renders_the_tables_and_plots => [Chromium],
        chromium_takes_a_screenshot_of_the_page => [Chromium],
        chromium_fits_the_grids_and_charts_in_1400_pixels => [Chromium],
    ]
}

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Runs a small auto run with --html; returns its stdout and the page.
fn report(dir: &Path) -> (String, String) {
    let run = ioz(
        dir,
        &[
            "-a", "-n", "64k", "-g", "256k", "-q", "64k", "-i", "0", "-i", "2", "--html", "r.html",
            "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    assert!(!run.stderr.contains("--html"), "stderr: {}", run.stderr);
    let html = fs::read_to_string(dir.join("r.html")).expect("no r.html");
    (run.stdout, html)
}

/// The values of every `attr` (e.g. `src="`) in the page.
fn attribute_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    html.match_indices(attr)
        .map(|(i, _)| {
            let rest = &html[i + attr.len()..];
            let end = rest.find(['"', '\'', ')']).unwrap_or(rest.len());
            &rest[..end]
        })
        .collect()
}

fn the_report_is_one_self_contained_page_with_tables_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let (stdout, html) = report(dir.path());
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));

    // Nothing to fetch: no scripts, style sheets or fonts from elsewhere, and
    // every src/href/url() is a fragment of this page.
    for attr in ["src=\"", "src='", "href=\"", "href='", "url("] {
        for value in attribute_values(&html, attr) {
            let v = value.trim().to_ascii_lowercase();
            assert!(v.starts_with('#'), "{attr}{value} points outside the page");
        }
    }
    for forbidden in [
        "http://", "https://", "<script", "<link", "@import", "<iframe",
    ] {
        assert!(!html.contains(forbidden), "the page contains {forbidden:?}");
    }

    // The results table holds the printed table, row for row.
    assert!(html.contains("<table class=\"numbers results\">"));
    let rows = data_rows(&stdout);
    assert_eq!(rows.len(), 15, "cells of the run:\n{stdout}");
    for row in &rows {
        let mut tr = format!(
            "<tr><th scope=\"row\">{}</th><th scope=\"row\">{}</th>",
            row[0], row[1]
        );
        for v in &row[2..] {
            tr.push_str(&format!("<td>{v}</td>"));
        }
        tr.push_str("</tr>");
        assert!(html.contains(&tr), "no row {tr}");
    }

    // A grid and an inline plot per pass.
    let titles = [
        "Writer report",
        "Re-writer report",
        "Random read report",
        "Random write report",
    ];
    for title in titles {
        assert!(
            html.contains(&format!("<caption>{title}: MB/s"))
                || html.contains(&format!("<caption>{title}: GB/s")),
            "{title}"
        );
    }
    assert_eq!(html.matches("<table class=\"numbers grid\">").count(), 4);
    assert_eq!(html.matches("class=\"heat-legend\"").count(), 4);
    // Each test: the two 2-D views and the surface.
    assert_eq!(html.matches("<svg ").count(), 12);
    assert_eq!(html.matches("</svg>").count(), 12);
    // The environment and the run.
    for needle in [
        "id=\"environment\"",
        "Kernel",
        "Mount options",
        "I/O scheduler",
        "Command line",
    ] {
        assert!(html.contains(needle), "no {needle:?}");
    }
}

/// Runs headless Chromium on `page` with `extra` arguments (see
/// [`headless_once`]); returns its stdout, or None when it did not finish in
/// time twice (a loaded machine, not the page: the test is then reported as
/// ignored with that reason rather than failed on the browser).
fn headless(chromium: &Path, page: &Path, extra: &[String]) -> Option<String> {
    for attempt in 1..=2 {
        match headless_once(chromium, page, extra) {
            Ok(out) => return Some(out),
            Err(Headless::TimedOut) => {
                eprintln!("chromium did not finish within 90 s (attempt {attempt})");
            }
            Err(Headless::Failed(why)) => panic!("{why}"),
        }
    }
    None
}

fn chromium_renders_the_tables_and_plots() {
    let chromium = chromium().expect("chromium");
    let dir = tempfile::tempdir().unwrap();
    report(dir.path());
    let page = dir.path().join("r.html");

    let Some(dom) = headless(&chromium, &page, &["--dump-dom".to_string()]) else {
        skip("chromium did not finish twice");
    };
    assert!(
        dom.contains("<table class=\"numbers results\">"),
        "DOM:\n{dom}"
    );
    assert_eq!(dom.matches("<table class=\"numbers grid\">").count(), 4);
    assert_eq!(dom.matches("<svg").count(), 12, "the plots are in the DOM");
    assert!(dom.contains("<text"), "the plots have their text");
    assert!(dom.contains("Random write report"));
}

fn chromium_takes_a_screenshot_of_the_page() {
    let chromium = chromium().expect("chromium");
    let dir = tempfile::tempdir().unwrap();
    report(dir.path());
    let page = dir.path().join("r.html");

    let shot = dir.path().join("shot.png");
    let shot_args = [
        format!("--screenshot={}", shot.display()),
        "--window-size=1400,2000".to_string(),
    ];
    if headless(&chromium, &page, &shot_args).is_none() {
        skip("chromium did not finish twice");
    }
    let png = fs::read(&shot).expect("no screenshot");
    assert_eq!(&png[..8], PNG_SIGNATURE);
    assert_eq!(&png[12..16], b"IHDR");
    let be = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((be(16), be(20)), (1400, 2000));
    assert!(
        png.len() > 20_000,
        "a blank screenshot? {} bytes",
        png.len()
    );
}

/// Measures the laid-out page: a copy of it with a script (the report has
/// none) that writes what it found into the DOM for --dump-dom to show.
const MEASURE: &str = r#"<script>
(function () {
  var doc = document.documentElement;
  var wide = [];
  document.querySelectorAll("body *").forEach(function (e) {
    var s = getComputedStyle(e);
    var scrolls = s.overflowX == "auto" || s.overflowX == "scroll";
    if (scrolls && e.scrollWidth > e.clientWidth + 1) {
      wide.push(e.tagName + "." + e.className + " " + e.scrollWidth + ">" + e.clientWidth);
    }
    var r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 1 && r.width > 0) {
      wide.push(e.tagName + "." + e.className + " right " + Math.round(r.right));
    }
  });
  var grids = document.querySelectorAll("table.grid");
  var cells = document.querySelectorAll("table.grid td[style]");
  var charts = document.querySelectorAll("figure.chart svg");
  var beside = 0;
  grids.forEach(function (g) {
    var pass = g.closest(".pass");
    var right = g.getBoundingClientRect().right;
    var next = Array.prototype.some.call(pass ? pass.querySelectorAll("figure.chart svg") : [],
      function (c) { return c.getBoundingClientRect().left >= right; });
    if (next) { beside += 1; }
  });
  var out = document.createElement("pre");
  out.id = "measured";
  out.textContent = "inner=" + window.innerWidth + " page=" + doc.scrollWidth +
    " grids=" + grids.length + " cells=" + cells.length + " charts=" + charts.length +
    " beside=" + beside + " wide=[" + wide.join("; ") + "]";
  document.body.appendChild(out);
})();
</script>"#;

fn chromium_fits_the_grids_and_charts_in_1400_pixels() {
    let chromium = chromium().expect("chromium");
    let dir = tempfile::tempdir().unwrap();
    // Every file size and record size of a 16 MB auto run: 9 rows, 13 columns.
    let run = ioz(
        dir.path(),
        &[
            "-a", "-n", "64k", "-g", "16m", "-i", "0", "-i", "2", "--html", "r.html", "-f", "t.tmp",
        ],
    );
    run.expect_code(0);
    let html = fs::read_to_string(dir.path().join("r.html")).unwrap();
    let page = dir.path().join("measure.html");
    fs::write(
        &page,
        html.replacen("</body>", &format!("{MEASURE}\n</body>"), 1),
    )
    .unwrap();
    let args = [
        "--dump-dom".to_string(),
        "--window-size=1400,1000".to_string(),
    ];
    let Some(dom) = headless(&chromium, &page, &args) else {
        skip("chromium did not finish twice");
    };
    let start = dom.find("<pre id=\"measured\">").expect("the script ran");
    let measured = &dom[start..dom[start..].find("</pre>").unwrap() + start];
    let field = |name: &str| -> &str {
        let at = measured.find(&format!("{name}=")).unwrap() + name.len() + 1;
        measured[at..].split(' ').next().unwrap()
    };
    assert_eq!(field("inner"), "1400", "{measured}");
    let page_width: u32 = field("page").parse().unwrap();
    assert!(page_width <= 1400, "the page scrolls sideways: {measured}");
    assert!(
        measured.ends_with("wide=[]"),
        "something scrolls sideways: {measured}"
    );
    // Four tests (write, rewrite, random read, random write), each a grid
    // of 9 file sizes and its 81 cells, with the charts beside it.
    assert_eq!(field("grids"), "4", "{measured}");
    assert_eq!(field("cells"), (4 * 81).to_string(), "{measured}");
    assert_eq!(field("charts"), "12", "{measured}");
    assert_eq!(field("beside"), "4", "{measured}");
}
