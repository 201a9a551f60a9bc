//! The clock the shell reads (the core never does) and the jitter source.
//!
//! [`SystemClock`] is wall-clock time (`Timestamp` is Unix milliseconds,
//! because the per-host schedule persists across processes) and a real
//! `thread::sleep`. [`ManualClock`] is a virtual clock for tests and
//! benches: `sleep` advances it instantly.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use wr_core::time::Timestamp;

/// Where the pipeline gets "now" and how it waits.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current instant.
    fn now(&self) -> Timestamp;
    /// Blocks the caller for `d` (a virtual clock just advances).
    fn sleep(&self, d: Duration);
}

/// Wall-clock time and real sleeps.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        Timestamp(ms)
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}

/// A virtual clock: `now` is whatever it was set to, `sleep` advances it.
#[derive(Debug, Default)]
pub struct ManualClock {
    ms: AtomicU64,
    slept: AtomicU64,
}

impl ManualClock {
    /// A clock reading `start`.
    pub fn new(start: Timestamp) -> ManualClock {
        ManualClock {
            ms: AtomicU64::new(start.0),
            slept: AtomicU64::new(0),
        }
    }
    /// Moves the clock forward by `d`.
    pub fn advance(&self, d: Duration) {
        let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        self.ms.fetch_add(ms, Ordering::SeqCst);
    }
    /// Sets the clock.
    pub fn set(&self, t: Timestamp) {
        self.ms.store(t.0, Ordering::SeqCst);
    }
    /// Total time spent in `sleep`.
    pub fn slept(&self) -> Duration {
        Duration::from_millis(self.slept.load(Ordering::SeqCst))
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.ms.load(Ordering::SeqCst))
    }
    fn sleep(&self, d: Duration) {
        let ms = u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        self.slept.fetch_add(ms, Ordering::SeqCst);
        self.ms.fetch_add(ms, Ordering::SeqCst);
    }
}

/// A tiny xorshift64* generator for backoff jitter (R5 full jitter needs a
/// uniform value in `[0, 1)`; nothing here is security-relevant).
#[derive(Debug, Clone)]
pub struct Jitter(u64);

impl Jitter {
    /// A generator from `seed` (0 is replaced by a fixed odd constant).
    pub fn new(seed: u64) -> Jitter {
        Jitter(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }
    /// A value uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_is_in_unit_interval() {
        let mut j = Jitter::new(0);
        for _ in 0..10_000 {
            let u = j.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }

    #[test]
    fn manual_clock_sleep_advances() {
        let c = ManualClock::new(Timestamp(1000));
        c.sleep(Duration::from_millis(1500));
        assert_eq!(c.now(), Timestamp(2500));
        assert_eq!(c.slept(), Duration::from_millis(1500));
    }
}
