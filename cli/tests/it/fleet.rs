//! Several machines, one politeness budget per host (issue #22, R4a):
//! `wr-feeds` processes with separate state directories (separate
//! machines) and one Redis, started for each test on a loopback port
//! (`wr_conformance::redis_server`: the test says so and skips when
//! `redis-server` cannot be started; under `WR_REQUIRE_REDIS=1`, as in
//! CI, it fails instead).

use crate::common;
use common::*;
use std::process::Stdio;
use std::time::{Duration, Instant};
use wr_conformance::redis_server::RedisServer;

const FEEDS: [&str; 3] = ["/a.xml", "/b.xml", "/c.xml"];

fn rss(i: usize) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>F{i}</title>\
         <item><title>Item {i}</title><link>http://busy.test/item-{i}</link></item>\
         </channel></rss>"
    )
}

fn sources_toml(settings: &str) -> String {
    let mut s = settings.to_string();
    for (i, path) in FEEDS.iter().enumerate() {
        s.push_str(&format!(
            "[[source]]\nname = \"Feed {i}\"\nurl = \"http://busy.test{path}\"\n\n"
        ));
    }
    s
}

/// The done-when of issue #22: three processes, three state directories,
/// one Redis, one publisher with `Crawl-delay: 2`. The publisher's log
/// shows one request in flight at a time, gaps of at least 2 s, its
/// robots.txt and the operator's blocklist fetched once, each feed once;
/// every digest lists every item. The coordinator reaches each process
/// another way: `--coordinator`, `WR_COORDINATOR`, `[settings]`.
#[test]
fn three_machines_share_one_budget_per_host() {
    let Some(redis) = RedisServer::for_test("three_machines_share_one_budget_per_host") else {
        return;
    };
    let op = Operator::start(CANARY_ROBOTS);
    let busy = Host::start("busy.test");
    busy.route(
        "/robots.txt",
        Route::ok("text/plain", "User-agent: *\nCrawl-delay: 2\n"),
    );
    for (i, path) in FEEDS.iter().enumerate() {
        // Slow enough that two overlapping requests would be seen.
        busy.route(
            path,
            Route::ok("application/rss+xml", rss(i)).delayed(Duration::from_millis(300)),
        );
    }
    let tmp = TempDir::new("fleet3");
    let plain = tmp.write("sources.toml", &sources_toml(""));
    let with_settings = tmp.write(
        "sources-fleet.toml",
        &sources_toml(&format!(
            "[settings]\ncoordinator = \"{}\"\n\n",
            redis.url()
        )),
    );
    let hosts = [&op.wal, &op.pypi, &busy];
    let children: Vec<_> = (0..3)
        .map(|n| {
            let out = tmp.path().join(format!("digest-{n}.json"));
            let state = tmp.path().join(format!("state-{n}"));
            let file = if n == 2 { &with_settings } else { &plain };
            let mut args = vec![
                file.to_str().unwrap().to_string(),
                "--format".into(),
                "json".into(),
                "-o".into(),
                out.to_str().unwrap().to_string(),
            ];
            if n == 0 {
                args.extend(["--coordinator".to_string(), redis.url()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut cmd = wr_command(&state, &hosts, &args);
            cmd.env_remove("WR_COORDINATOR");
            if n == 1 {
                cmd.env("WR_COORDINATOR", redis.url());
            }
            cmd.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("start wr-feeds")
        })
        .collect();
    for (n, child) in children.into_iter().enumerate() {
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "run {n}: {err}");
        assert_eq!(o.status.code(), Some(0), "run {n}: {err}");
        let digest = std::fs::read_to_string(tmp.path().join(format!("digest-{n}.json"))).unwrap();
        for i in 0..FEEDS.len() {
            assert!(
                digest.contains(&format!("http://busy.test/item-{i}")),
                "run {n}: item {i} missing: {digest}"
            );
        }
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
    assert_eq!(
        op.wal
            .requests_to("/.well-known/walsh-research/blocklist.json")
            .len(),
        1,
        "{:?}",
        op.wal.requests()
    );
}

/// Redis down at the start: a clear error naming the coordinator, exit
/// status 2, and not one request.
#[test]
fn redis_down_at_the_start_is_a_clear_error_and_fetches_nothing() {
    let op = Operator::start(CANARY_ROBOTS);
    let busy = Host::start("busy.test");
    let tmp = TempDir::new("fleet-down");
    let file = tmp.write("sources.toml", &sources_toml(""));
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("redis://127.0.0.1:{port}/0");
    let o = wr(
        &tmp.path().join("state"),
        &[&op.wal, &op.pypi, &busy],
        &[file.to_str().unwrap(), "--coordinator", &url],
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("coordinator") && err.contains(&format!("127.0.0.1:{port}")),
        "{err}"
    );
    assert!(err.contains("nothing was fetched"), "{err}");
    assert!(op.wal.requests().is_empty() && busy.requests().is_empty());
}

/// A machine killed (`kill -9`) while its request is in flight: its lease
/// frees the host only when it expires (the request timeout, 3 s here,
/// plus a second), not at once, and then another machine goes on.
#[test]
fn a_machine_killed_holding_a_lease_frees_it_after_the_request_timeout() {
    let Some(redis) = RedisServer::for_test(
        "a_machine_killed_holding_a_lease_frees_it_after_the_request_timeout",
    ) else {
        return;
    };
    let op = Operator::start(CANARY_ROBOTS);
    let slow = Host::start("slow.test");
    slow.route("/robots.txt", Route::status(404));
    slow.route(
        "/hang.xml",
        Route::ok("application/rss+xml", rss(0)).delayed(Duration::from_secs(8)),
    );
    slow.route("/ok.xml", Route::ok("application/rss+xml", rss(1)));
    let tmp = TempDir::new("fleet-kill");
    let settings = format!(
        "[settings]\ntimeout_secs = 3\ncoordinator = \"{}\"\n\n",
        redis.url()
    );
    let hang = tmp.write(
        "hang.toml",
        &format!("{settings}[[source]]\nname = \"Hang\"\nurl = \"http://slow.test/hang.xml\"\n"),
    );
    let ok = tmp.write(
        "ok.toml",
        &format!("{settings}[[source]]\nname = \"Ok\"\nurl = \"http://slow.test/ok.xml\"\n"),
    );
    let hosts = [&op.wal, &op.pypi, &slow];
    let mut a = wr_command(
        &tmp.path().join("state-a"),
        &hosts,
        &[hang.to_str().unwrap()],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while slow.requests_to("/hang.xml").is_empty() {
        assert!(Instant::now() < deadline, "{:?}", slow.requests());
        std::thread::sleep(Duration::from_millis(10));
    }
    a.kill().unwrap(); // SIGKILL: no release, no cleanup
    a.wait().unwrap();
    let sent = slow.requests_to("/hang.xml")[0].at;
    let o = wr(
        &tmp.path().join("state-b"),
        &hosts,
        &[ok.to_str().unwrap(), "--format", "json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("http://busy.test/item-1"),
        "{}",
        stdout(&o)
    );
    let next = slow.requests_to("/ok.xml");
    assert_eq!(next.len(), 1, "{:?}", slow.requests());
    let gap = next[0].at.duration_since(sent);
    // The lease (3 s + 1 s) was taken just before the request went.
    assert!(gap >= Duration::from_millis(3500), "sent {gap:?} after");
    assert!(gap < Duration::from_secs(15), "sent {gap:?} after");
    // robots.txt came from the fleet's cache: asked once.
    assert_eq!(slow.requests_to("/robots.txt").len(), 1);
}

/// A server's Retry-After seen by one machine holds the host for the
/// fleet: another machine's run defers without a request, `status` shows
/// the hold, `reset` keeps it (R5) and `reset --force` lifts it.
#[test]
fn a_retry_after_holds_the_fleet_and_reset_keeps_it_unless_forced() {
    let Some(redis) =
        RedisServer::for_test("a_retry_after_holds_the_fleet_and_reset_keeps_it_unless_forced")
    else {
        return;
    };
    let op = Operator::start(CANARY_ROBOTS);
    let busy = Host::start("busy.test");
    busy.route("/robots.txt", Route::status(404));
    busy.route("/a.xml", Route::status(429).retry_after("3600"));
    let tmp = TempDir::new("fleet-hold");
    let file = tmp.write(
        "sources.toml",
        "[[source]]\nname = \"A\"\nurl = \"http://busy.test/a.xml\"\n",
    );
    let hosts = [&op.wal, &op.pypi, &busy];
    let url = redis.url();
    let run = |state: &str| {
        wr(
            &tmp.path().join(state),
            &hosts,
            &[file.to_str().unwrap(), "--coordinator", &url],
        )
    };
    // Machine C reads busy.test's robots.txt first (the host is free).
    let machine_c = tmp.path().join("state-c");
    let check = wr(
        &machine_c,
        &hosts,
        &["check", "http://busy.test/a.xml", "--coordinator", &url],
    );
    assert_eq!(check.status.code(), Some(0), "{}", stdout(&check));
    let first = run("state-a");
    assert_eq!(first.status.code(), Some(1), "{}", stderr(&first));
    let asked = busy.requests_to("/a.xml").len();
    assert_eq!(asked, 1);
    // Another machine: deferred by the fleet's hold, not one request.
    let second = run("state-b");
    assert_eq!(second.status.code(), Some(1), "{}", stderr(&second));
    assert_eq!(busy.requests_to("/a.xml").len(), asked);
    let out = format!("{}{}", stdout(&second), stderr(&second));
    assert!(out.contains("Retry-After") || out.contains("held"), "{out}");
    let status = wr(&machine_c, &hosts, &["status", "--coordinator", &url]);
    let text = stdout(&status);
    assert_eq!(status.status.code(), Some(0), "{}", stderr(&status));
    assert!(
        text.contains("fleet (coordinator redis://127.0.0.1"),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains("busy.test") && l.contains("the server's Retry-After")),
        "{text}"
    );
    let json = wr(
        &machine_c,
        &hosts,
        &["status", "--json", "--coordinator", &url],
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let host = v["fleet"]["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == "busy.test")
        .cloned()
        .unwrap();
    assert!(host["held_for_s"].as_u64().unwrap() > 3500, "{host}");
    assert!(
        host["recent"].as_array().is_some_and(|r| !r.is_empty()),
        "{host}"
    );
    // check asks the fleet too: held, not "allowed, no wait" (C's own
    // state knows the robots.txt and no hold).
    let check = wr(
        &machine_c,
        &hosts,
        &["check", "http://busy.test/a.xml", "--coordinator", &url],
    );
    assert_eq!(check.status.code(), Some(1), "{}", stdout(&check));
    assert!(stdout(&check).contains("Retry-After"), "{}", stdout(&check));
    // reset keeps the server's Retry-After...
    let kept = wr(
        &machine_c,
        &hosts,
        &["reset", "busy.test", "--coordinator", &url],
    );
    assert_eq!(kept.status.code(), Some(1), "{}", stderr(&kept));
    assert!(
        stderr(&kept).contains("kept the fleet's hold"),
        "{}",
        stderr(&kept)
    );
    let still = run("state-d");
    assert_eq!(still.status.code(), Some(1));
    assert_eq!(busy.requests_to("/a.xml").len(), asked);
    // ... --force lifts it.
    let forced = wr(
        &machine_c,
        &hosts,
        &["reset", "--force", "busy.test", "--coordinator", &url],
    );
    assert_eq!(forced.status.code(), Some(0), "{}", stderr(&forced));
    assert!(
        stdout(&forced).contains("fleet: lifted the hold"),
        "{}",
        stdout(&forced)
    );
    let after = run("state-e");
    assert_eq!(after.status.code(), Some(1), "{}", stderr(&after));
    assert_eq!(busy.requests_to("/a.xml").len(), asked + 1);
}
