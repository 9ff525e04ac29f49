//! A rank of a cluster run, as every result names it.

use serde::{Deserialize, Serialize};

/// An MPI rank of a cluster run: a client of IOzone's `-+m`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Client {
    pub rank: u32,
    pub host: String,
}
