//! A network file system's transport, from its mount options in
//! /proc/self/mountinfo: what the client and server negotiated (vers=,
//! proto=, rsize=, wsize=, addr=) is written back into the super block's
//! options by the kernel, so the options show the negotiated values.
//! A file system in user space (FUSE: sshfs, fuse-nfs, …) shows none of
//! them; it is known as a network one by its name, or by a mount source
//! that names a server (`host:path`, `user@host:path`, `nfs://host/path`),
//! which is then the server.

use crate::model::environment::NetworkMount;
use crate::system::mountinfo::Mount;

/// File systems in user space that reach a server (`fuse.<name>`), even
/// when their mount source does not name it.
const FUSE_NETWORK: &[&str] = &[
    "sshfs",
    "glusterfs",
    "fuse-nfs",
    "nfs",
    "ceph-fuse",
    "s3fs",
    "rclone",
    "gcsfuse",
    "juicefs",
    "mfs",
];

/// File system types served over a network; `source`: the mount's.
fn is_network(fs_type: &str, source: &str) -> bool {
    if matches!(
        fs_type,
        "nfs" | "nfs4" | "cifs" | "smb3" | "9p" | "ceph" | "afs" | "lustre" | "glusterfs"
    ) {
        return true;
    }
    match fs_type.strip_prefix("fuse.") {
        Some(name) => FUSE_NETWORK.contains(&name) || server_of_source(source).is_some(),
        None => false,
    }
}

/// The server a mount source names: `nfs://host[:port]/path`,
/// `[user@]host:path`, `[user@][v6 address]:path`; `None` for a local
/// source (a device, a path, a name such as `tmpfs`).
fn server_of_source(source: &str) -> Option<String> {
    let authority = match source.split_once("://") {
        Some((scheme, rest)) if !scheme.is_empty() => rest.split('/').next().unwrap_or_default(),
        _ if source.starts_with('/') => return None,
        // The host is everything before the first colon outside brackets.
        _ if source.contains('[') => &source[..source.find("]:")? + 1],
        _ => &source[..source.find(':')?],
    };
    let host = authority.rsplit('@').next().unwrap_or_default();
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        // Without brackets a URL's authority may end in :port.
        None => host.split(':').next().unwrap_or_default(),
    };
    (!host.is_empty() && !host.contains('/')).then(|| host.to_string())
}

/// The transport of `mount`, `None` for a local file system.
pub fn describe(mount: &Mount) -> Option<NetworkMount> {
    let source = mount.source.to_string_lossy();
    if !is_network(&mount.fs_type, &source) {
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
        server: option("addr").or_else(|| server_of_source(&source)),
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

    /// A mountinfo line of type `fs_type` from `source` on /mnt/x.
    fn mount(fs_type: &str, source: &str) -> Mount {
        parse(&format!(
            "90 29 0:77 / /mnt/x rw,nosuid,nodev,relatime shared:1 - {fs_type} {source} \
             rw,user_id=0,group_id=0\n"
        ))
        .remove(0)
    }

    #[test]
    fn a_fuse_file_system_naming_a_server_is_a_network_one() {
        let server =
            |fs_type: &str, source: &str| describe(&mount(fs_type, source)).map(|n| n.server);
        // sshfs: the server from the source, user and path aside.
        assert_eq!(
            server("fuse.sshfs", "alice@storage1:/export/data"),
            Some(Some("storage1".into()))
        );
        // fuse-nfs under its own name, its source a URL or just its name.
        assert_eq!(
            server("fuse.fuse-nfs", "nfs://10.0.0.7:2049/export"),
            Some(Some("10.0.0.7".into()))
        );
        assert_eq!(server("fuse.fuse-nfs", "fuse-nfs"), Some(None));
        // Any other FUSE file system whose source names a host.
        assert_eq!(
            server("fuse.myfs", "[fd00::7]:/vol"),
            Some(Some("fd00::7".into()))
        );
        assert_eq!(server("fuse.myfs", "srv:"), Some(Some("srv".into())));
        // Local ones: a FUSE file system over a path or a name, tmpfs.
        assert_eq!(server("fuse.bindfs", "/srv/data"), None);
        assert_eq!(server("fuse.lxcfs", "lxcfs"), None);
        assert_eq!(server("tmpfs", "tmpfs"), None);
        assert_eq!(server("ext4", "/dev/vda1"), None);
    }
}
