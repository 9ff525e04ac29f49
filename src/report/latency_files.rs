//! `-Q`: IOzone's offset/latency files, one per pass, appended to in the
//! current directory (wol.dat for writes, rol.dat for reads, …), with each
//! operation's offset, latency and size. Written after the pass, untimed.

use std::fs::OpenOptions;
use std::io::{self, BufWriter, Write};

use crate::pattern::IoOp;
use crate::workload::Pass;

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

/// Appends one pass: the header, a line per operation (offset in kB, latency
/// in µs, bytes), and the pass's CPU and wall times.
pub fn append(
    pass: Pass,
    ops: &[IoOp],
    latencies_ns: &[u64],
    (user_ns, system_ns): (u64, u64),
    elapsed_ns: u64,
) -> io::Result<()> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(file_name(pass))?;
    let mut out = BufWriter::new(file);
    writeln!(
        out,
        "Offset in Kbytes   Latency in microseconds  Transfer size in bytes"
    )?;
    for (op, ns) in ops.iter().zip(latencies_ns) {
        writeln!(
            out,
            "{:10} {:10.0} {:10}",
            op.offset / 1024,
            *ns as f64 / 1000.0,
            op.len
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
