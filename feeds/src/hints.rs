//! Publisher hints in the shell (issue #23): a response's `Cache-Control`
//! and `Expires`, with the feed's own elements (read by
//! [`crate::extract`]), become the source's earliest next fetch through
//! [`wr_core::hints::next_fetch`], and are kept in the store.
//!
//! RFC 9111 §5.3: a response with `max-age` has its `Expires` ignored,
//! and so here does one that asks for revalidation (`no-cache`,
//! `no-store`): neither is a reason to wait. An `Expires` that does not
//! parse is in the past (RFC 9111 §5.3), so no hint either.

use wr_core::fetch::Response;
use wr_core::hints::{max_age, Hint, Hints};
use wr_core::http_date::parse_http_date;
use wr_core::time::Timestamp;

/// `t` as an HTTP-date (`Mon, 25 May 2026 06:00:00 GMT`), for messages.
pub fn when(t: Timestamp) -> String {
    let mut s = String::new();
    match wr_core::http_date::format_http_date(t, &mut s) {
        Ok(()) => s,
        Err(_) => format!("{} ms after 1970", t.0),
    }
}

/// The hints a response's headers give, answered at `now`.
pub fn from_headers(r: &Response, now: Timestamp) -> Hints {
    let cc = r.cache_control.as_deref().unwrap_or("");
    let max_age_s = max_age(cc);
    let cc_decides = cc.split(',').any(|d| {
        let name = d.split('=').next().unwrap_or("").trim();
        ["max-age", "no-cache", "no-store"]
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n))
    });
    let expires_in_s = if cc_decides {
        None
    } else {
        r.expires.as_deref().and_then(|e| {
            let expires = parse_http_date(e).ok()?;
            let base = r
                .date
                .as_deref()
                .and_then(|d| parse_http_date(d).ok())
                .unwrap_or(now);
            (expires > base).then(|| (expires.0 - base.0) / 1000)
        })
    };
    Hints {
        max_age_s,
        expires_in_s,
        ..Hints::default()
    }
}

/// The feed-element hints of `h` as the store keeps them:
/// `ttl period frequency skip_hours skip_days`, `-` for none.
pub fn feed_text(h: &Hints) -> String {
    let n = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    format!(
        "{} {} {} {} {}",
        n(h.ttl_min),
        n(h.sy_period_s),
        n(h.sy_frequency),
        h.skip_hours,
        h.skip_days
    )
}

/// [`feed_text`] read back; anything unreadable is no hint.
pub fn feed_from_text(s: &str) -> Hints {
    let f: Vec<&str> = s.split(' ').collect();
    let n = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok());
    Hints {
        ttl_min: n(0),
        sy_period_s: n(1),
        sy_frequency: n(2),
        skip_hours: n(3).and_then(|v| u32::try_from(v).ok()).unwrap_or(0) & 0x00ff_ffff,
        skip_days: n(4).and_then(|v| u8::try_from(v).ok()).unwrap_or(0) & 0x7f,
        ..Hints::default()
    }
}

/// When a source may next be fetched, as the store has it: R8's hour
/// after its last run, or the stored publisher hint when later (never
/// more than [`wr_core::hints::HINT_CAP`] after the last run, whatever a
/// row written by a clock that was ahead says); `None` for a source that
/// never ran. A last run in the future counts as `now`.
pub fn due(row: &crate::store::SourceRow, now: Timestamp) -> Option<(Timestamp, Hint)> {
    let last = row.last_run?.min(now);
    let r8 = (last.saturating_add(wr_core::hints::R8_INTERVAL), Hint::R8);
    let hinted = row
        .next_fetch
        .map(|t| t.min(last.saturating_add(wr_core::hints::HINT_CAP)))
        .zip(row.next_fetch_by.as_deref().and_then(Hint::from_key));
    Some(match hinted {
        Some(h) if h.0 > r8.0 => h,
        _ => r8,
    })
}

/// The earliest next fetch of a source answered at `now` by `response`
/// (a 200 or a 304) whose feed elements said `feed`.
pub fn next_fetch(now: Timestamp, response: &Response, feed: &Hints) -> (Timestamp, Hint) {
    let headers = from_headers(response, now);
    let all = Hints {
        max_age_s: headers.max_age_s,
        expires_in_s: headers.expires_in_s,
        ..*feed
    };
    wr_core::hints::next_fetch(now, &all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resp(cc: Option<&str>, expires: Option<&str>, date: Option<&str>) -> Response {
        Response {
            status: 200,
            cache_control: cc.map(str::to_string),
            expires: expires.map(str::to_string),
            date: date.map(str::to_string),
            ..Response::default()
        }
    }

    const NOW: Timestamp = Timestamp(1_779_667_200_000); // Mon 25 May 2026 00:00 GMT
    const H: u64 = 3_600_000;

    #[test]
    fn headers_give_max_age_else_expires_from_date() {
        let r = resp(
            Some("public, max-age=7200"),
            Some("Mon, 25 May 2026 09:00:00 GMT"),
            None,
        );
        assert_eq!(
            next_fetch(NOW, &r, &Hints::default()),
            (Timestamp(NOW.0 + 2 * H), Hint::MaxAge)
        );
        // Expires is measured from the server's Date, not our clock.
        let r = resp(
            None,
            Some("Mon, 25 May 2026 09:00:00 GMT"),
            Some("Mon, 25 May 2026 03:00:00 GMT"),
        );
        assert_eq!(
            next_fetch(NOW, &r, &Hints::default()),
            (Timestamp(NOW.0 + 6 * H), Hint::Expires)
        );
        // no-cache: revalidate, no reason to wait beyond R8; a bad date.
        for r in [
            resp(
                Some("no-cache"),
                Some("Mon, 25 May 2026 09:00:00 GMT"),
                None,
            ),
            resp(None, Some("0"), None),
            resp(None, Some("Sun, 24 May 2026 09:00:00 GMT"), None),
        ] {
            assert_eq!(
                next_fetch(NOW, &r, &Hints::default()),
                (Timestamp(NOW.0 + H), Hint::R8)
            );
        }
    }

    #[test]
    fn feed_hints_survive_the_store() {
        let h = Hints {
            ttl_min: Some(90),
            sy_period_s: Some(86_400),
            sy_frequency: None,
            skip_hours: 0b101,
            skip_days: 0b100_0000,
            ..Hints::default()
        };
        assert_eq!(feed_from_text(&feed_text(&h)), h);
        assert_eq!(feed_from_text("garbage"), Hints::default());
        assert_eq!(feed_from_text(""), Hints::default());
    }
}
