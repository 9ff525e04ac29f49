//! The metadata benchmarks' engine (`ioz fileop`, `ioz mdtest`, as fio's
//! filecreate and filestat engines are fio's): the system calls they time,
//! on names made before the clock (data::names), and the timer around each
//! — one clock read before the call and one after, the latency recorded
//! into a histogram made before the run. Nothing here allocates.
//!
//! The calls are the peer's: mdtest names every item by its whole path
//! from `-d` (the kernel walks every component), fileop one name relative
//! to the working directory it `chdir`ed into. How a walk is kept inside
//! ioz's tree is the [`Walk`]:
//! - [`Walk::Whole`]: the peer's calls exactly, inside the thread's private
//!   view of the tree (system::private_view), where no walk follows a
//!   symbolic link or reaches a mount made by someone else;
//! - [`Walk::Guarded`]: where that view cannot be made (not root), each
//!   whole path is walked by `openat2` beneath the tree's directory with
//!   no symbolic link and no mount crossing (`RESOLVE_NO_SYMLINKS |
//!   RESOLVE_NO_XDEV`), then the call is made on its last name in the
//!   directory so reached — one or two calls more than the peer's, which
//!   the run says.
//!
//! Every create is exclusive (`O_EXCL`: a file or link put in an item's
//! place is never written through) and every open refuses a link at the
//! last name (`O_NOFOLLOW`); neither costs the call anything.

use std::ffi::CStr;
use std::os::fd::RawFd;

use nix::errno::Errno;

use crate::data::names::Paths;
use crate::engine::clock::OpClock;
use crate::model::histogram::LatencyHistogram;

/// Times one call: a clock read before and after it, nothing else between;
/// the latency goes to `h` whether the call worked or not.
#[inline(always)]
pub(crate) fn timed<T>(clock: &OpClock, h: &mut LatencyHistogram, call: impl FnOnce() -> T) -> T {
    let t0 = clock.now();
    let r = call();
    let t1 = clock.now();
    h.record(clock.ns(t0, t1));
    r
}

/// How the benchmark's walks are kept inside ioz's tree (see the module).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Walk {
    /// The peer's calls on its paths, in the private view.
    Whole,
    /// Each path walked by openat2 beneath the tree's directory `base`.
    Guarded { base: RawFd },
}

/// What a guarded walk may not cross.
const RESOLVE: u64 = libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_XDEV;

#[inline(always)]
fn check(r: libc::c_int) -> Result<(), Errno> {
    if r < 0 { Err(Errno::last()) } else { Ok(()) }
}

#[inline(always)]
fn fd_or_errno(fd: libc::c_long) -> Result<RawFd, Errno> {
    if fd < 0 {
        Err(Errno::last())
    } else {
        Ok(fd as RawFd)
    }
}

/// openat2(2) with `RESOLVE`: `path` walked from `dir`, no symbolic link
/// and no mount crossed.
#[inline(always)]
fn open_beneath(dir: RawFd, path: &CStr, flags: i32, mode: libc::mode_t) -> Result<RawFd, Errno> {
    // SAFETY: an all-zero open_how is a valid one (no flags, no mode).
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (flags | libc::O_CLOEXEC) as u64;
    if flags & libc::O_CREAT != 0 {
        how.mode = mode as u64;
    }
    how.resolve = RESOLVE;
    // SAFETY: a NUL-terminated path and an open_how of the size given.
    fd_or_errno(unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir,
            path.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    })
}

#[inline(always)]
pub(crate) fn close(fd: RawFd) -> Result<(), Errno> {
    // SAFETY: a descriptor the runner opened and closes once.
    check(unsafe { libc::close(fd) })
}

/// `call` on the directory that holds item `i` of `paths` (reached by a
/// guarded walk) and the item's last name.
#[inline(always)]
fn in_parent<T>(
    base: RawFd,
    paths: &Paths,
    i: usize,
    call: impl FnOnce(RawFd, &CStr) -> Result<T, Errno>,
) -> Result<T, Errno> {
    let dir = open_beneath(base, paths.parent(i), libc::O_PATH | libc::O_DIRECTORY, 0)?;
    let done = call(dir, paths.leaf(i));
    let _ = close(dir);
    done
}

impl Walk {
    /// mkdir(2) of item `i`.
    #[inline(always)]
    pub fn mkdir(self, paths: &Paths, i: usize, mode: libc::mode_t) -> Result<(), Errno> {
        match self {
            // SAFETY: a NUL-terminated path.
            Walk::Whole => check(unsafe { libc::mkdir(paths.whole(i).as_ptr(), mode) }),
            Walk::Guarded { base } => in_parent(base, paths, i, |dir, name| {
                // SAFETY: a directory descriptor we hold and a NUL-terminated name.
                check(unsafe { libc::mkdirat(dir, name.as_ptr(), mode) })
            }),
        }
    }

    /// rmdir(2) of item `i`.
    #[inline(always)]
    pub fn rmdir(self, paths: &Paths, i: usize) -> Result<(), Errno> {
        match self {
            // SAFETY: as in mkdir.
            Walk::Whole => check(unsafe { libc::rmdir(paths.whole(i).as_ptr()) }),
            Walk::Guarded { base } => in_parent(base, paths, i, |dir, name| {
                // SAFETY: as in mkdir.
                check(unsafe { libc::unlinkat(dir, name.as_ptr(), libc::AT_REMOVEDIR) })
            }),
        }
    }

    /// unlink(2) of item `i`.
    #[inline(always)]
    pub fn unlink(self, paths: &Paths, i: usize) -> Result<(), Errno> {
        match self {
            // SAFETY: as in mkdir.
            Walk::Whole => check(unsafe { libc::unlink(paths.whole(i).as_ptr()) }),
            Walk::Guarded { base } => in_parent(base, paths, i, |dir, name| {
                // SAFETY: as in mkdir.
                check(unsafe { libc::unlinkat(dir, name.as_ptr(), 0) })
            }),
        }
    }

    /// stat(2) of item `i`.
    #[inline(always)]
    pub fn stat(self, paths: &Paths, i: usize, st: &mut libc::stat) -> Result<(), Errno> {
        match self {
            // SAFETY: a NUL-terminated path; `st` is ours to fill.
            Walk::Whole => check(unsafe { libc::stat(paths.whole(i).as_ptr(), st) }),
            Walk::Guarded { base } => in_parent(base, paths, i, |dir, name| {
                // SAFETY: as in mkdir; `st` is ours to fill.
                check(unsafe { libc::fstatat(dir, name.as_ptr(), st, libc::AT_SYMLINK_NOFOLLOW) })
            }),
        }
    }

    /// open(2) of item `i` with `flags` (and `mode` when it creates);
    /// never through a link at its last name, a create never of an
    /// existing file.
    #[inline(always)]
    pub fn open(
        self,
        paths: &Paths,
        i: usize,
        flags: i32,
        mode: libc::mode_t,
    ) -> Result<RawFd, Errno> {
        let mut flags = flags | libc::O_NOFOLLOW;
        if flags & libc::O_CREAT != 0 {
            flags |= libc::O_EXCL;
        }
        match self {
            Walk::Whole => {
                // SAFETY: a NUL-terminated path; the mode is a plain integer.
                let fd = unsafe {
                    libc::open(
                        paths.whole(i).as_ptr(),
                        flags | libc::O_CLOEXEC,
                        mode as libc::c_uint,
                    )
                };
                fd_or_errno(fd as libc::c_long)
            }
            Walk::Guarded { base } => open_beneath(base, paths.under(i), flags, mode),
        }
    }

    /// rename(2) of item `i` of `from` to item `j` of `to`.
    #[inline(always)]
    pub fn rename(self, from: &Paths, i: usize, to: &Paths, j: usize) -> Result<(), Errno> {
        match self {
            Walk::Whole => {
                // SAFETY: two NUL-terminated paths.
                check(unsafe { libc::rename(from.whole(i).as_ptr(), to.whole(j).as_ptr()) })
            }
            Walk::Guarded { base } => in_parent(base, from, i, |a, old| {
                in_parent(base, to, j, |b, new| {
                    // SAFETY: two directory descriptors we hold, two names.
                    check(unsafe { libc::renameat(a, old.as_ptr(), b, new.as_ptr()) })
                })
            }),
        }
    }
}

/// All of `buf`, however many calls it takes (one for an empty `buf`).
#[inline(always)]
pub(crate) fn write_all(fd: RawFd, buf: &[u8]) -> Result<(), Errno> {
    let mut done = 0;
    loop {
        // SAFETY: the pointer and length stay within `buf`.
        let n = unsafe { libc::write(fd, buf[done..].as_ptr().cast(), buf.len() - done) };
        match n {
            n if n >= 0 => done += n as usize,
            _ if Errno::last() == Errno::EINTR => continue,
            _ => return Err(Errno::last()),
        }
        if done >= buf.len() {
            return Ok(());
        }
        if n == 0 {
            return Err(Errno::EIO);
        }
    }
}

/// Up to `buf.len()` bytes, until the file ends.
#[inline(always)]
pub(crate) fn read_up_to(fd: RawFd, buf: &mut [u8]) -> Result<(), Errno> {
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: the pointer and length stay within `buf`.
        let n = unsafe { libc::read(fd, buf[done..].as_mut_ptr().cast(), buf.len() - done) };
        match n {
            n if n > 0 => done += n as usize,
            0 => break,
            _ if Errno::last() == Errno::EINTR => {}
            _ => return Err(Errno::last()),
        }
    }
    Ok(())
}

#[inline(always)]
pub(crate) fn fsync(fd: RawFd) -> Result<(), Errno> {
    // SAFETY: a descriptor the runner holds.
    check(unsafe { libc::fsync(fd) })
}

/// fileop's calls: one name relative to the working directory, which
/// [`Cwd`] moves. In the private view they are fileop's own; guarded,
/// each refuses a link at its name (the working directory itself was
/// reached without one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Here {
    pub guarded: bool,
}

impl Here {
    #[inline(always)]
    pub fn mkdir(self, name: &CStr, mode: libc::mode_t) -> Result<(), Errno> {
        // SAFETY: a NUL-terminated name.
        check(unsafe { libc::mkdir(name.as_ptr(), mode) })
    }

    #[inline(always)]
    pub fn rmdir(self, name: &CStr) -> Result<(), Errno> {
        // SAFETY: as in mkdir.
        check(unsafe { libc::rmdir(name.as_ptr()) })
    }

    #[inline(always)]
    pub fn unlink(self, name: &CStr) -> Result<(), Errno> {
        // SAFETY: as in mkdir.
        check(unsafe { libc::unlink(name.as_ptr()) })
    }

    /// A new file (O_EXCL), for writing: fileop's creat(2).
    #[inline(always)]
    pub fn create(self, name: &CStr, mode: libc::mode_t) -> Result<RawFd, Errno> {
        let flags = libc::O_WRONLY
            | libc::O_CREAT
            | libc::O_TRUNC
            | libc::O_EXCL
            | libc::O_NOFOLLOW
            | libc::O_CLOEXEC;
        // SAFETY: as in mkdir; the mode is a plain integer.
        let fd = unsafe { libc::open(name.as_ptr(), flags, mode as libc::c_uint) };
        fd_or_errno(fd as libc::c_long)
    }

    #[inline(always)]
    pub fn open_read(self, name: &CStr) -> Result<RawFd, Errno> {
        let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        // SAFETY: as in mkdir.
        let fd = unsafe { libc::open(name.as_ptr(), flags) };
        fd_or_errno(fd as libc::c_long)
    }

    #[inline(always)]
    pub fn stat(self, name: &CStr, st: &mut libc::stat) -> Result<(), Errno> {
        if self.guarded {
            // SAFETY: as in mkdir; `st` is ours to fill.
            return check(unsafe {
                libc::fstatat(libc::AT_FDCWD, name.as_ptr(), st, libc::AT_SYMLINK_NOFOLLOW)
            });
        }
        // SAFETY: as in mkdir; `st` is ours to fill.
        check(unsafe { libc::stat(name.as_ptr(), st) })
    }

    /// access(2) for writing, as fileop asks.
    #[inline(always)]
    pub fn access(self, name: &CStr) -> Result<(), Errno> {
        if self.guarded {
            // SAFETY: as in mkdir.
            return check(unsafe {
                libc::faccessat(
                    libc::AT_FDCWD,
                    name.as_ptr(),
                    libc::W_OK,
                    libc::AT_SYMLINK_NOFOLLOW,
                )
            });
        }
        // SAFETY: as in mkdir.
        check(unsafe { libc::access(name.as_ptr(), libc::W_OK) })
    }

    #[inline(always)]
    pub fn chmod(self, name: &CStr, mode: libc::mode_t) -> Result<(), Errno> {
        if self.guarded {
            // SAFETY: as in mkdir.
            return check(unsafe {
                libc::fchmodat(
                    libc::AT_FDCWD,
                    name.as_ptr(),
                    mode,
                    libc::AT_SYMLINK_NOFOLLOW,
                )
            });
        }
        // SAFETY: as in mkdir.
        check(unsafe { libc::chmod(name.as_ptr(), mode) })
    }

    /// A hard link `to` of `from` (never of a link's target).
    #[inline(always)]
    pub fn link(self, from: &CStr, to: &CStr) -> Result<(), Errno> {
        // SAFETY: two NUL-terminated names.
        check(unsafe { libc::link(from.as_ptr(), to.as_ptr()) })
    }

    /// fileop's readdir: the working directory opened (opendir), its first
    /// entry read, closed — C's own calls, as fileop makes them.
    #[inline(always)]
    pub fn read_dir(self) -> Result<(), Errno> {
        // SAFETY: a NUL-terminated path.
        let dir = unsafe { libc::opendir(c".".as_ptr()) };
        if dir.is_null() {
            return Err(Errno::last());
        }
        // SAFETY: a stream opendir just returned; errno tells an error
        // from the end.
        let read = unsafe {
            *libc::__errno_location() = 0;
            let entry = libc::readdir(dir);
            if entry.is_null() && *libc::__errno_location() != 0 {
                Err(Errno::last())
            } else {
                Ok(())
            }
        };
        // SAFETY: the stream opened above, closed once.
        let closed = check(unsafe { libc::closedir(dir) });
        read.and(closed)
    }
}

/// fileop's working directory as it walks its tree: down into a directory
/// by name, back up. In the private view, `chdir(name)` and `chdir("..")`
/// (a `..` that would leave the tree's mount fails there). Guarded, the
/// directory is reached by `openat2` (no link, no mount crossed) and
/// entered by `fchdir`, and up goes back to the descriptor of the one
/// above — never `..`, which a directory moved elsewhere meanwhile would
/// take out of the tree.
pub(crate) struct Cwd {
    guarded: bool,
    /// Guarded: the directories entered, the tree's own first.
    stack: Vec<RawFd>,
    /// The working directory before, returned to when it is dropped.
    back: RawFd,
}

impl Cwd {
    /// At the tree's directory `base` (held by the caller, which closes it).
    pub fn at(base: RawFd, guarded: bool) -> Result<Cwd, Errno> {
        // SAFETY: a NUL-terminated path; O_PATH opens any directory we are in.
        let back = fd_or_errno(unsafe {
            libc::open(
                c".".as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        } as libc::c_long)?;
        let mut cwd = Cwd {
            guarded,
            stack: Vec::with_capacity(8),
            back,
        };
        // SAFETY: a directory descriptor the caller holds.
        check(unsafe { libc::fchdir(base) })?;
        if guarded {
            // SAFETY: dup of a descriptor the caller holds.
            let top = unsafe { libc::fcntl(base, libc::F_DUPFD_CLOEXEC, 0) };
            cwd.stack.push(fd_or_errno(top as libc::c_long)?);
        }
        Ok(cwd)
    }

    /// Into the directory `name` of the working directory.
    #[inline(always)]
    pub fn down(&mut self, name: &CStr) -> Result<(), Errno> {
        if !self.guarded {
            // SAFETY: a NUL-terminated name.
            return check(unsafe { libc::chdir(name.as_ptr()) });
        }
        let fd = open_beneath(libc::AT_FDCWD, name, libc::O_PATH | libc::O_DIRECTORY, 0)?;
        // SAFETY: the descriptor just opened.
        if let Err(e) = check(unsafe { libc::fchdir(fd) }) {
            let _ = close(fd);
            return Err(e);
        }
        self.stack.push(fd);
        Ok(())
    }

    /// Back to the directory above.
    #[inline(always)]
    pub fn up(&mut self) -> Result<(), Errno> {
        if !self.guarded {
            // SAFETY: a NUL-terminated name.
            return check(unsafe { libc::chdir(c"..".as_ptr()) });
        }
        if self.stack.len() < 2 {
            return Err(Errno::EINVAL);
        }
        if let Some(fd) = self.stack.pop() {
            let _ = close(fd);
        }
        let above = self.stack[self.stack.len() - 1];
        // SAFETY: a directory descriptor on the stack.
        check(unsafe { libc::fchdir(above) })
    }
}

impl Drop for Cwd {
    fn drop(&mut self) {
        // SAFETY: the descriptor of the directory the walk began in.
        unsafe { libc::fchdir(self.back) };
        let _ = close(self.back);
        for fd in self.stack.drain(..) {
            let _ = close(fd);
        }
    }
}
