//! Options ioz parses but whose work is not finished yet. Each is refused with
//! one line, so that no option is ever silently ignored; a line goes when its
//! work lands.

use super::{UsageError, usage};
use crate::variations::{EngineChoice, IoVariations, Verify};

pub(super) fn refuse_unfinished(v: &IoVariations, throughput: bool) -> Result<(), UsageError> {
    let queued = matches!(v.engine, Some(EngineChoice::Aio | EngineChoice::IoUring));
    let unfinished = [
        ("-U (remount between tests)", v.remount.is_some()),
        ("-K (disrupted read patterns)", v.disrupt_reads),
        ("-m (multiple buffers)", v.multi_buffer),
        ("-+w/-+y/-+C (dedup data)", v.dedup.any()),
        ("-+K (mix readers)", v.mix_readers.is_some()),
        ("-+F (truncating mix writers)", v.mix_truncate_writers),
        (
            "-Q in throughput mode",
            v.offset_latency_files && throughput,
        ),
        (
            "-Q with --engine aio or io_uring (-H/-k)",
            v.offset_latency_files && queued,
        ),
        (
            "-X/-Y in throughput mode",
            (v.write_telemetry.is_some() || v.read_telemetry.is_some()) && throughput,
        ),
        (
            "-V and -+d in throughput mode",
            v.verify != Verify::None && throughput,
        ),
    ];
    match unfinished.iter().find(|(_, given)| *given) {
        Some((what, _)) => Err(usage(format!("{what} is not supported yet"))),
        None => Ok(()),
    }
}
