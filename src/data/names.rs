//! The names a phase works on, made before its clock starts: one buffer of
//! NUL-terminated names and where each starts, so that a timed loop only
//! hands a pointer to the system call ([`Names`], [`Paths`]); and fileop's
//! names, written between its operations into a buffer of their own
//! ([`Name`]).

use std::ffi::CStr;
use std::rc::Rc;

/// NUL-terminated names (or paths).
#[derive(Debug, Default)]
pub(crate) struct Names {
    bytes: Vec<u8>,
    starts: Vec<usize>,
}

impl Names {
    pub fn with_capacity(names: usize, bytes: usize) -> Names {
        Names {
            bytes: Vec::with_capacity(bytes),
            starts: Vec::with_capacity(names),
        }
    }

    /// Adds a name written by `write` (it must write no NUL).
    pub fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        self.starts.push(self.bytes.len());
        let from = self.bytes.len();
        write(&mut self.bytes);
        // A NUL inside would cut the name short: the writers make none.
        debug_assert!(!self.bytes[from..].contains(&0));
        self.bytes.push(0);
    }

    pub fn push(&mut self, name: &str) {
        self.push_with(|b| b.extend_from_slice(name.as_bytes()));
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// The `i`-th name.
    #[inline(always)]
    pub fn get(&self, i: usize) -> &CStr {
        self.get_from(i, 0)
    }

    /// The `i`-th name from its byte `at` on (a name's tail is a name too).
    #[inline(always)]
    pub fn get_from(&self, i: usize, at: usize) -> &CStr {
        let start = self.starts[i];
        let end = self.starts.get(i + 1).copied().unwrap_or(self.bytes.len());
        let from = (start + at).min(end - 1);
        // SAFETY: `push_with` ends every name with its one NUL, and the
        // names are laid end to end, so bytes[from..end] (from at most the
        // NUL itself) is the tail of a name and its NUL.
        unsafe { CStr::from_bytes_with_nul_unchecked(&self.bytes[from..end]) }
    }

    /// The `i`-th name, for a message.
    pub fn shown(&self, i: usize) -> String {
        self.get(i).to_string_lossy().into_owned()
    }
}

/// Paths in ioz's tree, the way mdtest names its items: each one whole,
/// from `-d` as the user gave it (`DIR/<tree>/mdtest_tree.0/file.mdtest.0.3`).
/// A guarded walk (runner/metadata/calls.rs) needs more of each: its path
/// under the tree's directory, its last name and the directory that
/// holds it (a path under the tree's directory, `.` for the tree's own),
/// all tails of the whole path or shared, made with it.
#[derive(Debug)]
pub(crate) struct Paths {
    whole: Names,
    /// The prefix (`DIR/<tree>/`) every whole path starts with.
    prefix: Vec<u8>,
    /// Where each path's last name starts.
    leaf: Vec<u32>,
    /// Each path's directory: an index in `dirs`.
    parent: Vec<u32>,
    dirs: Rc<Names>,
}

impl Paths {
    /// No paths yet, each to start with `prefix` (ending in `/`), their
    /// directories among `dirs`.
    pub fn new(prefix: &[u8], dirs: Rc<Names>, capacity: usize) -> Paths {
        Paths {
            whole: Names::with_capacity(capacity, capacity * (prefix.len() + 48)),
            prefix: prefix.to_vec(),
            leaf: Vec::with_capacity(capacity),
            parent: Vec::with_capacity(capacity),
            dirs,
        }
    }

    /// Adds the path of `leaf` (written by `write`) in directory `dir` (an
    /// index in the directories).
    pub fn push(&mut self, dir: usize, write: impl FnOnce(&mut Vec<u8>)) {
        let under = self.dirs.get(dir).to_bytes();
        let prefix = &self.prefix;
        let mut leaf_at = 0;
        self.whole.push_with(|b| {
            let start = b.len();
            b.extend_from_slice(prefix);
            if under != b"." {
                b.extend_from_slice(under);
                b.push(b'/');
            }
            leaf_at = b.len() - start;
            write(b);
        });
        self.leaf.push(leaf_at as u32);
        self.parent.push(dir as u32);
    }

    pub fn len(&self) -> usize {
        self.whole.len()
    }

    /// The whole path of item `i`.
    #[inline(always)]
    pub fn whole(&self, i: usize) -> &CStr {
        self.whole.get(i)
    }

    /// Its path under the tree's directory.
    #[inline(always)]
    pub fn under(&self, i: usize) -> &CStr {
        self.whole.get_from(i, self.prefix.len())
    }

    /// Its last name.
    #[inline(always)]
    pub fn leaf(&self, i: usize) -> &CStr {
        self.whole.get_from(i, self.leaf[i] as usize)
    }

    /// The directory that holds it, under the tree's directory.
    #[inline(always)]
    pub fn parent(&self, i: usize) -> &CStr {
        self.dirs.get(self.parent[i] as usize)
    }

    /// Its whole path, for a message.
    pub fn shown(&self, i: usize) -> String {
        self.whole.shown(i)
    }
}

/// One name written in place between two operations (fileop's, made of
/// words and numbers: `fileop_file_3_0_12`), without allocating.
pub(crate) struct Name {
    bytes: [u8; 64],
    len: usize,
}

impl Name {
    pub fn new() -> Name {
        Name {
            bytes: [0; 64],
            len: 0,
        }
    }

    /// The name of `words` and `numbers` in turn: `words[0]`, `numbers[0]`,
    /// `words[1]`, … (a word may be empty), then `tail`.
    pub fn set(&mut self, words: &[&str], numbers: &[usize], tail: &str) -> &CStr {
        self.len = 0;
        for (n, word) in words.iter().enumerate() {
            self.put(word.as_bytes());
            if let Some(&number) = numbers.get(n) {
                self.put_number(number);
            }
        }
        self.put(tail.as_bytes());
        self.bytes[self.len] = 0;
        // SAFETY: the words and digits hold no NUL (fileop's words are
        // ASCII letters and underscores), and one ends them at `len`.
        unsafe { CStr::from_bytes_with_nul_unchecked(&self.bytes[..=self.len]) }
    }

    fn put(&mut self, b: &[u8]) {
        let room = self.bytes.len() - 1 - self.len;
        let n = b.len().min(room);
        self.bytes[self.len..self.len + n].copy_from_slice(&b[..n]);
        self.len += n;
    }

    fn put_number(&mut self, mut n: usize) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let d = digits;
        self.put(&d[at..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_back_as_given() {
        let mut n = Names::with_capacity(2, 16);
        n.push("file_1");
        n.push_with(|b| b.extend_from_slice(b"a/b"));
        n.push("");
        assert_eq!(n.len(), 3);
        assert_eq!(n.get(0).to_bytes(), b"file_1");
        assert_eq!(n.get(1).to_bytes(), b"a/b");
        assert_eq!(n.get_from(1, 2).to_bytes(), b"b");
        assert_eq!(
            n.get_from(0, 99).to_bytes(),
            b"",
            "past the end: the empty tail"
        );
        assert_eq!(n.shown(2), "");
    }

    #[test]
    fn a_path_gives_its_whole_its_part_under_the_tree_its_leaf_and_its_directory() {
        let mut dirs = Names::default();
        dirs.push(".");
        dirs.push("mdtest_tree.0");
        dirs.push("mdtest_tree.0/mdtest_tree.1");
        let dirs = Rc::new(dirs);
        let prefix = b"/d/ioz-mdtest.7/";
        let mut p = Paths::new(prefix, dirs, 2);
        p.push(0, |b| b.extend_from_slice(b"mdtest_tree.0"));
        p.push(2, |b| b.extend_from_slice(b"file.mdtest.0.4"));
        assert_eq!(p.whole(0).to_bytes(), b"/d/ioz-mdtest.7/mdtest_tree.0");
        assert_eq!(p.under(0).to_bytes(), b"mdtest_tree.0");
        assert_eq!(p.leaf(0).to_bytes(), b"mdtest_tree.0");
        assert_eq!(p.parent(0).to_bytes(), b".");
        assert_eq!(
            p.whole(1).to_bytes(),
            b"/d/ioz-mdtest.7/mdtest_tree.0/mdtest_tree.1/file.mdtest.0.4"
        );
        assert_eq!(
            p.under(1).to_bytes(),
            b"mdtest_tree.0/mdtest_tree.1/file.mdtest.0.4"
        );
        assert_eq!(p.leaf(1).to_bytes(), b"file.mdtest.0.4");
        assert_eq!(p.parent(1).to_bytes(), b"mdtest_tree.0/mdtest_tree.1");
    }

    #[test]
    fn a_name_is_written_in_place() {
        let mut n = Name::new();
        assert_eq!(
            n.set(&["fileop_file_", "_", "_"], &[3, 0, 12], "")
                .to_bytes(),
            b"fileop_file_3_0_12"
        );
        assert_eq!(
            n.set(&["fileop_file_", "_", "_"], &[0, 1, 1], "L")
                .to_bytes(),
            b"fileop_file_0_1_1L"
        );
        assert_eq!(
            n.set(&["fileop_L1_"], &[120], "").to_bytes(),
            b"fileop_L1_120"
        );
    }
}
