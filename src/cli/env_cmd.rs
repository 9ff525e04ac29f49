//! `ioz env [PATH] [--json]`: the environment a run on PATH would record,
//! without measuring; `ioz env --diff OLD NEW`: what differs between two
//! saved environments (runs saved with --json, or `ioz env --json` output);
//! `ioz env -h`.

use std::ffi::OsString;
use std::path::PathBuf;

use lexopt::{Arg, Parser};

use super::value::{lexopt_error, path_value};
use super::{UsageError, usage};

/// What `ioz env …` asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum EnvCommand {
    /// The environment of a target path.
    Show {
        /// The file or directory a run would test (default: the current directory).
        path: PathBuf,
        /// JSON instead of text.
        json: bool,
    },
    /// What differs between two saved environments.
    Diff { old: PathBuf, new: PathBuf },
    /// `-h`/`--help`, anywhere.
    Help,
}

pub const ENV_HELP: &str = "\
Usage: ioz env [PATH] [--json]
       ioz env --diff OLD.json NEW.json

Prints what a run on PATH would record of the machine and the target
(kernel, CPU and caches, memory, page-cache tunables, virtualisation,
mitigations, the file system, the device and the devices under it),
without measuring anything. What cannot be read is shown as unknown.

  PATH          the test file or directory a run would use (default: .)
  --json        the environment as JSON, as a saved run's \"environment\"
  --diff OLD NEW
                what differs between two environments: each a run saved
                with ioz --json FILE, or the output of ioz env --json; a
                line per setting (scheduler: mq-deadline → none), and a
                warning when more than one setting differs
  -h, --help    this help
";

pub fn parse(args: impl Iterator<Item = OsString>) -> Result<EnvCommand, UsageError> {
    let mut parser = Parser::from_args(args);
    let mut path = None;
    let mut json = false;
    let mut diff = None;
    while let Some(arg) = parser.next().map_err(lexopt_error)? {
        match arg {
            Arg::Short('h') | Arg::Long("help") => return Ok(EnvCommand::Help),
            Arg::Long("json") => json = true,
            Arg::Long("diff") => {
                let old = path_value(&mut parser, "--diff")?;
                let new = match parser.next().map_err(lexopt_error)? {
                    Some(Arg::Value(v)) => PathBuf::from(v),
                    _ => {
                        return Err(usage(
                            "env: --diff takes two saved environments: ioz env --diff OLD.json NEW.json",
                        ));
                    }
                };
                diff = Some((old, new));
            }
            Arg::Value(v) if path.is_none() => path = Some(PathBuf::from(v)),
            Arg::Value(v) => {
                return Err(usage(format!(
                    "env: unexpected argument '{}' (one path at a time)",
                    v.to_string_lossy()
                )));
            }
            Arg::Short(c) => return Err(unknown(&format!("-{c}"))),
            Arg::Long(l) => return Err(unknown(&format!("--{l}"))),
        }
    }
    match diff {
        Some(_) if path.is_some() || json => Err(usage(
            "env: --diff compares two saved environments and takes no PATH or --json",
        )),
        Some((old, new)) => Ok(EnvCommand::Diff { old, new }),
        None => Ok(EnvCommand::Show {
            path: path.unwrap_or_else(|| PathBuf::from(".")),
            json,
        }),
    }
}

fn unknown(option: &str) -> UsageError {
    usage(format!(
        "env: unknown option {option} (ioz env -h lists its options)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<EnvCommand, UsageError> {
        parse(args.iter().map(OsString::from))
    }

    #[test]
    fn a_path_defaults_to_the_current_directory() {
        assert_eq!(
            parsed(&[]),
            Ok(EnvCommand::Show {
                path: ".".into(),
                json: false
            })
        );
        assert_eq!(
            parsed(&["/mnt/x", "--json"]),
            Ok(EnvCommand::Show {
                path: "/mnt/x".into(),
                json: true
            })
        );
        assert_eq!(parsed(&["a", "-h"]), Ok(EnvCommand::Help));
    }

    #[test]
    fn diff_takes_two_files_and_nothing_else() {
        assert_eq!(
            parsed(&["--diff", "a.json", "b.json"]),
            Ok(EnvCommand::Diff {
                old: "a.json".into(),
                new: "b.json".into()
            })
        );
        for bad in [
            &["--diff", "a.json"][..],
            &["--diff", "a.json", "b.json", "c"],
            &["--diff", "a.json", "b.json", "--json"],
            &["a", "b"],
            &["--bogus"],
            &["-x"],
        ] {
            let e = parsed(bad).unwrap_err();
            assert!(e.0.starts_with("env: "), "{bad:?}: {e}");
        }
    }
}
