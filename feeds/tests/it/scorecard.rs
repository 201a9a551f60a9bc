//! Issue #23: the rules public feed-reader scorecards grade readers by,
//! played against the pipeline over six virtual hours of runs every ten
//! minutes (some forced):
//!
//! * validators replayed byte for byte as received (`If-None-Match` with
//!   its quotes and weak prefix, `If-Modified-Since` in the server's own
//!   date form), so every request after the first is conditional;
//! * no `Cookie`, even after a `Set-Cookie`; no `Referer`, even after a
//!   redirect;
//! * no query parameter added: the feed is asked for with exactly the
//!   operator's URL (R13's tags go only to the operator's own URLs);
//! * at most one request per feed per hour (R8) unless forced.

use crate::common;

use common::*;
use std::sync::{Arc, Mutex};
use wr_core::time::Timestamp;
use wr_feeds::{Clock, ManualClock, NoProgress, Pipeline, RunOptions, Source, SourceStatus};

const ETAG: &str = "W/\"v1,x;y=\\\"z\\\"\"";
/// RFC 850 form, as some servers still send it: replayed as sent.
const LAST_MODIFIED: &str = "Saturday, 23-May-26 00:00:00 GMT";
const START: u64 = 1_779_667_200_000;

fn rss() -> String {
    "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>\
     <link>http://pub.test/</link><item><title>a</title>\
     <link>http://pub.test/a</link></item></channel></rss>"
        .to_string()
}

#[test]
fn the_scorecard_rules_hold_over_six_hours_of_runs() {
    let clock = Arc::new(ManualClock::new(Timestamp(START)));
    // (virtual instant, host, target, headers) of every publisher request.
    type Log = Vec<(u64, String, String, Vec<(String, String)>)>;
    let log: Arc<Mutex<Log>> = Arc::default();
    let (c, l) = (clock.clone(), log.clone());
    let server = TestServer::start(move |r| {
        if r.host != "wal.sh" {
            l.lock().unwrap().push((
                c.now().0,
                r.host.clone(),
                r.target.clone(),
                r.headers.clone(),
            ));
        }
        match (r.host.as_str(), r.path()) {
            ("wal.sh", _) => operator(r),
            (_, "/robots.txt") => Reply::not_found().header("Set-Cookie", "robots=1; Path=/"),
            // The declared feed moved: a redirect, then the feed.
            ("pub.test", "/old-feed") => Reply::redirect(301, "http://pub.test/feed.xml?lang=en"),
            ("pub.test", "/feed.xml") => {
                let conditional = r.header("if-none-match") == Some(ETAG)
                    && r.header("if-modified-since") == Some(LAST_MODIFIED);
                if conditional {
                    Reply::status(304).header("ETag", ETAG)
                } else {
                    Reply::new(200, "application/rss+xml", rss())
                        .header("ETag", ETAG)
                        .header("Last-Modified", LAST_MODIFIED)
                        .header("Set-Cookie", "session=abc; Path=/")
                }
            }
            ("other.test", "/rss") => {
                Reply::new(200, "application/rss+xml", rss()).header("Last-Modified", LAST_MODIFIED)
            }
            _ => Reply::not_found(),
        }
    });
    let dir = state_dir("scorecard");
    let mut cfg = config(&dir, &server, &["pub.test", "other.test"]);
    cfg.clock = clock.clone();
    let sources = vec![
        Source {
            name: "moved".into(),
            url: "http://pub.test/".into(),
            feed: Some("http://pub.test/old-feed".into()),
        },
        Source {
            name: "plain".into(),
            url: "http://other.test/".into(),
            feed: Some("http://other.test/rss?id=7".into()),
        },
    ];
    let mut p = Pipeline::open(cfg).unwrap();
    for run in 0..36u64 {
        clock.set(Timestamp(START + run * 600_000));
        // Once, a forced run: within the hour, and still conditional.
        let force = run == 20;
        let rep = p
            .run(&sources, RunOptions { force, all: false }, &mut NoProgress)
            .unwrap();
        for s in &rep.sources {
            assert!(
                matches!(
                    s.status,
                    SourceStatus::Ok { .. } | SourceStatus::Skipped { .. }
                ),
                "run {run}: {s:?}"
            );
        }
    }
    let log = log.lock().unwrap();
    let header = |h: &[(String, String)], name: &str| {
        h.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    for (at, host, target, headers) in log.iter() {
        for banned in ["cookie", "referer"] {
            assert_eq!(
                header(headers, banned),
                None,
                "{host}{target} at {at}: {banned}"
            );
        }
        // No query parameter of ours: only the ones the URLs carry.
        let allowed = ["/robots.txt", "/old-feed", "/feed.xml?lang=en", "/rss?id=7"];
        assert!(allowed.contains(&target.as_str()), "{host}{target}");
    }
    let feed_requests = |host: &str, target: &str| -> Vec<(u64, Vec<(String, String)>)> {
        log.iter()
            .filter(|(_, h, t, _)| h == host && t == target)
            .map(|(at, _, _, hd)| (*at, hd.clone()))
            .collect()
    };
    for (host, target, etag) in [
        ("pub.test", "/feed.xml?lang=en", true),
        ("other.test", "/rss?id=7", false),
    ] {
        let reqs = feed_requests(host, target);
        assert!(
            reqs.len() >= 6,
            "{host}: {} requests in six hours",
            reqs.len()
        );
        // The first unconditional, every later one conditional, validators
        // byte for byte as received.
        assert_eq!(header(&reqs[0].1, "if-modified-since"), None);
        for (at, h) in &reqs[1..] {
            assert_eq!(
                header(h, "if-modified-since").as_deref(),
                Some(LAST_MODIFIED),
                "{host} at {at}"
            );
            let want = etag.then(|| ETAG.to_string());
            assert_eq!(header(h, "if-none-match"), want, "{host} at {at}");
        }
        // At most one per hour (and so of the redirect before it), but
        // for the one forced run.
        let forced = START + 20 * 600_000;
        let mut reqs = reqs;
        if host == "pub.test" {
            reqs.extend(feed_requests(host, "/old-feed"));
            reqs.sort_by_key(|r| r.0);
            reqs.dedup_by_key(|r| r.0 / 60_000);
        }
        let unforced: Vec<u64> = reqs
            .iter()
            .map(|r| r.0)
            .filter(|&t| !(forced..forced + 60_000).contains(&t))
            .collect();
        for w in unforced.windows(2) {
            assert!(
                w[1] - w[0] >= 3_600_000,
                "{host}: {} and {} less than an hour apart",
                w[0],
                w[1]
            );
        }
    }
}
