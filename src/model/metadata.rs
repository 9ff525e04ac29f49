//! The metadata benchmarks as data: what `ioz fileop` and `ioz mdtest` were
//! asked (saved in the run's configuration), the operations they time, and
//! the trees they build, counted before anything is made.
//!
//! fileop (IOzone's companion) builds, for a force factor X, X directories
//! `dir_i`, X subdirectories `sdir_j` in each and X files `file_k` in each
//! of those, and times fifteen operations on them one by one. mdtest (the
//! IOR project's) builds a tree of depth z and branching b, spreads each
//! rank's n items over it, and times phases (create, stat, read, remove)
//! barrier to barrier across the ranks. What they measured is in
//! model::metadata_result.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Which metadata benchmark a run is, with its options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetadataConfig {
    Fileop(FileopConfig),
    Mdtest(MdtestConfig),
}

impl MetadataConfig {
    /// The command's name: `fileop`, `mdtest`.
    pub fn command(&self) -> &'static str {
        match self {
            MetadataConfig::Fileop(_) => "fileop",
            MetadataConfig::Mdtest(_) => "mdtest",
        }
    }

    /// The directory the tree is made in (`-d`), as given.
    pub fn dir(&self) -> &PathBuf {
        match self {
            MetadataConfig::Fileop(f) => &f.dir,
            MetadataConfig::Mdtest(m) => &m.dir,
        }
    }

    /// Whether a missing `-d` is made (and removed after): mdtest makes it;
    /// fileop works in a directory that is there.
    pub fn makes_its_dir(&self) -> bool {
        matches!(self, MetadataConfig::Mdtest(_))
    }

    /// The prefix of the tree's own directory under `-d`: ioz makes a new
    /// directory `<prefix><unique>` there, and everything inside is ioz's.
    pub fn root_prefix(&self) -> &'static str {
        match self {
            MetadataConfig::Fileop(_) => "ioz-fileop.",
            MetadataConfig::Mdtest(_) => "ioz-mdtest.",
        }
    }
}

/// `ioz fileop`'s options.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileopConfig {
    /// The force factors, in the order they run: `-f X`, or `-l L -u U`
    /// stepped by `-i`.
    pub factors: Vec<u32>,
    /// `-s`: bytes written to each file after it is created (1 by default).
    pub file_bytes: u64,
    /// `-e`: no banner line (a table a spreadsheet imports).
    pub excel: bool,
    /// `-b`: a row of each operation's best (fastest) rate.
    pub best: bool,
    /// `-w`: a row of each operation's worst (slowest) rate.
    pub worst: bool,
    /// `-t`: a block per operation (count, total time, average, best, worst)
    /// instead of the table.
    pub verbose: bool,
    /// `-d`: where the tree is made, as given (the banner shows it).
    pub dir: PathBuf,
}

/// fileop's operations, in the table's column order.
pub const FILEOP_COLUMNS: [MetaOp; 15] = [
    MetaOp::Mkdir,
    MetaOp::Chdir,
    MetaOp::Rmdir,
    MetaOp::Create,
    MetaOp::Open,
    MetaOp::Read,
    MetaOp::Write,
    MetaOp::Close,
    MetaOp::Stat,
    MetaOp::Access,
    MetaOp::Chmod,
    MetaOp::Readdir,
    MetaOp::Link,
    MetaOp::Unlink,
    MetaOp::Delete,
];

/// fileop's operations in the order they run (and `-t` prints them).
pub const FILEOP_ORDER: [MetaOp; 15] = [
    MetaOp::Mkdir,
    MetaOp::Chdir,
    MetaOp::Rmdir,
    MetaOp::Create,
    MetaOp::Write,
    MetaOp::Close,
    MetaOp::Stat,
    MetaOp::Open,
    MetaOp::Read,
    MetaOp::Access,
    MetaOp::Chmod,
    MetaOp::Readdir,
    MetaOp::Link,
    MetaOp::Unlink,
    MetaOp::Delete,
];

/// The most fileop's force factor may be: 100 makes a million files
/// (and 1,010,100 directories), already a long run on a fast file system;
/// a mistyped 1000 would ask for a billion.
pub const MAX_FORCE_FACTOR: u64 = 100;

/// What fileop's tree holds for a force factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileopTree {
    pub factor: u32,
}

impl FileopTree {
    /// X + X² + X³: every directory of the directory test (its third level
    /// is made of directories too).
    pub fn dirs(self) -> u64 {
        let x = self.factor as u64;
        x + x * x + x * x * x
    }

    /// X³ files.
    pub fn files(self) -> u64 {
        let x = self.factor as u64;
        x * x * x
    }

    /// X² level-2 directories, each read once by readdir.
    pub fn readdirs(self) -> u64 {
        let x = self.factor as u64;
        x * x
    }

    /// How many times `op` runs.
    pub fn count(self, op: MetaOp) -> u64 {
        match op {
            MetaOp::Mkdir | MetaOp::Chdir | MetaOp::Rmdir => self.dirs(),
            MetaOp::Readdir => self.readdirs(),
            _ => self.files(),
        }
    }
}

/// `ioz mdtest`'s options. Counts are per rank, as mdtest's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MdtestConfig {
    /// `-n`: items every rank creates, stats, reads and removes (with
    /// `-I`, the items per directory times the directories instead).
    pub items: u64,
    /// `-z`: depth of the tree (0: one directory).
    pub depth: u32,
    /// `-b`: branching factor.
    pub branch: u32,
    /// `-I`: items in every directory that holds items.
    pub items_per_dir: Option<u64>,
    /// `-L`: items only in the leaves.
    pub leaf_only: bool,
    /// `-u`: a tree per rank, in a directory of its own.
    pub unique_dir: bool,
    /// `-N`: rank r stats and reads the items of rank (r + N) mod ranks.
    pub stride: u32,
    /// `-W`: stonewall the file creation after this many seconds (0: none).
    pub stonewall_seconds: u64,
    /// `-D`/`-F`: directories, files, or both (neither flag).
    pub directories: bool,
    pub files: bool,
    /// `-C -T -E -r`: the phases measured (none of the flags: all).
    pub phases: PhaseSelection,
    /// `-w`: bytes written to each file after it is created.
    pub write_bytes: u64,
    /// `-e`: bytes read from each file in the read phase.
    pub read_bytes: u64,
    /// `-y`: fsync each file after writing it.
    pub sync: bool,
    /// `-P`: the time table beside the rate table.
    pub print_time: bool,
    /// `-Z`: the time table instead of the rate table.
    pub time_only: bool,
    /// `-d`: where the tree is made, as given.
    pub dir: PathBuf,
    /// `--shape`: IO500's shape the options came from, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
}

/// IO500's two mdtest shapes (`--shape`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// A directory per rank, empty files: `-F -u -L -N 1`.
    Easy,
    /// One shared directory, 3,901-byte files written and read back:
    /// `-F -w 3901 -e 3901 -N 1`.
    Hard,
}

impl Shape {
    pub const NAMES: [&'static str; 2] = ["easy", "hard"];

    pub fn named(name: &str) -> Option<Shape> {
        match name {
            "easy" => Some(Shape::Easy),
            "hard" => Some(Shape::Hard),
            _ => None,
        }
    }
}

/// IO500's file size for mdtest-hard.
pub const HARD_FILE_BYTES: u64 = 3901;

/// The phases an mdtest run measures (`-C -T -E -r`). A phase not measured
/// is still done untimed where a later one needs it (the items a stat
/// phase stats are made first), and the tree is always removed at the end:
/// it is ioz's own, made for this run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseSelection {
    pub create: bool,
    pub stat: bool,
    pub read: bool,
    pub remove: bool,
}

impl PhaseSelection {
    pub const ALL: PhaseSelection = PhaseSelection {
        create: true,
        stat: true,
        read: true,
        remove: true,
    };
}

/// The most directories an mdtest tree may have, and the most items a
/// rank may ask for: far beyond a useful run on one client, low enough
/// that a typo is refused rather than started.
pub const MAX_TREE_DIRS: u64 = 10_000_000;
pub const MAX_ITEMS: u64 = 10_000_000;

/// An mdtest tree and where each rank's items go in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MdtestTree {
    pub depth: u32,
    pub branch: u32,
    pub leaf_only: bool,
}

impl MdtestTree {
    pub fn of(config: &MdtestConfig) -> MdtestTree {
        MdtestTree {
            depth: config.depth,
            branch: config.branch,
            leaf_only: config.leaf_only,
        }
    }

    /// (b^(z+1) − 1)/(b − 1) directories, z + 1 when b = 1; `None` when
    /// the count overflows.
    pub fn dirs(self) -> Option<u64> {
        let b = self.branch as u64;
        let mut total: u64 = 0;
        let mut level: u64 = 1;
        for _ in 0..=self.depth {
            total = total.checked_add(level)?;
            level = level.checked_mul(b)?;
        }
        Some(total)
    }

    /// b^z directories at the deepest level.
    pub fn leaves(self) -> Option<u64> {
        (self.branch as u64).checked_pow(self.depth)
    }

    /// The index (breadth-first, the top is 0) of the first leaf.
    pub fn first_leaf(self) -> Option<u64> {
        Some(self.dirs()? - self.leaves()?)
    }

    /// The directories that hold items: the leaves with `-L`, else all.
    pub fn item_dirs(self) -> Option<u64> {
        if self.leaf_only {
            self.leaves()
        } else {
            self.dirs()
        }
    }

    /// The breadth-first index of the `k`-th directory that holds items.
    pub fn item_dir(self, k: u64) -> u64 {
        if self.leaf_only {
            self.first_leaf().unwrap_or(0) + k
        } else {
            k
        }
    }

    /// Each item directory's share of a rank's items: `-I`, else `-n`
    /// divided evenly (what does not divide is left out, as mdtest does).
    pub fn per_dir(self, config: &MdtestConfig) -> u64 {
        match config.items_per_dir {
            Some(k) => k,
            None => config.items / self.item_dirs().unwrap_or(1).max(1),
        }
    }

    /// The items each rank works on: its share per directory times the
    /// directories that hold items.
    pub fn items_per_rank(self, config: &MdtestConfig) -> u64 {
        self.per_dir(config)
            .saturating_mul(self.item_dirs().unwrap_or(0))
    }

    /// The breadth-first indices of directory `index`'s ancestors and
    /// itself, from the top: the path to it.
    pub fn path_of(self, index: u64) -> Vec<u64> {
        let b = self.branch.max(1) as u64;
        let mut chain = vec![index];
        let mut at = index;
        while at > 0 {
            at = (at - 1) / b;
            chain.push(at);
        }
        chain.reverse();
        chain
    }
}

/// One timed operation of a metadata benchmark: fileop's fifteen, then
/// mdtest's phases in its SUMMARY's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetaOp {
    Mkdir,
    Chdir,
    Rmdir,
    Create,
    Open,
    Read,
    Write,
    Close,
    Stat,
    Access,
    Chmod,
    Readdir,
    Link,
    Unlink,
    Delete,
    DirectoryCreation,
    DirectoryStat,
    DirectoryRename,
    DirectoryRemoval,
    FileCreation,
    FileStat,
    FileRead,
    FileRemoval,
    TreeCreation,
    TreeRemoval,
}

/// mdtest's phases, in its SUMMARY's order.
pub const MDTEST_ROWS: [MetaOp; 10] = [
    MetaOp::DirectoryCreation,
    MetaOp::DirectoryStat,
    MetaOp::DirectoryRename,
    MetaOp::DirectoryRemoval,
    MetaOp::FileCreation,
    MetaOp::FileStat,
    MetaOp::FileRead,
    MetaOp::FileRemoval,
    MetaOp::TreeCreation,
    MetaOp::TreeRemoval,
];

impl MetaOp {
    /// Its name in the benchmark's own output: fileop's column
    /// (`mkdir`), mdtest's row (`Directory creation`).
    pub fn name(self) -> &'static str {
        match self {
            MetaOp::Mkdir => "mkdir",
            MetaOp::Chdir => "chdir",
            MetaOp::Rmdir => "rmdir",
            MetaOp::Create => "create",
            MetaOp::Open => "open",
            MetaOp::Read => "read",
            MetaOp::Write => "write",
            MetaOp::Close => "close",
            MetaOp::Stat => "stat",
            MetaOp::Access => "access",
            MetaOp::Chmod => "chmod",
            MetaOp::Readdir => "readdir",
            MetaOp::Link => "link",
            MetaOp::Unlink => "unlink",
            MetaOp::Delete => "delete",
            MetaOp::DirectoryCreation => "Directory creation",
            MetaOp::DirectoryStat => "Directory stat",
            MetaOp::DirectoryRename => "Directory rename",
            MetaOp::DirectoryRemoval => "Directory removal",
            MetaOp::FileCreation => "File creation",
            MetaOp::FileStat => "File stat",
            MetaOp::FileRead => "File read",
            MetaOp::FileRemoval => "File removal",
            MetaOp::TreeCreation => "Tree creation",
            MetaOp::TreeRemoval => "Tree removal",
        }
    }

    /// Its name as one word (CSV, the latency table, file names):
    /// `mkdir`, `file_creation`.
    pub fn key(self) -> String {
        self.name().to_ascii_lowercase().replace(' ', "_")
    }

    /// Whether it is one of fileop's directory operations (counted in
    /// "Dirs", the others in "Files").
    pub fn on_directories(self) -> bool {
        matches!(self, MetaOp::Mkdir | MetaOp::Chdir | MetaOp::Rmdir)
    }

    /// Whether it is an mdtest phase rather than a fileop operation.
    pub fn is_mdtest(self) -> bool {
        MDTEST_ROWS.contains(&self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fileop_counts_follow_the_force_factor() {
        let two = FileopTree { factor: 2 };
        assert_eq!((two.dirs(), two.files(), two.readdirs()), (14, 8, 4));
        let three = FileopTree { factor: 3 };
        assert_eq!((three.dirs(), three.files(), three.readdirs()), (39, 27, 9));
        assert_eq!(three.count(MetaOp::Rmdir), 39);
        assert_eq!(three.count(MetaOp::Readdir), 9);
        assert_eq!(three.count(MetaOp::Link), 27);
    }

    fn mdtest(items: u64, depth: u32, branch: u32) -> MdtestConfig {
        MdtestConfig {
            items,
            depth,
            branch,
            items_per_dir: None,
            leaf_only: false,
            unique_dir: false,
            stride: 0,
            stonewall_seconds: 0,
            directories: true,
            files: true,
            phases: PhaseSelection::ALL,
            write_bytes: 0,
            read_bytes: 0,
            sync: false,
            print_time: false,
            time_only: false,
            dir: ".".into(),
            shape: None,
        }
    }

    #[test]
    fn mdtest_trees_have_mdtest_s_sizes() {
        let tree = |z, b, leaf_only| MdtestTree {
            depth: z,
            branch: b,
            leaf_only,
        };
        assert_eq!(tree(0, 1, false).dirs(), Some(1));
        assert_eq!(tree(3, 1, false).dirs(), Some(4));
        assert_eq!(tree(2, 3, false).dirs(), Some(13));
        assert_eq!(tree(2, 3, false).leaves(), Some(9));
        assert_eq!(tree(2, 3, true).item_dirs(), Some(9));
        assert_eq!(tree(2, 3, true).item_dir(0), 4);
        assert_eq!(tree(60, 10, false).dirs(), None);
        // The reference: -n 100 -z 2 -b 3 gives 7 items in each of 13
        // directories, 91 per rank (182 for two ranks).
        let c = mdtest(100, 2, 3);
        assert_eq!(MdtestTree::of(&c).items_per_rank(&c), 91);
        let mut leaves = c.clone();
        leaves.leaf_only = true;
        assert_eq!(MdtestTree::of(&leaves).items_per_rank(&leaves), 99);
        let mut per_dir = c;
        per_dir.items_per_dir = Some(5);
        assert_eq!(MdtestTree::of(&per_dir).items_per_rank(&per_dir), 65);
    }

    #[test]
    fn a_directory_s_path_runs_from_the_top() {
        let t = MdtestTree {
            depth: 2,
            branch: 3,
            leaf_only: false,
        };
        assert_eq!(t.path_of(0), [0]);
        assert_eq!(t.path_of(3), [0, 3]);
        assert_eq!(t.path_of(4), [0, 1, 4]);
        assert_eq!(t.path_of(12), [0, 3, 12]);
        let line = MdtestTree {
            depth: 3,
            branch: 1,
            leaf_only: false,
        };
        assert_eq!(line.path_of(3), [0, 1, 2, 3]);
    }

    #[test]
    fn every_op_has_a_one_word_key() {
        assert_eq!(MetaOp::Mkdir.key(), "mkdir");
        assert_eq!(MetaOp::FileCreation.key(), "file_creation");
        assert!(MetaOp::TreeRemoval.is_mdtest());
        assert!(!MetaOp::Delete.is_mdtest());
        assert!(MetaOp::Chdir.on_directories());
    }
}
