//! The checks of test files and devices, and what ioz does to its own.

use std::fs;
use std::path::Path;

use super::device::{DeviceNeed, bytes_needed};
use super::*;
use crate::cli::test_config as config;

#[test]
fn a_missing_file_is_created_marked_and_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.tmp");
    let mut t = TargetFile::check(&path, false).unwrap();
    t.claim().unwrap();
    assert!(path.exists());
    // Another run is refused while this one holds it…
    let err = TargetFile::check(&path, false).unwrap_err();
    assert!(err.to_string().contains("is in use"), "{err}");
    assert_eq!(err.exit(), crate::error::Exit::Usage);
    // …and recognises it as ioz's once it is free (-w, a crash).
    let lock = t.held.as_mut().unwrap().lock.take();
    drop(lock);
    assert!(TargetFile::check(&path, false).is_ok());
    t.remove().unwrap();
    assert!(!path.exists());
}

#[test]
fn a_foreign_file_is_refused_and_never_removed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mine.txt");
    fs::write(&path, b"precious").unwrap();
    let err = TargetFile::check(&path, false).unwrap_err();
    assert!(err.to_string().contains("was not created by ioz"), "{err}");
    assert_eq!(err.exit(), crate::error::Exit::Usage);
    assert_eq!(fs::read(&path).unwrap(), b"precious");
    let forced = TargetFile::check(&path, true).unwrap();
    assert!(forced.owned);
    // Never claimed, never removed.
    let mut forced = forced;
    forced.remove().unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"precious");
}

#[test]
fn directories_and_character_devices_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(TargetFile::check(dir.path(), true).is_err());
    let err = TargetFile::check(Path::new("/dev/null"), true).unwrap_err();
    assert!(err.to_string().contains("character device"), "{err}");
    // A link is not followed to a character device: it is refused as a link.
    let link = dir.path().join("null-link");
    std::os::unix::fs::symlink("/dev/null", &link).unwrap();
    let err = TargetFile::check(&link, true).unwrap_err();
    assert!(
        err.to_string().contains("exists and is not a regular file"),
        "{err}"
    );
}

const M: u64 = 1 << 20;

#[test]
fn a_device_needs_the_largest_file_size() {
    let c = config(&["-s", "8m", "-f", "/dev/x"]);
    let need = bytes_needed(&c, |p| p == Path::new("/dev/x"));
    assert_eq!(
        need,
        DeviceNeed {
            file_bytes: 8 * M,
            files: 1
        }
    );
    let c = config(&["-a", "-g", "32m", "-f", "/dev/x"]);
    assert_eq!(bytes_needed(&c, |_| true).total(), 32 * M);
    assert_eq!(bytes_needed(&c, |_| false).total(), 0);
}

#[test]
fn workers_on_one_device_multiply_its_need() {
    let c = config(&["-t", "3", "-s", "8m", "-F", "/dev/x", "/dev/y", "/dev/x"]);
    let need = bytes_needed(&c, |p| p == Path::new("/dev/x"));
    assert_eq!(
        need,
        DeviceNeed {
            file_bytes: 8 * M,
            files: 2
        }
    );
    // -+k divides the size among the workers; the largest count is not always the most.
    let c = config(&[
        "-l", "1", "-u", "2", "-+k", "-s", "8m", "-F", "/dev/x", "/dev/x",
    ]);
    assert_eq!(bytes_needed(&c, |_| true).total(), 8 * M);
    // Workers sharing one file (-+V) write it once.
    let c = config(&["-t", "4", "-+V", "-s", "8m", "-F", "/dev/x"]);
    assert_eq!(
        bytes_needed(&c, |_| true),
        DeviceNeed {
            file_bytes: 8 * M,
            files: 1
        }
    );
}

#[test]
fn a_missing_name_among_the_devices_is_refused() {
    let err = TargetFile::check(Path::new("/dev/ioz-no-such-disk"), true).unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
    assert!(!Path::new("/dev/ioz-no-such-disk").exists());
    assert!(TargetFile::check(Path::new("/dev/shm/ioz-no-such-file"), false).is_ok());
}

#[test]
fn destroy_data_must_name_a_device_of_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.tmp");
    let path_arg = path.to_string_lossy().into_owned();
    let c = config(&["-s", "64k", "-f", &path_arg, "--destroy-data=/dev/sdz"]);
    let err = TargetFile::check_for_run(&path, &c).unwrap_err();
    assert!(err.to_string().contains("names no device"), "{err}");
    assert_eq!(err.exit(), crate::error::Exit::Usage);
    assert!(check_targets(&c).is_err());
    assert!(check_targets(&config(&["-s", "64k", "-f", &path_arg])).is_ok());
    assert!(!path.exists());
}

fn claimed(dir: &Path, name: &str) -> (PathBuf, TargetFile) {
    let path = dir.join(name);
    let mut t = TargetFile::check(&path, false).unwrap();
    t.claim().unwrap();
    (path, t)
}

#[test]
fn a_file_put_in_place_of_ioz_s_is_never_removed() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut t) = claimed(dir.path(), "t.tmp");
    let expected = t.expected().unwrap();
    assert!(!expected.follow_links);
    assert!(t.is_reached_by(&path));
    // Someone else's file takes the name.
    let theirs = dir.path().join("theirs");
    fs::write(&theirs, b"precious").unwrap();
    fs::rename(&theirs, &path).unwrap();
    assert!(!t.is_reached_by(&path));
    let Err(RemoveError::Changed(e)) = t.remove() else {
        panic!("removed a file that is not ioz's");
    };
    let line = e.to_string();
    assert!(
        line.contains("changed under ioz") && line.contains("t.tmp"),
        "{line}"
    );
    assert_eq!(fs::read(&path).unwrap(), b"precious");
    // A link in its place: not followed, not removed.
    let (path, mut t) = claimed(dir.path(), "u.tmp");
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(dir.path().join("t.tmp"), &path).unwrap();
    let Err(RemoveError::Changed(e)) = t.remove() else {
        panic!("removed a link that is not ioz's");
    };
    assert!(e.to_string().contains("found a symbolic link"), "{e}");
    assert!(
        fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // Gone already: nothing to do.
    let (path, mut t) = claimed(dir.path(), "v.tmp");
    fs::remove_file(&path).unwrap();
    t.remove().unwrap();
}

#[test]
fn checks_before_the_run_catch_what_the_run_would_fail_on() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |p: PathBuf| TargetFile::check(&p, false).unwrap_err().to_string();
    let e = refused(dir.path().join("nodir/x"));
    assert!(
        e.contains("the directory") && e.contains("does not exist"),
        "{e}"
    );
    let e = refused(dir.path().join("x/"));
    assert!(e.contains("ends in a slash"), "{e}");
    fs::write(dir.path().join("plain"), b"").unwrap();
    let e = refused(dir.path().join("plain/x"));
    assert!(e.contains("is not a directory"), "{e}");
    assert_eq!(list(dir.path()), ["plain"]);
}

#[test]
fn a_mark_set_through_another_door_is_checked_again_at_claim() {
    let dir = tempfile::tempdir().unwrap();
    let (path, mut t) = claimed(dir.path(), "t.tmp");
    // Keep it (-w) and let go, as a finished run does.
    let lock = t.held.as_mut().unwrap().lock.take();
    drop(lock);
    let Ok(mut again) = TargetFile::check(&path, false) else {
        // No user xattrs here: the kept file is not recognised at all.
        return;
    };
    // Between the check and the claim, the file becomes one anyone may write.
    let mut perms = fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o666);
    fs::set_permissions(&path, perms).unwrap();
    let e = again.claim().unwrap_err();
    assert!(e.to_string().contains("since it was checked"), "{e}");
}

fn list(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_plus_e_file_must_hold_what_every_worker_reads() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    fs::write(&a, vec![0u8; 64 << 10]).unwrap();
    fs::write(&b, b"abc").unwrap();
    let (a_arg, b_arg) = (a.to_str().unwrap(), b.to_str().unwrap());
    let single = config(&["-+E", "-i", "1", "-s", "64k", "-f", a_arg]);
    assert!(check_targets(&single).is_ok());
    let e = check_targets(&config(&["-+E", "-i", "1", "-s", "64k", "-f", b_arg])).unwrap_err();
    assert_eq!(e.exit(), crate::error::Exit::Usage);
    assert!(
        e.to_string()
            .contains("holds 3 bytes but the test reads 65536"),
        "{e}"
    );
    // Throughput: each worker's file, at its size (-+k divides it).
    let workers = config(&["-t", "2", "-+E", "-i", "1", "-s", "64k", "-F", a_arg, b_arg]);
    let e = check_targets(&workers).unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("-+E: {b_arg} holds 3 bytes")),
        "{e}"
    );
    fs::write(&b, vec![0u8; 32 << 10]).unwrap();
    let shared = config(&[
        "-t", "2", "-+k", "-+E", "-i", "1", "-s", "64k", "-F", a_arg, b_arg,
    ]);
    assert!(check_targets(&shared).is_ok());
    assert!(check_targets(&workers).is_err());
}

#[test]
fn a_rank_joins_only_the_file_rank_0_shares_and_never_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("f.0");
    let other = dir.path().join("g.0");
    let run = config(&["-t", "2", "-+V", "-s", "64k", "-r", "4k", "-i", "0"]);
    let mut made = TargetFile::check(&shared, false).unwrap();
    made.claim().unwrap();
    fs::write(&other, b"someone's").unwrap();
    let identity = made.expected().unwrap().identity;
    // The same file, on rank 0's host or another (by inode), is joined
    // without a lock of its own: rank 0 holds the run's.
    let mut joined = TargetFile::join(&shared, &run, identity, true).unwrap();
    assert_eq!(joined.expected(), made.expected());
    assert!(TargetFile::join(&shared, &run, identity, false).is_ok());
    // Another file is not.
    for same_host in [true, false] {
        let err = TargetFile::join(&other, &run, identity, same_host).unwrap_err();
        assert!(
            err.to_string().contains("is not the file rank 0 shares"),
            "{err}"
        );
    }
    let err = TargetFile::join(&dir.path().join("h.0"), &run, identity, true).unwrap_err();
    assert!(err.to_string().contains("it is not there"), "{err}");
    // From another host an inode number alone is not enough: a file without
    // ioz's mark (here the very inode, as a foreign file of another file
    // system could have) is refused; on rank 0's host device and inode are.
    let unmarked = std::os::unix::fs::MetadataExt::ino(&fs::metadata(&other).unwrap());
    let foreign = FileIdentity::File {
        dev: std::os::unix::fs::MetadataExt::dev(&fs::metadata(&other).unwrap()),
        ino: unmarked,
    };
    let err = TargetFile::join(&other, &run, foreign, false).unwrap_err();
    assert!(err.to_string().contains("not ioz's mark"), "{err}");
    assert!(TargetFile::join(&other, &run, foreign, true).is_ok());
    // Only rank 0 removes it.
    joined.remove().unwrap();
    assert!(shared.exists());
    made.remove().unwrap();
    assert!(!shared.exists());
    assert_eq!(fs::read(&other).unwrap(), b"someone's");
}
