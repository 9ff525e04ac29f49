//! IOzone's client file (`-+m`): one client a line, `host  workdir
//! path-to-ioz  [testfile]`, `#` comments; and the variable through which
//! a rank learns its client's test file. Read in every build (the default
//! one refuses -+m before it gets here, and tests it all the same).
//!
//! What can be checked before the launcher starts is, so that a bad line
//! is one `ioz:` line and status 2 rather than the launcher's box: the
//! characters of every word (a NUL, a byte-order mark or another control
//! character is refused, and a host name holds only what host names and
//! addresses hold), every host's name resolution, and the working
//! directory of each client on this machine.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::hash::Hash;
use std::path::{Path, PathBuf};

use crate::model::visible::visible;
use crate::system::host::{HostPlace, place_of};
use crate::system::input_file::{InputError, read_input};

/// The variable through which a rank learns its client's test file (the
/// client file's fourth column).
pub(crate) const CLIENT_FILE_VARIABLE: &str = "IOZ_CLIENT_TEST_FILE";

/// Most bytes a client file may hold: a hundred thousand clients of 160
/// bytes. Every check below is one pass over the clients (a hash per line,
/// a name resolved and a directory looked at once per host), so that such
/// a file is checked in well under a second.
const MAX_CLIENT_FILE_BYTES: u64 = 16 << 20;

/// Why the client file `name` gives no clients: one line.
#[derive(Debug, thiserror::Error)]
pub enum ClientFileError {
    #[error("-+m {name}: {source}")]
    Read { name: String, source: InputError },
    #[error(
        "-+m {name}: line {line}: give a host, its working directory and the path to \
         ioz there (and a test file), not {words} words"
    )]
    Line {
        name: String,
        line: usize,
        words: usize,
    },
    #[error("-+m {name}: no client in it")]
    NoClient { name: String },
    // The words std's read_to_string used for it.
    #[error("-+m {name}: stream did not contain valid UTF-8")]
    NotText { name: String },
    #[error("-+m {name}: line {line}: the {word} '{text}' holds {what}{hint}")]
    Characters {
        name: String,
        line: usize,
        word: &'static str,
        /// The word, its control characters shown.
        text: String,
        what: String,
        hint: &'static str,
    },
    #[error("-+m {name}: client {client}: host {host} does not resolve ({why})")]
    Unresolved {
        name: String,
        client: usize,
        host: String,
        why: String,
    },
    #[error(
        "-+m {name}: client {client}: its working directory {dir} {why} on this machine ({host})"
    )]
    WorkingDirectory {
        name: String,
        client: usize,
        host: String,
        dir: String,
        why: String,
    },
}

/// The clients of the client file `file` (see the module).
pub(crate) fn read_clients(file: &OsStr) -> Result<Vec<Client>, ClientFileError> {
    let name = file.to_string_lossy().into_owned();
    let bytes = read_input(Path::new(file), MAX_CLIENT_FILE_BYTES).map_err(|source| {
        ClientFileError::Read {
            name: name.clone(),
            source,
        }
    })?;
    match String::from_utf8(bytes) {
        Ok(text) => parse_clients(&name, &text),
        Err(_) => Err(ClientFileError::NotText { name }),
    }
}

/// One line of the client file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Client {
    pub host: String,
    pub workdir: String,
    pub ioz: String,
    pub test_file: Option<String>,
}

/// The client file's lines, or the line that says what is wrong with it.
pub fn parse_clients(name: &str, text: &str) -> Result<Vec<Client>, ClientFileError> {
    let mut clients = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            [] => {}
            [host, workdir, ioz] | [host, workdir, ioz, _] => {
                check_characters(name, n + 1, &words)?;
                clients.push(Client {
                    host: host.into(),
                    workdir: workdir.into(),
                    ioz: ioz.into(),
                    test_file: words.get(3).map(|s| s.to_string()),
                });
            }
            _ => {
                return Err(ClientFileError::Line {
                    name: name.to_string(),
                    line: n + 1,
                    words: words.len(),
                });
            }
        }
    }
    if clients.is_empty() {
        return Err(ClientFileError::NoClient {
            name: name.to_string(),
        });
    }
    Ok(clients)
}

/// Refuses a word of line `line` that holds what no launch file can carry
/// (a NUL, a byte-order mark, a control character: invisible, and cut or
/// taken apart by the launcher), or a host name that holds what no host
/// name or address holds.
fn check_characters(name: &str, line: usize, words: &[&str]) -> Result<(), ClientFileError> {
    const WORDS: [&str; 4] = ["host", "working directory", "path to ioz", "test file"];
    for (i, word) in words.iter().enumerate() {
        let what = word.chars().find_map(|c| match c {
            '\0' => Some("a NUL byte".to_string()),
            '\u{feff}' => Some("a byte-order mark (U+FEFF: save the file without it)".to_string()),
            c if c.is_control() => {
                Some(format!("the control character {}", visible(&c.to_string())))
            }
            c if i == 0 && !(c.is_ascii_alphanumeric() || ".-_:[]%".contains(c)) => {
                Some(format!("{c:?}, which no host name holds"))
            }
            _ => None,
        });
        if let Some(what) = what {
            return Err(ClientFileError::Characters {
                name: name.to_string(),
                line,
                word: WORDS[i],
                text: visible(word).into_owned(),
                what,
                hint: if i == 0 {
                    " (a host name is letters, digits, '.', '-' and '_', or an address)"
                } else {
                    ""
                },
            });
        }
    }
    Ok(())
}

/// What can be known of the clients before the launch: every host
/// resolves, and a client on this machine has its working directory.
pub(crate) fn check_clients(file: &OsStr, clients: &[Client]) -> Result<(), ClientFileError> {
    let name = file.to_string_lossy().into_owned();
    // Each host resolved once, each of its working directories looked at
    // once: a file of many lines names few hosts.
    let mut places: HashMap<&str, HostPlace> = HashMap::new();
    let mut dirs_seen: HashSet<(&str, &str)> = HashSet::new();
    for (i, c) in clients.iter().enumerate() {
        let place = places
            .entry(c.host.as_str())
            .or_insert_with(|| place_of(&c.host));
        match place {
            HostPlace::Unresolved(e) => {
                return Err(ClientFileError::Unresolved {
                    name,
                    client: i + 1,
                    host: c.host.clone(),
                    why: e.to_string(),
                });
            }
            HostPlace::Elsewhere => {}
            HostPlace::ThisMachine => {
                if !dirs_seen.insert((c.host.as_str(), c.workdir.as_str())) {
                    continue;
                }
                let why = match std::fs::metadata(&c.workdir) {
                    Ok(m) if m.is_dir() => continue,
                    Ok(_) => "is not a directory".to_string(),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        "does not exist".to_string()
                    }
                    Err(e) => format!("cannot be used: {e}"),
                };
                return Err(ClientFileError::WorkingDirectory {
                    name,
                    client: i + 1,
                    host: c.host.clone(),
                    dir: c.workdir.clone(),
                    why,
                });
            }
        }
    }
    Ok(())
}

/// The first two clients (1-based, in the file's order) whose lines give
/// the same host the same test file: two ranks would write one file.
pub(crate) fn same_file_twice(clients: &[Client]) -> Option<(usize, usize)> {
    let files = clients.iter().map(|c| {
        c.test_file
            .as_ref()
            .map(|f| (c.host.as_str(), Path::new(&c.workdir).join(f)))
    });
    first_repeat::<(&str, PathBuf)>(files).map(|(a, b)| (a + 1, b + 1))
}

/// Of `keys` (`None`: no key), the first one (by its first place) that
/// comes again, with the place it first comes again (0-based). One pass, a
/// hash and about one comparison per key.
fn first_repeat<K: Hash + Eq>(keys: impl IntoIterator<Item = Option<K>>) -> Option<(usize, usize)> {
    let mut seen: HashMap<K, (usize, Option<usize>)> = HashMap::new();
    for (i, key) in keys.into_iter().enumerate() {
        let Some(key) = key else { continue };
        match seen.entry(key) {
            Entry::Vacant(v) => {
                v.insert((i, None));
            }
            Entry::Occupied(mut o) => {
                let again = &mut o.get_mut().1;
                again.get_or_insert(i);
            }
        }
    }
    seen.into_values()
        .filter_map(|(first, again)| Some((first, again?)))
        .min()
}

/// How many of `keys` hold each key, for each of them in order: one pass
/// to count, one to hand out.
pub(crate) fn counts_of<K: Hash + Eq + Copy>(keys: &[K]) -> Vec<usize> {
    let mut counts: HashMap<K, usize> = HashMap::with_capacity(keys.len().min(1 << 16));
    for &k in keys {
        *counts.entry(k).or_insert(0) += 1;
    }
    keys.iter().map(|k| counts[k]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_clients_given_one_file_on_one_host_are_found() {
        let c = |host: &str, workdir: &str, file: Option<&str>| Client {
            host: host.into(),
            workdir: workdir.into(),
            ioz: "ioz".into(),
            test_file: file.map(String::from),
        };
        // Without a test file each rank gets its own (<-f>.<worker>).
        assert_eq!(
            same_file_twice(&[c("a", "/w", None), c("a", "/w", None)]),
            None
        );
        // Another host, or another directory: other files.
        assert_eq!(
            same_file_twice(&[c("a", "/w", Some("f")), c("b", "/w", Some("f"))]),
            None
        );
        assert_eq!(
            same_file_twice(&[c("a", "/w", Some("f")), c("a", "/v", Some("f"))]),
            None
        );
        // The same file, also named from elsewhere.
        assert_eq!(
            same_file_twice(&[
                c("a", "/w", None),
                c("a", "/w", Some("f")),
                c("a", "/v", Some("/w/f"))
            ]),
            Some((2, 3))
        );
    }

    /// A key whose comparisons are counted: the checks of a client file
    /// must stay one pass over its lines (a check that compared every pair
    /// of 100,000 lines, as they once did, made 5·10⁹ comparisons and took
    /// minutes).
    #[derive(Clone, Copy)]
    struct Counted(u32);

    impl std::hash::Hash for Counted {
        fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
            self.0.hash(state);
        }
    }

    thread_local! {
        static COMPARISONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    impl PartialEq for Counted {
        fn eq(&self, other: &Counted) -> bool {
            COMPARISONS.with(|c| c.set(c.get() + 1));
            self.0 == other.0
        }
    }
    impl Eq for Counted {}

    #[test]
    fn a_hundred_thousand_clients_are_checked_in_one_pass() {
        const N: u32 = 100_000;
        // Ten hosts, each on 10,000 lines; all test files distinct but the last.
        let hosts: Vec<Counted> = (0..N).map(|i| Counted(i % 10)).collect();
        COMPARISONS.with(|c| c.set(0));
        let slots = counts_of(&hosts);
        assert!(slots.iter().all(|&n| n == 10_000));
        let compared = COMPARISONS.with(|c| c.get());
        assert!(compared <= 2 * u64::from(N), "{compared} comparisons");
        let files = (0..N).map(|i| Some(Counted(i.min(N - 2))));
        COMPARISONS.with(|c| c.set(0));
        assert_eq!(first_repeat(files), Some((N as usize - 2, N as usize - 1)));
        let compared = COMPARISONS.with(|c| c.get());
        assert!(compared <= 2 * u64::from(N), "{compared} comparisons");
        // The first key that comes again, by its first place.
        let keys = [1, 2, 2, 1].map(|k| Some(Counted(k)));
        assert_eq!(first_repeat(keys), Some((0, 3)));
        assert_eq!(first_repeat([None::<Counted>, None]), None);
    }

    #[test]
    fn a_client_file_of_100_000_lines_is_read_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clients");
        let w = dir.path().display().to_string();
        let text: String = (0..100_000)
            .map(|i| format!("localhost {w} /usr/bin/ioz f{i}\n"))
            .collect();
        std::fs::write(&path, text).unwrap();
        let clients = read_clients(path.as_os_str()).unwrap();
        assert_eq!(clients.len(), 100_000);
        assert_eq!(same_file_twice(&clients), None);
        check_clients(path.as_os_str(), &clients).unwrap();
    }

    #[test]
    fn client_lines_are_read_with_their_test_files() {
        let text =
            "# host  workdir  ioz  [file]\n\nnode1 /w1 /bin/ioz\nnode2 /w2 /opt/ioz f2 # two\n";
        let clients = parse_clients("c", text).unwrap();
        assert_eq!(clients.len(), 2);
        assert_eq!(clients[0].test_file, None);
        assert_eq!(clients[1].test_file.as_deref(), Some("f2"));
        assert_eq!(clients[1].workdir, "/w2");
    }

    #[test]
    fn bad_client_files_are_named_by_line() {
        assert_eq!(
            parse_clients("c", "node1 /w\n").unwrap_err().to_string(),
            "-+m c: line 1: give a host, its working directory and the path to ioz there \
             (and a test file), not 2 words"
        );
        assert_eq!(
            parse_clients("c", "# nothing\n\n").unwrap_err().to_string(),
            "-+m c: no client in it"
        );
    }

    #[test]
    fn invisible_characters_and_odd_host_names_are_refused_by_line() {
        let refused = |text: &str| parse_clients("c", text).unwrap_err().to_string();
        assert_eq!(
            refused("\u{feff}node1 /w /bin/ioz\n"),
            "-+m c: line 1: the host '\\u{feff}node1' holds a byte-order mark (U+FEFF: save the \
             file without it) (a host name is letters, digits, '.', '-' and '_', or an address)"
        );
        let e = refused("n1 /w /bin/ioz\nno\0de /w /bin/ioz\n");
        assert!(
            e.starts_with("-+m c: line 2: the host 'no\\x00de' holds a NUL byte"),
            "{e}"
        );
        assert!(refused("node/1 /w /bin/ioz\n").contains("'/', which no host name holds"));
        assert_eq!(
            refused("n1 /w\x1b[2J /bin/ioz\n"),
            "-+m c: line 1: the working directory '/w\\x1b[2J' holds the control character \\x1b"
        );
        // Addresses and the usual names pass.
        for host in ["node-1.example.org", "10.0.0.7", "fe80::1%eth0", "n_1"] {
            assert!(
                parse_clients("c", &format!("{host} /w /bin/ioz\n")).is_ok(),
                "{host}"
            );
        }
    }

    #[test]
    fn a_client_here_needs_its_working_directory_and_every_host_a_name() {
        let dir = tempfile::tempdir().unwrap();
        let c = |host: &str, workdir: &Path| Client {
            host: host.into(),
            workdir: workdir.display().to_string(),
            ioz: "ioz".into(),
            test_file: None,
        };
        let file = OsStr::new("c");
        assert!(check_clients(file, &[c("localhost", dir.path())]).is_ok());
        let gone = dir.path().join("gone");
        let e = check_clients(file, &[c("localhost", dir.path()), c("127.0.0.1", &gone)])
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "-+m c: client 2: its working directory {} does not exist on this machine (127.0.0.1)",
                gone.display()
            )
        );
        // A name no resolver knows (.invalid is reserved for that).
        let e = check_clients(file, &[c("no-such-host.invalid", &gone)])
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("-+m c: client 1: host no-such-host.invalid does not resolve ("),
            "{e}"
        );
    }

    #[test]
    fn a_client_file_is_a_regular_file_of_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clients");
        std::fs::write(&path, "node1 /w /bin/ioz\n").unwrap();
        assert_eq!(read_clients(path.as_os_str()).unwrap()[0].host, "node1");
        // A FIFO would have waited for a writer; /dev/zero been read for ever.
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let refusal = |file: &Path| read_clients(file.as_os_str()).unwrap_err().to_string();
        assert_eq!(
            refusal(&fifo),
            format!("-+m {}: it is a FIFO, not a regular file", fifo.display())
        );
        assert_eq!(
            refusal(Path::new("/dev/zero")),
            "-+m /dev/zero: it is a character device, not a regular file"
        );
        std::fs::write(&path, [b'a', 0xff, b'\n']).unwrap();
        assert_eq!(
            refusal(&path),
            format!("-+m {}: stream did not contain valid UTF-8", path.display())
        );
        let absent = dir.path().join("absent");
        assert_eq!(
            refusal(&absent),
            format!(
                "-+m {}: No such file or directory (os error 2)",
                absent.display()
            )
        );
    }
}
