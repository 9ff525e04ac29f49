//! ioz's marks: the extended attributes it sets on the files it makes, read
//! on a path (never through a final link) or on an open descriptor, and set
//! on a descriptor (the file ioz just made, before anyone else may reach
//! it). What a mark proves is decided by the caller: safety/ownership.rs for
//! a test file's, safety/result_place.rs for a result file's. std and nix
//! have no extended-attribute calls: these are ioz's only ones.

use std::ffi::{CStr, CString};
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Each mark ioz sets, and the file it is set on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// `user.ioz.owner`: a test file ioz created (safety/test_file).
    Owner,
    /// `user.ioz.result`: a result file ioz wrote (report/put.rs), which
    /// a later run may replace.
    Result,
}

/// The value of every mark.
const VALUE: &[u8] = b"ioz";

impl Mark {
    fn name(self) -> &'static CStr {
        match self {
            Mark::Owner => c"user.ioz.owner",
            Mark::Result => c"user.ioz.result",
        }
    }
}

/// Whether the file at `path` itself (a link is not followed: a link's
/// own attributes are not a user's to set) carries `mark`.
pub fn path_has(path: &Path, mark: Mark) -> bool {
    let Ok(path) = CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    let mut value = [0u8; 16];
    // SAFETY: lgetxattr reads the two NUL-terminated strings, which outlive
    // the call, and writes at most value.len() bytes into value.
    let n = unsafe {
        libc::lgetxattr(
            path.as_ptr(),
            mark.name().as_ptr(),
            value.as_mut_ptr().cast(),
            value.len(),
        )
    };
    is_value(&value, n)
}

/// Whether the open file `fd` carries `mark`.
pub fn fd_has(fd: BorrowedFd<'_>, mark: Mark) -> bool {
    let mut value = [0u8; 16];
    // SAFETY: fgetxattr reads the NUL-terminated name, which outlives the
    // call, and writes at most value.len() bytes into value, on a
    // descriptor the caller keeps open.
    let n = unsafe {
        libc::fgetxattr(
            fd.as_raw_fd(),
            mark.name().as_ptr(),
            value.as_mut_ptr().cast(),
            value.len(),
        )
    };
    is_value(&value, n)
}

/// Sets `mark` on the open file `fd`. Fails where the file system keeps no
/// user attributes (ENOTSUP: tmpfs before Linux 6.6, some NFS servers).
pub fn set(fd: BorrowedFd<'_>, mark: Mark) -> io::Result<()> {
    // SAFETY: fsetxattr reads the NUL-terminated name and VALUE.len() bytes
    // of VALUE, all of which outlive the call, on a descriptor the caller
    // keeps open.
    let r = unsafe {
        libc::fsetxattr(
            fd.as_raw_fd(),
            mark.name().as_ptr(),
            VALUE.as_ptr().cast(),
            VALUE.len(),
            0,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// Whether getxattr's answer `n` (its length, or -1) put ioz's value in `value`.
fn is_value(value: &[u8], n: isize) -> bool {
    usize::try_from(n).is_ok_and(|n| value.get(..n) == Some(VALUE))
}

#[cfg(test)]
mod tests {
    use std::fs::File;
    use std::os::fd::AsFd;

    use super::*;
    use crate::system::skip_ledger::skipped;

    /// A file in a fresh directory, marked as ioz's owner, or `None` (with
    /// the reason in the skip ledger) where the temporary directory keeps no
    /// user attributes.
    fn marked_file() -> Option<(tempfile::TempDir, std::path::PathBuf, File)> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = File::create(&path).unwrap();
        match set(file.as_fd(), Mark::Owner) {
            Ok(()) => Some((dir, path, file)),
            Err(e) => {
                skipped(&format!(
                    "the temporary directory keeps no user attributes: {e}"
                ));
                None
            }
        }
    }

    #[test]
    fn a_mark_set_on_a_descriptor_reads_on_the_path_and_the_descriptor() {
        let Some((_dir, path, file)) = marked_file() else {
            return;
        };
        assert!(path_has(&path, Mark::Owner));
        assert!(fd_has(file.as_fd(), Mark::Owner));
        // Each mark is its own.
        assert!(!path_has(&path, Mark::Result));
        assert!(!fd_has(file.as_fd(), Mark::Result));
        set(file.as_fd(), Mark::Result).unwrap();
        assert!(path_has(&path, Mark::Result));
    }

    #[test]
    fn a_link_to_a_marked_file_is_not_marked() {
        let Some((dir, path, _file)) = marked_file() else {
            return;
        };
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(!path_has(&link, Mark::Owner));
        assert!(!path_has(&dir.path().join("absent"), Mark::Owner));
    }

    #[test]
    fn only_ioz_s_value_is_a_mark() {
        assert!(is_value(b"ioz\0\0", 3));
        assert!(!is_value(b"ioz\0\0", -1));
        assert!(!is_value(b"iozz\0", 4));
        assert!(!is_value(b"io\0\0\0", 2));
    }
}
