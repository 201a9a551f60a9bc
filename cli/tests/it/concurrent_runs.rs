//! R4a across processes (issue #11): three `wr-feeds` processes started at
//! once on one state directory, against one loopback publisher whose
//! robots.txt asks for a 2-second Crawl-delay. The server's log must show
//! one request in flight at a time, start-to-start gaps of at least the
//! Crawl-delay, one robots.txt fetch, each feed fetched once (R8: the
//! later runs find the hour not over), and every item in some digest.

use crate::common;
use common::*;
use std::time::Duration;

const FEEDS: [&str; 3] = ["/a.xml", "/b.xml", "/c.xml"];

#[test]
fn three_processes_on_one_state_directory_keep_r4_and_r8() {
    let op = Operator::start(CANARY_ROBOTS);
    let busy = Host::start("busy.test");
    busy.route(
        "/robots.txt",
        Route::ok("text/plain", "User-agent: *\nCrawl-delay: 2\n"),
    );
    for (i, path) in FEEDS.iter().enumerate() {
        let feed = format!(
            "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>F{i}</title>\
             <item><title>Item {i}</title><link>http://busy.test/item-{i}</link></item>\
             </channel></rss>"
        );
        // Slow enough that two overlapping requests would be seen.
        busy.route(
            path,
            Route::ok("application/rss+xml", feed).delayed(Duration::from_millis(300)),
        );
    }
    let tmp = TempDir::new("concurrent");
    let state = tmp.path().join("state");
    let mut sources = String::new();
    for (i, path) in FEEDS.iter().enumerate() {
        sources.push_str(&format!(
            "[[source]]\nname = \"Feed {i}\"\nurl = \"http://busy.test{path}\"\n\n"
        ));
    }
    let file = tmp.write("sources.toml", &sources);
    let hosts = [&op.wal, &op.pypi, &busy];
    let children: Vec<_> = (0..3)
        .map(|n| {
            let out = tmp.path().join(format!("digest-{n}.json"));
            wr_command(
                &state,
                &hosts,
                &[
                    file.to_str().unwrap(),
                    "--format",
                    "json",
                    "-o",
                    out.to_str().unwrap(),
                ],
            )
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start wr-feeds")
        })
        .collect();
    let mut digests = String::new();
    for (n, child) in children.into_iter().enumerate() {
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert!(
            !err.contains("database is locked") && !err.contains("panicked"),
            "run {n}: {err}"
        );
        assert_eq!(o.status.code(), Some(0), "run {n}: {err}");
        digests.push_str(
            &std::fs::read_to_string(tmp.path().join(format!("digest-{n}.json"))).unwrap(),
        );
    }
    let log = busy.requests();
    assert_eq!(busy.peak_in_flight(), 1, "{log:?}");
    assert_eq!(busy.requests_to("/robots.txt").len(), 1, "{log:?}");
    for path in FEEDS {
        assert_eq!(busy.requests_to(path).len(), 1, "{path}: {log:?}");
    }
    for pair in log.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        assert!(
            gap >= Duration::from_millis(1990),
            "{} then {} after {gap:?}",
            pair[0].target,
            pair[1].target
        );
    }
    for i in 0..FEEDS.len() {
        assert!(
            digests.contains(&format!("http://busy.test/item-{i}")),
            "item {i} in no digest: {digests}"
        );
    }
}
