//! The monotonic clock, in nanoseconds, as one number that processes on the
//! same machine can compare (throughput mode measures from the parent's
//! barrier release to the last worker's end).

/// CLOCK_MONOTONIC now, in nanoseconds.
#[inline]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own; CLOCK_MONOTONIC
    // always exists on Linux, so it cannot fail.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The CPU's time-stamp counter, scaled to nanoseconds: the per-operation
/// clock of `--latency`, `-Q` and `-+z` where the kernel itself keeps time
/// with it (its clocksource is `tsc`: invariant, synchronised across CPUs).
/// A read is one `rdtsc` (about 15 ns on this project's machines against
/// 37-42 ns for clock_gettime); only differences of reads are used, so the
/// counter's origin does not matter. Elsewhere the loop uses [`now_ns`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tsc {
    /// Nanoseconds per tick, in 32.32 fixed point.
    mult: u64,
}

impl Tsc {
    /// Measures the counter's rate against CLOCK_MONOTONIC over about
    /// 20 ms (untimed, once per run). `None` off x86-64, or if the counter
    /// does not move forward with the clock.
    pub fn calibrate() -> Option<Tsc> {
        let (t0, c0) = (now_ns(), Tsc::ticks()?);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let (t1, c1) = (now_ns(), Tsc::ticks()?);
        let (ns, ticks) = (t1.checked_sub(t0)?, c1.checked_sub(c0)?);
        if ns == 0 || ticks < ns / 16 {
            return None;
        }
        let mult = ((ns as u128) << 32) / ticks as u128;
        u64::try_from(mult).ok().map(|mult| Tsc { mult })
    }

    /// The counter now; `None` where there is none.
    #[inline(always)]
    fn ticks() -> Option<u64> {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: rdtsc only reads the counter; every x86-64 CPU has it.
            Some(unsafe { core::arch::x86_64::_rdtsc() })
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }

    /// The counter now (only called on a `Tsc` that [`Tsc::calibrate`] made,
    /// so there is one).
    #[inline(always)]
    pub fn now(self) -> u64 {
        Tsc::ticks().unwrap_or(0)
    }

    /// Ticks between two reads, in nanoseconds.
    #[inline(always)]
    pub fn ns(self, ticks: u64) -> u64 {
        ((ticks as u128 * self.mult as u128) >> 32) as u64
    }
}

/// The per-operation clock: the TSC where the kernel keeps time with it
/// ([`Tsc`]), else CLOCK_MONOTONIC; only differences of its reads mean
/// anything.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpClock(pub Option<Tsc>);

impl OpClock {
    /// The clock now: TSC ticks, or monotonic ns.
    #[inline(always)]
    pub fn now(self) -> u64 {
        match self.0 {
            Some(tsc) => tsc.now(),
            None => now_ns(),
        }
    }

    /// The time between two reads of [`OpClock::now`], in ns.
    #[inline(always)]
    pub fn ns(self, from: u64, to: u64) -> u64 {
        let d = to.wrapping_sub(from);
        match self.0 {
            Some(tsc) => tsc.ns(d),
            None => d,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_clock_moves_forward() {
        let a = super::now_ns();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = super::now_ns();
        assert!(b >= a + 2_000_000, "{a} → {b}");
    }

    #[test]
    fn the_tsc_agrees_with_the_clock_within_a_percent() {
        let Some(tsc) = super::Tsc::calibrate() else {
            return; // not x86-64: the loop uses the monotonic clock
        };
        let (t0, c0) = (super::now_ns(), tsc.now());
        std::thread::sleep(std::time::Duration::from_millis(30));
        let (t1, c1) = (super::now_ns(), tsc.now());
        let (clock, counted) = ((t1 - t0) as f64, tsc.ns(c1 - c0) as f64);
        assert!(
            (counted / clock - 1.0).abs() < 0.01,
            "{counted} ns vs {clock} ns"
        );
    }
}
