//! The rows of issue #10's table: paths every earlier wr-core allowed and
//! the spec's algorithm denies. Each is denied now, by the rule and in the
//! reading that decides it, in both models (`docs/conformance.md`, "the
//! strictest reading wins").

use wr_conformance::robots_cases::{under_blocking_table, Case, TOKEN};
use wr_core::robots::{Policy, Reading, RuleKind};

/// Each row (from `wr_conformance`'s built-in cases) with the line of the
/// rule that denies it and the reading that does.
fn rows() -> Vec<(&'static Case, u32, Reading)> {
    let expected = [
        (2, Reading::Spec), // no implied /dir/$ Allow (9.1.4)
        (3, Reading::Spec), // an expanded * counts what it consumed (9.1.4)
        (7, Reading::Spec), // Crawl-delay is a rule line (9.1.2)
        (5, Reading::Spec), // Walsh-Research2 is neither T nor a prefix (9.1.3)
        (2, Reading::Spec), // Allow-ads is not the field Allow (9.1.2)
    ];
    let table: Vec<&Case> = under_blocking_table().collect();
    assert_eq!(table.len(), expected.len(), "the table has five rows");
    table
        .into_iter()
        .zip(expected)
        .map(|(c, (line, reading))| (c, line, reading))
        .collect()
}

#[test]
fn every_row_is_denied_by_its_rule_in_its_reading() {
    for (case, line, reading) in rows() {
        let name = case.name;
        let policy = Policy::parse(case.body.as_bytes(), TOKEN);
        let v = policy.check(case.path);
        assert!(!v.allowed, "{name}: {v:?}");
        let rule = v.rule.expect("a rule decides");
        assert_eq!(rule.kind, RuleKind::Disallow, "{name}");
        assert_eq!((rule.line, v.reading), (line, reading), "{name}: {v:?}");
    }
}

#[cfg(feature = "heapless")]
#[test]
fn every_row_is_denied_in_fixed_capacity() {
    use wr_core::robots::fixed::FixedPolicy;
    for (case, ..) in rows() {
        let p = FixedPolicy::<16, 512>::parse(case.body.as_bytes(), TOKEN);
        assert!(!p.overflowed(), "{}", case.name);
        assert!(!p.check(case.path).allowed, "{}", case.name);
    }
}

#[test]
fn the_crawl_delay_of_every_reading_applies() {
    // In the spec's grouping the delay is Walsh-Research's alone; in
    // Google's it is the merged group's. Either way it is ours.
    let p = Policy::parse(rows()[2].0.body.as_bytes(), TOKEN);
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
    assert_eq!((v.allowed, v.reading), (false, Reading::Rfc9309), "{v:?}");
    // RFC 9309's table: a raw `/` in the query is compared encoded.
    let body = "User-agent: *\nDisallow: /go?to=https://\n";
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    let v = p.check("/go?to=https%3A%2F%2Fx");
    assert_eq!((v.allowed, v.reading), (false, Reading::Rfc9309), "{v:?}");
    assert!(p.check("/go?to=http%3A%2F%2Fx").allowed);
    // Google's tolerance: a misspelt Disallow denies, and says where.
    let body = "User-agent: *\nDissallow: /tmp\n";
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    let v = p.check("/tmp/x");
    assert_eq!((v.allowed, v.reading), (false, Reading::Google), "{v:?}");
    assert_eq!(v.rule.map(|r| (r.pattern, r.line)), Some((&b"/tmp"[..], 2)));
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
    assert!(v.allowed, "{v:?}");
    assert_eq!(v.rule.map(|r| r.line), Some(3));
}
