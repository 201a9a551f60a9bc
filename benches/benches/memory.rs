//! Memory of a parsed policy, ours against the peers, measured with a
//! counting global allocator: live heap bytes held after parse (the object
//! kept per host) and the peak of live heap bytes during parse (above what
//! was live before).
//!
//! `cargo bench -p wr-benches --bench memory`
//!
//! robotstxt has no parsed object (it re-parses on every answer), so its
//! "live after" is 0 by construction and its peak is that of one
//! `one_agent_allowed_by_robots` call. texting_robots' figure includes its
//! compiled regexes. Neither counts the input body.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use wr_benches::{by_rule_percentile, corpus_or_builtin, largest, robotstxt_readable, Body, TOKEN};
use wr_core::robots::{Policy, Robots};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new >= l.size() {
                let now = LIVE.fetch_add(new - l.size(), Relaxed) + (new - l.size());
                PEAK.fetch_max(now, Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

/// (live bytes after `f` returned, with its result still alive; peak
/// during `f`), both above the live bytes before.
fn measure<T>(f: impl FnOnce() -> T) -> (usize, usize) {
    let base = LIVE.load(Relaxed);
    PEAK.store(base, Relaxed);
    let kept = f();
    let live = LIVE.load(Relaxed).saturating_sub(base);
    let peak = PEAK.load(Relaxed).saturating_sub(base);
    drop(kept);
    (live, peak)
}

struct Row {
    live: [usize; 5],
    peak: [usize; 5],
}

const COLS: [&str; 5] = [
    "wr Policy::parse",
    "wr Robots::parse",
    "wr Robots→policy",
    "texting_robots",
    "robotstxt (1 call)",
];

fn row(body: &Body, robotstxt_ok: bool) -> Row {
    let mut live = [0; 5];
    let mut peak = [0; 5];
    (live[0], peak[0]) = measure(|| Policy::parse(&body.bytes, TOKEN));
    (live[1], peak[1]) = measure(|| Robots::parse(&body.bytes));
    // The policy kept after the whole model was dropped.
    (live[2], peak[2]) = measure(|| Robots::parse(&body.bytes).policy(TOKEN));
    (live[3], peak[3]) = measure(|| texting_robots::Robot::new(TOKEN, &body.bytes).ok());
    if robotstxt_ok {
        (live[4], peak[4]) = measure(|| {
            let mut m = robotstxt::DefaultMatcher::default();
            m.one_agent_allowed_by_robots(&body.text, TOKEN, "/feed.xml")
        });
    } else {
        live[4] = usize::MAX;
        peak[4] = usize::MAX;
    }
    Row { live, peak }
}

fn fmt(n: usize) -> String {
    if n == usize::MAX {
        "panics".into()
    } else if n >= 10 * 1024 {
        format!("{:.0} KiB", n as f64 / 1024.0)
    } else {
        format!("{n} B")
    }
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let (bodies, real) = corpus_or_builtin();
    let mut files: Vec<(String, Body)> = largest(&bodies, 5)
        .into_iter()
        .map(|b| ("largest".to_string(), b))
        .collect();
    for (label, b) in by_rule_percentile(&bodies) {
        if !files.iter().any(|(_, f)| f.name == b.name) {
            files.push((format!("rules-{label}"), b));
        }
    }
    println!(
        "memory per parsed policy (live heap after parse / peak heap during parse){}",
        if real {
            ""
        } else {
            " — BUILT-IN INPUTS, corpus absent"
        }
    );
    println!(
        "{:<34} {:>9} | {}",
        "file",
        "bytes",
        COLS.iter()
            .map(|c| format!("{c:>24}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    for (label, body) in &files {
        let ok = !robotstxt_readable(std::slice::from_ref(body)).0.is_empty();
        let r = row(body, ok);
        println!(
            "{:<34} {:>9} | {}",
            format!("{} ({label})", body.name),
            body.bytes.len(),
            (0..5)
                .map(|i| format!("{:>24}", format!("{} / {}", fmt(r.live[i]), fmt(r.peak[i]))))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    // Over the whole corpus: what keeping one policy per host costs.
    let (readable, _) = robotstxt_readable(&bodies);
    let readable: std::collections::HashSet<&str> =
        readable.iter().map(|b| b.name.as_str()).collect();
    let mut sum_live = [0usize; 4];
    let mut max_peak = [0usize; 5];
    for body in &bodies {
        let r = row(body, readable.contains(body.name.as_str()));
        for (sum, live) in sum_live.iter_mut().zip(r.live) {
            *sum += live;
        }
        for (max, peak) in max_peak.iter_mut().zip(r.peak) {
            if peak != usize::MAX {
                *max = (*max).max(peak);
            }
        }
    }
    let n = bodies.len();
    println!("over all {n} files: mean live bytes per host kept / max peak during parse:");
    for i in 0..4 {
        println!(
            "  {:<20} {:>10} / {:>10}",
            COLS[i],
            fmt(sum_live[i] / n),
            fmt(max_peak[i])
        );
    }
    println!(
        "  {:<20} {:>10} / {:>10}",
        COLS[4],
        "0 (no object)",
        fmt(max_peak[4])
    );
    println!(
        "  fixed-capacity: size_of FixedPolicy<32,1024> = {} B, <128,4096> = {} B, <512,16384> = {} B (no heap; see the fixed bench for fit)",
        std::mem::size_of::<wr_core::robots::fixed::FixedPolicy<32, 1024>>(),
        std::mem::size_of::<wr_core::robots::fixed::FixedPolicy<128, 4096>>(),
        std::mem::size_of::<wr_core::robots::fixed::FixedPolicy<512, 16384>>()
    );
}
