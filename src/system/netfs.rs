//! A network file system's transport, from its mount options in
//! /proc/self/mountinfo: what the client and server negotiated (vers=,
//! proto=, rsize=, wsize=, addr=) is written back into the super block's
//! options by the kernel, so the options show the negotiated values.

use crate::model::environment::NetworkMount;
use crate::system::mountinfo::Mount;

/// File system types served over a network.
fn is_network(fs_type: &str) -> bool {
    matches!(
        fs_type,
        "nfs" | "nfs4" | "cifs" | "smb3" | "9p" | "ceph" | "afs" | "lustre" | "glusterfs"
    ) || fs_type.starts_with("fuse.glusterfs")
        || fs_type.starts_with("fuse.sshfs")
}

/// The transport of `mount`, `None` for a local file system.
pub fn describe(mount: &Mount) -> Option<NetworkMount> {
    if !is_network(&mount.fs_type) {
        return None;
    }
    let option = |key: &str| {
        mount
            .super_options
            .iter()
            .chain(&mount.mount_options)
            .find_map(|o| o.strip_prefix(key)?.strip_prefix('='))
            .map(str::to_string)
    };
    let size = |key: &str| option(key).and_then(|v| v.parse().ok());
    let has = |flag: &str| mount.super_options.iter().any(|o| o == flag);
    let protocol = option("proto")
        .or_else(|| option("trans"))
        .or_else(|| has("rdma").then(|| "rdma".to_string()));
    Some(NetworkMount {
        version: option("vers").or_else(|| option("version")),
        protocol,
        rsize: size("rsize"),
        wsize: size("wsize"),
        server: option("addr"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::mountinfo::parse;
    use std::path::Path;

    #[test]
    fn an_nfs_mount_line_gives_version_protocol_and_sizes() {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/environment/proc/self/mountinfo"),
        )
        .unwrap();
        let mounts = parse(&text);
        let nfs = mounts.iter().find(|m| m.fs_type == "nfs4").unwrap();
        assert_eq!(
            describe(nfs),
            Some(NetworkMount {
                version: Some("4.2".into()),
                protocol: Some("tcp".into()),
                rsize: Some(1_048_576),
                wsize: Some(1_048_576),
                server: Some("10.0.0.1".into()),
            })
        );
        let cifs = mounts.iter().find(|m| m.fs_type == "cifs").unwrap();
        let c = describe(cifs).unwrap();
        assert_eq!(c.version.as_deref(), Some("3.1.1"));
        assert_eq!(c.protocol, None);
        assert_eq!(c.rsize, Some(4_194_304));
        let ext4 = mounts.iter().find(|m| m.fs_type == "ext4").unwrap();
        assert_eq!(describe(ext4), None);
    }
}
