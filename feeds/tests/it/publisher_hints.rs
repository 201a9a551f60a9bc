//! Issue #23: the publisher's own pace. A source is not fetched again
//! before the earliest instant its hints allow (`Cache-Control: max-age`,
//! `Expires`, RSS `ttl`, `sy:updatePeriod`, `skipHours` / `skipDays`),
//! never sooner than R8's hour, never later than a week; the hint is
//! kept in the store across processes and through 304s; `force`
//! overrides it and says so. On the virtual clock: no real waiting.

use crate::common;

use common::*;
use std::sync::Arc;
use wr_core::time::Timestamp;
use wr_feeds::{Clock, ManualClock, NoProgress, Pipeline, RunOptions, Source, SourceStatus};

/// Monday 25 May 2026, 00:00:00 GMT.
const MONDAY: u64 = 1_779_667_200_000;

fn rss(extra: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\" \
         xmlns:sy=\"http://purl.org/rss/1.0/modules/syndication/\"><channel>\
         <title>t</title><link>http://x.test/</link>{extra}\
         <item><title>a</title><link>http://x.test/a</link></item></channel></rss>"
    )
}

/// A feed with an ETag (304 when it is replayed) and `headers`.
fn feed(r: &Recorded, body: String, headers: &[(&str, &str)]) -> Reply {
    let mut reply = if r.header("if-none-match") == Some("\"v1\"") {
        Reply::status(304)
    } else {
        Reply::new(200, "application/rss+xml", body)
    }
    .header("ETag", "\"v1\"");
    for (k, v) in headers {
        reply = reply.header(k, v);
    }
    reply
}

fn src(name: &str) -> Source {
    Source {
        name: name.into(),
        url: format!("http://{name}.test/"),
        feed: Some(format!("http://{name}.test/feed.xml")),
    }
}

/// (name, `by` of a skip, or "fetched").
fn outcomes(rep: &wr_feeds::RunReport) -> Vec<(String, String)> {
    rep.sources
        .iter()
        .map(|s| {
            let what = match &s.status {
                SourceStatus::Skipped { by, .. } => wr_feeds::words::hint(*by).to_string(),
                SourceStatus::Ok { .. } => "fetched".to_string(),
                other => format!("{other}"),
            };
            (s.name.clone(), what)
        })
        .collect()
}

#[test]
fn hints_hold_a_source_back_within_their_cap_and_force_says_what_it_overrides() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        // 6 hours by Cache-Control (and an Expires it overrides).
        ("maxage.test", "/feed.xml") => feed(
            r,
            rss(""),
            &[
                ("Cache-Control", "public, max-age=21600"),
                ("Expires", "Mon, 01 Jun 2026 00:00:00 GMT"),
            ],
        ),
        // 3 hours by RSS ttl, whose 304s carry no header hint.
        ("ttl.test", "/feed.xml") => feed(r, rss("<ttl>180</ttl>"), &[]),
        // Daily, twice: 12 hours; and no fetch in hours 12-13 GMT.
        ("sy.test", "/feed.xml") => feed(
            r,
            rss("<sy:updatePeriod>daily</sy:updatePeriod>\
                 <sy:updateFrequency>2</sy:updateFrequency>\
                 <skipHours><hour>12</hour><hour>13</hour></skipHours>"),
            &[],
        ),
        // A year: capped at a week.
        ("year.test", "/feed.xml") => feed(r, rss(""), &[("Cache-Control", "max-age=31536000")]),
        // A minute: R8's hour still holds.
        ("short.test", "/feed.xml") => {
            feed(r, rss("<ttl>1</ttl>"), &[("Cache-Control", "max-age=60")])
        }
        _ => Reply::not_found(),
    });
    let names = ["maxage", "ttl", "sy", "year", "short"];
    let hosts: Vec<String> = names.iter().map(|n| format!("{n}.test")).collect();
    let host_refs: Vec<&str> = hosts.iter().map(String::as_str).collect();
    let dir = state_dir("hints");
    let clock = Arc::new(ManualClock::new(Timestamp(MONDAY)));
    let mut cfg = config(&dir, &server, &host_refs);
    cfg.clock = clock.clone();
    let sources: Vec<Source> = names.iter().map(|n| src(n)).collect();
    let feed_requests = |name: &str| {
        server
            .requests_to(&format!("{name}.test"))
            .iter()
            .filter(|r| r.path() == "/feed.xml")
            .count()
    };

    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert!(
        outcomes(&rep).iter().all(|(_, w)| w == "fetched"),
        "{:?}",
        outcomes(&rep)
    );

    // +1 h 1 min: R8 is over; the hints hold all but `short`.
    clock.set(Timestamp(MONDAY + 61 * 60_000));
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    let want = [
        ("maxage", "Cache-Control max-age"),
        ("ttl", "RSS ttl"),
        // Due at 12:00 by sy:updatePeriod, pushed out of skipHours.
        ("sy", "RSS skipHours"),
        ("year", "a week (a publisher hint asked for longer)"),
        ("short", "fetched"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(outcomes(&rep), want);
    assert_eq!(feed_requests("ttl"), 1);
    // The digest says until when.
    let SourceStatus::Skipped { until, .. } = &rep.sources[0].status else {
        unreachable!()
    };
    let six_hours = MONDAY + 6 * 3_600_000;
    assert!(
        (six_hours..six_hours + 60_000).contains(until),
        "max-age=21600 from the fetch: {until}"
    );

    // A new process (the hint is stored), +3 h 1 min: `ttl` is due (a
    // 304, which keeps its ttl), `maxage` is not.
    drop(p);
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    clock.set(Timestamp(MONDAY + 181 * 60_000));
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    let o = outcomes(&rep);
    assert_eq!(o[0].1, "Cache-Control max-age");
    assert_eq!(o[1].1, "fetched");
    assert_eq!(
        rep.sources[1].status,
        SourceStatus::Ok { not_modified: true }
    );
    // +1 h after that 304: still held by the feed's ttl, not only R8.
    clock.set(Timestamp(MONDAY + 242 * 60_000));
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert_eq!(
        outcomes(&rep)[1].1,
        "RSS ttl",
        "a 304 keeps the feed's own hint"
    );

    // `sy`: due at 12:00 by sy:updatePeriod, but 12-13 GMT are skipped:
    // held until 14:00.
    clock.set(Timestamp(MONDAY + 12 * 3_600_000 + 30 * 60_000));
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert_eq!(outcomes(&rep)[2].1, "RSS skipHours");
    let SourceStatus::Skipped { until, .. } = &rep.sources[2].status else {
        unreachable!()
    };
    assert_eq!(*until, MONDAY + 14 * 3_600_000);

    // --force fetches a held source, and says what it overrides.
    let before = feed_requests("year");
    let rep = p
        .run(
            &sources,
            RunOptions {
                force: true,
                all: false,
            },
            &mut NoProgress,
        )
        .unwrap();
    assert_eq!(feed_requests("year"), before + 1);
    assert!(
        rep.notices.iter().any(|n| n
            .starts_with("year: --force fetches it now, overriding the publisher's hint (a week")),
        "{:?}",
        rep.notices
    );
    assert!(
        rep.notices.iter().any(|n| n.starts_with(
            "sy: --force fetches it now, overriding the publisher's hint (RSS skipHours)"
        )),
        "{:?}",
        rep.notices
    );

    // The week's cap: a year's max-age holds `year` a week, not longer.
    let forced_at = clock.now().0;
    clock.set(Timestamp(forced_at + 7 * 24 * 3_600_000 - 60_000));
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert_ne!(outcomes(&rep)[3].1, "fetched");
    clock.set(Timestamp(forced_at + 7 * 24 * 3_600_000 + 60_000));
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert_eq!(outcomes(&rep)[3].1, "fetched");
}
