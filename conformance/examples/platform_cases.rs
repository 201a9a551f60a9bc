//! Writes the platform differential's questions as JSON Lines on stdout,
//! for `conformance/platform/robotparser_oracle.py`.
//!
//! ```text
//! cargo run -q -p wr-conformance --features platform --example platform_cases            # committed set
//! cargo run -q -p wr-conformance --features platform --example platform_cases -- --corpus DIR
//! ```
//!
//! Without arguments: the generator families and the in-repository slice
//! (`benches/data/robots-slice/`), the set whose answers are committed.
//! With `--corpus DIR`: every file of DIR (the full corpus), for a live run.
//! With `--seed N [BODIES]`: the generator families from seed N (BODIES
//! bodies each, as many as the committed set by default), new samples of the same shapes for a
//! live run; check the oracle's answers with the `platform_check` example.
//! Files that cannot be asked about are named on stderr with the reason.

use std::io::Write;
use std::path::PathBuf;
use wr_conformance::platform::{cases, Input};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result: std::io::Result<(Vec<Input>, cases::LeftOut)> = match args.as_slice() {
        [] => {
            let slice =
                PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../benches/data/robots-slice");
            wr_conformance::platform::cases(Some(&slice))
        }
        [flag, dir] if flag == "--corpus" => cases::real_dir(std::path::Path::new(dir), "corpus"),
        [flag, seed, rest @ ..] if flag == "--seed" && rest.len() <= 1 => {
            let number = |s: &str| s.parse::<u64>().ok();
            match (
                number(seed),
                rest.first()
                    .map_or(Some(cases::BODIES_PER_FAMILY as u64), |b| number(b)),
            ) {
                (Some(seed), Some(bodies)) => {
                    Ok((cases::generated_with(seed, bodies as usize), Vec::new()))
                }
                _ => {
                    eprintln!("platform_cases: --seed takes a number, and a number of bodies");
                    std::process::exit(2);
                }
            }
        }
        _ => {
            eprintln!("usage: platform_cases [--corpus DIR | --seed N [BODIES]]");
            std::process::exit(2);
        }
    };
    let (inputs, skipped) = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("platform_cases: {e}");
            std::process::exit(1);
        }
    };
    for (id, why) in &skipped {
        eprintln!("left out {id}: {why}");
    }
    let mut out = std::io::stdout().lock();
    if out.write_all(cases::to_jsonl(&inputs).as_bytes()).is_err() {
        std::process::exit(1);
    }
}
