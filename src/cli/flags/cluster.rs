//! Cluster mode's own options (ioz built with --features mpi): IOzone's
//! network test, and its time server, which MPI ranks do without.

use super::Spelling::{Long, Plus};
use super::{Flag, Section};

/// What -+H says: accepted, and why nothing need be done.
const NO_TIME_SERVER: &[&str] = &[
    "No PIT time server needed (-+H): rank 0 aligns each rank's clock with its own by \
     message round trips",
];

/// And -+P, its port.
const NO_TIME_SERVER_PORT: &[&str] = &["No PIT time server port needed (-+P) either"];

pub(super) const SECTION: Section = Section {
    title: "Cluster mode (ioz built with --features mpi)",
    note: "",
    flags: &[
        Flag::switch(
            Plus('t'),
            "IOzone's network test, instead of file I/O: between every client of -+m \
             (or MPI rank) and rank 0, the round trip and the throughput each way, a \
             table; no file is made",
            |s| s.network_test = true,
        ),
        Flag::switch(
            Long("every-pair"),
            "-+t between every pair of clients, not only each and rank 0",
            |s| s.every_pair = true,
        ),
        Flag::word(
            Plus('H'),
            "HOST",
            "a host name",
            "IOzone's PIT time server: not needed, the ranks' clocks are aligned by \
             message round trips (accepted, one line says so)",
            |_, _| {},
        )
        .header(NO_TIME_SERVER),
        Flag::word(
            Plus('P'),
            "PORT",
            "a port",
            "IOzone's PIT time server's port: not needed either (accepted, one line \
             says so)",
            |_, _| {},
        )
        .header(NO_TIME_SERVER_PORT),
    ],
};
