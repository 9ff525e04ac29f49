//! blkid's low-level probe of a device and how its findings are described.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use super::signature::{Kind, Signature};

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
        out.push(Signature::new(
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
        out.push(Signature::new(
            kind,
            with_uuid(what, "UUID", fields.get("UUID")),
        ));
    }
    out
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
        Some(8) => Some(vec![Signature::new(
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
            [Signature::new(
                Kind::FileSystem,
                "an ext4 file system (UUID 8226)"
            )]
        );
        let s = export("TYPE=btrfs\nUSAGE=filesystem\n");
        assert_eq!(s[0].what, "a btrfs file system");
        let s = export("UUID=f9f7\nVERSION=1\nTYPE=swap\nUSAGE=other\n");
        assert_eq!(s, [Signature::new(Kind::Swap, "a swap area (UUID f9f7)")]);
        let s = export("TYPE=LVM2_member\nUSAGE=raid\n");
        assert_eq!(s[0].kind, Kind::Lvm);
        assert!(s[0].what.contains("LVM physical volume"));
        let s = export("TYPE=linux_raid_member\nUSAGE=raid\n");
        assert_eq!(s[0].kind, Kind::Raid);
        let s = export("TYPE=crypto_LUKS\nUSAGE=crypto\nUUID=1-2\n");
        assert_eq!(
            s,
            [Signature::new(
                Kind::Encrypted,
                "a LUKS encrypted volume (UUID 1-2)"
            )]
        );
        let s = export("PTUUID=5a1c\nPTTYPE=gpt\n");
        assert_eq!(
            s,
            [Signature::new(
                Kind::PartitionTable,
                "a GPT partition table (PTUUID 5a1c)"
            )]
        );
        let s = export("PTTYPE=dos\n");
        assert_eq!(s[0].what, "a dos (MBR) partition table");
        let s = export("TYPE=zonefs\n");
        assert_eq!(s, [Signature::new(Kind::Other, "a zonefs signature")]);
        assert!(export("DEVNAME=/dev/loop0\n").is_empty());
    }
}
