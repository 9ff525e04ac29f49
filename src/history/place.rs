//! Where the history is: `--history DIR`, else `IOZ_HISTORY`, else
//! `$XDG_DATA_HOME/ioz`, else `~/.local/share/ioz` (the XDG base directory
//! specification's default). Recording is off with `--no-history` or
//! `IOZ_NO_HISTORY=1` (an explicit `--history DIR` wins over the variable).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `IOZ_HISTORY=DIR`: the history's directory.
pub const HISTORY_ENV: &str = "IOZ_HISTORY";
/// `IOZ_NO_HISTORY=1`: runs are not recorded.
pub const NO_HISTORY_ENV: &str = "IOZ_NO_HISTORY";

/// Neither the user nor the environment names a directory for the history.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "no data directory for the history (neither XDG_DATA_HOME nor HOME is set): \
     give --history DIR or {HISTORY_ENV}, or --no-history"
)]
pub struct NoDataDirectory;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// Nothing is recorded.
    Off,
    Dir(PathBuf),
}

/// The history of a command. `recording`: a measuring run (which
/// `IOZ_NO_HISTORY` turns off); `ioz history …` reads the history whatever
/// that variable says. `env` reads a variable (the process's in ioz, a
/// table in tests).
pub fn locate(
    flag_dir: Option<&Path>,
    no_history: bool,
    recording: bool,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Location, NoDataDirectory> {
    if no_history {
        return Ok(Location::Off);
    }
    if let Some(dir) = flag_dir {
        return Ok(Location::Dir(dir.to_path_buf()));
    }
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    if recording && set(NO_HISTORY_ENV).is_some_and(|v| v != "0") {
        return Ok(Location::Off);
    }
    if let Some(dir) = set(HISTORY_ENV) {
        return Ok(Location::Dir(PathBuf::from(dir)));
    }
    match default_dir(env) {
        Some(dir) => Ok(Location::Dir(dir)),
        None => Err(NoDataDirectory),
    }
}

/// `$XDG_DATA_HOME/ioz` (when absolute, as the specification asks), else
/// `$HOME/.local/share/ioz`. Never in the crate's own unit tests: they must
/// not touch the user's history, so they get no default at all.
pub fn default_dir(env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if cfg!(test) {
        return None;
    }
    let absolute = |name: &str| env(name).map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(data) = absolute("XDG_DATA_HOME") {
        return Some(data.join("ioz"));
    }
    absolute("HOME").map(|home| home.join(".local/share/ioz"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn the_flag_then_the_variables() {
        let vars = [("IOZ_HISTORY", "/h"), ("IOZ_NO_HISTORY", "1")];
        let e = env(&vars);
        let flag = Some(Path::new("/f"));
        let at = |flag, no_history, recording, e: &dyn Fn(&str) -> Option<OsString>| {
            locate(flag, no_history, recording, e).unwrap()
        };
        assert_eq!(at(flag, false, true, &e), Location::Dir("/f".into()));
        assert_eq!(at(flag, true, true, &e), Location::Off);
        assert_eq!(at(None, false, true, &e), Location::Off);
        // ioz history … reads the history whatever IOZ_NO_HISTORY says.
        assert_eq!(at(None, false, false, &e), Location::Dir("/h".into()));
        let zero = [("IOZ_HISTORY", "/h"), ("IOZ_NO_HISTORY", "0")];
        assert_eq!(
            at(None, false, true, &env(&zero)),
            Location::Dir("/h".into())
        );
    }

    #[test]
    fn unit_tests_never_reach_the_users_data_directory() {
        let vars = [("HOME", "/home/u"), ("XDG_DATA_HOME", "/d")];
        assert_eq!(default_dir(&env(&vars)), None);
        let e = locate(None, false, true, &env(&vars)).unwrap_err();
        assert_eq!(e, NoDataDirectory);
        assert!(e.to_string().contains("--history DIR"), "{e}");
    }
}
