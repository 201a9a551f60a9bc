//! Checks production against the platform robots parser's answers read
//! from standard input (the output of `conformance/platform/robotparser_oracle.py`),
//! and prints the differential's summary and every under-block; exits 1
//! when there is one.
//!
//! ```text
//! cargo run -q -p wr-conformance --features platform --example platform_cases -- --seed 19 \
//!   | python3 conformance/platform/robotparser_oracle.py \
//!   | cargo run -q -p wr-conformance --features platform --example platform_check
//! ```

use std::io::Read;
use wr_conformance::platform;

fn main() {
    let mut text = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut text) {
        eprintln!("platform_check: standard input: {e}");
        std::process::exit(2);
    }
    let (header, answered) = match platform::parse_answers(&text) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("platform_check: the oracle's output, {e}");
            std::process::exit(2);
        }
    };
    let report = platform::run(&answered);
    println!("{} {}\n{}", header.oracle, header.python, report.summary());
    if !report.failures.is_empty() {
        println!("{}", report.failure_message());
        std::process::exit(1);
    }
}
