//! The rows of issue #10's table: paths every earlier wr-core allowed and
//! the spec's algorithm denies. Each is denied now, by the rule and in the
//! reading that decides it, in both models (`docs/conformance.md`, "the
//! strictest reading wins").

use wr_core::robots::{Policy, Reading, RuleKind};

/// `(name, robots.txt, path, deciding line, reading that denies)`.
const ROWS: &[(&str, &str, &str, u32, Reading)] = &[
    (
        "no implied /dir/$ Allow (9.1.4)",
        "User-agent: *\nDisallow: /freecharts/\nAllow: /freecharts/index.html\n",
        "/freecharts/",
        2,
        Reading::Spec,
    ),
    (
        "an expanded * counts what it consumed (9.1.4)",
        "User-agent: *\nAllow: /wp-content/uploads/\nDisallow: */trackback/\n",
        "/wp-content/uploads/x/trackback/",
        3,
        Reading::Spec,
    ),
    (
        "Crawl-delay is a rule line (9.1.2)",
        "User-agent: Walsh-Research\nCrawl-delay: 5\nUser-agent: OtherBot\nAllow: /private/x\n\nUser-agent: Walsh-Research\nDisallow: /private\n",
        "/private/x",
        7,
        Reading::Spec,
    ),
    (
        "Walsh-Research2 is not our token nor a prefix of it (9.1.3)",
        "User-agent: Walsh-Research2\nAllow: /private\n\nUser-agent: Walsh-Research\nDisallow: /private\n",
        "/private",
        5,
        Reading::Spec,
    ),
    (
        "Allow-ads is not the field Allow (9.1.2)",
        "User-agent: *\nDisallow: /\nAllow-ads: /\n",
        "/page",
        2,
        Reading::Spec,
    ),
];

#[test]
fn every_row_is_denied_by_its_rule_in_its_reading() {
    for &(name, body, path, line, reading) in ROWS {
        let policy = Policy::parse(body.as_bytes(), "Walsh-Research");
        let v = policy.check(path);
        assert!(!v.allowed, "{name}: {v}");
        let rule = v.rule.expect("a rule decides");
        assert_eq!(rule.kind, RuleKind::Disallow, "{name}");
        assert_eq!((rule.line, v.reading), (line, reading), "{name}: {v}");
    }
}

#[cfg(feature = "heapless")]
#[test]
fn every_row_is_denied_in_fixed_capacity() {
    use wr_core::robots::fixed::FixedPolicy;
    for &(name, body, path, ..) in ROWS {
        let p = FixedPolicy::<16, 512>::parse(body.as_bytes(), "Walsh-Research");
        assert!(!p.overflowed(), "{name}");
        assert!(!p.check(path).allowed, "{name}");
    }
}

#[test]
fn the_crawl_delay_of_every_reading_applies() {
    // In the spec's grouping the delay is Walsh-Research's alone; in
    // Google's it is the merged group's. Either way it is ours.
    let p = Policy::parse(ROWS[2].1.as_bytes(), "Walsh-Research");
    assert_eq!(p.crawl_delay().map(|d| d.0.as_secs()), Some(5));
    // Google's grouping lets a Crawl-delay reach a group the spec's does
    // not give it to: the larger of the two wins.
    let body = "User-agent: OtherBot\nCrawl-delay: 9\nUser-agent: Walsh-Research\nDisallow: /x\n";
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    assert_eq!(p.crawl_delay().map(|d| d.0.as_secs()), Some(9));
}

#[test]
fn each_reading_denies_on_its_own() {
    // RFC 9309's precedence: the Disallow pattern is longer (7 octets
    // against 6), though its `*` consumed nothing: a tie in the spec's
    // reading, which Allow wins.
    let body = "User-agent: *\nAllow: /a/b/c\nDisallow: /a*/b/c\n";
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    let v = p.check("/a/b/c/x");
    assert_eq!((v.allowed, v.reading), (false, Reading::Rfc9309), "{v}");
    // RFC 9309's table: a raw `/` in the query is compared encoded.
    let body = "User-agent: *\nDisallow: /go?to=https://\n";
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    let v = p.check("/go?to=https%3A%2F%2Fx");
    assert_eq!((v.allowed, v.reading), (false, Reading::Rfc9309), "{v}");
    assert!(p.check("/go?to=http%3A%2F%2Fx").allowed);
    // Google's tolerance: a misspelt Disallow denies, and says where.
    let body = "User-agent: *\nDissallow: /tmp\n";
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    let v = p.check("/tmp/x");
    assert_eq!((v.allowed, v.reading), (false, Reading::Google), "{v}");
    assert!(v.to_string().ends_with("in Google's reading"), "{v}");
    // ... and a misspelt Allow never allows.
    let body = "User-agent: *\nDisallow: /\nAllow /public\nAlow: /public\n";
    assert!(
        !Policy::parse(body.as_bytes(), "Walsh-Research")
            .check("/public")
            .allowed
    );
}

#[test]
fn a_tie_still_goes_to_allow() {
    // Same literal value: equal length in every reading, Allow wins.
    let body = "User-agent: *\nDisallow: /a\nAllow: /a\n";
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    let v = p.check("/a/x");
    assert!(v.allowed, "{v}");
    assert_eq!(v.rule.map(|r| r.line), Some(3));
}
