//! Parses every file of a robots.txt corpus and prints what it found.
//!
//! `cargo run --release -p wr-core --example corpus -- [DIR]`
//! (default: ../shared/corpus/robots-real-world from the workspace root).

use std::time::Instant;
use wr_core::robots::{Policy, Robots, Selected};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/corpus/robots-real-world".into());
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("cannot read {dir}: {e}");
            std::process::exit(2);
        }
    };
    let bodies: Vec<(String, Vec<u8>)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            Some((
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).ok()?,
            ))
        })
        .collect();
    let bytes: usize = bodies.iter().map(|(_, b)| b.len()).sum();
    let start = Instant::now();
    let (mut groups, mut named, mut global, mut delays, mut truncated) = (0, 0, 0, 0, 0);
    for (_, body) in &bodies {
        let robots = Robots::parse(body);
        groups += robots.groups().count();
        truncated += usize::from(robots.truncated());
        let p = Policy::parse(body, "Walsh-Research");
        match p.selected() {
            Selected::Named => named += 1,
            Selected::Global => global += 1,
            Selected::None => {}
        }
        delays += usize::from(p.crawl_delay().is_some());
    }
    let secs = start.elapsed().as_secs_f64();
    println!("files: {}  bytes: {bytes}  groups: {groups}", bodies.len());
    println!("Walsh-Research: named group in {named}, '*' in {global}, Crawl-delay in {delays}");
    println!("cut at 500 KiB: {truncated}");
    println!(
        "parsed twice (model + policy) in {secs:.3} s ({:.1} MB/s)",
        2.0 * bytes as f64 / secs / 1e6
    );
}
