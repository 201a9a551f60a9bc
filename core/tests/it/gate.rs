//! The pre-request gate (section 7): order R3 -> R2 -> R4, permits, holds,
//! caches, all on a caller-supplied clock.

use core::time::Duration;
use wr_core::blocklist::{BlockedDomain, Blocklist};
use wr_core::gate::{Decision, Gate, GateConfig, Purpose, WaitReason, REFRESH_RETRY};
use wr_core::time::Timestamp;
use wr_core::url::Url;

const T0: Timestamp = Timestamp(1_779_494_400_000); // 2026-05-23T00:00:00Z

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn blocklist() -> Blocklist {
    Blocklist::new(
        "walsh-research-blocklist/v1",
        Some("PT6H"),
        [BlockedDomain::new(
            "example.com",
            "2026-05-23",
            "email opt-out",
        )],
    )
    .unwrap()
}

fn gate_with(robots: &[(&str, &str)]) -> Gate {
    let mut g = Gate::new(GateConfig::default());
    g.blocklist_adopted(blocklist(), T0);
    for (url, body) in robots {
        g.robots_fetched(&Url::parse(url).unwrap(), body.as_bytes(), T0);
    }
    g
}

#[test]
fn blocklist_is_needed_before_anything_else() {
    let g = Gate::new(GateConfig::default());
    assert_eq!(g.check("https://a.test/x", T0), Decision::NeedBlocklist);
}

#[test]
fn r3_before_r2_a_blocked_host_is_denied_even_with_robots_unknown() {
    let g = gate_with(&[]);
    match g.check("https://WWW.Example.COM:8443/anything", T0) {
        Decision::DenyBlocklist(d) => assert_eq!(d.domain, "example.com"),
        d => panic!("{d:?}"),
    }
    // ... and its robots.txt is not fetched either.
    let mut g = g;
    assert!(matches!(
        g.admit_robots("https://www.example.com/", T0),
        Err(Decision::DenyBlocklist(_))
    ));
}

#[test]
fn r2_robots_needed_then_obeyed_with_the_rule_named() {
    let mut g = gate_with(&[]);
    assert_eq!(
        g.check("https://a.test/private/x", T0),
        Decision::NeedRobots("https://a.test/robots.txt".into())
    );
    g.robots_fetched(
        &Url::parse("https://a.test/").unwrap(),
        b"User-agent: *\nDisallow: /private\n",
        T0,
    );
    match g.check("https://a.test/private/x", T0) {
        Decision::DenyRobots(v) => {
            let rule = v.rule.expect("a rule denies");
            assert_eq!(rule.pattern, b"/private");
            assert_eq!(rule.line, 2);
        }
        d => panic!("{d:?}"),
    }
    assert_eq!(g.check("https://a.test/public", T0), Decision::Ready);
    // robots.txt is per origin: http and another port need their own.
    assert_eq!(
        g.check("http://a.test/public", T0),
        Decision::NeedRobots("http://a.test/robots.txt".into())
    );
    assert_eq!(
        g.check("https://a.test:8443/public", T0),
        Decision::NeedRobots("https://a.test:8443/robots.txt".into())
    );
}

#[test]
fn r4_unseen_host_goes_at_once_then_spacing_is_max_of_1s_and_crawl_delay() {
    let mut g = gate_with(&[
        ("https://fast.test/", "User-agent: *\nDisallow:\n"),
        (
            "https://slow.test/",
            "User-agent: Walsh-Research\nCrawl-delay: 2.5\n",
        ),
    ]);
    let p = g
        .admit("https://fast.test/a", T0)
        .expect("unseen host is not delayed");
    assert_eq!(
        (p.purpose(), p.host(), p.at()),
        (Purpose::Target, "fast.test", T0)
    );
    assert_eq!(
        g.admit("https://fast.test/b", T0.saturating_add(ms(999))),
        Err(Decision::Wait {
            until: T0.saturating_add(ms(1000)),
            reason: WaitReason::Throttle
        })
    );
    assert!(g
        .admit("https://fast.test/b", T0.saturating_add(ms(1000)))
        .is_ok());

    assert!(
        g.admit("https://slow.test/a", T0).is_ok(),
        "another host is independent"
    );
    assert_eq!(
        g.check("https://slow.test/b", T0.saturating_add(ms(2000))),
        Decision::Wait {
            until: T0.saturating_add(ms(2500)),
            reason: WaitReason::Throttle
        }
    );
    assert_eq!(g.spacing("slow.test"), ms(2500));
}

#[test]
fn r4_a_sub_millisecond_crawl_delay_is_never_shortened() {
    let mut g = gate_with(&[(
        "https://frac.test/",
        "User-agent: Walsh-Research\nCrawl-delay: 2.0005\n",
    )]);
    assert!(g.admit("https://frac.test/a", T0).is_ok());
    // 2000 ms after the request is 0.5 ms short of the Crawl-delay.
    assert_eq!(
        g.admit("https://frac.test/b", T0.saturating_add(ms(2000))),
        Err(Decision::Wait {
            until: T0.saturating_add(ms(2001)),
            reason: WaitReason::Throttle
        })
    );
    assert_eq!(g.next_slot("frac.test"), Some(T0.saturating_add(ms(2001))));
    assert!(g
        .admit("https://frac.test/b", T0.saturating_add(ms(2001)))
        .is_ok());
}

#[test]
fn r4_every_request_to_a_host_counts_robots_and_operator_fetches_included() {
    let mut g = gate_with(&[]);
    let p = g.admit_robots("https://a.test/page", T0).unwrap();
    assert_eq!(
        (p.url(), p.purpose()),
        ("https://a.test/robots.txt", Purpose::Robots)
    );
    g.robots_not_found(&Url::parse("https://a.test/").unwrap(), T0);
    assert!(matches!(
        g.admit("https://a.test/page", T0.saturating_add(ms(10))),
        Err(Decision::Wait { .. })
    ));
    let mut g = Gate::new(GateConfig::default());
    assert!(g
        .admit_operator(
            "https://wal.sh/.well-known/walsh-research/blocklist.json",
            T0
        )
        .is_ok());
    assert!(matches!(
        g.admit_operator(
            "https://wal.sh/.well-known/walsh-research/test-fixtures.json",
            T0
        ),
        Err(Decision::Wait { .. })
    ));
}

#[test]
fn r4a_requests_seen_by_another_process_are_respected() {
    let mut g = gate_with(&[("https://a.test/", "")]);
    g.observe_request("a.test", T0.saturating_add(ms(500)));
    g.observe_request("a.test", T0); // never moves the schedule back
    assert_eq!(
        g.check("https://a.test/x", T0.saturating_add(ms(600))),
        Decision::Wait {
            until: T0.saturating_add(ms(1500)),
            reason: WaitReason::Throttle
        }
    );
}

#[test]
fn r5_holds_delay_a_host_and_are_never_shortened() {
    let mut g = gate_with(&[("https://a.test/", "")]);
    let until = T0.saturating_add(Duration::from_secs(30));
    g.hold_host("a.test", until, WaitReason::Backoff);
    g.hold_host("a.test", T0.saturating_add(ms(10)), WaitReason::Backoff);
    assert_eq!(
        g.check("https://a.test/x", T0),
        Decision::Wait {
            until,
            reason: WaitReason::Backoff
        }
    );
    let later = T0.saturating_add(Duration::from_secs(3600));
    g.hold_host("a.test", later, WaitReason::Cooldown);
    assert_eq!(
        g.check("https://a.test/x", until),
        Decision::Wait {
            until: later,
            reason: WaitReason::Cooldown
        }
    );
    assert_eq!(g.check("https://a.test/x", later), Decision::Ready);
}

#[test]
fn r2_cache_ttl_and_unreachable_robots() {
    let mut g = gate_with(&[("https://a.test/", "User-agent: *\nDisallow: /p\n")]);
    let day = T0.saturating_add(Duration::from_secs(86_400));
    g.blocklist_adopted(blocklist(), day);
    // R12 block-on-refresh: a stale copy is refreshed before it answers,
    // whether it would allow...
    assert_eq!(
        g.check("https://a.test/x", day),
        Decision::NeedRobots("https://a.test/robots.txt".into())
    );
    // ...or deny: otherwise a host whose every URL the stale copy denies
    // would never be refreshed, and a lifted Disallow never honoured.
    assert_eq!(
        g.check("https://a.test/p", day),
        Decision::NeedRobots("https://a.test/robots.txt".into())
    );
    // Nothing is admitted to that origin before the refresh.
    assert!(g.admit("https://a.test/p", day).is_err());
    assert!(g.admit("https://a.test/x", day).is_err());
    // A failed refresh keeps the cached copy in force (no silent disallow).
    let status = |status| wr_core::outcome::Unreachable::Answered {
        url: "https://a.test/robots.txt".into(),
        cause: wr_core::outcome::Cause::Status { status },
    };
    assert!(g.robots_unreachable(&Url::parse("https://a.test/").unwrap(), day, &status(503)));
    assert_eq!(g.check("https://a.test/x", day), Decision::Ready);
    assert!(matches!(
        g.check("https://a.test/p", day),
        Decision::DenyRobots(_)
    ));
    // Nothing cached: the host is deferred, then retried later.
    let timeout = wr_core::outcome::Unreachable::Transport {
        kind: wr_core::fetch::FailureKind::TimedOut,
        detail: "timeout".into(),
    };
    assert!(!g.robots_unreachable(&Url::parse("https://b.test/").unwrap(), T0, &timeout));
    assert!(matches!(
        g.check("https://b.test/x", T0),
        Decision::Deferred { reason, .. } if *reason == timeout
    ));
    let retry = T0.saturating_add(REFRESH_RETRY);
    assert_eq!(
        g.check("https://b.test/x", retry),
        Decision::NeedRobots("https://b.test/robots.txt".into())
    );
}

#[test]
fn r12_a_lifted_disallow_is_honoured_after_the_ttl() {
    let mut g = gate_with(&[("https://a.test/", "User-agent: *\nDisallow: /p\n")]);
    assert!(matches!(
        g.check("https://a.test/p", T0),
        Decision::DenyRobots(_)
    ));
    let day = T0.saturating_add(Duration::from_secs(86_400));
    g.blocklist_adopted(blocklist(), day);
    // The stale copy asks for a refresh even for the path it denies...
    assert_eq!(
        g.check("https://a.test/p", day),
        Decision::NeedRobots("https://a.test/robots.txt".into())
    );
    // ...and the publisher's new robots.txt decides.
    g.robots_fetched(
        &Url::parse("https://a.test/").unwrap(),
        b"User-agent: *\nAllow: /\n",
        day,
    );
    assert_eq!(g.check("https://a.test/p", day), Decision::Ready);
}

#[test]
fn robots_redirect_hops_pass_r3_and_r4_and_permit_exactly_the_hop() {
    let mut g = gate_with(&[]);
    // A robots.txt redirect to a host on the blocklist is refused (R3).
    assert!(matches!(
        g.admit_robots_hop("https://www.example.com/robots.txt", T0),
        Err(Decision::DenyBlocklist(_))
    ));
    // Elsewhere the hop takes its host's slot, for exactly its URL...
    let p = g
        .admit_robots_hop("https://cdn.test/sites/a/robots.txt", T0)
        .unwrap();
    assert_eq!(
        (p.url(), p.purpose(), p.host()),
        (
            "https://cdn.test/sites/a/robots.txt",
            Purpose::Robots,
            "cdn.test"
        )
    );
    // ...and the next request to that host waits its turn (R4).
    assert!(matches!(
        g.admit_robots_hop(
            "https://cdn.test/sites/b/robots.txt",
            T0.saturating_add(ms(10))
        ),
        Err(Decision::Wait { .. })
    ));
}

#[test]
fn r3b_blocklist_refresh_and_failures() {
    let mut g = gate_with(&[("https://a.test/", "")]);
    let stale = T0.saturating_add(Duration::from_secs(6 * 3600));
    assert_eq!(g.check("https://a.test/x", stale), Decision::NeedBlocklist);
    assert!(matches!(
        g.check("https://example.com/", stale),
        Decision::DenyBlocklist(_)
    ));
    // A failed refresh keeps the list and does not ask again at once.
    g.blocklist_failed(stale);
    assert!(!g.blocklist_is_fallback());
    assert!(matches!(
        g.check("https://example.com/", stale),
        Decision::DenyBlocklist(_)
    ));
    assert_eq!(g.check("https://a.test/x", stale), Decision::Ready);
    // First-ever failure: an empty list, fail open, flagged.
    let mut fresh = Gate::new(GateConfig::default());
    fresh.blocklist_failed(T0);
    assert!(fresh.blocklist_is_fallback());
    assert_eq!(
        fresh.check("https://example.com/", T0),
        Decision::NeedRobots("https://example.com/robots.txt".into())
    );
}

#[test]
fn redirect_hops_and_retries_pass_the_whole_gate_again() {
    let mut g = gate_with(&[("https://a.test/", "User-agent: *\nDisallow: /secret\n")]);
    assert!(g.admit("https://a.test/start", T0).is_ok());
    // A Location to a blocked host or a disallowed path is refused.
    assert!(matches!(
        g.admit("https://www.example.com/x", T0),
        Err(Decision::DenyBlocklist(_))
    ));
    let later = T0.saturating_add(Duration::from_secs(5));
    assert!(matches!(
        g.admit("https://a.test/secret/x", later),
        Err(Decision::DenyRobots(_))
    ));
    // A retry of an allowed URL is throttled like any request.
    assert!(g.admit("https://a.test/start", later).is_ok());
    assert!(matches!(
        g.admit("https://a.test/start", later),
        Err(Decision::Wait { .. })
    ));
}

#[test]
fn invalid_urls_are_refused_not_guessed() {
    let mut g = gate_with(&[]);
    assert!(matches!(
        g.admit("ftp://a.test/", T0),
        Err(Decision::Invalid(_))
    ));
    assert!(matches!(
        g.admit("not a url", T0),
        Err(Decision::Invalid(_))
    ));
}

#[test]
fn next_slot_agrees_with_the_wait_the_gate_would_answer() {
    let mut g = gate_with(&[("https://slow.test/", "User-agent: *\nCrawl-delay: 3\n")]);
    assert_eq!(
        g.next_slot("slow.test"),
        None,
        "unseen host: no slot to wait for"
    );
    g.admit("https://slow.test/a", T0).unwrap();
    let spaced = T0.saturating_add(ms(3000));
    assert_eq!(g.next_slot("slow.test"), Some(spaced));
    assert_eq!(
        g.check("https://slow.test/b", T0),
        Decision::Wait {
            until: spaced,
            reason: WaitReason::Throttle
        }
    );
    // A hold later than the spacing wins; an earlier one changes nothing.
    g.hold_host(
        "slow.test",
        T0.saturating_add(ms(1000)),
        WaitReason::Backoff,
    );
    assert_eq!(g.next_slot("slow.test"), Some(spaced));
    let held = T0.saturating_add(ms(9000));
    g.hold_host("slow.test", held, WaitReason::Backoff);
    assert_eq!(g.next_slot("slow.test"), Some(held));
    // A hold on a host never asked.
    g.hold_host("new.test", held, WaitReason::Cooldown);
    assert_eq!(g.next_slot("new.test"), Some(held));
}

#[test]
fn the_operator_exemption_covers_only_the_section_5_resources() {
    let mut g = Gate::new(GateConfig {
        operator_base: "https://mirror.test".to_string(),
        ..GateConfig::default()
    });
    for path in [
        "/.well-known/walsh-research/blocklist.json",
        "/.well-known/walsh-research/blocklist.schema.json",
        "/.well-known/walsh-research/test-fixtures.json",
        "/robots.txt",
    ] {
        let url = format!("https://mirror.test{path}");
        // A fresh gate each time, so the slot is free.
        let mut fresh = Gate::new(g.config().clone());
        let p = fresh
            .admit_operator(&url, T0)
            .expect("a section 5 resource");
        assert_eq!((p.url(), p.purpose()), (url.as_str(), Purpose::Operator));
    }
    for url in [
        // Anything else on the operator host, another host's copy of the
        // path, the default base when a mirror is configured, a prefix
        // trick and a dot segment: all must go through `admit`.
        "https://mirror.test/research/bots/dogfood-disallow",
        "https://example.com/.well-known/walsh-research/blocklist.json",
        "https://wal.sh/.well-known/walsh-research/blocklist.json",
        "https://mirror.test.evil/.well-known/walsh-research/blocklist.json",
        "https://mirror.test:8443/.well-known/walsh-research/blocklist.json",
        "http://mirror.test/.well-known/walsh-research/blocklist.json",
        "https://mirror.test/.well-known/walsh-research/blocklist.json?x",
        "https://mirror.test/.well-known/walsh-research/blocklist.json#x",
        "https://mirror.test/./.well-known/walsh-research/blocklist.json",
        "https://x@mirror.test/.well-known/walsh-research/blocklist.json",
    ] {
        assert_eq!(
            g.admit_operator(url, T0),
            Err(Decision::NotOperatorResource),
            "{url}"
        );
    }
    assert_eq!(
        Gate::new(GateConfig::default())
            .admit_operator(
                "https://wal.sh/.well-known/walsh-research/blocklist.json",
                T0
            )
            .map(|p| p.purpose()),
        Ok(Purpose::Operator)
    );
    // The origin matches as one: case and an explicit default port do not
    // matter, a trailing slash on the base does not either.
    let mut g = Gate::new(GateConfig {
        operator_base: "HTTPS://Mirror.Test:443/".to_string(),
        ..GateConfig::default()
    });
    assert!(g
        .admit_operator("https://mirror.test/robots.txt", T0)
        .is_ok());
}

#[test]
fn an_operator_base_that_is_not_an_origin_exempts_nothing() {
    // Issue #11: `WR_OPERATOR_BASE=https://blocked.example/#` made the bot
    // GET https://blocked.example/ with no blocklist or robots.txt check,
    // through a string-prefix match of base + resource path.
    for base in [
        "https://blocked.example/#",
        "https://blocked.example/?",
        "https://blocked.example/wr",
        "https://user@blocked.example",
    ] {
        let mut g = Gate::new(GateConfig {
            operator_base: base.to_string(),
            ..GateConfig::default()
        });
        for path in ["/.well-known/walsh-research/blocklist.json", "/robots.txt"] {
            let url = format!("{base}{path}");
            assert_eq!(
                g.admit_operator(&url, T0),
                Err(Decision::NotOperatorResource),
                "{url}"
            );
        }
    }
}

/// Issue #18: one trailing-dot rule for every host comparison. R3 stripped
/// one trailing dot while R4's throttle key and the robots.txt origin
/// stripped all, so `example.com..` shared `example.com`'s spacing and
/// robots.txt but was not blocked with it. Every comparison now strips
/// every trailing dot (`wr_core::domain::strip_trailing_dots`), with and
/// without a port.
#[test]
fn every_host_comparison_strips_every_trailing_dot() {
    use wr_core::gate::{host_key, origin_key, robots_url};
    let key = |u: &str| host_key(&Url::parse(u).unwrap()).as_str().to_string();
    let origin = |u: &str| origin_key(&Url::parse(u).unwrap()).as_str().to_string();
    let robots = |u: &str| robots_url(&Url::parse(u).unwrap());
    for (spelt, bare) in [
        ("https://a.test./x", "https://a.test/x"),
        ("https://a.test../x", "https://a.test/x"),
        ("https://A.Test...:8443/x", "https://a.test:8443/x"),
        ("http://a.test..:80/x", "http://a.test/x"),
    ] {
        assert_eq!(key(spelt), key(bare), "R4 throttle key of {spelt}");
        assert_eq!(origin(spelt), origin(bare), "robots.txt origin of {spelt}");
        assert_eq!(robots(spelt), robots(bare), "robots.txt URL of {spelt}");
    }
    assert_eq!(key("https://a.test..:8443/"), "a.test:8443");

    // R3: a listed domain blocks every spelling, port or not, and so does a
    // listed domain written with dots.
    let g = gate_with(&[]);
    for url in [
        "https://example.com../",
        "https://www.example.com...:8443/feed",
        "http://EXAMPLE.COM.:80/",
    ] {
        assert!(
            matches!(g.check(url, T0), Decision::DenyBlocklist(d) if d.domain == "example.com"),
            "{url}"
        );
    }
    let mut dotted = Gate::new(GateConfig::default());
    dotted.blocklist_adopted(
        Blocklist::new(
            "walsh-research-blocklist/v1",
            None,
            [BlockedDomain::new("example.org..", "2026-05-23", "dots")],
        )
        .unwrap(),
        T0,
    );
    assert!(matches!(
        dotted.check("https://www.example.org:8443/", T0),
        Decision::DenyBlocklist(_)
    ));

    // R4: one schedule for every spelling.
    let mut g = gate_with(&[("https://a.test/", "")]);
    assert!(g.admit("https://a.test/1", T0).is_ok());
    assert!(matches!(
        g.admit("https://a.test../2", T0.saturating_add(ms(500))),
        Err(Decision::Wait {
            reason: WaitReason::Throttle,
            ..
        })
    ));

    // The operator's section 5 origin is compared the same way: its
    // resources under any spelling of its host are the operator's (and
    // share its schedule), a dotted spelling of another host is not.
    let mut op = Gate::new(GateConfig {
        operator_base: "https://mirror.test..".to_string(),
        ..GateConfig::default()
    });
    let p = op
        .admit_operator(
            "https://mirror.test./.well-known/walsh-research/blocklist.json",
            T0,
        )
        .expect("the operator's own resource");
    assert_eq!(p.host(), "mirror.test");
    assert_eq!(
        op.admit_operator(
            "https://mirror.test.evil../.well-known/walsh-research/blocklist.json",
            T0
        ),
        Err(Decision::NotOperatorResource)
    );
}
