//! What a signature on a device says it holds. A leaf: blkid and the
//! magic-number checks both produce these, and neither is needed to read them.

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

impl Signature {
    pub fn new(kind: Kind, what: impl Into<String>) -> Signature {
        Signature {
            kind,
            what: what.into(),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blkid_wins_over_magic_of_the_same_kind() {
        let blkid = vec![Signature::new(Kind::FileSystem, "an ext4 file system")];
        let magic = vec![
            Signature::new(Kind::FileSystem, "an ext2/3/4 file system"),
            Signature::new(Kind::PartitionTable, "a GPT partition table"),
        ];
        let m = merge(blkid, magic);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].what, "an ext4 file system");
        assert_eq!(m[1].kind, Kind::PartitionTable);
    }
}
