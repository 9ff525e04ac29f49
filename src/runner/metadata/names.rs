//! The names a phase works on, made before its clock starts: one buffer of
//! NUL-terminated names and where each starts, so that a timed loop only
//! hands a pointer to the system call.

use std::ffi::CStr;

/// NUL-terminated names (or paths relative to a directory descriptor).
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
        let start = self.starts[i];
        let end = self.starts.get(i + 1).copied().unwrap_or(self.bytes.len());
        // SAFETY: `push_with` ends every name with its one NUL, and the
        // names are laid end to end, so bytes[start..end] is a name and its NUL.
        unsafe { CStr::from_bytes_with_nul_unchecked(&self.bytes[start..end]) }
    }

    /// The `i`-th name, for a message.
    pub fn shown(&self, i: usize) -> String {
        self.get(i).to_string_lossy().into_owned()
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
        assert_eq!(n.shown(2), "");
    }
}
