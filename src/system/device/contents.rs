//! What a device holds: the signatures found on it (blkid's, then our own
//! magic-number checks for what blkid did not report) and its partitions.

use std::fs;
use std::io;
use std::os::unix::fs::FileExt;

use super::blkid::blkid_probe;
use super::magic::{PROBE_BYTES, is_md_magic, magic_signatures, md_end_offsets};
use super::signature::{Kind, Signature, merge};
use super::{BlockDevice, join_and};

impl BlockDevice {
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
                magic.push(Signature::new(
                    Kind::Raid,
                    "a Linux software RAID (md) member",
                ));
                break;
            }
        }
        Ok(merge(blkid_probe(&self.path).unwrap_or_default(), magic))
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
