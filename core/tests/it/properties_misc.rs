//! Property tests for the small parsers and schedules: nothing panics on
//! arbitrary input, the canonical key is stable, and the backoff never
//! exceeds its ceiling.

use std::time::Duration;

use proptest::prelude::*;
use wr_core::backoff::Backoff;
use wr_core::canonical::canonical_url;
use wr_core::domain::host_matches_domain;
use wr_core::duration::parse_duration;
use wr_core::http_date::{format_http_date, parse_http_date, parse_http_date_relative_to};
use wr_core::retry_after::parse_retry_after;
use wr_core::throttle;
use wr_core::time::Timestamp;

/// Strings that look like URLs often enough to get past the scheme check.
fn url_like() -> impl Strategy<Value = String> {
    (
        prop::sample::select(vec![
            "http://", "HTTPS://", "https://", "hTtP://", "ftp://", "",
        ]),
        "[a-zA-Z0-9@:.\\[\\]é-]{0,12}",
        "[/a-zA-Z0-9?#=&%.é]{0,16}",
    )
        .prop_map(|(s, h, p)| format!("{s}{h}{p}"))
}

/// Strings shaped like HTTP-dates, with random fields.
fn date_like() -> impl Strategy<Value = String> {
    (
        "[A-Za-z]{3,9}",
        0u32..40,
        prop::sample::select(vec!["Jan", "Feb", "may", "Dec", "Foo"]),
        0u32..10_000,
        0u32..30,
        0u32..70,
        0u32..70,
        0usize..3,
    )
        .prop_map(|(dn, d, m, y, h, mi, s, form)| match form {
            0 => format!("{dn}, {d:02} {m} {y:04} {h:02}:{mi:02}:{s:02} GMT"),
            1 => format!("{dn}, {d:02}-{m}-{:02} {h:02}:{mi:02}:{s:02} GMT", y % 100),
            _ => format!("{dn} {m} {d:>2} {h:02}:{mi:02}:{s:02} {y:04}"),
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::cases(2000), ..ProptestConfig::default() })]

    #[test]
    fn parse_duration_never_panics(s in ".{0,24}", t in "P[0-9WDTHMSY.,]{0,16}") {
        let _ = parse_duration(&s);
        let _ = parse_duration(&t);
    }

    #[test]
    fn http_date_and_retry_after_never_panic(
        s in ".{0,40}",
        d in date_like(),
        now in any::<u64>(),
    ) {
        for v in [&s, &d] {
            let _ = parse_http_date(v);
            let _ = parse_http_date_relative_to(v, Timestamp(now));
            let _ = parse_retry_after(v, Timestamp(now));
        }
    }

    #[test]
    fn http_date_format_round_trips(secs in 0u64..253_402_300_800) {
        let t = Timestamp::from_secs(secs);
        let mut s = String::new();
        format_http_date(t, &mut s).unwrap();
        prop_assert_eq!(parse_http_date(&s), Ok(t), "{}", s);
        // A date is never in the past relative to itself.
        prop_assert_eq!(parse_retry_after(&s, t), Ok(Duration::ZERO));
    }

    #[test]
    fn canonical_never_panics_and_is_stable(u in prop_oneof![url_like(), ".{0,30}"]) {
        if let Ok(key) = canonical_url(&u) {
            let again = canonical_url(&key);
            // Stripping exactly one trailing '/' (R7) is the one documented
            // non-idempotent case: a path that ended in "//".
            let path = key.split_once("://").map_or("", |(_, r)| r);
            let path = path.find('/').map_or("", |i| &path[i..]);
            let path = path.split('?').next().unwrap_or("");
            if path == "/" || !path.ends_with('/') {
                prop_assert_eq!(again.as_deref(), Ok(key.as_str()), "input {:?}", u);
            } else {
                prop_assert!(again.is_ok());
            }
        }
    }

    #[test]
    fn host_matching_never_panics(h in ".{0,16}", d in ".{0,16}") {
        let _ = host_matches_domain(&h, &d);
        // Matching is case-insensitive for ASCII.
        prop_assert_eq!(
            host_matches_domain(&h, &d),
            host_matches_domain(&h.to_ascii_uppercase(), &d.to_ascii_lowercase())
        );
    }

    /// Issue #18's one trailing-dot rule: dots appended to the host or the
    /// domain, with or without a port after them, never change the answer.
    #[test]
    fn trailing_dots_and_ports_never_change_a_match(
        h in "[a-z]{1,4}(\\.[a-z]{1,4}){0,3}",
        d in "[a-z]{1,4}(\\.[a-z]{1,4}){0,2}",
        host_dots in 0usize..4,
        domain_dots in 0usize..4,
        port in proptest::option::of(1u16..),
    ) {
        let plain = host_matches_domain(&h, &d);
        let port = port.map_or(String::new(), |p| format!(":{p}"));
        let host = format!("{h}{}{port}", ".".repeat(host_dots));
        let domain = format!("{d}{}", ".".repeat(domain_dots));
        prop_assert_eq!(host_matches_domain(&host, &domain), plain, "{} / {}", host, domain);
    }

    #[test]
    fn backoff_stays_under_its_ceiling(
        attempt in prop_oneof![0u32..80, any::<u32>()],
        r in prop_oneof![0.0f64..1.0, any::<f64>()],
        base_ms in prop_oneof![0u64..5_000, any::<u64>()],
        cap_ms in prop_oneof![0u64..120_000, any::<u64>()],
    ) {
        let b = Backoff {
            base: Duration::from_millis(base_ms),
            cap: Duration::from_millis(cap_ms),
            max_retries: 5,
        };
        // base x 2^attempt, capped; zero stays zero however large 2^attempt.
        let bound = if b.base.is_zero() {
            0
        } else {
            2u128
                .checked_pow(attempt)
                .and_then(|f| b.base.as_nanos().checked_mul(f))
                .map_or(b.cap.as_nanos(), |n| n.min(b.cap.as_nanos()))
        };
        let d = b.delay(attempt, r);
        prop_assert!(d.as_nanos() <= bound, "{:?} > {} ns", d, bound);
        prop_assert_eq!(b.ceiling(attempt).as_nanos(), bound);
    }

    #[test]
    fn throttle_wait_is_bounded_by_spacing(
        last in any::<u64>(),
        now in any::<u64>(),
        cd_ms in prop::option::of(any::<u64>()),
    ) {
        let cd = cd_ms.map(Duration::from_millis);
        let w = throttle::wait(Some(Timestamp(last)), cd, Timestamp(now));
        if now >= last {
            prop_assert!(w <= throttle::spacing(cd));
        }
        prop_assert_eq!(throttle::wait(None, cd, Timestamp(now)), Duration::ZERO);
    }
}
