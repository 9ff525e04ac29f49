//! How big a block device is: its size from the kernel, and the usable
//! length of a target that may be a regular file or a device.

use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::DeviceKind;

/// `_IOR(0x12, 114, u64)`: the device's size in bytes.
#[cfg(any(
    target_arch = "powerpc",
    target_arch = "powerpc64",
    target_arch = "mips",
    target_arch = "mips64",
    target_arch = "sparc",
    target_arch = "sparc64"
))]
const BLKGETSIZE64: u64 = 0x4008_1272;
#[cfg(not(any(
    target_arch = "powerpc",
    target_arch = "powerpc64",
    target_arch = "mips",
    target_arch = "mips64",
    target_arch = "sparc",
    target_arch = "sparc64"
)))]
const BLKGETSIZE64: u64 = 0x8008_1272;

/// The size of an open block device (ioctl BLKGETSIZE64).
pub fn size_of(file: &fs::File) -> io::Result<u64> {
    let mut size: u64 = 0;
    // SAFETY: BLKGETSIZE64 writes one u64 through the pointer, which is live.
    let r = unsafe { libc::ioctl(file.as_raw_fd(), BLKGETSIZE64 as _, &mut size as *mut u64) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(size)
    }
}

/// A regular file's length, or a block device's size (which its metadata
/// reports as 0).
pub fn usable_len(path: &Path) -> io::Result<u64> {
    let meta = fs::metadata(path)?;
    if DeviceKind::of_metadata(&meta) == Some(DeviceKind::Block) {
        size_of(&fs::File::open(path)?)
    } else {
        Ok(meta.len())
    }
}
