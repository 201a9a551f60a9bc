//! Parse throughput (MB/s) of wr-core and the peers over the whole
//! real-world corpus and over its ten largest files.
//!
//! `cargo bench -p wr-benches --bench parse`
//!
//! What each entry builds:
//! * `wr_core/Policy::parse`  — streams the body, keeps only the rules for
//!   the token (what a bot needs to answer); comparable to texting_robots.
//! * `wr_core/Robots::parse`  — every group and Sitemap line (inspection).
//! * `wr_core/Robots+policy`  — both: all groups, then the token's policy.
//! * `texting_robots/Robot::new` — its parsed, answerable object for the token
//!   (compiles a regex per rule).
//! * `fast_robots/RobotsTxt::parse` — fast-robots 0.1.5 (issue #24's peer
//!   to beat: zero-copy, memchr scanning): every group of the file, its
//!   rules borrowed from the text; it takes `&str`, so it reads the lossy
//!   UTF-8 text prepared outside the timed loop, as robotstxt does.
//! * `fast_robots/parse+matcher` — the same, then its compiled matcher
//!   (`RobotsTxt::matcher`: agent, prefix and wildcard indexes for many
//!   checks), the like-for-like of a parse that is ready to answer fast.
//! * `robotstxt/parse_robotstxt(no-op)` — Google's tokenizer driving a
//!   handler that keeps nothing: robotstxt has no parsed object at all, so
//!   this is a floor, not a like-for-like figure.
//! * `floor/memchr newline count` — every body's `\n`s counted with
//!   `memchr`: no parse reads its input faster than it can find the line
//!   ends, so `Policy::parse`'s time over this one is its distance from
//!   the physical limit (issue #13).
//! * `floor/line walk` — every line's end found and its first octet
//!   tested, as `wr_benches::line_walk` does: the per-line floor, since a
//!   parser, unlike a count, stops at each line (issue #24).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use wr_benches::{
    corpus_or_builtin, largest, note, robotstxt_readable, Body, MEASURE, TOKEN, WARM_UP,
};
use wr_core::robots::{Policy, Robots};

struct Noop;
impl robotstxt::RobotsParseHandler for Noop {
    fn handle_robots_start(&mut self) {}
    fn handle_robots_end(&mut self) {}
    fn handle_user_agent(&mut self, _: u32, _: &str) {}
    fn handle_allow(&mut self, _: u32, _: &str) {}
    fn handle_disallow(&mut self, _: u32, _: &str) {}
    fn handle_sitemap(&mut self, _: u32, _: &str) {}
    fn handle_unknown_action(&mut self, _: u32, _: &str, _: &str) {}
}

fn group(c: &mut Criterion, name: &str, bodies: &[Body]) {
    let bytes: u64 = bodies.iter().map(|b| b.bytes.len() as u64).sum();
    note(&format!("{name}: {} files, {bytes} bytes", bodies.len()));
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function(BenchmarkId::new("wr_core", "Policy::parse"), |b| {
        b.iter(|| {
            for body in bodies {
                black_box(Policy::parse(black_box(&body.bytes), TOKEN));
            }
        })
    });
    g.bench_function(BenchmarkId::new("floor", "memchr newline count"), |b| {
        b.iter(|| {
            let mut lines = 0usize;
            for body in bodies {
                lines += memchr::memchr_iter(b'\n', black_box(&body.bytes)).count();
            }
            black_box(lines)
        })
    });
    g.bench_function(BenchmarkId::new("floor", "line walk"), |b| {
        b.iter(|| {
            let mut lines = 0usize;
            for body in bodies {
                lines += wr_benches::line_walk(black_box(&body.bytes)).0;
            }
            black_box(lines)
        })
    });
    g.bench_function(BenchmarkId::new("wr_core", "Robots::parse"), |b| {
        b.iter(|| {
            for body in bodies {
                black_box(Robots::parse(black_box(&body.bytes)));
            }
        })
    });
    g.bench_function(BenchmarkId::new("wr_core", "Robots+policy"), |b| {
        b.iter(|| {
            for body in bodies {
                let r = Robots::parse(black_box(&body.bytes));
                black_box(r.policy(TOKEN));
            }
        })
    });
    g.bench_function(BenchmarkId::new("texting_robots", "Robot::new"), |b| {
        b.iter(|| {
            for body in bodies {
                let _ = black_box(texting_robots::Robot::new(TOKEN, black_box(&body.bytes)));
            }
        })
    });
    g.bench_function(BenchmarkId::new("fast_robots", "RobotsTxt::parse"), |b| {
        b.iter(|| {
            for body in bodies {
                black_box(fast_robots::RobotsTxt::parse(black_box(&body.text)));
            }
        })
    });
    g.bench_function(BenchmarkId::new("fast_robots", "parse+matcher"), |b| {
        b.iter(|| {
            for body in bodies {
                let robots = fast_robots::RobotsTxt::parse(black_box(&body.text));
                black_box(robots.matcher());
            }
        })
    });
    let (readable, panics) = robotstxt_readable(bodies);
    let rbytes: u64 = readable.iter().map(|b| b.bytes.len() as u64).sum();
    if panics > 0 {
        note(&format!(
            "{name}: robotstxt panics on {panics} files; measured on the other {} ({rbytes} bytes)",
            readable.len()
        ));
    }
    g.throughput(Throughput::Bytes(rbytes));
    g.bench_function(
        BenchmarkId::new("robotstxt", "parse_robotstxt(no-op)"),
        |b| {
            b.iter(|| {
                for body in &readable {
                    robotstxt::parse_robotstxt(black_box(&body.text), &mut Noop);
                }
            })
        },
    );
    g.finish();
}

fn parse(c: &mut Criterion) {
    let (bodies, real) = corpus_or_builtin();
    let (all, big) = if real {
        ("parse/corpus", "parse/largest10")
    } else if bodies.len() > wr_benches::builtin().len() {
        ("parse/slice", "parse/slice-largest10")
    } else {
        ("parse/builtin", "parse/builtin-largest")
    };
    // Texting_robots rejects some files (Err); count them once for the docs.
    let errs = bodies
        .iter()
        .filter(|b| texting_robots::Robot::new(TOKEN, &b.bytes).is_err())
        .count();
    note(&format!(
        "texting_robots::Robot::new returned Err for {errs} of {} files",
        bodies.len()
    ));
    group(c, all, &bodies);
    let top = largest(&bodies, 10);
    note(&format!(
        "largest files: {}",
        top.iter()
            .map(|b| format!("{} ({} B)", b.name, b.bytes.len()))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    group(c, big, &top);
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .measurement_time(MEASURE)
        .warm_up_time(WARM_UP)
        .without_plots()
}

criterion_group! { name = benches; config = config(); targets = parse }
criterion_main!(benches);
