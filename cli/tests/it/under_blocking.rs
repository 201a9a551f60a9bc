//! Issue #10's rows, end to end: `wr-feeds check` and a digest run deny
//! each path the spec's algorithm denies, and the publisher's server never
//! sees a request for it.

use crate::common;
use common::*;

/// `(host, robots.txt, denied path)`: each row of the table
/// (`wr_conformance`'s built-in cases) on a host of its own.
fn rows() -> Vec<(String, &'static str, &'static str)> {
    let rows: Vec<_> = wr_conformance::robots_cases::under_blocking_table()
        .enumerate()
        .map(|(i, c)| (format!("row{i}.test"), c.body, c.path))
        .collect();
    assert_eq!(rows.len(), 5, "the table has five rows");
    rows
}

fn start() -> (Operator, Vec<Host>) {
    let op = Operator::start(CANARY_ROBOTS);
    let hosts = rows()
        .into_iter()
        .map(|(name, robots, path)| {
            let h = Host::start(&name);
            h.route("/robots.txt", Route::ok("text/plain", robots))
                .route(
                    path,
                    Route::ok("application/rss+xml", data("feeds/rss_2.0_bbc.xml")),
                );
            h
        })
        .collect();
    (op, hosts)
}

fn assert_never_fetched(hosts: &[Host]) {
    for (h, (_, _, path)) in hosts.iter().zip(rows()) {
        let hits = h.requests_to(path);
        assert!(hits.is_empty(), "{}{path} was fetched: {hits:?}", h.name);
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
    let tmp = TempDir::new("under-blocking-check");
    check_denies_each(&tmp, &op, &hosts, &urls());
    assert_never_fetched(&hosts);
}

#[test]
fn a_digest_run_never_fetches_a_denied_row() {
    let (op, hosts) = start();
    let tmp = TempDir::new("under-blocking-digest");
    let reported = digest_denies_each(&tmp, &op, &hosts, &urls());
    for (s, url) in reported.iter().zip(urls()) {
        let reason = s["reason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with(&format!("robots.txt (R2): {url} (Disallow")),
            "{reason}"
        );
    }
    assert_never_fetched(&hosts);
}

#[test]
fn the_robots_debugger_denies_every_row_and_names_the_rule() {
    let tmp = TempDir::new("under-blocking-robots");
    for (i, (name, robots, path)) in rows().into_iter().enumerate() {
        let file = tmp.write(&format!("robots-{i}.txt"), robots);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_wr-feeds"))
            .arg("robots")
            .arg(&file)
            .arg(path)
            .output()
            .expect("run wr-feeds");
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {out}");
        assert!(
            out.starts_with(&format!("disallowed {path}  (Disallow: ")),
            "{name}: {out}"
        );
    }
}
