//! Exporters: each renders a finished [`RunResult`] into one format, as a pure
//! function of the result. The live table printer reuses their pieces.

pub mod excel_text;
pub mod layout;
pub mod text;

use crate::result::RunResult;

/// One output format.
pub trait Exporter {
    fn render(&self, result: &RunResult) -> String;
}

#[cfg(test)]
mod tests;
