//! Room in a file reserved before it is written: `fallocate` with
//! FALLOC_FL_KEEP_SIZE allocates the blocks of a range without changing the
//! file's size, so that a reader sees nothing of it, and a write into the
//! range cannot then fail for want of space (the live file's lines:
//! app/live.rs, whole or not at all).

use std::fs::File;
use std::io;
use std::os::fd::AsFd;

use nix::errno::Errno;
use nix::fcntl::{FallocateFlags, fallocate};

/// Reserves `len` bytes of `file` from `offset`. `Ok(true)`: reserved;
/// `Ok(false)`: the file system reserves nothing this way (the write may
/// still fail part way); `Err`: there is no room (ENOSPC, EDQUOT) or the
/// file refuses it.
pub fn reserve(file: &File, offset: u64, len: u64) -> io::Result<bool> {
    let (Ok(offset), Ok(len)) = (i64::try_from(offset), i64::try_from(len)) else {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    };
    match fallocate(
        file.as_fd(),
        FallocateFlags::FALLOC_FL_KEEP_SIZE,
        offset,
        len,
    ) {
        Ok(()) => Ok(true),
        Err(Errno::EOPNOTSUPP | Errno::ENOSYS) => Ok(false),
        Err(e) => Err(io::Error::from(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_reserved_range_leaves_the_size_as_it_was() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"line\n").unwrap();
        // tmpfs, ext4, xfs and btrfs reserve; another file system may not.
        if reserve(&f, 5, 4096).unwrap() {
            assert_eq!(f.metadata().unwrap().len(), 5);
        }
    }
}
