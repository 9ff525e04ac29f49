//! The .xlsx workbook (-b FILE.xlsx): one sheet per reported pass with the
//! `-R` grid (file-size rows × record-size columns), a 3-colour heat map on
//! the grid, a line chart (one series per file size over the record sizes)
//! and a scatter chart (log-scale file size, one series per record size);
//! then a sheet "Environment" with the run's command line, times, status and
//! machine. A throughput run has one sheet "Throughput" instead of the pass
//! sheets: a row per phase, a column per worker count ("Children see"), a
//! heat map and a line chart (one series per phase over the worker counts).
//!
//! With -+u, each pass sheet also holds the pass's CPU utilisation (CPU time
//! as a percentage of the pass's wall time, the `-R` text's CPU blocks) in a
//! grid of the same shape, one empty row below the results grid and above
//! the charts, so a row of file size reads across to the same row below; the
//! Throughput sheet likewise gets a grid of each run's CPU utilisation below
//! its phase rows. The CPU grids get a white-to-orange scale: more CPU is
//! neither better nor worse by itself.
//!
//! The workbook's creation time is the run's start, so re-rendering a saved
//! run (`ioz report RUN.json -b FILE.xlsx`) gives the same bytes.
//!
//! Cells whose record size is above the file size are empty, as are cells
//! that did not run (the crossover rule, an interrupted run): the -R text and
//! the .xls show those as 0, which would read as a measurement here and drag
//! the colour scale and the charts down.

use std::io;

use rust_xlsxwriter::{
    Chart, ChartType, ConditionalFormat2ColorScale, ConditionalFormat3ColorScale, DocProperties,
    ExcelDateTime, Format, FormatAlign, Workbook, Worksheet, XlsxError,
};

use super::grid::{
    Grid, ThroughputRow, cpu_grids, grids, sd_block_title, sd_grids, spreadsheet_title,
    status_text, throughput_cpu_rows, throughput_label, throughput_record_words, throughput_rows,
    throughput_sd_rows,
};
use crate::model::config::OutputUnit;
use crate::model::environment::Environment;
use crate::model::result::RunResult;
use crate::model::units::{kb_number, kb_value};
use crate::report::Exporter;
use crate::report::environment_text::further_facts;

pub struct XlsxReport;

impl Exporter for XlsxReport {
    fn render(&self, result: &RunResult) -> io::Result<Vec<u8>> {
        render_xlsx(result).map_err(io::Error::other)
    }
}

/// Name of the sheet with the run's description.
pub const ENVIRONMENT_SHEET: &str = "Environment";

/// Name of a throughput run's results sheet.
pub const THROUGHPUT_SHEET: &str = "Throughput";

/// Where a grid starts on its sheet: the title row, then the header row.
pub const TITLE_ROW: u32 = 0;
pub const HEADER_ROW: u32 = 1;
pub const FIRST_DATA_ROW: u32 = 2;

/// The unit of the values, in words.
pub fn unit_label(unit: OutputUnit) -> &'static str {
    match unit {
        OutputUnit::KbPerSec => "kB/s",
        OutputUnit::OpsPerSec => "operations/s",
        OutputUnit::MicrosPerOp => "µs/operation",
    }
}

/// Red for the worst values, green for the best: for µs/operation the
/// smallest values are the best.
fn color_scale(unit: OutputUnit) -> ConditionalFormat3ColorScale {
    let (worst, best) = ("F8696B", "63BE7B");
    let scale = ConditionalFormat3ColorScale::new().set_midpoint_color("FFEB84");
    match unit {
        OutputUnit::MicrosPerOp => scale.set_minimum_color(best).set_maximum_color(worst),
        _ => scale.set_minimum_color(worst).set_maximum_color(best),
    }
}

/// The heat map of a CPU grid: white for the least CPU, orange for the most.
fn cpu_scale() -> ConditionalFormat2ColorScale {
    ConditionalFormat2ColorScale::new()
        .set_minimum_color("FFFFFF")
        .set_maximum_color("F4B183")
}

fn u16_col(n: usize) -> Result<u16, XlsxError> {
    u16::try_from(n).map_err(|_| XlsxError::ParameterError(format!("column {n} out of range")))
}

fn u32_row(n: usize) -> Result<u32, XlsxError> {
    u32::try_from(n).map_err(|_| XlsxError::ParameterError(format!("row {n} out of range")))
}

/// The whole workbook of a run.
pub fn render_xlsx(result: &RunResult) -> Result<Vec<u8>, XlsxError> {
    let mut workbook = Workbook::new();
    // The run's start, not the time of rendering: the same run, the same file.
    if let Ok(started) = ExcelDateTime::parse_from_str(&result.started_at) {
        workbook.set_properties(&DocProperties::new().set_creation_datetime(&started));
    }
    let cpu = result.config.variations.cpu_utilisation;
    if result.config.throughput.is_some() {
        write_throughput(workbook.add_worksheet(), result)?;
    } else {
        let cpu_grids = if cpu { cpu_grids(result) } else { Vec::new() };
        let runs = result.config.runs;
        let sd_grids = if runs > 1 {
            sd_grids(result)
        } else {
            Vec::new()
        };
        let sum = sum_words(result);
        for (i, grid) in grids(result).iter().enumerate() {
            let sheet = workbook.add_worksheet();
            let extra = Extra {
                cpu: cpu_grids.get(i),
                sd: sd_grids.get(i).map(|g| (g, runs)),
                sum: &sum,
            };
            write_grid(sheet, grid, extra, result.config.unit)?;
        }
    }
    let sheet = workbook.add_worksheet();
    write_environment(sheet, result)?;
    workbook.save_to_buffer()
}

/// Where the values of a block lie on its sheet (rows and columns inclusive).
struct Area {
    first_row: u32,
    last_row: u32,
    last_col: u16,
}

/// A grid from row `top` on: its title, the record sizes, a row per file size
/// (empty cells where nothing ran). Returns the area of its values.
fn grid_cells(
    sheet: &mut Worksheet,
    top: u32,
    title: &str,
    grid: &Grid,
    value_format: &Format,
) -> Result<Option<Area>, XlsxError> {
    let head = header_format();
    sheet.write_string_with_format(top, 0, title, &Format::new().set_bold())?;
    sheet.write_string_with_format(top + 1, 0, "file kB \\ record kB", &head)?;
    for (i, &rec) in grid.record_bytes.iter().enumerate() {
        sheet.write_number_with_format(top + 1, u16_col(i + 1)?, kb_value(rec), &head)?;
    }
    let first_row = top + 2;
    for (r, row) in grid.rows.iter().enumerate() {
        let at = first_row + u32_row(r)?;
        sheet.write_number_with_format(at, 0, row.file_kb as f64, &head)?;
        for (i, v) in row.values.iter().enumerate() {
            if let Some(v) = v.value() {
                sheet.write_number_with_format(at, u16_col(i + 1)?, v, value_format)?;
            }
        }
    }
    let (nrec, nfile) = (grid.record_bytes.len(), grid.rows.len());
    if nrec == 0 || nfile == 0 {
        return Ok(None);
    }
    Ok(Some(Area {
        first_row,
        last_row: first_row + u32_row(nfile - 1)?,
        last_col: u16_col(nrec)?,
    }))
}

/// The blocks a pass's sheet holds below its grid of values: -+u's CPU
/// percentages, and with several runs each cell's standard deviation.
struct Extra<'a> {
    cpu: Option<&'a Grid>,
    sd: Option<(&'a Grid, u32)>,
    /// A cluster run's sum says so in every title: ", sum of 2 clients".
    sum: &'a str,
}

/// What the titles of a cluster run's sum add: ", sum of 2 clients".
fn sum_words(result: &RunResult) -> String {
    result
        .summed_words()
        .map(|s| format!(", {s}"))
        .unwrap_or_default()
}

fn write_grid(
    sheet: &mut Worksheet,
    grid: &Grid,
    Extra { cpu, sd, sum }: Extra<'_>,
    unit_kind: OutputUnit,
) -> Result<(), XlsxError> {
    let name = spreadsheet_title(grid.pass);
    let unit = unit_label(unit_kind);
    sheet.set_name(name)?;
    sheet.set_column_width(0, 20)?;
    for i in 0..grid.record_bytes.len() {
        sheet.set_column_width(u16_col(i + 1)?, 11)?;
    }
    let title = format!("{name} ({unit}{sum})");
    let values = grid_cells(
        sheet,
        TITLE_ROW,
        &title,
        grid,
        &Format::new().set_num_format("0"),
    )?;
    sheet.set_freeze_panes(FIRST_DATA_ROW, 1)?;
    let Some(Area {
        last_row, last_col, ..
    }) = values
    else {
        return Ok(());
    };
    sheet.add_conditional_format(
        FIRST_DATA_ROW,
        1,
        last_row,
        last_col,
        &color_scale(unit_kind),
    )?;
    let mut chart_row = last_row + 2;
    if let Some(cpu) = cpu {
        let pass = name.trim_end_matches(" Report");
        let title = format!("{pass} CPU utilization (CPU time, % of wall time)");
        let percent = Format::new().set_num_format("0.00");
        if let Some(a) = grid_cells(sheet, chart_row, &title, cpu, &percent)? {
            sheet.add_conditional_format(a.first_row, 1, a.last_row, a.last_col, &cpu_scale())?;
            chart_row = a.last_row + 2;
        }
    }
    if let Some((sd, runs)) = sd {
        let title = format!("{} ({unit})", sd_block_title(grid.pass, runs));
        let whole = Format::new().set_num_format("0");
        if let Some(a) = grid_cells(sheet, chart_row, &title, sd, &whole)? {
            chart_row = a.last_row + 2;
        }
    }

    // Line chart: x = record size, one series per file size.
    let nfile = grid.rows.len();
    let mut line = Chart::new(ChartType::Line);
    line.title()
        .set_name(&format!("{name}: by record size{sum}"));
    line.x_axis().set_name("record size (kB)");
    line.y_axis().set_name(unit);
    for r in 0..nfile {
        let at = FIRST_DATA_ROW + u32_row(r)?;
        line.add_series()
            .set_name(&format!("{} kB file", grid.rows[r].file_kb))
            .set_categories((name, HEADER_ROW, 1, HEADER_ROW, last_col))
            .set_values((name, at, 1, at, last_col));
    }

    // Scatter chart: x = file size on a log scale, one series per record size.
    let mut scatter = Chart::new(ChartType::ScatterStraightWithMarkers);
    scatter
        .title()
        .set_name(&format!("{name}: by file size{sum}"));
    scatter.x_axis().set_name("file size (kB)").set_log_base(2);
    scatter.y_axis().set_name(unit);
    for i in 0..grid.record_bytes.len() {
        let col = u16_col(i + 1)?;
        scatter
            .add_series()
            .set_name(&format!("{} kB records", kb_number(grid.record_bytes[i])))
            .set_categories((name, FIRST_DATA_ROW, 0, last_row, 0))
            .set_values((name, FIRST_DATA_ROW, col, last_row, col));
    }

    sheet.insert_chart(chart_row, 0, &line)?;
    // The default chart is 480 px wide: put the second one beside the first.
    sheet.insert_chart_with_offset(chart_row, 0, &scatter, 500, 0)?;
    Ok(())
}

fn header_format() -> Format {
    Format::new()
        .set_bold()
        .set_align(FormatAlign::Center)
        .set_background_color("D9D9D9")
}

/// A block of the Throughput sheet from row `top` on: its title, the worker
/// counts, a row per phase. Returns the area of its values.
fn phase_cells(
    sheet: &mut Worksheet,
    top: u32,
    title: &str,
    counts: &[u32],
    rows: &[ThroughputRow],
) -> Result<Option<Area>, XlsxError> {
    let head = header_format();
    sheet.write_string_with_format(top, 0, title, &Format::new().set_bold())?;
    sheet.write_string_with_format(top + 1, 0, "phase \\ workers", &head)?;
    for (i, &n) in counts.iter().enumerate() {
        sheet.write_number_with_format(top + 1, u16_col(i + 1)?, f64::from(n), &head)?;
    }
    let value_format = Format::new().set_num_format("0.00");
    let first_row = top + 2;
    for (r, row) in rows.iter().enumerate() {
        let at = first_row + u32_row(r)?;
        sheet.write_string_with_format(at, 0, throughput_label(row.pass), &head)?;
        for (i, &(_, v)) in row.values.iter().enumerate() {
            sheet.write_number_with_format(at, u16_col(i + 1)?, v, &value_format)?;
        }
    }
    if rows.is_empty() || counts.is_empty() {
        return Ok(None);
    }
    Ok(Some(Area {
        first_row,
        last_row: first_row + u32_row(rows.len() - 1)?,
        last_col: u16_col(counts.len())?,
    }))
}

fn write_throughput(sheet: &mut Worksheet, result: &RunResult) -> Result<(), XlsxError> {
    let name = THROUGHPUT_SHEET;
    let unit = unit_label(result.config.unit);
    sheet.set_name(name)?;
    let rows = throughput_rows(&result.throughput, result.config.unit);
    let counts: Vec<u32> = rows
        .iter()
        .max_by_key(|r| r.values.len())
        .map(|r| r.values.iter().map(|v| v.0).collect())
        .unwrap_or_default();
    sheet.set_column_width(0, 20)?;
    for i in 0..counts.len() {
        sheet.set_column_width(u16_col(i + 1)?, 13)?;
    }
    let record = throughput_record_words(&result.throughput);
    let sum = sum_words(result);
    let title = format!("Throughput report ({unit}, children see{sum}), record size {record}");
    let values = phase_cells(sheet, TITLE_ROW, &title, &counts, &rows)?;
    sheet.set_freeze_panes(FIRST_DATA_ROW, 1)?;
    let Some(Area {
        last_row, last_col, ..
    }) = values
    else {
        return Ok(());
    };
    sheet.add_conditional_format(
        FIRST_DATA_ROW,
        1,
        last_row,
        last_col,
        &color_scale(result.config.unit),
    )?;
    let mut chart_row = last_row + 2;
    if result.config.variations.cpu_utilisation {
        let title = "CPU utilization (all workers' CPU time, % of the longest worker's wall time)";
        let cpu_rows = throughput_cpu_rows(&result.throughput);
        if let Some(a) = phase_cells(sheet, chart_row, title, &counts, &cpu_rows)? {
            sheet.add_conditional_format(a.first_row, 1, a.last_row, a.last_col, &cpu_scale())?;
            chart_row = a.last_row + 2;
        }
    }
    if result.config.runs > 1 {
        let title = format!(
            "Standard deviation over {} runs ({unit}, children see)",
            result.config.runs
        );
        let sd_rows = throughput_sd_rows(&result.throughput, result.config.unit);
        if let Some(a) = phase_cells(sheet, chart_row, &title, &counts, &sd_rows)? {
            chart_row = a.last_row + 2;
        }
    }
    let mut line = Chart::new(ChartType::Line);
    line.title()
        .set_name(&format!("Throughput by worker count{sum}"));
    line.x_axis().set_name("workers");
    line.y_axis().set_name(unit);
    for r in 0..rows.len() {
        let at = FIRST_DATA_ROW + u32_row(r)?;
        line.add_series()
            .set_name((name, at, 0))
            .set_categories((name, HEADER_ROW, 1, HEADER_ROW, last_col))
            .set_values((name, at, 1, at, last_col));
    }
    sheet.insert_chart(chart_row, 0, &line)?;
    Ok(())
}

fn environment_rows(result: &RunResult) -> Vec<(&'static str, String)> {
    let env: &Environment = &result.environment;
    let target = &env.target;
    let device = target.device.as_ref();
    let caches = env
        .cpu_caches
        .iter()
        .map(|c| format!("L{} {} {} kB", c.level, c.kind, c.size_bytes / 1024))
        .collect::<Vec<_>>()
        .join(", ");
    let opt = |o: Option<String>| o.unwrap_or_default();
    vec![
        ("Command line", result.config.command_line.join(" ")),
        ("Tool version", result.tool_version.clone()),
        ("Run began", result.started.clone()),
        ("Started (UTC)", result.started_at.clone()),
        ("Finished (UTC)", result.finished_at.clone()),
        ("Status", status_text(&result.status)),
        ("Output unit", unit_label(result.config.unit).to_string()),
        (
            "Timer resolution (ns)",
            result.time_resolution_ns.to_string(),
        ),
        ("Hostname", env.hostname.clone()),
        ("Kernel", env.kernel.clone()),
        ("CPU model", env.cpu_model.clone()),
        ("CPU count", env.cpu_count.to_string()),
        ("CPU caches", caches),
        ("Memory (bytes)", env.memory_bytes.to_string()),
        ("Test file", target.path.clone()),
        ("Mount point", target.mount_point.clone()),
        ("File system", target.file_system_words()),
        ("Mount options", target.mount_options.clone()),
        ("Mount source", target.source.clone()),
        ("Device", opt(device.map(|d| d.name.clone()))),
        ("Device model", opt(device.and_then(|d| d.model.clone()))),
        // A virtual disk's flag is the hypervisor's default: the kernel's
        // word, said to be its word (model::environment::DeviceInfo).
        ("Rotational", opt(device.and_then(|d| d.rotational_words()))),
        ("Driver", opt(device.and_then(|d| d.driver.clone()))),
        (
            "I/O scheduler",
            opt(device.and_then(|d| d.scheduler.clone())),
        ),
    ]
}

fn write_environment(sheet: &mut Worksheet, result: &RunResult) -> Result<(), XlsxError> {
    sheet.set_name(ENVIRONMENT_SHEET)?;
    let bold = Format::new().set_bold();
    sheet.set_column_width(0, 22)?;
    sheet.set_column_width(1, 80)?;
    let rows = environment_rows(result);
    for (r, (key, value)) in rows.iter().enumerate() {
        let row = u32_row(r)?;
        sheet.write_string_with_format(row, 0, *key, &bold)?;
        sheet.write_string(row, 1, value)?;
    }
    // Everything else the run recorded, after a blank row; unknown said so.
    for (k, fact) in further_facts(&result.environment).iter().enumerate() {
        let row = u32_row(rows.len() + 1 + k)?;
        sheet.write_string_with_format(row, 0, &fact.name, &bold)?;
        sheet.write_string(row, 1, fact.value.as_deref().unwrap_or("unknown"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Read};

    use super::*;
    use crate::cli::test_config;
    use crate::model::plan::Cell;
    use crate::model::result::{CellResult, Measurement, sample_result};
    use crate::model::workload::Pass;

    fn row(file_kb: u64, rec_kb: u64, kbps: u64) -> CellResult {
        let m = |pass| Measurement {
            pass,
            file_bytes: file_kb << 10,
            record_bytes: rec_kb << 10,
            workers: 1,
            bytes: kbps << 10,
            records: file_kb / rec_kb,
            latency: None,
            elapsed_ns: 1_000_000_000,
            cpu_user_ns: 0,
            cpu_system_ns: 0,
            usage: None,
            residency: None,
            run: 0,
            intervals: Vec::new(),
        };
        CellResult {
            cell: Cell {
                file_bytes: file_kb << 10,
                record_bytes: rec_kb << 10,
            },
            measurements: vec![m(Pass::Write), m(Pass::Rewrite)],
        }
    }

    /// The named part of the .xlsx (a zip), as text.
    fn part(bytes: &[u8], name: &str) -> String {
        let mut zip = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut s = String::new();
        zip.by_name(name).unwrap().read_to_string(&mut s).unwrap();
        s
    }

    #[test]
    fn one_sheet_per_pass_with_charts_heat_map_and_environment() {
        let cfg = test_config(&["-R", "-a", "-n", "64k", "-g", "128k", "-q", "8k", "-i", "0"]);
        let result = sample_result(
            cfg,
            vec![
                row(64, 4, 10),
                row(64, 8, 11),
                row(128, 4, 12),
                row(128, 8, 13),
            ],
        );
        let bytes = render_xlsx(&result).unwrap();
        let book = part(&bytes, "xl/workbook.xml");
        for name in ["Writer Report", "Re-writer Report", "Environment"] {
            assert!(book.contains(&format!("name=\"{name}\"")), "{book}");
        }
        let sheet1 = part(&bytes, "xl/worksheets/sheet1.xml");
        assert!(sheet1.contains("colorScale"), "{sheet1}");
        assert!(sheet1.contains("<drawing "), "{sheet1}");
        let chart1 = part(&bytes, "xl/charts/chart1.xml");
        assert!(chart1.contains("<c:lineChart>"), "{chart1}");
        assert_eq!(chart1.matches("<c:ser>").count(), 2);
        let chart2 = part(&bytes, "xl/charts/chart2.xml");
        assert!(chart2.contains("<c:scatterChart>"), "{chart2}");
        assert!(chart2.contains("<c:logBase val=\"2\"/>"), "{chart2}");
        assert_eq!(chart2.matches("<c:ser>").count(), 2);
        assert!(chart2.contains("'Writer Report'!$A$3:$A$4"), "{chart2}");
    }

    #[test]
    fn the_workbook_is_dated_by_the_run_so_it_renders_the_same_twice() {
        let cfg = test_config(&["-R", "-+u", "-s", "64k", "-r", "64k", "-i", "0"]);
        let result = sample_result(cfg, vec![row(64, 64, 1)]);
        let bytes = render_xlsx(&result).unwrap();
        let core = part(&bytes, "docProps/core.xml");
        assert!(
            core.contains(">2026-11-21T21:05:03Z</dcterms:created>"),
            "{core}"
        );
        assert!(render_xlsx(&result).unwrap() == bytes);
        // The CPU grid sits one empty row below the results grid (rows 1–3),
        // with its own colour scale.
        let sheet1 = part(&bytes, "xl/worksheets/sheet1.xml");
        assert!(!sheet1.contains("<row r=\"4\""), "{sheet1}");
        assert!(sheet1.contains("<c r=\"A5\" s=\"1\" t=\"s\">"), "{sheet1}");
        assert!(sheet1.contains("<c r=\"B6\" s=\"2\"><v>64</v>"), "{sheet1}");
        let scales = sheet1.matches("<cfRule type=\"colorScale\"").count();
        assert_eq!(scales, 2, "{sheet1}");
    }

    #[test]
    fn environment_sheet_names_the_run() {
        let cfg = test_config(&["-R", "-s", "64k", "-r", "64k", "-i", "0"]);
        let mut result = sample_result(cfg, vec![row(64, 64, 1)]);
        result.environment.hostname = "box".into();
        result.environment.target.fs_type = "ext4".into();
        let rows = environment_rows(&result);
        let get = |k: &str| rows.iter().find(|(key, _)| *key == k).unwrap().1.clone();
        assert_eq!(get("Command line"), "ioz -R -s 64k -r 64k -i 0");
        assert_eq!(get("Started (UTC)"), "2026-11-21T21:05:03Z");
        assert_eq!(get("Finished (UTC)"), "2026-11-21T21:05:09Z");
        assert_eq!(get("Status"), "complete");
        assert_eq!(get("Hostname"), "box");
        assert_eq!(get("File system"), "ext4");
        assert!(render_xlsx(&result).is_ok());
    }

    #[test]
    fn a_virtio_disk_is_rotational_in_the_kernel_s_words() {
        let cfg = test_config(&["-R", "-s", "64k", "-r", "64k", "-i", "0"]);
        let mut result = sample_result(cfg, vec![row(64, 64, 1)]);
        result.environment.target.device = Some(crate::model::environment::DeviceInfo {
            name: "vda".into(),
            model: None,
            rotational: Some(true),
            scheduler: None,
            driver: Some("virtio_blk".into()),
            ..Default::default()
        });
        let rows = environment_rows(&result);
        let get = |k: &str| rows.iter().find(|(key, _)| *key == k).unwrap().1.clone();
        assert!(
            get("Rotational").starts_with(
                "the kernel reports rotational (queue/rotational = 1) for this virtio disk"
            ),
            "{}",
            get("Rotational")
        );
        assert_eq!(get("Driver"), "virtio_blk");
    }

    #[test]
    fn throughput_runs_get_one_sheet_of_phases_by_worker_count() {
        let cfg = test_config(&["-l", "1", "-u", "2", "-s", "1m", "-r", "64k", "-i", "0"]);
        let mut result = sample_result(cfg, Vec::new());
        let phase = |pass, workers| crate::model::result::sample_phase(pass, workers, 1 << 20);
        result.throughput = vec![
            phase(Pass::Write, 1),
            phase(Pass::Rewrite, 1),
            phase(Pass::Write, 2),
            phase(Pass::Rewrite, 2),
        ];
        let bytes = render_xlsx(&result).unwrap();
        let book = part(&bytes, "xl/workbook.xml");
        assert!(book.contains("name=\"Throughput\""), "{book}");
        assert!(book.contains("name=\"Environment\""), "{book}");
        assert!(!book.contains("Writer Report"), "{book}");
        let sheet1 = part(&bytes, "xl/worksheets/sheet1.xml");
        assert!(sheet1.contains("colorScale"), "{sheet1}");
        assert!(sheet1.contains("<v>2048</v>"), "{sheet1}");
        let chart1 = part(&bytes, "xl/charts/chart1.xml");
        assert_eq!(chart1.matches("<c:ser>").count(), 2);
    }
}
