//! The one way ioz opens a file the user gives it to read — a saved run
//! (`ioz report`, `ioz compare`, `ioz env`, `ioz history import`), IOzone's
//! text output, the `-+m` client file, a history's stored run: a regular
//! file only, and never more of it than its reader's limit. A FIFO, a
//! device or a directory is refused at once, by its kind
//! (model::file_kind); none is read, so a FIFO never waits for a writer and
//! `/dev/zero` is never read until memory runs out. A symbolic link is
//! followed: what counts is the file it leads to.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::descriptor::open_without_waiting;
use crate::model::file_kind::file_kind;

/// A regular file, open for reading.
#[derive(Debug)]
pub struct InputFile {
    file: File,
    /// Its length when it was opened.
    len: u64,
}

/// Why an input file was not read. Its text follows "cannot read PATH: "
/// in the readers that have no words of their own.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// It could not be opened, checked or read.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// It is not a regular file: what it is instead ("a FIFO", …).
    #[error("it is {0}, not a regular file")]
    NotRegular(&'static str),
    /// It holds more than its reader takes (found at the open, or while
    /// reading a file that grew).
    #[error("it holds {len} bytes, more than the {limit} it may hold")]
    TooLarge { len: u64, limit: u64 },
}

/// Opens the input file at `path`: see the module.
pub fn open_input(path: &Path) -> Result<InputFile, InputError> {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before it is
    // refused (the flag changes nothing for a regular file's reads).
    let file = File::from(open_without_waiting(path, true)?);
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(InputError::NotRegular(file_kind(meta.mode())));
    }
    Ok(InputFile {
        file,
        len: meta.len(),
    })
}

/// The whole of the input file at `path`, when it holds at most `limit`
/// bytes.
pub fn read_input(path: &Path, limit: u64) -> Result<Vec<u8>, InputError> {
    open_input(path)?.read_all(limit)
}

impl InputFile {
    /// All of it, when it holds at most `limit` bytes: checked before
    /// reading, and again while reading (the file may grow meanwhile).
    pub fn read_all(self, limit: u64) -> Result<Vec<u8>, InputError> {
        let too_large = |len| InputError::TooLarge { len, limit };
        if self.len > limit {
            return Err(too_large(self.len));
        }
        let mut bytes = Vec::with_capacity(self.len as usize);
        self.file
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Err(too_large(bytes.len() as u64));
        }
        Ok(bytes)
    }

    /// Its first bytes, at most `most` (fewer only at its end).
    pub fn read_head(self, most: usize) -> io::Result<Vec<u8>> {
        let mut head = Vec::with_capacity(most);
        self.file.take(most as u64).read_to_end(&mut head)?;
        Ok(head)
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn refusal(path: &Path) -> String {
        open_input(path).unwrap_err().to_string()
    }

    #[test]
    fn a_regular_file_is_read_whole_within_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        std::fs::write(&path, b"0123456789").unwrap();
        assert_eq!(read_input(&path, 10).unwrap(), b"0123456789");
        assert_eq!(open_input(&path).unwrap().read_head(4).unwrap(), b"0123");
        assert_eq!(
            open_input(&path).unwrap().read_head(64).unwrap(),
            b"0123456789"
        );
        let e = read_input(&path, 9).unwrap_err();
        assert!(
            matches!(e, InputError::TooLarge { len: 10, limit: 9 }),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "it holds 10 bytes, more than the 9 it may hold"
        );
    }

    #[test]
    fn a_fifo_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("p");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        // No writer ever comes: a reader that waited would wait for ever.
        let began = Instant::now();
        assert_eq!(refusal(&fifo), "it is a FIFO, not a regular file");
        assert!(began.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_directory_and_a_device_are_refused_by_their_kind() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(refusal(dir.path()), "it is a directory, not a regular file");
        // /dev/zero was once read until memory ran out.
        assert_eq!(
            refusal(Path::new("/dev/zero")),
            "it is a character device, not a regular file"
        );
        assert!(matches!(
            read_input(Path::new("/dev/zero"), u64::MAX),
            Err(InputError::NotRegular("a character device"))
        ));
    }

    #[test]
    fn a_link_is_judged_by_the_file_it_leads_to() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("run.json"), b"{}").unwrap();
        std::os::unix::fs::symlink("run.json", d.join("latest.json")).unwrap();
        assert_eq!(read_input(&d.join("latest.json"), 2).unwrap(), b"{}");
        std::os::unix::fs::symlink("/dev/zero", d.join("zero.json")).unwrap();
        assert_eq!(
            refusal(&d.join("zero.json")),
            "it is a character device, not a regular file"
        );
        let e = open_input(&d.join("absent")).unwrap_err();
        assert!(matches!(&e, InputError::Io(io) if io.kind() == io::ErrorKind::NotFound));
    }

    #[test]
    fn a_file_that_grows_past_the_limit_while_read_is_refused() {
        // Opened at 4 bytes, 12 by the time it is read.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("growing");
        std::fs::write(&path, b"1234").unwrap();
        let input = open_input(&path).unwrap();
        std::fs::write(&path, b"123456789012").unwrap();
        let e = input.read_all(8).unwrap_err();
        assert!(
            matches!(e, InputError::TooLarge { len: 9, limit: 8 }),
            "{e:?}"
        );
    }
}
