//! The ring itself: set up as fio sets it up (or the one-line reason it
//! cannot be), and `io_uring_enter` with what its failures mean.

use std::io;

use io_uring::{IoUring, Probe, opcode};

use crate::engine::LoopFailure;

/// The error for an engine whose ring is gone.
pub(super) fn closed() -> io::Error {
    io::Error::other("the io_uring engine is closed")
}

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

/// Submits what is queued and, with `wait`, waits for at least one
/// completion. An interrupted or busy enter returns Ok: what it did not submit
/// stays queued, and the caller reaps what there is and comes back. Another
/// failure with requests the kernel already took aborts: they read into and
/// write from the caller's buffers, and returning would let those buffers be
/// freed under them. Otherwise the error is returned and the ring must be
/// dropped (what it queued was never seen by the kernel).
pub(super) fn enter(ring: &mut IoUring, in_flight: usize, wait: bool) -> io::Result<()> {
    match ring.submit_and_wait(usize::from(wait)) {
        Ok(_) => Ok(()),
        Err(e) => match e.raw_os_error() {
            Some(libc::EINTR) => Ok(()),
            Some(libc::EAGAIN | libc::EBUSY) => {
                std::thread::yield_now();
                Ok(())
            }
            _ => {
                let queued = ring.submission().len();
                if in_flight > queued {
                    eprintln!(
                        "ioz: io_uring_enter failed ({e}) with {} requests in flight; \
                         they cannot be waited for",
                        in_flight - queued
                    );
                    std::process::abort();
                }
                Err(e)
            }
        },
    }
}

/// The loop's failure for an `io_uring_enter` that failed outright.
pub(super) fn enter_failure(error: io::Error) -> LoopFailure {
    LoopFailure {
        operation: "io_uring_enter",
        offset: None,
        error,
    }
}
