//! A test file removed by path in a hurry (a signal, a killed rank's
//! warden): only while the path still leads to the very file ioz made.

use std::ffi::CStr;

/// Unlinks `path` if it is still the regular file with this device and
/// inode, and nothing else: only the file ioz made goes; a file already
/// gone is fine. Async-signal-safe: given a C string, nix passes it
/// straight to lstat(2) and unlink(2), with no allocation.
pub fn unlink_if_ours(path: &CStr, dev: u64, ino: u64) {
    let ours = nix::sys::stat::lstat(path).is_ok_and(|st| {
        st.st_mode & libc::S_IFMT == libc::S_IFREG && st.st_dev == dev && st.st_ino == ino
    });
    if ours {
        let _ = nix::unistd::unlink(path);
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::MetadataExt;

    use super::*;

    #[test]
    fn only_the_file_with_the_identity_given_goes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"x").unwrap();
        let meta = std::fs::metadata(&path).unwrap();
        let c = CString::new(path.as_os_str().as_bytes()).unwrap();
        unlink_if_ours(&c, meta.dev(), meta.ino() + 1);
        unlink_if_ours(&c, meta.dev() + 1, meta.ino());
        assert!(path.exists(), "another file's identity removed it");
        // A directory with the identity is never unlinked either.
        let sub = dir.path().join("d");
        std::fs::create_dir(&sub).unwrap();
        let dmeta = std::fs::metadata(&sub).unwrap();
        unlink_if_ours(
            &CString::new(sub.as_os_str().as_bytes()).unwrap(),
            dmeta.dev(),
            dmeta.ino(),
        );
        assert!(sub.exists());
        unlink_if_ours(&c, meta.dev(), meta.ino());
        assert!(!path.exists());
        // Gone already: nothing happens.
        unlink_if_ours(&c, meta.dev(), meta.ino());
    }
}
