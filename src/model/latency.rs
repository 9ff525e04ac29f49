//! Per-operation latencies a pass recorded (`-Q`): handed from the runner to
//! the report that writes IOzone's offset/latency files, never saved in the
//! run's JSON.

/// One operation of a pass: where it went, how much it moved, how long it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpLatency {
    /// Byte offset in the file.
    pub offset: u64,
    pub bytes: u64,
    /// For engines with several operations in flight (io_uring, POSIX AIO),
    /// from queueing to reaping.
    pub latency_ns: u64,
}
