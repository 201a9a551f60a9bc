//! Fuzzes the robots.txt parser and matcher: no input may panic, the two
//! allocating models must agree, and the fixed-capacity model must never
//! allow what the allocating one denies.
//!
//! `cargo fuzz run robots -s none` (stable toolchain: no sanitizer).
#![no_main]

use libfuzzer_sys::fuzz_target;
use wr_core::robots::fixed::FixedPolicy;
use wr_core::robots::{Policy, Robots};

fuzz_target!(|data: &[u8]| {
    // First line: the path to ask about; the rest: the robots.txt body.
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(data.len());
    let path = String::from_utf8_lossy(&data[..split]);
    let body = data.get(split + 1..).unwrap_or_default();
    let policy = Policy::parse(body, "Walsh-Research");
    let verdict = policy.check(&path);
    let via_model = Robots::parse(body).policy("Walsh-Research");
    assert_eq!(verdict.allowed, via_model.check(&path).allowed);
    let fixed = FixedPolicy::<4, 64>::parse(body, "Walsh-Research");
    if !verdict.allowed {
        assert!(!fixed.check(&path).allowed, "fixed mode under-blocks");
    }
});
