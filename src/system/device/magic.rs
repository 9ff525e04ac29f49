//! Signatures found by their magic numbers in a device's first bytes (and
//! md superblocks near its end): pure functions over bytes, for when blkid
//! is absent and for the kinds it does not report.

use super::signature::{Kind, Signature};

/// Bytes read from the start of a device to look for signatures: enough for
/// the btrfs superblock at 64 KiB and swap headers of 64 KiB pages.
pub const PROBE_BYTES: usize = 68 * 1024;

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
        out.push(Signature::new(
            Kind::PartitionTable,
            "a GPT partition table",
        ));
    } else if has_mbr(buf) {
        out.push(Signature::new(
            Kind::PartitionTable,
            "a dos (MBR) partition table",
        ));
    }
    if at(buf, 1080, &[0x53, 0xef]) {
        out.push(Signature::new(
            Kind::FileSystem,
            uuid_note("an ext2/3/4 file system", raw_uuid(buf, 1024 + 0x68)),
        ));
    }
    if at(buf, 0, b"XFSB") {
        out.push(Signature::new(
            Kind::FileSystem,
            uuid_note("an xfs file system", raw_uuid(buf, 32)),
        ));
    }
    if at(buf, 65600, b"_BHRfS_M") {
        out.push(Signature::new(
            Kind::FileSystem,
            uuid_note("a btrfs file system", raw_uuid(buf, 65536 + 0x20)),
        ));
    }
    // The swap header ends its first page; pages of 4 to 64 KiB.
    for page in [4096usize, 8192, 16384, 65536] {
        if at(buf, page - 10, b"SWAPSPACE2") {
            out.push(Signature::new(
                Kind::Swap,
                uuid_note("a swap area", raw_uuid(buf, 1024 + 12)),
            ));
            break;
        }
        if at(buf, page - 10, b"SWAP-SPACE") {
            out.push(Signature::new(Kind::Swap, "a swap area (old format)"));
            break;
        }
    }
    if at(buf, 0, b"LUKS\xba\xbe") {
        out.push(Signature::new(
            Kind::Encrypted,
            uuid_note("a LUKS encrypted volume", text_field(buf, 168, 40)),
        ));
    }
    // The LVM label sits in one of the first four sectors (the second by default).
    if (0..4).any(|s| at(buf, s * 512, b"LABELONE")) {
        out.push(Signature::new(Kind::Lvm, "an LVM physical volume"));
    }
    // md superblocks 1.1 (at 0) and 1.2 (at 4 KiB); 0.90 and 1.0 sit at the end.
    if [0usize, 4096]
        .iter()
        .any(|&o| buf.get(o..).is_some_and(is_md_magic))
    {
        out.push(Signature::new(
            Kind::Raid,
            "a Linux software RAID (md) member",
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

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
            [Signature::new(
                Kind::PartitionTable,
                "a dos (MBR) partition table"
            )]
        );
        // Boot code, not a table: a boot flag other than 0 or 0x80.
        let code = with(&[(510, &[0x55, 0xaa]), (446, &[0x33, 0, 0, 0, 0x83])]);
        assert!(magic_signatures(&code).is_empty());
        // A GPT's protective MBR is reported once, as GPT.
        let gpt = with(&[(510, &[0x55, 0xaa]), (446 + 4, &[0xee]), (512, b"EFI PART")]);
        assert_eq!(
            magic_signatures(&gpt),
            [Signature::new(
                Kind::PartitionTable,
                "a GPT partition table"
            )]
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
}
