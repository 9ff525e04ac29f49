//! A private view of a metadata benchmark's tree, for the calling thread
//! alone: a mount namespace of its own in which the tree's directory is a
//! bind mount on itself that follows no symbolic link
//! (`MOUNT_ATTR_NOSYMFOLLOW`) and receives no mount made anywhere else
//! (private propagation, and cloned without what is mounted inside it).
//!
//! Why: fileop and mdtest name every item by a path the kernel walks
//! component by component (mdtest the whole path from `-d`, fileop one name
//! after a `chdir`), and ioz makes the same calls so that its rates are
//! theirs. A walk by name follows whatever another process swaps into the
//! tree meanwhile: a symbolic link to someone else's directory, a bind
//! mount of it. Inside the view no walk can follow a link (ELOOP) nor reach
//! a mount made after the view was set up, so the peer's calls stay the
//! peer's calls and still cannot be led out of the tree — at no cost per
//! operation. Setting it up needs CAP_SYS_ADMIN (root); without it the
//! runner guards each walk itself (runner/metadata/calls.rs, `Walk`).
//!
//! A mount namespace and a working directory can be a thread's own
//! (`unshare(CLONE_NEWNS)` also unshares the thread's filesystem
//! information), so the rest of ioz — MPI's threads, the signal handlers
//! on other threads, the files written after the run — keeps the machine's
//! view; the thread returns to it when the view is left (or dropped).
//!
//! The view keeps only the mounts the tree's path runs through: a copy of
//! every other mount of the machine, held by the view for the whole run,
//! would keep each file system alive after its owner unmounted it (an
//! unmount that does not release its device, as -U found while another
//! run was in its view).
//!
//! Not covered: a process that renames a directory of the tree (or one of
//! `-d`'s own parents) elsewhere moves it out of every path; the runner
//! checks at each phase's end that the tree's path still leads to ioz's
//! directory.

use std::cell::Cell;
use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

thread_local! {
    /// Whether this thread is in a private view now: in it, the tree's
    /// directory is a mount point, which its removal (system::tree, also
    /// from a signal handler: a plain thread-local word) detaches first.
    static IN_VIEW: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is in a private view.
pub fn in_view() -> bool {
    IN_VIEW.with(Cell::get)
}

/// The thread's private view; the thread goes back to the machine's view
/// when it is left or dropped.
#[derive(Debug)]
pub struct PrivateView {
    /// The mount namespace the thread came from.
    host: OwnedFd,
    /// The working directory it had there.
    cwd: OwnedFd,
    left: bool,
}

/// Why a private view could not be made.
#[derive(Debug, thiserror::Error)]
pub enum NoView {
    /// Not permitted: a mount namespace needs CAP_SYS_ADMIN.
    #[error("making a private mount namespace needs root (CAP_SYS_ADMIN)")]
    NotPermitted,
    /// The kernel has no such call (before Linux 5.12) or refused it.
    #[error("the kernel refused a private view of the tree ({call}: {source})")]
    Refused {
        call: &'static str,
        source: io::Error,
    },
}

impl PrivateView {
    /// Makes the view of `tree` (an existing directory of ioz's, absolute
    /// or relative to the working directory) for the calling thread. On
    /// failure the thread is back in the machine's view.
    pub fn enter(tree: &Path) -> Result<PrivateView, NoView> {
        let path = CString::new(tree.as_os_str().as_bytes()).map_err(|_| NoView::Refused {
            call: "path",
            source: io::Error::from(io::ErrorKind::InvalidInput),
        })?;
        let host =
            open_raw(c"/proc/thread-self/ns/mnt", libc::O_RDONLY).map_err(refused("open"))?;
        let cwd =
            open_raw(c".", libc::O_PATH | libc::O_DIRECTORY).map_err(refused("open the cwd"))?;
        // SAFETY: unshare takes flags only; it changes this thread alone.
        if unsafe { libc::unshare(libc::CLONE_NEWNS) } != 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::EPERM) => NoView::NotPermitted,
                _ => NoView::Refused {
                    call: "unshare",
                    source: e,
                },
            });
        }
        let view = PrivateView {
            host,
            cwd,
            left: false,
        };
        IN_VIEW.with(|v| v.set(true));
        // From here on a failure returns through the view's drop, which
        // takes the thread back.
        // Nothing mounted elsewhere from now on shows in this view.
        set_attr(
            libc::AT_FDCWD,
            c"/",
            libc::AT_RECURSIVE,
            0,
            libc::MS_PRIVATE,
        )
        .map_err(refused("mount_setattr /"))?;
        let absolute = std::path::absolute(tree).map_err(refused("the tree's path"))?;
        release_others(&absolute);
        // SAFETY: a NUL-terminated path; the flags ask for a detached copy
        // of the tree's mount alone (nothing mounted inside it), with no
        // symbolic link followed to reach it.
        let clone = unsafe {
            libc::syscall(
                libc::SYS_open_tree,
                libc::AT_FDCWD,
                path.as_ptr(),
                (libc::OPEN_TREE_CLONE | libc::OPEN_TREE_CLOEXEC) as libc::c_uint
                    | libc::AT_SYMLINK_NOFOLLOW as libc::c_uint,
            )
        };
        if clone < 0 {
            return Err(refused("open_tree")(io::Error::last_os_error()));
        }
        // SAFETY: a descriptor just returned, owned by nothing else.
        let clone = unsafe { OwnedFd::from_raw_fd(clone as i32) };
        set_attr(
            clone.as_raw_fd(),
            c"",
            libc::AT_EMPTY_PATH,
            libc::MOUNT_ATTR_NOSYMFOLLOW,
            libc::MS_PRIVATE,
        )
        .map_err(refused("mount_setattr"))?;
        // SAFETY: the detached mount's descriptor and a NUL-terminated
        // target path.
        let moved = unsafe {
            libc::syscall(
                libc::SYS_move_mount,
                clone.as_raw_fd(),
                c"".as_ptr(),
                libc::AT_FDCWD,
                path.as_ptr(),
                libc::MOVE_MOUNT_F_EMPTY_PATH,
            )
        };
        if moved != 0 {
            return Err(refused("move_mount")(io::Error::last_os_error()));
        }
        Ok(view)
    }

    /// Back to the machine's view and working directory.
    pub fn leave(mut self) -> io::Result<()> {
        self.back()
    }

    /// Back to the machine's view, the view's copy of the mount at
    /// `mount_point` (and all under it) detached first, so that it no
    /// longer holds that file system once the thread is back: -U unmounts
    /// it next and must release its device. Left to the namespace's own
    /// end, the copy is let go a moment later, and the unmount that comes
    /// first finds the device still held (4 runs in 15 here).
    pub fn leave_releasing(mut self, mount_point: &Path) -> io::Result<()> {
        if let Ok(path) = CString::new(mount_point.as_os_str().as_bytes()) {
            // SAFETY: a NUL-terminated path; the unmount is this view's alone.
            unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH | libc::UMOUNT_NOFOLLOW) };
        }
        self.back()
    }

    fn back(&mut self) -> io::Result<()> {
        if self.left {
            return Ok(());
        }
        self.left = true;
        // SAFETY: a namespace descriptor we hold.
        if unsafe { libc::setns(self.host.as_raw_fd(), libc::CLONE_NEWNS) } != 0 {
            return Err(io::Error::last_os_error());
        }
        IN_VIEW.with(|v| v.set(false));
        // setns puts the thread at the namespace's root: back where it was.
        // SAFETY: a directory descriptor we hold.
        if unsafe { libc::fchdir(self.cwd.as_raw_fd()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl Drop for PrivateView {
    fn drop(&mut self) {
        let _ = self.back();
    }
}

/// Detaches, in this thread's view, every mount whose mount point is not
/// on `tree`'s path (`/`, `/tmp`, … the tree's own file system's): the
/// outermost first, which takes those mounted under it along.
fn release_others(tree: &Path) {
    let Ok(text) = std::fs::read_to_string("/proc/thread-self/mountinfo") else {
        return;
    };
    let mut points: Vec<std::path::PathBuf> = super::mountinfo::parse(&text)
        .into_iter()
        .map(|m| m.mount_point)
        .filter(|p| !tree.starts_with(p))
        .collect();
    points.sort_by_key(|p| p.components().count());
    let mut gone: Vec<std::path::PathBuf> = Vec::new();
    for point in points {
        if gone.iter().any(|g| point.starts_with(g)) {
            continue;
        }
        let Ok(path) = CString::new(point.as_os_str().as_bytes()) else {
            continue;
        };
        // SAFETY: a NUL-terminated path; the unmount is this view's alone.
        if unsafe { libc::umount2(path.as_ptr(), libc::MNT_DETACH | libc::UMOUNT_NOFOLLOW) } == 0 {
            gone.push(point);
        }
    }
}

fn refused(call: &'static str) -> impl Fn(io::Error) -> NoView {
    move |source| NoView::Refused { call, source }
}

fn open_raw(path: &std::ffi::CStr, flags: i32) -> io::Result<OwnedFd> {
    // SAFETY: a NUL-terminated path.
    let fd = unsafe { libc::open(path.as_ptr(), flags | libc::O_CLOEXEC) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened, owned by nothing else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// mount_setattr(2): `set` attributes and a propagation type.
fn set_attr(
    dir: i32,
    path: &std::ffi::CStr,
    flags: i32,
    set: u64,
    propagation: libc::c_ulong,
) -> io::Result<()> {
    let attr = libc::mount_attr {
        attr_set: set,
        attr_clr: 0,
        propagation,
        userns_fd: 0,
    };
    // SAFETY: a NUL-terminated path and an attribute structure of the size
    // given, both ours for the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            dir,
            path.as_ptr(),
            flags as libc::c_uint,
            &attr as *const libc::mount_attr,
            std::mem::size_of::<libc::mount_attr>(),
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::sync::mpsc;

    #[test]
    fn inside_the_view_no_link_is_followed_and_other_threads_keep_theirs() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("tree");
        let theirs = dir.path().join("theirs");
        fs::create_dir_all(tree.join("mine")).unwrap();
        fs::create_dir(&theirs).unwrap();
        fs::write(theirs.join("precious"), b"keep").unwrap();
        std::os::unix::fs::symlink(&theirs, tree.join("link")).unwrap();
        let through = tree.join("link/precious");
        // A thread started before the view: it must keep the machine's.
        let (ask, asked) = mpsc::channel::<()>();
        let (tell, told) = mpsc::channel::<bool>();
        let other = std::thread::spawn({
            let through = through.clone();
            move || {
                while asked.recv().is_ok() {
                    tell.send(fs::metadata(&through).is_ok()).unwrap();
                }
            }
        });
        let view = match PrivateView::enter(&tree) {
            Ok(v) => v,
            Err(e) => {
                crate::system::skip_ledger::skipped(&e.to_string());
                return;
            }
        };
        let inside = fs::metadata(&through);
        ask.send(()).unwrap();
        let outside = told.recv().unwrap();
        let mine = fs::metadata(tree.join("mine")).map(|m| m.is_dir());
        view.leave().unwrap();
        let after = fs::metadata(&through).is_ok();
        drop(ask);
        other.join().unwrap();
        assert_eq!(
            inside.unwrap_err().raw_os_error(),
            Some(libc::ELOOP),
            "a link in the tree is not followed in the view"
        );
        assert!(mine.unwrap(), "the tree's own directories are reached");
        assert!(
            outside,
            "another thread follows the link: the view is this thread's"
        );
        assert!(after, "after the view, the link is followed again");
        assert_eq!(fs::read(theirs.join("precious")).unwrap(), b"keep");
    }

    #[test]
    fn the_view_holds_no_mount_off_the_tree_s_path() {
        let dir = tempfile::tempdir().unwrap();
        let (tree, other) = (dir.path().join("tree"), dir.path().join("other"));
        fs::create_dir_all(tree.join("mine")).unwrap();
        fs::create_dir(&other).unwrap();
        let c = CString::new(other.as_os_str().as_bytes()).unwrap();
        // SAFETY: NUL-terminated strings; a tmpfs of our own at `other`.
        if unsafe {
            libc::mount(
                c"ioz-test".as_ptr(),
                c.as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                std::ptr::null(),
            )
        } != 0
        {
            crate::system::skip_ledger::skipped("cannot mount a tmpfs (not root)");
            return;
        }
        fs::write(other.join("on-the-mount"), b"x").unwrap();
        let view = PrivateView::enter(&tree);
        let seen_inside = fs::metadata(other.join("on-the-mount")).is_ok();
        let mine = fs::metadata(tree.join("mine")).is_ok();
        if let Ok(v) = view {
            v.leave().unwrap();
        }
        let seen_after = fs::metadata(other.join("on-the-mount")).is_ok();
        // SAFETY: the tmpfs mounted above.
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        assert!(
            !seen_inside,
            "a mount off the tree's path is let go in the view"
        );
        assert!(mine, "the tree's own path stays");
        assert!(seen_after, "and the machine's view keeps it");
    }
}
