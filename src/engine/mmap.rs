//! mmap + memcpy (-B, -D, -G, -+A): the pass maps the bytes of the file it
//! covers and moves records with plain copies to and from the mapping.
//!
//! * Writers map `PROT_READ|PROT_WRITE` and first extend a shorter regular file
//!   with `ftruncate` to the pass's size (never shrinking it); an `O_TRUNC` pass
//!   truncates at open and then extends. Readers map `PROT_READ` and map no
//!   more than the file holds, so a record past the end of a short file is an
//!   error, not a fault.
//! * `-D`/`-G`: after each record, `msync(MS_ASYNC)`/`msync(MS_SYNC)` of the
//!   pages that record touched.
//! * `-+A n`: `madvise` of the whole mapping once, right after it is made.
//! * `sync` (`-e`, and the untimed flush after a write pass) is
//!   `msync(MS_SYNC)` of the whole mapping; `close` unmaps, then closes.
//!
//! **SIGBUS.** A page of a shared mapping that lies wholly past the end of
//! the file cannot be accessed: the kernel raises SIGBUS, which no Rust code
//! can catch and continue from safely. The engine never maps past the end of
//! the file it found at open, but if another process truncates the file while
//! the pass runs, the next copy from a page past the new end kills ioz with
//! SIGBUS. Do not shrink a test file under a running `-B` pass. (A page the
//! kernel fails to read in, an I/O error, also arrives as SIGBUS rather than
//! as an error a copy could return.)

use std::io;
use std::path::Path;
use std::ptr::NonNull;

use nix::unistd::{Whence, ftruncate, lseek};

use super::batch::Engine;
use super::descriptor::{Descriptor, on_descriptor};
use super::open::OpenSpec;
use super::syscall;
use super::transfer::check;
use crate::model::variations::MsyncMode;

pub struct MmapEngine {
    fd: Descriptor,
    /// The mapping, or None when the pass covers no bytes (or after close).
    map: Option<NonNull<u8>>,
    map_len: usize,
    page: usize,
    /// Flags of the per-record msync (`-D`, `-G`), or 0 for none.
    record_msync: libc::c_int,
}

// SAFETY: the mapping is owned by the engine alone, like a Box<[u8]>; moving
// the engine to another thread moves that ownership.
unsafe impl Send for MmapEngine {}

impl MmapEngine {
    /// The mapping's bytes `offset..offset+len`, as a pointer, or an error if
    /// they are not all inside it.
    #[inline]
    fn at(&self, offset: u64, len: usize) -> io::Result<*mut u8> {
        let start = in_mapping(offset, len, self.map_len)?;
        match self.map {
            // SAFETY: start + len <= map_len, inside the mapping.
            Some(base) => Ok(unsafe { base.as_ptr().add(start) }),
            // Only a zero-length access at offset 0 passes in_mapping with no mapping.
            None => Ok(NonNull::dangling().as_ptr()),
        }
    }

    fn unmap(&mut self) -> io::Result<()> {
        let Some(base) = self.map.take() else {
            return Ok(());
        };
        let len = std::mem::take(&mut self.map_len);
        // SAFETY: unmapping our own mapping; `map` is None now, so it is never
        // touched again.
        check(unsafe { libc::munmap(base.as_ptr().cast(), len) }).map(drop)
    }
}

/// The size of the file open on `fd` (a block device's size for a device)
/// and whether it is a regular file.
fn file_len(fd: &Descriptor) -> io::Result<(u64, bool)> {
    let st = fd.stat()?;
    let kind = st.mode & libc::S_IFMT;
    if kind == libc::S_IFBLK {
        // The mmap engine does not use the file position.
        let end = lseek(fd.borrowed()?, 0, Whence::SeekEnd)?;
        return Ok((end as u64, false));
    }
    Ok((st.size, kind == libc::S_IFREG))
}

/// What open does to the file before mapping it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct MappingPlan {
    /// `ftruncate` the file to this size first.
    extend_to: Option<u64>,
    /// Bytes to map.
    map_len: u64,
}

/// A writer extends a shorter regular file to the pass's size (never shrinks
/// it); every pass maps the pass's bytes, or what the file holds if that is
/// less, so no mapped page lies past the end of the file.
fn plan_mapping(file_len: u64, pass_bytes: u64, writable: bool, regular: bool) -> MappingPlan {
    if writable && regular && file_len < pass_bytes {
        MappingPlan {
            extend_to: Some(pass_bytes),
            map_len: pass_bytes,
        }
    } else {
        MappingPlan {
            extend_to: None,
            map_len: pass_bytes.min(file_len),
        }
    }
}

/// Where `offset..offset+len` starts in a mapping of `map_len` bytes, or an
/// error saying it does not fit.
#[inline]
fn in_mapping(offset: u64, len: usize, map_len: usize) -> io::Result<usize> {
    match offset.checked_add(len as u64) {
        Some(end) if end <= map_len as u64 => Ok(offset as usize),
        _ => Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "mmap: {len} bytes at offset {offset} lie past the {map_len} bytes mapped \
                 (the file is shorter than the pass)"
            ),
        )),
    }
}

/// The page-aligned range to msync for a record at `offset..offset+len`:
/// (start, length), both relative to the start of the mapping.
#[inline]
fn record_pages(offset: usize, len: usize, page: usize) -> (usize, usize) {
    let start = offset - offset % page;
    (start, offset + len - start)
}

/// madvise advice for `-+A n`: normal, random, sequential, dontneed, willneed.
fn advice(n: u32) -> Option<libc::c_int> {
    Some(match n {
        0 => libc::MADV_NORMAL,
        1 => libc::MADV_RANDOM,
        2 => libc::MADV_SEQUENTIAL,
        3 => libc::MADV_DONTNEED,
        4 => libc::MADV_WILLNEED,
        _ => return None,
    })
}

fn msync_flags(mode: MsyncMode) -> libc::c_int {
    match mode {
        MsyncMode::None => 0,
        MsyncMode::Async => libc::MS_ASYNC,
        MsyncMode::Sync => libc::MS_SYNC,
    }
}

impl Engine for MmapEngine {
    fn open(path: &Path, spec: &OpenSpec) -> io::Result<MmapEngine> {
        let fd = Descriptor::open(path, spec)?;
        let (len, regular) = file_len(&fd)?;
        let plan = plan_mapping(len, spec.file_bytes, spec.writable, regular);
        let map_len = usize::try_from(plan.map_len).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "the file is too large to map in this address space",
            )
        })?;
        if let Some(size) = plan.extend_to {
            ftruncate(fd.borrowed()?, size as libc::off_t).map_err(|errno| {
                let e = io::Error::from(errno);
                io::Error::new(
                    e.kind(),
                    format!("extend the file to {size} bytes for mmap: {e}"),
                )
            })?;
        }
        // SAFETY: sysconf has no preconditions.
        let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
            p if p > 0 => p as usize,
            _ => 4096,
        };
        let mut engine = MmapEngine {
            fd,
            map: None,
            map_len: 0,
            page,
            record_msync: msync_flags(spec.msync),
        };
        if map_len == 0 {
            return Ok(engine);
        }
        let prot = if spec.writable {
            libc::PROT_READ | libc::PROT_WRITE
        } else {
            libc::PROT_READ
        };
        // SAFETY: a fresh shared mapping of our open descriptor; the kernel picks
        // the address, and nothing else refers to the range it returns.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                prot,
                libc::MAP_SHARED,
                engine.fd.raw(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            let e = io::Error::last_os_error();
            return Err(io::Error::new(e.kind(), format!("mmap: {e}")));
        }
        engine.map = NonNull::new(ptr.cast());
        engine.map_len = map_len;
        if let Some(n) = spec.madvise {
            let advice = advice(n).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{n} is not a madvise mode (0 to 4)"),
                )
            })?;
            // SAFETY: the whole of our own mapping, page-aligned by mmap.
            check(unsafe { libc::madvise(ptr, map_len, advice) })
                .map_err(|e| io::Error::new(e.kind(), format!("madvise: {e}")))?;
        }
        Ok(engine)
    }

    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let src = self.at(offset, buf.len())?;
        // SAFETY: src..src+len lies inside our readable mapping, which cannot
        // overlap a Rust buffer. (A file truncated under us raises SIGBUS here:
        // see the module comment.)
        unsafe { std::ptr::copy_nonoverlapping(src, buf.as_mut_ptr(), buf.len()) };
        Ok(())
    }

    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        let dst = self.at(offset, buf.len())?;
        // SAFETY: dst..dst+len lies inside our writable mapping (writers always
        // map PROT_WRITE; a read-only pass never calls write_at, and if it did
        // the copy would fault, not corrupt memory).
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), dst, buf.len()) };
        if self.record_msync != 0 && !buf.is_empty() {
            let (start, len) = record_pages(offset as usize, buf.len(), self.page);
            if let Some(base) = self.map {
                // SAFETY: start is page-aligned and start+len ends inside the mapping.
                unsafe { syscall::msync(base.as_ptr().add(start), len, self.record_msync) }?;
            }
        }
        Ok(())
    }

    fn sync(&mut self) -> io::Result<()> {
        match self.map {
            Some(base) => {
                // SAFETY: the whole of our own mapping.
                unsafe { syscall::msync(base.as_ptr(), self.map_len, libc::MS_SYNC) }
            }
            None => self.fd.fsync(),
        }
    }

    fn close(&mut self) -> io::Result<()> {
        let unmapped = self.unmap();
        let closed = self.fd.close();
        unmapped.and(closed)
    }

    on_descriptor!(fd: raw_fd);
}

impl Drop for MmapEngine {
    fn drop(&mut self) {
        let _ = self.unmap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(writable: bool, truncate: bool, file_bytes: u64) -> OpenSpec {
        OpenSpec {
            writable,
            read_write: false,
            create: false,
            truncate,
            extra_flags: 0,
            record_bytes: 4096,
            file_bytes,
            depth: 1,
            msync: MsyncMode::None,
            madvise: None,
            aio_no_copy: false,
            expect: None,
        }
    }

    #[test]
    fn writers_extend_short_files_and_never_shrink() {
        assert_eq!(
            plan_mapping(0, 8192, true, true),
            MappingPlan {
                extend_to: Some(8192),
                map_len: 8192
            }
        );
        assert_eq!(
            plan_mapping(20000, 8192, true, true),
            MappingPlan {
                extend_to: None,
                map_len: 8192
            }
        );
        // Readers and devices map what is there.
        assert_eq!(
            plan_mapping(4096, 8192, false, true),
            MappingPlan {
                extend_to: None,
                map_len: 4096
            }
        );
        assert_eq!(
            plan_mapping(4096, 8192, true, false),
            MappingPlan {
                extend_to: None,
                map_len: 4096
            }
        );
    }

    #[test]
    fn ranges_past_the_mapping_are_errors() {
        assert_eq!(in_mapping(0, 4096, 4096).unwrap(), 0);
        assert_eq!(in_mapping(4096, 0, 4096).unwrap(), 4096);
        assert!(in_mapping(4096, 1, 4096).is_err());
        assert!(in_mapping(u64::MAX, 2, 4096).is_err());
        let e = in_mapping(8192, 4096, 4096).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert!(e.to_string().contains("shorter than the pass"), "{e}");
    }

    #[test]
    fn record_msync_covers_whole_pages() {
        assert_eq!(record_pages(0, 4096, 4096), (0, 4096));
        assert_eq!(record_pages(8192, 16384, 4096), (8192, 16384));
        assert_eq!(record_pages(5000, 100, 4096), (4096, 1004));
        assert_eq!(record_pages(4000, 200, 4096), (0, 4200));
    }

    #[test]
    fn advice_and_msync_modes() {
        assert_eq!(advice(0), Some(libc::MADV_NORMAL));
        assert_eq!(advice(1), Some(libc::MADV_RANDOM));
        assert_eq!(advice(2), Some(libc::MADV_SEQUENTIAL));
        assert_eq!(advice(3), Some(libc::MADV_DONTNEED));
        assert_eq!(advice(4), Some(libc::MADV_WILLNEED));
        assert_eq!(advice(5), None);
        assert_eq!(msync_flags(MsyncMode::None), 0);
        assert_eq!(msync_flags(MsyncMode::Async), libc::MS_ASYNC);
        assert_eq!(msync_flags(MsyncMode::Sync), libc::MS_SYNC);
    }

    #[test]
    fn writes_reach_the_file_and_reads_see_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m");
        std::fs::write(&path, b"").unwrap();
        let mut s = spec(true, true, 3 * 4096);
        s.msync = MsyncMode::Sync;
        s.madvise = Some(2);
        let mut e = MmapEngine::open(&path, &s).unwrap();
        for i in 0..3u8 {
            e.write_at(&[i + 1; 4096], u64::from(i) * 4096).unwrap();
        }
        e.sync().unwrap();
        e.close().unwrap();
        e.close().unwrap();
        let data = std::fs::read(&path).unwrap();
        assert_eq!(data.len(), 3 * 4096);
        assert!(data[4096..8192].iter().all(|&b| b == 2));

        let mut r = MmapEngine::open(&path, &spec(false, false, 3 * 4096)).unwrap();
        let mut buf = [0u8; 4096];
        r.read_at(&mut buf, 8192).unwrap();
        assert!(buf.iter().all(|&b| b == 3));
        assert!(r.read_at(&mut buf, 12288).is_err());
        assert!(r.write_at(&buf, u64::MAX - 10).is_err());
        r.close().unwrap();
    }

    #[test]
    fn a_short_file_is_mapped_as_far_as_it_goes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("short");
        std::fs::write(&path, [7u8; 4096]).unwrap();
        let mut r = MmapEngine::open(&path, &spec(false, false, 4 * 4096)).unwrap();
        let mut buf = [0u8; 4096];
        r.read_at(&mut buf, 0).unwrap();
        assert_eq!(buf, [7u8; 4096]);
        let e = r.read_at(&mut buf, 4096).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        r.close().unwrap();

        // An empty file maps nothing and fails every non-empty access cleanly.
        std::fs::write(&path, b"").unwrap();
        let mut r = MmapEngine::open(&path, &spec(false, false, 4096)).unwrap();
        assert!(r.read_at(&mut buf, 0).is_err());
        r.read_at(&mut [], 0).unwrap();
        r.sync().unwrap();
        r.close().unwrap();
    }
}
