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
//! `answer/corpus-mean` (issue #24): every corpus policy parsed once, then
//! each asked about its [`five_paths`], one policy after the other, so a
//! policy's data is out of the caches again by the time it is next asked
//! (4,231 policies are far more than the L2): the mean per check with cold
//! caches, over every policy rather than four chosen files.
//!
//! fast-robots 0.1.5 (issue #24's peer) answers from its parsed
//! `RobotsTxt` (`is_allowed`, a scan of every group) or from its compiled
//! `RobotsMatcher` (indexes built once per file); both rows are shown.
//!
//! robotstxt has no parsed object: every answer re-parses the file
//! (`one_agent_allowed_by_robots`), so its "answer" figure is the same work
//! as its "first answer".

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use wr_benches::{
    by_rule_percentile, corpus_or_builtin, five_paths, note, paths_for, robotstxt_readable,
    MEASURE, TOKEN, WARM_UP,
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
        let fast = fast_robots::RobotsTxt::parse(&body.text);
        let fast_matcher = fast.matcher();
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
        g.bench_function(
            BenchmarkId::new("fast_robots", "RobotsTxt::is_allowed"),
            |b| {
                b.iter(|| {
                    for p in &paths {
                        black_box(fast.is_allowed(TOKEN, black_box(p)));
                    }
                })
            },
        );
        g.bench_function(
            BenchmarkId::new("fast_robots", "RobotsMatcher::is_allowed"),
            |b| {
                b.iter(|| {
                    for p in &paths {
                        black_box(fast_matcher.is_allowed(TOKEN, black_box(p)));
                    }
                })
            },
        );
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
        g.bench_function(
            BenchmarkId::new("fast_robots", "RobotsTxt::parse+is_allowed"),
            |b| {
                b.iter(|| {
                    black_box(
                        fast_robots::RobotsTxt::parse(black_box(&body.text))
                            .is_allowed(TOKEN, FIRST_PATH),
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
    g.bench_function(
        BenchmarkId::new("fast_robots", "RobotsTxt::parse+is_allowed"),
        |b| {
            b.iter(|| {
                for body in &bodies {
                    black_box(
                        fast_robots::RobotsTxt::parse(black_box(&body.text))
                            .is_allowed(TOKEN, FIRST_PATH),
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

/// The mean per check over every corpus policy, five paths each, caches
/// cold (issue #24): see the module docs.
fn corpus_mean(c: &mut Criterion) {
    let (bodies, real) = corpus_or_builtin();
    let name = if real {
        "answer/corpus-mean"
    } else {
        "answer/builtin-mean"
    };
    let paths: Vec<[String; 5]> = bodies.iter().map(five_paths).collect();
    let checks = (bodies.len() * 5) as u64;
    let policies: Vec<Policy> = bodies
        .iter()
        .map(|b| Policy::parse(&b.bytes, TOKEN))
        .collect();
    let fast: Vec<fast_robots::RobotsTxt<'_>> = bodies
        .iter()
        .map(|b| fast_robots::RobotsTxt::parse(&b.text))
        .collect();
    let fast_matchers: Vec<fast_robots::RobotsMatcher<'_>> =
        fast.iter().map(|r| r.matcher()).collect();
    // texting_robots refuses some files (Err): those are left out of its
    // row, and its throughput counts only the checks it makes.
    let texting: Vec<(texting_robots::Robot, &[String; 5])> = bodies
        .iter()
        .zip(&paths)
        .filter_map(|(b, p)| Some((texting_robots::Robot::new(TOKEN, &b.bytes).ok()?, p)))
        .collect();
    note(&format!(
        "{name}: {} policies x 5 paths; texting_robots has {} of them",
        bodies.len(),
        texting.len()
    ));
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(checks));
    g.bench_function(BenchmarkId::new("wr_core", "Policy::check"), |b| {
        b.iter(|| {
            for (policy, five) in policies.iter().zip(&paths) {
                for p in five {
                    black_box(policy.check(black_box(p)).allowed);
                }
            }
        })
    });
    g.bench_function(
        BenchmarkId::new("fast_robots", "RobotsTxt::is_allowed"),
        |b| {
            b.iter(|| {
                for (robots, five) in fast.iter().zip(&paths) {
                    for p in five {
                        black_box(robots.is_allowed(TOKEN, black_box(p)));
                    }
                }
            })
        },
    );
    g.bench_function(
        BenchmarkId::new("fast_robots", "RobotsMatcher::is_allowed"),
        |b| {
            b.iter(|| {
                for (matcher, five) in fast_matchers.iter().zip(&paths) {
                    for p in five {
                        black_box(matcher.is_allowed(TOKEN, black_box(p)));
                    }
                }
            })
        },
    );
    g.throughput(Throughput::Elements((texting.len() * 5) as u64));
    g.bench_function(BenchmarkId::new("texting_robots", "Robot::allowed"), |b| {
        b.iter(|| {
            for (robot, five) in &texting {
                for p in five.iter() {
                    black_box(robot.allowed(black_box(p)));
                }
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

criterion_group! { name = benches; config = config(); targets = answer, first_answer, corpus_mean }
criterion_main!(benches);
