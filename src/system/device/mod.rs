//! Block devices as test targets: how big they are, what they hold, whether
//! something uses them, and what names them.
//!
//! The parsing and the magic-number checks are pure functions over text and
//! bytes; the rest reads sysfs, /proc and the device itself (read-only).

mod blkid;
mod contents;
mod identity;
mod kind;
mod magic;
mod signature;
mod size;
mod usage;

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::system::sysfs::read_attr;

pub use identity::Identity;
pub use kind::{DeviceKind, is_device, rdev_of};
pub use size::{size_of, usable_len};
pub use usage::is_busy;

/// "a", "a and b", "a, b and c".
pub fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// A block device as a test target.
#[derive(Clone, Debug)]
pub struct BlockDevice {
    /// As the user gave it.
    pub path: PathBuf,
    pub major: u32,
    pub minor: u32,
    /// The kernel's name (`sda`, `nvme0n1p2`, `loop3`).
    pub name: String,
    /// Its sysfs directory (/sys/dev/block/MAJ:MIN resolved).
    pub sys: PathBuf,
    pub size: u64,
}

/// A device number split into (major, minor).
pub fn major_minor(rdev: u64) -> (u32, u32) {
    (libc::major(rdev), libc::minor(rdev))
}

/// The names in `dir`, sorted (none when it cannot be read).
fn dir_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

impl BlockDevice {
    /// Examines the block device at `path` (following symlinks): its numbers,
    /// its sysfs entry and its size. Opens it read-only.
    pub fn open(path: &Path) -> io::Result<BlockDevice> {
        let meta = fs::metadata(path)?;
        if DeviceKind::of_metadata(&meta) != Some(DeviceKind::Block) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a block device",
            ));
        }
        let (major, minor) = major_minor(meta.rdev());
        let link = PathBuf::from(format!("/sys/dev/block/{major}:{minor}"));
        let sys = fs::canonicalize(&link).unwrap_or(link);
        let name = sys
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| format!("{major}:{minor}"));
        let size = size_of(&fs::File::open(path)?)?;
        Ok(BlockDevice {
            path: path.to_path_buf(),
            major,
            minor,
            name,
            sys,
            size,
        })
    }

    pub fn rdev(&self) -> u64 {
        libc::makedev(self.major, self.minor)
    }

    /// Its partitions: (name, major, minor), from sysfs.
    pub fn partitions(&self) -> Vec<(String, u32, u32)> {
        dir_names(&self.sys)
            .into_iter()
            .filter(|n| self.sys.join(n).join("partition").exists())
            .filter_map(|n| {
                let dev = read_attr(self.sys.join(&n).join("dev"))?;
                let (a, b) = dev.split_once(':')?;
                Some((n, a.parse().ok()?, b.parse().ok()?))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_naturally() {
        let s = |v: &[&str]| join_and(&v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(s(&[]), "");
        assert_eq!(s(&["a"]), "a");
        assert_eq!(s(&["a", "b"]), "a and b");
        assert_eq!(s(&["a", "b", "c"]), "a, b and c");
    }

    #[test]
    fn a_regular_file_is_not_a_block_device() {
        let f = tempfile::NamedTempFile::new().unwrap();
        assert!(BlockDevice::open(f.path()).is_err());
        std::fs::write(f.path(), b"12345").unwrap();
        assert_eq!(usable_len(f.path()).unwrap(), 5);
    }
}
