//! A metadata benchmark's tree: ioz's own directory, made new under the
//! directory the user named (never an existing one), and removed with
//! everything in it — at the end of the run, when it fails, and on a second
//! Ctrl-C from the signal handler. The removal goes down from the directory
//! ioz made, checked by its identity (device and inode), through directory
//! descriptors (`openat` with `O_NOFOLLOW`, `unlinkat`): it never follows a
//! symbolic link out of the tree and never enters another file system
//! mounted inside it. It allocates nothing and makes only
//! async-signal-safe calls, so the signal handler can do it too.

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

    /// Removes the tree and everything in it (see the module). Until it is
    /// gone a second Ctrl-C still removes it: the two removals may meet,
    /// and each takes what the other removed first as removed.
    pub fn remove(&self) -> io::Result<()> {
        let removed = remove_tree(&self.parent, &self.name, self.dev, self.ino);
        if removed.is_ok() {
            forget_registered(self);
        }
        removed.map_err(io::Error::from)
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
    remove_tree(&parent, &name, dev, ino).map_err(io::Error::from)
}

/// Removes the registered tree, if it is still there and ioz's. For the
/// signal handler: async-signal-safe.
pub fn remove_registered() {
    if let Some(r) = EMERGENCY.get()
        && r.live.swap(false, Ordering::SeqCst)
    {
        let _ = remove_tree(&r.parent, &r.name, r.dev, r.ino);
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
/// still the directory (dev, ino). Async-signal-safe.
fn remove_tree(parent: &CStr, name: &CStr, dev: u64, ino: u64) -> Result<(), Errno> {
    let pfd = open_raw(parent)?;
    let result = (|| {
        let fd = open_child(pfd, name)?;
        let emptied = match fstat(fd) {
            Ok(st) if st.st_dev == dev && st.st_ino == ino => empty(fd, dev, 0),
            // Not ioz's directory: someone put another in its place.
            Ok(_) => Err(Errno::ESTALE),
            Err(e) => Err(e),
        };
        close(fd);
        emptied?;
        // SAFETY: a NUL-terminated name in a directory descriptor we hold.
        if unsafe { libc::unlinkat(pfd, name.as_ptr(), libc::AT_REMOVEDIR) } == 0 {
            Ok(())
        } else {
            Err(Errno::last())
        }
    })();
    close(pfd);
    match result {
        // Already gone: nothing of ioz's is left.
        Err(Errno::ENOENT) => Ok(()),
        other => other,
    }
}

/// Removes everything in the directory `fd` (on device `dev`), depth
/// `depth` below the tree's top.
fn empty(fd: i32, dev: u64, depth: u32) -> Result<(), Errno> {
    if depth > MAX_DEPTH {
        return Err(Errno::ELOOP);
    }
    let mut buf = [0u8; DIRENT_BUFFER];
    loop {
        // SAFETY: lseek on a descriptor we hold.
        if unsafe { libc::lseek(fd, 0, libc::SEEK_SET) } < 0 {
            return Err(Errno::last());
        }
        let mut saw_any = false;
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
                saw_any = true;
                let Ok(name) = CStr::from_bytes_with_nul(&name_bytes[..=len]) else {
                    continue;
                };
                remove_entry(fd, name, kind, dev, depth)?;
            }
        }
        if !saw_any {
            return Ok(());
        }
    }
}

/// Removes one entry of the directory `fd`: a directory after emptying it
/// (only on `dev`: a mount inside the tree is left alone), anything else
/// (files, links, and a symbolic link itself, never its target) at once.
fn remove_entry(fd: i32, name: &CStr, kind: u8, dev: u64, depth: u32) -> Result<(), Errno> {
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
        let child = match open_child(fd, name) {
            Ok(child) => child,
            // Removed meanwhile (by the other removal: see TreeRoot::remove).
            Err(Errno::ENOENT) => return Ok(()),
            Err(e) => return Err(e),
        };
        let emptied = match fstat(child) {
            Ok(st) if st.st_dev == dev => empty(child, dev, depth + 1),
            Ok(_) => Err(Errno::EXDEV),
            Err(e) => Err(e),
        };
        close(child);
        emptied?;
    }
    let flags = if is_dir { libc::AT_REMOVEDIR } else { 0 };
    // SAFETY: a NUL-terminated name in a directory descriptor we hold.
    if unsafe { libc::unlinkat(fd, name.as_ptr(), flags) } == 0 {
        return Ok(());
    }
    match Errno::last() {
        Errno::ENOENT => Ok(()),
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
        first.remove().unwrap();
        assert!(!top.exists());
        assert!(second.path().exists());
        second.remove().unwrap();
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
        assert_eq!(remove_entry(fd, &gone, libc::DT_DIR, root.dev, 0), Ok(()));
        assert_eq!(remove_entry(fd, &gone, libc::DT_REG, root.dev, 0), Ok(()));
        // Anything else still fails: a file taken for a directory.
        fs::write(root.path().join("file"), b"x").unwrap();
        let file = CString::new("file").unwrap();
        assert_eq!(
            remove_entry(fd, &file, libc::DT_DIR, root.dev, 0),
            Err(Errno::ENOTDIR)
        );
        drop(dir_fd);
        root.remove().unwrap();
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
