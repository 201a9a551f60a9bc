//! A loop to profile (perf / callgrind), not a benchmark.
//!
//! `cargo run --release -p wr-benches --example profile -- parse|robots|check-adv|answer-max|texting [ROUNDS]`

use std::hint::black_box;
use wr_benches::{adversarial, corpus_or_builtin, TOKEN};
use wr_core::robots::{Policy, Robots};

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "parse".into());
    let rounds: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    match mode.as_str() {
        "parse" | "robots" | "texting" => {
            let (bodies, _) = corpus_or_builtin();
            for _ in 0..rounds {
                for b in &bodies {
                    match mode.as_str() {
                        "parse" => drop(black_box(Policy::parse(&b.bytes, TOKEN))),
                        "robots" => drop(black_box(Robots::parse(&b.bytes))),
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
        "answer-max" => {
            let (bodies, _) = corpus_or_builtin();
            let body = wr_benches::by_rule_percentile(&bodies).pop().unwrap().1;
            let paths = wr_benches::paths_for(&body);
            let p = Policy::parse(&body.bytes, TOKEN);
            eprintln!("{}: {} rules", body.name, p.rule_count());
            for _ in 0..rounds {
                for path in &paths {
                    black_box(p.check(black_box(path)));
                }
            }
        }
        m => eprintln!("unknown mode {m}"),
    }
}
