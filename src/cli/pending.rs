//! Options ioz parses but whose work is not finished yet. Each is refused with
//! one line, so that no option is ever silently ignored; a line goes when its
//! work lands.

use super::{UsageError, usage};
use crate::variations::IoVariations;

pub(super) fn refuse_unfinished(v: &IoVariations, throughput: bool) -> Result<(), UsageError> {
    let unfinished = [(
        "-X/-Y in throughput mode",
        (v.write_telemetry.is_some() || v.read_telemetry.is_some()) && throughput,
    )];
    match unfinished.iter().find(|(_, given)| *given) {
        Some((what, _)) => Err(usage(format!("{what} is not supported yet"))),
        None => Ok(()),
    }
}
