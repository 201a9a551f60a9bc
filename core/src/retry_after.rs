//! The `Retry-After` header (RFC 9110 §10.2.3) as a delay, for R5.
//!
//! R5: "If `Retry-After` is present, wait at least that long ... either
//! integer seconds or an HTTP-date; for the date form compute the delay to
//! that instant (clamp negatives to 0)." Section 12.5 pins the behaviour.
//!
//! * Surrounding whitespace is ignored (the field value's OWS).
//! * `delta-seconds` is `1*DIGIT`: no sign, no fraction. Values too large
//!   for a `u64` saturate at `u64::MAX` seconds instead of failing: a server
//!   asking for "a very long time" is asking us to stay away, and an error
//!   would make the caller fall back to a *shorter* computed backoff.
//! * Anything else is read as an HTTP-date ([`crate::http_date`], all three
//!   formats, weekday name not checked; a two-digit year is read within 50
//!   years of `now` as RFC 9110 requires). The delay is `date - now`; a date
//!   at or before `now`, including one before 1970, is zero.
//! * An unparsable value is an error; what to do then (ignore the header
//!   and use the computed backoff) is the caller's decision.
//!
//! Interpretation of the section 12.5 vectors: `now` is 2026-05-23T00:00:00Z
//! (a Saturday, though the spec labels it "Mon"). `Mon, 23 May 2026
//! 00:00:30 GMT` is that day at 00:00:30 whatever its weekday name, so 30 s.
//! `Sun, 23 May 2026 00:00:00 GMT (past)` is the header value `Sun, 23 May
//! 2026 00:00:00 GMT` with the table's remark "(past)": the same instant as
//! `now`, hence 0 s (a strictly earlier date also clamps to 0).

use core::time::Duration;

use crate::http_date::{parse_http_date_relative_to, HttpDateError};
use crate::time::Timestamp;

/// Why a `Retry-After` value cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RetryAfterError {
    /// The value is empty or only whitespace.
    #[error("empty Retry-After value")]
    Empty,
    /// Neither delta-seconds nor an HTTP-date; the date parser's reason.
    #[error("Retry-After is neither delta-seconds nor an HTTP-date: {0}")]
    Invalid(#[source] HttpDateError),
}

/// The delay a `Retry-After` value asks for, seen from `now`.
///
/// ```
/// use core::time::Duration;
/// use wr_core::retry_after::parse_retry_after;
/// use wr_core::time::Timestamp;
/// let now = Timestamp(1_445_412_480_000); // Wed, 21 Oct 2015 07:28:00 GMT
/// assert_eq!(parse_retry_after("120", now), Ok(Duration::from_secs(120)));
/// assert_eq!(
///     parse_retry_after("Wed, 21 Oct 2015 07:29:00 GMT", now),
///     Ok(Duration::from_secs(60))
/// );
/// // An instant already past means "now".
/// assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now), Ok(Duration::ZERO));
/// ```
pub fn parse_retry_after(value: &str, now: Timestamp) -> Result<Duration, RetryAfterError> {
    let value = value.trim_ascii();
    if value.is_empty() {
        return Err(RetryAfterError::Empty);
    }
    if value.bytes().all(|b| b.is_ascii_digit()) {
        let secs = value.bytes().fold(0u64, |acc, b| {
            acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
        });
        return Ok(Duration::from_secs(secs));
    }
    match parse_http_date_relative_to(value, now) {
        Ok(at) => Ok(now.until(at)),
        Err(HttpDateError::BeforeEpoch) => Ok(Duration::ZERO),
        Err(e) => Err(RetryAfterError::Invalid(e)),
    }
}

/// The hold a server's `Retry-After` sets when it is recorded at `now`:
/// `until`, but no later than [`crate::constants::RETRY_AFTER_CAP`] from
/// `now`. Only a value past that is shortened; every real hold (seconds,
/// hours, a day of maintenance) is kept whole, as R5's "wait at least that
/// long" asks (see the constant for the reading).
pub fn cap_hold(until: Timestamp, now: Timestamp) -> Timestamp {
    until.min(now.saturating_add(crate::constants::RETRY_AFTER_CAP))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-05-23T00:00:00Z, section 12.5's `now`.
    const NOW: Timestamp = Timestamp::from_secs(1_779_494_400);

    fn secs(v: &str) -> Result<u64, RetryAfterError> {
        parse_retry_after(v, NOW).map(|d| d.as_secs())
    }

    /// Issue #20: a hold is capped at 30 days from when it is recorded;
    /// anything shorter, a day's maintenance say, is kept to the
    /// millisecond.
    #[test]
    fn only_a_hold_past_the_cap_is_shortened() {
        let day = NOW.saturating_add(Duration::from_secs(86_400));
        assert_eq!(cap_hold(day, NOW), day);
        let month = NOW.saturating_add(crate::constants::RETRY_AFTER_CAP);
        assert_eq!(cap_hold(month, NOW), month);
        let ten_years = NOW.saturating_add(Duration::from_secs(3_650 * 86_400));
        assert_eq!(cap_hold(ten_years, NOW), month);
        assert_eq!(cap_hold(Timestamp(u64::MAX), NOW), month);
    }

    #[test]
    fn section_12_5_vectors() {
        assert_eq!(secs("120"), Ok(120));
        assert_eq!(secs("0"), Ok(0));
        assert_eq!(secs("Mon, 23 May 2026 00:00:30 GMT"), Ok(30));
        assert_eq!(secs("Mon, 23 May 2026 00:00:00 GMT"), Ok(0));
        assert_eq!(secs("Sun, 23 May 2026 00:00:00 GMT"), Ok(0));
    }

    #[test]
    fn dates_in_the_past_clamp_to_zero() {
        assert_eq!(secs("Fri, 22 May 2026 23:59:59 GMT"), Ok(0));
        assert_eq!(secs("Sun, 06 Nov 1994 08:49:37 GMT"), Ok(0));
        assert_eq!(secs("Wed, 31 Dec 1969 23:59:59 GMT"), Ok(0));
        assert_eq!(
            parse_retry_after("Sun, 23 May 2026 00:00:00 GMT", Timestamp(NOW.0 + 1)),
            Ok(Duration::ZERO)
        );
    }

    #[test]
    fn future_dates_in_every_format() {
        assert_eq!(secs("Sat, 23 May 2026 01:00:00 GMT"), Ok(3600));
        assert_eq!(secs("Saturday, 23-May-26 01:00:00 GMT"), Ok(3600));
        assert_eq!(secs("Sat May 23 01:00:00 2026"), Ok(3600));
        // Sub-second `now`: the delay is exact to the millisecond.
        assert_eq!(
            parse_retry_after("Sat, 23 May 2026 00:00:01 GMT", Timestamp(NOW.0 + 250)),
            Ok(Duration::from_millis(750))
        );
    }

    #[test]
    fn whitespace_is_trimmed() {
        assert_eq!(secs("  120\t"), Ok(120));
        assert_eq!(secs(" Mon, 23 May 2026 00:00:30 GMT "), Ok(30));
    }

    #[test]
    fn huge_delta_seconds_saturate() {
        assert_eq!(secs("99999999999999999999999999"), Ok(u64::MAX));
        assert_eq!(secs("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(secs("000120"), Ok(120));
    }

    #[test]
    fn invalid_values() {
        assert_eq!(secs(""), Err(RetryAfterError::Empty));
        assert_eq!(secs("   "), Err(RetryAfterError::Empty));
        for bad in [
            "-1",
            "+5",
            "1.5",
            "1 2",
            "soon",
            "120s",
            "Sun, 23 May 2026 00:00:00 GMT (past)",
        ] {
            assert_eq!(
                secs(bad),
                Err(RetryAfterError::Invalid(HttpDateError::Syntax)),
                "{bad}"
            );
        }
        assert_eq!(
            secs("Sun, 31 Feb 2026 00:00:00 GMT"),
            Err(RetryAfterError::Invalid(HttpDateError::InvalidDay))
        );
    }
}
