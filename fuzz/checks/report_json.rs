//! The JSON reader behind `ioz report`: any bytes are a saved run or a
//! one-line error, never a panic; and a run it accepts renders, in every
//! format `ioz report` can write (rendered in memory), without a panic.

use ioz::report::Exporter;
use ioz::report::html::HtmlReport;
use ioz::report::json::{JsonReport, parse_run};
use ioz::report::spreadsheet::biff::BiffReport;
use ioz::report::spreadsheet::xlsx::XlsxReport;
use ioz::report::table_csv::CsvReport;
use ioz::report::text::excel::ExcelTextReport;
use ioz::report::text::{TextReport, render_output};

/// One input of the fuzz target (fuzz_targets/report_json.rs), and of the
/// test over its corpus (tests/e2e/fuzz_corpora.rs).
pub fn check(data: &[u8]) {
    let mut result = match parse_run(data, "fuzz.json") {
        Ok(r) => r,
        Err(e) => {
            assert!(!e.to_string().contains('\n'), "multi-line error: {e}");
            return;
        }
    };
    // `ioz report RUN.json`: the table as the run printed it, then with -R.
    for excel_report in [result.config.excel_report, true] {
        result.config.excel_report = excel_report;
        let _ = render_output(&result);
    }
    // --json, --csv, --html (plots inline), -b .xls/.xlsx, and the rest.
    let exporters: [&dyn Exporter; 7] = [
        &TextReport,
        &ExcelTextReport,
        &CsvReport,
        &BiffReport,
        &XlsxReport,
        &HtmlReport,
        &JsonReport,
    ];
    for exporter in exporters {
        let _ = exporter.render(&result);
    }
}
