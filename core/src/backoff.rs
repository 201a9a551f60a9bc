//! The R5 retry schedule: which statuses are retried, how long to wait,
//! and when to give up.
//!
//! R5 (section 9.4): on 429 or 503 a tool MUST back off and retry; other
//! 5xx MAY be retried the same way. The wait is `Retry-After` when present
//! ("wait at least that long, using it in place of the computed delay"),
//! otherwise full jitter: `random_between(0, min(BACKOFF_CAP, BASE *
//! 2^attempt))`, `attempt` starting at 0. Retries are bounded by
//! `DEFAULT_MAX_RETRIES`, then the target is given up (and, per the
//! section 7 diagram, the host left alone for `FAILURE_COOLDOWN`).
//!
//! The core draws no random numbers: the caller passes `unit_random`, a
//! uniform sample from `[0, 1)`, so the schedule is a pure function tests
//! can pin down.
//!
//! Choices where the spec is silent:
//!
//! * `attempt` is the number of retries already made for this target: the
//!   first failure schedules retry `attempt = 0`; with the default of 5,
//!   attempts 0..=4 retry and attempt 5 gives up (one request plus five
//!   retries at most).
//! * `Retry-After` replaces the computed delay and is **not** capped at
//!   `BACKOFF_CAP`: the cap bounds what *we* compute, while the server's
//!   value is a floor we must respect. Whether a long wait is worth it is
//!   the shell's decision (it may give up instead, never retry sooner). It
//!   does not lift the retry bound either: retries still end at
//!   `max_retries`.
//! * `unit_random` outside `[0, 1]` is clamped; NaN counts as 0 (the
//!   shortest wait, which is still within the schedule).
//! * Retryable statuses: 429 and 503 (MUST), plus 500, 502 and 504 (the
//!   transient server and gateway errors; MAY). 501 and 505 and the other
//!   5xx describe a permanent condition, and retrying them would only add
//!   load on a struggling host.

use core::time::Duration;

use crate::constants::{BACKOFF_CAP, DEFAULT_BACKOFF_BASE, DEFAULT_MAX_RETRIES};

/// Whether a response status is retried under R5: 429 and 503 (MUST),
/// 500, 502 and 504 (MAY, chosen here).
///
/// ```
/// use wr_core::backoff::is_retryable_status;
/// assert!(is_retryable_status(503));
/// assert!(is_retryable_status(429));
/// assert!(!is_retryable_status(404));
/// ```
pub fn is_retryable_status(status: u16) -> bool {
    matches!(status, 429 | 500 | 502 | 503 | 504)
}

/// What to do after a retryable failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackoffStep {
    /// Retry, no sooner than `after` from now.
    Retry {
        /// The minimum wait before the retry.
        after: Duration,
    },
    /// Retries are exhausted: give up on the target and record the failure.
    GiveUp,
}

/// The R5 schedule parameters; [`Default`] is section 6's constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// `DEFAULT_BACKOFF_BASE`: the ceiling of the first retry's wait.
    pub base: Duration,
    /// `BACKOFF_CAP`: no computed wait exceeds this.
    pub cap: Duration,
    /// `DEFAULT_MAX_RETRIES`: retries after the first attempt.
    pub max_retries: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base: DEFAULT_BACKOFF_BASE,
            cap: BACKOFF_CAP,
            max_retries: DEFAULT_MAX_RETRIES,
        }
    }
}

const NANOS_PER_SEC: u128 = 1_000_000_000;

fn from_nanos(n: u128) -> Duration {
    let secs = u64::try_from(n / NANOS_PER_SEC).unwrap_or(u64::MAX);
    // The remainder is below 1e9, so it fits a u32.
    let sub = (n % NANOS_PER_SEC) as u32;
    Duration::new(secs, sub)
}

impl Backoff {
    /// `min(cap, base * 2^attempt)`, the upper bound of the jittered wait,
    /// computed without overflow for any `attempt`.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        let cap = self.cap.as_nanos();
        let base = self.base.as_nanos();
        let grown = 1u128
            .checked_shl(attempt)
            .and_then(|factor| base.checked_mul(factor))
            .unwrap_or(if base == 0 { 0 } else { u128::MAX });
        from_nanos(grown.min(cap))
    }

    /// The full-jitter wait for retry number `attempt`:
    /// `unit_random * min(cap, base * 2^attempt)`. `unit_random` should be
    /// uniform in `[0, 1)`; out-of-range values are clamped, NaN is 0.
    pub fn delay(&self, attempt: u32, unit_random: f64) -> Duration {
        let r = if unit_random.is_nan() {
            0.0
        } else {
            unit_random.clamp(0.0, 1.0)
        };
        let ceiling = self.ceiling(attempt).as_nanos();
        // f64 rounding can land a hair above the ceiling; never exceed it.
        // `as u128` saturates and maps NaN to 0, so the cast cannot panic.
        let jittered = ((ceiling as f64) * r) as u128;
        from_nanos(jittered.min(ceiling))
    }

    /// The step after a retryable failure of retry number `attempt`:
    /// give up once `attempt >= max_retries`, otherwise retry after
    /// `retry_after` (the server's `Retry-After`, uncapped) or, without
    /// one, the jittered [`Backoff::delay`].
    ///
    /// ```
    /// use core::time::Duration;
    /// use wr_core::backoff::{Backoff, BackoffStep};
    /// let b = Backoff::default();
    /// // A server's Retry-After wins over the computed wait.
    /// assert_eq!(
    ///     b.next(0, Some(Duration::from_secs(7)), 0.5),
    ///     BackoffStep::Retry { after: Duration::from_secs(7) }
    /// );
    /// // Otherwise full jitter under min(cap, base * 2^attempt).
    /// match b.next(3, None, 0.5) {
    ///     BackoffStep::Retry { after } => assert!(after <= b.ceiling(3)),
    ///     BackoffStep::GiveUp => unreachable!(),
    /// }
    /// // The budget spent: give up (the caller then holds the host).
    /// assert_eq!(b.next(b.max_retries, None, 0.5), BackoffStep::GiveUp);
    /// ```
    pub fn next(
        &self,
        attempt: u32,
        retry_after: Option<Duration>,
        unit_random: f64,
    ) -> BackoffStep {
        if attempt >= self.max_retries {
            return BackoffStep::GiveUp;
        }
        BackoffStep::Retry {
            after: retry_after.unwrap_or_else(|| self.delay(attempt, unit_random)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retryable_statuses() {
        for s in [429, 503, 500, 502, 504] {
            assert!(is_retryable_status(s), "{s}");
        }
        for s in [200, 304, 400, 403, 404, 408, 501, 505, 599, 0, u16::MAX] {
            assert!(!is_retryable_status(s), "{s}");
        }
    }

    #[test]
    fn defaults_are_section_6() {
        let b = Backoff::default();
        assert_eq!(b.base, Duration::from_secs(1));
        assert_eq!(b.cap, Duration::from_secs(60));
        assert_eq!(b.max_retries, 5);
    }

    #[test]
    fn ceiling_doubles_then_caps() {
        let b = Backoff::default();
        let secs: [u64; 8] = [1, 2, 4, 8, 16, 32, 60, 60];
        for (attempt, want) in secs.iter().enumerate() {
            assert_eq!(b.ceiling(attempt as u32), Duration::from_secs(*want));
        }
        for attempt in [63, 64, 127, 128, 1000, u32::MAX] {
            assert_eq!(b.ceiling(attempt), BACKOFF_CAP, "{attempt}");
        }
        let huge = Backoff {
            base: Duration::MAX,
            cap: Duration::MAX,
            max_retries: 5,
        };
        assert_eq!(huge.ceiling(3), Duration::MAX);
        let zero = Backoff {
            base: Duration::ZERO,
            ..Backoff::default()
        };
        assert_eq!(zero.ceiling(u32::MAX), Duration::ZERO);
    }

    #[test]
    fn full_jitter() {
        let b = Backoff::default();
        assert_eq!(b.delay(0, 0.0), Duration::ZERO);
        assert_eq!(b.delay(0, 0.5), Duration::from_millis(500));
        assert_eq!(b.delay(3, 0.25), Duration::from_secs(2));
        assert_eq!(b.delay(10, 0.5), Duration::from_secs(30));
        assert!(b.delay(10, 0.999_999_999_999) < BACKOFF_CAP);
    }

    #[test]
    fn odd_random_values_are_clamped() {
        let b = Backoff::default();
        assert_eq!(b.delay(2, f64::NAN), Duration::ZERO);
        assert_eq!(b.delay(2, -1.0), Duration::ZERO);
        assert_eq!(b.delay(2, f64::NEG_INFINITY), Duration::ZERO);
        assert_eq!(b.delay(2, 1.0), Duration::from_secs(4));
        assert_eq!(b.delay(2, 7.0), Duration::from_secs(4));
        assert_eq!(b.delay(2, f64::INFINITY), Duration::from_secs(4));
        let huge = Backoff {
            base: Duration::MAX,
            cap: Duration::MAX,
            max_retries: 5,
        };
        assert!(huge.delay(u32::MAX, 1.0) <= Duration::MAX);
    }

    #[test]
    fn gives_up_after_max_retries() {
        let b = Backoff::default();
        for attempt in 0..5 {
            assert!(matches!(
                b.next(attempt, None, 0.5),
                BackoffStep::Retry { .. }
            ));
        }
        assert_eq!(b.next(5, None, 0.5), BackoffStep::GiveUp);
        assert_eq!(b.next(u32::MAX, None, 0.5), BackoffStep::GiveUp);
        assert_eq!(
            b.next(5, Some(Duration::from_secs(1)), 0.5),
            BackoffStep::GiveUp,
            "Retry-After does not extend the retry budget"
        );
        let never = Backoff {
            max_retries: 0,
            ..b
        };
        assert_eq!(never.next(0, None, 0.5), BackoffStep::GiveUp);
    }

    #[test]
    fn retry_after_replaces_the_computed_delay_uncapped() {
        let b = Backoff::default();
        assert_eq!(
            b.next(0, Some(Duration::from_secs(120)), 0.9),
            BackoffStep::Retry {
                after: Duration::from_secs(120)
            }
        );
        assert_eq!(
            b.next(4, Some(Duration::ZERO), 0.9),
            BackoffStep::Retry {
                after: Duration::ZERO
            }
        );
        assert_eq!(
            b.next(1, None, 0.5),
            BackoffStep::Retry {
                after: Duration::from_secs(1)
            }
        );
    }
}
