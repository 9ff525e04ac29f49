//! Untimed, before a reading test: the file must hold what the test reads.
//! When no write test left it there, ioz writes it now from the pool the
//! write tests use.

use std::io;
use std::path::Path;

use super::pass::failure_in;
use super::recipe::CellRecipe;
use crate::data::check::DataCheck;
use crate::engine::{Engine, PositionalEngine};
use crate::error::IoFailure;
use crate::model::identity::Expected;

/// Writes the file when it holds less than the cell's reads need. `expect`
/// is the file ioz claimed: the fill writes only to it.
pub(crate) fn fill_if_short(
    cell: &CellRecipe,
    path: &Path,
    expect: Option<Expected>,
    pool: &mut [u8],
) -> Result<(), IoFailure> {
    if is_short(cell, path)? {
        fill(cell, path, expect, pool)?;
    }
    Ok(())
}

/// Whether the file holds less than a pass reads (an error for -+E, whose
/// file ioz may not write).
pub(crate) fn is_short(cell: &CellRecipe, path: &Path) -> Result<bool, IoFailure> {
    let fail = failure_in(None, path);
    // A regular file's length; a block device's size (its metadata says 0).
    let len = crate::system::device::usable_len(path).map_err(|e| fail("stat", None, e))?;
    let needed = cell.bytes_reads_need();
    if len >= needed {
        return Ok(false);
    }
    if cell.read_only() {
        // -+E: the file is someone else's and is never written.
        return Err(fail(
            "read",
            None,
            io::Error::other(format!(
                "-+E: the file holds {len} bytes but the test reads {needed}"
            )),
        ));
    }
    Ok(true)
}

/// Writes the whole file from `pool`: record `i` from pool slot `i mod
/// slots`, so a dedup image (one slot per record) lands at its offsets, and
/// the default data stamped as the write test stamps it; with telemetry only
/// the tail the reads reach beyond what was written. The open checks the
/// file against `expect` before any byte is written.
pub(crate) fn fill(
    cell: &CellRecipe,
    path: &Path,
    expect: Option<Expected>,
    pool: &mut [u8],
) -> Result<(), IoFailure> {
    let fail = failure_in(None, path);
    let spec = cell.fill_spec().expecting(expect);
    let mut engine = PositionalEngine::open(path, &spec).map_err(|e| fail("open", None, e))?;
    let len = engine.opened_len().map_err(|e| fail("stat", None, e))?;
    let mut stamps = cell.fill_stamps();
    for op in &cell.fill_ops(len) {
        let data = match &mut stamps {
            Some(stamps) => stamps.write_data(op, pool),
            None => &pool[op.source..op.source + op.len],
        };
        engine
            .write_at(data, op.offset)
            .map_err(|e| fail("write (preparing the file)", Some(op.offset), e))?;
    }
    engine.sync().map_err(|e| fail("fsync", None, e))?;
    engine.close().map_err(|e| fail("close", None, e))
}
