//! Feed extraction throughput (items per second) over the real-world feed
//! corpus, and over one large synthetic feed (issue #19: before and after
//! the reader of titles as text).
//!
//! `cargo bench -p wr-benches --bench extract`
//!
//! * `extract/corpus` — every RSS, Atom and JSON Feed file of
//!   `../shared/corpus/feeds-real-world/` (feed-rs's fixtures; or
//!   `$WR_FEEDS_CORPUS_DIR`) through `wr_feeds::extract::feed_with_stats`,
//!   one after the other. Falls back, saying so, to the twelve feeds
//!   copied into `feeds/tests/data/feeds/` when the corpus is absent.
//! * `extract/large` — one RSS 2.0 feed of 12,000 dated items (1.3 MB):
//!   the windowed or streaming path, and the newest-items cap.
//!
//! The throughput counted is the items the extractor delivers (each row
//! says how many), so "elem/s" reads as items per second.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use wr_benches::{note, MEASURE, WARM_UP};
use wr_feeds::extract::feed_with_stats;

struct Doc {
    bytes: Vec<u8>,
    url: String,
}

fn corpus_dir() -> PathBuf {
    match std::env::var_os("WR_FEEDS_CORPUS_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/corpus/feeds-real-world"
        )),
    }
}

fn feeds_in(dir: &Path, docs: &mut Vec<Doc>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            feeds_in(&path, docs);
            continue;
        }
        // *.serde.json are feed-rs's expected-output snapshots, not feeds.
        if name.ends_with(".serde.json") || !(name.ends_with(".xml") || name.ends_with(".json")) {
            continue;
        }
        if let Ok(bytes) = std::fs::read(&path) {
            docs.push(Doc {
                bytes,
                url: format!("https://feeds.example.test/{name}"),
            });
        }
    }
}

fn corpus() -> Vec<Doc> {
    let mut docs = Vec::new();
    let dir = corpus_dir();
    for format in ["rss0", "rss1", "rss2", "atom", "jsonfeed"] {
        feeds_in(&dir.join(format), &mut docs);
    }
    if docs.is_empty() {
        eprintln!(
            "wr-benches: SKIPPING the real-world feed corpus ({} absent); using the feeds \
             of feeds/tests/data/feeds instead: figures are NOT comparable with the corpus' \
             rows of docs/performance.md",
            dir.display()
        );
        feeds_in(
            Path::new(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../feeds/tests/data/feeds"
            )),
            &mut docs,
        );
    }
    docs
}

fn large() -> Doc {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let mut s = String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><link>https://a.test/</link><description>d</description>\n");
    for i in 0..12_000 {
        let (y, d) = (2000 + i / 336, i % 336);
        s.push_str(&format!(
            "<item><title>Item {i} &amp; more</title><link>https://a.test/{i}</link><pubDate>{:02} {} {y} 00:00:00 GMT</pubDate></item>\n",
            d % 28 + 1,
            MONTHS[d / 28]
        ));
    }
    s.push_str("</channel></rss>\n");
    Doc {
        bytes: s.into_bytes(),
        url: "https://a.test/feed.xml".into(),
    }
}

fn items(docs: &[Doc]) -> usize {
    docs.iter()
        .map(|d| feed_with_stats(&d.bytes, &d.url).map_or(0, |f| f.items.len()))
        .sum()
}

fn group(c: &mut Criterion, name: &str, docs: &[Doc]) {
    let n = items(docs);
    let bytes: usize = docs.iter().map(|d| d.bytes.len()).sum();
    note(&format!(
        "extract/{name}: {} documents, {bytes} bytes, {n} items",
        docs.len()
    ));
    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(name, |b| {
        b.iter(|| {
            for d in docs {
                let _ = black_box(feed_with_stats(black_box(&d.bytes), &d.url));
            }
        })
    });
    g.finish();
}

fn extract(c: &mut Criterion) {
    group(c, "corpus", &corpus());
    group(c, "large", &[large()]);
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(MEASURE).warm_up_time(WARM_UP);
    targets = extract
}
criterion_main!(benches);
