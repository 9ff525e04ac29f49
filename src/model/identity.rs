//! What a test file is, recorded when ioz creates or accepts it, so that
//! every later open (each pass, each worker) and the removal at the end can
//! tell that the path still leads to it. A path is only a name: between two
//! passes someone may put another file, or a symbolic link, in its place.

use std::fmt;

use super::file_kind::file_kind;

/// The identity of a test file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileIdentity {
    /// A regular file: its file system's device number and its inode.
    File { dev: u64, ino: u64 },
    /// A block device: its device number, whichever node names it.
    Device { rdev: u64 },
}

impl FileIdentity {
    /// The identity `stat` describes (`st_mode`, `st_dev`, `st_ino`,
    /// `st_rdev`), or what was found instead of a regular file or a block
    /// device.
    pub fn from_stat(mode: u32, dev: u64, ino: u64, rdev: u64) -> Result<FileIdentity, Found> {
        match mode & libc::S_IFMT {
            libc::S_IFREG => Ok(FileIdentity::File { dev, ino }),
            libc::S_IFBLK => Ok(FileIdentity::Device { rdev }),
            libc::S_IFLNK => Err(Found::Symlink),
            _ => Err(Found::Other(file_kind(mode))),
        }
    }
}

impl fmt::Display for FileIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FileIdentity::File { dev, ino } => write!(
                f,
                "inode {ino} on device {}:{}",
                libc::major(dev),
                libc::minor(dev)
            ),
            FileIdentity::Device { rdev } => {
                write!(
                    f,
                    "block device {}:{}",
                    libc::major(rdev),
                    libc::minor(rdev)
                )
            }
        }
    }
}

/// What every later open of a test file must find.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub identity: FileIdentity,
    /// Whether the path may lead there through a symbolic link: a device
    /// named by /dev/disk/by-id/…, a `-+E` file named by a link. ioz's own
    /// files are opened with O_NOFOLLOW: a link in their place is a change.
    pub follow_links: bool,
}

/// What a path led to when it no longer led to the expected file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    /// Another file or device.
    Identity(FileIdentity),
    /// A symbolic link where ioz's own file was.
    Symlink,
    /// Anything else: "a directory", "a FIFO"…
    Other(&'static str),
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Identity(id) => write!(f, "{id}"),
            Found::Symlink => f.write_str("a symbolic link"),
            Found::Other(what) => f.write_str(what),
        }
    }
}

/// The error of an open or a removal that found something else at the
/// test file's path. Nothing was written, truncated or removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Changed {
    pub expected: FileIdentity,
    pub found: Found,
}

impl fmt::Display for Changed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the test file changed under ioz (expected {}, found {}); ioz leaves it alone",
            self.expected, self.found
        )
    }
}

impl std::error::Error for Changed {}

impl Changed {
    /// The [`Changed`] an I/O error carries, if it is one.
    pub fn in_io_error(e: &std::io::Error) -> Option<&Changed> {
        e.get_ref()
            .and_then(|inner| inner.downcast_ref::<Changed>())
    }

    /// As an I/O error, for the calls that return one.
    pub fn into_io_error(self) -> std::io::Error {
        std::io::Error::other(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identities_and_changes_read_plainly() {
        let dev = libc::makedev(0, 45);
        let file = FileIdentity::from_stat(libc::S_IFREG | 0o640, dev, 1234, 0).unwrap();
        assert_eq!(file.to_string(), "inode 1234 on device 0:45");
        let loop0 = FileIdentity::from_stat(libc::S_IFBLK | 0o660, 5, 9, libc::makedev(7, 0));
        assert_eq!(loop0.unwrap().to_string(), "block device 7:0");
        assert_eq!(
            FileIdentity::from_stat(libc::S_IFLNK | 0o777, dev, 1, 0),
            Err(Found::Symlink)
        );
        let changed = Changed {
            expected: file,
            found: Found::Symlink,
        };
        assert_eq!(
            changed.to_string(),
            "the test file changed under ioz (expected inode 1234 on device 0:45, \
             found a symbolic link); ioz leaves it alone"
        );
        let e = changed.into_io_error();
        assert_eq!(Changed::in_io_error(&e), Some(&changed));
        assert_eq!(Changed::in_io_error(&std::io::Error::other("x")), None);
    }
}
