//! `-Q`: IOzone's offset/latency files, one per pass, appended to in the
//! current directory (wol.dat for writes, rol.dat for reads, …; in throughput
//! mode one per worker, `Child_<n>_wol.dat` …), with each operation's offset,
//! latency and size. Written after the pass (in throughput mode once every
//! worker is done), untimed.
//!
//! A latency is the time of the operation's system call(s). With io_uring and
//! POSIX AIO (several requests in flight) it runs from when ioz queues the
//! request to when it reaps the completion, so it includes the time spent
//! waiting behind the other requests in flight (fio's total latency, `lat`).

use std::fs::OpenOptions;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::model::latency::OpLatency;
use crate::model::workload::Pass;

/// The file a pass's latencies go to (IOzone's names, and its throughput
/// names for the tests it has no single-mode file for).
pub fn file_name(pass: Pass) -> &'static str {
    use Pass::*;
    match pass {
        Write => "wol.dat",
        Rewrite => "rwol.dat",
        Read => "rol.dat",
        Reread => "rrol.dat",
        RandomRead => "randrol.dat",
        RandomWrite => "randwol.dat",
        BackwardRead => "revol.dat",
        RecordRewrite => "rrewol.dat",
        StrideRead => "strol.dat",
        Fwrite | Frewrite => "fwol.dat",
        Fread | Freread => "frol.dat",
        RandomMix => "mixol.dat",
        Pwrite | Repwrite => "pwol.dat",
        Pread | Repread => "prol.dat",
        Pwritev | Repwritev => "pwvol.dat",
        Preadv | Repreadv => "prvol.dat",
    }
}

/// Throughput mode's file for worker `worker`: IOzone's `Child_<n>_…` names.
pub fn worker_file_name(pass: Pass, worker: u32) -> String {
    format!("Child_{worker}_{}", file_name(pass))
}

/// Appends one pass to its single-mode file (see [`append_to`]).
pub fn append(
    pass: Pass,
    ops: &[OpLatency],
    cpu_ns: (u64, u64),
    elapsed_ns: u64,
) -> io::Result<()> {
    append_to(Path::new(file_name(pass)), ops, cpu_ns, elapsed_ns)
}

/// Appends one pass to `path`: the header, a line per operation done (offset
/// in kB, latency in µs, bytes), and the pass's CPU and wall times.
pub fn append_to(
    path: &Path,
    ops: &[OpLatency],
    (user_ns, system_ns): (u64, u64),
    elapsed_ns: u64,
) -> io::Result<()> {
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let mut out = BufWriter::new(file);
    writeln!(
        out,
        "Offset in Kbytes   Latency in microseconds  Transfer size in bytes"
    )?;
    for op in ops {
        writeln!(
            out,
            "{:10} {:10.0} {:10}",
            op.offset / 1024,
            op.latency_ns as f64 / 1000.0,
            op.bytes
        )?;
    }
    writeln!(
        out,
        "\nSystem time {:10.3} User time {:10.3} Real {:10.3}  (seconds)",
        system_ns as f64 / 1e9,
        user_ns as f64 / 1e9,
        elapsed_ns as f64 / 1e9
    )?;
    out.flush()
}
