//! A metadata benchmark's tree: ioz's own directory, made new under the
//! directory the user named (never an existing one), and removed with
//! everything in it — at the end of the run, when it fails, and on a second
//! Ctrl-C from the signal handler. The removal goes down from the directory
//! ioz made, checked by its identity (device and inode), through directory
//! descriptors (`openat2` with `RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV`,
//! `unlinkat`): it never follows a symbolic link out of the tree (a link
//! is removed itself, never its target) and never enters a mount inside
//! it — another file system or a bind mount of the same one alike, which
//! it leaves in place and names. It allocates nothing and makes only
//! async-signal-safe calls, so the signal handler can do it too.
//!
//! `-d` itself, when ioz made it (mdtest's way, [`MadeDir`]), is removed
//! after the tree if nothing else was put in it.

use std::ffi::{CStr, CString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use nix::errno::Errno;

/// How deep the removal goes: far below any tree ioz makes (mdtest's
/// deepest is 64 levels); a deeper one is left, and said.
const MAX_DEPTH: u32 = 256;

/// The directory entries read per call (on the stack of each level).
const DIRENT_BUFFER: usize = 1024;

/// ioz's tree: a new directory in `parent` (an absolute path).
#[derive(Debug)]
pub struct TreeRoot {
    parent: CString,
    name: CString,
    dev: u64,
    ino: u64,
}

impl TreeRoot {
    /// Makes a new directory `<prefix><pid>` (or `<prefix><pid>.<n>` when
    /// that exists) in `parent`, made absolute.
    pub fn make(parent: &Path, prefix: &str) -> io::Result<TreeRoot> {
        let parent = std::path::absolute(parent)?;
        let parent = CString::new(parent.as_os_str().as_bytes())?;
        let pid = std::process::id();
        for n in 0..1000u32 {
            let name = match n {
                0 => format!("{prefix}{pid}"),
                n => format!("{prefix}{pid}.{n}"),
            };
            let name = CString::new(name)?;
            match make_dir(&parent, &name) {
                Ok((dev, ino)) => {
                    return Ok(TreeRoot {
                        parent,
                        name,
                        dev,
                        ino,
                    });
                }
                Err(Errno::EEXIST) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(io::Error::other("a thousand names taken"))
    }

    /// The tree another process made (rank 0's, across ranks), found by
    /// name in `parent` and held by its identity from now on.
    pub fn join(parent: &Path, name: &str) -> io::Result<TreeRoot> {
        let parent = std::path::absolute(parent)?;
        let parent = CString::new(parent.as_os_str().as_bytes())?;
        let name = CString::new(name)?;
        let fd = open_dir_in(&parent, &name)?;
        let st = nix::sys::stat::fstat(&fd)?;
        Ok(TreeRoot {
            parent,
            name,
            dev: st.st_dev,
            ino: st.st_ino as u64,
        })
    }

    /// Its name in the parent directory.
    pub fn name(&self) -> &str {
        self.name.to_str().unwrap_or_default()
    }

    /// Its path.
    pub fn path(&self) -> std::path::PathBuf {
        Path::new(std::ffi::OsStr::from_bytes(self.parent.as_bytes()))
            .join(std::ffi::OsStr::from_bytes(self.name.as_bytes()))
    }

    /// A descriptor of the tree's directory, if it is still ioz's.
    pub fn open(&self) -> io::Result<std::os::fd::OwnedFd> {
        let fd = open_dir_in(&self.parent, &self.name)?;
        let st = nix::sys::stat::fstat(&fd)?;
        if st.st_dev != self.dev || st.st_ino as u64 != self.ino {
            return Err(io::Error::other(
                "it is no longer the directory ioz made (replaced while the run went on)",
            ));
        }
        Ok(fd)
    }

    /// Removes the tree and everything in it (see the module), but for
    /// what someone else mounted inside it: those are left in place, with
    /// the directories that hold them, and returned. Until it is gone a
    /// second Ctrl-C still removes it: the two removals may meet, and each
    /// takes what the other removed first as removed.
    pub fn remove(&self) -> io::Result<Vec<Foreign>> {
        let top = self.path();
        let mut foreign = Vec::new();
        let mut found = |under: &[u8], why: &'static str| {
            let path = top.join(std::ffi::OsStr::from_bytes(under));
            // Seen again at each listing of its directory: named once.
            if !foreign.iter().any(|f: &Foreign| f.path == path) {
                foreign.push(Foreign {
                    path,
                    why: why.to_string(),
                });
            }
        };
        let removed = remove_tree(&self.parent, &self.name, self.dev, self.ino, &mut found);
        match removed {
            Ok(()) => {
                forget_registered(self);
                Ok(foreign)
            }
            Err(Errno::ENOTEMPTY) if !foreign.is_empty() => Ok(foreign),
            Err(Errno::ESTALE) => Err(io::Error::other(
                "it is no longer the directory ioz made (replaced while the run went on): left alone",
            )),
            Err(e) => Err(e.into()),
        }
    }

    /// Its identity: device and inode of its directory.
    pub fn identity(&self) -> (u64, u64) {
        (self.dev, self.ino)
    }

    /// Has a second Ctrl-C (and a panicking rank) remove the tree. Only the
    /// first tree of the process is registered.
    pub fn remove_on_emergency(&self) {
        let _ = EMERGENCY.set(Registered {
            parent: self.parent.clone(),
            name: self.name.clone(),
            dev: self.dev,
            ino: self.ino,
            live: AtomicBool::new(true),
        });
    }
}

/// Something in ioz's tree that is not ioz's, left where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Foreign {
    pub path: std::path::PathBuf,
    pub why: String,
}

/// A missing `-d` that ioz made for its tree (mdtest makes its `-d` and
/// removes it after), held by its identity.
#[derive(Debug)]
pub struct MadeDir {
    parent: CString,
    name: CString,
    dev: u64,
    ino: u64,
}

impl MadeDir {
    /// Makes `path` (its last component; its parent must be there).
    pub fn make(path: &Path) -> io::Result<MadeDir> {
        let path = std::path::absolute(path)?;
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(io::Error::from(Errno::EINVAL));
        };
        let parent = CString::new(parent.as_os_str().as_bytes())?;
        let name = CString::new(name.as_bytes())?;
        let (dev, ino) = make_dir(&parent, &name)?;
        Ok(MadeDir {
            parent,
            name,
            dev,
            ino,
        })
    }

    pub fn path(&self) -> std::path::PathBuf {
        Path::new(std::ffi::OsStr::from_bytes(self.parent.as_bytes()))
            .join(std::ffi::OsStr::from_bytes(self.name.as_bytes()))
    }

    /// Removes it if it is still the directory ioz made and empty;
    /// otherwise says why it stays.
    pub fn remove_if_empty(&self) -> io::Result<()> {
        let pfd = open_raw(&self.parent)?;
        let result = (|| {
            let fd = open_child(pfd, &self.name)?;
            let st = fstat(fd);
            close(fd);
            let st = st?;
            if st.st_dev != self.dev || st.st_ino != self.ino {
                return Err(Errno::ESTALE);
            }
            // SAFETY: a NUL-terminated name in a directory descriptor we hold.
            if unsafe { libc::unlinkat(pfd, self.name.as_ptr(), libc::AT_REMOVEDIR) } == 0 {
                Ok(())
            } else {
                Err(Errno::last())
            }
        })();
        close(pfd);
        match result {
            Ok(()) | Err(Errno::ENOENT) => Ok(()),
            Err(Errno::ENOTEMPTY) | Err(Errno::EEXIST) => Err(io::Error::other(
                "ioz made it for the run, but other files were put in it meanwhile: left as it is",
            )),
            Err(Errno::ESTALE) => Err(io::Error::other(
                "it is no longer the directory ioz made (replaced while the run went on): left alone",
            )),
            Err(e) => Err(e.into()),
        }
    }
}

/// The tree a quick exit removes; `live` until the run removes it itself.
struct Registered {
    parent: CString,
    name: CString,
    dev: u64,
    ino: u64,
    live: AtomicBool,
}

static EMERGENCY: OnceLock<Registered> = OnceLock::new();

fn forget_registered(root: &TreeRoot) {
    if let Some(r) = EMERGENCY.get()
        && r.dev == root.dev
        && r.ino == root.ino
    {
        r.live.store(false, Ordering::SeqCst);
    }
}

/// Removes the tree at `path` (absolute) if its directory is still the one
/// of this identity: a cluster rank's file warden, once the rank is gone.
pub fn remove_if_ours(path: &Path, dev: u64, ino: u64) -> io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::from(Errno::EINVAL));
    };
    let parent = CString::new(parent.as_os_str().as_bytes())?;
    let name = CString::new(name.as_bytes())?;
    remove_tree(&parent, &name, dev, ino, &mut |_, _| {}).map_err(io::Error::from)
}

/// Removes the registered tree, if it is still there and ioz's. For the
/// signal handler: async-signal-safe.
pub fn remove_registered() {
    if let Some(r) = EMERGENCY.get()
        && r.live.swap(false, Ordering::SeqCst)
    {
        let _ = remove_tree(&r.parent, &r.name, r.dev, r.ino, &mut |_, _| {});
    }
}

/// mkdir `name` in `parent`, then its identity.
fn make_dir(parent: &CStr, name: &CStr) -> Result<(u64, u64), Errno> {
    let pfd = open_raw(parent)?;
    // SAFETY: a descriptor we own and a NUL-terminated name.
    let made = unsafe { libc::mkdirat(pfd, name.as_ptr(), 0o755) };
    let result = if made == 0 {
        identity_at(pfd, name)
    } else {
        Err(Errno::last())
    };
    close(pfd);
    result
}

fn open_dir_in(parent: &CStr, name: &CStr) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    let pfd = open_raw(parent)?;
    let fd = open_child(pfd, name);
    close(pfd);
    // SAFETY: a descriptor just opened, owned by nothing else.
    Ok(unsafe { std::os::fd::OwnedFd::from_raw_fd(fd?) })
}

/// The device and inode of the directory `name` in `dir`.
fn identity_at(dir: i32, name: &CStr) -> Result<(u64, u64), Errno> {
    let fd = open_child(dir, name)?;
    let st = fstat(fd);
    close(fd);
    st.map(|st| (st.st_dev, st.st_ino))
}

const DIR_FLAGS: i32 = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;

fn open_raw(path: &CStr) -> Result<i32, Errno> {
    // SAFETY: a NUL-terminated path; open is async-signal-safe.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    if fd < 0 { Err(Errno::last()) } else { Ok(fd) }
}

fn open_child(dir: i32, name: &CStr) -> Result<i32, Errno> {
    // SAFETY: a NUL-terminated name in a directory descriptor we hold.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), DIR_FLAGS) };
    if fd < 0 { Err(Errno::last()) } else { Ok(fd) }
}

/// A directory inside the tree: never through a link, never into a mount
/// (EXDEV: another file system, or a bind mount of this one).
fn open_inside(dir: i32, name: &CStr) -> Result<i32, Errno> {
    // SAFETY: an all-zero open_how is a valid one (no flags, no mode).
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = DIR_FLAGS as u64;
    how.resolve = libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_XDEV | libc::RESOLVE_BENEATH;
    // SAFETY: a NUL-terminated name in a descriptor we hold, and an
    // open_how of the size given; openat2 is a plain system call.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_openat2,
            dir,
            name.as_ptr(),
            &how as *const libc::open_how,
            std::mem::size_of::<libc::open_how>(),
        )
    };
    if fd < 0 {
        return Err(Errno::last());
    }
    Ok(fd as i32)
}

/// Where a removal is in the tree (the names from its top), for naming
/// what it leaves; on the stack, so the signal handler can use it.
struct Trail {
    bytes: [u8; 4096],
    len: usize,
}

impl Trail {
    fn push(&mut self, name: &[u8]) -> usize {
        let mark = self.len;
        let sep = usize::from(self.len > 0);
        if self.len + sep + name.len() <= self.bytes.len() {
            if sep == 1 {
                self.bytes[self.len] = b'/';
            }
            self.bytes[self.len + sep..self.len + sep + name.len()].copy_from_slice(name);
            self.len += sep + name.len();
        }
        mark
    }

    fn pop(&mut self, mark: usize) {
        self.len = mark;
    }

    fn get(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// What a removal says of what it leaves: the path under the tree's top,
/// and why (async-signal-safe callers pass one that does nothing).
type Found<'a> = &'a mut dyn FnMut(&[u8], &'static str);

const MOUNTED: &str =
    "a file system is mounted there, inside ioz's tree: not entered, left as it is";

fn fstat(fd: i32) -> Result<libc::stat, Errno> {
    // SAFETY: an all-zero stat is a valid value for fstat to fill.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a descriptor we hold and a stat we own.
    if unsafe { libc::fstat(fd, &mut st) } == 0 {
        Ok(st)
    } else {
        Err(Errno::last())
    }
}

fn close(fd: i32) {
    // SAFETY: a descriptor this module opened and closes once.
    unsafe { libc::close(fd) };
}

/// Removes the directory `name` in `parent` and all it holds, if it is
/// still the directory (dev, ino); mounts inside are left and `found`.
/// Async-signal-safe.
fn remove_tree(
    parent: &CStr,
    name: &CStr,
    dev: u64,
    ino: u64,
    found: Found<'_>,
) -> Result<(), Errno> {
    let pfd = open_raw(parent)?;
    let result = (|| {
        let fd = open_child(pfd, name)?;
        let mut trail = Trail {
            bytes: [0; 4096],
            len: 0,
        };
        let emptied = match fstat(fd) {
            Ok(st) if st.st_dev == dev && st.st_ino == ino => empty(fd, dev, 0, &mut trail, found),
            // Not ioz's directory: someone put another in its place.
            Ok(_) => Err(Errno::ESTALE),
            Err(e) => Err(e),
        };
        close(fd);
        emptied?;
        // SAFETY: a NUL-terminated name in a directory descriptor we hold.
        if unsafe { libc::unlinkat(pfd, name.as_ptr(), libc::AT_REMOVEDIR) } == 0 {
            return Ok(());
        }
        let e = Errno::last();
        // In the thread's private view the tree's directory is a mount
        // point of its own (system::private_view): detach it there, then
        // remove the directory.
        if e == Errno::EBUSY && super::private_view::in_view() {
            let mut path = [0u8; 4096];
            let (p, n) = (parent.to_bytes(), name.to_bytes());
            if p.len() + 1 + n.len() < path.len() {
                path[..p.len()].copy_from_slice(p);
                path[p.len()] = b'/';
                path[p.len() + 1..p.len() + 1 + n.len()].copy_from_slice(n);
                // SAFETY: a NUL-terminated path (the buffer was zeroed).
                unsafe {
                    libc::umount2(
                        path.as_ptr().cast(),
                        libc::MNT_DETACH | libc::UMOUNT_NOFOLLOW,
                    )
                };
                // SAFETY: as above.
                if unsafe { libc::unlinkat(pfd, name.as_ptr(), libc::AT_REMOVEDIR) } == 0 {
                    return Ok(());
                }
            }
        }
        Err(e)
    })();
    close(pfd);
    match result {
        // Already gone: nothing of ioz's is left.
        Err(Errno::ENOENT) => Ok(()),
        other => other,
    }
}

/// Removes everything in the directory `fd` (on device `dev`), depth
/// `depth` below the tree's top (at `trail`), but the mounts it `found`;
/// ENOTEMPTY when it left one.
fn empty(fd: i32, dev: u64, depth: u32, trail: &mut Trail, found: Found<'_>) -> Result<(), Errno> {
    if depth > MAX_DEPTH {
        return Err(Errno::ELOOP);
    }
    let mut buf = [0u8; DIRENT_BUFFER];
    loop {
        // SAFETY: lseek on a descriptor we hold.
        if unsafe { libc::lseek(fd, 0, libc::SEEK_SET) } < 0 {
            return Err(Errno::last());
        }
        let mut removed_any = false;
        let mut listed = 0usize;
        loop {
            // SAFETY: getdents64 writes at most `buf.len()` bytes into buf.
            let n = unsafe { libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len()) };
            if n < 0 {
                return Err(Errno::last());
            }
            if n == 0 {
                break;
            }
            let mut at = 0usize;
            while at < n as usize {
                // linux_dirent64: d_ino (8), d_off (8), d_reclen (2),
                // d_type (1), d_name (NUL-terminated).
                let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
                let kind = buf[at + 18];
                let name_bytes = &buf[at + 19..at + reclen];
                at += reclen;
                let len = name_bytes.iter().position(|&b| b == 0).unwrap_or(0);
                if len == 0 || &name_bytes[..len] == b"." || &name_bytes[..len] == b".." {
                    continue;
                }
                listed += 1;
                let Ok(name) = CStr::from_bytes_with_nul(&name_bytes[..=len]) else {
                    continue;
                };
                let mark = trail.push(name.to_bytes());
                let removed = remove_entry(fd, name, kind, dev, depth, trail, found);
                trail.pop(mark);
                match removed {
                    Ok(true) => removed_any = true,
                    Ok(false) => {}
                    Err(e) => return Err(e),
                }
            }
        }
        if listed == 0 {
            return Ok(());
        }
        if !removed_any {
            // Only what is left in place (mounts) remains.
            return Err(Errno::ENOTEMPTY);
        }
    }
}

/// Removes one entry of the directory `fd`: a directory after emptying it
/// (never a mount inside the tree: that is left alone and `found`; false
/// then), anything else (files, links, and a symbolic link itself, never
/// its target) at once.
fn remove_entry(
    fd: i32,
    name: &CStr,
    kind: u8,
    dev: u64,
    depth: u32,
    trail: &mut Trail,
    found: Found<'_>,
) -> Result<bool, Errno> {
    let is_dir = match kind {
        libc::DT_DIR => true,
        libc::DT_UNKNOWN => {
            // SAFETY: an all-zero stat is a valid value for fstatat to fill.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: a NUL-terminated name in a descriptor we hold.
            let r = unsafe { libc::fstatat(fd, name.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
            r == 0 && st.st_mode & libc::S_IFMT == libc::S_IFDIR
        }
        _ => false,
    };
    if is_dir {
        let child = match open_inside(fd, name) {
            Ok(child) => child,
            // Removed meanwhile (by the other removal: see TreeRoot::remove).
            Err(Errno::ENOENT) => return Ok(true),
            // A mount: never entered.
            Err(Errno::EXDEV) => {
                found(trail.get(), MOUNTED);
                return Ok(false);
            }
            // A symbolic link put there since the listing: removed below.
            Err(Errno::ELOOP) | Err(Errno::ENOTDIR) => return unlink_entry(fd, name, false),
            Err(e) => return Err(e),
        };
        let emptied = match fstat(child) {
            Ok(st) if st.st_dev == dev => empty(child, dev, depth + 1, trail, found),
            Ok(_) => {
                found(trail.get(), MOUNTED);
                Err(Errno::ENOTEMPTY)
            }
            Err(e) => Err(e),
        };
        close(child);
        match emptied {
            Ok(()) => {}
            // What it holds is left: so is it.
            Err(Errno::ENOTEMPTY) => return Ok(false),
            Err(e) => return Err(e),
        }
    }
    unlink_entry(fd, name, is_dir)
}

/// unlinkat of an entry (a directory with `AT_REMOVEDIR`); one already
/// gone counts as removed.
fn unlink_entry(fd: i32, name: &CStr, is_dir: bool) -> Result<bool, Errno> {
    let flags = if is_dir { libc::AT_REMOVEDIR } else { 0 };
    // SAFETY: a NUL-terminated name in a directory descriptor we hold.
    if unsafe { libc::unlinkat(fd, name.as_ptr(), flags) } == 0 {
        return Ok(true);
    }
    match Errno::last() {
        Errno::ENOENT => Ok(true),
        // A mount point (in this mount namespace): left, the caller saw it.
        Errno::EBUSY => Ok(false),
        e => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn a_tree_is_made_new_and_removed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let first = TreeRoot::make(dir.path(), "ioz-test.").unwrap();
        let second = TreeRoot::make(dir.path(), "ioz-test.").unwrap();
        assert_ne!(first.name(), second.name());
        let top = first.path();
        for d in 0..40 {
            let sub = top.join(format!("d{d}")).join("e");
            fs::create_dir_all(&sub).unwrap();
            for f in 0..30 {
                fs::write(sub.join(format!("a-long-file-name-{f:04}")), b"x").unwrap();
            }
        }
        assert_eq!(first.remove().unwrap(), Vec::new());
        assert!(!top.exists());
        assert!(second.path().exists());
        assert_eq!(second.remove().unwrap(), Vec::new());
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_link_is_removed_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        fs::create_dir(&outside).unwrap();
        fs::write(outside.join("precious"), b"keep").unwrap();
        let root = TreeRoot::make(dir.path(), "ioz-test.").unwrap();
        std::os::unix::fs::symlink(&outside, root.path().join("link")).unwrap();
        root.remove().unwrap();
        assert_eq!(fs::read(outside.join("precious")).unwrap(), b"keep");
        assert!(!root.path().exists());
    }

    #[test]
    fn a_directory_put_in_the_tree_s_place_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let root = TreeRoot::make(dir.path(), "ioz-test.").unwrap();
        let path = root.path();
        // Made while ioz's exists, so it cannot take its inode number.
        let theirs = dir.path().join("theirs");
        fs::create_dir(&theirs).unwrap();
        fs::write(theirs.join("theirs"), b"x").unwrap();
        fs::remove_dir(&path).unwrap();
        fs::rename(&theirs, &path).unwrap();
        assert!(root.open().is_err());
        assert!(root.remove().is_err());
        assert!(path.join("theirs").exists());
    }

    #[test]
    fn a_tree_already_gone_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = TreeRoot::make(dir.path(), "ioz-test.").unwrap();
        fs::remove_dir(root.path()).unwrap();
        root.remove().unwrap();
    }

    #[test]
    fn an_entry_the_other_removal_took_first_is_taken_as_removed() {
        // A second Ctrl-C's removal and the run's own may meet: whatever
        // one removes, the other finds gone, and neither fails for it.
        let dir = tempfile::tempdir().unwrap();
        let root = TreeRoot::make(dir.path(), "ioz-test.").unwrap();
        let dir_fd = root.open().unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&dir_fd);
        let gone = CString::new("gone").unwrap();
        let mut trail = Trail {
            bytes: [0; 4096],
            len: 0,
        };
        let mut none = |_: &[u8], _: &'static str| {};
        assert_eq!(
            remove_entry(fd, &gone, libc::DT_DIR, root.dev, 0, &mut trail, &mut none),
            Ok(true)
        );
        assert_eq!(
            remove_entry(fd, &gone, libc::DT_REG, root.dev, 0, &mut trail, &mut none),
            Ok(true)
        );
        // A file taken for a directory is removed as the file it is.
        fs::write(root.path().join("file"), b"x").unwrap();
        let file = CString::new("file").unwrap();
        assert_eq!(
            remove_entry(fd, &file, libc::DT_DIR, root.dev, 0, &mut trail, &mut none),
            Ok(true)
        );
        drop(dir_fd);
        root.remove().unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
