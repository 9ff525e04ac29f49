//! ioz never truncates, overwrites or deletes a file it did not create.
//!
//! Files ioz creates carry an extended attribute naming ioz as their owner, so
//! a later run (after `-w`, or after a crash) recognises them. On a file system
//! without user xattrs the file is still ioz's for the run that created it.

use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::{IoFailure, RunError};

const OWNER_ATTR: &str = "user.ioz.owner";
const OWNER_VALUE: &[u8] = b"ioz";

/// The test file and what ioz may do to it.
#[derive(Debug)]
pub struct TargetFile {
    path: PathBuf,
    /// ioz created it or was allowed (--force) to treat it as its own.
    owned: bool,
}

impl TargetFile {
    /// Checks the path before anything is written: an existing file must be
    /// ioz's own, or `force` must be given.
    pub fn check(path: &Path, force: bool) -> Result<TargetFile, RunError> {
        let meta = match fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(TargetFile {
                    path: path.to_path_buf(),
                    owned: false,
                });
            }
            Err(e) => {
                return Err(RunError::Refused(format!(
                    "cannot check the test file {}: {e}",
                    path.display()
                )));
            }
            Ok(m) => m,
        };
        let kind = meta.file_type();
        if kind.is_block_device() || kind.is_char_device() {
            return Err(RunError::Refused(format!(
                "{} is a device; ioz only tests regular files for now",
                path.display()
            )));
        }
        if !kind.is_file() {
            return Err(RunError::Refused(format!(
                "{} exists and is not a regular file",
                path.display()
            )));
        }
        if has_owner_mark(path) || force {
            return Ok(TargetFile {
                path: path.to_path_buf(),
                owned: true,
            });
        }
        Err(RunError::Refused(format!(
            "{} exists and was not created by ioz; refusing to overwrite it \
             (choose another -f, or add --force to let ioz overwrite and delete it)",
            path.display()
        )))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates the file if it does not exist, marking it as ioz's.
    pub fn ensure_exists(&mut self) -> Result<(), IoFailure> {
        if self.owned && self.path.exists() {
            return Ok(());
        }
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o640)
            .open(&self.path)
            .map_err(|source| IoFailure {
                operation: "create",
                path: self.path.clone(),
                offset: None,
                pass: None,
                source,
            })?;
        drop(file);
        self.owned = true;
        // Best effort: without xattrs the file is still ours for this run.
        let _ = set_owner_mark(&self.path);
        Ok(())
    }

    /// Deletes the file if ioz owns it. Never touches a foreign file.
    pub fn remove(&mut self) -> Result<(), IoFailure> {
        if !self.owned {
            return Ok(());
        }
        match fs::remove_file(&self.path) {
            Ok(()) => {
                self.owned = false;
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                self.owned = false;
                Ok(())
            }
            Err(source) => Err(IoFailure {
                operation: "remove",
                path: self.path.clone(),
                offset: None,
                pass: None,
                source,
            }),
        }
    }
}

fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path contains a NUL byte"))
}

pub fn has_owner_mark(path: &Path) -> bool {
    let (Ok(p), Ok(name)) = (c_path(path), CString::new(OWNER_ATTR)) else {
        return false;
    };
    let mut value = [0u8; 16];
    // SAFETY: valid C strings and a buffer of the length given.
    let n = unsafe {
        libc::lgetxattr(
            p.as_ptr(),
            name.as_ptr(),
            value.as_mut_ptr().cast(),
            value.len(),
        )
    };
    n >= 0 && &value[..n as usize] == OWNER_VALUE
}

fn set_owner_mark(path: &Path) -> io::Result<()> {
    let p = c_path(path)?;
    let name = CString::new(OWNER_ATTR).expect("constant has no NUL");
    // SAFETY: valid C strings and a value of the length given.
    let r = unsafe {
        libc::lsetxattr(
            p.as_ptr(),
            name.as_ptr(),
            OWNER_VALUE.as_ptr().cast(),
            OWNER_VALUE.len(),
            0,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_created_marked_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tmp");
        let mut t = TargetFile::check(&path, false).unwrap();
        t.ensure_exists().unwrap();
        assert!(path.exists());
        // A second run recognises it.
        assert!(TargetFile::check(&path, false).is_ok());
        t.remove().unwrap();
        assert!(!path.exists());
    }

    #[test]
    fn a_foreign_file_is_refused_and_never_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.txt");
        fs::write(&path, b"precious").unwrap();
        let err = TargetFile::check(&path, false).unwrap_err();
        assert!(err.to_string().contains("was not created by ioz"), "{err}");
        assert_eq!(err.exit_code(), 2);
        assert_eq!(fs::read(&path).unwrap(), b"precious");
        let forced = TargetFile::check(&path, true).unwrap();
        assert!(forced.owned);
    }

    #[test]
    fn directories_and_devices_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(TargetFile::check(dir.path(), true).is_err());
        assert!(TargetFile::check(Path::new("/dev/null"), true).is_err());
    }
}
