//! The check of two trees of wr-core timed in one process: `base` (another
//! commit, checked out by `run.sh`) and `head` (this working tree), asked
//! the same paths of the same policy in alternating rounds.
//!
//! Why: this machine's speed changes by up to 2x from one minute to the
//! next (a shared host), so two criterion runs minutes apart cannot tell
//! 5 % apart, nor can two processes run in turn. Here each round times
//! `base` and `head` back to back (which goes first alternates), so both
//! see the same machine; the ratio of each pair is kept, and the median of
//! those ratios is the figure. Rounds where either side ran well over its
//! best (the host busy) are reported apart.
//!
//! `cargo run` is not how it is built: `run.sh BASE_REV [LABEL] [ROUNDS]`
//! (LABEL: p50, p90, p99, max, `mean`, every corpus policy, or `parse`)
//! writes a project that depends on both trees and runs it.

use std::hint::black_box;
use std::time::Instant;

use wr_benches::{
    by_rule_percentile, corpus_or_builtin, five_paths, median, paths_for, Body, TOKEN,
};

fn main() {
    let mut args = std::env::args().skip(1);
    let label = args.next().unwrap_or_else(|| "p50".to_string());
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(600);
    // Each timed run checks every path this many times (about 0.2 ms).
    let inner: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let (bodies, _) = corpus_or_builtin();
    if label == "parse" {
        return parse(&bodies, rounds);
    }
    // `mean`: every policy asked its five paths, one policy after the
    // other (caches cold), as `answer/corpus-mean` does; else one file's
    // paths, `inner` times over.
    let (name, asked): (String, Vec<(&Body, Vec<String>)>) = if label == "mean" {
        let asked = bodies.iter().map(|b| (b, five_paths(b).to_vec())).collect();
        (format!("every corpus policy ({})", bodies.len()), asked)
    } else {
        let Some(body) = by_rule_percentile(&bodies)
            .into_iter()
            .find(|(l, _)| *l == label)
            .and_then(|(_, b)| bodies.iter().find(|x| x.name == b.name))
        else {
            eprintln!("ab: no file labelled {label} (p50, p90, p99, max, or mean)");
            std::process::exit(2);
        };
        (body.name.clone(), vec![(body, paths_for(body))])
    };
    let inner = if label == "mean" { 1 } else { inner };
    let base: Vec<_> = asked
        .iter()
        .map(|(b, _)| wr_base::robots::Policy::parse(&b.bytes, TOKEN))
        .collect();
    let head_p: Vec<_> = asked
        .iter()
        .map(|(b, _)| wr_head::robots::Policy::parse(&b.bytes, TOKEN))
        .collect();
    let paths: Vec<&Vec<String>> = asked.iter().map(|(_, p)| p).collect();
    let count: usize = paths.iter().map(|p| p.len()).sum();
    let differ = (0..asked.len())
        .flat_map(|i| paths[i].iter().map(move |p| (i, p)))
        .filter(|&(i, p)| base[i].check(p).allowed != head_p[i].check(p).allowed)
        .count();
    let checks = (count * inner) as f64;
    let pairs = paired(rounds, |head| {
        let t = Instant::now();
        if head {
            check_all(&head_p, &paths, inner, |p, q| {
                black_box(p.check(q));
            });
        } else {
            check_all(&base, &paths, inner, |p, q| {
                black_box(p.check(q));
            });
        }
        t.elapsed().as_nanos() as f64 / checks
    });
    let (b, h): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
    let least = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let (b_min, h_min) = (least(&b), least(&h));
    let pairs = || b.iter().zip(&h).map(|(&x, &y)| (x, y));
    let quiet: Vec<(f64, f64)> = pairs()
        .filter(|&(x, y)| x < b_min * 1.15 && y < h_min * 1.15)
        .collect();
    println!(
        "{name} ({count} paths, {differ} verdicts differ), {rounds} rounds of {inner} x each path"
    );
    println!(
        "  quiet pairs ({} of {rounds}): base {:.1} ns, head {:.1} ns a check (medians); head/base {:.3}",
        quiet.len(),
        median(quiet.iter().map(|p| p.0).collect()),
        median(quiet.iter().map(|p| p.1).collect()),
        median(quiet.iter().map(|p| p.1 / p.0).collect())
    );
    println!(
        "  all pairs: head/base {:.3}; fastest base {b_min:.1} ns, head {h_min:.1} ns",
        median(pairs().map(|(x, y)| y / x).collect())
    );
}

/// `parse`: both trees' `Policy::parse` over every corpus file, in turn,
/// `rounds` times; the median of the rounds' ratios.
fn parse(bodies: &[Body], rounds: usize) {
    let time = |head: bool| {
        let t = Instant::now();
        for b in bodies {
            if head {
                drop(black_box(wr_head::robots::Policy::parse(
                    black_box(&b.bytes),
                    TOKEN,
                )));
            } else {
                drop(black_box(wr_base::robots::Policy::parse(
                    black_box(&b.bytes),
                    TOKEN,
                )));
            }
        }
        t.elapsed().as_secs_f64() * 1e3
    };
    let pairs = paired(rounds, time);
    println!(
        "Policy::parse over {} files, {rounds} rounds: base {:.2} ms, head {:.2} ms (medians); head/base {:.3}",
        bodies.len(),
        median(pairs.iter().map(|p| p.0).collect()),
        median(pairs.iter().map(|p| p.1).collect()),
        median(pairs.iter().map(|p| p.1 / p.0).collect())
    );
}

/// Every policy asked its paths, `inner` times over (`check` keeps each
/// verdict from being optimised away).
fn check_all<P>(policies: &[P], paths: &[&Vec<String>], inner: usize, check: impl Fn(&P, &str)) {
    for _ in 0..inner {
        for (policy, paths) in policies.iter().zip(paths) {
            for p in paths.iter() {
                check(policy, black_box(p));
            }
        }
    }
}

/// `rounds` pairs of timings (base, head) by `time(head)`, the base first
/// in even rounds and the head first in odd ones, so that neither always
/// runs on caches the other warmed.
fn paired(rounds: usize, mut time: impl FnMut(bool) -> f64) -> Vec<(f64, f64)> {
    (0..rounds)
        .map(|round| {
            if round % 2 == 0 {
                let b = time(false);
                (b, time(true))
            } else {
                let h = time(true);
                (time(false), h)
            }
        })
        .collect()
}
