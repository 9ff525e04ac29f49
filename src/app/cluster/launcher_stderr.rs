//! The `-+m` launcher's standard error, passed on to ioz's as it comes
//! (the ranks' lines arrive through it too), the last of it kept; and,
//! when the launch failed, the host it could not reach named in one line
//! of ioz's own — the launcher's box says that some daemon could not be
//! started, and only the remote shell's line before it says where.

use std::io::{self, Read, Write};
use std::process::ChildStderr;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::clients::Client;

/// How much of the launcher's last words is kept.
const TAIL_BYTES: usize = 64 << 10;

/// How long the rest of its output is waited for once it has ended (a
/// rank that outlives it could keep the pipe open).
const DRAIN_WAIT: Duration = Duration::from_secs(2);

/// What the launchers print when a host's daemon or proxy could not be
/// started (Open MPI's boxes, MPICH's Hydra, the remote shell).
const LAUNCH_FAILURES: [&str; 6] = [
    "unable to reliably start one or more daemons",
    "lost communication with a remote daemon",
    "HYDU_sock_connect",
    "ssh: ",
    "rsh: ",
    "Could not resolve hostname",
];

/// The launcher's stderr, being passed on.
pub(super) struct Relayed {
    tail: Arc<Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

/// Passes `pipe` on to ioz's stderr in a thread of its own, keeping its
/// last [`TAIL_BYTES`].
pub(super) fn relay(mut pipe: ChildStderr) -> Relayed {
    let tail = Arc::new(Mutex::new(Vec::new()));
    let kept = Arc::clone(&tail);
    let (finished, done) = mpsc::channel();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            let n = match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let _ = io::stderr().lock().write_all(&chunk[..n]);
            let mut t = kept.lock().unwrap_or_else(|p| p.into_inner());
            t.extend_from_slice(&chunk[..n]);
            let over = t.len().saturating_sub(TAIL_BYTES);
            t.drain(..over);
        }
        let _ = finished.send(());
    });
    Relayed { tail, done }
}

impl Relayed {
    /// What it said, once it has said all (or [`DRAIN_WAIT`] after).
    pub(super) fn said(self) -> String {
        let _ = self.done.recv_timeout(DRAIN_WAIT);
        let t = self.tail.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&t).into_owned()
    }
}

/// The line that names the hosts the launcher could not reach, when what
/// it `said` is a failure to start the job there; `this_machine`: names
/// that are not another host (they appear in every message).
pub(super) fn unreached(said: &str, clients: &[Client], this_machine: &[&str]) -> Option<String> {
    if !LAUNCH_FAILURES.iter().any(|m| said.contains(m)) {
        return None;
    }
    let mut hosts: Vec<&str> = Vec::new();
    for c in clients {
        if !hosts.contains(&c.host.as_str()) && !this_machine.contains(&c.host.as_str()) {
            hosts.push(&c.host);
        }
    }
    let named: Vec<&str> = hosts.iter().copied().filter(|h| names(said, h)).collect();
    Some(match named[..] {
        [] if hosts.is_empty() => return None,
        [] => format!(
            "-+m: the launcher could not start the job on every host ({}); its message above says why",
            hosts.join(", ")
        ),
        [one] => format!(
            "-+m: the launcher could not reach host {one} to start its ranks (its message is above)"
        ),
        _ => format!(
            "-+m: the launcher could not reach hosts {} to start their ranks (its message is above)",
            named.join(", ")
        ),
    })
}

/// Whether `text` names `host` as a word of its own (not inside another
/// name: node1 in node10).
fn names(text: &str, host: &str) -> bool {
    let part_of_name = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    text.match_indices(host).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + host.len()..].chars().next();
        // A name's dot is part of it only when a name goes on after it.
        let after_ends = match after {
            Some('.') => !text[at + host.len() + 1..]
                .chars()
                .next()
                .is_some_and(part_of_name),
            Some(c) => !part_of_name(c),
            None => true,
        };
        !before.is_some_and(|c| part_of_name(c) || c == '.') && after_ends
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(host: &str) -> Client {
        Client {
            host: host.into(),
            workdir: "/w".into(),
            ioz: "ioz".into(),
            test_file: None,
        }
    }

    #[test]
    fn the_host_the_remote_shell_names_is_the_one_not_reached() {
        let said = "ssh: connect to host node2 port 22: Connection refused\n\
                    ----\nORTE was unable to reliably start one or more daemons.\n";
        let clients = [client("node1"), client("node2"), client("node20")];
        assert_eq!(
            unreached(said, &clients, &[]).unwrap(),
            "-+m: the launcher could not reach host node2 to start its ranks (its message is above)"
        );
        // No host named: every one it might be.
        let box_only = "ORTE was unable to reliably start one or more daemons.\n";
        assert_eq!(
            unreached(box_only, &clients[..2], &[]).unwrap(),
            "-+m: the launcher could not start the job on every host (node1, node2); its message above says why"
        );
        // A rank's own failure is no launch failure; this machine is no host
        // to name.
        assert_eq!(unreached("ioz: rank 1 on node2: …\n", &clients, &[]), None);
        assert_eq!(
            unreached(box_only, &[client("localhost")], &["localhost"]),
            None
        );
    }
}
