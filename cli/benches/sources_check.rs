//! How long `wr-feeds` takes to read and check a large sources.toml
//! (issue #12: 10,000 sources took 17 s and 20,000 took 78 s, quadratic),
//! and to import a large OPML list (issue #20).
//!
//! The binary is timed as a user runs it, through `wr-feeds export`, which
//! loads and checks every source (names, URLs, duplicates, their line and
//! column for errors) and prints OPML, with no network and no state. The
//! 10,000 and 20,000 rows together show the growth: linear when the second
//! is about twice the first. The goal (under 1 s for 10,000) is read off
//! criterion's report, never asserted in a test.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

fn sources_file(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wr-bench-sources-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("sources-{n}.toml"));
    let mut text = String::with_capacity(n * 120);
    for i in 0..n {
        text.push_str(&format!(
            "[[source]]\nname = \"Source {i}\"\nurl = \"https://host{}.example/blog/{i}\"\nfeed = \"https://host{}.example/blog/{i}/feed.xml\"\ntags = [\"t{}\"]\n\n",
            i % 997,
            i % 997,
            i % 13
        ));
    }
    std::fs::write(&path, text).expect("write sources");
    path
}

fn check(c: &mut Criterion) {
    let exe = env!("CARGO_BIN_EXE_wr-feeds");
    let mut g = c.benchmark_group("sources_check");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_millis(500));
    for n in [10_000usize, 20_000] {
        let path = sources_file(n);
        g.bench_with_input(BenchmarkId::new("wr-feeds export", n), &path, |b, path| {
            b.iter(|| {
                let out = Command::new(exe)
                    .arg("export")
                    .arg(path)
                    .output()
                    .expect("run wr-feeds");
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                out.stdout.len()
            })
        });
    }
    g.finish();
}

/// An OPML list of `n` outlines, every one named alike (the worst case for
/// making names unique).
fn opml_file(n: usize) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wr-bench-sources-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("subs-{n}.opml"));
    let mut text = String::with_capacity(n * 80);
    text.push_str("<?xml version=\"1.0\"?>\n<opml version=\"2.0\"><body>\n");
    for i in 0..n {
        text.push_str(&format!(
            "<outline text=\"Feed\" xmlUrl=\"https://host{}.example/{i}/feed.xml\"/>\n",
            i % 997
        ));
    }
    text.push_str("</body></opml>\n");
    std::fs::write(&path, text).expect("write opml");
    path
}

/// Issue #20: `wr-feeds import` of 40,000 outlines took 29 s and of
/// 200,000 over 10 minutes (each outline's line counted from the start,
/// each duplicate name tried from `(2)`). Linear when the 200,000 row is
/// about twice the 100,000 one.
fn import(c: &mut Criterion) {
    let exe = env!("CARGO_BIN_EXE_wr-feeds");
    let mut g = c.benchmark_group("opml_import");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .warm_up_time(Duration::from_millis(500));
    for n in [100_000usize, 200_000] {
        let path = opml_file(n);
        g.bench_with_input(BenchmarkId::new("wr-feeds import", n), &path, |b, path| {
            b.iter(|| {
                let out = Command::new(exe)
                    .arg("-q")
                    .arg("import")
                    .arg(path)
                    .output()
                    .expect("run wr-feeds");
                assert!(
                    out.status.success(),
                    "{}",
                    String::from_utf8_lossy(&out.stderr)
                );
                out.stdout.len()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, check, import);
criterion_main!(benches);
