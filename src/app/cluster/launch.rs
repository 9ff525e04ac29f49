//! `ioz -+m clientfile -t N …` (or `-a …`, every client running the whole
//! plan): IOzone's cluster command line, carried out by MPI. Each line of the client file (`host  workdir  path-to-ioz
//! [testfile]`, `#` comments) becomes one rank of an Open MPI appfile; ioz
//! runs `mpirun --app` on it with a time limit, or with `--dry-run` prints
//! the command and the file instead. The ranks are this same command line
//! without `-+m`, each on its host, in its working directory. (Built
//! without MPI, ioz refuses -+m before it gets here; the client file's
//! reading is tested in every build.)
#![cfg_attr(
    not(feature = "mpi"),
    expect(dead_code, reason = "-+m is carried out by the MPI build only")
)]

use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::deadline::{TIME_LIMIT_VARIABLE, time_limit};
use super::refusal;
use crate::app::output::say;
use crate::cli::{self, Command as Parsed};
use crate::error::Exit;
use crate::system::host;

/// The variable through which a rank learns its client's test file (the
/// client file's fourth column).
pub(crate) const CLIENT_FILE_VARIABLE: &str = "IOZ_CLIENT_TEST_FILE";

/// Open MPI's list of variables for the ranks, which it will not mix with
/// `-x`.
const ENV_LIST_VARIABLE: &str = "OMPI_MCA_mca_base_env_list";

/// mpirun's time limit unless MPIEXEC_TIMEOUT sets one: a hung rank must
/// not hang the job for ever.
const DEFAULT_TIMEOUT_SECONDS: u64 = 24 * 3600;

/// The options whose value is a result file rank 0 writes: made absolute
/// here, so that they land where the user is, not in the first client's
/// working directory.
const RESULT_FILE_OPTIONS: &[&str] = &["-b", "--json", "--csv", "--html", "--plots"];

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

/// The Open MPI appfile: one rank per line, `--host H:K` where K is the
/// number of ranks on H (without it a second rank on a host is refused).
pub(crate) fn appfile(clients: &[Client], args: &[String], time_limit_by_x: Option<u64>) -> String {
    let mut text = String::new();
    for c in clients {
        let slots = clients.iter().filter(|o| o.host == c.host).count();
        let _ = write!(text, "-np 1 --host {}:{slots} --wdir {}", c.host, c.workdir);
        // Every rank keeps the job's time limit too (deadline.rs): one cut
        // off from mpirun leaves by itself.
        if let Some(seconds) = time_limit_by_x {
            let _ = write!(text, " -x {TIME_LIMIT_VARIABLE}={seconds}");
        }
        if let Some(f) = &c.test_file {
            let _ = write!(text, " -x {CLIENT_FILE_VARIABLE}={f}");
        }
        let _ = write!(text, " {}", c.ioz);
        for a in args {
            let _ = write!(text, " {a}");
        }
        text.push('\n');
    }
    text
}

/// The ranks' command line: the user's without `-+m FILE` and `--dry-run`,
/// its result files made absolute. An argument with white space cannot go
/// through an appfile.
fn rank_args(args: &[OsString], plus_m: usize, cwd: &Path) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    let mut skip_value = false;
    for (i, a) in args.iter().enumerate().skip(1) {
        if skip_value {
            skip_value = false;
            continue;
        }
        if i == plus_m {
            skip_value = a == "-+m";
            continue;
        }
        if a == "--dry-run" {
            continue;
        }
        let Some(word) = a.to_str() else {
            return Err(format!("-+m: {} is not UTF-8", a.to_string_lossy()));
        };
        if word.chars().any(char::is_whitespace) || word.is_empty() {
            return Err(format!(
                "-+m: {word:?}: an argument with white space cannot go through an MPI appfile"
            ));
        }
        let value_of_result_option = out
            .last()
            .is_some_and(|prev| RESULT_FILE_OPTIONS.contains(&prev.as_str()));
        if value_of_result_option && Path::new(word).is_relative() {
            out.push(cwd.join(word).to_string_lossy().into_owned());
        } else {
            out.push(word.to_string());
        }
    }
    Ok(out)
}

/// Carries out `ioz … -+m FILE …` (`plus_m`: where `-+m` is in `args`).
pub(crate) fn launch(args: &[OsString], plus_m: usize, file: Option<&OsString>) -> Exit {
    match try_launch(args, plus_m, file) {
        Ok(exit) => exit,
        Err(line) => {
            say(line);
            Exit::Usage
        }
    }
}

fn try_launch(args: &[OsString], plus_m: usize, file: Option<&OsString>) -> Result<Exit, String> {
    let Some(file) = file else {
        return Err("-+m: give the client file (host, working directory, path to ioz)".into());
    };
    let name = file.to_string_lossy().into_owned();
    let text = std::fs::read_to_string(file).map_err(|e| format!("-+m {name}: {e}"))?;
    let clients = parse_clients(&name, &text)?;
    let cwd = std::env::current_dir().map_err(|e| format!("-+m: the current directory: {e}"))?;
    let rank_args = rank_args(args, plus_m, &cwd)?;
    // The command line is checked here, before anything starts anywhere.
    let mut parsed_args = vec![args[0].clone()];
    parsed_args.extend(rank_args.iter().map(OsString::from));
    let config = match cli::parse(parsed_args, &host::facts()) {
        Ok(Parsed::Run(config)) => config,
        Ok(_) => return Err("-+m: give a run (-t N …, or -a …)".into()),
        Err(e) => return Err(e.to_string()),
    };
    let ranks = match &config.throughput {
        // IOzone's clients are the file's first N lines.
        Some(tp) => clients.len().min(tp.max_worker_count() as usize),
        // Single and auto mode: every client runs the whole plan.
        None => clients.len(),
    };
    let clients = &clients[..ranks];
    if let Some(why) = refusal(&config, ranks as u32) {
        return Err(why);
    }
    let time_limit = match std::env::var(TIME_LIMIT_VARIABLE) {
        Err(_) => None,
        Ok(value) => Some(time_limit(Some(&value)).ok_or_else(|| {
            format!("{TIME_LIMIT_VARIABLE}={value:?}: give the job's time limit in whole seconds above 0")
        })?),
    };
    let time_limit_seconds = time_limit.map_or(DEFAULT_TIMEOUT_SECONDS, |t| t.as_secs());
    // Open MPI refuses -x beside a list of variables for the ranks
    // (OMPI_MCA_mca_base_env_list): the time limit joins that list then.
    let env_list = std::env::var(ENV_LIST_VARIABLE).ok();
    if env_list.is_some() && clients.iter().any(|c| c.test_file.is_some()) {
        return Err(format!(
            "-+m: the client file's test files reach the ranks by mpirun's -x, which Open MPI \
             will not mix with {ENV_LIST_VARIABLE} (set here): unset it, or name the files \
             with -F"
        ));
    }
    let env_list = env_list.map(|list| {
        let limit = format!("{TIME_LIMIT_VARIABLE}={time_limit_seconds}");
        if list.is_empty() {
            limit
        } else {
            format!("{list};{limit}")
        }
    });
    let app = appfile(
        clients,
        &rank_args,
        env_list.is_none().then_some(time_limit_seconds),
    );
    let mut mpirun: Vec<String> = vec!["mpirun".into()];
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        mpirun.push("--allow-run-as-root".into());
    }
    if time_limit.is_none() {
        mpirun.extend(["--timeout".into(), DEFAULT_TIMEOUT_SECONDS.to_string()]);
    }
    // Ranks that wait (at barriers, for stops) give their core to the
    // workers of the ranks beside them.
    mpirun.extend(["--mca".into(), "mpi_yield_when_idle".into(), "1".into()]);
    mpirun.push("--app".into());
    if args.iter().any(|a| a == "--dry-run") {
        mpirun.push("APPFILE".into());
        let mut out = std::io::stdout().lock();
        if let Some(list) = &env_list {
            let _ = write!(out, "{ENV_LIST_VARIABLE}='{list}' ");
        }
        let _ = write!(out, "{}\n# APPFILE\n{app}", mpirun.join(" "));
        return Ok(Exit::Success);
    }
    let path = write_appfile(&app)?;
    mpirun.push(path.to_string_lossy().into_owned());
    let mut command = Command::new(&mpirun[0]);
    if let Some(list) = &env_list {
        command.env(ENV_LIST_VARIABLE, list);
    }
    let status = command.args(&mpirun[1..]).status();
    let _ = std::fs::remove_file(&path);
    let status = status.map_err(|e| format!("-+m: cannot run mpirun: {e}"))?;
    Ok(match status.code() {
        Some(0) => Exit::Success,
        Some(2) => Exit::Usage,
        Some(_) => Exit::Failure,
        None => Exit::Failure,
    })
}

/// The appfile, in a new file of the temporary directory (never one that
/// was there).
fn write_appfile(text: &str) -> Result<PathBuf, String> {
    let path = std::env::temp_dir().join(format!("ioz-appfile-{}", std::process::id()));
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .map_err(|e| format!("-+m: cannot write the appfile {}: {e}", path.display()))?;
    f.write_all(text.as_bytes())
        .map_err(|e| format!("-+m: cannot write the appfile {}: {e}", path.display()))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_lines_become_ranks() {
        let text = "# host  workdir  ioz  [file]\n\nnode1 /w1 /bin/ioz\nnode2 /w2 /opt/ioz f2 # two\nnode1 /w3 /bin/ioz\n";
        let clients = parse_clients("c", text).unwrap();
        assert_eq!(clients.len(), 3);
        assert_eq!(clients[1].test_file.as_deref(), Some("f2"));
        let args = vec!["-t".to_string(), "3".to_string()];
        assert_eq!(
            appfile(&clients, &args, Some(60)),
            "-np 1 --host node1:2 --wdir /w1 -x MPIEXEC_TIMEOUT=60 /bin/ioz -t 3\n\
             -np 1 --host node2:1 --wdir /w2 -x MPIEXEC_TIMEOUT=60 -x IOZ_CLIENT_TEST_FILE=f2 \
             /opt/ioz -t 3\n\
             -np 1 --host node1:2 --wdir /w3 -x MPIEXEC_TIMEOUT=60 /bin/ioz -t 3\n"
        );
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

    #[test]
    fn the_ranks_get_the_command_line_without_plus_m() {
        let args: Vec<OsString> = ["ioz", "-t", "2", "-+m", "c", "--dry-run", "-b", "r.xls"]
            .iter()
            .map(OsString::from)
            .collect();
        assert_eq!(
            rank_args(&args, 3, Path::new("/here")).unwrap(),
            ["-t", "2", "-b", "/here/r.xls"]
        );
        let spaced: Vec<OsString> = ["ioz", "-f", "a b"].iter().map(OsString::from).collect();
        assert!(rank_args(&spaced, 99, Path::new("/")).is_err());
    }
}
