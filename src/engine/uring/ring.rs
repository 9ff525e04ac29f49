//! Setting the ring up as fio does, or the one-line reason it cannot be.

use std::io;

use io_uring::{IoUring, Probe, opcode};

/// A ring of `entries` entries, set up as fio does: single issuer with
/// deferred task work (6.1+), else cooperative task work (5.19+), else plain.
pub(super) fn new_ring(entries: u32) -> io::Result<IoUring> {
    let attempts: [fn(&mut io_uring::Builder) -> &mut io_uring::Builder; 3] = [
        |b| {
            b.setup_coop_taskrun()
                .setup_single_issuer()
                .setup_defer_taskrun()
        },
        |b| b.setup_coop_taskrun(),
        |b| b,
    ];
    let mut last = None;
    for setup in attempts {
        match setup(&mut IoUring::builder()).build(entries) {
            Ok(ring) => return check_opcodes(ring),
            // Flags this kernel does not know: try fewer.
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => last = Some(e),
            Err(e) => return Err(unavailable("io_uring_setup", &e)),
        }
    }
    Err(unavailable(
        "io_uring_setup",
        &last.unwrap_or_else(|| io::Error::from_raw_os_error(libc::EINVAL)),
    ))
}

/// Checks that the ring has the non-vectored read and write (Linux 5.6+).
fn check_opcodes(ring: IoUring) -> io::Result<IoUring> {
    let mut probe = Probe::new();
    if let Err(e) = ring.submitter().register_probe(&mut probe) {
        return Err(unavailable("IORING_REGISTER_PROBE (Linux 5.6+ needed)", &e));
    }
    if !probe.is_supported(opcode::Read::CODE) || !probe.is_supported(opcode::Write::CODE) {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "io_uring on this system lacks IORING_OP_READ/IORING_OP_WRITE (Linux 5.6+ needed)",
        ));
    }
    Ok(ring)
}

/// The one-line error that says io_uring cannot be used. It carries no OS
/// error code, so nothing mistakes it for the open's own error (O_DIRECT's EINVAL).
fn unavailable(call: &str, e: &io::Error) -> io::Error {
    let why = match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_string(),
        None => e.to_string(),
    };
    let kind = match e.raw_os_error() {
        Some(libc::EPERM | libc::EACCES) => io::ErrorKind::PermissionDenied,
        _ => io::ErrorKind::Unsupported,
    };
    io::Error::new(
        kind,
        format!("io_uring is not available on this system ({call}: {why})"),
    )
}
