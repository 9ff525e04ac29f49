//! Fixed buffers: the loop's read buffer and write pool registered with the
//! ring before the clock (IORING_REGISTER_BUFFERS), and the one warning a run
//! prints, however many workers fork, where the kernel refuses them. The index
//! a fixed request names ([`FixedBuf::index_for`]) stays in the parent module
//! beside the timed loop: moving it here changed the loop's machine code.

use std::io;
use std::num::NonZeroUsize;
use std::sync::LazyLock;
use std::sync::atomic::AtomicBool;

use io_uring::IoUring;
use nix::sys::mman::{MapFlags, ProtFlags, mmap_anonymous};

use super::FixedBuf;

/// The largest buffer the kernel registers (it refuses more than 1 GiB).
const MAX_FIXED: usize = 1 << 30;

/// The loop's buffers as registered with the ring; `None` where not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct FixedBuffers {
    pub(super) read: Option<FixedBuf>,
    pub(super) pool: Option<FixedBuf>,
}

/// Registers `read_buf` and `pool` (those that are not empty and not over
/// [`MAX_FIXED`]) with `ring`, in place of what it had registered.
pub(super) fn register(ring: &IoUring, read_buf: &[u8], pool: &[u8]) -> io::Result<FixedBuffers> {
    // Nothing registered is not an error worth telling apart (ENXIO).
    let _ = ring.submitter().unregister_buffers();
    let mut iovecs = Vec::with_capacity(2);
    let mut entry = |buf: &[u8]| {
        if buf.is_empty() || buf.len() > MAX_FIXED {
            return None;
        }
        iovecs.push(libc::iovec {
            iov_base: buf.as_ptr().cast_mut().cast(),
            iov_len: buf.len(),
        });
        Some(FixedBuf {
            start: buf.as_ptr() as usize,
            len: buf.len(),
            index: (iovecs.len() - 1) as u16,
        })
    };
    let fixed = FixedBuffers {
        read: entry(read_buf),
        pool: entry(pool),
    };
    if iovecs.is_empty() {
        return Ok(fixed);
    }
    // SAFETY: the iovecs describe live buffers. The kernel pins their pages
    // until they are unregistered or the ring is dropped, so it never writes
    // to memory that is no longer theirs; and fixed requests name them only
    // while they are the loop's buffers (see FixedBuf::index_for).
    unsafe { ring.submitter().register_buffers(&iovecs) }?;
    Ok(fixed)
}

/// Whether the fixed-buffer warning was printed. It lives in a shared
/// mapping made before throughput workers are forked ([`share_with_workers`]),
/// so a run prints it once however many workers and phases meet the refusal.
pub(super) static FIXED_REFUSAL_TOLD: LazyLock<&'static AtomicBool> = LazyLock::new(shared_flag);

/// A flag in an anonymous shared mapping, never unmapped (one page a run);
/// a process-local one where the mapping cannot be made.
fn shared_flag() -> &'static AtomicBool {
    let len = NonZeroUsize::new(std::mem::size_of::<AtomicBool>()).expect("non-zero size");
    // SAFETY: a fresh anonymous mapping; a zero byte is a valid AtomicBool (false).
    let mapped = unsafe {
        mmap_anonymous(
            None,
            len,
            ProtFlags::PROT_READ | ProtFlags::PROT_WRITE,
            MapFlags::MAP_SHARED,
        )
    };
    match mapped {
        // SAFETY: the mapping is valid, aligned and initialised for the rest
        // of the process, which never unmaps it.
        Ok(ptr) => unsafe { ptr.cast::<AtomicBool>().as_ref() },
        Err(_) => Box::leak(Box::new(AtomicBool::new(false))),
    }
}

/// Called before throughput workers are forked: makes the warning flag one
/// that they share with the parent.
pub fn share_with_workers() {
    LazyLock::force(&FIXED_REFUSAL_TOLD);
}

/// The warning for a refused registration of `bytes` bytes.
pub(super) fn fixed_refusal(e: &io::Error, bytes: usize) -> String {
    let why = match e.raw_os_error() {
        Some(code) => nix::errno::Errno::from_raw(code).desc().to_string(),
        None => e.to_string(),
    };
    let limit = nix::sys::resource::getrlimit(nix::sys::resource::Resource::RLIMIT_MEMLOCK)
        .ok()
        .filter(|_| e.raw_os_error() == Some(libc::ENOMEM))
        .map(|(soft, _)| {
            if soft == libc::RLIM_INFINITY {
                "; RLIMIT_MEMLOCK is unlimited".to_string()
            } else {
                format!("; RLIMIT_MEMLOCK is {} KiB", soft / 1024)
            }
        })
        .unwrap_or_default();
    format!(
        "warning: io_uring did not register the {} KiB of I/O buffers \
         (IORING_REGISTER_BUFFERS: {why}{limit}): plain reads and writes instead of fixed-buffer ones",
        bytes.div_ceil(1024)
    )
}
