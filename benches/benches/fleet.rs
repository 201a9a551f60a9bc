//! The fleet coordinator's cost (issue #22): what taking a host's slot in
//! Redis adds to each request, and the rate a fleet of machines reaches on
//! one host against its ceiling (1 / spacing).
//!
//! Needs `redis-server` (`$WR_REDIS_SERVER` or on the `PATH`); without it
//! the bench says so and does nothing. Each run starts its own server on a
//! loopback port.
//!
//! `cargo bench -p wr-benches --bench fleet`
//!
//! Round trips per request: a request sent to the network takes the slot,
//! looks in the fleet's cache, stores the answer and releases the slot (4);
//! an answer served from the cache takes the slot, reads the cache and
//! gives the slot back unused (3).

use criterion::{Criterion, Throughput};
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wr_conformance::redis_server::RedisServer;
use wr_feeds::fleet::{Coordinator, Slot};

fn connect(url: &str) -> Coordinator {
    Coordinator::connect(url, Duration::from_secs(5), Duration::from_secs(2))
        .expect("connect to the bench redis")
}

fn feed_body() -> Vec<u8> {
    // About 20 KiB, a typical feed.
    let item = "<item><title>An item of a typical feed</title><link>https://example.test/posts/a-post</link><description>A paragraph of text that a feed carries with each item, as most do.</description></item>";
    let mut s =
        String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>F</title>");
    while s.len() < 20 * 1024 {
        s.push_str(item);
    }
    s.push_str("</channel></rss>");
    s.into_bytes()
}

fn per_request(c: &mut Criterion, url: &str) {
    let mut fleet = connect(url);
    let body = feed_body();
    let response = wr_core::fetch::Response {
        status: 200,
        content_type: Some("application/rss+xml".into()),
        etag: Some("\"v1\"".into()),
        body,
        ..Default::default()
    };
    let mut g = c.benchmark_group("fleet");
    g.throughput(Throughput::Elements(1));
    // A new host each time (spacing 0): every acquire answers "go", so
    // the loop measures the round trips, not the waits.
    let mut n = 0u64;
    let mut next_host = move || {
        n += 1;
        format!("h{n}.bench.test")
    };
    g.bench_function("slot_take_and_release", |b| {
        b.iter(|| {
            let host = next_host();
            let s = fleet.acquire(&host, Duration::ZERO).unwrap();
            assert_eq!(s, Slot::Go);
            fleet.release(&host, Duration::ZERO).unwrap();
        })
    });
    g.bench_function("network_request_overhead_4_round_trips", |b| {
        b.iter(|| {
            let host = next_host();
            let url = format!("http://{host}/feed.xml");
            assert_eq!(fleet.acquire(&host, Duration::ZERO).unwrap(), Slot::Go);
            assert!(fleet.cached(&url, "").unwrap().is_none());
            fleet.put_cached(&url, "", black_box(&response)).unwrap();
            fleet.release(&host, Duration::ZERO).unwrap();
        })
    });
    fleet
        .put_cached("http://bench.test/hit", "", &response)
        .unwrap();
    g.bench_function("cache_hit_20k_3_round_trips", |b| {
        b.iter(|| {
            let host = next_host();
            assert_eq!(fleet.acquire(&host, Duration::ZERO).unwrap(), Slot::Go);
            let hit = fleet.cached("http://bench.test/hit", "").unwrap();
            black_box(hit.expect("cached"));
            fleet.unused(&host).unwrap();
        })
    });
    g.finish();
}

/// `machines` threads, each its own connection (a machine), take and
/// release one host's slot as fast as the coordinator lets them for
/// `for_how_long`, with `spacing` between requests: the fleet's rate
/// against the ceiling 1 / spacing, and the smallest gap between two
/// slots handed out.
fn fleet_rate(url: &str, machines: usize, spacing: Duration, for_how_long: Duration) {
    let host = format!("rate-{machines}.test");
    let stop = Arc::new(AtomicBool::new(false));
    let granted = Arc::new(std::sync::Mutex::new(Vec::<Instant>::new()));
    let asked = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = (0..machines)
        .map(|_| {
            let (stop, granted, asked, host, url) = (
                stop.clone(),
                granted.clone(),
                asked.clone(),
                host.clone(),
                url.to_string(),
            );
            std::thread::spawn(move || {
                let mut fleet = connect(&url);
                while !stop.load(Ordering::SeqCst) {
                    asked.fetch_add(1, Ordering::SeqCst);
                    match fleet.acquire(&host, spacing).unwrap() {
                        Slot::Go => {
                            granted.lock().unwrap().push(Instant::now());
                            fleet.release(&host, Duration::ZERO).unwrap();
                        }
                        Slot::Wait { ms } | Slot::Held { ms, .. } => {
                            std::thread::sleep(Duration::from_millis(ms.min(50)))
                        }
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(for_how_long);
    stop.store(true, Ordering::SeqCst);
    for t in threads {
        t.join().unwrap();
    }
    let mut at = granted.lock().unwrap().clone();
    at.sort();
    let gaps: Vec<Duration> = at.windows(2).map(|w| w[1] - w[0]).collect();
    let min_gap = gaps.iter().min().copied().unwrap_or_default();
    let span = match (at.first(), at.last()) {
        (Some(a), Some(b)) if at.len() > 1 => (*b - *a).as_secs_f64(),
        _ => 0.0,
    };
    let rate = if span > 0.0 {
        (at.len() - 1) as f64 / span
    } else {
        0.0
    };
    // On Redis's clock: the last ten slots, as `status` lists them.
    let recent = connect(url)
        .hosts()
        .unwrap()
        .into_iter()
        .find(|h| h.host == host)
        .map(|h| h.recent)
        .unwrap_or_default();
    let server_min = recent
        .windows(2)
        .map(|w| w[1].1.saturating_sub(w[0].1))
        .min()
        .unwrap_or(0);
    println!(
        "fleet/rate: {machines} machines, spacing {spacing:?}: {} slots in {span:.2} s = {rate:.2}/s \
         (ceiling {:.2}/s); smallest gap seen by the machines {min_gap:?}, on Redis's clock \
         (last {}) {server_min} ms; {} asks",
        at.len(),
        1.0 / spacing.as_secs_f64(),
        recent.len(),
        asked.load(Ordering::SeqCst)
    );
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let redis = match RedisServer::start() {
        Ok(r) => r,
        Err(e) => {
            println!("fleet bench skipped: redis-server cannot be started ({e})");
            return;
        }
    };
    let url = redis.url();
    for machines in [1, 3, 10] {
        fleet_rate(
            &url,
            machines,
            Duration::from_millis(200),
            Duration::from_secs(3),
        );
    }
    let mut c = Criterion::default().configure_from_args();
    per_request(&mut c, &url);
    c.final_summary();
}
