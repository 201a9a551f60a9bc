//! End-to-end tests of the pipeline against loopback servers that record
//! every request. Tests needing real waits use their own hosts and run in
//! parallel; tests that only need elapsed time use the virtual clock.

mod common;

use common::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use wr_conformance::faults::{Fault, FaultServer};
use wr_core::time::Timestamp;
use wr_feeds::{
    CheckReport, FetchError, ManualClock, Method, NoProgress, Pipeline, RunOptions, Source,
    SourceStatus,
};

/// The operator, no robots.txt anywhere (404: everything allowed), and a
/// one-link markdown page at every other URL of every host.
fn open_site() -> TestServer {
    TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        (_, _) => Reply::new(200, "text/markdown", "[x](https://x.test/x)"),
    })
}

fn src(name: &str, url: &str, feed: Option<&str>) -> Source {
    Source {
        name: name.into(),
        url: url.into(),
        feed: feed.map(Into::into),
    }
}

const FORCE: RunOptions = RunOptions {
    force: true,
    all: false,
};

/// A feed served with `ETag: "v1"`, answering 304 when that tag is replayed
/// (R7).
fn etag_v1_feed(r: &Recorded, content_type: &str, file: &str) -> Reply {
    if r.header("if-none-match") == Some("\"v1\"") {
        Reply::status(304)
    } else {
        Reply::new(200, content_type, data(file)).header("ETag", "\"v1\"")
    }
}

fn robots_ok() -> Reply {
    Reply::new(200, "text/plain", "User-agent: *\nDisallow: /private\n")
}

/// R1, R3 first, R2 before each host, R9 (feed, markdown, llms.txt, left
/// out), R7 (conditional second run, 304, dedup), R8, R13 on operator URLs.
#[test]
fn full_run_then_conditional_run() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => robots_ok(),
        ("feeds.test", "/feed.xml") => {
            etag_v1_feed(r, "application/atom+xml", "feeds/atom_spec_1.xml")
        }
        ("md.test", "/notes") => {
            if r.header("if-modified-since").is_some() {
                Reply::status(304)
            } else {
                Reply::new(200, "text/markdown; charset=utf-8", "# Notes\n\n[One](https://md.test/one) and [One again](https://md.test/one#x) and [Two](https://md.test/two)\n")
                    .header("Last-Modified", "Mon, 23 May 2026 00:00:00 GMT")
            }
        }
        ("llms.test", "/") => Reply::new(200, "text/html", "<a href=/x>x</a>"),
        ("llms.test", "/llms.txt") => Reply::new(
            200,
            "text/plain",
            data("llms-txt/0xMiden_docs__static_llms.txt"),
        ),
        ("none.test", "/") => Reply::new(200, "text/html", "<html></html>"),
        _ => Reply::not_found(),
    });
    let dir = state_dir("full");
    let cfg = config(
        &dir,
        &server,
        &["feeds.test", "md.test", "llms.test", "none.test"],
    );
    let sources = vec![
        src(
            "feeds",
            "http://feeds.test/",
            Some("http://feeds.test/feed.xml"),
        ),
        src("md", "http://md.test/notes", None),
        src("llms", "http://llms.test/", None),
        src("none", "http://none.test/", None),
    ];
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    let by = |n: &str| rep.sources.iter().find(|s| s.name == n).unwrap().clone();
    assert_eq!(
        by("feeds").status,
        SourceStatus::Ok {
            not_modified: false
        }
    );
    assert_eq!(by("feeds").method, Some(Method::Feed));
    assert!(!by("feeds").items.is_empty());
    assert_eq!(by("md").method, Some(Method::Markdown));
    let md: Vec<_> = by("md").items.iter().map(|i| i.url.clone()).collect();
    assert_eq!(
        md,
        vec!["https://md.test/one", "https://md.test/two"],
        "dedup by canonical URL"
    );
    assert_eq!(by("llms").method, Some(Method::LlmsTxt));
    assert!(by("llms").items.len() > 3, "real llms.txt extracted");
    assert!(
        matches!(by("none").status, SourceStatus::LeftOut { .. }),
        "{:?}",
        by("none").status
    );

    let reqs = server.requests();
    assert_ua(&reqs);
    // R3 first: the very first request is the blocklist, R13-tagged.
    assert_eq!(reqs[0].path(), "/.well-known/walsh-research/blocklist.json");
    let q = reqs[0].query().unwrap();
    assert!(
        q.contains("impl=walsh-research%2Fwr-feeds")
            && q.contains("sha=abc1234")
            && q.contains("spec=walsh-research-compliance%2Fv1.3"),
        "{q}"
    );
    // R2 before anything else on each host; no tags off the operator host.
    for host in ["feeds.test", "md.test", "llms.test", "none.test"] {
        let h: Vec<_> = reqs.iter().filter(|r| r.host == host).collect();
        assert_eq!(h[0].path(), "/robots.txt", "{host}");
        assert!(h.iter().all(|r| r.query().is_none()), "{host}: no R13 tags");
        assert_spacing(&reqs, host, Duration::from_secs(1));
    }
    // R9: HTML never used; the markdown request carried Accept: text/markdown.
    let page = reqs
        .iter()
        .find(|r| r.host == "md.test" && r.path() == "/notes")
        .unwrap();
    assert_eq!(page.header("accept"), Some("text/markdown"));
    // Scheduling: while a host waits for its spacing, the other hosts go:
    // every host's first request (its robots.txt) comes before any host's
    // second, so 4 hosts x 2+ requests cost about one spacing, not four.
    // (Read from the request log, not from a stopwatch.)
    let hosts = ["feeds.test", "md.test", "llms.test", "none.test"];
    let nth = |host: &str, n: usize| {
        reqs.iter()
            .enumerate()
            .filter(|(_, r)| r.host == host)
            .nth(n)
            .map(|(i, _)| i)
    };
    let last_first = hosts.iter().filter_map(|h| nth(h, 0)).max().unwrap();
    let first_second = hosts.iter().filter_map(|h| nth(h, 1)).min().unwrap();
    assert!(
        last_first < first_second,
        "not interleaved: {:?}",
        reqs.iter()
            .map(|r| format!("{}{}", r.host, r.path()))
            .collect::<Vec<_>>()
    );

    // The digest holding them was delivered.
    p.mark_reported(&rep).unwrap();

    // R8: a second run within the hour is skipped without --force.
    server.clear();
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert!(rep
        .sources
        .iter()
        .all(|s| matches!(s.status, SourceStatus::Skipped { .. })));
    assert!(server.requests().is_empty());

    // Second (forced) run from a new process: conditional requests, 304.
    drop(p);
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert_eq!(
        rep.sources[0].status,
        SourceStatus::Ok { not_modified: true }
    );
    assert!(rep.sources[0].items.is_empty());
    assert_eq!(
        rep.sources[1].status,
        SourceStatus::Ok { not_modified: true }
    );
    assert_eq!(
        rep.sources[2].status,
        SourceStatus::Ok {
            not_modified: false
        }
    );
    assert!(
        rep.sources[2].items.is_empty(),
        "llms.txt items already seen"
    );
    let reqs = server.requests();
    assert_ua(&reqs);
    assert!(
        reqs.iter().all(|r| r.path() != "/robots.txt"),
        "robots.txt cached (24 h)"
    );
    assert!(
        reqs.iter().all(|r| !r.path().ends_with("blocklist.json")),
        "blocklist cached"
    );
    let feed = reqs.iter().find(|r| r.path() == "/feed.xml").unwrap();
    assert_eq!(feed.header("if-none-match"), Some("\"v1\""));
    // --all lists what is offered even on 304.
    let rep = p
        .run(
            &sources,
            RunOptions {
                force: true,
                all: true,
            },
            &mut NoProgress,
        )
        .unwrap();
    assert!(!rep.sources[0].items.is_empty());
    assert_eq!(rep.sources[1].items.len(), 2);
}

/// R4: Crawl-delay spacing for every request incl. robots.txt, first request
/// not delayed; scheduler: a ready host goes while another waits.
#[test]
fn crawl_delay_and_interleaving() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("slow.test", "/robots.txt") => {
            Reply::new(200, "text/plain", "User-agent: *\nCrawl-delay: 2\n")
        }
        ("slow.test", "/") => Reply::new(200, "text/html", "<p>"),
        ("slow.test", "/llms.txt") => {
            Reply::new(200, "text/markdown", "[a](https://slow.test/a)\n")
        }
        ("quick.test", "/robots.txt") => Reply::not_found(),
        ("quick.test", "/feed.json") => Reply::new(
            200,
            "application/feed+json",
            data("feeds/jsonfeed_spec_1.json"),
        ),
        _ => Reply::not_found(),
    });
    let dir = state_dir("crawl");
    let cfg = config(&dir, &server, &["slow.test", "quick.test"]);
    let mut p = Pipeline::open(cfg).unwrap();
    let sources = vec![
        src("slow", "http://slow.test/", None),
        src(
            "quick",
            "http://quick.test/",
            Some("http://quick.test/feed.json"),
        ),
    ];
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert_eq!(
        rep.sources[0].method,
        Some(Method::LlmsTxt),
        "{:?}",
        rep.sources[0]
    );
    assert_eq!(
        rep.sources[1].method,
        Some(Method::Feed),
        "{:?}",
        rep.sources[1]
    );
    let reqs = server.requests();
    assert_ua(&reqs);
    assert_spacing(&reqs, "slow.test", Duration::from_secs(2));
    let slow: Vec<_> = reqs.iter().filter(|r| r.host == "slow.test").collect();
    assert_eq!(slow.len(), 3);
    // First request to an unseen host is not delayed.
    assert!(slow[0].at - reqs[0].at < Duration::from_millis(800));
    // quick.test's feed was fetched while slow.test waited.
    let quick_feed = reqs.iter().find(|r| r.path() == "/feed.json").unwrap();
    assert!(quick_feed.at < slow[1].at, "ready host went first");
}

/// R2: two sources on one origin need its robots.txt at the same time; it
/// is fetched once and the second source uses the cached copy.
#[test]
fn one_robots_fetch_per_origin() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("twin.test", "/robots.txt") => robots_ok(),
        ("twin.test", "/feed.json") => Reply::new(
            200,
            "application/feed+json",
            data("feeds/jsonfeed_spec_1.json"),
        ),
        _ => Reply::not_found(),
    });
    let dir = state_dir("twins");
    let mut cfg = config(&dir, &server, &["twin.test"]);
    cfg.clock = Arc::new(ManualClock::new(Timestamp(1_779_494_400_000)));
    let mut p = Pipeline::open(cfg).unwrap();
    let sources = vec![
        src(
            "feed",
            "http://twin.test/",
            Some("http://twin.test/feed.json"),
        ),
        src("private", "http://twin.test/private/page", None),
    ];
    let rep = p
        .run(&sources, RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert_eq!(
        rep.sources[0].method,
        Some(Method::Feed),
        "{:?}",
        rep.sources[0]
    );
    assert!(
        matches!(rep.sources[1].status, SourceStatus::DeniedRobots { .. }),
        "{:?}",
        rep.sources[1]
    );
    let robots = server
        .requests_to("twin.test")
        .iter()
        .filter(|r| r.path() == "/robots.txt")
        .count();
    assert_eq!(robots, 1, "{:?}", server.requests_to("twin.test"));
}

/// R5: 429 with Retry-After retried after it, spacing kept, UA on retries.
#[test]
fn retry_after_then_success() {
    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let server = TestServer::start(move |r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("busy.test", "/robots.txt") => Reply::not_found(),
        ("busy.test", "/feed.xml") => {
            if h.fetch_add(1, Ordering::SeqCst) < 2 {
                Reply::new(429, "text/plain", "slow down").header("Retry-After", "2")
            } else {
                Reply::new(200, "application/rss+xml", data("feeds/rss_2.0_spec_1.xml"))
            }
        }
        _ => Reply::not_found(),
    });
    let dir = state_dir("retry");
    let mut p = Pipeline::open(config(&dir, &server, &["busy.test"])).unwrap();
    let rep = p
        .run(
            &[src(
                "busy",
                "http://busy.test/",
                Some("http://busy.test/feed.xml"),
            )],
            FORCE,
            &mut NoProgress,
        )
        .unwrap();
    assert_eq!(
        rep.sources[0].status,
        SourceStatus::Ok {
            not_modified: false
        },
        "{:?}",
        rep.sources[0]
    );
    let reqs = server.requests_to("busy.test");
    assert_ua(&reqs);
    let feed: Vec<_> = reqs.iter().filter(|r| r.path() == "/feed.xml").collect();
    assert_eq!(feed.len(), 3);
    for w in feed.windows(2) {
        assert!(
            w[1].at - w[0].at >= Duration::from_secs(2),
            "Retry-After honoured"
        );
    }
}

/// R5: retries exhausted -> failure recorded, host left alone for an hour
/// (next run defers it without a request); a long Retry-After defers.
#[test]
fn retries_exhausted_and_long_retry_after() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        ("down.test", _) => Reply::new(503, "text/plain", "down").header("Retry-After", "0"),
        ("later.test", _) => Reply::new(503, "text/plain", "later").header("Retry-After", "7200"),
        _ => Reply::not_found(),
    });
    let dir = state_dir("exhaust");
    let mut cfg = config(&dir, &server, &["down.test", "later.test"]);
    cfg.max_wait = Duration::from_secs(60);
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let sources = [
        src("down", "http://down.test/", Some("http://down.test/feed")),
        src(
            "later",
            "http://later.test/",
            Some("http://later.test/feed"),
        ),
    ];
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    let SourceStatus::Failed { reason } = &rep.sources[0].status else {
        panic!("{:?}", rep.sources[0])
    };
    assert!(
        reason.contains("HTTP 503") && reason.contains("http://down.test/feed"),
        "{reason}"
    );
    let SourceStatus::Deferred { reason, .. } = &rep.sources[1].status else {
        panic!("{:?}", rep.sources[1])
    };
    assert!(reason.contains("7200"), "{reason}");
    let reqs = server.requests();
    assert_ua(&reqs);
    assert_eq!(
        reqs.iter()
            .filter(|r| r.host == "down.test" && r.path() == "/feed")
            .count(),
        6,
        "1 + 5 retries"
    );
    assert_eq!(
        reqs.iter()
            .filter(|r| r.host == "later.test" && r.path() == "/feed")
            .count(),
        1
    );
    assert_spacing(&reqs, "down.test", Duration::from_secs(1));
    // A new process honours the one-hour hold and the Retry-After.
    drop(p);
    server.clear();
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(
        matches!(&rep.sources[0].status, SourceStatus::Deferred { reason, .. } if reason.contains("cool-down")),
        "{:?}",
        rep.sources[0]
    );
    assert!(matches!(
        rep.sources[1].status,
        SourceStatus::Deferred { .. }
    ));
    assert!(server.requests().iter().all(|r| r.host == "wal.sh"));
}

/// C6: redirects resolved and gated hop by hop; refused to a blocked host
/// or a disallowed path; at most 5 hops.
#[test]
fn redirects_are_gated() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("example.com", _) => Reply::new(200, "text/markdown", "[x](https://example.com/x)"),
        ("redir.test", "/robots.txt") => robots_ok(),
        ("redir.test", "/old") => Reply::redirect(301, "/new"),
        ("redir.test", "/new") => Reply::new(200, "text/markdown", "[n](https://redir.test/n)"),
        ("redir.test", "/to-blocked") => Reply::redirect(302, "http://www.example.com/feed"),
        ("redir.test", "/to-private") => Reply::redirect(302, "/private/feed"),
        ("redir.test", p) if p.starts_with("/loop") => {
            let n: u32 = p[5..].parse().unwrap_or(0);
            Reply::redirect(302, &format!("/loop{}", n + 1))
        }
        _ => Reply::not_found(),
    });
    let dir = state_dir("redir");
    let mut p = Pipeline::open(config(
        &dir,
        &server,
        &["redir.test", "example.com", "www.example.com"],
    ))
    .unwrap();
    let sources = [
        src("ok", "http://redir.test/old", None),
        src("blocked", "http://redir.test/to-blocked", None),
        src("private", "http://redir.test/to-private", None),
        src("loop", "http://redir.test/loop0", None),
        src("direct-blocked", "http://example.com/", None),
    ];
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert_eq!(
        rep.sources[0].fetched_url.as_deref(),
        Some("http://redir.test/new")
    );
    assert!(
        matches!(&rep.sources[1].status, SourceStatus::DeniedBlocklist { url, domain } if url == "http://www.example.com/feed" && domain == "example.com"),
        "{:?}",
        rep.sources[1]
    );
    assert!(
        matches!(&rep.sources[2].status, SourceStatus::DeniedRobots { url, line: 2, .. } if url.ends_with("/private/feed")),
        "{:?}",
        rep.sources[2]
    );
    assert!(
        matches!(&rep.sources[3].status, SourceStatus::Failed { reason } if reason.contains("redirects")),
        "{:?}",
        rep.sources[3]
    );
    assert!(matches!(
        rep.sources[4].status,
        SourceStatus::DeniedBlocklist { .. }
    ));
    let reqs = server.requests();
    assert_ua(&reqs);
    assert!(
        reqs.iter().all(|r| !r.host.ends_with("example.com")),
        "blocked host never contacted"
    );
    assert!(reqs.iter().all(|r| !r.path().starts_with("/private")));
    assert_eq!(
        reqs.iter()
            .filter(|r| r.path().starts_with("/loop"))
            .count(),
        6,
        "first request + 5 hops"
    );
}

/// R3b / R3c: the blocklist is kept after a 404 and after an invalid
/// document; the first-ever failure is an empty, loudly reported list.
/// Uses the virtual clock to move past the 6 h refresh.
#[test]
fn blocklist_retention_and_fallback() {
    let mode = Arc::new(AtomicUsize::new(0));
    let m = mode.clone();
    let server = TestServer::start(move |r| match (r.host.as_str(), r.path()) {
        ("wal.sh", "/.well-known/walsh-research/blocklist.json") => {
            match m.load(Ordering::SeqCst) {
                0 => operator(r),
                1 => Reply::not_found(),
                2 => Reply::new(
                    200,
                    "application/json",
                    String::from_utf8(data("operator/blocklist.json"))
                        .unwrap()
                        .replace(
                            "\"updated\": \"2026-05-23T00:00:00Z\"",
                            "\"updated\": \"yesterday\"",
                        ),
                ),
                3 => Reply::new(
                    200,
                    "application/json",
                    String::from_utf8(data("operator/blocklist.json"))
                        .unwrap()
                        .replace("walsh-research-blocklist/v1", "walsh-research-blocklist/v2"),
                ),
                _ => Reply::new(500, "text/plain", "oops"),
            }
        }
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        (_, _) => Reply::new(200, "text/markdown", "[x](https://x.test/x)"),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("blocklist");
    let mut cfg = config(&dir, &server, &["example.com", "ok.test"]);
    cfg.clock = clock.clone();
    let sources = [
        src("blocked", "http://example.com/", None),
        src("ok", "http://ok.test/", None),
    ];
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(matches!(
        rep.blocklist,
        wr_feeds::BlocklistState::Fresh { .. }
    ));
    assert!(matches!(
        rep.sources[0].status,
        SourceStatus::DeniedBlocklist { .. }
    ));
    // One process per state directory (feeds::lock): close before reopening.
    drop(p);
    for (m, what) in [
        (1, "404"),
        (2, "schema-invalid"),
        (3, "unknown major"),
        (4, "500"),
    ] {
        mode.store(m, Ordering::SeqCst);
        clock.advance(Duration::from_secs(7 * 3600));
        let mut p = Pipeline::open(cfg.clone()).unwrap();
        let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
        assert!(
            matches!(rep.blocklist, wr_feeds::BlocklistState::Retained { .. }),
            "{what}: {:?}",
            rep.blocklist
        );
        assert!(
            matches!(rep.sources[0].status, SourceStatus::DeniedBlocklist { .. }),
            "{what}: still blocked"
        );
        assert!(!rep.notices.is_empty());
    }
    assert!(server.requests().iter().all(|r| r.host != "example.com"));
    // First-ever failure: empty list, fail open, reported loudly.
    let dir2 = state_dir("blocklist-first");
    let mut cfg2 = cfg.clone();
    cfg2.state_dir = dir2.to_path_buf();
    let mut p = Pipeline::open(cfg2).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(matches!(
        rep.blocklist,
        wr_feeds::BlocklistState::Fallback { .. }
    ));
    assert!(rep.notices.iter().any(|n| n.contains("EMPTY blocklist")));
    assert_eq!(
        rep.sources[0].status,
        SourceStatus::Ok {
            not_modified: false
        }
    );
    assert_ua(&server.requests());
}

/// R2: 5xx with nothing cached defers the host (reported, target never
/// requested); later 5xx with a cache uses it; robots.txt redirects are
/// followed (each hop gated); 4xx allows all; 500 KiB truncation.
#[test]
fn robots_error_handling() {
    let mode = Arc::new(AtomicUsize::new(0));
    let m = mode.clone();
    let server = TestServer::start(move |r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("flaky.test", "/robots.txt") => match m.load(Ordering::SeqCst) {
            0 => Reply::new(503, "text/plain", "down"),
            1 => Reply::new(
                200,
                "text/plain",
                "User-agent: walsh-research\nDisallow: /secret\n",
            ),
            _ => Reply::new(500, "text/plain", "down"),
        },
        ("hop.test", "/robots.txt") => Reply::redirect(301, "http://hop.test/real-robots.txt"),
        ("hop.test", "/real-robots.txt") => {
            Reply::new(200, "text/plain", "User-agent: *\nDisallow: /no\n")
        }
        ("big.test", "/robots.txt") => {
            let mut body = "User-agent: *\n".to_string();
            while body.len() < 520 * 1024 {
                body.push_str("# padding padding padding padding padding padding\n");
            }
            body.push_str("Disallow: /\n");
            Reply::new(200, "text/plain", body)
        }
        ("gone.test", "/robots.txt") => Reply::new(410, "text/plain", "gone"),
        (_, _) => Reply::new(200, "text/markdown", "[x](https://x.test/x)"),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("robots");
    let mut cfg = config(
        &dir,
        &server,
        &["flaky.test", "hop.test", "big.test", "gone.test"],
    );
    cfg.clock = clock.clone();
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let sources = [
        src("flaky", "http://flaky.test/secret/page", None),
        src("hop", "http://hop.test/no/page", None),
        src("big", "http://big.test/page", None),
        src("gone", "http://gone.test/page", None),
    ];
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(
        matches!(&rep.sources[0].status, SourceStatus::Deferred { reason, .. } if reason.contains("robots.txt")),
        "{:?}",
        rep.sources[0]
    );
    assert!(
        matches!(&rep.sources[1].status, SourceStatus::DeniedRobots { rule, .. } if rule == "Disallow: /no"),
        "{:?}",
        rep.sources[1]
    );
    assert_eq!(
        rep.sources[2].status,
        SourceStatus::Ok {
            not_modified: false
        },
        "truncated before Disallow: /"
    );
    assert_eq!(
        rep.sources[3].status,
        SourceStatus::Ok {
            not_modified: false
        },
        "4xx allows all"
    );
    let reqs = server.requests();
    assert_ua(&reqs);
    assert!(!reqs
        .iter()
        .any(|r| r.host == "flaky.test" && r.path() != "/robots.txt"));
    assert!(reqs
        .iter()
        .any(|r| r.host == "hop.test" && r.path() == "/real-robots.txt"));
    // Later: robots.txt fetched, then (25 h on) failing: cached copy used.
    mode.store(1, Ordering::SeqCst);
    clock.advance(Duration::from_secs(3600));
    let rep = p.run(&sources[..1], FORCE, &mut NoProgress).unwrap();
    assert!(
        matches!(rep.sources[0].status, SourceStatus::DeniedRobots { .. }),
        "{:?}",
        rep.sources[0]
    );
    mode.store(2, Ordering::SeqCst);
    clock.advance(Duration::from_secs(25 * 3600));
    drop(p);
    let mut p = Pipeline::open(cfg).unwrap();
    let open = [src("flaky-open", "http://flaky.test/open", None)];
    let rep = p.run(&open, FORCE, &mut NoProgress).unwrap();
    assert_eq!(
        rep.sources[0].status,
        SourceStatus::Ok {
            not_modified: false
        },
        "cached copy used"
    );
    assert!(
        rep.notices.iter().any(|n| n.contains("cached robots.txt")),
        "{:?} {:#?}",
        rep.notices,
        server
            .requests()
            .iter()
            .map(|r| (r.host.clone(), r.target.clone()))
            .collect::<Vec<_>>()
    );
}

/// A robots.txt whose `User-agent: *` group is `group`, padded with
/// comment lines so that `line` starts `within` octets before the 500 KiB
/// limit (`ROBOTS_MAX_BYTES`): only its first `within` octets lie inside.
fn straddling_robots(group: &str, line: &str, within: usize) -> String {
    let limit = wr_core::constants::ROBOTS_MAX_BYTES;
    let start = limit - within;
    let mut body = format!("User-agent: *\n{group}");
    while start - body.len() > 80 {
        body.push_str("# padding to the 500 KiB limit of spec 9.1.1 ------------------\n");
    }
    let rest = start - body.len();
    body.push_str(&"#".repeat(rest - 1));
    body.push('\n');
    assert_eq!(body.len(), start);
    body.push_str(line);
    body.push('\n');
    assert!(body.len() > limit + 1, "the line must straddle the limit");
    body
}

/// R2c through the real HTTP layer: a robots.txt over 500 KiB is cut, and
/// wr-core must be told so. If the shell hands it exactly 500 KiB, the
/// line straddling the limit reads as a whole line: a cut `Allow:
/// /private/feed.xml-and-more` becomes `Allow: /private/feed` and opens
/// `/private/feed.xml`, and a cut `Disallow: /blog/feed.xml` becomes
/// `Disallow: /blog/fe`, which a longer Allow outranks. Neither target may
/// be requested, in this run or from the cached copy in the next one.
#[test]
fn robots_cut_at_the_limit_never_opens_more() {
    let allow_cut = straddling_robots(
        "Disallow: /private\n",
        "Allow: /private/feed.xml-and-more-of-a-rule-the-limit-cuts-off",
        "Allow: /private/feed".len(),
    );
    let disallow_cut = straddling_robots(
        "Allow: /blog/feed\n",
        "Disallow: /blog/feed.xml",
        "Disallow: /blog/fe".len(),
    );
    let server = TestServer::start(move |r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("cut-allow.test", "/robots.txt") => Reply::new(200, "text/plain", allow_cut.clone()),
        ("cut-disallow.test", "/robots.txt") => Reply::new(200, "text/plain", disallow_cut.clone()),
        _ => Reply::new(200, "application/rss+xml", data("feeds/rss_2.0_spec_1.xml")),
    });
    let dir = state_dir("robots-cut");
    let cfg = config(&dir, &server, &["cut-allow.test", "cut-disallow.test"]);
    let sources = [
        src(
            "cut allow",
            "http://cut-allow.test/",
            Some("http://cut-allow.test/private/feed.xml"),
        ),
        src(
            "cut disallow",
            "http://cut-disallow.test/",
            Some("http://cut-disallow.test/blog/feed.xml"),
        ),
    ];
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    let opened: Vec<_> = rep
        .sources
        .iter()
        .filter(|s| !matches!(s.status, SourceStatus::DeniedRobots { .. }))
        .map(|s| (&s.name, &s.status))
        .collect();
    assert!(opened.is_empty(), "not denied: {opened:?}");
    // The next process reads the stored copy: still cut, still denied.
    drop(p);
    let mut p = Pipeline::open(cfg).unwrap();
    for url in [
        "http://cut-allow.test/private/feed.xml",
        "http://cut-disallow.test/blog/feed.xml",
    ] {
        let c = p.check(url, &mut NoProgress).unwrap();
        assert!(
            matches!(c, CheckReport::DeniedRobots { .. }),
            "{url}: {c:?}"
        );
    }
    let reqs = server.requests();
    assert_ua(&reqs);
    let robots = reqs
        .iter()
        .filter(|r| r.path() == "/robots.txt" && r.host != "wal.sh");
    assert_eq!(robots.count(), 2, "each robots.txt fetched once");
    for r in &reqs {
        assert!(
            !r.path().ends_with("feed.xml"),
            "requested {} {}",
            r.host,
            r.target
        );
    }
}

/// Section 16 canaries with R13: dogfood-disallow never requested in any
/// representation, the other two fetched; tags seen by the server only.
#[test]
fn canaries_and_r13() {
    let server = TestServer::start(operator);
    let dir = state_dir("canaries");
    let mut p = Pipeline::open(config(&dir, &server, &[])).unwrap();
    let fx = p
        .fetch_operator(
            wr_core::constants::TEST_FIXTURES_PATH,
            Some("application/json"),
            &mut NoProgress,
        )
        .unwrap()
        .unwrap();
    let fixtures = wr_feeds::blocklist_doc::parse_fixtures(&fx.body).unwrap();
    let _ = fixtures;
    for path in [
        "dogfood-disallow",
        "dogfood-disallow.html",
        "dogfood-disallow.md",
    ] {
        let url = format!("http://wal.sh/research/bots/{path}");
        for accept in [None, Some("text/markdown")] {
            let r = p.fetch_gated(&url, accept, &mut NoProgress).unwrap();
            assert!(
                matches!(&r, Err(FetchError::DeniedRobots { line: 5, .. })),
                "{url}: {r:?}"
            );
        }
    }
    for path in ["dogfood-allow", "dogfood-walsh-only"] {
        let url = format!("http://wal.sh/research/bots/{path}");
        let r = p
            .fetch_gated(&url, Some("text/markdown"), &mut NoProgress)
            .unwrap()
            .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.final_url, url, "caller sees the untagged URL");
    }
    let reqs = server.requests();
    assert_ua(&reqs);
    assert!(reqs.iter().all(|r| !r.path().contains("dogfood-disallow")));
    for r in &reqs {
        let q = r.query().unwrap_or("");
        assert!(
            q.starts_with("impl=walsh-research%2Fwr-feeds&sha=abc1234&spec="),
            "{} {}",
            r.path(),
            q
        );
    }
    // Fixtures (R4 only), blocklist, robots.txt: Crawl-delay 2 applies from
    // robots.txt on.
    assert_eq!(reqs[2].path(), "/robots.txt");
    assert_spacing(&reqs[2..], "wal.sh", Duration::from_secs(2));
    // check: a dry run never requests the target.
    server.clear();
    let c = p
        .check(
            "http://wal.sh/research/bots/dogfood-walsh-only?x=1",
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        matches!(c, CheckReport::Allowed { line: Some(7), .. }),
        "{c:?}"
    );
    let c = p
        .check(
            "http://wal.sh/research/bots/dogfood-disallow",
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        matches!(c, CheckReport::DeniedRobots { line: 5, .. }),
        "{c:?}"
    );
    let c = p.check("http://www.example.com/", &mut NoProgress).unwrap();
    assert!(matches!(c, CheckReport::DeniedBlocklist { .. }), "{c:?}");
    assert!(server.requests().is_empty());
}

/// R4a: two pipelines (two "processes") on one state directory in two
/// threads never send two requests to a host within a second.
#[test]
fn two_processes_share_the_schedule() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("shared.test", "/robots.txt") => Reply::not_found(),
        _ => Reply::new(200, "text/plain", "ok"),
    });
    let dir = state_dir("r4a");
    let cfg = config(&dir, &server, &["shared.test"]);
    // Seed the blocklist and robots.txt so both threads contend on targets.
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    p.check("http://shared.test/", &mut NoProgress).unwrap();
    drop(p);
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let cfg = cfg.clone();
            std::thread::spawn(move || {
                let mut p = Pipeline::open(cfg).unwrap();
                for i in 0..2 {
                    let r = p
                        .fetch_gated(
                            &format!("http://shared.test/t{t}/{i}"),
                            None,
                            &mut NoProgress,
                        )
                        .unwrap();
                    assert!(r.is_ok(), "{r:?}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let reqs = server.requests_to("shared.test");
    assert_eq!(reqs.len(), 5);
    assert_spacing(&reqs, "shared.test", Duration::from_secs(1));
}

/// Limits: too large fails (naming the URL); a timeout is retried (C5) and
/// then fails, while another source succeeds.
#[test]
fn limits_and_timeouts() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        ("huge.test", _) => Reply::new(200, "application/rss+xml", vec![b' '; 64 * 1024]),
        ("hang.test", _) => {
            Reply::new(200, "application/rss+xml", "x").delayed(Duration::from_millis(1500))
        }
        _ => Reply::new(200, "application/rss+xml", data("feeds/rss_2.0_spec_1.xml")),
    });
    let dir = state_dir("limits");
    let mut cfg = config(&dir, &server, &["huge.test", "hang.test", "fine.test"]);
    cfg.max_body = 32 * 1024;
    cfg.timeouts.request = Duration::from_millis(700);
    cfg.backoff = wr_core::backoff::Backoff {
        base: Duration::from_millis(10),
        cap: Duration::from_millis(50),
        max_retries: 1,
    };
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p
        .run(
            &[
                src("huge", "http://huge.test/", Some("http://huge.test/f")),
                src("hang", "http://hang.test/", Some("http://hang.test/f")),
                src("fine", "http://fine.test/", Some("http://fine.test/f")),
            ],
            FORCE,
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        matches!(&rep.sources[0].status, SourceStatus::Failed { reason } if reason.contains("too large") && reason.contains("http://huge.test/f") && reason.contains("32768")),
        "{:?}",
        rep.sources[0]
    );
    // Two timeouts in a run leave the host alone until the next run.
    assert!(
        matches!(&rep.sources[1].status, SourceStatus::Deferred { reason, .. } if reason.contains("timed out 2 times")),
        "{:?}",
        rep.sources[1]
    );
    assert_eq!(
        rep.sources[2].status,
        SourceStatus::Ok {
            not_modified: false
        }
    );
    let hang = server.requests_to("hang.test");
    assert_eq!(
        hang.iter().filter(|r| r.path() == "/f").count(),
        2,
        "one retry"
    );
    assert_ua(&server.requests());
}

/// HTTPS to a loopback server with a self-signed certificate trusted via
/// `tls_roots`; without it the handshake fails. `connect_to` keeps SNI.
#[test]
fn https_with_self_signed_cert() {
    let (port, log, der) = start_tls(&["wal.sh"], |r| {
        match r.target.split('?').next().unwrap_or("") {
            "/.well-known/walsh-research/blocklist.json" => {
                Reply::new(200, "application/json", data("operator/blocklist.json"))
            }
            "/robots.txt" => Reply::new(200, "text/plain", OPERATOR_ROBOTS),
            _ => Reply::new(200, "text/markdown", "[a](https://wal.sh/a)"),
        }
    });
    let dir = state_dir("tls");
    let mut cfg = wr_feeds::Config::new(dir.to_path_buf());
    cfg.connect_to
        .push(wr_feeds::ConnectTo::new("wal.sh", 443, "127.0.0.1", port));
    cfg.tls_roots = Some(vec![der]);
    cfg.rng_seed = Some(1);
    cfg.backoff.max_retries = 0;
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let r = p
        .fetch_gated(
            "https://wal.sh/research/bots/dogfood-allow",
            None,
            &mut NoProgress,
        )
        .unwrap()
        .unwrap();
    assert_eq!(r.status, 200);
    let reqs = log.lock().unwrap().clone();
    assert_ua(&reqs);
    assert_eq!(reqs.len(), 3);
    assert!(reqs.iter().all(|r| r.host == "wal.sh"));
    // Untrusted certificate: the transfer fails (naming the URL).
    let mut cfg2 = cfg;
    cfg2.tls_roots = None;
    let dir2 = state_dir("tls-untrusted");
    cfg2.state_dir = dir2.to_path_buf();
    let mut p = Pipeline::open(cfg2).unwrap();
    let rep = p.check("https://wal.sh/x", &mut NoProgress).unwrap();
    let _ = rep;
    assert!(
        matches!(p.blocklist_state(), wr_feeds::BlocklistState::Fallback { reason } if reason.contains("https://wal.sh/")),
        "{:?}",
        p.blocklist_state()
    );
}

/// R11: a process killed mid-run (abort in a progress callback) loses
/// nothing committed and corrupts nothing.
#[test]
fn killed_mid_run_keeps_committed_state() {
    if std::env::var("WR_KILL_CHILD").is_ok() {
        return;
    }
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        _ => Reply::new(200, "application/rss+xml", data("feeds/rss_2.0_spec_1.xml")),
    });
    let dir = state_dir("kill");
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "kill_child", "--nocapture", "--test-threads=1"])
        .env("WR_KILL_CHILD_DIR", dir.as_path())
        .env("WR_KILL_CHILD_PORT", server.port.to_string())
        .status()
        .unwrap();
    assert!(!status.success(), "child aborted");
    let cfg = config(&dir, &server, &["a.test", "b.test"]);
    let p = Pipeline::open(cfg).unwrap();
    let key = |name: &str| {
        src(
            name,
            &format!("http://{name}.test/"),
            Some(&format!("http://{name}.test/f")),
        )
        .key()
    };
    let seen = p.store().items_seen(&key("a")).unwrap() + p.store().items_seen(&key("b")).unwrap();
    assert!(
        seen > 0,
        "first finished source committed: {:?}",
        server
            .requests()
            .iter()
            .map(|r| (r.host.clone(), r.target.clone()))
            .collect::<Vec<_>>()
    );
    assert!(
        p.gate().blocklist().is_some_and(|l| !l.is_empty()),
        "blocklist committed"
    );
    let conn = rusqlite_check(&p.store().path().to_path_buf());
    assert_eq!(conn, "ok");
}

fn rusqlite_check(path: &std::path::PathBuf) -> String {
    // Integrity check through a second connection.
    let c = rusqlite::Connection::open(path).unwrap();
    c.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))
        .unwrap()
}

#[test]
fn kill_child() {
    let (Ok(dir), Ok(port)) = (
        std::env::var("WR_KILL_CHILD_DIR"),
        std::env::var("WR_KILL_CHILD_PORT"),
    ) else {
        return;
    };
    let port: u16 = port.parse().unwrap();
    let mut cfg = wr_feeds::Config::new(&dir);
    cfg.set_operator_base("http://wal.sh").unwrap();
    for h in ["wal.sh", "a.test", "b.test"] {
        cfg.connect_to
            .push(wr_feeds::ConnectTo::new(h, 80, "127.0.0.1", port));
    }
    let mut p = Pipeline::open(cfg).unwrap();
    // Abort (no unwinding, no destructors) as the second feed request starts.
    let mut feeds = 0;
    let mut progress = |e: wr_feeds::Event<'_>| {
        if let wr_feeds::Event::Request { url } = e {
            if url.ends_with(".test/f") {
                feeds += 1;
                if feeds == 2 {
                    std::process::abort();
                }
            }
        }
    };
    let _ = p.run(
        &[
            src("a", "http://a.test/", Some("http://a.test/f")),
            src("b", "http://b.test/", Some("http://b.test/f")),
        ],
        FORCE,
        &mut progress,
    );
}

/// R5: when one job's retries run out and its host is left alone for an
/// hour, the other sources of that host are deferred at once; the run never
/// sleeps through the cool-down (or a long Retry-After) because the
/// scheduler was told the host frees in an hour.
#[test]
fn a_held_host_defers_its_other_sources_instead_of_sleeping() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        ("held.test", _) => Reply::new(503, "text/plain", "down"),
        ("slow.test", _) => Reply::new(429, "text/plain", "later").header("Retry-After", "7200"),
        _ => Reply::not_found(),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("held");
    let mut cfg = config(&dir, &server, &["held.test", "slow.test"]);
    cfg.clock = clock.clone();
    cfg.max_wait = Duration::from_secs(60);
    cfg.backoff = wr_core::backoff::Backoff {
        base: Duration::from_millis(10),
        cap: Duration::from_millis(50),
        max_retries: 1,
    };
    let mut p = Pipeline::open(cfg).unwrap();
    let sources = [
        src("a", "http://held.test/", Some("http://held.test/a")),
        src("b", "http://held.test/b", Some("http://held.test/b.xml")),
        src("c", "http://slow.test/", Some("http://slow.test/c")),
        src("d", "http://slow.test/d", Some("http://slow.test/d.xml")),
    ];
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    let ran = Duration::from_millis(rep.finished_at - rep.started_at);
    assert!(
        ran < Duration::from_secs(60),
        "the run slept {ran:?} (virtual): {:#?}",
        rep.sources
    );
    assert!(
        rep.sources.iter().all(|s| matches!(
            s.status,
            SourceStatus::Failed { .. } | SourceStatus::Deferred { .. }
        )),
        "{:#?}",
        rep.sources
    );
    assert!(
        rep.sources
            .iter()
            .any(|s| matches!(&s.status, SourceStatus::Deferred { reason, .. } if reason.contains("cool-down"))),
        "{:#?}",
        rep.sources
    );
    assert_ua(&server.requests());
}

/// C6 for the operator's own resources: only the section 5 URL itself is
/// exempt from R3 and R2; a redirect away from it goes through the full
/// gate like any other hop (a blocked host is never contacted, a disallowed
/// path never requested).
#[test]
fn operator_resource_redirects_are_gated() {
    let mode = Arc::new(AtomicUsize::new(0));
    let m = mode.clone();
    let server = TestServer::start(move |r| match (r.host.as_str(), r.path()) {
        ("wal.sh", "/.well-known/walsh-research/test-fixtures.json") => {
            match m.load(Ordering::SeqCst) {
                0 => Reply::redirect(302, "http://www.example.com/fixtures.json"),
                1 => Reply::redirect(302, "http://mirror.test/private/fixtures.json"),
                _ => Reply::redirect(302, "http://mirror.test/fixtures.json"),
            }
        }
        ("wal.sh", _) => operator(r),
        ("mirror.test", "/robots.txt") => robots_ok(),
        (_, _) => Reply::new(200, "application/json", data("operator/test-fixtures.json")),
    });
    let dir = state_dir("op-redir");
    let mut p = Pipeline::open(config(&dir, &server, &["www.example.com", "mirror.test"])).unwrap();
    let path = wr_core::constants::TEST_FIXTURES_PATH;
    let accept = Some("application/json");
    let r = p.fetch_operator(path, accept, &mut NoProgress).unwrap();
    assert!(
        matches!(&r, Err(FetchError::DeniedBlocklist { domain, .. }) if domain == "example.com"),
        "{r:?}"
    );
    mode.store(1, Ordering::SeqCst);
    let r = p.fetch_operator(path, accept, &mut NoProgress).unwrap();
    assert!(matches!(&r, Err(FetchError::DeniedRobots { .. })), "{r:?}");
    mode.store(2, Ordering::SeqCst);
    let r = p.fetch_operator(path, accept, &mut NoProgress).unwrap();
    let f = r.unwrap();
    assert_eq!(f.final_url, "http://mirror.test/fixtures.json");
    let reqs = server.requests();
    assert_ua(&reqs);
    assert!(reqs.iter().all(|r| !r.host.ends_with("example.com")));
    assert!(reqs.iter().all(|r| !r.path().starts_with("/private")));
    let mirror: Vec<_> = reqs.iter().filter(|r| r.host == "mirror.test").collect();
    assert_eq!(mirror[0].path(), "/robots.txt", "R2 before the hop");
    assert!(
        mirror.iter().all(|r| r.query().is_none()),
        "no R13 tags off the operator's compliance URLs"
    );
}

/// R2 against the URL that is sent: a URL with dot segments (`/./`, `/a/..`,
/// `%2e`) names the same resource as its resolved form, which is what the
/// R13 tagging and most servers act on. The gate must judge that form, so
/// `Disallow: /private` covers `/./private/x`.
#[test]
fn dot_segments_cannot_slip_past_robots() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("dots.test", "/robots.txt") => robots_ok(),
        _ => Reply::new(200, "text/markdown", "[a](https://dots.test/a)"),
    });
    let dir = state_dir("dots");
    let mut p = Pipeline::open(config(&dir, &server, &["dots.test"])).unwrap();
    for url in [
        "http://wal.sh/research/bots/./dogfood-disallow",
        "http://wal.sh/research/x/../bots/dogfood-disallow.md",
        "http://dots.test/./private/x",
        "http://dots.test/public/../private/x",
        "http://dots.test/%2e/private/x",
    ] {
        let r = p.fetch_gated(url, None, &mut NoProgress).unwrap();
        assert!(
            matches!(&r, Err(FetchError::DeniedRobots { .. })),
            "{url}: {r:?}"
        );
        let c = p.check(url, &mut NoProgress).unwrap();
        assert!(
            matches!(c, CheckReport::DeniedRobots { .. }),
            "{url}: {c:?}"
        );
    }
    let rep = p
        .run(
            &[src("dots", "http://dots.test/public/../private/feed", None)],
            FORCE,
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        matches!(rep.sources[0].status, SourceStatus::DeniedRobots { .. }),
        "{:?}",
        rep.sources[0]
    );
    let reqs = server.requests();
    assert_ua(&reqs);
    for r in &reqs {
        let t = r.target.to_ascii_lowercase();
        assert!(
            !t.contains("private") && !t.contains("dogfood-disallow"),
            "requested {} {}",
            r.host,
            r.target
        );
    }
}

/// R7 + R11: a feed's validators are committed with its items, never
/// before them. A run that dies between the two (simulated: the items
/// insert fails, as if the process were killed there) must not leave an
/// ETag behind whose 304 would hide those items from every later run.
#[test]
fn validators_are_committed_with_the_items() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        ("etag.test", "/feed.xml") => {
            etag_v1_feed(r, "application/rss+xml", "feeds/rss_2.0_spec_1.xml")
        }
        _ => Reply::not_found(),
    });
    let dir = state_dir("atomic");
    let cfg = config(&dir, &server, &["etag.test"]);
    let sources = [src(
        "etag",
        "http://etag.test/",
        Some("http://etag.test/feed.xml"),
    )];
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let db = p.store().path().to_path_buf();
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch(
        "CREATE TRIGGER die BEFORE INSERT ON items BEGIN SELECT RAISE(ABORT, 'killed'); END;",
    )
    .unwrap();
    assert!(p.run(&sources, FORCE, &mut NoProgress).is_err());
    drop(p);
    c.execute_batch("DROP TRIGGER die;").unwrap();
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert_eq!(
        rep.sources[0].status,
        SourceStatus::Ok {
            not_modified: false
        },
        "{:?}",
        rep.sources[0]
    );
    assert!(!rep.sources[0].items.is_empty());
}

/// R10: a refreshed standalone schema that does not compile is a refresh
/// failure: the cached schema stays in use (logged), it is not replaced by
/// one under which no blocklist can ever be adopted (which would freeze
/// the list and leave new opt-outs unprotected for a week).
#[test]
fn a_broken_standalone_schema_does_not_replace_the_cached_one() {
    let broken = Arc::new(AtomicUsize::new(0));
    let b = broken.clone();
    let list = |extra: bool| {
        let mut v: serde_json::Value =
            serde_json::from_slice(&data("operator/blocklist.json")).unwrap();
        v.as_object_mut().unwrap().remove("schema");
        if extra {
            v["blocked"].as_array_mut().unwrap().push(serde_json::json!(
                {"domain": "optout.test", "added": "2026-06-01", "reason": "email opt-out"}
            ));
        }
        v.to_string()
    };
    let server = TestServer::start(move |r| match (r.host.as_str(), r.path()) {
        ("wal.sh", "/.well-known/walsh-research/blocklist.json") => {
            Reply::new(200, "application/json", list(b.load(Ordering::SeqCst) > 0))
        }
        ("wal.sh", "/.well-known/walsh-research/blocklist.schema.json")
            if b.load(Ordering::SeqCst) > 0 =>
        {
            Reply::new(200, "application/schema+json", "{\"type\": 12}")
        }
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        _ => Reply::new(200, "text/markdown", "[x](https://optout.test/x)"),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("schema");
    let mut cfg = config(&dir, &server, &["optout.test"]);
    cfg.clock = clock.clone();
    let sources = [src("optout", "http://optout.test/", None)];
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(
        matches!(rep.blocklist, wr_feeds::BlocklistState::Fresh { .. }),
        "{:?} {:?}",
        rep.blocklist,
        rep.notices
    );
    assert_eq!(
        rep.sources[0].status,
        SourceStatus::Ok {
            not_modified: false
        }
    );
    // Eight days on: the list adds optout.test, the schema endpoint breaks.
    broken.store(1, Ordering::SeqCst);
    clock.advance(Duration::from_secs(8 * 86_400));
    server.clear();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(
        rep.notices
            .iter()
            .any(|n| n.contains("stale cached schema")),
        "{:?}",
        rep.notices
    );
    assert!(
        matches!(rep.sources[0].status, SourceStatus::DeniedBlocklist { .. }),
        "the new opt-out is honoured: {:?} {:?}",
        rep.sources[0],
        rep.notices
    );
    assert!(server.requests().iter().all(|r| r.host != "optout.test"));
}

/// R5 on the operator host: a rate-limited blocklist refresh (429 with
/// Retry-After) keeps the run going on its fallback list, and nothing else
/// is sent to the operator before the Retry-After has passed.
#[test]
fn an_operator_retry_after_holds_the_operator_host() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", "/.well-known/walsh-research/blocklist.json") => {
            Reply::new(429, "text/plain", "slow down").header("Retry-After", "120")
        }
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        ("ra-feeds.test", "/feed.xml") => {
            Reply::new(200, "application/atom+xml", data("feeds/atom_spec_1.xml"))
        }
        _ => Reply::not_found(),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("operator-retry-after");
    let mut cfg = config(&dir, &server, &["ra-feeds.test"]);
    cfg.clock = clock.clone();
    cfg.max_wait = Duration::from_secs(60);
    let mut p = Pipeline::open(cfg).unwrap();
    let sources = [src(
        "a",
        "http://ra-feeds.test/",
        Some("http://ra-feeds.test/feed.xml"),
    )];
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(
        matches!(rep.sources[0].status, SourceStatus::Ok { .. }),
        "{:#?}",
        rep.sources
    );
    let before = server.requests_to("wal.sh").len();
    let fixtures = p
        .fetch_operator(
            "/.well-known/walsh-research/test-fixtures.json",
            Some("application/json"),
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        fixtures.is_err(),
        "the operator host is held for 120 s, longer than max_wait: {:?}",
        fixtures.as_ref().map(|f| f.status)
    );
    assert_eq!(
        server.requests_to("wal.sh").len(),
        before,
        "nothing more was sent to the operator during its Retry-After"
    );
    clock.advance(Duration::from_secs(121));
    let fixtures = p
        .fetch_operator(
            "/.well-known/walsh-research/test-fixtures.json",
            Some("application/json"),
            &mut NoProgress,
        )
        .unwrap();
    assert_eq!(fixtures.map(|f| f.status).ok(), Some(200));
    assert_ua(&server.requests());
}

/// Nothing lost between fetching and delivering: items stay new until the
/// caller says the digest holding them was delivered (`mark_reported`), so
/// a run killed before the digest was written, or a digest that failed to
/// write, owes them to the next digest, even when the feed answers 304.
#[test]
fn items_stay_new_until_their_digest_is_delivered() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        ("owed.test", "/feed.xml") => {
            etag_v1_feed(r, "application/atom+xml", "feeds/atom_spec_1.xml")
        }
        _ => Reply::not_found(),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("owed");
    let mut cfg = config(&dir, &server, &["owed.test"]);
    cfg.clock = clock.clone();
    let sources = [src(
        "a",
        "http://owed.test/",
        Some("http://owed.test/feed.xml"),
    )];
    let ids = |rep: &wr_feeds::RunReport| -> Vec<String> {
        rep.sources[0].items.iter().map(|i| i.id.clone()).collect()
    };

    // A run whose digest never reached the reader (the process died).
    let first = Pipeline::open(cfg.clone())
        .unwrap()
        .run(&sources, FORCE, &mut NoProgress)
        .unwrap();
    assert!(!first.sources[0].items.is_empty());

    // The next run gets a 304 but still owes those items.
    clock.advance(Duration::from_secs(2 * 3600));
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let second = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert_eq!(
        second.sources[0].status,
        SourceStatus::Ok { not_modified: true }
    );
    assert_eq!(ids(&second), ids(&first));

    // Delivered: from now on they are no longer new.
    p.mark_reported(&second).unwrap();
    clock.advance(Duration::from_secs(2 * 3600));
    let third = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(third.sources[0].items.is_empty(), "{:?}", ids(&third));
    assert_ua(&server.requests());
}

/// Issue #11, R3 skipped, not failed: with no blocklist ever adopted and the
/// operator host held (a cool-down left by an offline `selftest`, say), a
/// run used to go ahead with an empty list without even asking, and
/// contacted listed domains. The spec's fail-open covers a first fetch that
/// fails, not one never made: the targets are deferred. The same holds
/// when the stored list cannot be read and the refresh fails.
#[test]
fn a_blocklist_never_asked_for_defers_the_targets() {
    let server = TestServer::start(|r| match r.host.as_str() {
        "wal.sh" => Reply::new(503, "text/plain", "down"),
        _ => Reply::new(200, "text/markdown", "[x](https://x.test/x)"),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let sources = [src("listed", "http://example.com/", None)];

    // The operator host is in its 60-minute cool-down.
    let dir = state_dir("blocklist-never-asked");
    let mut cfg = config(&dir, &server, &["example.com"]);
    cfg.clock = clock.clone();
    let p = Pipeline::open(cfg.clone()).unwrap();
    p.store()
        .hold(
            "wal.sh",
            wr_feeds::Clock::now(&*clock).saturating_add(Duration::from_secs(3600)),
            wr_feeds::store::HoldCause::Cooldown,
        )
        .unwrap();
    drop(p);
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(
        matches!(&rep.blocklist, wr_feeds::BlocklistState::Unavailable { reason } if reason.contains("held")),
        "{:?}",
        rep.blocklist
    );
    assert!(
        matches!(&rep.sources[0].status, SourceStatus::Deferred { reason, .. } if reason.contains("blocklist")),
        "{:?}",
        rep.sources[0].status
    );
    assert!(server.requests().is_empty(), "{:?}", server.requests());
    let check = p.check("http://example.com/", &mut NoProgress).unwrap();
    assert!(
        matches!(&check, CheckReport::Deferred { reason, .. } if reason.contains("blocklist")),
        "{check:?}"
    );

    // A stored list that cannot be read, and a refresh that fails (503).
    let dir = state_dir("blocklist-unreadable");
    let mut cfg = config(&dir, &server, &["example.com"]);
    cfg.clock = clock.clone();
    let p = Pipeline::open(cfg.clone()).unwrap();
    p.store()
        .put_blocklist(&wr_feeds::store::BlocklistRow {
            contract: "walsh-research-blocklist/v1".into(),
            refresh_ms: 21_600_000,
            updated: "2026-05-23T00:00:00Z".into(),
            entries_json: "{not json".into(),
            fetched_at: wr_feeds::Clock::now(&*clock),
        })
        .unwrap();
    drop(p);
    let mut cfg = cfg;
    cfg.backoff.max_retries = 0;
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(
        matches!(&rep.blocklist, wr_feeds::BlocklistState::Unavailable { reason } if reason.contains("cannot be read")),
        "{:?}",
        rep.blocklist
    );
    assert!(matches!(
        rep.sources[0].status,
        SourceStatus::Deferred { .. }
    ));
    assert!(
        server.requests().iter().all(|r| r.host == "wal.sh"),
        "a target was contacted: {:?}",
        server.requests()
    );
}

/// Issue #11, clock skew: a robots.txt stored with a `fetched_at` in the
/// future (the clock was ahead when it was written) used to stay "fresh"
/// for its 24 h TTL plus the skew, so a publisher's new Disallow went
/// unread for as long. Stored instants are clamped to now on load.
#[test]
fn a_robots_txt_stored_in_the_future_is_refreshed_after_its_ttl() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::new(200, "text/plain", "User-agent: *\nDisallow: /\n"),
        (_, _) => Reply::new(200, "text/markdown", "[x](https://x.test/x)"),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("robots-future");
    let mut cfg = config(&dir, &server, &["skewed.test"]);
    cfg.clock = clock.clone();
    let now = wr_feeds::Clock::now(&*clock);
    let p = Pipeline::open(cfg.clone()).unwrap();
    p.store()
        .put_robots(&wr_feeds::store::RobotsRow {
            origin: "http://skewed.test:80".into(),
            status: 200,
            body: b"User-agent: *\nAllow: /\n".to_vec(),
            fetched_at: now.saturating_add(Duration::from_secs(30 * 86_400)),
        })
        .unwrap();
    drop(p);
    // The next start (at `now`) finds it in the future and clamps it.
    drop(Pipeline::open(cfg.clone()).unwrap());
    clock.advance(Duration::from_secs(25 * 3600));
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p
        .run(
            &[src("skewed", "http://skewed.test/feed", None)],
            FORCE,
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        matches!(rep.sources[0].status, SourceStatus::DeniedRobots { .. }),
        "{:?}",
        rep.sources[0].status
    );
    let reqs = server.requests();
    assert!(reqs
        .iter()
        .any(|r| r.host == "skewed.test" && r.path() == "/robots.txt"));
    assert!(reqs
        .iter()
        .all(|r| r.host != "skewed.test" || r.path() == "/robots.txt"));
}

/// Issue #11: `check` said "allowed ... wait 9223370241386044.0 s" for a
/// host held by a huge Retry-After. A held host is deferred, with the
/// instant the hold ends.
#[test]
fn check_reports_a_held_host_as_deferred_with_the_instant() {
    let server = open_site();
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("check-held");
    let mut cfg = config(&dir, &server, &["held.test", "far.test"]);
    cfg.clock = clock.clone();
    let now = wr_feeds::Clock::now(&*clock);
    let p = Pipeline::open(cfg.clone()).unwrap();
    p.store()
        .hold(
            "held.test",
            now.saturating_add(Duration::from_secs(7200)),
            wr_feeds::store::HoldCause::RetryAfter,
        )
        .unwrap();
    p.store()
        .hold(
            "far.test",
            Timestamp(u64::MAX),
            // A hold of ours that long is clamped (issue #20); a server's
            // Retry-After is kept whole up to 30 days (RETRY_AFTER_CAP).
            wr_feeds::store::HoldCause::RetryAfter,
        )
        .unwrap();
    drop(p);
    let mut p = Pipeline::open(cfg).unwrap();
    match p.check("http://held.test/feed", &mut NoProgress).unwrap() {
        CheckReport::Deferred { reason, .. } => {
            assert!(
                reason.contains("held until") && reason.contains("GMT"),
                "{reason}"
            );
            assert!(reason.contains("Retry-After"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    match p.check("http://far.test/feed", &mut NoProgress).unwrap() {
        CheckReport::Deferred { reason, .. } => {
            // Held 30 days (and the second of slack a read allows), not
            // for ever.
            let cap = wr_core::constants::RETRY_AFTER_CAP.as_secs();
            assert!(
                reason.contains(&format!("{} s from now", cap + 1))
                    || reason.contains(&format!("{cap} s from now")),
                "{reason}"
            );
            assert!(reason.contains("Retry-After"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(server
        .requests()
        .iter()
        .all(|r| !r.path().starts_with("/feed")));
}

/// Issue #11: the R5 retry budget was reset on every redirect hop, so one
/// target could cost up to 36 requests. Hops and retries now share one
/// budget per target: here each of six hops answers 503 once before
/// redirecting, six retries in all, one more than the budget of five.
#[test]
fn redirect_hops_share_one_retry_budget() {
    use std::collections::HashMap;
    use std::sync::Mutex;
    let seen: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    let s = seen.clone();
    let server = TestServer::start(move |r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        (_, path) if path.starts_with("/r") => {
            let n: usize = path[2..].parse().unwrap_or(9);
            let mut seen = s.lock().unwrap();
            let count = seen.entry(path.to_string()).or_default();
            *count += 1;
            if *count == 1 {
                Reply::status(503).header("Retry-After", "1")
            } else if n < 5 {
                Reply::redirect(302, &format!("/r{}", n + 1))
            } else {
                Reply::new(200, "text/markdown", "[x](https://x.test/x)")
            }
        }
        _ => Reply::not_found(),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("hops-budget");
    let mut cfg = config(&dir, &server, &["hops.test"]);
    cfg.clock = clock.clone();
    let mut p = Pipeline::open(cfg).unwrap();
    let r = p
        .fetch_gated("http://hops.test/r0", None, &mut NoProgress)
        .unwrap();
    assert!(
        matches!(&r, Err(FetchError::Failed { reason, .. }) if reason.contains("after 5 retries")),
        "{r:?}"
    );
    let to_target = server
        .requests()
        .iter()
        .filter(|r| r.host == "hops.test" && r.path() != "/robots.txt")
        .count();
    // r0..r4: a 503 and a redirect each (10), then r5's 503: 11 requests,
    // 5 retries. With a budget per hop it went on to 12 and succeeded.
    assert_eq!(to_target, 11);
}

/// Issue #11, local errors are not network errors: a 100 KB URL failed
/// before it was sent ("uri too long"), was retried 5 times and then held
/// its whole host for 60 minutes, deferring the host's other sources; a
/// malformed response header did the same. Both fail their own source
/// only: no retry, no hold.
#[test]
fn requests_that_cannot_be_made_or_read_fail_one_source_without_retries() {
    let server = open_site();
    // robots.txt is a plain 404; every other answer has a header line
    // without a colon.
    let garbled = FaultServer::start(|path| match path {
        "/robots.txt" => Fault::answer(404, ""),
        _ => Fault::MalformedHeader,
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("local-errors");
    let mut cfg = config(&dir, &server, &["long.test"]);
    cfg.connect_to.push(wr_feeds::config::ConnectTo::new(
        "garbled.test",
        80,
        "127.0.0.1",
        garbled.port(),
    ));
    cfg.clock = clock.clone();
    let long = format!("http://long.test/{}", "a".repeat(100_000));
    let sources = [
        src("too long", &long, None),
        src("same host", "http://long.test/feed", None),
        src("garbled", "http://garbled.test/feed", None),
    ];
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert!(
        matches!(&rep.sources[0].status, SourceStatus::Failed { reason, .. } if reason.contains("cannot make this request")),
        "{:?}",
        rep.sources[0].status
    );
    assert_eq!(
        rep.sources[1].status,
        SourceStatus::Ok {
            not_modified: false
        },
        "the host's other source is not held"
    );
    assert!(
        matches!(&rep.sources[2].status, SourceStatus::Failed { reason, .. } if reason.contains("not readable HTTP")),
        "{:?}",
        rep.sources[2].status
    );
    // garbled.test: robots.txt and the feed, once each, no retries.
    assert_eq!(garbled.paths(), ["/robots.txt", "/feed"]);
    assert!(server.requests().iter().all(|r| r.target.len() < 1000));
}

/// Issue #11, dead hosts were slow: a server that accepts and never
/// answers cost 30 s per attempt, five retries per source, serially. Now
/// the answer timeout gives up sooner than the whole-request one, and a
/// host that timed out twice in a run is left alone until the next run:
/// its other sources are deferred without a request.
#[test]
fn a_host_that_never_answers_costs_two_timeouts_per_run() {
    let server = TestServer::start(|r| match r.host.as_str() {
        "wal.sh" => operator(r),
        _ => Reply::not_found(),
    });
    // robots.txt answers (404); every other request is read and never
    // answered.
    let dead = FaultServer::start(|path| match path {
        "/robots.txt" => Fault::answer(404, ""),
        _ => Fault::NeverAnswer(Duration::from_secs(20)),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("dead-host");
    let mut cfg = config(&dir, &server, &[]);
    cfg.connect_to.push(wr_feeds::config::ConnectTo::new(
        "dead.test",
        80,
        "127.0.0.1",
        dead.port(),
    ));
    cfg.clock = clock.clone();
    cfg.timeouts.answer = Duration::from_millis(500);
    let sources = [
        src("one", "http://dead.test/one.xml", None),
        src("two", "http://dead.test/two.xml", None),
    ];
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    for s in &rep.sources {
        assert!(
            matches!(&s.status, SourceStatus::Deferred { reason, .. } if reason.contains("timed out 2 times")),
            "{:?}",
            s.status
        );
    }
    // Two attempts in all, whichever sources the scheduler tried them
    // for; then the host is left alone (before: six, and a cool-down).
    let paths = dead.paths();
    assert_eq!(paths.len(), 3, "{paths:?}");
    assert_eq!(paths[0], "/robots.txt");
}

/// Issue #12 (safe output): a reason that quotes bytes a server sent
/// (a parser's error, a rule of robots.txt) reaches the report with every
/// control character and escape sequence removed, so neither the
/// terminal, the JSON nor the Markdown digest receives them.
#[test]
fn reasons_quoting_network_bytes_carry_no_control_characters() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("rules.test", "/robots.txt") => Reply::new(
            200,
            "text/plain",
            "User-agent: *\nDisallow: /feed\x1b]0;pwned\x07\n",
        ),
        (_, "/robots.txt") => Reply::not_found(),
        ("broken.test", _) => Reply::new(
            200,
            "application/rss+xml",
            "<rss version=\"2.0\"><channel>\x1b]0;pwned\x07\x1b[2J<item attr=\x1b[31m",
        ),
        _ => Reply::not_found(),
    });
    let dir = state_dir("clean-reasons");
    let cfg = config(&dir, &server, &["broken.test", "rules.test"]);
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p
        .run(
            &[
                src(
                    "broken",
                    "http://broken.test/",
                    Some("http://broken.test/feed"),
                ),
                src(
                    "rules",
                    "http://rules.test/",
                    Some("http://rules.test/feed%1B]0;pwned%07"),
                ),
            ],
            FORCE,
            &mut NoProgress,
        )
        .unwrap();
    let text = format!("{:?} {:?}", rep.sources, rep.notices);
    assert!(
        !matches!(rep.sources[0].status, SourceStatus::Ok { .. }),
        "{text}"
    );
    assert!(
        matches!(&rep.sources[1].status, SourceStatus::DeniedRobots { rule, .. } if rule.starts_with("Disallow: /feed")),
        "{text}"
    );
    for s in &rep.sources {
        let json = serde_json::to_string(&s.status).unwrap();
        assert!(
            !json.contains("\\u001b") && !json.contains("\\u0007"),
            "{json}"
        );
    }
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
    let check = p
        .check("http://rules.test/feed%1B]0;pwned%07", &mut NoProgress)
        .unwrap();
    assert!(!format!("{check:?}").contains('\u{1b}'), "{check:?}");
}

/// Issue #11's fault suite, the rest: a body dripped one octet at a time
/// is cut off by the whole-request timeout; a reset and a connection closed
/// in the middle of the headers are transport errors, retried (R5) and
/// reported with the URL; none of them takes the run down.
#[test]
fn drips_resets_and_early_closes_fail_their_source_only() {
    let server = open_site();
    let faults = FaultServer::start(|path| match path {
        "/robots.txt" => Fault::answer(404, ""),
        "/drip.xml" => Fault::Drip {
            body: vec![b' '; 64],
            every: Duration::from_millis(100),
        },
        "/reset.xml" => Fault::Reset,
        _ => Fault::CloseEarly,
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("faults");
    let mut cfg = config(&dir, &server, &["fine.test"]);
    for host in ["drip.test", "reset.test", "early.test"] {
        cfg.connect_to.push(wr_feeds::config::ConnectTo::new(
            host,
            80,
            "127.0.0.1",
            faults.port(),
        ));
    }
    cfg.clock = clock.clone();
    cfg.timeouts.request = Duration::from_millis(800);
    cfg.backoff.max_retries = 1;
    let sources = [
        src("drip", "http://drip.test/drip.xml", None),
        src("reset", "http://reset.test/reset.xml", None),
        src("early", "http://early.test/early.xml", None),
        src("fine", "http://fine.test/feed", None),
    ];
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    for (s, host) in rep.sources[..3]
        .iter()
        .zip(["drip.test", "reset.test", "early.test"])
    {
        match &s.status {
            SourceStatus::Failed { reason } | SourceStatus::Deferred { reason, .. } => {
                assert!(reason.contains(host), "{reason}")
            }
            other => panic!("{host}: {other:?}"),
        }
    }
    assert_eq!(
        rep.sources[3].status,
        SourceStatus::Ok {
            not_modified: false
        }
    );
    // Each faulty target was tried, and retried at most once (R5 budget 1).
    let paths = faults.paths();
    for path in ["/drip.xml", "/reset.xml", "/early.xml"] {
        let n = paths.iter().filter(|p| p.as_str() == path).count();
        assert!((1..=2).contains(&n), "{path}: {paths:?}");
    }
}

/// Issue #12: an https URL answered in plain HTTP said "received corrupt
/// message of type InvalidContentType"; it now says what went wrong.
#[test]
fn https_to_a_plain_http_port_says_so() {
    let server = TestServer::start(|r| match r.host.as_str() {
        "wal.sh" => operator(r),
        _ => Reply::not_found(),
    });
    // Answers a TLS ClientHello with a plain-text HTTP error.
    let plain = FaultServer::start(|_| Fault::answer(400, "plain http here"));
    let dir = state_dir("not-tls");
    let mut cfg = config(&dir, &server, &[]);
    cfg.connect_to.push(wr_feeds::config::ConnectTo::new(
        "plain.test",
        443,
        "127.0.0.1",
        plain.port(),
    ));
    cfg.backoff.max_retries = 0;
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p
        .run(
            &[src("plain", "https://plain.test/feed", None)],
            FORCE,
            &mut NoProgress,
        )
        .unwrap();
    let text = format!("{:?}", rep.sources[0].status);
    assert!(text.contains("did not answer in TLS"), "{text}");
}

/// Issue #11's fault suite, the rest of it: a gzip bomb, a body past the
/// limit, a redirect loop and a Retry-After in the past each end their own
/// source the way the fetch machines decide, and cost no more requests
/// than that decision allows.
#[test]
fn bombs_huge_bodies_loops_and_past_retry_after_end_their_source_only() {
    // Made before the run: compressing it takes seconds on a loaded
    // machine, which would otherwise count against the client's deadline.
    wr_conformance::faults::gzip_zeros(256 << 20);
    let server = open_site();
    let faults = FaultServer::start(|path| match path {
        "/robots.txt" => Fault::answer(404, ""),
        // 256 MiB of zeros in about 256 KiB on the wire.
        "/bomb.xml" => Fault::GzipBomb {
            expands_to: 256 << 20,
        },
        "/huge.xml" => Fault::answer(200, vec![b' '; (2 << 20) + 1]),
        p if p.starts_with("/loop") => Fault::redirect(302, "/loop-again"),
        _ => Fault::Answer {
            status: 503,
            headers: vec!["Retry-After: Wed, 21 Oct 2015 07:28:00 GMT".into()],
            body: Vec::new(),
        },
    });
    let dir = state_dir("fault-suite");
    let mut cfg = config(&dir, &server, &["fine.test"]);
    for host in ["bomb.test", "huge.test", "loop.test", "past.test"] {
        cfg.connect_to.push(wr_feeds::config::ConnectTo::new(
            host,
            80,
            "127.0.0.1",
            faults.port(),
        ));
    }
    cfg.max_body = 2 << 20;
    cfg.backoff.max_retries = 2;
    let sources = [
        src(
            "bomb",
            "http://bomb.test/",
            Some("http://bomb.test/bomb.xml"),
        ),
        src(
            "huge",
            "http://huge.test/",
            Some("http://huge.test/huge.xml"),
        ),
        src("loop", "http://loop.test/", Some("http://loop.test/loop")),
        src(
            "past",
            "http://past.test/",
            Some("http://past.test/feed.xml"),
        ),
        src("fine", "http://fine.test/feed", None),
    ];
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    let reason = |i: usize| match &rep.sources[i].status {
        SourceStatus::Failed { reason } => reason.clone(),
        other => panic!("{}: {other:?}", rep.sources[i].name),
    };
    // The bomb is cut at the body limit after decompression, not retried.
    assert!(reason(0).contains("too large"), "{}", reason(0));
    assert!(reason(1).contains("too large"), "{}", reason(1));
    assert!(reason(2).contains("more than 5 redirects"), "{}", reason(2));
    assert!(
        reason(3).contains("HTTP 503 after 2 retries"),
        "{}",
        reason(3)
    );
    assert_eq!(
        rep.sources[4].status,
        SourceStatus::Ok {
            not_modified: false
        }
    );
    let count = |prefix: &str| {
        faults
            .paths()
            .iter()
            .filter(|p| p.starts_with(prefix))
            .count()
    };
    assert_eq!(count("/bomb.xml"), 1, "{:?}", faults.paths());
    assert_eq!(count("/huge.xml"), 1, "{:?}", faults.paths());
    // The target and five hops; the sixth hop is not followed.
    assert_eq!(count("/loop"), 6, "{:?}", faults.paths());
    // A Retry-After in the past means "now": the first attempt and two
    // retries, each still spaced by R4.
    assert_eq!(count("/feed.xml"), 3, "{:?}", faults.paths());
}

/// Spec 7 puts R2 and R3 before R4: a source that robots.txt denies is
/// answered at once, not after waiting out its host's Crawl-delay behind
/// an allowed source of the same host (the scheduler used to queue it on
/// the host's slot).
#[test]
fn a_denied_source_does_not_wait_for_its_hosts_crawl_delay() {
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::new(
            200,
            "text/plain",
            "User-agent: *\nCrawl-delay: 60\nDisallow: /private\n",
        ),
        _ => Reply::new(200, "text/markdown", "[x](https://x.test/x)"),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("denied-no-wait");
    let mut cfg = config(&dir, &server, &["slow.test"]);
    cfg.clock = clock.clone();
    let sources = [
        src("allowed", "http://slow.test/a", None),
        src("also allowed", "http://slow.test/b", None),
        src("denied", "http://slow.test/private/c", None),
    ];
    let mut p = Pipeline::open(cfg).unwrap();
    let mut log: Vec<(String, u64)> = Vec::new();
    let c = clock.clone();
    let mut progress = |e: wr_feeds::Event<'_>| {
        if let wr_feeds::Event::SourceDone { name, .. } = e {
            log.push((name.to_string(), wr_feeds::Clock::now(&*c).0));
        }
    };
    let rep = p.run(&sources, FORCE, &mut progress).unwrap();
    assert!(
        matches!(rep.sources[2].status, SourceStatus::DeniedRobots { .. }),
        "{:?}",
        rep.sources[2].status
    );
    let at = |name: &str| log.iter().find(|(n, _)| n == name).unwrap().1;
    let start = 1_780_000_000_000;
    // The two allowed sources are 60 s apart (Crawl-delay); the denied one
    // is answered as soon as robots.txt is known, without a slot.
    assert!(
        at("also allowed").abs_diff(at("allowed")) >= 60_000,
        "{log:?}"
    );
    assert!(at("denied") < start + 60_000, "{log:?}");
}

/// Issue #18: a blocklist whose `"refresh"` is `"PT0S"` (schema-valid)
/// went stale the instant it was adopted, so R12's block-on-refresh asked
/// for it before every request: one blocklist GET a second, no target ever
/// fetched, `check` never returning. The refresh is now read as the
/// 5-minute floor: one GET for the run, the targets fetched, `check`
/// answering from the list in force, and a refresh once the floor has
/// passed. The server answers 500 past 20 blocklist requests, so that a
/// regression ends (and fails on the count) instead of spinning forever.
#[test]
fn a_zero_refresh_blocklist_is_asked_once_and_the_targets_go() {
    let asked = Arc::new(AtomicUsize::new(0));
    let a = asked.clone();
    let zero = String::from_utf8(data("operator/blocklist.json"))
        .unwrap()
        .replace("\"refresh\": \"PT6H\"", "\"refresh\": \"PT0S\"");
    assert!(zero.contains("\"PT0S\""), "the fixture's refresh changed");
    let server = TestServer::start(move |r| match (r.host.as_str(), r.path()) {
        ("wal.sh", "/.well-known/walsh-research/blocklist.json") => {
            if a.fetch_add(1, Ordering::SeqCst) < 20 {
                Reply::new(200, "application/json", zero.clone())
            } else {
                Reply::new(500, "text/plain", "circuit breaker of the test")
            }
        }
        ("wal.sh", _) => operator(r),
        (_, "/robots.txt") => Reply::not_found(),
        (_, _) => Reply::new(200, "text/markdown", "[x](https://x.test/x)"),
    });
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir("blocklist-pt0s");
    let mut cfg = config(&dir, &server, &["example.com", "a.test", "b.test"]);
    cfg.clock = clock.clone();
    let sources = [
        src("a1", "http://a.test/one", None),
        src("a2", "http://a.test/two", None),
        src("b", "http://b.test/", None),
        src("listed", "http://example.com/", None),
    ];
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    let targets = |s: &TestServer| {
        s.requests()
            .iter()
            .map(|r| format!("{}{}", r.host, r.path()))
            .collect::<Vec<_>>()
    };
    assert_eq!(asked.load(Ordering::SeqCst), 1, "{:?}", targets(&server));
    assert!(
        matches!(
            rep.blocklist,
            wr_feeds::BlocklistState::Fresh { entries: 1 }
        ),
        "{:?}",
        rep.blocklist
    );
    for s in &rep.sources[..3] {
        assert_eq!(
            s.status,
            SourceStatus::Ok {
                not_modified: false
            },
            "{}",
            s.name
        );
    }
    assert!(matches!(
        rep.sources[3].status,
        SourceStatus::DeniedBlocklist { .. }
    ));
    for target in ["/one", "/two"] {
        assert_eq!(
            server
                .requests_to("a.test")
                .iter()
                .filter(|r| r.path() == target)
                .count(),
            1,
            "{target}"
        );
    }
    assert!(server.requests_to("example.com").is_empty());
    assert!(
        rep.notices
            .iter()
            .any(|n| n.contains("shorter than the 300 s floor")),
        "{:?}",
        rep.notices
    );

    // `check` answers from the list in force: no new blocklist request.
    let check = p.check("http://b.test/page", &mut NoProgress).unwrap();
    assert!(matches!(check, CheckReport::Allowed { .. }), "{check:?}");
    let check = p.check("http://www.example.com/", &mut NoProgress).unwrap();
    assert!(
        matches!(check, CheckReport::DeniedBlocklist { .. }),
        "{check:?}"
    );
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    // Once the floor has passed, R12's block-on-refresh asks again, once.
    clock.advance(wr_core::constants::BLOCKLIST_REFRESH_FLOOR);
    let check = p.check("http://b.test/page", &mut NoProgress).unwrap();
    assert!(matches!(check, CheckReport::Allowed { .. }), "{check:?}");
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    drop(p);

    // The next run, within the floor, reads the stored list: no request.
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p.run(&sources, FORCE, &mut NoProgress).unwrap();
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert!(
        matches!(
            rep.blocklist,
            wr_feeds::BlocklistState::Cached { entries: 1 }
        ),
        "{:?}",
        rep.blocklist
    );
    assert_ua(&server.requests());
}

/// Issue #20, the clock that was ahead, one test per stored instant the
/// gate reads. Each host row is written as a run on a clock `skew` ahead
/// would have written it; the run at the true `now` must not be deferred
/// for the skew.
fn skewed_pipeline(
    name: &str,
    hosts: &[&str],
) -> (TestServer, Arc<ManualClock>, wr_feeds::Config, StateDir) {
    let server = open_site();
    let clock = Arc::new(ManualClock::new(Timestamp::from_secs(1_780_000_000)));
    let dir = state_dir(name);
    let mut cfg = config(&dir, &server, hosts);
    cfg.clock = clock.clone();
    // Longer than any honest wait here: a longer one defers the source.
    cfg.max_wait = Duration::from_secs(60);
    (server, clock, cfg, dir)
}

const SKEW: Duration = Duration::from_secs(3 * 86_400);

/// `hosts.last_request` 3 days ahead: every source of the host was
/// deferred as "Crawl-delay spacing" for 3 days, and `check` said
/// allowed. Clamped to now, the host waits one interval.
#[test]
fn a_last_request_stored_ahead_does_not_defer_its_host() {
    let (server, clock, cfg, _dir) = skewed_pipeline("skew-last-request", &["skew.test"]);
    let now = wr_feeds::Clock::now(&*clock);
    drop(Pipeline::open(cfg.clone()).unwrap());
    let mut store = wr_feeds::store::Store::open(&cfg.state_dir).unwrap();
    store
        .reserve_slot("skew.test", |_| {
            (
                (),
                Some(("skew.test".to_string(), now.saturating_add(SKEW))),
            )
        })
        .unwrap();
    drop(store);
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p
        .run(
            &[src("skewed", "http://skew.test/page", None)],
            FORCE,
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        matches!(rep.sources[0].status, SourceStatus::Ok { .. }),
        "{:?}",
        rep.sources[0].status
    );
    assert!(rep.finished_at - rep.started_at < 60_000);
    assert!(server
        .requests_to("skew.test")
        .iter()
        .any(|r| r.path() == "/page"));
}

/// `hosts.hold_until` of our own (a cool-down) 30 days ahead: no hold of
/// ours lasts beyond the cool-down, so it ends within that from now. A
/// server's Retry-After as long is kept whole (R5: at least that long).
#[test]
fn a_hold_of_ours_stored_ahead_ends_within_the_cool_down() {
    let (server, clock, cfg, _dir) = skewed_pipeline("skew-hold", &["ours.test", "theirs.test"]);
    let now = wr_feeds::Clock::now(&*clock);
    let far = now.saturating_add(Duration::from_secs(30 * 86_400));
    let p = Pipeline::open(cfg.clone()).unwrap();
    p.store()
        .hold("ours.test", far, wr_feeds::store::HoldCause::Cooldown)
        .unwrap();
    p.store()
        .hold("theirs.test", far, wr_feeds::store::HoldCause::RetryAfter)
        .unwrap();
    drop(p);
    // The next start (at `now`) finds them ahead and clamps them.
    drop(Pipeline::open(cfg.clone()).unwrap());
    clock.advance(wr_feeds::store::HostRow::LONGEST_OWN_HOLD + Duration::from_secs(1));
    let mut p = Pipeline::open(cfg).unwrap();
    let rep = p
        .run(
            &[
                src("ours", "http://ours.test/page", None),
                src("theirs", "http://theirs.test/page", None),
            ],
            FORCE,
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        matches!(rep.sources[0].status, SourceStatus::Ok { .. }),
        "{:?}",
        rep.sources[0].status
    );
    assert!(
        matches!(&rep.sources[1].status, SourceStatus::Deferred { reason, .. } if reason.contains("Retry-After")),
        "{:?}",
        rep.sources[1].status
    );
    assert!(server.requests_to("theirs.test").is_empty());
}

/// `sources.last_run` 3 days ahead: R8 skipped the source for 3 days and
/// an hour. Clamped, it is due an hour after now.
#[test]
fn an_r8_last_run_stored_ahead_skips_for_an_hour_only() {
    let (_server, clock, cfg, _dir) = skewed_pipeline("skew-last-run", &["r8.test"]);
    let now = wr_feeds::Clock::now(&*clock);
    let s = src("r8", "http://r8.test/page", None);
    let p = Pipeline::open(cfg.clone()).unwrap();
    p.store()
        .record_run(&s.key(), now.saturating_add(SKEW), "ok")
        .unwrap();
    drop(p);
    // The next start (at `now`) finds them ahead and clamps them.
    drop(Pipeline::open(cfg.clone()).unwrap());
    clock.advance(Duration::from_secs(3601));
    let mut p = Pipeline::open(cfg).unwrap();
    let due = RunOptions {
        force: false,
        all: false,
    };
    let rep = p
        .run(std::slice::from_ref(&s), due, &mut NoProgress)
        .unwrap();
    assert!(
        matches!(rep.sources[0].status, SourceStatus::Ok { .. }),
        "{:?}",
        rep.sources[0].status
    );
}
