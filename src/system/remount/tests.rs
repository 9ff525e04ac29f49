use super::checks::*;
use super::*;
use crate::system::mountinfo::parse;
use crate::system::skip_ledger::skipped;

const MOUNTINFO: &str = "\
27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,discard
40 27 7:0 / /mnt/data rw,nosuid,nodev,noatime shared:5 - ext4 /dev/loop0 rw,seclabel,sync,errors=remount-ro,data=journal
41 27 0:50 / /mnt/ram rw,relatime - tmpfs tmpfs rw,size=1024k
42 27 0:51 / /mnt/fuse rw,relatime - fuse.sshfs host:/x rw,user_id=0
43 27 0:52 / /mnt/over rw,relatime - overlay overlay rw,lowerdir=/a,upperdir=/b
44 27 7:0 /sub /mnt/bind rw,relatime - ext4 /dev/loop0 rw
45 27 0:53 /@home /home rw,relatime - btrfs /dev/sda2 rw,space_cache=v2,subvolid=256,subvol=/@home
46 27 7:2 / /mnt/outer rw master:9 - xfs /dev/loop2 ro,attr2,inode64
47 46 7:3 / /mnt/outer/inner rw,relatime unbindable - xfs /dev/loop3 rw
48 27 0:22 / /sys rw,nosuid - sysfs sysfs rw
49 27 0:53 /@snap /snap rw,relatime - btrfs /dev/sda2 rw,subvolid=257,subvol=/@snap
50 27 7:4 / /mnt/idmap rw,idmapped - ext4 /dev/loop4 rw
";

fn mounts() -> Vec<Mount> {
    parse(MOUNTINFO)
}

fn at(mounts: &[Mount], dir: &str) -> Mount {
    find_mount_at(mounts, Path::new(dir), None)
        .unwrap_or_else(|| panic!("no mount at {dir}"))
        .clone()
}

/// Why -U refuses the mount at `dir` of [`MOUNTINFO`], or "" when it may cycle it.
fn verdict(dir: &str) -> String {
    let all = mounts();
    check_mount(&all, &at(&all, dir))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

#[test]
fn a_plain_mount_of_a_disk_file_system_may_be_cycled() {
    assert_eq!(verdict("/mnt/outer/inner"), "");
}

#[test]
fn memory_and_pseudo_file_systems_are_refused_with_the_reason() {
    let ram = verdict("/mnt/ram");
    assert!(ram.contains("tmpfs keeps its files in memory"), "{ram}");
    let sys = verdict("/sys");
    assert!(sys.contains("sysfs is a kernel interface"), "{sys}");
    let fuse = verdict("/mnt/fuse");
    assert!(fuse.contains("FUSE daemon"), "{fuse}");
    let over = verdict("/mnt/over");
    assert!(over.contains("overlay"), "{over}");
    let idmap = verdict("/mnt/idmap");
    assert!(idmap.contains("idmapped"), "{idmap}");
}

#[test]
fn a_bind_mount_of_a_directory_is_refused_but_a_btrfs_subvolume_is_not() {
    let all = mounts();
    let bind = check_mount(&all, &at(&all, "/mnt/bind")).unwrap_err();
    assert!(matches!(&bind, Unfit::BindMount { root, .. } if root == Path::new("/sub")));
    assert!(bind.to_string().contains("bind mount of /sub"), "{bind}");
    // Its root /sub is not /, whatever else: the same device is also at /mnt/data.
    let home = at(&all, "/home");
    assert!(is_btrfs_subvolume(&home));
    let mut alone: Vec<Mount> = all.iter().filter(|m| m.id != 49).cloned().collect();
    assert!(check_mount(&alone, &home).is_ok());
    // A subvol= naming another root is not this mount's.
    alone[6].super_options = vec!["rw".into(), "subvol=/@other".into()];
    assert!(check_mount(&alone, &alone[6]).is_err());
}

#[test]
fn a_mount_inside_or_a_second_mount_of_the_super_block_is_refused() {
    let inner = verdict("/mnt/outer");
    assert!(
        inner.contains("/mnt/outer/inner is mounted inside it"),
        "{inner}"
    );
    let shared = verdict("/mnt/data");
    assert!(shared.contains("also mounted at /mnt/bind"), "{shared}");
    let snap = verdict("/home");
    assert!(snap.contains("also mounted at /snap"), "{snap}");
}

#[test]
fn the_mount_request_keeps_flags_data_and_propagation() {
    let all = mounts();
    let r = mount_request(&at(&all, "/mnt/data")).unwrap();
    assert_eq!(
        r.flags,
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOATIME | MsFlags::MS_SYNCHRONOUS
    );
    // rw and seclabel are not data; sync became a flag.
    assert_eq!(r.data, vec!["errors=remount-ro", "data=journal"]);
    assert_eq!(r.propagation, Some(MsFlags::MS_SHARED));

    // Neither noatime nor relatime shown: every access updates atime.
    let outer = mount_request(&at(&all, "/mnt/outer")).unwrap();
    assert_eq!(
        outer.flags,
        MsFlags::MS_STRICTATIME | MsFlags::MS_RDONLY,
        "a read-only super block mounts read-only"
    );
    assert_eq!(outer.data, vec!["attr2", "inode64"]);
    assert_eq!(
        outer.propagation, None,
        "a slave is left as the kernel makes it"
    );

    let inner = mount_request(&at(&all, "/mnt/outer/inner")).unwrap();
    assert_eq!(inner.flags, MsFlags::MS_RELATIME);
    assert!(inner.data.is_empty());
    assert_eq!(inner.propagation, Some(MsFlags::MS_UNBINDABLE));

    let ram = mount_request(&at(&all, "/mnt/ram")).unwrap();
    assert_eq!(ram.propagation, Some(MsFlags::MS_PRIVATE));
}

#[test]
fn options_mount2_cannot_carry_are_refused() {
    let mut m = at(&mounts(), "/mnt/outer/inner");
    m.mount_options.push("idmapped".into());
    let e = mount_request(&m).unwrap_err();
    assert!(
        matches!(&e, Unfit::MountOption(o) if o == "idmapped"),
        "{e}"
    );
    assert!(e.to_string().contains("idmapped"));
    let mut m = at(&mounts(), "/mnt/outer/inner");
    m.super_options.push("usrjquota=a,b".into());
    assert!(mount_request(&m).unwrap_err().to_string().contains("comma"));
}

fn remounter(dir: &str) -> Remounter {
    let m = at(&mounts(), dir);
    Remounter {
        mount_point: m.mount_point.clone(),
        source: m.source.clone(),
        fs_type: m.fs_type.clone(),
        request: mount_request(&m).unwrap(),
        mount_id: m.id,
        block_source: false,
        unmounted: false,
        cycles: 0,
    }
}

#[test]
fn the_command_to_mount_it_back_names_everything_and_quotes_what_needs_it() {
    assert_eq!(
        remounter("/mnt/data").mount_command(),
        "mount -t ext4 -o rw,nosuid,nodev,noatime,sync,errors=remount-ro,data=journal \
         /dev/loop0 /mnt/data"
    );
    let mut r = remounter("/mnt/outer/inner");
    r.mount_point = PathBuf::from("/mnt/my disk's");
    assert_eq!(
        r.mount_command(),
        r"mount -t xfs -o rw,relatime /dev/loop3 '/mnt/my disk'\''s'"
    );
}

#[test]
fn the_mount_at_a_point_is_the_one_statx_names_else_the_top_one() {
    let stacked = parse(
        "1 0 7:0 / /m rw - ext4 /dev/loop0 rw\n\
         2 0 7:1 / /m rw - ext4 /dev/loop1 rw\n",
    );
    let m = |id| find_mount_at(&stacked, Path::new("/m"), id).map(|m| m.id);
    assert_eq!(m(None), Some(2));
    assert_eq!(m(Some(1)), Some(1));
    assert_eq!(m(Some(9)), None);
    assert_eq!(find_mount_at(&stacked, Path::new("/m/x"), None), None);
}

#[test]
fn the_kernel_judges_each_option_without_mounting() {
    if !has_sys_admin() {
        skipped("fsopen needs CAP_SYS_ADMIN");
        return;
    }
    let ext4_known = std::fs::read_to_string("/proc/filesystems")
        .is_ok_and(|f| f.lines().any(|l| l.trim_end().ends_with("\text4")));
    if !ext4_known {
        skipped("no ext4 in this kernel");
        return;
    }
    assert!(validate_options("ext4", &["errors=remount-ro".into(), "nodelalloc".into()]).is_ok());
    let bad =
        validate_options("ext4", &["errors=remount-ro".into(), "ioz_no_such".into()]).unwrap_err();
    assert!(matches!(&bad, Unfit::OptionRefused { option, .. } if option == "ioz_no_such"));
    let none = validate_options("ioz_no_such_fs", &[]).unwrap_err();
    assert!(
        none.to_string().contains("no ioz_no_such_fs file system"),
        "{none}"
    );
}

#[test]
fn statx_gives_the_mount_id_mountinfo_shows() {
    let all = mountinfo::read().unwrap();
    let Some(id) = mount_id_of(Path::new("/proc")) else {
        skipped("no STATX_MNT_ID (Linux before 5.8)");
        return;
    };
    let proc_mount = all.iter().find(|m| m.id == id).unwrap();
    assert_eq!(proc_mount.fs_type, "proc");
}
