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
    random_order(n).iter().collect()
}

/// [`random_permutation`] as it is kept while a pass's operations are built:
/// in 32 bits a record when the records number fewer than 2^32, so that the
/// order takes 4 bytes a record beside the 32 of each operation.
pub fn random_order(n: u64) -> Order {
    Order::shuffled(n, &IOZONE_RANDOM_KEY)
}

/// A permutation of 0..n, in the narrowest integers that hold it.
pub enum Order {
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Order {
    /// Bytes each position takes for `n` records.
    pub const fn bytes_per_record(n: u64) -> u64 {
        if n <= u32::MAX as u64 { 4 } else { 8 }
    }

    fn shuffled(n: u64, key: &[u64]) -> Order {
        if n <= u32::MAX as u64 {
            Order::Narrow(shuffle(n, key))
        } else {
            Order::Wide(shuffle(n, key))
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Order::Narrow(v) => v.len(),
            Order::Wide(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The positions' records, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        let (narrow, wide) = match self {
            Order::Narrow(v) => (&v[..], &[][..]),
            Order::Wide(v) => (&[][..], &v[..]),
        };
        OrderIter {
            narrow: narrow.iter(),
            wide: wide.iter(),
        }
    }
}

/// Walks whichever of the two forms holds the order (the other is empty).
struct OrderIter<'a> {
    narrow: std::slice::Iter<'a, u32>,
    wide: std::slice::Iter<'a, u64>,
}

impl Iterator for OrderIter<'_> {
    type Item = u64;

    #[inline]
    fn next(&mut self) -> Option<u64> {
        match self.narrow.next() {
            Some(&r) => Some(u64::from(r)),
            None => self.wide.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.narrow.len() + self.wide.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for OrderIter<'_> {}

/// A record number in the width a permutation is kept in.
trait Record: Copy {
    /// `n` is below the type's limit ([`Order::shuffled`] chose it so).
    fn from_u64(n: u64) -> Self;
}

impl Record for u32 {
    #[inline]
    fn from_u64(n: u64) -> u32 {
        n as u32
    }
}

impl Record for u64 {
    #[inline]
    fn from_u64(n: u64) -> u64 {
        n
    }
}

fn shuffle<T: Record>(n: u64, key: &[u64]) -> Vec<T> {
    let mut order: Vec<T> = (0..n).map(T::from_u64).collect();
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
    let reads = mix_read_count(n, read_percent);
    Order::shuffled(n, &MIX_CHOICE_KEY)
        .iter()
        .map(|r| r < reads)
        .collect()
}

/// How many of the first `done` of the mix's `n` operations read: a whole
/// pass needs no shuffle; a pass cut short (a stonewalled worker) shuffles
/// the `n` choices again, in 4 bytes each below 2^32.
pub fn mix_reads_among_first(n: u64, read_percent: u32, done: u64) -> u64 {
    let reads = mix_read_count(n, read_percent);
    if done >= n {
        return reads;
    }
    Order::shuffled(n, &MIX_CHOICE_KEY)
        .iter()
        .take(done as usize)
        .filter(|&r| r < reads)
        .count() as u64
}

/// Most operations a mix cut short may be shuffled again for when a saved
/// run is rendered (1 GiB of order): a live run that large held 8 GiB of
/// operations for the pass.
pub const MAX_RESHUFFLED_OPS: u64 = 1 << 28;

/// How many of the mix's `n` operations read: round(n·pct/100).
pub fn mix_read_count(n: u64, read_percent: u32) -> u64 {
    ((n as u128 * read_percent as u128 + 50) / 100) as u64
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
    fn the_narrow_and_wide_forms_shuffle_alike() {
        for n in [0, 1, 2, 17, 1000] {
            let narrow: Vec<u64> = shuffle::<u32>(n, &IOZONE_RANDOM_KEY)
                .into_iter()
                .map(u64::from)
                .collect();
            assert_eq!(narrow, shuffle::<u64>(n, &IOZONE_RANDOM_KEY), "n={n}");
        }
        assert!(matches!(random_order(1000), Order::Narrow(_)));
        assert_eq!(Order::bytes_per_record(u32::MAX as u64), 4);
        assert_eq!(Order::bytes_per_record(1 << 32), 8);
        let order = random_order(16);
        assert_eq!(order.iter().len(), 16);
        assert_eq!(order.iter().collect::<Vec<_>>(), random_permutation(16));
    }

    #[test]
    fn mix_reads_exact_share() {
        let m = mix_reads(200, 30);
        assert_eq!(m.iter().filter(|r| **r).count(), 60);
        assert!(mix_reads(10, 0).iter().all(|r| !r));
        assert!(mix_reads(10, 100).iter().all(|r| *r));
        // Not simply the first 60 operations.
        assert!(m[..60].iter().any(|r| !r));
        assert_eq!(mix_read_count(200, 30), 60);
        assert_eq!(mix_read_count(3, 50), 2);
        assert_eq!(mix_read_count(u64::MAX, 100), u64::MAX);
        for done in [0, 1, 59, 60, 61, 199, 200, 201] {
            let first = m.iter().take(done).filter(|r| **r).count() as u64;
            assert_eq!(mix_reads_among_first(200, 30, done as u64), first, "{done}");
        }
        // A whole pass: counted, not shuffled.
        assert_eq!(
            mix_reads_among_first(u64::MAX, 50, u64::MAX),
            u64::MAX / 2 + 1
        );
    }
}
