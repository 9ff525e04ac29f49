//! What a file is, in the words every message uses ("a directory", "a
//! FIFO", …): one function, from the type bits of its mode (`st_mode`,
//! `Metadata::mode()`), so that a refusal names a file's kind the same way
//! wherever it is made.

/// "a regular file", "a directory", "a character device", "a block
/// device", "a FIFO", "a socket" or "a symbolic link", as `mode`'s type
/// bits say.
pub fn file_kind(mode: u32) -> &'static str {
    match mode & libc::S_IFMT {
        libc::S_IFREG => "a regular file",
        libc::S_IFDIR => "a directory",
        libc::S_IFCHR => "a character device",
        libc::S_IFBLK => "a block device",
        libc::S_IFIFO => "a FIFO",
        libc::S_IFSOCK => "a socket",
        libc::S_IFLNK => "a symbolic link",
        // No Linux file system makes another type.
        _ => "a special file",
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    use super::*;

    fn kind_at(path: &Path) -> &'static str {
        file_kind(std::fs::symlink_metadata(path).unwrap().mode())
    }

    #[test]
    fn each_kind_of_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("f"), b"x").unwrap();
        std::os::unix::fs::symlink("f", d.join("l")).unwrap();
        nix::unistd::mkfifo(&d.join("p"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let socket = std::os::unix::net::UnixListener::bind(d.join("s")).unwrap();
        assert_eq!(kind_at(&d.join("f")), "a regular file");
        assert_eq!(kind_at(d), "a directory");
        assert_eq!(kind_at(&d.join("l")), "a symbolic link");
        assert_eq!(kind_at(&d.join("p")), "a FIFO");
        assert_eq!(kind_at(&d.join("s")), "a socket");
        assert_eq!(kind_at(Path::new("/dev/null")), "a character device");
        assert_eq!(file_kind(libc::S_IFBLK | 0o660), "a block device");
        assert_eq!(file_kind(0), "a special file");
        drop(socket);
    }
}
