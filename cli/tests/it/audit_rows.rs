//! Issue #18's reproducers, end to end: each shape the outside audit found
//! on a real site, on a loopback host of its own. `wr-feeds check` denies
//! it, a digest run reports it denied, and the publisher's server never
//! sees a request but for its robots.txt.

use crate::common;
use common::*;

/// `(host, robots.txt, the URL as a user writes it)`.
fn rows() -> Vec<(&'static str, String, &'static str)> {
    let pad = " ".repeat(17_000);
    vec![
        (
            "kmart.test",
            "User-agent: *\nDisallow: *{manageAccount}*\n".into(),
            "/x/{manageAccount}/feed.xml",
        ),
        (
            "audible.test",
            "User-agent: *\nDisallow:\u{a0}/library\n".into(),
            "/library/feed.xml",
        ),
        (
            "versioned.test",
            "User-agent: Walsh-Research/1.2\nAllow: /\n\nUser-agent: *\nDisallow: /\n".into(),
            "/feed.xml",
        ),
        (
            "padded.test",
            format!("User-agent: *\nDisallow{pad}: /private\n"),
            "/private/feed.xml",
        ),
        (
            "escaped.test",
            "User-agent: *\nDisallow: /a/b\n".into(),
            "/a%2Fb/feed.xml",
        ),
        (
            "empty-agent.test",
            "User-agent:\nDisallow: /private\n\nUser-agent: *\nAllow: /\n".into(),
            "/private/feed.xml",
        ),
        (
            "lone-percent.test",
            "User-agent: *\nDisallow: /a%25b\n".into(),
            "/a%b/feed.xml",
        ),
        (
            "bom.test",
            "\u{feff}User-agent: walsh\nAllow: /a\n\nUser-agent: walsh\nDisallow: /a\n".into(),
            "/a/feed.xml",
        ),
        (
            "escaped-agent.test",
            "User-agent: Walsh%2DResearch\nDisallow: /\n\nUser-agent: *\nAllow: /\n".into(),
            "/feed.xml",
        ),
        (
            "sears.test",
            "User-agent: *\nDisallow: *{searsCard}*\n\nUser-agent: Walsh-Research/1.2\nAllow: /\n"
                .into(),
            "/feed.xml?id={searsCard}",
        ),
        // The spec-model proptest's finds of 2026-11-27, on no real site.
        (
            "placed-percent.test",
            "User-agent: *\nDisallow: /*a'\n\nUser-agent: Walsh-Research/1.2\nAllow: /\n".into(),
            "/feed.xml?a%%327",
        ),
        (
            "escaped-colon.test",
            "User-agent: *\nDisallow%3A/feed\n".into(),
            "/feed.xml",
        ),
    ]
}

fn start() -> (Operator, Vec<Host>) {
    let op = Operator::start(CANARY_ROBOTS);
    // A name used twice routes both rows to one host, and one row then
    // tests the other's robots.txt.
    let rows = rows();
    let mut names: Vec<_> = rows.iter().map(|(name, _, _)| *name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), rows.len(), "a host name is used by two rows");
    let hosts = rows
        .into_iter()
        .map(|(name, robots, _)| {
            let h = Host::start(name);
            h.route("/robots.txt", Route::ok("text/plain", robots));
            h
        })
        .collect();
    (op, hosts)
}

/// Only robots.txt was asked of each publisher.
fn assert_only_robots_fetched(hosts: &[Host]) {
    for h in hosts {
        let other: Vec<_> = h
            .requests()
            .into_iter()
            .filter(|r| !r.target.starts_with("/robots.txt"))
            .collect();
        assert!(other.is_empty(), "{} was asked for {other:?}", h.name);
    }
}

fn urls() -> Vec<String> {
    rows()
        .into_iter()
        .map(|(name, _, path)| format!("http://{name}{path}"))
        .collect()
}

#[test]
fn check_denies_every_row() {
    let (op, hosts) = start();
    let tmp = TempDir::new("audit-rows-check");
    check_denies_each(&tmp, &op, &hosts, &urls());
    assert_only_robots_fetched(&hosts);
}

#[test]
fn a_digest_run_never_fetches_a_denied_row() {
    let (op, hosts) = start();
    let tmp = TempDir::new("audit-rows-digest");
    digest_denies_each(&tmp, &op, &hosts, &urls());
    assert_only_robots_fetched(&hosts);
}

/// A publisher's usage preferences (Cloudflare's managed robots.txt) are
/// reported by `check` beside the verdict, cleaned of control characters,
/// and change nothing.
#[test]
fn check_reports_the_origins_signals() {
    let op = Operator::start(CANARY_ROBOTS);
    let h = Host::start("signals.test");
    h.route(
        "/robots.txt",
        Route::ok(
            "text/plain",
            "User-agent: *\nContent-Signal: search=yes, ai-train=no\u{1b}[31m\nAllow: /\n",
        ),
    );
    let tmp = TempDir::new("audit-rows-signals");
    let state = tmp.path().join("state");
    let hosts = vec![&op.wal, &op.pypi, &h];
    let o = wr(
        &state,
        &hosts,
        &["check", "--json", "http://signals.test/feed.xml"],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(v["verdict"], "allowed", "{out}");
    assert_eq!(v["signals"][0]["field"], "Content-Signal", "{out}");
    assert_eq!(v["signals"][0]["line"], 2, "{out}");
    let value = v["signals"][0]["value"].as_str().unwrap_or_default();
    assert!(value.starts_with("search=yes, ai-train=no"), "{out}");
    assert!(!value.contains('\u{1b}'), "{out}");
    let o = wr(&state, &hosts, &["check", "http://signals.test/feed.xml"]);
    let out = stdout(&o);
    assert!(
        out.contains("robots.txt Content-Signal: search=yes, ai-train=no"),
        "{out}"
    );
}
