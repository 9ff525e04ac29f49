//! The files a history directory is made of, named once: the history
//! writes them (history/store.rs), and the output guard keeps every result
//! file of every command away from them (safety/result_place.rs), whatever
//! mark they carry: a history's runs are changed by `ioz history` alone.

/// The file that marks a directory as ioz's history (and is locked).
pub const MARK: &str = "ioz-history";
/// The directory of the run files, `runs/<id>.json`.
pub const RUNS: &str = "runs";
/// The index of the runs.
pub const INDEX: &str = "history.sqlite";
