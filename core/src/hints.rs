//! Publisher hints: the earliest instant a source may be fetched again,
//! from what its publisher said about its own pace.
//!
//! R8 says a source is fetched at most once per hour; a publisher may ask
//! for less: `Cache-Control: max-age`, `Expires`, RSS `<ttl>`, the RSS 1.0
//! syndication module's `sy:updatePeriod` / `sy:updateFrequency`, and RSS
//! `<skipHours>` / `<skipDays>`. Pure arithmetic on instants the caller
//! gives (no clock here); the shell parses the headers and feed elements.
//!
//! Choices where no text decides:
//!
//! * **The latest hint wins.** Each hint says "nothing new before then";
//!   the politest reading of several is the latest of them (the house
//!   rule: where readings differ, the strictest wins).
//! * **Never sooner than R8's hour**: a `max-age=60` does not make a
//!   source due every minute.
//! * **Capped at [`HINT_CAP`] (a week) after the fetch**: a bad hint
//!   (`max-age=31536000`, `sy:updatePeriod` yearly, every hour skipped)
//!   must not silence a source; a week later it is fetched, and the
//!   publisher's answer then gives the next hint.
//! * **`skipHours` and `skipDays` are in GMT** (RSS 2.0: "hours in GMT";
//!   days by their English names), and only push the instant later:
//!   a due instant in a skipped hour moves to the next hour that is not
//!   skipped, on a day that is not skipped.
//! * `Cache-Control: no-cache` / `no-store` / `max-age=0` give no hint
//!   (R8's hour still applies); `s-maxage` is for shared caches and is
//!   not read.

use core::time::Duration;

use crate::time::Timestamp;

/// The longest a publisher hint can hold a source back: a week.
pub const HINT_CAP: Duration = Duration::from_secs(7 * 86_400);

/// R8: at most one fetch of a source per hour.
pub const R8_INTERVAL: Duration = Duration::from_secs(3_600);

/// What a publisher said, as numbers. Every field is optional.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hints {
    /// `Cache-Control: max-age`, seconds.
    pub max_age_s: Option<u64>,
    /// `Expires` minus `Date` (or minus the fetch when there is no
    /// `Date`), seconds.
    pub expires_in_s: Option<u64>,
    /// RSS `<ttl>`, minutes.
    pub ttl_min: Option<u64>,
    /// `sy:updatePeriod` in seconds (hourly 3600 ... yearly).
    pub sy_period_s: Option<u64>,
    /// `sy:updateFrequency`: how many updates per period (default 1).
    pub sy_frequency: Option<u64>,
    /// `<skipHours>`: bit `h` set for hour `h` (0-23, GMT).
    pub skip_hours: u32,
    /// `<skipDays>`: bit `d` set for day `d` (0 Monday ... 6 Sunday).
    pub skip_days: u8,
}

/// Which rule set the next fetch.
///
/// Stored (with the `serde` feature) by its [`Hint::key`]. Outcomes stored
/// by the release before this one hold the words that were shown for it
/// instead ("RSS ttl"): each variant reads those as an alias, so such a row
/// still reads as the hint it was, and nothing new is written that way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Hint {
    /// R8's hour, no hint asked for more.
    #[cfg_attr(feature = "serde", serde(alias = "R8 (one fetch per hour)"))]
    R8,
    /// `Cache-Control: max-age`.
    #[cfg_attr(feature = "serde", serde(alias = "Cache-Control max-age"))]
    MaxAge,
    /// `Expires`.
    #[cfg_attr(feature = "serde", serde(alias = "Expires"))]
    Expires,
    /// RSS `<ttl>`.
    #[cfg_attr(feature = "serde", serde(alias = "RSS ttl"))]
    Ttl,
    /// `sy:updatePeriod` / `sy:updateFrequency`.
    #[cfg_attr(feature = "serde", serde(alias = "sy:updatePeriod"))]
    UpdatePeriod,
    /// `<skipHours>` pushed it to the next hour not skipped.
    #[cfg_attr(feature = "serde", serde(alias = "RSS skipHours"))]
    SkipHours,
    /// `<skipDays>` pushed it to the next day not skipped.
    #[cfg_attr(feature = "serde", serde(alias = "RSS skipDays"))]
    SkipDays,
    /// The hints asked for more than [`HINT_CAP`]: capped.
    #[cfg_attr(
        feature = "serde",
        serde(alias = "a week (a publisher hint asked for longer)")
    )]
    Cap,
}

impl Hint {
    /// Every hint, once.
    pub const ALL: [Hint; 8] = [
        Hint::R8,
        Hint::MaxAge,
        Hint::Expires,
        Hint::Ttl,
        Hint::UpdatePeriod,
        Hint::SkipHours,
        Hint::SkipDays,
        Hint::Cap,
    ];

    /// The hint's stable name, as the store keeps it: data, not the words
    /// shown (which may change without a migration).
    pub fn key(self) -> &'static str {
        match self {
            Hint::R8 => "r8",
            Hint::MaxAge => "max-age",
            Hint::Expires => "expires",
            Hint::Ttl => "ttl",
            Hint::UpdatePeriod => "update-period",
            Hint::SkipHours => "skip-hours",
            Hint::SkipDays => "skip-days",
            Hint::Cap => "cap",
        }
    }

    /// The hint whose [`Hint::key`] is `s`.
    pub fn from_key(s: &str) -> Option<Hint> {
        Hint::ALL.into_iter().find(|h| h.key() == s)
    }
}

/// The earliest next fetch of a source fetched at `fetched`, and the rule
/// that set it: never before `fetched` + one hour (R8), never after
/// `fetched` + [`HINT_CAP`].
pub fn next_fetch(fetched: Timestamp, h: &Hints) -> (Timestamp, Hint) {
    let secs = |s: u64| fetched.saturating_add(Duration::from_secs(s));
    let cap = fetched.saturating_add(HINT_CAP);
    let sy = h
        .sy_period_s
        .map(|p| p / h.sy_frequency.filter(|&f| f > 0).unwrap_or(1));
    let mut best = (fetched.saturating_add(R8_INTERVAL), Hint::R8);
    for (at, why) in [
        (h.max_age_s.map(secs), Hint::MaxAge),
        (h.expires_in_s.map(secs), Hint::Expires),
        (h.ttl_min.map(|m| secs(m.saturating_mul(60))), Hint::Ttl),
        (sy.map(secs), Hint::UpdatePeriod),
    ] {
        if let Some(at) = at.filter(|&at| at > best.0) {
            best = (at, why);
        }
    }
    if best.0 > cap {
        return (cap, Hint::Cap);
    }
    // At most a week of hours to step through; each step moves forward.
    for _ in 0..(8 * 24) {
        let secs_of_day = (best.0 .0 / 1000) % 86_400;
        let day = best.0 .0 / 1000 / 86_400;
        // 1970-01-01 was a Thursday (3, counting Monday as 0).
        let weekday = ((day + 3) % 7) as u8;
        let hour = (secs_of_day / 3600) as u32;
        let next = if h.skip_days & (1 << weekday) != 0 {
            (Timestamp((day + 1) * 86_400_000), Hint::SkipDays)
        } else if h.skip_hours & (1 << hour) != 0 {
            let start = Timestamp((day * 86_400 + u64::from(hour) * 3600) * 1000);
            (
                start.saturating_add(Duration::from_secs(3600)),
                Hint::SkipHours,
            )
        } else {
            return best;
        };
        if next.0 > cap {
            return (cap, Hint::Cap);
        }
        best = next;
    }
    (cap, Hint::Cap)
}

/// `max-age` of a `Cache-Control` value, seconds; `None` without one, or
/// with `no-cache` / `no-store` (which ask for revalidation, not for a
/// pause). Directive names are case-insensitive (RFC 9111 §5.2); a
/// quoted value is accepted, as RFC 9111 asks recipients to.
pub fn max_age(cache_control: &str) -> Option<u64> {
    let mut age = None;
    for d in cache_control.split(',') {
        let (name, value) = match d.split_once('=') {
            Some((n, v)) => (n.trim(), Some(v.trim().trim_matches('"'))),
            None => (d.trim(), None),
        };
        if name.eq_ignore_ascii_case("no-cache") || name.eq_ignore_ascii_case("no-store") {
            return None;
        }
        if name.eq_ignore_ascii_case("max-age") && age.is_none() {
            let v = value?;
            if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            // RFC 9111 §1.2.2: a delta too large to hold is the largest.
            age = Some(v.parse::<u64>().unwrap_or(u64::MAX));
        }
    }
    age.filter(|&a| a > 0)
}

/// Seconds in one `sy:updatePeriod` (`hourly`, `daily`, `weekly`,
/// `monthly` as 30 days, `yearly` as 365), any case.
pub fn sy_period(period: &str) -> Option<u64> {
    let p = period.trim();
    [
        ("hourly", 3_600),
        ("daily", 86_400),
        ("weekly", 7 * 86_400),
        ("monthly", 30 * 86_400),
        ("yearly", 365 * 86_400),
    ]
    .into_iter()
    .find(|(n, _)| p.eq_ignore_ascii_case(n))
    .map(|(_, s)| s)
}

/// The bit of a `<skipDays><day>` name (`Monday` ... `Sunday`, any case).
pub fn skip_day(name: &str) -> Option<u8> {
    let n = name.trim();
    [
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    ]
    .iter()
    .position(|d| n.eq_ignore_ascii_case(d))
    .map(|i| 1 << i)
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: u64 = 3_600_000;
    const DAY: u64 = 24 * H;
    /// 2026-05-25T00:00:00Z, a Monday.
    const MONDAY: u64 = 1_779_667_200_000;

    #[test]
    fn never_sooner_than_r8() {
        let t = Timestamp(MONDAY);
        assert_eq!(
            next_fetch(t, &Hints::default()),
            (Timestamp(MONDAY + H), Hint::R8)
        );
        let h = Hints {
            max_age_s: Some(60),
            ttl_min: Some(5),
            ..Hints::default()
        };
        assert_eq!(next_fetch(t, &h), (Timestamp(MONDAY + H), Hint::R8));
    }

    #[test]
    fn the_latest_hint_wins() {
        let t = Timestamp(MONDAY);
        let h = Hints {
            max_age_s: Some(7_200),
            expires_in_s: Some(3 * 3_600),
            ttl_min: Some(240),
            sy_period_s: sy_period("Daily"),
            sy_frequency: Some(4),
            ..Hints::default()
        };
        // 2 h, 3 h, 4 h, 6 h: sy wins.
        assert_eq!(
            next_fetch(t, &h),
            (Timestamp(MONDAY + 6 * H), Hint::UpdatePeriod)
        );
        let h = Hints {
            ttl_min: Some(600),
            ..h
        };
        assert_eq!(next_fetch(t, &h), (Timestamp(MONDAY + 10 * H), Hint::Ttl));
    }

    #[test]
    fn a_bad_hint_is_capped_at_a_week() {
        let t = Timestamp(MONDAY + 123);
        for h in [
            Hints {
                max_age_s: Some(u64::MAX),
                ..Hints::default()
            },
            Hints {
                sy_period_s: sy_period("yearly"),
                ..Hints::default()
            },
            Hints {
                skip_hours: (1 << 24) - 1,
                ..Hints::default()
            },
            Hints {
                skip_days: 0x7f,
                ..Hints::default()
            },
        ] {
            assert_eq!(
                next_fetch(t, &h),
                (Timestamp(MONDAY + 123 + 7 * DAY), Hint::Cap),
                "{h:?}"
            );
        }
    }

    #[test]
    fn skipped_hours_and_days_push_later_in_gmt() {
        // Due Monday 01:00; hours 1-5 skipped: 06:00.
        let h = Hints {
            skip_hours: 0b11_1110,
            ..Hints::default()
        };
        assert_eq!(
            next_fetch(Timestamp(MONDAY), &h),
            (Timestamp(MONDAY + 6 * H), Hint::SkipHours)
        );
        // Saturday 23:30 + 1 h is Sunday 00:30; weekends skipped, and
        // hour 0: Monday 01:00.
        let sat = MONDAY + 5 * DAY + 23 * H + H / 2;
        let h = Hints {
            skip_days: skip_day("saturday").unwrap() | skip_day("SUNDAY").unwrap(),
            skip_hours: 1,
            ..Hints::default()
        };
        assert_eq!(
            next_fetch(Timestamp(sat), &h),
            (Timestamp(MONDAY + 7 * DAY + H), Hint::SkipHours)
        );
        // Not skipped: untouched.
        assert_eq!(skip_day("Funday"), None);
    }

    #[test]
    fn cache_control_max_age() {
        assert_eq!(max_age("public, max-age=86400"), Some(86_400));
        assert_eq!(max_age("MAX-AGE=\"600\", must-revalidate"), Some(600));
        assert_eq!(max_age("max-age=0"), None);
        assert_eq!(max_age("no-cache, max-age=600"), None);
        assert_eq!(max_age("max-age=600, no-store"), None);
        assert_eq!(max_age("s-maxage=600"), None);
        assert_eq!(max_age("max-age=-1"), None);
        assert_eq!(max_age("max-age=1e3"), None);
        assert_eq!(max_age("max-age"), None);
        assert_eq!(max_age("max-age=99999999999999999999999"), Some(u64::MAX));
        assert_eq!(max_age(""), None);
    }

    #[test]
    fn hint_words_round_trip() {
        for h in Hint::ALL {
            assert_eq!(Hint::from_key(h.key()), Some(h));
        }
    }
}
