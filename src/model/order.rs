//! The orders IOzone's tests visit records in, and which operations of the
//! random mix read: pure functions of the record count, seeded as IOzone
//! seeds them. They define what a test is, so the plan's operations
//! (`data::pattern`) and the reports (what the mix's reads checked) share them.

use rand_mt::Mt64;

/// IOzone's key for the MT19937-64 generator behind its random permutation.
const IOZONE_RANDOM_KEY: [u64; 4] = [0x12345, 0x23456, 0x34567, 0x45678];
/// A different key for choosing which operations of the random mix read.
const MIX_CHOICE_KEY: [u64; 4] = [0x10203, 0x40506, 0x70809, 0x0a0b0c];

/// IOzone's random order: a permutation of 0..n from MT19937-64 seeded with
/// IOzone's key, using its swap-with-any-index shuffle. Every record once.
pub fn random_permutation(n: u64) -> Vec<u64> {
    shuffle(n, &IOZONE_RANDOM_KEY)
}

fn shuffle(n: u64, key: &[u64]) -> Vec<u64> {
    let mut order: Vec<u64> = (0..n).collect();
    if n == 0 {
        return order;
    }
    let mut rng = Mt64::new_with_key(key.iter().copied());
    for i in 0..n as usize {
        let j = (rng.next_u64() % n) as usize;
        order.swap(i, j);
    }
    order
}

/// For each of `n` operations, whether it reads: exactly round(n·pct/100) reads,
/// spread in a seeded random order.
pub fn mix_reads(n: u64, read_percent: u32) -> Vec<bool> {
    let reads = (n * read_percent as u64 + 50) / 100;
    shuffle(n, &MIX_CHOICE_KEY)
        .into_iter()
        .map(|r| r < reads)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut v: Vec<u64>) -> Vec<u64> {
        v.sort_unstable();
        v
    }

    #[test]
    fn random_permutation_matches_iozone() {
        assert_eq!(random_permutation(8), vec![3, 7, 2, 5, 6, 1, 0, 4]);
        assert_eq!(
            random_permutation(16),
            vec![3, 15, 8, 1, 12, 9, 7, 2, 5, 0, 6, 10, 14, 13, 4, 11]
        );
        let p = random_permutation(1000);
        assert_eq!(sorted(p.clone()), (0..1000).collect::<Vec<u64>>());
        assert_eq!(random_permutation(1), vec![0]);
        assert!(random_permutation(0).is_empty());
    }

    #[test]
    fn mix_reads_exact_share() {
        let m = mix_reads(200, 30);
        assert_eq!(m.iter().filter(|r| **r).count(), 60);
        assert!(mix_reads(10, 0).iter().all(|r| !r));
        assert!(mix_reads(10, 100).iter().all(|r| *r));
        // Not simply the first 60 operations.
        assert!(m[..60].iter().any(|r| !r));
    }
}
