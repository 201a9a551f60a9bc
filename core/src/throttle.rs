//! R4 arithmetic: how far apart two requests to one host must be, and how
//! long the next one has to wait.
//!
//! Section 9.3: a tool MUST NOT exceed one request per second per host; the
//! spacing before the next request to a host is `max(MIN_REQUEST_INTERVAL,
//! Crawl-delay)`; the first request to a previously unseen host MUST NOT be
//! delayed. The gate keeps the per-host "last request" instants (keyed by
//! host, R4); this module only does the arithmetic, saturating so that an
//! absurd Crawl-delay (`1e30` becomes `Duration::MAX` in the robots module)
//! means "not in this lifetime" instead of a panic or a wrap-around to "now".

use core::time::Duration;

use crate::constants::MIN_REQUEST_INTERVAL;
use crate::time::Timestamp;

/// The minimum spacing between two requests to one host:
/// `max(MIN_REQUEST_INTERVAL, crawl_delay)`, rounded up to a whole
/// millisecond ([`ceil_millis`]).
///
/// ```
/// use core::time::Duration;
/// use wr_core::throttle::spacing;
/// // R4: max(1 s, Crawl-delay).
/// assert_eq!(spacing(None), Duration::from_secs(1));
/// assert_eq!(spacing(Some(Duration::from_millis(200))), Duration::from_secs(1));
/// assert_eq!(spacing(Some(Duration::from_secs(5))), Duration::from_secs(5));
/// ```
pub fn spacing(crawl_delay: Option<Duration>) -> Duration {
    ceil_millis(crawl_delay.map_or(MIN_REQUEST_INTERVAL, |d| d.max(MIN_REQUEST_INTERVAL)))
}

/// `d` rounded up to a whole millisecond (saturating). Instants are
/// milliseconds and adding a [`Duration`] to one drops its sub-millisecond
/// part, so a fractional Crawl-delay such as `1.0005` would otherwise give
/// slots 1000 ms apart, closer than the publisher asked (R2d, R4).
pub fn ceil_millis(d: Duration) -> Duration {
    if d.subsec_nanos().is_multiple_of(1_000_000) {
        return d;
    }
    let whole = Duration::from_millis(u64::from(d.subsec_millis()) + 1);
    Duration::from_secs(d.as_secs())
        .checked_add(whole)
        .unwrap_or(Duration::MAX)
}

/// The earliest instant of the next request to a host whose last request
/// was at `last`; `None` for an unseen host, which may go at once.
pub fn next_slot(last: Option<Timestamp>, crawl_delay: Option<Duration>) -> Option<Timestamp> {
    last.map(|t| t.saturating_add(spacing(crawl_delay)))
}

/// How long a request at `now` must wait: zero for an unseen host or a
/// slot already reached.
pub fn wait(last: Option<Timestamp>, crawl_delay: Option<Duration>, now: Timestamp) -> Duration {
    next_slot(last, crawl_delay).map_or(Duration::ZERO, |slot| now.until(slot))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: Timestamp = Timestamp(1_779_494_400_000);

    #[test]
    fn spacing_is_max_of_one_second_and_crawl_delay() {
        assert_eq!(spacing(None), Duration::from_secs(1));
        assert_eq!(spacing(Some(Duration::ZERO)), Duration::from_secs(1));
        assert_eq!(
            spacing(Some(Duration::from_millis(500))),
            Duration::from_secs(1)
        );
        assert_eq!(
            spacing(Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(
            spacing(Some(Duration::from_millis(1500))),
            Duration::from_millis(1500)
        );
        assert_eq!(spacing(Some(Duration::MAX)), Duration::MAX);
    }

    #[test]
    fn sub_millisecond_delays_round_up() {
        let cd = Some(Duration::from_micros(1_000_500));
        assert_eq!(spacing(cd), Duration::from_millis(1001));
        assert_eq!(next_slot(Some(T0), cd), Some(Timestamp(T0.0 + 1001)));
        assert_eq!(
            wait(Some(T0), cd, Timestamp(T0.0 + 1000)),
            Duration::from_millis(1)
        );
        let cd = Some(Duration::new(2, 1));
        assert_eq!(spacing(cd), Duration::from_millis(2001));
        assert_eq!(
            ceil_millis(Duration::from_millis(1500)),
            Duration::from_millis(1500)
        );
        assert_eq!(ceil_millis(Duration::MAX), Duration::MAX);
        assert_eq!(
            ceil_millis(Duration::new(u64::MAX, 999_000_001)),
            Duration::MAX
        );
    }

    #[test]
    fn unseen_host_is_not_delayed() {
        assert_eq!(next_slot(None, Some(Duration::from_secs(30))), None);
        assert_eq!(wait(None, Some(Duration::MAX), T0), Duration::ZERO);
        assert_eq!(wait(None, None, Timestamp(0)), Duration::ZERO);
    }

    #[test]
    fn waits_until_the_slot() {
        // The section 16 canaries' Crawl-delay: 2.
        let cd = Some(Duration::from_secs(2));
        assert_eq!(next_slot(Some(T0), cd), Some(Timestamp(T0.0 + 2000)));
        assert_eq!(wait(Some(T0), cd, T0), Duration::from_secs(2));
        assert_eq!(
            wait(Some(T0), cd, Timestamp(T0.0 + 1500)),
            Duration::from_millis(500)
        );
        assert_eq!(wait(Some(T0), cd, Timestamp(T0.0 + 2000)), Duration::ZERO);
        assert_eq!(wait(Some(T0), cd, Timestamp(T0.0 + 9000)), Duration::ZERO);
        assert_eq!(wait(Some(T0), None, T0), Duration::from_secs(1));
    }

    #[test]
    fn clock_going_backwards_waits_the_whole_interval_plus_the_skew() {
        assert_eq!(
            wait(Some(T0), None, Timestamp(T0.0 - 500)),
            Duration::from_millis(1500)
        );
    }

    #[test]
    fn huge_values_saturate() {
        assert_eq!(
            next_slot(Some(T0), Some(Duration::MAX)),
            Some(Timestamp(u64::MAX))
        );
        assert_eq!(
            next_slot(Some(Timestamp(u64::MAX)), None),
            Some(Timestamp(u64::MAX))
        );
        assert_eq!(
            wait(Some(Timestamp(u64::MAX)), None, T0),
            T0.until(Timestamp(u64::MAX))
        );
        assert_eq!(
            wait(Some(Timestamp(u64::MAX)), None, Timestamp(u64::MAX)),
            Duration::ZERO
        );
    }
}
