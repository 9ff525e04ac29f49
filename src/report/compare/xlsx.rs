//! `-b FILE.xlsx` of a comparison: a sheet of every cell (the CSV's
//! columns), and per input a sheet of ratio grids, one per test, each
//! ratio coloured by its verdict (green faster, red slower, grey same).

use std::collections::BTreeSet;
use std::io;

use rust_xlsxwriter::{Color, Format, Workbook, XlsxError};

use super::data::CSV_HEADER;
use super::format::{size_kb, test_name};
use super::look::look;
use crate::analysis::compare::{Basis, Comparison, Pair, Verdict};

pub fn render_xlsx(c: &Comparison) -> io::Result<Vec<u8>> {
    workbook(c).map_err(|e| io::Error::other(e.to_string()))
}

fn verdict_format(v: Verdict) -> Format {
    let fill = look(v).fill.trim_start_matches('#');
    let colour = u32::from_str_radix(fill, 16).unwrap_or(0xFFFFFF);
    Format::new()
        .set_background_color(Color::RGB(colour))
        .set_num_format("0.000")
}

fn workbook(c: &Comparison) -> Result<Vec<u8>, XlsxError> {
    let mut book = Workbook::new();
    let bold = Format::new().set_bold();
    let cells = book.add_worksheet().set_name("cells")?;
    for (i, h) in CSV_HEADER.iter().enumerate() {
        cells.write_string_with_format(0, i as u16, *h, &bold)?;
    }
    let mut row = 1;
    for pair in &c.pairs {
        for x in &pair.cells {
            let texts = [
                (0, c.baseline.label.clone()),
                (1, pair.other.label.clone()),
                (2, x.cell.pass.name().to_string()),
                (6, super::format::unit_of(c).to_string()),
                (20, x.verdict.name().to_string()),
                (
                    21,
                    match x.basis {
                        Basis::Significance => "significance",
                        Basis::BandOnly => "band_only",
                    }
                    .to_string(),
                ),
            ];
            for (col, t) in texts {
                cells.write_string(row, col, t)?;
            }
            let numbers = [
                (3, x.cell.workers.map(f64::from)),
                (4, Some(x.cell.file_bytes as f64 / 1024.0)),
                (5, Some(x.cell.record_bytes as f64 / 1024.0)),
                (7, Some(x.base.n as f64)),
                (8, Some(x.base.mean)),
                (9, x.base.sd),
                (10, Some(x.other.n as f64)),
                (11, Some(x.other.mean)),
                (12, x.other.sd),
                (14, Some(x.percent)),
                (15, x.ci_low),
                (16, x.ci_high),
                (17, x.p),
                (18, x.p_adjusted),
                (19, x.mann_whitney_p),
            ];
            for (col, v) in numbers {
                if let Some(v) = v {
                    cells.write_number(row, col, v)?;
                }
            }
            cells.write_number_with_format(row, 13, x.ratio, &verdict_format(x.verdict))?;
            row += 1;
        }
    }
    for (i, pair) in c.pairs.iter().enumerate() {
        ratio_sheet(&mut book, c, pair, i)?;
    }
    book.save_to_buffer()
}

/// An input's ratio grids, stacked: a title, record sizes across, file sizes down.
fn ratio_sheet(
    book: &mut Workbook,
    c: &Comparison,
    pair: &Pair,
    i: usize,
) -> Result<(), XlsxError> {
    let bold = Format::new().set_bold();
    // Sheet names: at most 31 characters, none of []:*?/\ .
    let clean: String = pair
        .other
        .label
        .chars()
        .filter(|ch| !"[]:*?/\\".contains(*ch))
        .take(20)
        .collect();
    let sheet = book
        .add_worksheet()
        .set_name(format!("ratios {} {clean}", i + 1))?;
    sheet.write_string_with_format(
        0,
        0,
        format!(
            "{} / {} (ratio of geometric means; green faster, red slower, grey same)",
            pair.other.label, c.baseline.label
        ),
        &bold,
    )?;
    let mut row = 2;
    let mut groups: Vec<_> = pair
        .cells
        .iter()
        .map(|x| (x.cell.pass, x.cell.workers))
        .collect();
    groups.dedup();
    for (pass, workers) in groups {
        let cells: Vec<_> = pair
            .cells
            .iter()
            .filter(|x| x.cell.pass == pass && x.cell.workers == workers)
            .collect();
        let files: BTreeSet<u64> = cells.iter().map(|x| x.cell.file_bytes).collect();
        let records: BTreeSet<u64> = cells.iter().map(|x| x.cell.record_bytes).collect();
        sheet.write_string_with_format(row, 0, test_name(pass, workers), &bold)?;
        row += 1;
        sheet.write_string_with_format(row, 0, "kB \\ record kB", &bold)?;
        for (j, r) in records.iter().enumerate() {
            sheet.write_string_with_format(row, j as u16 + 1, size_kb(*r), &bold)?;
        }
        row += 1;
        for f in &files {
            sheet.write_string_with_format(row, 0, size_kb(*f), &bold)?;
            for (j, r) in records.iter().enumerate() {
                if let Some(x) = cells
                    .iter()
                    .find(|x| x.cell.file_bytes == *f && x.cell.record_bytes == *r)
                {
                    sheet.write_number_with_format(
                        row,
                        j as u16 + 1,
                        x.ratio,
                        &verdict_format(x.verdict),
                    )?;
                }
            }
            row += 1;
        }
        row += 1;
    }
    Ok(())
}
