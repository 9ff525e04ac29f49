//! IOzone's client file (`-+m`): one client a line, `host  workdir
//! path-to-ioz  [testfile]`, `#` comments; and the variable through which
//! a rank learns its client's test file. Read in every build (the default
//! one refuses -+m before it gets here, and tests it all the same).

/// The variable through which a rank learns its client's test file (the
/// client file's fourth column).
pub(crate) const CLIENT_FILE_VARIABLE: &str = "IOZ_CLIENT_TEST_FILE";

/// One line of the client file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Client {
    pub host: String,
    pub workdir: String,
    pub ioz: String,
    pub test_file: Option<String>,
}

/// The client file's lines, or the line that says what is wrong with it.
pub(crate) fn parse_clients(name: &str, text: &str) -> Result<Vec<Client>, String> {
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
                return Err(format!(
                    "-+m {name}: line {}: give a host, its working directory and the path to \
                     ioz there (and a test file), not {} words",
                    n + 1,
                    words.len()
                ));
            }
        }
    }
    if clients.is_empty() {
        return Err(format!("-+m {name}: no client in it"));
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
            parse_clients("c", "node1 /w\n").unwrap_err(),
            "-+m c: line 1: give a host, its working directory and the path to ioz there \
             (and a test file), not 2 words"
        );
        assert_eq!(
            parse_clients("c", "# nothing\n\n").unwrap_err(),
            "-+m c: no client in it"
        );
    }
}
