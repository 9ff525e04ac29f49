//! The test file's descriptor as an engine owns it: closed explicitly, so
//! the close's error is reported.

use std::io;
use std::os::fd::{BorrowedFd, RawFd};
use std::path::Path;

use super::open::{OpenSpec, UntimedStat, open_fd, stat_untimed};
use super::syscall;

/// An owned descriptor whose close is explicit, so close errors are reported.
#[derive(Debug)]
pub struct Descriptor {
    fd: RawFd,
    open: bool,
}

impl Descriptor {
    pub fn open(path: &Path, spec: &OpenSpec) -> io::Result<Descriptor> {
        Ok(Descriptor {
            fd: open_fd(path, spec)?,
            open: true,
        })
    }

    #[inline]
    pub fn raw(&self) -> RawFd {
        self.fd
    }

    /// The descriptor, lent to a safe wrapper's call (untimed) while it is
    /// open; once closed or given away, EBADF.
    pub(super) fn borrowed(&self) -> io::Result<BorrowedFd<'_>> {
        if !self.open {
            return Err(io::Error::from_raw_os_error(libc::EBADF));
        }
        // SAFETY: the descriptor is ours and open, and only close() or
        // disown() (both `&mut self`) end that, so it stays open while lent.
        Ok(unsafe { BorrowedFd::borrow_raw(self.fd) })
    }

    /// The open file's type, identity and size: the file checked at the
    /// open, not whatever the path leads to now (and never its timestamps:
    /// engine/open.rs says why).
    pub fn stat(&self) -> io::Result<UntimedStat> {
        stat_untimed(self.borrowed()?)
    }

    pub fn fsync(&self) -> io::Result<()> {
        syscall::fsync(self.fd)
    }

    /// Gives up ownership: the descriptor now belongs to someone else (a stdio stream).
    pub fn disown(&mut self) {
        self.open = false;
    }

    pub fn close(&mut self) -> io::Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        // The descriptor is ours and still open; it is never used again.
        syscall::close(self.fd)
    }
}

impl Drop for Descriptor {
    fn drop(&mut self) {
        let _ = self.close();
    }
}

/// The housekeeping of an engine whose file is the [`Descriptor`] in its
/// field `$fd`, written once for every `impl Engine` with nothing more to
/// sync or close: `sync` is the descriptor's fsync, `close` its close and
/// `raw_fd` its number. An engine with more to do (a mapping to msync, a
/// ring to drop first) names those it takes: `on_descriptor!(fd: raw_fd)`.
/// (Not default methods of [`super::Engine`]: an engine need not own a
/// descriptor, as a stdio stream or a test's recording engine do not.)
macro_rules! on_descriptor {
    ($fd:ident) => {
        on_descriptor!($fd: sync, close, raw_fd);
    };
    ($fd:ident: $($method:ident),+) => {
        $(on_descriptor!(@ $method $fd);)+
    };
    (@ sync $fd:ident) => {
        fn sync(&mut self) -> std::io::Result<()> {
            self.$fd.fsync()
        }
    };
    (@ close $fd:ident) => {
        fn close(&mut self) -> std::io::Result<()> {
            self.$fd.close()
        }
    };
    (@ raw_fd $fd:ident) => {
        fn raw_fd(&self) -> std::os::fd::RawFd {
            self.$fd.raw()
        }
    };
}
pub(super) use on_descriptor;
