//! Cluster mode (issue 17): ioz's ranks under Open MPI's mpirun and
//! `ioz -+m clientfile`; the default build's refusal of both.

use std::process::Command;

use crate::fixtures::{IOZ, Test, assert_refused, run, trials};

/// The tests of this module, in the harness (tests/e2e/fixtures/harness.rs).
pub fn tests() -> Vec<Test> {
    trials![
        the_default_build_under_a_launcher_says_how_to_build_the_mpi_one,
        the_default_build_asked_for_plus_m_says_how_to_build_the_mpi_one,
    ]
}

fn the_default_build_under_a_launcher_says_how_to_build_the_mpi_one() {
    let dir = tempfile::tempdir().unwrap();
    for (variable, value) in [
        ("OMPI_COMM_WORLD_SIZE", "4"),
        ("PMI_SIZE", "2"),
        ("PMIX_RANK", "0"),
    ] {
        let r = run(Command::new(IOZ)
            .args(["-t", "1", "-s", "64k", "-r", "4k", "-i", "0"])
            .env(variable, value)
            .current_dir(dir.path()));
        let line = assert_refused(&r, "cargo build --release --features mpi");
        assert!(line.contains(variable), "{line}");
        assert!(line.contains("libopenmpi-dev openmpi-bin"), "{line}");
    }
}

fn the_default_build_asked_for_plus_m_says_how_to_build_the_mpi_one() {
    let dir = tempfile::tempdir().unwrap();
    let clients = dir.path().join("clients");
    std::fs::write(&clients, "localhost /tmp /usr/bin/ioz\n").unwrap();
    let r = run(Command::new(IOZ)
        .args(["-t", "1", "-s", "64k", "-r", "4k", "-i", "0", "-+m"])
        .arg(&clients)
        .current_dir(dir.path()));
    let line = assert_refused(&r, "cargo build --release --features mpi");
    assert!(line.starts_with("ioz: -+m: "), "{line}");
}
