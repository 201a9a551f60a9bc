//! A loop to profile (perf / callgrind), not a benchmark.
//!
//! `cargo run --release -p wr-benches --example profile -- parse|lex|robots|check-adv|answer-p50|answer-p90|answer-p99|answer-max|texting|fastrobots|fastrobots-matcher|pair-parse|parse-states [ROUNDS]`
//!
//! `fastrobots` is fast-robots' `RobotsTxt::parse` over the corpus' text
//! (lossy UTF-8, prepared before the loop as for robotstxt);
//! `fastrobots-matcher` also builds its compiled matcher. Under callgrind,
//! collect in `fast_robots::RobotsTxt::parse` (or `*RobotsMatcher::new`).
//!
//! `mean-wr`, `mean-fastrobots`, `mean-fastrobots-matcher`, `mean-texting`:
//! every corpus policy parsed once, then each asked about its five paths,
//! one policy after the other (the checks of `answer/corpus-mean`); under
//! callgrind, collect in the check function (`wr_core::robots::*::Policy::check`,
//! `fast_robots::*is_allowed`, `texting_robots::Robot::allowed`) and divide
//! by 5 × 4,231 × ROUNDS.
//!
//! `pair-parse`: `Policy::parse`, texting_robots and fast-robots over the
//! corpus in turn, ROUNDS times, and the medians of the rounds' ratios.
//!
//! `parse-states [ROUNDS [MAX_BYTES]]`: `Policy::parse` and texting_robots over the
//! corpus files under MAX_BYTES (all by default) in three states of the
//! machine: cold (each file parsed once, in turn, as the benches do),
//! touched (its octets read just before, untimed) and again (the same file
//! parsed a second time at once). Medians of ROUNDS rounds.

use std::hint::black_box;
use wr_benches::{adversarial, corpus_or_builtin, median, TOKEN};
use wr_core::robots::{Policy, Robots};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "parse".into());
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    match mode.as_str() {
        "lex" => {
            let (bodies, _) = corpus_or_builtin();
            for _ in 0..rounds {
                for b in &bodies {
                    let mut n = 0u32;
                    for l in wr_core::robots::lexer::lines(&b.bytes[..b.bytes.len().min(512000)]) {
                        n = n.wrapping_add(matches!(
                            l.directive,
                            wr_core::robots::lexer::Directive::Unknown
                        ) as u32);
                    }
                    black_box(n);
                }
            }
        }
        "parse" | "robots" | "texting" | "fastrobots" | "fastrobots-matcher" => {
            let (bodies, _) = corpus_or_builtin();
            for _ in 0..rounds {
                for b in &bodies {
                    match mode.as_str() {
                        "parse" => drop(black_box(Policy::parse(&b.bytes, TOKEN))),
                        "robots" => drop(black_box(Robots::parse(&b.bytes))),
                        "fastrobots" => drop(black_box(fast_robots::RobotsTxt::parse(&b.text))),
                        "fastrobots-matcher" => {
                            let r = fast_robots::RobotsTxt::parse(&b.text);
                            drop(black_box(r.matcher()));
                        }
                        _ => drop(black_box(texting_robots::Robot::new(TOKEN, &b.bytes))),
                    }
                }
            }
        }
        "check-adv" => {
            let a = adversarial(1.0).swap_remove(1);
            let p = Policy::parse(&a.body.bytes, TOKEN);
            for _ in 0..rounds {
                black_box(p.check(black_box(&a.path)));
            }
        }
        "answer-max" | "answer-p50" | "answer-p90" | "answer-p99" => {
            let (bodies, _) = corpus_or_builtin();
            let label = mode.strip_prefix("answer-").unwrap_or("max");
            let body = wr_benches::by_rule_percentile(&bodies)
                .into_iter()
                .find(|(l, _)| *l == label)
                .unwrap()
                .1;
            let paths = wr_benches::paths_for(&body);
            let p = Policy::parse(&body.bytes, TOKEN);
            eprintln!("{}: {} rules", body.name, p.rule_count());
            for _ in 0..rounds {
                for path in &paths {
                    black_box(p.check(black_box(path)));
                }
            }
        }
        "mean-wr" | "mean-fastrobots" | "mean-fastrobots-matcher" | "mean-texting" => {
            mean(&mode, rounds)
        }
        "pair-parse" => pair_parse(rounds),
        "parse-states" => parse_states(
            rounds,
            std::env::args()
                .nth(3)
                .and_then(|s| s.parse().ok())
                .unwrap_or(usize::MAX),
        ),
        m => eprintln!("unknown mode {m}"),
    }
}

/// `Policy::parse` and the peers' parses of the whole corpus timed in
/// turn, `rounds` times (the order turning each round), with the median of
/// each round's ratios. On a host whose speed moves by 2x from one minute
/// to the next, criterion's rows, each measured in its own few seconds,
/// can fall in different states; a round's parses share one. The two
/// floors of `--bench parse` (the newline count and the line walk) are
/// timed in the same rounds, for issue #24's "within 8x of the floor".
fn pair_parse(rounds: usize) {
    use std::time::Instant;
    const MEMBERS: usize = 5;
    let (bodies, _) = corpus_or_builtin();
    let time = |which: usize| {
        let t = Instant::now();
        let mut n = 0usize;
        for b in &bodies {
            match which {
                0 => drop(black_box(Policy::parse(black_box(&b.bytes), TOKEN))),
                1 => drop(black_box(texting_robots::Robot::new(
                    TOKEN,
                    black_box(&b.bytes),
                ))),
                2 => drop(black_box(fast_robots::RobotsTxt::parse(black_box(&b.text)))),
                3 => n += wr_benches::line_walk(black_box(&b.bytes)).0,
                _ => n += memchr::memchr_iter(b'\n', black_box(&b.bytes)).count(),
            }
        }
        black_box(n);
        t.elapsed().as_secs_f64()
    };
    let mut ratios: [Vec<f64>; MEMBERS] = Default::default();
    let (mut ours, mut texting_time) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut t = [0.0; MEMBERS];
        for k in 0..MEMBERS {
            let which = (round + k) % MEMBERS;
            t[which] = time(which);
        }
        ours.push(t[0]);
        // texting_robots' own time says how fast the host runs at the
        // moment: the ratio moves with it (docs/performance.md, "fifth
        // pass").
        texting_time.push(t[1]);
        for (r, x) in ratios.iter_mut().zip(t) {
            r.push(x / t[0]);
        }
    }
    let [_, texting, fast, walk, count] = ratios.map(median);
    println!(
        "{} files, {rounds} rounds: Policy::parse median {:.2} ms, texting_robots {:.1} ms; texting_robots / ours {texting:.2}x, fast-robots / ours {fast:.2}x; ours / line walk {:.2}x, ours / newline count {:.2}x (medians of each round's ratio)",
        bodies.len(),
        median(ours) * 1e3,
        median(texting_time) * 1e3,
        1.0 / walk,
        1.0 / count,
    );
}

/// Where a cold parse's time goes beyond the same parse on warm caches
/// and predictors (docs/performance.md, "seventh pass"): each file
/// parsed cold, in turn; then each file with its octets read first
/// (untimed), and parsed a second time at once. The per-file timings
/// carry the clock's own cost (some 40 ns each, the same in both).
fn parse_states(rounds: usize, max_bytes: usize) {
    use std::time::Instant;
    let (bodies, _) = corpus_or_builtin();
    let bodies: Vec<_> = bodies
        .into_iter()
        .filter(|b| b.bytes.len() < max_bytes)
        .collect();
    let touch = |b: &[u8]| black_box(b.iter().fold(0u8, |a, &x| a ^ x));
    type Parse = fn(&[u8]);
    let ours: Parse = |b| drop(black_box(Policy::parse(black_box(b), TOKEN)));
    let texting: Parse = |b| drop(black_box(texting_robots::Robot::new(TOKEN, black_box(b))));
    let mut rows = Vec::new();
    for (name, parse) in [("Policy::parse", ours), ("texting_robots", texting)] {
        let (mut cold, mut touched, mut again) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let t = Instant::now();
            for b in &bodies {
                parse(&b.bytes);
            }
            cold.push(t.elapsed().as_secs_f64());
            let (mut first, mut second) = (0.0, 0.0);
            for b in &bodies {
                touch(&b.bytes);
                let t = Instant::now();
                parse(&b.bytes);
                first += t.elapsed().as_secs_f64();
                let t = Instant::now();
                parse(&b.bytes);
                second += t.elapsed().as_secs_f64();
            }
            touched.push(first);
            again.push(second);
        }
        let [cold, touched, again] = [cold, touched, again].map(median);
        println!(
            "{name}: {} files: cold {:.2} ms, touched {:.2} ms, again {:.2} ms",
            bodies.len(),
            cold * 1e3,
            touched * 1e3,
            again * 1e3
        );
        rows.push([cold, touched, again]);
    }
    if let [o, t] = &rows[..] {
        println!(
            "texting_robots / ours: cold {:.2}x, touched {:.2}x, again {:.2}x",
            t[0] / o[0],
            t[1] / o[1],
            t[2] / o[2]
        );
    }
}

/// The checks of `answer/corpus-mean`, `rounds` times.
fn mean(mode: &str, rounds: usize) {
    let (bodies, _) = corpus_or_builtin();
    let paths: Vec<[String; 5]> = bodies.iter().map(wr_benches::five_paths).collect();
    eprintln!("{} policies x 5 paths x {rounds} rounds", bodies.len());
    match mode {
        "mean-wr" => {
            let all: Vec<Policy> = bodies
                .iter()
                .map(|b| Policy::parse(&b.bytes, TOKEN))
                .collect();
            for _ in 0..rounds {
                for (p, five) in all.iter().zip(&paths) {
                    for path in five {
                        black_box(p.check(black_box(path)).allowed);
                    }
                }
            }
        }
        "mean-texting" => {
            let all: Vec<_> = bodies
                .iter()
                .map(|b| texting_robots::Robot::new(TOKEN, &b.bytes).ok())
                .collect();
            for _ in 0..rounds {
                for (r, five) in all.iter().zip(&paths) {
                    for path in five.iter().filter(|_| r.is_some()) {
                        black_box(r.as_ref().map(|r| r.allowed(black_box(path))));
                    }
                }
            }
        }
        _ => {
            let all: Vec<_> = bodies
                .iter()
                .map(|b| fast_robots::RobotsTxt::parse(&b.text))
                .collect();
            let matchers: Vec<_> = all.iter().map(|r| r.matcher()).collect();
            for _ in 0..rounds {
                for ((r, m), five) in all.iter().zip(&matchers).zip(&paths) {
                    for path in five {
                        if mode == "mean-fastrobots" {
                            black_box(r.is_allowed(TOKEN, black_box(path)));
                        } else {
                            black_box(m.is_allowed(TOKEN, black_box(path)));
                        }
                    }
                }
            }
        }
    }
}
