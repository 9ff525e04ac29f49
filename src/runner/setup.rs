//! Untimed work around a pass that reaches past the file: evicting the CPU
//! caches (-p), dropping the page cache (--drop-caches) and whole-file locks
//! (-W).

use std::io;
use std::os::fd::RawFd;

use super::recipe::CachePurge;
use crate::model::variations::DropCaches;

/// `-p`: evict the CPU caches before a pass by walking a buffer twice the
/// cache's size, one write per cache line.
pub(crate) fn purge_cpu_cache(purge: CachePurge) {
    let mut scratch = vec![0u8; (2 * purge.cache_bytes) as usize];
    for i in (0..scratch.len()).step_by(purge.line_bytes) {
        scratch[i] = scratch[i].wrapping_add(1);
    }
    std::hint::black_box(&scratch);
}

/// `--drop-caches`: evict the file's pages (after the fsync before the pass
/// wrote them back), and with `=all` every clean page of the machine.
pub(crate) fn drop_caches(fd: RawFd, how: DropCaches) -> io::Result<()> {
    if how == DropCaches::None {
        return Ok(());
    }
    // SAFETY: plain syscall on an open descriptor.
    let r = unsafe { libc::posix_fadvise(fd, 0, 0, libc::POSIX_FADV_DONTNEED) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    if how == DropCaches::All {
        nix::unistd::sync();
        std::fs::write("/proc/sys/vm/drop_caches", b"3\n")?;
    }
    Ok(())
}

/// `-W`: an fcntl lock of `kind` (F_RDLCK, F_WRLCK, F_UNLCK) on the whole file.
pub(crate) fn lock_whole_file(fd: RawFd, kind: libc::c_int) -> io::Result<()> {
    // SAFETY: flock is plain data; zeroed is a valid starting value.
    let mut fl: libc::flock = unsafe { std::mem::zeroed() };
    fl.l_type = kind as libc::c_short;
    fl.l_whence = libc::SEEK_SET as libc::c_short;
    // l_start = 0, l_len = 0: the whole file.
    // SAFETY: F_SETLKW with a valid flock struct on our descriptor.
    if unsafe { libc::fcntl(fd, libc::F_SETLKW, &fl) } < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}
