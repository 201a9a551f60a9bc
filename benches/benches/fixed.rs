//! The fixed-capacity (heapless, no allocator) mode: bytes per host
//! (`size_of` of the policy type), how many corpus files fit, parse
//! throughput and answer latency.
//!
//! `cargo bench -p wr-benches --bench fixed`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use wr_benches::{
    by_rule_percentile, corpus_or_builtin, note, paths_for, Body, MEASURE, TOKEN, WARM_UP,
};
use wr_core::robots::fixed::FixedPolicy;
use wr_core::robots::Policy;

type Small = FixedPolicy<32, 1024>;
type Medium = FixedPolicy<128, 4096>;
type Large = FixedPolicy<512, 16384>;

/// Prints the memory per host and the fit over the corpus for one capacity.
fn report<const R: usize, const B: usize>(bodies: &[Body]) {
    let mut overflowed = 0;
    let mut disagree = 0;
    let mut overblock = 0;
    let mut queries = 0;
    for body in bodies {
        let f = FixedPolicy::<R, B>::parse(&body.bytes, TOKEN);
        overflowed += usize::from(f.overflowed());
        let p = Policy::parse(&body.bytes, TOKEN);
        for path in wr_benches::TYPICAL_PATHS {
            queries += 1;
            let (a, b) = (f.check(path).allowed, p.check(path).allowed);
            if a != b {
                disagree += 1;
                if !a && b {
                    overblock += 1;
                }
            }
        }
    }
    note(&format!(
        "FixedPolicy<{R}, {B}>: size_of = {} bytes per host (no heap); overflowed on {overflowed} of {} files; \
         {disagree} of {queries} typical queries differ from Policy ({overblock} of them over-block, {} under-block)",
        std::mem::size_of::<FixedPolicy<R, B>>(),
        bodies.len(),
        disagree - overblock
    ));
}

fn fixed(c: &mut Criterion) {
    let (bodies, real) = corpus_or_builtin();
    report::<32, 1024>(&bodies);
    report::<128, 4096>(&bodies);
    report::<512, 16384>(&bodies);
    note(&format!(
        "for comparison: size_of::<Policy>() = {} bytes + heap",
        std::mem::size_of::<Policy>()
    ));

    let bytes: u64 = bodies.iter().map(|b| b.bytes.len() as u64).sum();
    let mut g = c.benchmark_group(if real {
        "fixed/parse-corpus"
    } else {
        "fixed/parse-builtin"
    });
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function(BenchmarkId::new("wr_core", "FixedPolicy<32,1024>"), |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(Small::parse(black_box(&body.bytes), TOKEN).overflowed());
            }
        })
    });
    g.bench_function(BenchmarkId::new("wr_core", "FixedPolicy<128,4096>"), |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(Medium::parse(black_box(&body.bytes), TOKEN).overflowed());
            }
        })
    });
    g.bench_function(BenchmarkId::new("wr_core", "FixedPolicy<512,16384>"), |b| {
        b.iter(|| {
            for body in &bodies {
                black_box(Large::parse(black_box(&body.bytes), TOKEN).overflowed());
            }
        })
    });
    g.finish();

    for (label, body) in by_rule_percentile(&bodies) {
        let paths = paths_for(&body);
        let f = Medium::parse(&body.bytes, TOKEN);
        let p = Policy::parse(&body.bytes, TOKEN);
        let mut g = c.benchmark_group(format!("fixed/answer-{label}-{}", body.name));
        g.throughput(Throughput::Elements(paths.len() as u64));
        g.bench_function(
            BenchmarkId::new(
                "wr_core",
                format!(
                    "FixedPolicy<128,4096>::check (overflowed={})",
                    f.overflowed()
                ),
            ),
            |b| {
                b.iter(|| {
                    for path in &paths {
                        black_box(f.check(black_box(path)).allowed);
                    }
                })
            },
        );
        g.bench_function(BenchmarkId::new("wr_core", "Policy::check"), |b| {
            b.iter(|| {
                for path in &paths {
                    black_box(p.check(black_box(path)).allowed);
                }
            })
        });
        g.finish();
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .measurement_time(MEASURE)
        .warm_up_time(WARM_UP)
        .without_plots()
}

criterion_group! { name = benches; config = config(); targets = fixed }
criterion_main!(benches);
