//! IOzone's spreadsheet (-b FILE.xls or .wks, its BIFF layout) and ioz's
//! .xlsx workbook (-b FILE.xlsx), from the same grids.

pub mod biff;
pub mod grid;
pub mod xlsx;
