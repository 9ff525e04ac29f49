//! `ioz env`: the environment of a target path, captured as a run would
//! capture it and printed without measuring; `ioz env --diff`: what
//! differs between two saved environments.

use std::fs;
use std::path::Path;

use super::input_files::{RunFileError, of_rank, rank_selected, read_saved_run};
use super::output::{print_text, say};
use crate::cli::EnvCommand;
use crate::error::Exit;
use crate::model::environment::Environment;
use crate::model::rank_view::RankError;
use crate::report::environment_text::{differences_detail, environment_text};
use crate::report::json::parse_run;
use crate::system::environment;

pub(crate) fn env(command: EnvCommand) -> Exit {
    match command {
        EnvCommand::Show { path, json } => show(&path, json),
        EnvCommand::Diff { old, new } => diff(&old, &new),
    }
}

fn show(path: &Path, json: bool) -> Exit {
    if path.as_os_str().is_empty() {
        say("env: the path is empty; name a file or directory (ioz env -h for help)");
        return Exit::Usage;
    }
    // A run creates its file in an existing directory: a path whose
    // directory is missing names no target.
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if fs::symlink_metadata(path).is_err() && !dir.is_dir() {
        say(format_args!(
            "env: {}: no such file or directory (nor its directory)",
            path.display()
        ));
        return Exit::Usage;
    }
    let env = environment::capture(path);
    let text = if json {
        match serde_json::to_string_pretty(&env) {
            Ok(mut s) => {
                s.push('\n');
                s
            }
            Err(e) => {
                say(format_args!(
                    "env: cannot write the environment as JSON: {e}"
                ));
                return Exit::Failure;
            }
        }
    } else {
        format!(
            "Environment of {} (nothing measured)\n\n{}",
            path.display(),
            environment_text(&env)
        )
    };
    print_text(&text, "the environment")
}

fn diff(old: &Path, new: &Path) -> Exit {
    let (a, b) = match (read_environment(old), read_environment(new)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            say(format_args!("env: {e}"));
            return Exit::Usage;
        }
    };
    let mut text = format!(
        "Environment differences, {} → {}:\n",
        old.display(),
        new.display()
    );
    for line in differences_detail(&a.differences(&b)) {
        text.push_str(&line);
        text.push('\n');
    }
    print_text(&text, "the differences")
}

/// The environment of a run saved with --json (of its rank N's host with
/// `run.json#rank=N`), or of `ioz env --json`'s output; the saved run's
/// error when the file is neither.
fn read_environment(arg: &Path) -> Result<Environment, RunFileError> {
    let (path, rank) = rank_selected(arg)?;
    let bytes = read_saved_run(&path)?;
    match parse_run(&bytes, &path.display().to_string()) {
        Ok(run) => Ok(of_rank(run, &path, rank)?.environment),
        Err(_) if rank.is_some() => Err(RunFileError::Rank {
            path,
            rank: rank.unwrap_or_default(),
            source: RankError::OneMachine,
        }),
        Err(not_a_run) => serde_json::from_slice(&bytes).map_err(|_| not_a_run.into()),
    }
}
