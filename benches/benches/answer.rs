//! Answer latency (ns per URL) against real files parsed once, and
//! parse-and-answer-once (the way a bot meets a new host).
//!
//! `cargo bench -p wr-benches --bench answer`
//!
//! Files: the corpus files at the median, 90th and 99th percentile and the
//! maximum of rule count. Paths: `TYPICAL_PATHS` plus up to 20 paths built
//! from each file's own rules. Throughput is in elements (URLs, or hosts):
//! ns per URL = 1e9 / (elements per second).
//!
//! robotstxt has no parsed object: every answer re-parses the file
//! (`one_agent_allowed_by_robots`), so its "answer" figure is the same work
//! as its "first answer".

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use wr_benches::{
    by_rule_percentile, corpus_or_builtin, note, paths_for, robotstxt_readable, MEASURE, TOKEN,
    WARM_UP,
};
use wr_core::robots::{Policy, Robots};

fn answer(c: &mut Criterion) {
    let (bodies, _) = corpus_or_builtin();
    for (label, body) in by_rule_percentile(&bodies) {
        let paths = paths_for(&body);
        let name = format!("answer/{label}-{}", body.name);
        note(&format!(
            "{name}: {} bytes, {} rule lines, {} paths",
            body.bytes.len(),
            body.rule_lines(),
            paths.len()
        ));
        let policy = Robots::parse(&body.bytes).policy(TOKEN);
        let robot = texting_robots::Robot::new(TOKEN, &body.bytes).ok();
        let (readable, _) = robotstxt_readable(std::slice::from_ref(&body));
        let mut g = c.benchmark_group(&name);
        g.throughput(Throughput::Elements(paths.len() as u64));
        g.bench_function(BenchmarkId::new("wr_core", "Policy::check"), |b| {
            b.iter(|| {
                for p in &paths {
                    black_box(policy.check(black_box(p)).allowed);
                }
            })
        });
        if let Some(robot) = &robot {
            g.bench_function(BenchmarkId::new("texting_robots", "Robot::allowed"), |b| {
                b.iter(|| {
                    for p in &paths {
                        black_box(robot.allowed(black_box(p)));
                    }
                })
            });
        }
        if !readable.is_empty() {
            g.bench_function(
                BenchmarkId::new("robotstxt", "one_agent_allowed(re-parse)"),
                |b| {
                    b.iter(|| {
                        for p in &paths {
                            let mut m = robotstxt::DefaultMatcher::default();
                            black_box(m.one_agent_allowed_by_robots(
                                &body.text,
                                TOKEN,
                                black_box(p),
                            ));
                        }
                    })
                },
            );
        } else {
            note(&format!(
                "{name}: robotstxt panics on this file; not measured"
            ));
        }
        g.finish();
    }
}

const FIRST_PATH: &str = "/feed.xml";

fn first_answer(c: &mut Criterion) {
    let (bodies, real) = corpus_or_builtin();
    // Per file: the same files as `answer`.
    for (label, body) in by_rule_percentile(&bodies) {
        let mut g = c.benchmark_group(format!("first_answer/{label}-{}", body.name));
        g.throughput(Throughput::Bytes(body.bytes.len() as u64));
        g.bench_function(BenchmarkId::new("wr_core", "Policy::parse+check"), |b| {
            b.iter(|| {
                black_box(
                    Policy::parse(black_box(&body.bytes), TOKEN)
                        .check(FIRST_PATH)
                        .allowed,
                )
            })
        });
        g.bench_function(
            BenchmarkId::new("texting_robots", "Robot::new+allowed"),
            |b| {
                b.iter(|| {
                    black_box(
                        texting_robots::Robot::new(TOKEN, black_box(&body.bytes))
                            .map(|r| r.allowed(FIRST_PATH))
                            .ok(),
                    )
                })
            },
        );
        if !robotstxt_readable(std::slice::from_ref(&body)).0.is_empty() {
            g.bench_function(BenchmarkId::new("robotstxt", "one_agent_allowed"), |b| {
                b.iter(|| {
                    let mut m = robotstxt::DefaultMatcher::default();
                    black_box(m.one_agent_allowed_by_robots(
                        black_box(&body.text),
                        TOKEN,
                        FIRST_PATH,
                    ))
                })
            });
        }
        g.finish();
    }
    // Over the whole corpus: one new host after another.
    let name = if real {
        "first_answer/corpus"
    } else {
        "first_answer/builtin"
    };
    let (readable, panics) = robotstxt_readable(&bodies);
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(bodies.len() as u64));
    g.bench_function(BenchmarkId::new("wr_core", "Policy::parse+check"), |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(
                    Policy::parse(black_box(&body.bytes), TOKEN)
                        .check(FIRST_PATH)
                        .allowed,
                );
            }
        })
    });
    g.bench_function(
        BenchmarkId::new("texting_robots", "Robot::new+allowed"),
        |b| {
            b.iter(|| {
                for body in &bodies {
                    black_box(
                        texting_robots::Robot::new(TOKEN, black_box(&body.bytes))
                            .map(|r| r.allowed(FIRST_PATH))
                            .ok(),
                    );
                }
            })
        },
    );
    if panics > 0 {
        note(&format!(
            "{name}: robotstxt panics on {panics} files; measured on the other {}",
            readable.len()
        ));
    }
    g.throughput(Throughput::Elements(readable.len() as u64));
    g.bench_function(BenchmarkId::new("robotstxt", "one_agent_allowed"), |b| {
        b.iter(|| {
            for body in &readable {
                let mut m = robotstxt::DefaultMatcher::default();
                black_box(m.one_agent_allowed_by_robots(black_box(&body.text), TOKEN, FIRST_PATH));
            }
        })
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .measurement_time(MEASURE)
        .warm_up_time(WARM_UP)
        .without_plots()
}

criterion_group! { name = benches; config = config(); targets = answer, first_answer }
criterion_main!(benches);
