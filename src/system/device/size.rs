//! How big a block device is: its size from the kernel, and the usable
//! length of a target that may be a regular file or a device.

use std::fs;
use std::io::{self, Seek, SeekFrom};
use std::path::Path;

use crate::system::descriptor::stat_at;

/// The size of an open block device, in bytes. Its metadata says 0; the
/// kernel answers a seek to the end of a block device with its size (the
/// number the BLKGETSIZE64 ioctl gives), and a seek needs no `unsafe`.
/// Moves the file's position to its end.
pub fn size_of(file: &fs::File) -> io::Result<u64> {
    let mut file = file;
    file.seek(SeekFrom::End(0))
}

/// A regular file's length, or a block device's size (which its metadata
/// reports as 0). Asked between passes, so never the file's timestamps
/// (system/descriptor.rs says why).
pub fn usable_len(path: &Path) -> io::Result<u64> {
    let st = stat_at(path)?;
    if st.st_mode & libc::S_IFMT == libc::S_IFBLK {
        size_of(&fs::File::open(path)?)
    } else {
        Ok(st.st_size.max(0) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::device::DeviceKind;
    use crate::system::sysfs::read_attr;

    #[test]
    fn a_block_devices_size_is_what_sysfs_counts_in_sectors() {
        // Whichever block devices this machine lets us open (loop devices
        // here), compared with sysfs's count of 512-byte sectors.
        let Ok(entries) = fs::read_dir("/sys/class/block") else {
            return;
        };
        for entry in entries.flatten() {
            let node = Path::new("/dev").join(entry.file_name());
            let (Some(sectors), Ok(file)) = (
                read_attr(entry.path().join("size")).and_then(|s| s.parse::<u64>().ok()),
                fs::File::open(&node),
            ) else {
                continue;
            };
            if DeviceKind::of(&node) != Some(DeviceKind::Block) {
                continue;
            }
            assert_eq!(size_of(&file).unwrap(), sectors * 512, "{node:?}");
            assert_eq!(usable_len(&node).unwrap(), sectors * 512, "{node:?}");
        }
    }
}
