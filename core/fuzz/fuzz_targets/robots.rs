//! Fuzzes the robots.txt parser and matcher: no input may panic, the two
//! allocating models must agree, the fixed-capacity model must never allow
//! what the allocating one denies, and the allocating one must never allow
//! what the reference model of the spec's algorithm (`wr-conformance`)
//! denies in any reading of the text, or what Google's reference parser
//! (`wr_conformance::google`) denies, nor apply a shorter Crawl-delay (R2c: over-blocking is
//! permitted, under-blocking is not).
//!
//! `cargo fuzz run robots -s none` (stable toolchain: no sanitizer).
#![no_main]

use libfuzzer_sys::fuzz_target;
use wr_conformance::google;
use wr_conformance::robots_model::{placed_octets_may_differ, Model, Options, MAX_BODY};
use wr_core::robots::fixed::FixedPolicy;
use wr_core::robots::{Policy, Robots, MAX_CRAWL_DELAY};

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
    // The reference model is defined up to 500 KiB, the size a tool may
    // cut a body to (9.1.1); it reads a longer body's first 500 KiB.
    let cut = &body[..body.len().min(MAX_BODY)];
    let spec = Model::parse(cut, "Walsh-Research");
    // Every reading of the text (issue #18) that can differ here, as the
    // spec proptest builds them: Unicode spaces need an octet beyond ASCII
    // or a separator, the escapes reading a `%`, placed octets a `*` and
    // an octet whose form has a place.
    let unicode = cut.iter().any(|&b| b >= 0x80 || (0x1C..=0x1F).contains(&b));
    let escapes = cut.contains(&b'%') || path.contains('%');
    let placed = placed_octets_may_differ(cut);
    for options in Options::all().filter(|o| {
        (unicode || !o.unicode_space)
            && (escapes || !o.reserved_escapes)
            && (placed || !o.placed_octets)
    }) {
        let decided = Model::parse_with(cut, "Walsh-Research", options).decide(&path);
        if !decided.allowed {
            assert!(
                !verdict.allowed,
                "Policy allows what the spec's algorithm denies ({options:?}, rule on line {:?}): {verdict:?}",
                decided.line
            );
        }
    }
    // Google's reading is one of them too. Its port panics on some lines it
    // cuts inside a UTF-8 sequence, and libFuzzer aborts on any panic: it
    // is asked about ASCII bodies, on a target the bot could send (`url`
    // parses it; the WHATWG form is what it judges).
    if cut.is_ascii() && path.is_ascii() && path.starts_with('/') {
        if let (Ok(body), Ok(mut url)) = (
            std::str::from_utf8(cut),
            url::Url::parse(&format!("https://example.com{path}")),
        ) {
            url.set_fragment(None);
            let sent = url.as_str();
            let pq = match url.query() {
                Some(q) => format!("{}?{q}", url.path()),
                None => url.path().to_string(),
            };
            if google::allows(body, "Walsh-Research", sent) == Some(false) {
                assert!(
                    !policy.check(&pq).allowed,
                    "Policy allows {pq:?}, which Google's reference denies"
                );
            }
        }
    }
    if let Some(want) = spec.crawl_delay() {
        // wr-core clamps absurd values to a year.
        let want = want.min(MAX_CRAWL_DELAY.as_secs_f64());
        let got = policy.crawl_delay().map(|d| d.0.as_secs_f64());
        assert!(
            got.is_some_and(|got| got + 1e-9 >= want),
            "Crawl-delay: Policy {got:?}, spec {want}"
        );
    }
});
