//! The mark ioz leaves on the files it creates (the extended attribute
//! `user.ioz.owner`), so that a later run (after `-w`, or after a crash)
//! may use them again, and when that mark can be believed.
//!
//! Anyone who may write a file may set a `user.*` attribute on it, so the
//! mark alone proves nothing: a user could mark a file of theirs and wait
//! for root to run ioz on it. A mark counts only when no one but the
//! running user (or root) could have set it: the file belongs to the
//! running user (st_uid is the effective uid), and neither its group nor
//! others may write it (with an ACL those bits are its mask, which bounds
//! every other entry). ioz creates its files that way (0640), so its own
//! marks always count for the user who ran it, and for no one else: root
//! running on a file some user marked treats it as foreign.
//!
//! The alternative, a mark only this ioz can produce (a keyed hash of the
//! inode), needs a secret kept across runs and users; ownership is already
//! what the kernel guarantees, so it is what ioz relies on.

use std::fs::Metadata;
use std::io;
use std::os::fd::BorrowedFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::system::xattr;

/// What the mark on a file says about who owns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Marked, and only the running user could have marked it: ioz's own.
    Trusted,
    /// No mark: someone else's file.
    Absent,
    /// Marked, but someone else could have set the mark: why not believed.
    Untrusted(String),
}

/// The mark of the file at `path` (not following a link), whose metadata
/// (from lstat) is `meta`.
pub fn mark_of_path(path: &Path, meta: &Metadata) -> Mark {
    judge(
        xattr::path_has(path, xattr::Mark::Owner),
        meta.uid(),
        meta.mode(),
    )
}

/// The mark of the open file `fd`, whose fstat is `stat`.
pub fn mark_of_fd(fd: BorrowedFd<'_>, stat: &libc::stat) -> Mark {
    judge(
        xattr::fd_has(fd, xattr::Mark::Owner),
        stat.st_uid,
        stat.st_mode,
    )
}

/// Marks the open file `fd` as ioz's.
pub fn set_mark(fd: BorrowedFd<'_>) -> io::Result<()> {
    xattr::set(fd, xattr::Mark::Owner)
}

/// Whether a mark on a file of owner `uid` and mode `mode` is believed.
fn judge(marked: bool, uid: u32, mode: u32) -> Mark {
    if !marked {
        return Mark::Absent;
    }
    let me = nix::unistd::geteuid().as_raw();
    trusted(marked, uid, mode, me)
}

fn trusted(marked: bool, uid: u32, mode: u32, me: u32) -> Mark {
    if !marked {
        Mark::Absent
    } else if uid != me {
        Mark::Untrusted(format!(
            "belongs to uid {uid}, not to the running user (uid {me})"
        ))
    } else if mode & 0o022 != 0 {
        Mark::Untrusted(format!(
            "others may write it (mode {:o}), so anyone could have set the mark",
            mode & 0o7777
        ))
    } else {
        Mark::Trusted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_counts_only_from_the_running_user_on_a_file_only_they_write() {
        assert_eq!(trusted(false, 0, 0o640, 0), Mark::Absent);
        assert_eq!(trusted(true, 0, 0o100640, 0), Mark::Trusted);
        assert_eq!(trusted(true, 1000, 0o100600, 1000), Mark::Trusted);
        // Root on a file some user marked.
        let Mark::Untrusted(why) = trusted(true, 1000, 0o100640, 0) else {
            panic!("a user's mark trusted by root");
        };
        assert!(why.contains("belongs to uid 1000"), "{why}");
        // A root file that anyone may write: anyone may have marked it.
        let Mark::Untrusted(why) = trusted(true, 0, 0o100666, 0) else {
            panic!("a world-writable file's mark trusted");
        };
        assert!(why.contains("(mode 666)"), "{why}");
        assert!(matches!(trusted(true, 0, 0o100660, 0), Mark::Untrusted(_)));
    }

    #[test]
    fn a_file_marked_through_its_descriptor_reads_as_marked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = std::fs::File::create(&path).unwrap();
        let mut perms = file.metadata().unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o640);
        file.set_permissions(perms).unwrap();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert_eq!(mark_of_path(&path, &meta), Mark::Absent);
        use std::os::fd::AsFd;
        if let Err(e) = set_mark(file.as_fd()) {
            // A file system without user xattrs (tmpfs before 6.6).
            crate::system::skip_ledger::skipped(&format!("no user xattrs here: {e}"));
            return;
        }
        assert_eq!(mark_of_path(&path, &meta), Mark::Trusted);
        let stat = crate::system::descriptor::stat_of(&file).unwrap();
        assert_eq!(mark_of_fd(file.as_fd(), &stat), Mark::Trusted);
    }
}
