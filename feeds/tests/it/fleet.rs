//! The fleet coordinator (issue #22, R4a across machines) against a real
//! `redis-server` started on a loopback port for each test (see
//! `wr_conformance::redis_server`: the test says so and skips when the
//! server cannot be started, and fails instead under
//! `WR_REQUIRE_REDIS=1`, as in CI).
//!
//! The scripts' answers first (a slot, a lease, a hold, the cache), then
//! whole pipelines: machines whose clocks are an hour apart, a Redis that
//! is not there at the start, and one lost in the middle of a run.

use crate::common;

use common::*;
use std::sync::Arc;
use std::time::Duration;
use wr_conformance::redis_server::RedisServer;
use wr_core::time::Timestamp;
use wr_feeds::fleet::{Coordinator, Slot};
use wr_feeds::store::HoldCause;
use wr_feeds::{
    Clock, NoProgress, Pipeline, PipelineError, RunOptions, Source, SourceStatus, SystemClock,
};

const FEEDS: [&str; 3] = ["/a.xml", "/b.xml", "/c.xml"];

fn coordinator(redis: &RedisServer) -> Coordinator {
    Coordinator::connect(&redis.url(), Duration::from_secs(3), Duration::from_secs(2))
        .expect("connect to the test redis")
}

fn feed(i: usize) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>F{i}</title>\
         <item><title>Item {i}</title><link>http://busy.test/item-{i}</link></item>\
         </channel></rss>"
    )
}

/// The operator, and `busy.test` with `Crawl-delay: 2` and three feeds
/// that take 300 ms each to answer (two overlapping requests would show).
fn busy_site() -> TestServer {
    TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("busy.test", "/robots.txt") => {
            Reply::new(200, "text/plain", "User-agent: *\nCrawl-delay: 2\n")
        }
        ("busy.test", p) => match FEEDS.iter().position(|f| *f == p) {
            Some(i) => {
                Reply::new(200, "application/rss+xml", feed(i)).delayed(Duration::from_millis(300))
            }
            None => Reply::not_found(),
        },
        _ => Reply::not_found(),
    })
}

fn sources() -> Vec<Source> {
    FEEDS
        .iter()
        .enumerate()
        .map(|(i, p)| Source {
            name: format!("Feed {i}"),
            url: format!("http://busy.test{p}"),
            feed: None,
        })
        .collect()
}

/// The slot script: "go" takes the lease and the spacing; while the lease
/// is held every other machine waits; a released slot counts the spacing
/// from the release; an unused one gives the slot back.
#[test]
fn a_slot_is_one_lease_and_one_spacing_for_the_fleet() {
    let Some(redis) = RedisServer::for_test("a_slot_is_one_lease_and_one_spacing_for_the_fleet")
    else {
        return;
    };
    let mut a = coordinator(&redis);
    let mut b = coordinator(&redis);
    let two = Duration::from_secs(2);
    assert_eq!(a.acquire("h.test", two).unwrap(), Slot::Go);
    // In flight: the other machine waits, at most the spacing at a time.
    match b.acquire("h.test", two).unwrap() {
        Slot::Wait { ms } => assert!((1..=2000).contains(&ms), "{ms}"),
        other => panic!("{other:?}"),
    }
    a.release("h.test", two).unwrap();
    // Released: the spacing counts from the release (from its millisecond
    // rounded up), for both machines.
    for c in [&mut a, &mut b] {
        match c.acquire("h.test", Duration::from_secs(1)).unwrap() {
            Slot::Wait { ms } => assert!((1000..=2001).contains(&ms), "{ms}"),
            other => panic!("{other:?}"),
        }
    }
    // A machine that has not read the Crawl-delay yet (1 s) does not
    // shorten it: the spacing last used stands.
    std::thread::sleep(Duration::from_millis(2050));
    assert_eq!(
        b.acquire("h.test", Duration::from_secs(1)).unwrap(),
        Slot::Go
    );
    b.unused("h.test").unwrap();
    // Given back unused: the slot is free again at once.
    assert_eq!(a.acquire("h.test", two).unwrap(), Slot::Go);
    // An unused call from a machine whose lease it is not changes nothing.
    b.unused("h.test").unwrap();
    assert!(matches!(
        b.acquire("h.test", two).unwrap(),
        Slot::Wait { .. }
    ));
}

/// R5 holds are the fleet's; `reset` keeps a server's Retry-After unless
/// forced.
#[test]
fn holds_are_shared_and_reset_keeps_a_retry_after() {
    let Some(redis) = RedisServer::for_test("holds_are_shared_and_reset_keeps_a_retry_after")
    else {
        return;
    };
    let mut a = coordinator(&redis);
    let mut b = coordinator(&redis);
    a.hold("h.test", Duration::from_secs(600), HoldCause::RetryAfter)
        .unwrap();
    // A shorter hold never shortens it.
    a.hold("h.test", Duration::from_secs(5), HoldCause::Backoff)
        .unwrap();
    match b.acquire("h.test", Duration::from_secs(1)).unwrap() {
        Slot::Held { ms, cause } => {
            assert!((590_000..=600_000).contains(&ms), "{ms}");
            assert_eq!(cause, HoldCause::RetryAfter);
        }
        other => panic!("{other:?}"),
    }
    let hosts = b.hosts().unwrap();
    let h = hosts.iter().find(|h| h.host == "h.test").expect("listed");
    assert!(h.retry_after_ms.is_some_and(|ms| ms > 590_000), "{h:?}");
    // A cool-down of ours on top, then a reset: ours goes, the server's
    // Retry-After stays.
    a.hold("h.test", Duration::from_secs(3600), HoldCause::Cooldown)
        .unwrap();
    let lift = b.lift_hold("h.test", false).unwrap();
    assert!(lift.was_ms.is_some_and(|ms| ms > 3_500_000), "{lift:?}");
    assert!(lift.kept_ms.is_some_and(|ms| ms > 590_000), "{lift:?}");
    assert!(matches!(
        a.acquire("h.test", Duration::from_secs(1)).unwrap(),
        Slot::Held { cause: HoldCause::RetryAfter, ms } if ms <= 600_000
    ));
    let forced = b.lift_hold("h.test", true).unwrap();
    assert!(forced.forced_ms.is_some(), "{forced:?}");
    assert_eq!(
        a.acquire("h.test", Duration::from_secs(1)).unwrap(),
        Slot::Go
    );
}

/// The response cache hands back what was put, with its age; R5 answers
/// and 304s are never shared.
#[test]
fn the_fleet_cache_keeps_bodies_validators_hints_and_age() {
    let Some(redis) =
        RedisServer::for_test("the_fleet_cache_keeps_bodies_validators_hints_and_age")
    else {
        return;
    };
    let mut a = coordinator(&redis);
    let mut b = coordinator(&redis);
    let resp = wr_core::fetch::Response {
        status: 200,
        content_type: Some("application/rss+xml".into()),
        etag: Some("\"v1\"".into()),
        last_modified: None,
        location: None,
        retry_after: None,
        // The publisher's hints travel with the body (issue #23).
        cache_control: Some("public, max-age=7200".into()),
        expires: Some("Thu, 26 Nov 2026 18:00:00 GMT".into()),
        date: Some("Thu, 26 Nov 2026 16:00:00 GMT".into()),
        body: b"<rss>\x00\xff binary-safe</rss>".to_vec(),
        truncated: false,
    };
    a.put_cached("http://h.test/f", "application/rss+xml", &resp)
        .unwrap();
    std::thread::sleep(Duration::from_millis(50));
    let (got, age) = b
        .cached("http://h.test/f", "application/rss+xml")
        .unwrap()
        .expect("cached");
    assert_eq!(got, resp);
    assert!(age >= Duration::from_millis(40), "{age:?}");
    // Another Accept is another representation.
    assert!(b
        .cached("http://h.test/f", "text/markdown")
        .unwrap()
        .is_none());
    for status in [429, 503, 304] {
        let r = wr_core::fetch::Response {
            status,
            ..resp.clone()
        };
        a.put_cached("http://h.test/r", "", &r).unwrap();
        assert!(
            b.cached("http://h.test/r", "").unwrap().is_none(),
            "{status}"
        );
    }
}

/// A clock an `offset` away from the system's, with real sleeps: a
/// machine whose clock is wrong.
#[derive(Debug)]
struct Skewed {
    base: SystemClock,
    ahead: bool,
    offset: Duration,
}

impl Clock for Skewed {
    fn now(&self) -> Timestamp {
        let t = self.base.now();
        let off = self.offset.as_millis() as u64;
        Timestamp(if self.ahead {
            t.0 + off
        } else {
            t.0.saturating_sub(off)
        })
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
}

/// Two machines whose clocks are an hour apart (one ahead, one behind),
/// separate state directories, one Redis, one publisher with
/// `Crawl-delay: 2`: one request in flight at a time, gaps of 2 s, the
/// robots.txt and each feed fetched once, every source read by both. The
/// fleet's instants are on Redis's clock and only durations cross.
#[test]
fn machines_an_hour_apart_keep_the_spacing() {
    let Some(redis) = RedisServer::for_test("machines_an_hour_apart_keep_the_spacing") else {
        return;
    };
    let server = Arc::new(busy_site());
    let threads: Vec<_> = [true, false]
        .into_iter()
        .map(|ahead| {
            let dir = state_dir("skew");
            let mut cfg = config(&dir, &server, &["busy.test"]);
            cfg.coordinator = Some(redis.url());
            cfg.clock = Arc::new(Skewed {
                base: SystemClock::new(),
                ahead,
                offset: Duration::from_secs(3600),
            });
            std::thread::spawn(move || {
                // The directory lives as long as the machine that uses it.
                let _dir = dir;
                let mut p = Pipeline::open(cfg).unwrap();
                p.run(&sources(), RunOptions::default(), &mut NoProgress)
                    .unwrap()
            })
        })
        .collect();
    for t in threads {
        let report = t.join().unwrap();
        for (i, s) in report.sources.iter().enumerate() {
            assert!(
                matches!(s.status, SourceStatus::Ok { .. }),
                "{}: {:?}",
                s.name,
                s.status
            );
            assert!(
                s.items
                    .iter()
                    .any(|it| it.url == format!("http://busy.test/item-{i}")),
                "{}: {:?}",
                s.name,
                s.items
            );
        }
    }
    let reqs = server.requests_to("busy.test");
    assert_eq!(server.peak_in_flight(), 1, "{reqs:?}");
    let robots = reqs.iter().filter(|r| r.path() == "/robots.txt").count();
    assert_eq!(robots, 1, "{reqs:?}");
    for f in FEEDS {
        assert_eq!(
            reqs.iter().filter(|r| r.path() == f).count(),
            1,
            "{f}: {reqs:?}"
        );
    }
    assert_spacing(&reqs, "busy.test", Duration::from_millis(1990));
    let blocklist = server
        .requests_to("wal.sh")
        .iter()
        .filter(|r| r.path().ends_with("blocklist.json"))
        .count();
    assert_eq!(blocklist, 1);
}

/// Redis down at the start: opening fails with the coordinator's error and
/// nothing is fetched.
#[test]
fn redis_down_at_the_start_fetches_nothing() {
    let server = busy_site();
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = state_dir("down");
    let mut cfg = config(&dir, &server, &["busy.test"]);
    cfg.coordinator = Some(format!("redis://127.0.0.1:{port}/0"));
    match Pipeline::open(cfg) {
        Err(PipelineError::Fleet(e)) => {
            assert!(e.to_string().contains(&format!("127.0.0.1:{port}")), "{e}")
        }
        other => panic!("{other:?}"),
    }
    assert!(server.requests().is_empty(), "{:?}", server.requests());
}

/// Redis stopped in the middle of a run: the answer in flight is kept,
/// every later target is deferred (not paced locally), nothing is
/// recorded for them, and the next run (Redis back) fetches them.
#[test]
fn redis_lost_mid_run_defers_the_rest_and_loses_nothing() {
    let Some(mut redis) =
        RedisServer::for_test("redis_lost_mid_run_defers_the_rest_and_loses_nothing")
    else {
        return;
    };
    let server = busy_site();
    let dir = state_dir("lost");
    let mut cfg = config(&dir, &server, &["busy.test"]);
    cfg.coordinator = Some(redis.url());
    let mut p = Pipeline::open(cfg.clone()).unwrap();
    // Stop Redis while the first feed is being answered (300 ms).
    let stopped = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let deadline = std::time::Instant::now() + Duration::from_secs(30);
            while std::time::Instant::now() < deadline {
                let reqs = server.requests_to("busy.test");
                if reqs.iter().any(|r| FEEDS.contains(&r.path())) {
                    redis.stop();
                    return Some(std::time::Instant::now());
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            None
        });
        let report = p
            .run(&sources(), RunOptions::default(), &mut NoProgress)
            .unwrap();
        (
            watcher.join().unwrap().expect("a feed was requested"),
            report,
        )
    });
    let (at, report) = stopped;
    let ok: Vec<_> = report
        .sources
        .iter()
        .filter(|s| matches!(s.status, SourceStatus::Ok { .. }))
        .collect();
    let deferred: Vec<_> = report
        .sources
        .iter()
        .filter(|s| matches!(&s.status, SourceStatus::Deferred { reason, .. } if reason.contains("coordinator")))
        .collect();
    assert_eq!(ok.len(), 1, "{:?}", report.sources);
    assert!(!ok[0].items.is_empty(), "the answer in flight is kept");
    assert_eq!(deferred.len(), 2, "{:?}", report.sources);
    // Nothing started after Redis stopped.
    assert!(
        server.requests().iter().all(|r| r.at <= at),
        "{:?}",
        server.requests()
    );
    drop(p);
    // Redis back (empty): the deferred sources are due, the other is not.
    let Some(redis) = RedisServer::for_test("redis_lost_mid_run (restart)") else {
        return;
    };
    cfg.coordinator = Some(redis.url());
    let mut p = Pipeline::open(cfg).unwrap();
    let report = p
        .run(&sources(), RunOptions::default(), &mut NoProgress)
        .unwrap();
    let mut fetched = 0;
    for s in &report.sources {
        match s.status {
            SourceStatus::Ok { .. } => fetched += 1,
            SourceStatus::Skipped { .. } => {}
            ref other => panic!("{}: {other:?}", s.name),
        }
    }
    assert_eq!(fetched, 2, "{:?}", report.sources);
    for f in FEEDS {
        assert_eq!(
            server
                .requests_to("busy.test")
                .iter()
                .filter(|r| r.path() == f)
                .count(),
            1,
            "{f}"
        );
    }
}

/// A Redis restarted without its data (the fleet's slots and holds gone):
/// a machine that remembers the old epoch notices, hands its own holds
/// back to the fleet, and every host the new Redis has no slot for waits
/// out a lease and its spacing once, counted from the new epoch, instead
/// of going at once (a request made just before the loss may still be in
/// flight or within its spacing).
#[test]
fn a_redis_that_lost_its_data_costs_each_host_one_spacing_and_keeps_the_holds() {
    let test = "a_redis_that_lost_its_data_costs_each_host_one_spacing_and_keeps_the_holds";
    let Some(first) = RedisServer::for_test(test) else {
        return;
    };
    let server = TestServer::start(|r| match (r.host.as_str(), r.path()) {
        ("wal.sh", _) => operator(r),
        ("busy.test", "/robots.txt") => {
            Reply::new(200, "text/plain", "User-agent: *\nCrawl-delay: 2\n")
        }
        ("held.test", "/robots.txt") => Reply::not_found(),
        ("held.test", _) => Reply::status(429).header("Retry-After", "3600"),
        ("busy.test", p) if FEEDS.contains(&p) => Reply::new(200, "application/rss+xml", feed(0)),
        _ => Reply::not_found(),
    });
    let hosts = ["busy.test", "held.test"];
    let machine = |dir: &std::path::PathBuf, redis: &RedisServer| {
        let mut cfg = config(dir, &server, &hosts);
        cfg.coordinator = Some(redis.url());
        // A short request timeout: the lease is 1 s + 1 s.
        cfg.timeouts.request = Duration::from_secs(1);
        cfg
    };
    let held = Source {
        name: "Held".into(),
        url: "http://held.test/f.xml".into(),
        feed: None,
    };
    let a_dir = state_dir("lost-a");
    let mut a = Pipeline::open(machine(&a_dir, &first)).unwrap();
    let r = a
        .run(
            std::slice::from_ref(&held),
            RunOptions::default(),
            &mut NoProgress,
        )
        .unwrap();
    assert!(
        matches!(r.sources[0].status, SourceStatus::Deferred { .. }),
        "{r:?}"
    );
    let a_epoch = std::fs::read_to_string(a_dir.join(wr_feeds::pipeline::FLEET_EPOCH_FILE))
        .expect("the epoch is remembered");
    drop(a);
    drop(first);
    std::thread::sleep(Duration::from_millis(5));
    // The same fleet, a Redis that knows nothing.
    let Some(second) = RedisServer::for_test(test) else {
        return;
    };
    let joined = std::time::Instant::now();
    let a = Pipeline::open(machine(&a_dir, &second)).unwrap();
    let b_epoch =
        std::fs::read_to_string(a_dir.join(wr_feeds::pipeline::FLEET_EPOCH_FILE)).unwrap();
    assert_ne!(a_epoch, b_epoch);
    drop(a);
    let asked = server.requests_to("held.test").len();
    // A machine that never saw held.test: the hold came back with A.
    let b_dir = state_dir("lost-b");
    let mut b = Pipeline::open(machine(&b_dir, &second)).unwrap();
    let r = b
        .run(&[held], RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert!(
        matches!(&r.sources[0].status, SourceStatus::Deferred { reason, .. } if reason.contains("Retry-After")),
        "{r:?}"
    );
    assert_eq!(server.requests_to("held.test").len(), asked);
    // busy.test has no slot in the new Redis: its first request waits
    // for the epoch + the lease (2 s) + its spacing (1 s before the
    // robots.txt is known).
    let r = b
        .run(&sources()[..1], RunOptions::default(), &mut NoProgress)
        .unwrap();
    assert!(
        matches!(r.sources[0].status, SourceStatus::Ok { .. }),
        "{r:?}"
    );
    let first_busy = server.requests_to("busy.test")[0].at;
    let waited = first_busy.duration_since(joined);
    assert!(waited >= Duration::from_millis(2900), "{waited:?}");
}

/// A clock that runs `factor` times too fast, sleeping accordingly less:
/// a machine whose clock is badly wrong in rate, not only in offset.
#[derive(Debug)]
struct Fast {
    real: std::time::Instant,
    start: Timestamp,
    factor: u32,
}

impl Clock for Fast {
    fn now(&self) -> Timestamp {
        let ms = self.real.elapsed().as_millis() as u64 * u64::from(self.factor);
        Timestamp(self.start.0 + ms)
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d / self.factor);
    }
}

/// A machine whose clock runs 10 times too fast: its own gate would space
/// `busy.test`'s requests by 200 ms of real time, and the fleet's "wait"
/// answers, turned into holds on its clock, end before they should. (At
/// 50 times, a stall of 100 ms on a loaded machine was five seconds on the
/// machine's clock: its request deadline, and a failure R5 retries.) The
/// fleet's spacing on Redis's clock still holds at the publisher (gaps of
/// 2 s), and no request fails for want of the fleet's slot: a request
/// ready early asks the fleet again.
#[test]
fn a_machine_whose_clock_runs_fast_keeps_the_fleets_spacing() {
    let Some(redis) =
        RedisServer::for_test("a_machine_whose_clock_runs_fast_keeps_the_fleets_spacing")
    else {
        return;
    };
    let server = busy_site();
    let dir = state_dir("fast");
    let mut cfg = config(&dir, &server, &["busy.test"]);
    cfg.coordinator = Some(redis.url());
    cfg.clock = Arc::new(Fast {
        real: std::time::Instant::now(),
        start: SystemClock::new().now(),
        factor: 10,
    });
    let mut p = Pipeline::open(cfg).unwrap();
    let report = p
        .run(&sources(), RunOptions::default(), &mut NoProgress)
        .unwrap();
    for s in &report.sources {
        assert!(
            matches!(s.status, SourceStatus::Ok { .. }),
            "{}: {:?}",
            s.name,
            s.status
        );
    }
    let reqs = server.requests_to("busy.test");
    assert_eq!(reqs.len(), 1 + FEEDS.len(), "{reqs:?}");
    assert_eq!(server.peak_in_flight(), 1);
    assert_spacing(&reqs, "busy.test", Duration::from_millis(1990));
}
