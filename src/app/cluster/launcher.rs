//! Which MPI's launcher `-+m` starts, and the file and command line that
//! launcher takes: Open MPI's `mpirun --app APPFILE` or MPICH's (Hydra's)
//! `mpiexec -configfile CONFIGFILE`. The launcher is the `mpirun` on PATH
//! (else `mpiexec`), known by what its `--version` says. A binary built
//! against one MPI and started by the other's launcher refuses itself in
//! every rank (system::cluster::mpi), so the wrong pair never measures.

use std::fmt::Write as _;
use std::io::{self, ErrorKind};
use std::process::Command;

use super::clients::{CLIENT_FILE_VARIABLE, Client, counts_of};
use super::deadline::TIME_LIMIT_VARIABLE;

/// Open MPI's list of variables for the ranks, which it will not mix with
/// `-x`.
pub(crate) const ENV_LIST_VARIABLE: &str = "OMPI_MCA_mca_base_env_list";

/// The job's time limit unless MPIEXEC_TIMEOUT sets one (both launchers
/// read it): a hung rank must not hang the job for ever.
pub(crate) const DEFAULT_TIMEOUT_SECONDS: u64 = 24 * 3600;

/// Open MPI's `odls_base_sigkill_timeout`: signalled, mpirun sends the
/// ranks SIGTERM that many seconds later and SIGKILL as long after it (1 s
/// by default). The ranks stop at the SIGTERM and save the run before the
/// SIGKILL: measured at 0.02 to 0.3 s on 2 loaded cores, so 3 s leave room
/// for a slow disk or history directory, and a Ctrl-C shows its results 3
/// s after it.
pub(crate) const STOP_GRACE_SECONDS: u32 = 3;

/// The MPI a launcher belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mpi {
    OpenMpi,
    /// MPICH and the MPIs built on its Hydra launcher (Intel MPI, MVAPICH).
    Mpich,
}

/// The launcher found on PATH.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mpirun {
    pub program: String,
    pub mpi: Mpi,
}

/// The MPI a launcher's `--version` text names.
fn mpi_of(version: &str) -> Option<Mpi> {
    if version.contains("Open MPI") || version.contains("OpenRTE") {
        Some(Mpi::OpenMpi)
    } else if ["HYDRA", "MPICH", "Intel(R) MPI"]
        .iter()
        .any(|name| version.contains(name))
    {
        Some(Mpi::Mpich)
    } else {
        None
    }
}

/// `mpirun` on PATH, else `mpiexec`, and its MPI.
/// Why `-+m` has no launcher to start, or cannot start it as asked.
#[derive(Debug, thiserror::Error)]
pub(crate) enum LauncherError {
    #[error("-+m: cannot run {program} --version: {source}")]
    CannotAsk {
        program: &'static str,
        source: io::Error,
    },
    #[error(
        "-+m: {program} --version names neither Open MPI nor MPICH (HYDRA): ioz writes \
         the launch files of those two"
    )]
    Unknown { program: &'static str },
    #[error(
        "-+m: no MPI launcher on PATH (mpirun or mpiexec): install Open MPI (openmpi-bin) or \
         MPICH (mpich), the one ioz was built with"
    )]
    NoLauncher,
    #[error(
        "-+m: the client file's test files reach the ranks by mpirun's -x, which Open \
         MPI will not mix with {ENV_LIST_VARIABLE} (set here): unset it, or name the \
         files with -F"
    )]
    TestFilesBesideEnvList,
}

pub(crate) fn find() -> Result<Mpirun, LauncherError> {
    for program in ["mpirun", "mpiexec"] {
        let out = match Command::new(program).arg("--version").output() {
            Ok(out) => out,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(source) => return Err(LauncherError::CannotAsk { program, source }),
        };
        let mut said = String::from_utf8_lossy(&out.stdout).into_owned();
        said.push_str(&String::from_utf8_lossy(&out.stderr));
        return match mpi_of(&said) {
            Some(mpi) => Ok(Mpirun {
                program: program.to_string(),
                mpi,
            }),
            None => Err(LauncherError::Unknown { program }),
        };
    }
    Err(LauncherError::NoLauncher)
}

impl Mpirun {
    /// What the launch file is called in what ioz prints (`--dry-run`).
    pub fn file_word(&self) -> &'static str {
        match self.mpi {
            Mpi::OpenMpi => "APPFILE",
            Mpi::Mpich => "CONFIGFILE",
        }
    }

    /// Open MPI refuses `-x` beside a list of variables for the ranks
    /// (OMPI_MCA_mca_base_env_list, set here): the ranks' variables `vars`
    /// join that list then, and the value of the list for the launcher is
    /// returned; test files (which need `-x`) are refused beside it.
    /// Nothing for MPICH.
    pub fn rank_variable_list(
        &self,
        clients: &[Client],
        vars: &[(String, String)],
    ) -> Result<Option<String>, LauncherError> {
        if self.mpi != Mpi::OpenMpi {
            return Ok(None);
        }
        let Ok(list) = std::env::var(ENV_LIST_VARIABLE) else {
            return Ok(None);
        };
        if clients.iter().any(|c| c.test_file.is_some()) {
            return Err(LauncherError::TestFilesBesideEnvList);
        }
        let ours = vars.iter().map(|(k, v)| format!("{k}={v}"));
        Ok(Some(
            std::iter::once(list)
                .filter(|l| !l.is_empty())
                .chain(ours)
                .collect::<Vec<_>>()
                .join(";"),
        ))
    }

    /// The launch file: one rank per client, its host, working directory,
    /// the ranks' variables `vars` (the time limit, which every rank keeps
    /// too: deadline.rs; the history; the user's command line), for Open
    /// MPI by `-x` only when `by_x`, its test file and the ranks' command
    /// line.
    pub fn file(
        &self,
        clients: &[Client],
        args: &[String],
        vars: &[(String, String)],
        by_x: bool,
    ) -> String {
        match self.mpi {
            Mpi::OpenMpi => appfile(clients, args, if by_x { vars } else { &[] }),
            Mpi::Mpich => configfile(clients, args, vars),
        }
    }

    /// The variables to set for the launcher, and its command line with
    /// the launch file `file`; `root`: ioz runs as root (Open MPI refuses
    /// it unless told); `timeout_set`: the user's MPIEXEC_TIMEOUT is there
    /// for the launcher to read.
    pub fn command(
        &self,
        file: &str,
        root: bool,
        timeout_set: bool,
    ) -> (Vec<(String, String)>, Vec<String>) {
        let mut env = Vec::new();
        let mut line = vec![self.program.clone()];
        match self.mpi {
            Mpi::OpenMpi => {
                if root {
                    line.push("--allow-run-as-root".into());
                }
                if !timeout_set {
                    line.extend(["--timeout".into(), DEFAULT_TIMEOUT_SECONDS.to_string()]);
                }
                // A rank's workers are threads: bound to one core, as Open
                // MPI binds each of up to two ranks by default, they would
                // share it (ioz places them itself with -P).
                line.extend(["--bind-to", "none"].map(String::from));
                // Ranks that wait (at barriers, for stops) give their core
                // to the workers of the ranks beside them.
                line.extend(["--mca", "mpi_yield_when_idle", "1"].map(String::from));
                // A Ctrl-C gives the ranks time to save what they measured.
                line.extend(["--mca", "odls_base_sigkill_timeout"].map(String::from));
                line.push(STOP_GRACE_SECONDS.to_string());
                line.push("--app".into());
            }
            Mpi::Mpich => {
                // Hydra has no time-limit option: it reads the variable.
                if !timeout_set {
                    env.push((
                        TIME_LIMIT_VARIABLE.to_string(),
                        DEFAULT_TIMEOUT_SECONDS.to_string(),
                    ));
                }
                line.push("-configfile".into());
            }
        }
        line.push(file.to_string());
        (env, line)
    }
}

/// The Open MPI appfile: one rank per line, `--host H:K` where K is the
/// number of ranks on H (without it a second rank on a host is refused),
/// the ranks' variables `vars` by `-x`.
pub(crate) fn appfile(clients: &[Client], args: &[String], vars: &[(String, String)]) -> String {
    let mut text = String::new();
    let hosts: Vec<&str> = clients.iter().map(|c| c.host.as_str()).collect();
    for (c, slots) in clients.iter().zip(counts_of(&hosts)) {
        let _ = write!(text, "-np 1 --host {}:{slots} --wdir {}", c.host, c.workdir);
        // Every rank keeps the job's time limit too (deadline.rs): one cut
        // off from mpirun leaves by itself.
        for (k, v) in vars {
            let _ = write!(text, " -x {k}={v}");
        }
        if let Some(f) = &c.test_file {
            let _ = write!(text, " -x {CLIENT_FILE_VARIABLE}={f}");
        }
        push_command(&mut text, c, args);
        text.push('\n');
    }
    text
}

/// MPICH's config file: one rank per line, `-n 1 -host H -wdir W`, the
/// ranks' variables `vars` by `-env`, the lines joined by ` :` (Hydra
/// reads the file as one command line of colon-separated ranks).
pub(crate) fn configfile(clients: &[Client], args: &[String], vars: &[(String, String)]) -> String {
    let lines: Vec<String> = clients
        .iter()
        .map(|c| {
            let mut line = format!("-n 1 -host {} -wdir {}", c.host, c.workdir);
            for (k, v) in vars {
                let _ = write!(line, " -env {k} {v}");
            }
            if let Some(f) = &c.test_file {
                let _ = write!(line, " -env {CLIENT_FILE_VARIABLE} {f}");
            }
            push_command(&mut line, c, args);
            line
        })
        .collect();
    let mut text = lines.join(" :\n");
    text.push('\n');
    text
}

fn push_command(text: &mut String, client: &Client, args: &[String]) {
    let _ = write!(text, " {}", client.ioz);
    for a in args {
        let _ = write!(text, " {a}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::cluster::clients::parse_clients;

    fn clients() -> Vec<Client> {
        let text = "node1 /w1 /bin/ioz\nnode2 /w2 /opt/ioz f2 # two\nnode1 /w3 /bin/ioz\n";
        parse_clients("c", text).unwrap()
    }

    fn limit() -> Vec<(String, String)> {
        vec![(TIME_LIMIT_VARIABLE.to_string(), "60".to_string())]
    }

    #[test]
    fn client_lines_become_open_mpi_ranks() {
        let args = vec!["-t".to_string(), "3".to_string()];
        assert_eq!(
            appfile(&clients(), &args, &limit()),
            "-np 1 --host node1:2 --wdir /w1 -x MPIEXEC_TIMEOUT=60 /bin/ioz -t 3\n\
             -np 1 --host node2:1 --wdir /w2 -x MPIEXEC_TIMEOUT=60 -x IOZ_CLIENT_TEST_FILE=f2 \
             /opt/ioz -t 3\n\
             -np 1 --host node1:2 --wdir /w3 -x MPIEXEC_TIMEOUT=60 /bin/ioz -t 3\n"
        );
    }

    #[test]
    fn client_lines_become_mpich_ranks_joined_by_colons() {
        let args = vec!["-t".to_string(), "3".to_string()];
        assert_eq!(
            configfile(&clients(), &args, &limit()),
            "-n 1 -host node1 -wdir /w1 -env MPIEXEC_TIMEOUT 60 /bin/ioz -t 3 :\n\
             -n 1 -host node2 -wdir /w2 -env MPIEXEC_TIMEOUT 60 -env IOZ_CLIENT_TEST_FILE f2 \
             /opt/ioz -t 3 :\n\
             -n 1 -host node1 -wdir /w3 -env MPIEXEC_TIMEOUT 60 /bin/ioz -t 3\n"
        );
    }

    #[test]
    fn each_mpi_is_known_by_its_version_text() {
        assert_eq!(
            mpi_of(
                "mpirun (Open MPI) 4.1.4\n\nReport bugs to http://www.open-mpi.org/community/help/\n"
            ),
            Some(Mpi::OpenMpi)
        );
        assert_eq!(
            mpi_of("HYDRA build details:\n    Version:                                 4.0.2\n"),
            Some(Mpi::Mpich)
        );
        assert_eq!(
            mpi_of("Intel(R) MPI Library for Linux* OS, Version 2021.10"),
            Some(Mpi::Mpich)
        );
        assert_eq!(mpi_of("srun 23.02"), None);
    }

    #[test]
    fn mpich_gets_its_time_limit_through_the_variable() {
        let mpich = Mpirun {
            program: "mpiexec".into(),
            mpi: Mpi::Mpich,
        };
        let (env, line) = mpich.command("/tmp/f", true, false);
        assert_eq!(line, ["mpiexec", "-configfile", "/tmp/f"]);
        assert_eq!(
            env,
            [(TIME_LIMIT_VARIABLE.to_string(), "86400".to_string())]
        );
        // The user's own limit is the launcher's already.
        assert!(mpich.command("/tmp/f", true, true).0.is_empty());
        let open = Mpirun {
            program: "mpirun".into(),
            mpi: Mpi::OpenMpi,
        };
        let (env, line) = open.command("/tmp/f", false, false);
        assert!(env.is_empty());
        assert_eq!(line.first().map(String::as_str), Some("mpirun"));
        assert_eq!(&line[line.len() - 2..], ["--app", "/tmp/f"]);
        // Time for the ranks to save a run stopped by a Ctrl-C.
        assert!(
            line.windows(3)
                .any(|w| w == ["--mca", "odls_base_sigkill_timeout", "3"]),
            "{line:?}"
        );
    }
}
