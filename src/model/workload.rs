//! The IOzone tests (`-i 0` … `-i 12`) and the timed passes each one runs.
//!
//! An IOzone test is a pair (access pattern, engine) run once or twice; each
//! run is a [`Pass`] with its own column in the table and block in `-R`.

use serde::{Deserialize, Serialize};

use super::engines::EngineChoice;

/// One IOzone test, numbered as `-i` numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestId {
    Write,
    Read,
    Random,
    Backward,
    RecordRewrite,
    Stride,
    Fwrite,
    Fread,
    RandomMix,
    Pwrite,
    Pread,
    Pwritev,
    Preadv,
}

impl TestId {
    pub const ALL: [TestId; 13] = [
        TestId::Write,
        TestId::Read,
        TestId::Random,
        TestId::Backward,
        TestId::RecordRewrite,
        TestId::Stride,
        TestId::Fwrite,
        TestId::Fread,
        TestId::RandomMix,
        TestId::Pwrite,
        TestId::Pread,
        TestId::Pwritev,
        TestId::Preadv,
    ];

    pub fn from_number(n: u64) -> Option<TestId> {
        TestId::ALL.get(usize::try_from(n).ok()?).copied()
    }

    pub fn number(self) -> u32 {
        self as u32
    }

    /// The passes of this test, in the order they run.
    pub fn passes(self) -> &'static [Pass] {
        use Pass::*;
        match self {
            TestId::Write => &[Write, Rewrite],
            TestId::Read => &[Read, Reread],
            TestId::Random => &[RandomRead, RandomWrite],
            TestId::Backward => &[BackwardRead],
            TestId::RecordRewrite => &[RecordRewrite],
            TestId::Stride => &[StrideRead],
            TestId::Fwrite => &[Fwrite, Frewrite],
            TestId::Fread => &[Fread, Freread],
            TestId::RandomMix => &[RandomMix],
            TestId::Pwrite => &[Pwrite, Repwrite],
            TestId::Pread => &[Pread, Repread],
            TestId::Pwritev => &[Pwritev, Repwritev],
            TestId::Preadv => &[Preadv, Repreadv],
        }
    }

    /// Whether the test only reads, so the file must hold data before it runs.
    pub fn needs_existing_data(self) -> bool {
        self.passes()
            .iter()
            .any(|p| p.direction() != Direction::Write)
    }
}

/// Which way data moves in a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Read,
    Write,
    /// Each operation is a read or a write, chosen before the clock starts.
    Mixed,
}

/// The order in which records are visited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatternKind {
    Sequential,
    Backward,
    Strided,
    Random,
    /// Record 0 over and over (IOzone's record rewrite).
    FirstRecord,
    RandomMix,
    /// Runs of consecutive records, one run per call, the runs in random order.
    RandomRuns,
}

/// One timed pass: one column of the table, one block of the `-R` report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pass {
    Write,
    Rewrite,
    Read,
    Reread,
    RandomRead,
    RandomWrite,
    BackwardRead,
    RecordRewrite,
    StrideRead,
    Fwrite,
    Frewrite,
    Fread,
    Freread,
    RandomMix,
    Pwrite,
    Repwrite,
    Pread,
    Repread,
    Pwritev,
    Repwritev,
    Preadv,
    Repreadv,
}

impl Pass {
    pub fn test(self) -> TestId {
        use Pass::*;
        match self {
            Write | Rewrite => TestId::Write,
            Read | Reread => TestId::Read,
            RandomRead | RandomWrite => TestId::Random,
            BackwardRead => TestId::Backward,
            RecordRewrite => TestId::RecordRewrite,
            StrideRead => TestId::Stride,
            Fwrite | Frewrite => TestId::Fwrite,
            Fread | Freread => TestId::Fread,
            RandomMix => TestId::RandomMix,
            Pwrite | Repwrite => TestId::Pwrite,
            Pread | Repread => TestId::Pread,
            Pwritev | Repwritev => TestId::Pwritev,
            Preadv | Repreadv => TestId::Preadv,
        }
    }

    /// The second pass of a test over the same file ("re-" tests); `-+n` skips them.
    pub fn is_retest(self) -> bool {
        use Pass::*;
        matches!(
            self,
            Rewrite | Reread | Frewrite | Freread | Repwrite | Repread | Repwritev | Repreadv
        )
    }

    pub fn direction(self) -> Direction {
        use Pass::*;
        match self {
            Write | Rewrite | RandomWrite | RecordRewrite | Fwrite | Frewrite | Pwrite
            | Repwrite | Pwritev | Repwritev => Direction::Write,
            RandomMix => Direction::Mixed,
            _ => Direction::Read,
        }
    }

    /// The engine IOzone's test moves its records with.
    pub fn engine(self) -> EngineChoice {
        use Pass::*;
        match self {
            Fwrite | Frewrite | Fread | Freread => EngineChoice::Stdio,
            Pwrite | Repwrite | Pread | Repread | RandomMix => EngineChoice::Psync,
            Pwritev | Repwritev | Preadv | Repreadv => EngineChoice::Vec,
            _ => EngineChoice::Sync,
        }
    }

    /// Whether `-I` opens the pass's file with O_DIRECT: IOzone adds it to
    /// every open(2) of the test file, and the stdio tests open theirs with
    /// fopen(), without it (../shared/reference/strace_I_stdio.txt).
    pub fn direct_with_i(self) -> bool {
        self.engine() != EngineChoice::Stdio
    }

    pub fn pattern(self) -> PatternKind {
        use Pass::*;
        match self {
            RandomRead | RandomWrite => PatternKind::Random,
            BackwardRead => PatternKind::Backward,
            RecordRewrite => PatternKind::FirstRecord,
            StrideRead => PatternKind::Strided,
            RandomMix => PatternKind::RandomMix,
            Pwritev | Repwritev | Preadv | Repreadv => PatternKind::RandomRuns,
            _ => PatternKind::Sequential,
        }
    }

    /// Whether the pass opens the file with truncation (only the first write does).
    pub fn truncates(self) -> bool {
        self == Pass::Write
    }

    /// Short name for people: error messages, the progress bar, plot titles.
    /// (JSON and CSV use the serde name, e.g. `random_read`.)
    pub fn name(self) -> &'static str {
        use Pass::*;
        match self {
            Write => "write",
            Rewrite => "rewrite",
            Read => "read",
            Reread => "reread",
            RandomRead => "random read",
            RandomWrite => "random write",
            BackwardRead => "backward read",
            RecordRewrite => "record rewrite",
            StrideRead => "stride read",
            Fwrite => "fwrite",
            Frewrite => "frewrite",
            Fread => "fread",
            Freread => "freread",
            RandomMix => "random mix",
            Pwrite => "pwrite",
            Repwrite => "repwrite",
            Pread => "pread",
            Repread => "repread",
            Pwritev => "pwritev",
            Repwritev => "repwritev",
            Preadv => "preadv",
            Repreadv => "repreadv",
        }
    }

    /// Title of the pass's block in the `-R` report (IOzone's wording).
    pub fn report_title(self) -> &'static str {
        use Pass::*;
        match self {
            Write => "Writer report",
            Rewrite => "Re-writer report",
            Read => "Reader report",
            Reread => "Re-Reader report",
            RandomRead => "Random read report",
            RandomWrite => "Random write report",
            BackwardRead => "Backward read report",
            RecordRewrite => "Record rewrite report",
            StrideRead => "Stride read report",
            Fwrite => "Fwrite report",
            Frewrite => "Re-Fwrite report",
            Fread => "Fread report",
            Freread => "Re-Fread report",
            RandomMix => "Random mix report",
            Pwrite => "Pwrite report",
            Repwrite => "Re-Pwrite report",
            Pread => "Pread report",
            Repread => "Re-Pread report",
            Pwritev => "Pwritev report",
            Repwritev => "Re-Pwritev report",
            Preadv => "Preadv report",
            Repreadv => "Re-Preadv report",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pass_belongs_to_the_test_that_lists_it() {
        for test in TestId::ALL {
            for pass in test.passes() {
                assert_eq!(pass.test(), test, "{pass:?}");
            }
        }
    }

    #[test]
    fn test_numbers_round_trip() {
        for (n, test) in TestId::ALL.iter().enumerate() {
            assert_eq!(TestId::from_number(n as u64), Some(*test));
            assert_eq!(test.number() as usize, n);
        }
        assert_eq!(TestId::from_number(13), None);
    }

    #[test]
    fn only_reading_tests_need_data() {
        assert!(!TestId::Write.needs_existing_data());
        assert!(!TestId::Pwritev.needs_existing_data());
        assert!(TestId::Read.needs_existing_data());
        assert!(TestId::Random.needs_existing_data());
        assert!(TestId::RandomMix.needs_existing_data());
    }
}
