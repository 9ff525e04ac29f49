//! Whether a path is a device, and of which kind: the one answer for every
//! check that treats devices apart from regular files (ioz never creates,
//! truncates or removes a device, and a device has no free space to count).

use std::fs::{self, Metadata};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    Block,
    Character,
}

impl DeviceKind {
    /// What `path` leads to, following symlinks (a block device is often
    /// named by a link in /dev/disk); `None` for anything that is not a
    /// device, or that cannot be examined.
    pub fn of(path: &Path) -> Option<DeviceKind> {
        DeviceKind::of_metadata(&fs::metadata(path).ok()?)
    }

    pub fn of_metadata(meta: &Metadata) -> Option<DeviceKind> {
        let file_type = meta.file_type();
        if file_type.is_block_device() {
            Some(DeviceKind::Block)
        } else if file_type.is_char_device() {
            Some(DeviceKind::Character)
        } else {
            None
        }
    }
}

/// Whether `path` leads to a block or character device.
pub fn is_device(path: &Path) -> bool {
    DeviceKind::of(path).is_some()
}

/// The device number of the block device at `path` (following symlinks);
/// `None` for anything else.
pub fn rdev_of(path: &Path) -> Option<u64> {
    let meta = fs::metadata(path).ok()?;
    (DeviceKind::of_metadata(&meta) == Some(DeviceKind::Block)).then(|| meta.rdev())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn character_devices_files_and_missing_paths_are_told_apart() {
        let null = Path::new("/dev/null");
        assert_eq!(DeviceKind::of(null), Some(DeviceKind::Character));
        assert!(is_device(null));
        assert_eq!(rdev_of(null), None);

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        fs::write(&file, b"x").unwrap();
        for not_a_device in [dir.path(), file.as_path(), &dir.path().join("absent")] {
            assert_eq!(DeviceKind::of(not_a_device), None, "{not_a_device:?}");
            assert!(!is_device(not_a_device));
            assert_eq!(rdev_of(not_a_device), None);
        }

        // A link is followed to what it names.
        let link = dir.path().join("null-link");
        std::os::unix::fs::symlink(null, &link).unwrap();
        assert_eq!(DeviceKind::of(&link), Some(DeviceKind::Character));
    }

    #[test]
    fn a_block_device_has_a_device_number() {
        // Whichever block device this machine has in /dev, if any.
        let Some(block) = fs::read_dir("/dev")
            .unwrap()
            .flatten()
            .find(|e| e.file_type().is_ok_and(|t| t.is_block_device()))
        else {
            return;
        };
        let path = block.path();
        assert_eq!(DeviceKind::of(&path), Some(DeviceKind::Block));
        assert!(is_device(&path));
        assert_eq!(rdev_of(&path), Some(block.metadata().unwrap().rdev()));
    }
}
