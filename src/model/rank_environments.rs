//! Cluster mode: the settings in which the ranks' environments differ
//! from rank 0's (a client with another NFS version or rsize is the first
//! thing to look for when one is slower), the ranks with the same
//! differences named together, so that a thousand ranks of two kinds make
//! two lines.

use crate::model::env_facts::Difference;
use crate::model::result::{Client, RunResult};

/// Differing host names are what make the ranks clients, not a setting.
const NOT_A_SETTING: [&str; 1] = ["host"];

/// Ranks whose environments differ from rank 0's in the same settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RankDifferences {
    pub ranks: Vec<Client>,
    /// Rank 0's value is each difference's `old`, theirs its `new`.
    pub differences: Vec<Difference>,
}

impl RankDifferences {
    /// "rank 1 on node-b", or "ranks 1, 3 and 5 (on node-b, node-c)",
    /// with at most a few named.
    pub fn who(&self) -> String {
        const NAMED: usize = 4;
        match self.ranks.as_slice() {
            [one] => format!("rank {} on {}", one.rank, one.host),
            many => {
                let mut hosts: Vec<&str> = Vec::new();
                for c in many {
                    if !hosts.contains(&c.host.as_str()) {
                        hosts.push(&c.host);
                    }
                }
                let numbers: Vec<String> = many
                    .iter()
                    .take(NAMED)
                    .map(|c| c.rank.to_string())
                    .collect();
                let more = many.len().saturating_sub(NAMED);
                let numbers = if more > 0 {
                    format!("{} and {more} more", numbers.join(", "))
                } else {
                    numbers.join(", ")
                };
                let host_list = if hosts.len() > NAMED {
                    format!("{} hosts", hosts.len())
                } else {
                    hosts.join(", ")
                };
                format!("ranks {numbers} ({} ranks, on {host_list})", many.len())
            }
        }
    }
}

/// Each group of ranks whose environments differ from rank 0's, in the
/// order of their first rank; empty on one machine, for a run saved
/// before ranks kept their environments, and when every rank's matches.
pub fn rank_differences(result: &RunResult) -> Vec<RankDifferences> {
    let Some(first) = result.ranks.first().and_then(|r| r.environment.as_ref()) else {
        return Vec::new();
    };
    let mut groups: Vec<RankDifferences> = Vec::new();
    for rank in result.ranks.iter().skip(1) {
        let Some(env) = &rank.environment else {
            continue;
        };
        let differences: Vec<Difference> = first
            .differences(env)
            .into_iter()
            .filter(|d| !NOT_A_SETTING.contains(&d.name.as_str()))
            .collect();
        if differences.is_empty() {
            continue;
        }
        match groups.iter_mut().find(|g| g.differences == differences) {
            Some(g) => g.ranks.push(rank.client.clone()),
            None => groups.push(RankDifferences {
                ranks: vec![rank.client.clone()],
                differences,
            }),
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::test_config;
    use crate::model::environment::{Environment, NetworkMount};
    use crate::model::result::{RankCells, sample_result};

    fn rank(rank: u32, host: &str, rsize: u64) -> RankCells {
        let mut env = Environment {
            hostname: host.into(),
            ..Environment::default()
        };
        env.target.fs_type = "nfs4".into();
        env.target.network = Some(NetworkMount {
            rsize: Some(rsize),
            ..NetworkMount::default()
        });
        RankCells {
            client: Client {
                rank,
                host: host.into(),
            },
            test_file: "f".into(),
            cells: Vec::new(),
            cell_starts: Vec::new(),
            environment: Some(env),
        }
    }

    #[test]
    fn ranks_that_differ_alike_are_named_together() {
        let mut result = sample_result(test_config(&["-t", "4"]), Vec::new());
        result.ranks = vec![
            rank(0, "a", 1 << 20),
            rank(1, "b", 65536),
            rank(2, "c", 1 << 20),
            rank(3, "d", 65536),
        ];
        let groups = rank_differences(&result);
        assert_eq!(groups.len(), 1, "{groups:?}");
        assert_eq!(groups[0].who(), "ranks 1, 3 (2 ranks, on b, d)");
        let d = &groups[0].differences;
        assert_eq!(d.len(), 1, "the host is no setting: {d:?}");
        assert_eq!(d[0].name, "rsize");
        assert_eq!(d[0].old.as_deref(), Some("1048576"));
        assert_eq!(d[0].new.as_deref(), Some("65536"));
        // One rank alone: named with its host.
        result.ranks.truncate(2);
        assert_eq!(rank_differences(&result)[0].who(), "rank 1 on b");
        // Alike, or one machine: nothing.
        result.ranks[1] = rank(1, "b", 1 << 20);
        assert!(rank_differences(&result).is_empty());
        result.ranks.clear();
        assert!(rank_differences(&result).is_empty());
    }

    #[test]
    fn many_ranks_are_counted_not_listed() {
        let mut result = sample_result(test_config(&["-t", "8"]), Vec::new());
        result.ranks = (0..8)
            .map(|r| rank(r, &format!("n{r}"), if r == 0 { 1 } else { 2 }))
            .collect();
        assert_eq!(
            rank_differences(&result)[0].who(),
            "ranks 1, 2, 3, 4 and 3 more (7 ranks, on 7 hosts)"
        );
    }
}
