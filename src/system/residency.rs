//! What the page cache holds of a file: cachestat(2) where the kernel has it
//! (Linux 6.5+), else mincore(2) over a read-only mapping of the file, else
//! unknown with why. Read only outside timed regions (runner/pass.rs's
//! [`FileResidency`](crate::runner) brackets the clock with two reads).
//!
//! `IOZ_RESIDENCY=mincore` makes every read take the mincore path (the tests
//! hold the two against each other with it); `IOZ_RESIDENCY=off` reads
//! nothing (the benchmark's comparison without it).

use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::path::Path;
use std::sync::OnceLock;

use crate::model::residency::{PageCounts, ResidencySource};

/// cachestat's number where the kernel's generic table gives it (x86_64 and
/// aarch64 share it; the C library does not name it there yet).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const SYS_CACHESTAT: libc::c_long = 451;

/// Which sources a read may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sources {
    /// cachestat, then mincore.
    Best,
    /// mincore only (`IOZ_RESIDENCY=mincore`).
    MincoreOnly,
    /// None (`IOZ_RESIDENCY=off`).
    Off,
}

impl Sources {
    /// As `IOZ_RESIDENCY` says (read once per process).
    pub fn from_env() -> Sources {
        static CHOSEN: OnceLock<Sources> = OnceLock::new();
        *CHOSEN.get_or_init(|| match std::env::var("IOZ_RESIDENCY").as_deref() {
            Ok("mincore") => Sources::MincoreOnly,
            Ok("off") => Sources::Off,
            _ => Sources::Best,
        })
    }
}

/// One read of a file's pages, or why there is none.
pub type Reading = Result<(ResidencySource, PageCounts), String>;

/// A descriptor of a file to count its pages by (a duplicate of the pass's,
/// or the file opened read-only), held from before a pass's clock to after
/// it (so that no close of ours drops the pass's -W lock while it is held:
/// a POSIX lock goes with any descriptor's close).
pub struct ResidencyProbe {
    file: Option<File>,
    why: Option<String>,
    sources: Sources,
}

impl ResidencyProbe {
    /// Opens `path` to count its pages (untimed).
    pub fn open(path: &Path, sources: Sources) -> ResidencyProbe {
        if sources == Sources::Off {
            return ResidencyProbe {
                file: None,
                why: Some("IOZ_RESIDENCY=off".into()),
                sources,
            };
        }
        match File::open(path) {
            Ok(f) => ResidencyProbe {
                file: Some(f),
                why: None,
                sources,
            },
            Err(e) => ResidencyProbe {
                file: None,
                why: Some(format!("cannot open the file to count its pages: {e}")),
                sources,
            },
        }
    }

    /// Counts the pages of the file open on `fd` through a duplicate of it
    /// (F_DUPFD_CLOEXEC: no open of the file, which the strace parity tests
    /// would see), usable after the pass closes `fd` (-c).
    pub fn of_fd(fd: RawFd, sources: Sources) -> ResidencyProbe {
        if sources == Sources::Off {
            return ResidencyProbe::open(Path::new(""), sources);
        }
        // SAFETY: fcntl on a descriptor the caller holds open; the new one
        // is ours alone, owned by the File below.
        let dup = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
        if dup < 0 {
            return ResidencyProbe {
                file: None,
                why: Some(format!(
                    "cannot duplicate the pass's descriptor: {}",
                    io::Error::last_os_error()
                )),
                sources,
            };
        }
        // SAFETY: `dup` is a new descriptor nothing else owns.
        let file = unsafe { <File as std::os::fd::FromRawFd>::from_raw_fd(dup) };
        ResidencyProbe {
            file: Some(file),
            why: None,
            sources,
        }
    }

    /// The file's pages now.
    pub fn read(&self) -> Reading {
        match &self.file {
            Some(f) => read_fd(f.as_raw_fd(), self.sources),
            None => Err(self.why.clone().unwrap_or_default()),
        }
    }
}

fn page_bytes() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 { n as u64 } else { 4096 }
}

/// The pages of the file open on `fd`, by the best source `sources` allows.
pub fn read_fd(fd: RawFd, sources: Sources) -> Reading {
    let size = file_size(fd).map_err(|e| format!("fstat: {e}"))?;
    let pages = size.div_ceil(page_bytes());
    if sources == Sources::Best {
        // Else ENOSYS (an older kernel), EPERM (a seccomp filter) or
        // EOPNOTSUPP (a file without a page cache of its own): mincore.
        if let Ok(mut c) = cachestat(fd) {
            c.pages = pages;
            return Ok((ResidencySource::Cachestat, c));
        }
    }
    if sources == Sources::Off {
        return Err("IOZ_RESIDENCY=off".into());
    }
    mincore(fd, size)
        .map(|cached| {
            let counts = PageCounts {
                pages,
                cached,
                ..PageCounts::default()
            };
            (ResidencySource::Mincore, counts)
        })
        .map_err(|e| format!("neither cachestat nor mincore counts this file's pages: {e}"))
}

fn file_size(fd: RawFd) -> io::Result<u64> {
    // SAFETY: stat is plain data, filled by fstat on our descriptor.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat writes into `st`, which outlives the call.
    if unsafe { libc::fstat(fd, &mut st) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st.st_size.max(0) as u64)
}

/// cachestat(2) over the whole file.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub fn cachestat(fd: RawFd) -> io::Result<PageCounts> {
    #[repr(C)]
    struct Range {
        off: u64,
        len: u64,
    }
    #[repr(C)]
    #[derive(Default)]
    struct Stat {
        nr_cache: u64,
        nr_dirty: u64,
        nr_writeback: u64,
        nr_evicted: u64,
        nr_recently_evicted: u64,
    }
    // len 0: to the end of the file.
    let range = Range { off: 0, len: 0 };
    let mut st = Stat::default();
    // SAFETY: both structs are the kernel's layout and outlive the call.
    let r = unsafe {
        libc::syscall(
            SYS_CACHESTAT,
            fd,
            &range as *const Range,
            &mut st as *mut Stat,
            0u32,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(PageCounts {
        pages: 0,
        cached: st.nr_cache,
        dirty: Some(st.nr_dirty),
        writeback: Some(st.nr_writeback),
        evicted: Some(st.nr_evicted),
        recently_evicted: Some(st.nr_recently_evicted),
    })
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn cachestat(_fd: RawFd) -> io::Result<PageCounts> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// mincore(2) over a read-only shared mapping of the file's `size` bytes:
/// the pages in the page cache (mapping them faults none in).
pub fn mincore(fd: RawFd, size: u64) -> io::Result<u64> {
    if size == 0 {
        return Ok(0);
    }
    let len = usize::try_from(size).map_err(|_| io::Error::other("file too large to map"))?;
    // SAFETY: a new read-only mapping of our descriptor, unmapped below.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let mut vec = vec![0u8; len.div_ceil(page_bytes() as usize)];
    // SAFETY: `vec` has one byte per page of the mapping.
    let r = unsafe { libc::mincore(addr, len, vec.as_mut_ptr()) };
    let err = io::Error::last_os_error();
    // SAFETY: the mapping made above, of `len` bytes.
    unsafe { libc::munmap(addr, len) };
    if r < 0 {
        return Err(err);
    }
    Ok(vec.iter().filter(|&&b| b & 1 == 1).count() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    /// A 1 MiB file written, synced and read whole (so every page is
    /// cached), on a file system with a page cache (not tmpfs's shmem).
    fn cached_file() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![7u8; 1 << 20]).unwrap();
        f.sync_all().unwrap();
        let mut back = Vec::new();
        File::open(&path).unwrap().read_to_end(&mut back).unwrap();
        (dir, path)
    }

    fn drop_pages(path: &Path) {
        let f = File::open(path).unwrap();
        // SAFETY: plain syscall on an open descriptor.
        let r = unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        assert_eq!(r, 0);
    }

    fn on_tmpfs(path: &Path) -> bool {
        nix::sys::statfs::statfs(path)
            .is_ok_and(|s| s.filesystem_type() == nix::sys::statfs::TMPFS_MAGIC)
    }

    #[test]
    fn a_file_read_whole_is_cached_and_after_dontneed_is_not() {
        let (_dir, path) = cached_file();
        for sources in [Sources::Best, Sources::MincoreOnly] {
            let probe = ResidencyProbe::open(&path, sources);
            let (_, c) = probe.read().unwrap();
            assert_eq!(c.pages, (1 << 20) / page_bytes());
            assert!(c.cached >= c.pages * 95 / 100, "{sources:?}: {c:?}");
        }
        if on_tmpfs(&path) {
            crate::system::skip_ledger::skipped(
                "the temporary directory is tmpfs, whose pages DONTNEED keeps",
            );
            return;
        }
        drop_pages(&path);
        for sources in [Sources::Best, Sources::MincoreOnly] {
            let (_, c) = ResidencyProbe::open(&path, sources).read().unwrap();
            assert!(c.cached <= c.pages / 20, "{sources:?}: {c:?}");
        }
    }

    #[test]
    fn cachestat_and_mincore_count_the_same_cached_pages() {
        let (_dir, path) = cached_file();
        if on_tmpfs(&path) {
            crate::system::skip_ledger::skipped(
                "the temporary directory is tmpfs, whose pages DONTNEED keeps",
            );
            return;
        }
        drop_pages(&path);
        // Half the file read back: 128 of its 256 pages.
        let mut f = File::open(&path).unwrap();
        let mut half = vec![0u8; 1 << 19];
        f.read_exact(&mut half).unwrap();
        let best = ResidencyProbe::open(&path, Sources::Best).read().unwrap();
        let mincore = ResidencyProbe::open(&path, Sources::MincoreOnly)
            .read()
            .unwrap();
        assert_eq!(mincore.0, ResidencySource::Mincore);
        if best.0 == ResidencySource::Cachestat {
            assert_eq!(best.1.cached, mincore.1.cached);
            assert_eq!(best.1.dirty, Some(0), "synced before");
        } else {
            crate::system::skip_ledger::skipped("cachestat is not in this kernel: mincore alone");
        }
        // Readahead may bring in more than was read, never less.
        assert!(mincore.1.cached >= (1 << 19) / page_bytes());
    }

    #[test]
    fn written_pages_are_dirty_until_synced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w");
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![1u8; 256 << 10]).unwrap();
        let before = read_fd(f.as_raw_fd(), Sources::Best).unwrap();
        if before.0 != ResidencySource::Cachestat {
            crate::system::skip_ledger::skipped("cachestat is not in this kernel: no dirty counts");
            return;
        }
        assert!(before.1.unwritten().unwrap() > 0, "{before:?}");
        f.sync_all().unwrap();
        let after = read_fd(f.as_raw_fd(), Sources::Best).unwrap();
        assert_eq!(after.1.unwritten(), Some(0));
    }

    #[test]
    fn off_and_a_missing_file_say_why() {
        let off = ResidencyProbe::open(Path::new("/"), Sources::Off).read();
        assert_eq!(off, Err("IOZ_RESIDENCY=off".into()));
        let gone = ResidencyProbe::open(Path::new("/nonexistent/ioz"), Sources::Best).read();
        assert!(gone.unwrap_err().contains("cannot open"));
    }
}
