//! Block devices as test targets: how big they are, what they hold, whether
//! something uses them, and what names them.
//!
//! The parsing and the magic-number checks are pure functions over text and
//! bytes; the rest reads sysfs, /proc and the device itself (read-only).

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileExt, FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

/// Bytes read from the start of a device to look for signatures: enough for
/// the btrfs superblock at 64 KiB and swap headers of 64 KiB pages.
pub const PROBE_BYTES: usize = 68 * 1024;

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
    if meta.file_type().is_block_device() {
        size_of(&fs::File::open(path)?)
    } else {
        Ok(meta.len())
    }
}

/// What a signature says the device holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    PartitionTable,
    FileSystem,
    Swap,
    Lvm,
    Raid,
    Encrypted,
    Other,
}

/// One signature found on a device, described for the user ("an ext4 file
/// system (UUID …)").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub kind: Kind,
    pub what: String,
}

fn sig(kind: Kind, what: impl Into<String>) -> Signature {
    Signature {
        kind,
        what: what.into(),
    }
}

/// `blkid -o export` output: one `KEY=value` per line.
pub fn parse_blkid_export(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .collect()
}

/// "an" before a type name read letter by letter or starting with a vowel.
fn article(name: &str) -> &'static str {
    let lower = name.to_ascii_lowercase();
    let spelled = [
        "ntfs", "hfs", "hfsplus", "f2fs", "nilfs2", "xfs", "exfat", "ext",
    ];
    let vowel = lower.starts_with(['a', 'e', 'i', 'o']);
    if vowel || spelled.iter().any(|s| lower.starts_with(s)) {
        "an"
    } else {
        "a"
    }
}

fn with_uuid(what: String, label: &str, uuid: Option<&String>) -> String {
    match uuid {
        Some(u) => format!("{what} ({label} {u})"),
        None => what,
    }
}

/// The signatures a `blkid -p -o export` probe reported.
pub fn blkid_signatures(fields: &BTreeMap<String, String>) -> Vec<Signature> {
    let mut out = Vec::new();
    if let Some(pt) = fields.get("PTTYPE") {
        let name = match pt.as_str() {
            "dos" => "dos (MBR)".to_string(),
            "gpt" => "GPT".to_string(),
            other => other.to_string(),
        };
        let what = format!("{} {name} partition table", article(&name));
        out.push(sig(
            Kind::PartitionTable,
            with_uuid(what, "PTUUID", fields.get("PTUUID")),
        ));
    }
    if let Some(t) = fields.get("TYPE") {
        let usage = fields.get("USAGE").map(String::as_str).unwrap_or("");
        let (kind, what) = match (t.as_str(), usage) {
            ("swap", _) => (Kind::Swap, "a swap area".to_string()),
            ("LVM2_member" | "LVM1_member", _) => {
                (Kind::Lvm, format!("an LVM physical volume ({t})"))
            }
            ("linux_raid_member", _) => {
                (Kind::Raid, "a Linux software RAID (md) member".to_string())
            }
            (_, "raid") => (Kind::Raid, format!("{} {t} RAID member", article(t))),
            ("crypto_LUKS", _) => (Kind::Encrypted, "a LUKS encrypted volume".to_string()),
            (_, "crypto") => (Kind::Encrypted, format!("{t} encrypted data")),
            (_, "filesystem") => (Kind::FileSystem, format!("{} {t} file system", article(t))),
            _ => (Kind::Other, format!("{} {t} signature", article(t))),
        };
        out.push(sig(kind, with_uuid(what, "UUID", fields.get("UUID"))));
    }
    out
}

fn at(buf: &[u8], offset: usize, magic: &[u8]) -> bool {
    buf.get(offset..offset + magic.len()) == Some(magic)
}

/// A UUID stored as 16 raw bytes at `offset`, formatted 8-4-4-4-12; `None`
/// when the buffer is short or the bytes are all zero.
fn raw_uuid(buf: &[u8], offset: usize) -> Option<String> {
    let b = buf.get(offset..offset + 16)?;
    if b.iter().all(|&x| x == 0) {
        return None;
    }
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    Some(format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    ))
}

/// A NUL-padded text field (LUKS keeps its UUID as text).
fn text_field(buf: &[u8], offset: usize, len: usize) -> Option<String> {
    let b = buf.get(offset..offset + len)?;
    let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
    let s = std::str::from_utf8(&b[..end]).ok()?.trim();
    (!s.is_empty()).then(|| s.to_string())
}

fn uuid_note(what: &str, uuid: Option<String>) -> String {
    match uuid {
        Some(u) => format!("{what} (UUID {u})"),
        None => what.to_string(),
    }
}

/// The md RAID superblock magic, as stored by either byte order.
pub fn is_md_magic(bytes: &[u8]) -> bool {
    let magic: u32 = 0xa92b_4efc;
    bytes.get(..4).is_some_and(|b| {
        let b = [b[0], b[1], b[2], b[3]];
        u32::from_le_bytes(b) == magic || u32::from_be_bytes(b) == magic
    })
}

/// A DOS (MBR) partition table: the 0x55AA boot signature and at least one
/// partition entry in use, every entry with a valid boot flag.
fn has_mbr(buf: &[u8]) -> bool {
    if !at(buf, 510, &[0x55, 0xaa]) {
        return false;
    }
    let entries: Vec<&[u8]> = (0..4).map(|i| &buf[446 + 16 * i..462 + 16 * i]).collect();
    entries.iter().all(|e| e[0] == 0 || e[0] == 0x80) && entries.iter().any(|e| e[4] != 0)
}

/// Signatures found by magic number in the first bytes of a device
/// (`buf` starts at offset 0; a short buffer simply finds less).
pub fn magic_signatures(buf: &[u8]) -> Vec<Signature> {
    let mut out = Vec::new();
    let gpt = at(buf, 512, b"EFI PART") || at(buf, 4096, b"EFI PART");
    if gpt {
        out.push(sig(Kind::PartitionTable, "a GPT partition table"));
    } else if has_mbr(buf) {
        out.push(sig(Kind::PartitionTable, "a dos (MBR) partition table"));
    }
    if at(buf, 1080, &[0x53, 0xef]) {
        out.push(sig(
            Kind::FileSystem,
            uuid_note("an ext2/3/4 file system", raw_uuid(buf, 1024 + 0x68)),
        ));
    }
    if at(buf, 0, b"XFSB") {
        out.push(sig(
            Kind::FileSystem,
            uuid_note("an xfs file system", raw_uuid(buf, 32)),
        ));
    }
    if at(buf, 65600, b"_BHRfS_M") {
        out.push(sig(
            Kind::FileSystem,
            uuid_note("a btrfs file system", raw_uuid(buf, 65536 + 0x20)),
        ));
    }
    // The swap header ends its first page; pages of 4 to 64 KiB.
    for page in [4096usize, 8192, 16384, 65536] {
        if at(buf, page - 10, b"SWAPSPACE2") {
            out.push(sig(
                Kind::Swap,
                uuid_note("a swap area", raw_uuid(buf, 1024 + 12)),
            ));
            break;
        }
        if at(buf, page - 10, b"SWAP-SPACE") {
            out.push(sig(Kind::Swap, "a swap area (old format)"));
            break;
        }
    }
    if at(buf, 0, b"LUKS\xba\xbe") {
        out.push(sig(
            Kind::Encrypted,
            uuid_note("a LUKS encrypted volume", text_field(buf, 168, 40)),
        ));
    }
    // The LVM label sits in one of the first four sectors (the second by default).
    if (0..4).any(|s| at(buf, s * 512, b"LABELONE")) {
        out.push(sig(Kind::Lvm, "an LVM physical volume"));
    }
    // md superblocks 1.1 (at 0) and 1.2 (at 4 KiB); 0.90 and 1.0 sit at the end.
    if [0usize, 4096]
        .iter()
        .any(|&o| buf.get(o..).is_some_and(is_md_magic))
    {
        out.push(sig(Kind::Raid, "a Linux software RAID (md) member"));
    }
    out
}

/// Where md superblocks 0.90 and 1.0 live on a device of `size` bytes.
pub fn md_end_offsets(size: u64) -> Vec<u64> {
    let mut out = Vec::new();
    // 0.90: the last 64 KiB-aligned 64 KiB block.
    if size >= 128 * 1024 {
        out.push((size & !(65536 - 1)) - 65536);
    }
    // 1.0: 8 KiB before the end, 4 KiB aligned.
    if size >= 12 * 1024 {
        out.push((size - 8192) & !(4096 - 1));
    }
    out
}

/// blkid's signatures first; a magic-number finding is added only for a kind
/// blkid did not report (blkid names the type more precisely).
pub fn merge(blkid: Vec<Signature>, magic: Vec<Signature>) -> Vec<Signature> {
    let mut out = blkid;
    for m in magic {
        if !out.iter().any(|s| s.kind == m.kind) {
            out.push(m);
        }
    }
    out
}

/// "a", "a and b", "a, b and c".
pub fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Undoes the octal escapes (`\040` for a space) of /proc/self/mountinfo and /proc/swaps.
pub fn unescape_octal(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && i + 3 < bytes.len()
            && bytes[i + 1..i + 4]
                .iter()
                .all(|c| (b'0'..=b'7').contains(c))
        {
            let v = (bytes[i + 1] - b'0') as u32 * 64
                + (bytes[i + 2] - b'0') as u32 * 8
                + (bytes[i + 3] - b'0') as u32;
            out.push(v as u8);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One line of /proc/self/mountinfo, reduced to what the checks need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mount {
    pub major: u32,
    pub minor: u32,
    pub mount_point: String,
    pub source: String,
}

/// Parses /proc/self/mountinfo; malformed lines are skipped.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let fields: Vec<&str> = left.split(' ').collect();
            let (major, minor) = fields.get(2)?.split_once(':')?;
            let source = right.split(' ').nth(1).unwrap_or("");
            Some(Mount {
                major: major.parse().ok()?,
                minor: minor.parse().ok()?,
                mount_point: unescape_octal(fields.get(4)?),
                source: unescape_octal(source),
            })
        })
        .collect()
}

/// The file names in /proc/swaps (the first column after the header).
pub fn parse_swaps(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .map(unescape_octal)
        .collect()
}

/// What `--destroy-data` may name a device by.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// sysfs `wwid` (a WWN such as `naa.5000c500a1b2c3d4`, or an NVMe EUI).
    pub wwid: Option<String>,
    /// sysfs `serial`.
    pub serial: Option<String>,
    /// The device's names in /dev/disk/by-id, sorted.
    pub by_id: Vec<String>,
    /// Its paths (as given and under /dev): they name it only when it has
    /// none of the above, as loop devices do.
    pub paths: Vec<String>,
}

impl Identity {
    pub fn has_stable_id(&self) -> bool {
        self.wwid.is_some() || self.serial.is_some() || !self.by_id.is_empty()
    }

    /// Every spelling that names the device.
    pub fn names(&self) -> Vec<String> {
        if !self.has_stable_id() {
            return self.paths.clone();
        }
        let mut out: Vec<String> = self.wwid.iter().chain(&self.serial).cloned().collect();
        for name in &self.by_id {
            out.push(name.clone());
            out.push(format!("/dev/disk/by-id/{name}"));
            if let Some(hex) = name.strip_prefix("wwn-") {
                out.push(hex.to_string());
            }
        }
        out
    }

    /// Whether `given` names this device (exactly; hex in any case).
    pub fn matches(&self, given: &str) -> bool {
        let given = given.trim();
        !given.is_empty() && self.names().iter().any(|n| n.eq_ignore_ascii_case(given))
    }

    /// The name to suggest: the WWN, else a `wwn-` by-id name, else the
    /// serial, else another by-id name, else the path.
    pub fn suggestion(&self) -> String {
        self.wwid
            .clone()
            .or_else(|| self.by_id.iter().find(|n| n.starts_with("wwn-")).cloned())
            .or_else(|| self.serial.clone())
            .or_else(|| self.by_id.first().cloned())
            .or_else(|| self.paths.first().cloned())
            .unwrap_or_default()
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

fn major_minor(rdev: u64) -> (u32, u32) {
    (libc::major(rdev), libc::minor(rdev))
}

fn read_attr(path: impl AsRef<Path>) -> Option<String> {
    let text = fs::read_to_string(path).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// The device number of the block device at `path` (following symlinks);
/// `None` for anything else.
pub fn rdev_of(path: &Path) -> Option<u64> {
    let m = fs::metadata(path).ok()?;
    m.file_type().is_block_device().then(|| m.rdev())
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
        if !meta.file_type().is_block_device() {
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

    /// Ways the device (or a partition of it) is in use right now; these are
    /// never overridden.
    pub fn uses(&self) -> Vec<String> {
        let parts = self.partitions();
        let mut out = Vec::new();
        let ours = |major: u32, minor: u32| -> Option<Option<&str>> {
            if (major, minor) == (self.major, self.minor) {
                return Some(None);
            }
            parts
                .iter()
                .find(|(_, a, b)| (*a, *b) == (major, minor))
                .map(|(n, _, _)| Some(n.as_str()))
        };
        let rdev_ours = |path: &Path| {
            rdev_of(path).and_then(|r| {
                let (a, b) = major_minor(r);
                ours(a, b)
            })
        };
        // Mounted: by major:minor, or by the mount source (btrfs reports an
        // anonymous major:minor).
        let mut mounted: Vec<String> = Vec::new();
        for m in parse_mountinfo(&fs::read_to_string("/proc/self/mountinfo").unwrap_or_default()) {
            let hit = ours(m.major, m.minor).or_else(|| {
                m.source
                    .starts_with("/dev/")
                    .then(|| rdev_ours(Path::new(&m.source)))
                    .flatten()
            });
            match hit {
                Some(None) => mounted.push(format!("at {}", m.mount_point)),
                Some(Some(part)) => mounted.push(format!("{part} at {}", m.mount_point)),
                None => {}
            }
        }
        mounted.dedup();
        if !mounted.is_empty() {
            out.push(format!("is mounted ({})", mounted.join(", ")));
        }
        for s in parse_swaps(&fs::read_to_string("/proc/swaps").unwrap_or_default()) {
            match rdev_ours(Path::new(&s)) {
                Some(None) => out.push("is in use as swap".to_string()),
                Some(Some(part)) => out.push(format!("has a partition in use as swap ({part})")),
                None => {}
            }
        }
        let holders = dir_names(&self.sys.join("holders"));
        if !holders.is_empty() {
            out.push(format!("is held by {}", holders.join(", ")));
        }
        for (part, _, _) in &parts {
            let h = dir_names(&self.sys.join(part).join("holders"));
            if !h.is_empty() {
                out.push(format!("has a partition held by {} ({part})", h.join(", ")));
            }
        }
        if out.is_empty() && self.busy() {
            out.push("is in use (the kernel refused an exclusive open: busy)".to_string());
        }
        out
    }

    /// Whether an exclusive open fails because something holds the device.
    fn busy(&self) -> bool {
        use std::os::unix::fs::OpenOptionsExt;
        let r = fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL)
            .open(&self.path);
        matches!(r, Err(e) if e.raw_os_error() == Some(libc::EBUSY))
    }

    /// What the device holds: partitions and signatures.
    pub fn contents(&self) -> io::Result<Vec<String>> {
        let mut sigs = self.signatures()?;
        sigs.sort_by_key(|s| s.kind);
        let mut out = Vec::new();
        if !sigs.is_empty() {
            let what: Vec<String> = sigs.into_iter().map(|s| s.what).collect();
            out.push(format!("holds {}", join_and(&what)));
        }
        let parts: Vec<String> = self.partitions().into_iter().map(|p| p.0).collect();
        if !parts.is_empty() {
            out.push(format!("has partitions ({})", parts.join(", ")));
        }
        Ok(out)
    }

    /// Signatures from blkid (when it runs) and from our own magic checks.
    pub fn signatures(&self) -> io::Result<Vec<Signature>> {
        let file = fs::File::open(&self.path)?;
        let mut buf = vec![0u8; PROBE_BYTES.min(self.size as usize)];
        read_fully_at(&file, &mut buf, 0)?;
        let mut magic = magic_signatures(&buf);
        for offset in md_end_offsets(self.size) {
            let mut b = [0u8; 4];
            if read_fully_at(&file, &mut b, offset).is_ok() && is_md_magic(&b) {
                magic.push(sig(Kind::Raid, "a Linux software RAID (md) member"));
                break;
            }
        }
        Ok(merge(blkid_probe(&self.path).unwrap_or_default(), magic))
    }

    /// What names the device, from sysfs and /dev/disk/by-id.
    pub fn identity(&self) -> Identity {
        let attr = |names: &[&str]| names.iter().find_map(|n| read_attr(self.sys.join(n)));
        let mut by_id: Vec<String> = dir_names(Path::new("/dev/disk/by-id"))
            .into_iter()
            .filter(|n| rdev_of(&Path::new("/dev/disk/by-id").join(n)) == Some(self.rdev()))
            .collect();
        by_id.sort();
        let mut paths = vec![self.path.display().to_string()];
        let dev = format!("/dev/{}", self.name);
        if rdev_of(Path::new(&dev)) == Some(self.rdev()) && !paths.contains(&dev) {
            paths.push(dev);
        }
        Identity {
            wwid: attr(&["wwid", "device/wwid"]),
            serial: attr(&["serial", "device/serial"]),
            by_id,
            paths,
        }
    }
}

fn read_fully_at(file: &fs::File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "short read"));
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// `blkid -p -o export DEV` (a low-level probe of the device itself). `None`
/// when blkid is not installed or fails; an empty list when it finds nothing.
pub fn blkid_probe(path: &Path) -> Option<Vec<Signature>> {
    let programs = ["blkid", "/usr/sbin/blkid", "/sbin/blkid"];
    let out = programs.iter().find_map(|p| {
        Command::new(p)
            .args(["-p", "-o", "export"])
            .arg(path)
            .stdin(Stdio::null())
            .output()
            .ok()
    })?;
    match out.status.code() {
        Some(0) => Some(blkid_signatures(&parse_blkid_export(
            &String::from_utf8_lossy(&out.stdout),
        ))),
        // Nothing found.
        Some(2) => Some(Vec::new()),
        // Ambivalent: more than one signature.
        Some(8) => Some(vec![sig(
            Kind::Other,
            "more than one signature (blkid: ambivalent result; wipefs lists them)",
        )]),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn export(text: &str) -> Vec<Signature> {
        blkid_signatures(&parse_blkid_export(text))
    }

    #[test]
    fn blkid_export_is_parsed_into_fields() {
        let f = parse_blkid_export(
            "DEVNAME=/dev/loop0\nUUID=ab-cd\nTYPE=ext4\nUSAGE=filesystem\n\nJUNK\n",
        );
        assert_eq!(f["TYPE"], "ext4");
        assert_eq!(f["UUID"], "ab-cd");
        assert_eq!(f.len(), 4);
    }

    #[test]
    fn blkid_types_are_described() {
        let s = export("UUID=8226\nVERSION=1.0\nTYPE=ext4\nUSAGE=filesystem\n");
        assert_eq!(
            s,
            [sig(Kind::FileSystem, "an ext4 file system (UUID 8226)")]
        );
        let s = export("TYPE=btrfs\nUSAGE=filesystem\n");
        assert_eq!(s[0].what, "a btrfs file system");
        let s = export("UUID=f9f7\nVERSION=1\nTYPE=swap\nUSAGE=other\n");
        assert_eq!(s, [sig(Kind::Swap, "a swap area (UUID f9f7)")]);
        let s = export("TYPE=LVM2_member\nUSAGE=raid\n");
        assert_eq!(s[0].kind, Kind::Lvm);
        assert!(s[0].what.contains("LVM physical volume"));
        let s = export("TYPE=linux_raid_member\nUSAGE=raid\n");
        assert_eq!(s[0].kind, Kind::Raid);
        let s = export("TYPE=crypto_LUKS\nUSAGE=crypto\nUUID=1-2\n");
        assert_eq!(
            s,
            [sig(Kind::Encrypted, "a LUKS encrypted volume (UUID 1-2)")]
        );
        let s = export("PTUUID=5a1c\nPTTYPE=gpt\n");
        assert_eq!(
            s,
            [sig(
                Kind::PartitionTable,
                "a GPT partition table (PTUUID 5a1c)"
            )]
        );
        let s = export("PTTYPE=dos\n");
        assert_eq!(s[0].what, "a dos (MBR) partition table");
        let s = export("TYPE=zonefs\n");
        assert_eq!(s, [sig(Kind::Other, "a zonefs signature")]);
        assert!(export("DEVNAME=/dev/loop0\n").is_empty());
    }

    #[test]
    fn an_all_zero_device_has_no_magic() {
        assert!(magic_signatures(&vec![0u8; PROBE_BYTES]).is_empty());
        assert!(magic_signatures(&[]).is_empty());
        assert!(magic_signatures(&[0u8; 100]).is_empty());
    }

    fn with(pairs: &[(usize, &[u8])]) -> Vec<u8> {
        let mut b = vec![0u8; PROBE_BYTES];
        for (o, bytes) in pairs {
            b[*o..*o + bytes.len()].copy_from_slice(bytes);
        }
        b
    }

    fn kinds(buf: &[u8]) -> Vec<Kind> {
        magic_signatures(buf).into_iter().map(|s| s.kind).collect()
    }

    #[test]
    fn each_magic_number_is_found() {
        use Kind::*;
        let mut ext = with(&[(1080, &[0x53, 0xef])]);
        ext[1024 + 0x68] = 0x12;
        let s = magic_signatures(&ext);
        assert_eq!(s.len(), 1);
        assert!(
            s[0].what
                .starts_with("an ext2/3/4 file system (UUID 12000000-"),
            "{s:?}"
        );
        assert_eq!(kinds(&with(&[(0, b"XFSB")])), [FileSystem]);
        assert_eq!(kinds(&with(&[(65600, b"_BHRfS_M")])), [FileSystem]);
        assert_eq!(kinds(&with(&[(4086, b"SWAPSPACE2")])), [Swap]);
        assert_eq!(kinds(&with(&[(4086, b"SWAP-SPACE")])), [Swap]);
        assert_eq!(kinds(&with(&[(65526, b"SWAPSPACE2")])), [Swap]);
        assert_eq!(kinds(&with(&[(0, b"LUKS\xba\xbe")])), [Encrypted]);
        assert_eq!(kinds(&with(&[(512, b"LABELONE")])), [Lvm]);
        assert_eq!(kinds(&with(&[(0, &[0xfc, 0x4e, 0x2b, 0xa9])])), [Raid]);
        assert_eq!(kinds(&with(&[(4096, &[0xfc, 0x4e, 0x2b, 0xa9])])), [Raid]);
        assert_eq!(kinds(&with(&[(512, b"EFI PART")])), [PartitionTable]);
    }

    #[test]
    fn an_mbr_needs_a_used_partition_entry() {
        let empty = with(&[(510, &[0x55, 0xaa])]);
        assert!(magic_signatures(&empty).is_empty());
        let used = with(&[(510, &[0x55, 0xaa]), (446 + 4, &[0x83])]);
        assert_eq!(
            magic_signatures(&used),
            [sig(Kind::PartitionTable, "a dos (MBR) partition table")]
        );
        // Boot code, not a table: a boot flag other than 0 or 0x80.
        let code = with(&[(510, &[0x55, 0xaa]), (446, &[0x33, 0, 0, 0, 0x83])]);
        assert!(magic_signatures(&code).is_empty());
        // A GPT's protective MBR is reported once, as GPT.
        let gpt = with(&[(510, &[0x55, 0xaa]), (446 + 4, &[0xee]), (512, b"EFI PART")]);
        assert_eq!(
            magic_signatures(&gpt),
            [sig(Kind::PartitionTable, "a GPT partition table")]
        );
    }

    #[test]
    fn md_superblocks_at_the_end() {
        let size = 64 * 1024 * 1024 + 12345;
        let offs = md_end_offsets(size);
        assert_eq!(offs[0], 64 * 1024 * 1024 - 65536);
        assert_eq!(offs[1] % 4096, 0);
        assert!(offs[1] + 8192 <= size && offs[1] + 8192 + 4096 > size);
        assert!(md_end_offsets(4096).is_empty());
        assert!(is_md_magic(&[0xfc, 0x4e, 0x2b, 0xa9]));
        assert!(is_md_magic(&[0xa9, 0x2b, 0x4e, 0xfc]));
        assert!(!is_md_magic(&[0xfc, 0x4e]));
    }

    #[test]
    fn blkid_wins_over_magic_of_the_same_kind() {
        let blkid = vec![sig(Kind::FileSystem, "an ext4 file system")];
        let magic = vec![
            sig(Kind::FileSystem, "an ext2/3/4 file system"),
            sig(Kind::PartitionTable, "a GPT partition table"),
        ];
        let m = merge(blkid, magic);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].what, "an ext4 file system");
        assert_eq!(m[1].kind, Kind::PartitionTable);
    }

    #[test]
    fn lists_read_naturally() {
        let s = |v: &[&str]| join_and(&v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(s(&[]), "");
        assert_eq!(s(&["a"]), "a");
        assert_eq!(s(&["a", "b"]), "a and b");
        assert_eq!(s(&["a", "b", "c"]), "a, b and c");
    }

    #[test]
    fn mountinfo_and_swaps_are_parsed() {
        let text = "42 27 7:0 / /tmp/my\\040mnt rw,relatime - ext4 /dev/loop0 rw\n\
                    36 35 0:31 / /data rw shared:1 master:2 - btrfs /dev/sdb2 rw\n\
                    garbage\n";
        let m = parse_mountinfo(text);
        assert_eq!(
            m,
            [
                Mount {
                    major: 7,
                    minor: 0,
                    mount_point: "/tmp/my mnt".into(),
                    source: "/dev/loop0".into()
                },
                Mount {
                    major: 0,
                    minor: 31,
                    mount_point: "/data".into(),
                    source: "/dev/sdb2".into()
                }
            ]
        );
        let swaps = "Filename\tType\tSize\tUsed\tPriority\n/dev/sda3 partition 1 0 -2\n/swap\\040file file 1 0 -3\n";
        assert_eq!(parse_swaps(swaps), ["/dev/sda3", "/swap file"]);
        assert_eq!(unescape_octal("a\\134b\\0"), "a\\b\\0");
    }

    #[test]
    fn a_device_with_a_wwn_is_named_by_it_not_by_its_path() {
        let id = Identity {
            wwid: Some("naa.5000c500a1b2c3d4".into()),
            serial: Some("ZA1B2C3D".into()),
            by_id: vec![
                "ata-ST4000_ZA1B2C3D".into(),
                "wwn-0x5000c500a1b2c3d4".into(),
            ],
            paths: vec!["/dev/sdb".into()],
        };
        for ok in [
            "naa.5000c500a1b2c3d4",
            "ZA1B2C3D",
            "wwn-0x5000c500a1b2c3d4",
            "0x5000C500A1B2C3D4",
            "/dev/disk/by-id/ata-ST4000_ZA1B2C3D",
            " ZA1B2C3D ",
        ] {
            assert!(id.matches(ok), "{ok}");
        }
        for no in ["/dev/sdb", "sdb", "", "ZA1B2C3", "naa.5000c500a1b2c3d5"] {
            assert!(!id.matches(no), "{no}");
        }
        assert_eq!(id.suggestion(), "naa.5000c500a1b2c3d4");
        let by_id_only = Identity {
            by_id: vec!["ata-X".into(), "wwn-0x1".into()],
            ..Identity::default()
        };
        assert_eq!(by_id_only.suggestion(), "wwn-0x1");
    }

    #[test]
    fn a_loop_device_is_named_by_its_path() {
        let id = Identity {
            paths: vec!["/dev/loop3".into()],
            ..Identity::default()
        };
        assert!(!id.has_stable_id());
        assert!(id.matches("/dev/loop3"));
        assert!(!id.matches("/dev/loop30"));
        assert_eq!(id.suggestion(), "/dev/loop3");
    }

    /// A device whose sysfs directory is `sys` (a temporary tree).
    fn fake(sys: &Path, path: &Path) -> BlockDevice {
        BlockDevice {
            path: path.to_path_buf(),
            major: 4095,
            minor: 1_000_000,
            name: "fake0".into(),
            sys: sys.to_path_buf(),
            size: 1 << 30,
        }
    }

    #[test]
    fn partitions_and_holders_come_from_sysfs() {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("fake0");
        let file = dir.path().join("dev");
        fs::write(&file, b"").unwrap();
        fs::create_dir_all(sys.join("holders")).unwrap();
        fs::create_dir_all(sys.join("queue")).unwrap();
        let dev = fake(&sys, &file);
        assert!(dev.partitions().is_empty());
        assert!(dev.uses().is_empty());

        for (n, minor) in [("fake0p2", "2"), ("fake0p1", "1")] {
            fs::create_dir_all(sys.join(n).join("holders")).unwrap();
            fs::write(sys.join(n).join("partition"), minor).unwrap();
            fs::write(sys.join(n).join("dev"), format!("4095:{minor}\n")).unwrap();
        }
        assert_eq!(
            dev.partitions(),
            [("fake0p1".into(), 4095, 1), ("fake0p2".into(), 4095, 2)]
        );
        assert!(dev.uses().is_empty());

        fs::create_dir(sys.join("fake0p2/holders/dm-3")).unwrap();
        assert_eq!(dev.uses(), ["has a partition held by dm-3 (fake0p2)"]);
        fs::create_dir(sys.join("holders/md0")).unwrap();
        assert_eq!(dev.uses()[0], "is held by md0");
    }

    #[test]
    fn a_regular_file_is_not_a_block_device() {
        let f = tempfile::NamedTempFile::new().unwrap();
        assert!(BlockDevice::open(f.path()).is_err());
        std::fs::write(f.path(), b"12345").unwrap();
        assert_eq!(usable_len(f.path()).unwrap(), 5);
    }
}
