//! Parsing edges of section 9.1.1-9.1.2 checked on whole bodies: what does
//! not close a group, and the 500 KiB cut.

use std::time::Duration;
use wr_core::constants::ROBOTS_MAX_BYTES;
use wr_core::robots::{Policy, Selected};

#[test]
fn crawl_delay_sitemap_and_unknown_lines_do_not_close_a_group() {
    for between in [
        "Crawl-delay: 5",
        "Sitemap: https://a.test/s.xml",
        "Host: a.test",
    ] {
        let body = format!(
            "User-agent: OtherBot\n{between}\nUser-agent: Walsh-Research\nDisallow: /x\n\
             User-agent: *\nDisallow: /\n"
        );
        let p = Policy::parse(body.as_bytes(), "Walsh-Research");
        assert_eq!(p.selected(), Selected::Named, "{between}");
        assert!(!p.check("/x").allowed, "{between}");
        assert!(p.check("/y").allowed, "{between}");
        // The Crawl-delay belongs to the one group both agents share.
        let want = between.starts_with("Crawl").then(|| Duration::from_secs(5));
        assert_eq!(p.crawl_delay().map(|d| d.0), want, "{between}");
    }
}

#[test]
fn only_the_first_500_kib_are_read() {
    let head = "User-agent: *\nDisallow: /early\n";
    let mut body = String::from(head);
    while body.len() < ROBOTS_MAX_BYTES - 100 {
        body.push_str("# filler filler filler filler filler filler filler\n");
    }
    // Pad so the next line ends exactly at the limit: it is kept.
    let last = "Disallow: /at-limit\n";
    while body.len() + last.len() < ROBOTS_MAX_BYTES {
        body.push('\n');
    }
    body.push_str(last);
    assert_eq!(body.len(), ROBOTS_MAX_BYTES);
    body.push_str("Allow: /early/open\nDisallow: /late\n");
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    assert!(p.truncated());
    assert!(!p.check("/early").allowed);
    assert!(
        !p.check("/at-limit").allowed,
        "a line ending at 500 KiB is read"
    );
    assert!(p.check("/late").allowed, "rules past 500 KiB are not read");
    assert!(
        !p.check("/early/open").allowed,
        "an Allow past 500 KiB opens nothing"
    );

    // An Allow straddling the limit is dropped whole, never cut short.
    let mut body = String::from("User-agent: *\nDisallow: /a\n");
    while body.len() < ROBOTS_MAX_BYTES - 10 {
        body.push('\n');
    }
    body.push_str("Allow: /a/b-much-longer\n");
    let p = Policy::parse(body.as_bytes(), "Walsh-Research");
    assert!(p.truncated());
    assert!(!p.check("/a/b").allowed);

    let small = Policy::parse(head.as_bytes(), "Walsh-Research");
    assert!(!small.truncated());
}

#[test]
fn merged_groups_keep_the_largest_crawl_delay() {
    for body in [
        "User-agent: Walsh-Research\nCrawl-delay: 5\nDisallow: /a\n\nUser-agent: walsh-research\nCrawl-delay: 2\n",
        "User-agent: walsh-research\nCrawl-delay: 2\nDisallow: /a\n\nUser-agent: Walsh-Research\nCrawl-delay: 5\n",
    ] {
        let p = Policy::parse(body.as_bytes(), "Walsh-Research");
        assert_eq!(p.crawl_delay().map(|d| d.0), Some(Duration::from_secs(5)), "{body}");
    }
}

/// A Disallow straddling the 500 KiB limit is read cut short: its start
/// matches every path the whole rule matched, and it outranks the file's
/// Allows, as the whole (longer) rule would have. A cut `$` or escape at
/// the limit, and a split UTF-8 character, are dropped so the cut stays a
/// superset. Dropping the line, as before, allowed all of `/a/b...`.
#[test]
fn a_disallow_straddling_the_limit_is_kept_cut_short() {
    let build = |prefix: &str, straddler: &[u8]| -> Vec<u8> {
        let mut body = String::from(prefix).into_bytes();
        let cut = ROBOTS_MAX_BYTES - 12;
        while body.len() < cut {
            body.push(b'\n');
        }
        body.extend_from_slice(straddler);
        body.extend_from_slice(b"\nDisallow: /late\n");
        body
    };
    let prefix = "User-agent: *\nAllow: /a/b/c\nDisallow: /zz\n";
    // 12 octets fit: "Disallow: /a" is read, "/b/c/d-secret" is not.
    let body = build(prefix, b"Disallow: /a/b/c/d-secret");
    let robots = wr_core::robots::Robots::parse(&body);
    #[cfg_attr(not(feature = "heapless"), allow(unused_mut))]
    let mut verdicts = vec![
        (
            "Policy",
            Policy::parse(&body, "Walsh-Research")
                .check("/a/b/c/d-secret")
                .allowed,
        ),
        (
            "Robots",
            robots
                .policy("Walsh-Research")
                .check("/a/b/c/d-secret")
                .allowed,
        ),
    ];
    // The fixed-capacity policy exists in the `heapless` build only.
    #[cfg(feature = "heapless")]
    verdicts.push((
        "FixedPolicy",
        wr_core::robots::fixed::FixedPolicy::<8, 256>::parse(&body, "Walsh-Research")
            .check("/a/b/c/d-secret")
            .allowed,
    ));
    for (what, allowed) in verdicts {
        assert!(
            !allowed,
            "{what}: the cut Disallow must deny what the whole one denied"
        );
    }
    let p = Policy::parse(&body, "Walsh-Research");
    assert!(p.truncated());
    assert!(
        !p.check("/a/b/c").allowed,
        "the cut rule outranks the Allow"
    );
    assert!(
        p.check("/b").allowed,
        "the cut rule is no wider than its prefix"
    );
    assert!(p.check("/late").allowed, "nothing after the limit is read");

    // The cut leaves `/a%4` or `/a$`: both read as the prefix `/a`.
    for straddler in [&b"Disallow: /a%41-rest"[..], b"Disallow: /a$bc-rest"] {
        let body = build("User-agent: *\n", straddler);
        let p = Policy::parse(&body, "Walsh-Research");
        assert!(
            !p.check("/aA-rest").allowed,
            "{}",
            String::from_utf8_lossy(straddler)
        );
        assert!(
            !p.check("/a$bc-rest").allowed,
            "{}",
            String::from_utf8_lossy(straddler)
        );
    }
    // A character split by the limit is not half kept: "Disallow: /é"
    // where only the first octet of é fits reads as "/", denying all.
    let mut s = b"Disallow: /".to_vec();
    s.extend_from_slice("é-rest".as_bytes());
    let body = build("User-agent: *\n", &s);
    assert_eq!(body[ROBOTS_MAX_BYTES - 1], 0xC3);
    let p = Policy::parse(&body, "Walsh-Research");
    assert!(!p.check("/%C3%A9-rest").allowed);
    assert!(!p.check("/x").allowed, "cut to `/`: a superset, denies all");

    // Outside any group, or not a Disallow: nothing is read from the cut.
    let body = build(
        "User-agent: *\nDisallow: /zz\n",
        b"Allow: /zz/open-and-more",
    );
    assert!(
        !Policy::parse(&body, "Walsh-Research")
            .check("/zz/open")
            .allowed
    );
    let body = build("# no group\n", b"Disallow: /a/b/c/d-secret");
    assert!(
        Policy::parse(&body, "Walsh-Research")
            .check("/a/b/c/d-secret")
            .allowed
    );
}
