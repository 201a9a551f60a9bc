//! Adversarial inputs: one rule of 1,000 `*` against an 8,000-byte path,
//! 1,000 rules of 10 `*` each, 100 rules of 4 KB ending in `$`, an 8 KB
//! path against a realistic rule set, and the 1,000 rules again against a
//! 9 KB path with an escape (too long for the stack copy a target that
//! needs percent-normalising gets). Goal: no input over 1 ms for wr-core.
//!
//! `cargo bench -p wr-benches --bench adversarial`
//!
//! GUARD: the peers are known to take seconds on some of these. Each peer
//! is timed once (parse + one answer) at 1/100 of the size, then 3/100,
//! 1/10, 3/10 and full size, and a size is not tried when the growth seen
//! so far (at least quadratic; cubic before two points exist) predicts a
//! single call over 1 s. Criterion then measures the peer at the largest
//! size tried if one call took under 100 ms there (plus wr_core at that
//! same size, like for like); otherwise the single timed call is the
//! figure (sample count 1). The sizes used are printed as `guard:` lines
//! and appear in the benchmark names.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::hint::black_box;
use std::time::{Duration, Instant};
use wr_benches::{adversarial, note, quietly, Adversarial, MEASURE, TOKEN, WARM_UP};
use wr_core::robots::Policy;

#[derive(Clone, Copy, PartialEq)]
enum Peer {
    Texting,
    Robotstxt,
}

impl Peer {
    fn name(self) -> &'static str {
        match self {
            Peer::Texting => "texting_robots",
            Peer::Robotstxt => "robotstxt",
        }
    }
    /// Parse + one answer. `None` when the peer rejects the file
    /// (texting_robots: `Err`) or panics.
    fn run(self, a: &Adversarial) -> Option<bool> {
        match self {
            Peer::Texting => texting_robots::Robot::new(TOKEN, &a.body.bytes)
                .ok()
                .map(|r| r.allowed(&a.path)),
            Peer::Robotstxt => {
                let mut m = robotstxt::DefaultMatcher::default();
                Some(m.one_agent_allowed_by_robots(&a.body.text, TOKEN, &a.path))
            }
        }
    }
}

const SCALES: [f64; 5] = [0.01, 0.03, 0.1, 0.3, 1.0];
/// Do not try a larger size whose single call is predicted to exceed this.
const PREDICT_LIMIT: Duration = Duration::from_secs(1);
const CRITERION_BELOW: Duration = Duration::from_millis(100);

fn ours(c: &mut Criterion) {
    for a in adversarial(1.0) {
        let policy = Policy::parse(&a.body.bytes, TOKEN);
        let v = policy.check(&a.path);
        note(&format!(
            "adversarial/{}: {} bytes body, {} bytes path; wr_core says allowed={} overflow={}",
            a.name,
            a.body.bytes.len(),
            a.path.len(),
            v.allowed,
            v.overflow
        ));
        let mut g = c.benchmark_group(format!("adversarial/{}", a.name));
        g.bench_function(BenchmarkId::new("wr_core", "Policy::parse"), |b| {
            b.iter(|| black_box(Policy::parse(black_box(&a.body.bytes), TOKEN)))
        });
        g.bench_function(BenchmarkId::new("wr_core", "Policy::check"), |b| {
            b.iter(|| black_box(policy.check(black_box(&a.path)).allowed))
        });
        g.bench_function(BenchmarkId::new("wr_core", "parse+check"), |b| {
            b.iter(|| {
                black_box(
                    Policy::parse(black_box(&a.body.bytes), TOKEN)
                        .check(&a.path)
                        .allowed,
                )
            })
        });
        g.finish();
    }
}

fn peers(c: &mut Criterion) {
    let cases = adversarial(1.0).len();
    let mut ours_done: Vec<String> = Vec::new();
    for peer in [Peer::Texting, Peer::Robotstxt] {
        for idx in 0..cases {
            // (scale, time) of the calls so far, to predict the next one
            // from the growth seen (at least cubic until two points exist).
            let mut seen: Vec<(f64, Duration)> = Vec::new();
            let mut last_ok: Option<(Adversarial, Duration, f64)> = None;
            for &s in &SCALES {
                if let Some(&(ps, pt)) = seen.last() {
                    let exp = match seen.len() {
                        1 => 3.0,
                        n => {
                            let (qs, qt) = seen[n - 2];
                            let e = (pt.as_secs_f64().max(1e-6) / qt.as_secs_f64().max(1e-6)).ln()
                                / (ps / qs).ln();
                            e.max(2.0)
                        }
                    };
                    let predicted = pt.as_secs_f64() * (s / ps).powf(exp);
                    if predicted > PREDICT_LIMIT.as_secs_f64() {
                        note(&format!(
                            "guard: {} case {idx}: not trying scale {s}: one call predicted {:.1} s",
                            peer.name(),
                            predicted
                        ));
                        break;
                    }
                }
                let a = adversarial(s).swap_remove(idx);
                let t0 = Instant::now();
                let r = quietly(|| peer.run(&a));
                let t = t0.elapsed();
                let (what, ok) = match r {
                    Some(Some(allowed)) => (format!("allowed={allowed}"), true),
                    Some(None) => ("REJECTED the file (Err)".to_string(), false),
                    None => ("PANICKED".to_string(), false),
                };
                note(&format!(
                    "guard: {} {} (scale {s}): one call {:.3} ms, {what}",
                    peer.name(),
                    a.name,
                    t.as_secs_f64() * 1e3
                ));
                seen.push((s, t));
                if !ok {
                    // Measure the largest size it still accepted.
                    break;
                }
                last_ok = Some((a, t, s));
            }
            let Some((a, t, scale)) = last_ok else {
                continue;
            };
            if t > CRITERION_BELOW {
                note(&format!(
                    "guard: {} {}: {:.1} ms for one call; not repeated under criterion",
                    peer.name(),
                    a.name,
                    t.as_secs_f64() * 1e3
                ));
                continue;
            }
            let mut g = c.benchmark_group(format!("adversarial/{}", a.name));
            g.bench_function(BenchmarkId::new(peer.name(), "parse+check"), |b| {
                b.iter(|| black_box(peer.run(black_box(&a))))
            });
            if scale < 1.0 && !ours_done.contains(&a.name) {
                // Same reduced size for wr_core, like for like.
                ours_done.push(a.name.clone());
                g.bench_function(BenchmarkId::new("wr_core", "parse+check"), |b| {
                    b.iter(|| {
                        black_box(
                            Policy::parse(black_box(&a.body.bytes), TOKEN)
                                .check(&a.path)
                                .allowed,
                        )
                    })
                });
            }
            g.finish();
        }
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .measurement_time(MEASURE)
        .warm_up_time(WARM_UP)
        .without_plots()
}

criterion_group! { name = benches; config = config(); targets = ours, peers }
criterion_main!(benches);
