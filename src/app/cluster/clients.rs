//! IOzone's client file (`-+m`): one client a line, `host  workdir
//! path-to-ioz  [testfile]`, `#` comments; and the variable through which
//! a rank learns its client's test file. Read in every build (the default
//! one refuses -+m before it gets here, and tests it all the same).

use std::ffi::OsStr;
use std::path::Path;

use crate::system::input_file::{InputError, read_input};

/// The variable through which a rank learns its client's test file (the
/// client file's fourth column).
pub(crate) const CLIENT_FILE_VARIABLE: &str = "IOZ_CLIENT_TEST_FILE";

/// Most bytes a client file may hold: ten thousand clients of 100 bytes.
const MAX_CLIENT_FILE_BYTES: u64 = 1 << 20;

/// Why the client file `name` gives no clients: one line.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ClientFileError {
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
pub(crate) struct Client {
    pub host: String,
    pub workdir: String,
    pub ioz: String,
    pub test_file: Option<String>,
}

/// The client file's lines, or the line that says what is wrong with it.
pub(crate) fn parse_clients(name: &str, text: &str) -> Result<Vec<Client>, ClientFileError> {
    let mut clients = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            [] => {}
            [host, workdir, ioz] | [host, workdir, ioz, _] => clients.push(Client {
                host: host.into(),
                workdir: workdir.into(),
                ioz: ioz.into(),
                test_file: words.get(3).map(|s| s.to_string()),
            }),
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

/// The first two clients (1-based, in the file's order) whose lines give
/// the same host the same test file: two ranks would write one file.
pub(crate) fn same_file_twice(clients: &[Client]) -> Option<(usize, usize)> {
    fn file(c: &Client) -> Option<(&str, std::path::PathBuf)> {
        c.test_file
            .as_ref()
            .map(|f| (c.host.as_str(), std::path::Path::new(&c.workdir).join(f)))
    }
    clients.iter().enumerate().find_map(|(i, a)| {
        let mine = file(a)?;
        clients[i + 1..]
            .iter()
            .position(|b| file(b).as_ref() == Some(&mine))
            .map(|k| (i + 1, i + k + 2))
    })
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
