//! The clock the shell reads (the core never does) and the jitter source.
//!
//! [`SystemClock`] is wall-clock time (`Timestamp` is Unix milliseconds,
//! because the per-host schedule persists across processes) read once, and
//! from then on advanced by the monotonic clock, with a real
//! `thread::sleep`: a wall clock stepped forward during a run (NTP, a
//! laptop waking, an operator) must not shorten R4 spacing or an R5 hold,
//! and one stepped back must not stretch them. Instants stored by an
//! earlier run that lie in the future are clamped to now when the store
//! is read ([`clamp_stored`], the one function every reader of a stored
//! instant uses). [`ManualClock`] is a virtual clock for tests and
//! benches: `sleep` advances it instantly.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};
use wr_core::time::Timestamp;

/// Where the pipeline gets "now" and how it waits.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The current instant.
    fn now(&self) -> Timestamp;
    /// Blocks the caller for `d` (a virtual clock just advances).
    fn sleep(&self, d: Duration);
}

/// A stored instant as this process may believe it: never later than
/// `now + ahead`, where `ahead` is the furthest into the future the value
/// could honestly lie when written by a clock that was right (zero for an
/// instant that happened: a fetch, a host's last request, R8's last run;
/// the longest hold of ours for a hold we set).
///
/// A value beyond that was written by a clock that was ahead (or has been
/// set back since). Believed, a host's last request 3 days ahead deferred
/// every source of the host as "Crawl-delay spacing" for 3 days, the
/// operator's included (issue #20); a robots.txt stayed "fresh" for its
/// TTL plus the skew (issue #11). Clamped, the instant counts as now: the
/// host waits one Crawl-delay, the robots.txt its TTL from now, never
/// less than a clock that was right would have made them wait.
pub fn clamp_stored(at: Timestamp, now: Timestamp, ahead: Duration) -> Timestamp {
    at.min(now.saturating_add(ahead))
}

/// Wall-clock time read once, then advanced monotonically; real sleeps.
#[derive(Debug)]
pub struct SystemClock {
    /// The monotonic instant and the wall-clock reading taken together on
    /// the first call.
    anchor: OnceLock<(Instant, u64)>,
    /// Where wall time comes from (Unix ms); replaceable in tests.
    wall: fn() -> u64,
}

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock {
            anchor: OnceLock::new(),
            wall: wall_ms,
        }
    }
}

impl SystemClock {
    /// A clock that reads the wall clock on its first use.
    pub fn new() -> SystemClock {
        SystemClock::default()
    }

    /// Now, given the anchor and the monotonic time elapsed since it.
    fn at(anchor_wall: u64, elapsed: Duration) -> Timestamp {
        let ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
        Timestamp(anchor_wall.saturating_add(ms))
    }
}

fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        let (start, wall) = *self.anchor.get_or_init(|| (Instant::now(), (self.wall)()));
        SystemClock::at(wall, start.elapsed())
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

    /// Within a process, time is the first wall reading plus monotonic
    /// elapsed time: a wall clock stepped an hour forward (or back) between
    /// two reads moves neither R4 spacing nor an R5 hold.
    #[test]
    fn a_wall_clock_step_during_a_run_does_not_move_time() {
        static READS: AtomicU64 = AtomicU64::new(0);
        fn stepping_wall() -> u64 {
            // 1 000 000 s, then an hour later on every further read.
            let n = READS.fetch_add(1, Ordering::SeqCst);
            1_000_000_000 + if n == 0 { 0 } else { 3_600_000 }
        }
        let c = SystemClock {
            anchor: OnceLock::new(),
            wall: stepping_wall,
        };
        let a = c.now();
        assert_eq!(a.0 / 1000, 1_000_000);
        std::thread::sleep(Duration::from_millis(20));
        let b = c.now();
        assert!(stepping_wall() > a.0 + 3_000_000, "the wall clock did step");
        let elapsed = b.0 - a.0;
        assert!((20..1_000).contains(&elapsed), "{elapsed} ms");
    }

    #[test]
    fn manual_clock_sleep_advances() {
        let c = ManualClock::new(Timestamp(1000));
        c.sleep(Duration::from_millis(1500));
        assert_eq!(c.now(), Timestamp(2500));
        assert_eq!(c.slept(), Duration::from_millis(1500));
    }
}
