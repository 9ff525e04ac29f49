//! /proc/self/mountinfo, every field kept: what -U needs to unmount a file
//! system and mount it back exactly as it was (source, type, the mount's own
//! flags and the super block's options), and to see what else is mounted
//! below it or shares its super block.
//!
//! The kernel escapes space, tab, newline and backslash in paths as `\ooo`,
//! and in option values also `,` and `=`; fields are split first, then
//! unescaped, so an escaped comma never splits an option.
//!
//! The one mount type of ioz: the environment of a run, the device checks
//! and -U all read these.

use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

/// One mount, as one line of mountinfo describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    /// Unique while mounted; a fresh mount of the same file system gets a new one.
    pub id: u64,
    pub parent_id: u64,
    /// The super block's device (major, minor); shared by every mount of it.
    pub dev: (u32, u32),
    /// The directory of the file system shown at the mount point ("/" unless a bind mount).
    pub root: PathBuf,
    pub mount_point: PathBuf,
    /// Per-mount options: rw/ro, nosuid, nodev, noexec, noatime, relatime, …
    pub mount_options: Vec<String>,
    /// Propagation tags: `shared:N`, `master:N`, `propagate_from:N`, `unbindable`.
    pub optional: Vec<String>,
    pub fs_type: String,
    pub source: OsString,
    /// The super block's options (rw/ro first, then the file system's own).
    pub super_options: Vec<String>,
}

impl Mount {
    /// The options as findmnt shows them, and as a run's environment records
    /// them (`mount_options`): the mount's own, then those of the super block
    /// that differ, joined by commas.
    pub fn combined_options(&self) -> String {
        let mut options = self.mount_options.clone();
        for o in &self.super_options {
            if !options.contains(o) {
                options.push(o.clone());
            }
        }
        options.join(",")
    }
}

/// The mount that holds `dir` (an absolute, canonical path): the longest
/// mount point that is a prefix of it; of mounts stacked on one point, the
/// last listed, which is the one on top.
pub fn mount_holding<'a>(mounts: &'a [Mount], dir: &Path) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|m| dir.starts_with(&m.mount_point))
        // max_by_key keeps the last of equal keys: the top of a stack.
        .max_by_key(|m| m.mount_point.components().count())
}

/// Undoes the kernel's `\ooo` octal escapes; a backslash not followed by
/// three octal digits is kept as written.
pub fn unescape(field: &str) -> Vec<u8> {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes.get(i + 1..i + 4).filter(|d| {
            bytes[i] == b'\\' && d.iter().all(|b| (b'0'..=b'7').contains(b)) && d[0] <= b'3'
        });
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    out
}

fn path(field: &str) -> PathBuf {
    PathBuf::from(OsString::from_vec(unescape(field)))
}

fn options(field: &str) -> Vec<String> {
    field
        .split(',')
        .filter(|o| !o.is_empty())
        .map(|o| String::from_utf8_lossy(&unescape(o)).into_owned())
        .collect()
}

/// Parses one line:
/// `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`.
pub fn parse_line(line: &str) -> Option<Mount> {
    let fields: Vec<&str> = line.split(' ').collect();
    // Optional fields (zero or more) run from the 7th field to a lone "-".
    let sep = 6 + fields.iter().skip(6).position(|f| *f == "-")?;
    if fields.len() < sep + 3 {
        return None;
    }
    let (major, minor) = fields[2].split_once(':')?;
    Some(Mount {
        id: fields[0].parse().ok()?,
        parent_id: fields[1].parse().ok()?,
        dev: (major.parse().ok()?, minor.parse().ok()?),
        root: path(fields[3]),
        mount_point: path(fields[4]),
        mount_options: options(fields[5]),
        optional: fields[6..sep].iter().map(|f| f.to_string()).collect(),
        fs_type: String::from_utf8_lossy(&unescape(fields[sep + 1])).into_owned(),
        source: OsString::from_vec(unescape(fields[sep + 2])),
        super_options: fields.get(sep + 3).map(|f| options(f)).unwrap_or_default(),
    })
}

/// Every mount of the text, in the kernel's order; lines that do not parse are skipped.
pub fn parse(text: &str) -> Vec<Mount> {
    text.lines().filter_map(parse_line).collect()
}

/// This process's mounts.
pub fn read() -> io::Result<Vec<Mount>> {
    std::fs::read_to_string("/proc/self/mountinfo").map(|t| parse(&t))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTINFO: &str = "\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,discard
61 27 259:2 / /mnt/fast\\040disk rw,noatime shared:30 master:2 - xfs /dev/nvme0n1p2 rw,attr2,inode64
62 61 0:55 / /mnt/fast\\040disk/tmp rw,nosuid - tmpfs tmp\\040fs rw,size=1024k
70 27 0:60 /export /mnt/nfs rw - nfs4 server:/export rw,vers=4.2,addr=10.0.0.1
80 27 7:0 / /mnt/odd rw - ext4 /dev/loop0 rw,jqfmt=vfsv0,usrjquota=a\\054b\\075c
81 27 7:1 / /mnt/bare rw - ext4 /dev/loop1
";

    #[test]
    fn every_field_of_a_line_with_optional_fields() {
        let m = parse_line(MOUNTINFO.lines().nth(2).unwrap()).unwrap();
        assert_eq!(
            m,
            Mount {
                id: 61,
                parent_id: 27,
                dev: (259, 2),
                root: "/".into(),
                mount_point: "/mnt/fast disk".into(),
                mount_options: vec!["rw".into(), "noatime".into()],
                optional: vec!["shared:30".into(), "master:2".into()],
                fs_type: "xfs".into(),
                source: "/dev/nvme0n1p2".into(),
                super_options: vec!["rw".into(), "attr2".into(), "inode64".into()],
            }
        );
    }

    #[test]
    fn escapes_are_undone_in_paths_sources_and_options() {
        let all = parse(MOUNTINFO);
        assert_eq!(all.len(), 7);
        assert_eq!(all[3].source, "tmp fs");
        assert_eq!(all[3].parent_id, 61);
        assert!(all[3].optional.is_empty());
        // An escaped comma and equals sign stay inside their option.
        assert_eq!(
            all[5].super_options,
            vec!["rw", "jqfmt=vfsv0", "usrjquota=a,b=c"]
        );
        assert_eq!(unescape(r"a\011b\012c\134d"), b"a\tb\nc\\d");
        assert_eq!(unescape(r"a\09b\"), br"a\09b\");
        // A byte that is not UTF-8 survives in a path.
        assert_eq!(
            parse_line(r"1 2 3:4 / /x\377y rw - ext4 /dev/sda rw")
                .unwrap()
                .mount_point
                .as_os_str()
                .as_encoded_bytes(),
            b"/x\xffy"
        );
    }

    #[test]
    fn a_bind_mount_shows_its_root_and_a_line_may_lack_super_options() {
        let all = parse(MOUNTINFO);
        assert_eq!(all[4].root, PathBuf::from("/export"));
        assert_eq!(all[4].source, "server:/export");
        assert_eq!(all[6].super_options, Vec::<String>::new());
        assert_eq!(all[6].dev, (7, 1));
    }

    #[test]
    fn combined_options_add_the_super_blocks_that_differ() {
        let all = parse(MOUNTINFO);
        assert_eq!(all[2].combined_options(), "rw,noatime,attr2,inode64");
        assert_eq!(all[0].combined_options(), "rw,relatime");
        // No super options at all: the mount's alone.
        assert_eq!(all[6].combined_options(), "rw");
        // An unescaped comma inside an option is shown as it is.
        assert_eq!(all[5].combined_options(), "rw,jqfmt=vfsv0,usrjquota=a,b=c");
    }

    #[test]
    fn the_longest_mount_point_prefix_holds_a_directory() {
        let mut text = MOUNTINFO.to_string();
        // A second mount stacked on /mnt/nfs: the later one is on top.
        text.push_str("71 70 0:61 / /mnt/nfs rw - tmpfs over rw\n");
        let all = parse(&text);
        let at = |dir: &str| {
            mount_holding(&all, Path::new(dir)).map(|m| m.mount_point.display().to_string())
        };
        assert_eq!(at("/home/user").as_deref(), Some("/"));
        assert_eq!(at("/").as_deref(), Some("/"));
        assert_eq!(at("/mnt/fast disk/data").as_deref(), Some("/mnt/fast disk"));
        assert_eq!(
            at("/mnt/fast disk/tmp").as_deref(),
            Some("/mnt/fast disk/tmp")
        );
        // A prefix of the name is not a prefix of the path.
        assert_eq!(at("/mnt/fast disk/tmpx").as_deref(), Some("/mnt/fast disk"));
        let tmp = mount_holding(&all, Path::new("/mnt/fast disk/tmp/x")).unwrap();
        assert_eq!(
            (tmp.fs_type.as_str(), tmp.source.as_os_str()),
            ("tmpfs", "tmp fs".as_ref())
        );
        let nfs = mount_holding(&all, Path::new("/mnt/nfs/a")).unwrap();
        assert_eq!(nfs.source, "over");
        assert_eq!(mount_holding(&[], Path::new("/x")), None);
    }

    #[test]
    fn broken_lines_are_skipped() {
        assert_eq!(parse_line("garbage"), None);
        assert_eq!(parse_line("1 2 3:4 / /x rw -"), None);
        assert_eq!(parse_line("x 2 3:4 / /x rw - ext4 /dev/a rw"), None);
        assert_eq!(parse_line("1 2 34 / /x rw - ext4 /dev/a rw"), None);
        assert_eq!(parse("garbage\n\n").len(), 0);
    }
}
