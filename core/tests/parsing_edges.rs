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
