//! Whether the machine is virtual, as the system reports it: the files
//! systemd-detect-virt reads (nothing is run). A hypervisor from
//! /sys/hypervisor, the device tree, or cpuinfo's `hypervisor` flag and the
//! DMI vendor; a container from /.dockerenv, /run/.containerenv,
//! /run/systemd/container, /proc/1/cgroup or the kernel's release (WSL).
//! Each answer names the file it came from.

use std::fs;
use std::path::Path;

use crate::system::sysfs::read_attr;

/// DMI vendors (sys_vendor or product_name prefixes) of hypervisors, and
/// their names.
const DMI_VENDORS: [(&str, &str); 11] = [
    ("KVM", "KVM"),
    ("QEMU", "QEMU"),
    ("VMware", "VMware"),
    ("VMW", "VMware"),
    ("innotek GmbH", "VirtualBox"),
    ("Oracle Corporation", "VirtualBox"),
    ("Xen", "Xen"),
    ("Bochs", "Bochs"),
    ("Parallels", "Parallels"),
    ("BHYVE", "bhyve"),
    ("Amazon EC2", "Amazon EC2"),
];

/// The hypervisor, `"none reported"`, or `None` when nothing could be read.
pub fn hypervisor(root: &Path) -> Option<String> {
    if let Some(kind) = read_attr(root.join("sys/hypervisor/type")) {
        return Some(format!("{kind} (/sys/hypervisor/type)"));
    }
    if let Some(compat) = read_attr(root.join("proc/device-tree/hypervisor/compatible")) {
        let compat = compat.trim_end_matches('\0').replace('\0', ", ");
        return Some(format!("{compat} (device tree)"));
    }
    let cpuinfo = fs::read_to_string(root.join("proc/cpuinfo")).ok()?;
    let flagged = cpuinfo.lines().any(|l| {
        l.split_once(':').is_some_and(|(k, v)| {
            matches!(k.trim(), "flags" | "Features")
                && v.split_whitespace().any(|f| f == "hypervisor")
        })
    });
    let dmi = root.join("sys/class/dmi/id");
    let vendor = ["sys_vendor", "product_name", "bios_vendor"]
        .iter()
        .filter_map(|f| read_attr(dmi.join(f)))
        .find_map(|v| {
            DMI_VENDORS
                .iter()
                .find(|(prefix, _)| v.starts_with(prefix))
                .map(|(_, name)| *name)
        });
    let clock = paravirtual_clock(root);
    Some(match (flagged, vendor, clock) {
        (true, Some(v), _) => format!("{v} (cpuinfo hypervisor flag, DMI vendor)"),
        (true, None, Some((clock, who))) => {
            format!("{who} (cpuinfo hypervisor flag, {clock} clocksource)")
        }
        (true, None, None) => "yes, vendor not reported (cpuinfo hypervisor flag)".to_string(),
        (false, Some(v), _) => format!("{v} (DMI vendor)"),
        (false, None, _) => "none reported".to_string(),
    })
}

/// Clocksources only a hypervisor offers, and whose they are.
const PARAVIRTUAL_CLOCKS: [(&str, &str); 4] = [
    ("kvm-clock", "KVM"),
    ("xen", "Xen"),
    ("hyperv_clocksource_tsc_page", "Hyper-V"),
    ("hyperv_clocksource_msr", "Hyper-V"),
];

/// The paravirtual clocksource the kernel offers and whose it is (a guest
/// without DMI tables, such as a microVM, still has one).
fn paravirtual_clock(root: &Path) -> Option<(&'static str, &'static str)> {
    let available =
        read_attr(root.join("sys/devices/system/clocksource/clocksource0/available_clocksource"))?;
    available.split_whitespace().find_map(|c| {
        PARAVIRTUAL_CLOCKS
            .iter()
            .find(|(name, _)| *name == c)
            .copied()
    })
}

/// The container, `"none reported"`, or `None` when nothing could be read.
pub fn container(root: &Path) -> Option<String> {
    if root.join(".dockerenv").exists() {
        return Some("docker (/.dockerenv)".to_string());
    }
    if root.join("run/.containerenv").exists() {
        return Some("podman (/run/.containerenv)".to_string());
    }
    if let Some(kind) = read_attr(root.join("run/systemd/container")) {
        return Some(format!("{kind} (/run/systemd/container)"));
    }
    if let Some(release) = read_attr(root.join("proc/sys/kernel/osrelease"))
        && (release.contains("Microsoft") || release.contains("microsoft"))
    {
        return Some("WSL (/proc/sys/kernel/osrelease)".to_string());
    }
    if root.join("proc/vz").exists() && !root.join("proc/bc").exists() {
        return Some("OpenVZ (/proc/vz)".to_string());
    }
    let cgroup = fs::read_to_string(root.join("proc/1/cgroup")).ok()?;
    let kinds = [
        ("/docker", "docker"),
        ("/libpod", "podman"),
        ("kubepods", "kubernetes"),
        ("/lxc", "lxc"),
    ];
    Some(
        kinds
            .iter()
            .find(|(mark, _)| cgroup.contains(mark))
            .map_or("none reported".to_string(), |(_, kind)| {
                format!("{kind} (/proc/1/cgroup)")
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/environment")
    }

    #[test]
    fn the_fixture_guest_is_qemu_in_docker() {
        assert_eq!(
            hypervisor(&fixture()).as_deref(),
            Some("QEMU (cpuinfo hypervisor flag, DMI vendor)")
        );
        assert_eq!(
            container(&fixture()).as_deref(),
            Some("docker (/.dockerenv)")
        );
    }

    #[test]
    fn each_source_is_named_and_nothing_readable_is_unknown() {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        assert_eq!(hypervisor(r), None);
        assert_eq!(container(r), None);
        fs::create_dir_all(r.join("proc/1")).unwrap();
        fs::write(
            r.join("proc/cpuinfo"),
            "processor\t: 0\nflags\t\t: fpu vme\n",
        )
        .unwrap();
        fs::write(r.join("proc/1/cgroup"), "0::/\n").unwrap();
        assert_eq!(hypervisor(r).as_deref(), Some("none reported"));
        assert_eq!(container(r).as_deref(), Some("none reported"));
        fs::write(r.join("proc/cpuinfo"), "flags\t\t: fpu hypervisor\n").unwrap();
        assert_eq!(
            hypervisor(r).as_deref(),
            Some("yes, vendor not reported (cpuinfo hypervisor flag)")
        );
        let clocks = r.join("sys/devices/system/clocksource/clocksource0");
        fs::create_dir_all(&clocks).unwrap();
        fs::write(clocks.join("available_clocksource"), "tsc kvm-clock \n").unwrap();
        assert_eq!(
            hypervisor(r).as_deref(),
            Some("KVM (cpuinfo hypervisor flag, kvm-clock clocksource)")
        );
        fs::write(r.join("proc/1/cgroup"), "0::/kubepods/besteffort/pod1\n").unwrap();
        assert_eq!(container(r).as_deref(), Some("kubernetes (/proc/1/cgroup)"));
        fs::create_dir_all(r.join("sys/hypervisor")).unwrap();
        fs::write(r.join("sys/hypervisor/type"), "xen\n").unwrap();
        assert_eq!(hypervisor(r).as_deref(), Some("xen (/sys/hypervisor/type)"));
    }
}
