//! Whether ioz can make a file in a directory, asked before any I/O so that a
//! run never ends with results it cannot save: the directory is on a real
//! file system (not proc, sysfs, devtmpfs or another pseudo file system,
//! and not /dev), mounted read-write, and this user may write in it.

use std::path::Path;

use nix::errno::Errno;
use nix::sys::statvfs::{FsFlags, statvfs};
use nix::unistd::{AccessFlags, eaccess};

use crate::system::mountinfo;

/// File systems made of kernel objects rather than files: writing there
/// changes the machine's settings or fails, it never saves a file.
const PSEUDO_FILE_SYSTEMS: &[&str] = &[
    "proc",
    "sysfs",
    "devtmpfs",
    "devpts",
    "cgroup",
    "cgroup2",
    "debugfs",
    "tracefs",
    "securityfs",
    "pstore",
    "efivarfs",
    "bpf",
    "configfs",
    "fusectl",
    "mqueue",
    "binfmt_misc",
    "autofs",
    "hugetlbfs",
    "nsfs",
    "selinuxfs",
    "rpc_pipefs",
    "nfsd",
];

/// Why a directory cannot take a new file; its text follows "cannot write
/// in DIR: ".
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotWritable {
    #[error("it holds the device nodes")]
    DeviceNodes,
    #[error("it is on {0}, a pseudo file system")]
    PseudoFileSystem(String),
    #[error("it is on a read-only file system")]
    ReadOnly,
    /// What statvfs or eaccess said (permission denied, …).
    #[error("{}", .0.desc().to_lowercase())]
    Denied(Errno),
}

/// `Ok` when a new file can be made in `dir` (an existing directory, every
/// link followed); otherwise why not.
pub fn check_writable_dir(dir: &Path) -> Result<(), NotWritable> {
    // Where device nodes live, whatever its file system (a tmpfs in most
    // containers): no result belongs there.
    if dir == Path::new("/dev") {
        return Err(NotWritable::DeviceNodes);
    }
    if let Some(fs_type) = pseudo_file_system(dir) {
        return Err(NotWritable::PseudoFileSystem(fs_type));
    }
    match statvfs(dir) {
        Ok(st) if st.flags().contains(FsFlags::ST_RDONLY) => {
            return Err(NotWritable::ReadOnly);
        }
        Ok(_) => {}
        Err(e) => return Err(NotWritable::Denied(e)),
    }
    // With the effective user's rights (what creating the file will use);
    // also EPERM for an immutable directory.
    eaccess(dir, AccessFlags::W_OK | AccessFlags::X_OK).map_err(|e| match e {
        Errno::EROFS => NotWritable::ReadOnly,
        e => NotWritable::Denied(e),
    })
}

/// The type of the pseudo file system `dir` is on, if it is on one.
fn pseudo_file_system(dir: &Path) -> Option<String> {
    // Without /proc there is no proc to refuse; sysfs and the others then
    // fail when written, after the run, as they did before this check.
    let mounts = mountinfo::read().ok()?;
    let mount = mountinfo::mount_holding(&mounts, dir)?;
    PSEUDO_FILE_SYSTEMS
        .contains(&mount.fs_type.as_str())
        .then(|| mount.fs_type.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_directory_is_writable() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        assert_eq!(check_writable_dir(&real), Ok(()));
    }

    #[test]
    fn proc_and_dev_are_refused() {
        let proc = check_writable_dir(Path::new("/proc")).unwrap_err();
        assert_eq!(proc.to_string(), "it is on proc, a pseudo file system");
        let dev = check_writable_dir(Path::new("/dev")).unwrap_err();
        assert_eq!(dev, NotWritable::DeviceNodes);
        assert_eq!(dev.to_string(), "it holds the device nodes");
    }
}
