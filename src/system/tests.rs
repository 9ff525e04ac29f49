//! One mountinfo parser feeds every reader of mounts: the environment of a
//! run and the device checks read the same `Mount`s, so they agree on what
//! is mounted where.

use std::path::{Path, PathBuf};

use super::device::BlockDevice;
use super::environment::describe_mount;
use super::mountinfo::{self, mount_holding};
use crate::model::environment::TargetEnvironment;

const MOUNTINFO: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,discard
61 27 259:2 / /mnt/fast\\040disk rw,noatime shared:30 master:2 - xfs /dev/nvme0n1p2 rw,attr2,inode64
62 61 0:55 / /mnt/fast\\040disk/tmp rw,nosuid - tmpfs tmp\\040fs rw,size=1024k
";

#[test]
fn one_parse_of_mountinfo_feeds_the_environment_and_the_device_checks() {
    let mounts = mountinfo::parse(MOUNTINFO);

    // The environment of a test file in /mnt/fast disk: the xfs on nvme0n1p2.
    let holder = mount_holding(&mounts, Path::new("/mnt/fast disk/data")).unwrap();
    let mut target = TargetEnvironment::default();
    describe_mount(&mut target, holder, Path::new("/nonexistent-ioz-sys"));
    assert_eq!(target.mount_point, "/mnt/fast disk");
    assert_eq!(target.fs_type, "xfs");
    assert_eq!(target.source, "/dev/nvme0n1p2");
    assert_eq!(target.mount_options, "rw,noatime,attr2,inode64");

    // The device checks of nvme0n1 (259:0) find its partition 259:2 on the
    // same line, at the same (unescaped) mount point.
    let sys = tempfile::tempdir().unwrap();
    let disk = BlockDevice {
        path: PathBuf::from("/nonexistent-ioz-dev/nvme0n1"),
        major: 259,
        minor: 0,
        name: "nvme0n1".into(),
        sys: sys.path().to_path_buf(),
        size: 1 << 30,
    };
    let parts = [("nvme0n1p2".to_string(), 259, 2)];
    assert_eq!(
        disk.mounted_at(&mounts, &parts),
        ["nvme0n1p2 at /mnt/fast disk"]
    );
    // The tmpfs mounted inside it is not the disk's.
    assert_eq!(
        mount_holding(&mounts, Path::new("/mnt/fast disk/tmp/x")).map(|m| m.fs_type.as_str()),
        Some("tmpfs")
    );
}
