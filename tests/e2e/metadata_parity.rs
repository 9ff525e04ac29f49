//! `ioz fileop` and `ioz mdtest` make their peer's system calls, in the
//! peer's order, on the same kind of paths (issue 35): ioz under `strace
//! -f` beside the peers' own traces (tests/fixtures/metadata/*/strace-*),
//! each call normalised (the tree's own name, descriptors, buffers and the
//! stat structure read alike; the flags that only guard — O_EXCL,
//! O_NOFOLLOW, O_CLOEXEC — left out; fileop's modes left out, as ioz makes
//! nothing others may write), then the sequences of calls on the tree
//! compared whole.

use std::collections::HashSet;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use crate::fixtures::{IOZ, Test, data_file, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        fileop_makes_fileop_s_calls_in_fileop_s_order => [Strace],
        mdtest_makes_mdtest_s_calls_on_whole_paths => [Strace, Root],
        mdtest_makes_its_missing_directory_and_removes_it => [Strace],
        without_root_mdtest_s_walks_are_guarded_and_said => [Strace, Root],
    ]
}

/// One call as the comparison sees it: `name(args)`, normalised.
fn normal(line: &str, tree: &regex_lite::Tree, keep_modes: bool) -> Option<(String, String)> {
    // Drop a pid (strace -f) and a time (-tt), then split name(args) = ret.
    let mut rest = line.trim_start();
    while let Some((word, tail)) = rest.split_once(' ') {
        if word
            .chars()
            .all(|c| c.is_ascii_digit() || c == ':' || c == '.')
            && !word.is_empty()
        {
            rest = tail.trim_start();
        } else {
            break;
        }
    }
    let open = rest.find('(')?;
    let name = &rest[..open];
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || name.is_empty() {
        return None;
    }
    // strace pads short calls: `chdir("..")       = 0`.
    let eq = rest.rfind(" = ")?;
    let call = rest[..eq].trim_end();
    let close = call.strip_suffix(')')?.len();
    let args = &rest[open + 1..close];
    let ret = rest[eq + 3..].split_whitespace().next().unwrap_or("");
    let mut parts = split_args(args);
    // The stat structure, a getdents buffer's address, a write's bytes.
    parts.retain(|p| !p.starts_with('{') && !p.starts_with("0x"));
    let mut parts: Vec<String> = parts.into_iter().map(|p| tree.path(&p)).collect();
    let (name, parts) = match name {
        "creat" => {
            let mut p = vec!["AT_FDCWD".to_string(), parts[0].clone()];
            p.push("O_CREAT|O_TRUNC|O_WRONLY".into());
            p.extend(parts.into_iter().skip(1));
            ("openat".to_string(), p)
        }
        "write" | "read" => {
            // write(fd, "bytes", n): the bytes go, the length stays.
            let n = parts.last().cloned().unwrap_or_default();
            (name.to_string(), vec![parts[0].clone(), n])
        }
        _ => {
            for p in parts.iter_mut() {
                if p.contains("O_") && !p.starts_with('"') {
                    *p = flags(p);
                }
            }
            (name.to_string(), parts)
        }
    };
    let mut parts = parts;
    if !keep_modes {
        parts.retain(|p| {
            !(p.starts_with('0') && p.len() >= 3 && p.chars().all(|c| c.is_ascii_digit()))
        });
    }
    Some((format!("{name}({})", parts.join(", ")), ret.to_string()))
}

/// A call's arguments, split at the top level's commas.
fn split_args(args: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth, mut quoted) = (Vec::new(), String::new(), 0, false);
    let mut chars = args.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if quoted => {
                cur.push(c);
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                continue;
            }
            '"' => quoted = !quoted,
            '{' | '[' if !quoted => depth += 1,
            '}' | ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    // "/* 4 entries */" comments strace adds to a getdents buffer.
    out.into_iter()
        .map(|a| match a.find("/*") {
            Some(i) if a.starts_with("0x") => a[i..].trim().to_string(),
            _ => a,
        })
        .collect()
}

/// Open flags without the ones that only guard, in one order.
fn flags(f: &str) -> String {
    let guards = ["O_EXCL", "O_NOFOLLOW", "O_CLOEXEC", "O_LARGEFILE"];
    let mut kept: Vec<&str> = f.split('|').filter(|x| !guards.contains(x)).collect();
    kept.sort_unstable();
    kept.join("|")
}

/// Paths and descriptors made comparable: the tree's own directory
/// (`DIR/test-dir.0-0/` for mdtest, `DIR/ioz-mdtest.N/` for ioz) read as
/// `TREE/`, `//` as `/`, no trailing slash, any descriptor as `fd`.
mod regex_lite {
    pub struct Tree {
        /// Prefixes that end at the tree's directory, longest first.
        pub roots: Vec<String>,
    }

    impl Tree {
        pub fn path(&self, arg: &str) -> String {
            if let Some(inner) = arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')) {
                let mut p = inner.to_string();
                for root in &self.roots {
                    if let Some(rest) = p.strip_prefix(root.as_str()) {
                        p = format!("TREE/{rest}");
                        break;
                    }
                }
                while p.contains("//") {
                    p = p.replace("//", "/");
                }
                while p.len() > 1 && p.ends_with('/') {
                    p.pop();
                }
                return format!("\"{p}\"");
            }
            if !arg.is_empty() && arg.chars().all(|c| c.is_ascii_digit()) && arg.len() < 3 {
                return "fd".into();
            }
            arg.to_string()
        }
    }
}

/// Runs `ioz args…` in `dir` under strace (with strace's own `options`
/// first) and returns the trace; ioz must succeed.
fn traced(dir: &Path, args: &[&str], options: &[&str]) -> String {
    let trace = dir.join("trace.txt");
    let out = Command::new("strace")
        .args(options)
        .args(["-f", "-o"])
        .arg(&trace)
        .arg(IOZ)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ioz {} under strace failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = fs::read_to_string(&trace).unwrap();
    fs::remove_file(&trace).unwrap();
    text
}

/// The two sequences equal, or a message with where they part and around.
fn assert_same_calls(ours: &[String], theirs: &[String], what: &str) {
    let at = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    if at == ours.len() && at == theirs.len() {
        return;
    }
    let show = |s: &[String]| {
        s[at.saturating_sub(3)..(at + 5).min(s.len())]
            .iter()
            .map(|l| format!("    {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    panic!(
        "{what}: the calls part at call {at} of {} (ioz) and {} (peer)\n  ioz:\n{}\n  peer:\n{}",
        ours.len(),
        theirs.len(),
        show(ours),
        show(theirs)
    );
}

/// fileop's calls between its first mkdir and its last rmdir, ioz's own
/// (untimed) ones between tests left out: returning to the tree's
/// directory (fchdir, an O_PATH or absolute open, fcntl) and what it does
/// on the descriptors those opened.
fn fileop_calls(trace: &str, tree: &regex_lite::Tree, last_rmdir: &str) -> Vec<String> {
    let mut calls = Vec::new();
    let mut ours_fds: HashSet<String> = HashSet::new();
    let mut on = false;
    for line in trace.lines() {
        let Some((call, ret)) = normal(line, tree, false) else {
            continue;
        };
        let name = &call[..call.find('(').unwrap()];
        let raw_fd = line
            .split_once('(')
            .map(|(_, a)| a.split([',', ')']).next().unwrap_or("").trim().to_string())
            .unwrap_or_default();
        // ioz's own opens, from the start (the first test's walk opens
        // its return descriptor before the first mkdir).
        let own_open = name == "openat"
            && (call.contains("O_PATH") || call.contains("\"/") || call.contains("ioz-fileop"));
        if own_open {
            ours_fds.insert(ret.clone());
            continue;
        }
        if call.starts_with("mkdir(\"fileop_L1_0\"") {
            on = true;
        }
        if !on {
            continue;
        }
        if matches!(name, "fchdir" | "fcntl") {
            continue;
        }
        if matches!(name, "close" | "newfstatat") && ours_fds.contains(&raw_fd) {
            if name == "close" {
                ours_fds.remove(&raw_fd);
            }
            continue;
        }
        calls.push(call);
    }
    // To the last rmdir of the tree's last directory (the delete test's).
    let end = format!("rmdir(\"{last_rmdir}\")");
    let last = calls.iter().rposition(|c| *c == end).map_or(0, |at| at + 1);
    calls.truncate(last);
    calls
}

fn fileop_makes_fileop_s_calls_in_fileop_s_order() {
    let dir = tempfile::tempdir().unwrap();
    let trace = traced(dir.path(), &["fileop", "-f", "2", "-d", "."], &[]);
    let tree = regex_lite::Tree { roots: Vec::new() };
    let ours = fileop_calls(&trace, &tree, "fileop_L1_1");
    let reference = fs::read_to_string(data_file("metadata/fileop/strace-f2.txt")).unwrap();
    let theirs = fileop_calls(&reference, &tree, "fileop_L1_1");
    assert_eq!(
        theirs.len(),
        355 - 3,
        "the reference's calls, but its last write and exit"
    );
    assert_same_calls(&ours, &theirs, "fileop -f 2");
    // Every file is fsynced once, and clean before the next test.
    assert_eq!(ours.iter().filter(|c| c.starts_with("fsync(")).count(), 8);
}

/// The reference trace's mdtest command (but its -d).
const REFERENCE_MDTEST: &[&str] = &["mdtest", "-n", "12", "-z", "1", "-b", "2"];

/// mdtest's calls on its tree: every call whose path lies in it.
fn mdtest_calls(trace: &str, tree: &regex_lite::Tree) -> Vec<String> {
    trace
        .lines()
        .filter_map(|l| normal(l, tree, true))
        .map(|(call, _)| call)
        .filter(|c| c.contains("\"TREE/mdtest_tree"))
        .collect()
}

fn mdtest_makes_mdtest_s_calls_on_whole_paths() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("md");
    let trace = traced(
        dir.path(),
        &[REFERENCE_MDTEST, &["-d", md.to_str().unwrap()]].concat(),
        &[],
    );
    let pid_root = trace
        .lines()
        .find_map(|l| l.split_once(&format!("{}/ioz-mdtest.", md.display())))
        .map(|(_, rest)| rest.split(['/', '"']).next().unwrap().to_string())
        .expect("the tree's directory named in a whole path");
    let ours_tree = regex_lite::Tree {
        roots: vec![format!("{}/ioz-mdtest.{pid_root}/", md.display())],
    };
    let ours = mdtest_calls(&trace, &ours_tree);
    let reference = fs::read_to_string(data_file("metadata/mdtest/strace-n12-z1-b2.txt")).unwrap();
    let theirs_tree = regex_lite::Tree {
        roots: vec!["/data/bench/md/test-dir.0-0/".into()],
    };
    let theirs = mdtest_calls(&reference, &theirs_tree);
    assert_eq!(
        theirs.len(),
        3 + 12 * 8 + 3,
        "the reference's calls on its tree"
    );
    assert_same_calls(&ours, &theirs, "mdtest -n 12 -z 1 -b 2");
    // Whole paths: each call names its item from -d on, as mdtest does.
    assert!(
        trace.contains(&format!(
            "newfstatat(AT_FDCWD, \"{}/ioz-mdtest.{pid_root}/mdtest_tree.0/mdtest_tree.2/file.mdtest.0.11\"",
            md.display()
        )),
        "stat names the whole path"
    );
}

fn mdtest_makes_its_missing_directory_and_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    // Refused when its parent is missing too…
    let refused = Command::new(IOZ)
        .args(["mdtest", "-n", "4", "-d", "not/yet"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("-d not/yet is missing and cannot be made"),
        "{said}"
    );
    // …and made, then removed, when only it is missing.
    fs::create_dir(dir.path().join("not")).unwrap();
    let trace = traced(dir.path(), &["mdtest", "-n", "4", "-d", "not/yet"], &[]);
    assert!(
        trace.contains("mkdirat(") && trace.contains("\"yet\", 0755)"),
        "-d made"
    );
    assert!(
        trace.contains("unlinkat(") && trace.contains("\"yet\", AT_REMOVEDIR)"),
        "-d removed"
    );
    assert!(
        !dir.path().join("not/yet").exists(),
        "-d, made by ioz, is gone"
    );
    assert!(
        dir.path().join("not").is_dir(),
        "its parent, the user's, stays"
    );
    // An -d that was there stays there.
    fs::create_dir(dir.path().join("not/there")).unwrap();
    traced(dir.path(), &["mdtest", "-n", "4", "-d", "not/there"], &[]);
    assert!(dir.path().join("not/there").is_dir());
    assert_eq!(
        fs::read_dir(dir.path().join("not/there")).unwrap().count(),
        0
    );
}

fn without_root_mdtest_s_walks_are_guarded_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("md");
    fs::create_dir(&md).unwrap();
    // Anyone may enter the temporary directory; nobody owns md.
    fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let status = Command::new("chown")
        .args(["nobody", md.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(status.success());
    let as_nobody = ["-u", "nobody"];
    let trace = traced(
        dir.path(),
        &[REFERENCE_MDTEST, &["-d", md.to_str().unwrap()]].concat(),
        &as_nobody,
    );
    // No private view without root: each walk by openat2, no link followed.
    assert!(!trace.contains("open_tree("), "no private view for nobody");
    // (The tree's removal at the end walks with RESOLVE_BENEATH too.)
    let guarded = trace
        .lines()
        .filter(|l| {
            l.contains("openat2(") && l.contains("resolve=RESOLVE_NO_XDEV|RESOLVE_NO_SYMLINKS}")
        })
        .count();
    // 3 tree dirs + 12 × (mkdir, stat, rmdir, create, stat, read, unlink)
    // + 12 renames × 2 directories + 3 tree removals.
    assert_eq!(guarded, 3 + 12 * 7 + 12 * 2 + 3, "every walk guarded");
    assert_eq!(fs::read_dir(&md).unwrap().count(), 0, "the tree is gone");
    // The run says so, in one line.
    let out = Command::new(IOZ)
        .args(["mdtest", "-n", "4", "-d", md.to_str().unwrap()])
        .uid(65534)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let said: Vec<&str> = text.lines().filter(|l| l.contains("openat2")).collect();
    assert_eq!(said.len(), 1, "{text}");
    assert!(said[0].contains("ioz differs"), "{}", said[0]);
}
