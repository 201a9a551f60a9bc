//! The fixed-capacity (`heapless`) mode: identical answers when the rules
//! fit, over-blocking (flagged) and never under-blocking when they do not.
#![cfg(feature = "heapless")]

use proptest::prelude::*;
use serde_json::Value;
use wr_core::robots::fixed::FixedPolicy;
use wr_core::robots::Policy;

#[test]
fn agrees_with_allocating_model_on_google_suites_when_rules_fit() {
    let dir = format!("{}/../vectors/google", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    let mut diverged = 0;
    for file in [
        "google-robotstxt-cases.jsonl",
        "google-robotstxt-spec-test-cases.jsonl",
    ] {
        for line in std::fs::read_to_string(format!("{dir}/{file}"))
            .unwrap()
            .lines()
        {
            let case: Value = serde_json::from_str(line).unwrap();
            let body: Vec<u8> = match case.get("robots_bytes") {
                Some(b) => b
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_u64().unwrap() as u8)
                    .collect(),
                None => case["robots"].as_str().unwrap().as_bytes().to_vec(),
            };
            let agent = case["agent"].as_str().unwrap();
            let path = wr_core::url::Url::parse(case["url"].as_str().unwrap())
                .map(|u| u.path_and_query.to_string())
                .unwrap_or_else(|_| "/".into());
            let full = Policy::parse(&body, agent);
            let fixed = FixedPolicy::<64, 65536>::parse(&body, agent);
            if full.variants().count() > 0 || fixed.overflowed() {
                // Another reading of the text may select other rules: no
                // room for them in fixed capacity, so every path is denied.
                assert!(fixed.overflowed(), "{line}");
                assert!(!fixed.check(&path).allowed, "{line}");
                diverged += 1;
                n += 1;
                continue;
            }
            assert!(!fixed.overflowed(), "{line}");
            assert_eq!(
                fixed.check(&path).allowed,
                full.check(&path).allowed,
                "{line}"
            );
            assert_eq!(fixed.crawl_delay(), full.crawl_delay());
            n += 1;
        }
    }
    assert_eq!(n, 545);
    // Few of Google's cases read otherwise in another variant (long lines,
    // versioned agents): the rest must agree rule for rule.
    assert!(diverged <= 40, "{diverged}");
}

#[test]
fn too_many_disallows_deny_everything_and_say_so() {
    let body = b"User-agent: *\nDisallow: /a\nDisallow: /b\nDisallow: /c\n";
    let p = FixedPolicy::<2, 256>::parse(body, "Walsh-Research");
    assert!(p.overflowed());
    let v = p.check("/zzz");
    assert!(!v.allowed && v.overflow, "{v:?}");
    // The full model allows it: this is the over-block, flagged.
    assert!(Policy::parse(body, "Walsh-Research").check("/zzz").allowed);
}

#[test]
fn dropped_allow_over_blocks_and_says_so() {
    let body = b"User-agent: *\nDisallow: /\nAllow: /public\n";
    let p = FixedPolicy::<1, 256>::parse(body, "Walsh-Research");
    let v = p.check("/public/page");
    assert!(!v.allowed && v.overflow, "{v:?}");
    assert!(
        Policy::parse(body, "Walsh-Research")
            .check("/public/page")
            .allowed
    );
}

#[test]
fn cut_disallow_keeps_blocking_and_keeps_its_precedence() {
    // 12 bytes of room: `/private/long/path` is cut, yet still beats the
    // shorter Allow for every path it covered.
    let body = b"User-agent: *\nAllow: /private/lo\nDisallow: /private/long/path$\n";
    let p = FixedPolicy::<4, 24>::parse(body, "Walsh-Research");
    assert!(p.overflowed());
    assert!(!p.check("/private/long/path").allowed);
    let full = Policy::parse(body, "Walsh-Research");
    assert!(!full.check("/private/long/path").allowed);
    assert!(full.check("/private/lo").allowed);
}

#[test]
fn cut_disallow_never_ends_in_an_anchor() {
    // Cut to `/a$`, the value would read as "exactly /a": a `$` the cut
    // leaves at the end was literal in the full value, so it goes too.
    let body = b"User-agent: *\nDisallow: /a$b\n";
    let p = FixedPolicy::<4, 3>::parse(body, "Walsh-Research");
    assert!(p.overflowed());
    for path in ["/a$b", "/a$bc", "/a"] {
        assert!(!p.check(path).allowed, "{path}");
    }
    let full = Policy::parse(body, "Walsh-Research");
    assert!(!full.check("/a$b").allowed);
    assert!(full.check("/a").allowed);
    let body = b"User-agent: *\nDisallow: /a$$b\n";
    let p = FixedPolicy::<4, 4>::parse(body, "Walsh-Research");
    assert!(p.overflowed());
    assert!(!p.check("/a$$b").allowed);
    assert!(!Policy::parse(body, "Walsh-Research").check("/a$$b").allowed);
}

#[test]
fn rules_whose_two_readings_differ_never_under_block_when_squeezed() {
    // `%7e` is `~` in the canonical form and stays `%7E` in Google's; `%4`
    // is no escape at all. One form standing in for both let the Allow win
    // Google's reading of `/~%41`, which the full model denies there.
    let body = b"User-agent: *\nDisallow: /~%4\nAllow: /%7e\n";
    assert!(!Policy::parse(body, "Walsh-Research").check("/~%41").allowed);
    let p = FixedPolicy::<4, 7>::parse(body, "Walsh-Research");
    assert!(p.overflowed());
    assert!(!p.check("/~%41").allowed);
    // A Disallow kept in its canonical form only missed what Google's
    // reading denies.
    let body = b"User-agent: *\nDisallow: /%7e%4\n";
    assert!(
        !Policy::parse(body, "Walsh-Research")
            .check("/%7E%41")
            .allowed
    );
    let roomy = FixedPolicy::<4, 8>::parse(body, "Walsh-Research");
    let tight = FixedPolicy::<4, 3>::parse(body, "Walsh-Research");
    for (v, overflowed) in [
        (roomy.check("/%7E%41"), roomy.overflowed()),
        (tight.check("/%7E%41"), tight.overflowed()),
    ] {
        assert!(overflowed);
        assert!(!v.allowed && v.overflow, "{v:?}");
    }
}

#[test]
fn fits_without_an_allocator_in_known_bytes() {
    // The bytes a host costs in fixed mode are a compile-time constant.
    let size = core::mem::size_of::<FixedPolicy<32, 2048>>();
    assert!(size < 2 * (32 * 40 + 2048) + 256, "{size}");
}

#[test]
fn parse_in_place_replaces_what_the_policy_held() {
    // An overflowed policy with a Crawl-delay and a named group, re-parsed
    // in place: nothing of it survives, the answers are a fresh parse's.
    let first =
        b"User-agent: Walsh-Research\nDisallow: /a\nDisallow: /b\nDisallow: /c\nCrawl-delay: 9\n";
    let second = b"User-agent: *\nDisallow: /private\nAllow: /private/ok\n";
    let mut reused = FixedPolicy::<2, 64>::parse(first, "Walsh-Research");
    assert!(reused.overflowed() && reused.crawl_delay().is_some());
    reused.parse_in_place(second, "Walsh-Research");
    let fresh = FixedPolicy::<2, 64>::parse(second, "Walsh-Research");
    assert!(!reused.overflowed());
    assert_eq!(reused.crawl_delay(), None);
    assert_eq!(reused.rule_count(), fresh.rule_count());
    for path in ["/a", "/private/x", "/private/ok/1", "/"] {
        assert_eq!(reused.check(path), fresh.check(path), "{path}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::cases(3000), ..ProptestConfig::default() })]

    #[test]
    fn never_under_blocks_whatever_the_capacity(
        rules in proptest::collection::vec(
            (prop::bool::ANY, "/(a|b|/|\\*|%2F|%7e|%4|%41|é|\\$|~){0,6}\\$?"), 0..12),
        path in "/(a|b|/|%2F|%7E|%7e|%41|%4|é|\\$|~|A){0,8}",
    ) {
        let mut body = String::from("User-agent: *\n");
        for (allow, v) in &rules {
            body.push_str(if *allow { "Allow: " } else { "Disallow: " });
            body.push_str(v);
            body.push('\n');
        }
        let full_policy = Policy::parse(body.as_bytes(), "Walsh-Research");
        let full = full_policy.check(&path);
        let tiny = FixedPolicy::<3, 16>::parse(body.as_bytes(), "Walsh-Research");
        // A few octets: most values are cut, wherever their `$` and `*`
        // are, or keep one of their two forms only.
        let cramped = FixedPolicy::<4, 5>::parse(body.as_bytes(), "Walsh-Research");
        let narrow = FixedPolicy::<3, 7>::parse(body.as_bytes(), "Walsh-Research");
        let short = FixedPolicy::<4, 9>::parse(body.as_bytes(), "Walsh-Research");
        for (v, overflowed) in [
            (tiny.check(&path), tiny.overflowed()),
            (cramped.check(&path), cramped.overflowed()),
            (narrow.check(&path), narrow.overflowed()),
            (short.check(&path), short.overflowed()),
        ] {
            if !full.allowed {
                prop_assert!(!v.allowed, "under-block: {}\npath {}", body, path);
            }
            if v.allowed != full.allowed {
                prop_assert!(overflowed, "differs without overflow: {}\npath {}", body, path);
            }
        }
    }
}
