//! The fetch machines driven directly: made-up responses and instants, no
//! server, no sleeping. Each test names the decision it pins down.
#![cfg(feature = "alloc")]

use std::time::Duration;
use wr_core::backoff::Backoff;
use wr_core::blocklist::{BlockedDomain, Blocklist};
use wr_core::fetch::driver::{self, Answer, Runtime};
use wr_core::fetch::{
    Action, BlocklistRefresh, BodyLimit, Check, Checked, Ctx, Effect, Failure, FailureKind, Get,
    GetOutcome, Machine, Parser, RefreshEvent, Refreshed, Request, Response, Run, SourceEvent,
    SourceFetch, SourceOutcome, Stage, Stored,
};
use wr_core::gate::{Decision, Gate, GateConfig, WaitReason};
use wr_core::outcome::{BlocklistCause, Cause, Deferral, LeftOut, Notice, SourceFailure};
use wr_core::robots::{Reading, RuleKind};
use wr_core::time::Timestamp;

const T0: Timestamp = Timestamp(1_700_000_000_000);
const OPERATOR: &str = "https://wal.sh";

fn gate_with(list: &[&str]) -> Gate {
    let mut gate = Gate::new(GateConfig {
        operator_base: OPERATOR.into(),
        ..GateConfig::default()
    });
    let list = Blocklist::new(
        "walsh-research-blocklist/v1",
        Some("PT24H"),
        list.iter()
            .map(|d| BlockedDomain::new(d, "2026-01-01", "opted out")),
    )
    .unwrap();
    gate.blocklist_adopted(list, T0);
    gate
}

fn resp(status: u16) -> Response {
    Response {
        status,
        ..Response::default()
    }
}

fn with(status: u16, f: impl FnOnce(&mut Response)) -> Response {
    let mut r = resp(status);
    f(&mut r);
    r
}

/// What a test server would answer, by URL.
type Server<'a> = dyn FnMut(&Request) -> Result<Response, Failure> + 'a;

/// What the machines of one test share, and what they did: driven by the
/// same loop as the feeds pipeline ([`driver::finish`]) on a fake clock
/// that jumps instead of sleeping, recording every request sent and every
/// effect.
struct Harness {
    gate: Gate,
    run: Run,
    now: Timestamp,
    sent: Vec<(Timestamp, String)>,
    effects: Vec<Effect>,
    /// What a blocklist document the operator serves validates to, when
    /// the test lets the machines ask for one (a `NeedBlocklist` then runs
    /// a [`BlocklistRefresh`] through the same loop, as the pipeline does).
    operator_list: Option<Blocklist>,
    /// How each of those refreshes ended.
    refreshed: Vec<Refreshed>,
}

/// A [`Harness`] answering from a test server: an exchange takes 20 ms.
struct Scripted<'h, 's> {
    h: &'h mut Harness,
    server: &'s mut Server<'s>,
    /// Polls left before the machine is called stuck.
    budget: u32,
}

impl Runtime for Scripted<'_, '_> {
    type Error = std::convert::Infallible;

    fn now(&self) -> Timestamp {
        self.h.now
    }

    fn wait_until(&mut self, until: Timestamp) {
        self.h.now = until;
    }

    fn lend<T>(&mut self, at: Timestamp, f: impl FnOnce(&mut Ctx<'_>) -> T) -> T {
        f(&mut Ctx {
            gate: &mut self.h.gate,
            run: &mut self.h.run,
            now: at,
            jitter: 0.5,
        })
    }

    fn take_effects(&mut self) -> Vec<Effect> {
        self.h.run.take_effects()
    }

    fn poll<M: Machine>(&mut self, m: &mut M) -> Result<Action<M::Output>, Self::Error> {
        self.budget = self
            .budget
            .checked_sub(1)
            .expect("the machine never finished");
        let action = self.lend(self.h.now, |cx| m.poll(cx));
        if let Action::Wait(t) = &action {
            assert!(*t >= self.h.now, "a wait into the past");
        }
        Ok(action)
    }

    fn send(&mut self, req: &Request) -> Result<Answer, Self::Error> {
        self.h.sent.push((self.h.now, req.url().to_string()));
        self.h.now = self.h.now.saturating_add(Duration::from_millis(20));
        Ok(Answer::now((self.server)(req)))
    }

    fn persist(&mut self, effect: Effect) -> Result<(), Self::Error> {
        self.h.effects.push(effect);
        Ok(())
    }

    fn refresh_blocklist(&mut self) -> Result<(), Self::Error> {
        let list = self
            .h
            .operator_list
            .clone()
            .expect("the test gate has a blocklist");
        let mut m = BlocklistRefresh::new(
            "https://wal.sh/.well-known/walsh-research/blocklist.json",
            Stored::Nothing,
        );
        loop {
            match driver::finish(self, &mut m)? {
                RefreshEvent::Finished(r) => {
                    self.h.refreshed.push(r);
                    return Ok(());
                }
                RefreshEvent::Validate { .. } => {
                    let now = self.h.now;
                    self.lend(now, |cx| m.validated(cx, Ok(list.clone())));
                }
            }
        }
    }
}

impl Harness {
    fn new(gate: Gate) -> Harness {
        Harness {
            gate,
            run: Run::new(Duration::from_secs(300), Backoff::default()),
            now: T0,
            sent: Vec::new(),
            effects: Vec::new(),
            operator_list: None,
            refreshed: Vec::new(),
        }
    }

    fn cx(&mut self) -> Ctx<'_> {
        Ctx {
            gate: &mut self.gate,
            run: &mut self.run,
            now: self.now,
            jitter: 0.5,
        }
    }

    fn drive<'s, M: Machine>(&mut self, m: &mut M, server: &'s mut Server<'s>) -> M::Output {
        let mut rt = Scripted {
            h: self,
            server,
            budget: 1000,
        };
        match driver::finish(&mut rt, m) {
            Ok(out) => out,
            Err(never) => match never {},
        }
    }

    fn urls(&self) -> Vec<&str> {
        self.sent.iter().map(|(_, u)| u.as_str()).collect()
    }
}

fn robots_404_then(
    mut f: impl FnMut(&Request) -> Result<Response, Failure>,
) -> impl FnMut(&Request) -> Result<Response, Failure> {
    move |r: &Request| {
        if r.url().ends_with("/robots.txt") {
            Ok(resp(404))
        } else {
            f(r)
        }
    }
}

#[test]
fn a_get_fetches_robots_txt_first_then_the_target_with_the_robots_body_limit() {
    let mut h = Harness::new(gate_with(&[]));
    let mut limits = Vec::new();
    let mut server = |r: &Request| {
        limits.push(r.limit);
        Ok(if r.url().ends_with("/robots.txt") {
            with(200, |x| {
                x.body = b"User-agent: *\nDisallow: /private\n".to_vec()
            })
        } else {
            resp(200)
        })
    };
    let out = h.drive(&mut Get::new("https://a.test/feed", None), &mut server);
    assert!(matches!(out, GetOutcome::Response { ref url, .. } if url == "https://a.test/feed"));
    assert_eq!(
        h.urls(),
        ["https://a.test/robots.txt", "https://a.test/feed"]
    );
    assert_eq!(limits, [BodyLimit::Robots, BodyLimit::Document]);
    // R4: the target waited for the spacing after robots.txt ended.
    assert!(h.sent[1].0 .0 - h.sent[0].0 .0 >= 1000);
    assert!(h
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Robots { status: 200, .. })));
}

#[test]
fn every_redirect_hop_is_gated_and_a_disallowed_hop_is_never_requested() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = |r: &Request| {
        Ok(match r.url() {
            "https://a.test/robots.txt" => with(200, |x| {
                x.body = b"User-agent: *\nDisallow: /private\n".to_vec()
            }),
            "https://a.test/feed" => with(301, |x| {
                x.location = Some("https://a.test/private/feed".into())
            }),
            other => panic!("requested {other}"),
        })
    };
    let out = h.drive(&mut Get::new("https://a.test/feed", None), &mut server);
    match out {
        GetOutcome::DeniedRobots { url, denial } => {
            assert_eq!(url, "https://a.test/private/feed");
            let rule = denial.rule.expect("a rule decided");
            assert_eq!(
                (rule.kind, rule.pattern.as_str(), rule.line),
                (RuleKind::Disallow, "/private", 2)
            );
            assert_eq!(denial.reading, Reading::Spec);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_redirect_to_a_blocked_host_is_denied_by_r3_without_a_request_there() {
    let mut h = Harness::new(gate_with(&["blocked.test"]));
    let mut server = robots_404_then(|r: &Request| {
        assert!(!r.url().contains("blocked.test"), "{}", r.url());
        Ok(with(302, |x| {
            x.location = Some("https://www.blocked.test/x".into())
        }))
    });
    let out = h.drive(&mut Get::new("https://a.test/feed", None), &mut server);
    assert!(
        matches!(&out, GetOutcome::DeniedBlocklist { domain, .. } if domain == "blocked.test"),
        "{out:?}"
    );
}

#[test]
fn the_retry_budget_belongs_to_the_target_not_to_each_redirect_hop() {
    let mut h = Harness::new(gate_with(&[]));
    // Every hop answers 503 once, then redirects to the next hop.
    let mut seen = std::collections::HashSet::new();
    let mut server = robots_404_then(move |r: &Request| {
        let url = r.url().to_string();
        if seen.insert(url.clone()) {
            return Ok(resp(503));
        }
        let n: u32 = url.rsplit('/').next().unwrap().parse().unwrap_or(0);
        Ok(with(302, |x| {
            x.location = Some(format!("https://a.test/{}", n + 1))
        }))
    });
    let out = h.drive(&mut Get::new("https://a.test/0", None), &mut server);
    let requests = h
        .urls()
        .iter()
        .filter(|u| !u.ends_with("robots.txt"))
        .count();
    // Five retries in all, then the cool-down: 1 + 5 + hops, never 6 per hop.
    assert!(
        matches!(
            &out,
            GetOutcome::Failed {
                cause: Cause::RetriesExhausted { retries: 5, .. },
                ..
            }
        ),
        "{out:?}"
    );
    assert!(requests <= 1 + 5 + 5, "{requests} requests: {:?}", h.urls());
    assert!(h.effects.iter().any(|e| matches!(
        e,
        Effect::Hold {
            reason: WaitReason::Cooldown,
            ..
        }
    )));
}

#[test]
fn a_sixth_redirect_fails_the_get() {
    let mut h = Harness::new(gate_with(&[]));
    let mut n = 0;
    let mut server = robots_404_then(move |_r: &Request| {
        n += 1;
        Ok(with(301, |x| {
            x.location = Some(format!("https://a.test/{n}"))
        }))
    });
    let out = h.drive(&mut Get::new("https://a.test/0", None), &mut server);
    assert!(
        matches!(&out, GetOutcome::Failed { url, cause: Cause::TooManyRedirects } if url == "https://a.test/0"),
        "{out:?}"
    );
    assert_eq!(h.urls().len(), 1 + 6);
}

#[test]
fn a_local_failure_is_not_retried_and_holds_nothing() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = robots_404_then(|_r: &Request| {
        Err(Failure {
            kind: FailureKind::Local,
            reason: "uri too long".into(),
        })
    });
    let out = h.drive(&mut Get::new("https://a.test/x", None), &mut server);
    assert!(matches!(
        &out,
        GetOutcome::Failed { cause: Cause::Transport { kind: FailureKind::Local, detail }, .. }
            if detail == "uri too long"
    ));
    assert_eq!(h.urls().len(), 2, "robots.txt and one attempt");
    assert!(!h.effects.iter().any(|e| matches!(e, Effect::Hold { .. })));
    assert_eq!(h.gate.host_hold("a.test"), None);
}

#[test]
fn a_host_that_timed_out_twice_is_left_alone_for_the_rest_of_the_run() {
    let mut h = Harness::new(gate_with(&[]));
    let timeout = |_r: &Request| {
        Err(Failure {
            kind: FailureKind::TimedOut,
            reason: "timed out".into(),
        })
    };
    let mut server = robots_404_then(timeout);
    let out = h.drive(&mut Get::new("https://a.test/1", None), &mut server);
    assert!(
        matches!(
            &out,
            GetOutcome::Deferred {
                why: Deferral::TimedOut { times: 2, .. },
                ..
            }
        ),
        "{out:?}"
    );
    let before = h.sent.len();
    let out = h.drive(&mut Get::new("https://a.test/2", None), &mut server);
    assert!(matches!(out, GetOutcome::Deferred { .. }));
    assert_eq!(h.sent.len(), before, "no request to a timed-out host");
}

/// Issue #18 (R5): a hold says whose it is. Our backoff (no Retry-After)
/// and our cool-down are ours; a server's Retry-After is recorded as such,
/// so a store and `wr-feeds reset` can keep it, and when it comes with the
/// answer that spends the budget it still binds: the host is not asked
/// before it, however much shorter our one-hour cool-down is.
#[test]
fn holds_name_a_servers_retry_after_apart_and_it_outlasts_the_cool_down() {
    let mut h = Harness::new(gate_with(&[]));
    let mut n = 0;
    let mut server = robots_404_then(move |_r: &Request| {
        n += 1;
        Ok(if n <= 5 {
            resp(503)
        } else {
            with(429, |x| x.retry_after = Some("7200".into()))
        })
    });
    let out = h.drive(&mut Get::new("https://a.test/x", None), &mut server);
    assert!(
        matches!(
            &out,
            GetOutcome::Failed {
                cause: Cause::RetriesExhausted { alone_min: 120, .. },
                ..
            }
        ),
        "{out:?}"
    );
    let reasons: Vec<WaitReason> = h
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::Hold { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        [
            WaitReason::Backoff,
            WaitReason::Backoff,
            WaitReason::Backoff,
            WaitReason::Backoff,
            WaitReason::Backoff,
            WaitReason::RetryAfter,
            WaitReason::Cooldown
        ]
    );
    let (until, reason) = h.gate.host_hold("a.test").expect("held");
    assert_eq!(reason, WaitReason::RetryAfter);
    assert!(
        until > h.now.saturating_add(Duration::from_secs(7200)),
        "{until:?}"
    );

    // A Retry-After on a retried answer is the server's too.
    let mut h = Harness::new(gate_with(&[]));
    let mut n = 0;
    let mut server = robots_404_then(move |_r: &Request| {
        n += 1;
        Ok(if n == 1 {
            with(429, |x| x.retry_after = Some("3600".into()))
        } else {
            resp(200)
        })
    });
    let out = h.drive(&mut Get::new("https://a.test/x", None), &mut server);
    assert!(matches!(out, GetOutcome::Deferred { .. }), "{out:?}");
    assert_eq!(
        h.gate.host_hold("a.test").map(|(_, r)| r),
        Some(WaitReason::RetryAfter)
    );
}

#[test]
fn a_retry_after_past_the_runs_patience_defers_with_the_instant_and_holds_the_host() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = robots_404_then(|_r: &Request| {
        Ok(with(503, |x| x.retry_after = Some("999999999999".into())))
    });
    let out = h.drive(&mut Get::new("https://a.test/x", None), &mut server);
    match out {
        GetOutcome::Deferred { until, why, .. } => {
            assert!(until.is_some_and(|t| t > h.now.saturating_add(Duration::from_secs(300))));
            assert!(
                matches!(
                    why,
                    Deferral::RetryTooLate {
                        patience_s: 300,
                        ..
                    }
                ),
                "{why:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(h.gate.host_hold("a.test").is_some());
}

#[test]
fn robots_txt_5xx_with_nothing_cached_defers_the_origin_and_the_target_is_not_fetched() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = |r: &Request| {
        assert!(r.url().ends_with("/robots.txt"), "{}", r.url());
        Ok(resp(500))
    };
    let out = h.drive(&mut Get::new("https://a.test/x", None), &mut server);
    assert!(
        matches!(
            &out,
            GetOutcome::Deferred {
                why: Deferral::RobotsUnreachable { .. },
                ..
            }
        ),
        "{out:?}"
    );
}

#[test]
fn the_operator_exemption_does_not_follow_a_redirect() {
    let mut h = Harness::new(gate_with(&["elsewhere.test"]));
    let mut server = |r: &Request| {
        assert_eq!(
            r.url(),
            "https://wal.sh/.well-known/walsh-research/test-fixtures.json"
        );
        Ok(with(302, |x| {
            x.location = Some("https://elsewhere.test/f.json".into())
        }))
    };
    let out = h.drive(
        &mut Get::operator(
            "https://wal.sh/.well-known/walsh-research/test-fixtures.json",
            None,
        ),
        &mut server,
    );
    assert!(matches!(out, GetOutcome::DeniedBlocklist { .. }), "{out:?}");
}

#[test]
fn an_operator_base_with_a_fragment_admits_nothing() {
    let mut gate = gate_with(&[]);
    let mut config = gate.config().clone();
    config.operator_base = "https://blocked.test/#".into();
    gate = {
        let mut g = Gate::new(config);
        g.blocklist_adopted(gate.blocklist().unwrap().clone(), T0);
        g
    };
    let mut h = Harness::new(gate);
    let mut server = |r: &Request| panic!("requested {}", r.url());
    let out = h.drive(
        &mut Get::operator(
            "https://blocked.test/#/.well-known/walsh-research/blocklist.json",
            None,
        ),
        &mut server,
    );
    assert!(matches!(out, GetOutcome::Invalid { .. }), "{out:?}");
}

#[test]
fn a_source_whose_page_answers_html_goes_on_to_llms_txt_and_is_left_out_on_404() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = robots_404_then(|r: &Request| {
        Ok(match r.url() {
            "https://a.test/page" => with(200, |x| x.content_type = Some("text/html".into())),
            "https://a.test/llms.txt" => resp(404),
            other => panic!("requested {other}"),
        })
    });
    let mut m = SourceFetch::new("https://a.test/page", None, "https://a.test/llms.txt");
    let out = h.drive(&mut m, &mut server);
    assert!(
        matches!(
            &out,
            SourceEvent::Finished(SourceOutcome::LeftOut(LeftOut::Status { .. }))
        ),
        "{out:?}"
    );
    assert!(h
        .effects
        .iter()
        .any(|e| matches!(e, Effect::PageIsOther { url, .. } if url == "https://a.test/page")));
}

#[test]
fn a_feed_served_for_the_page_that_does_not_parse_goes_on_to_llms_txt() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = robots_404_then(|r: &Request| {
        Ok(match r.url() {
            "https://a.test/page" => with(200, |x| x.content_type = Some("application/xml".into())),
            "https://a.test/llms.txt" => with(200, |x| x.content_type = Some("text/plain".into())),
            other => panic!("requested {other}"),
        })
    });
    let mut m = SourceFetch::new("https://a.test/page", None, "https://a.test/llms.txt");
    match h.drive(&mut m, &mut server) {
        SourceEvent::Extract(x) => {
            assert_eq!((x.parser, x.method), (Parser::Feed, Stage::Feed));
            m.extract_failed("not a feed");
        }
        other => panic!("{other:?}"),
    }
    match h.drive(&mut m, &mut server) {
        SourceEvent::Extract(x) => {
            assert_eq!((x.parser, x.method), (Parser::Markdown, Stage::LlmsTxt));
            assert_eq!(x.url, "https://a.test/llms.txt");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_declared_feed_that_answers_html_fails_the_source_without_trying_the_page() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = robots_404_then(|r: &Request| {
        assert_eq!(r.url(), "https://a.test/feed");
        Ok(with(200, |x| x.content_type = Some("text/html".into())))
    });
    let mut m = SourceFetch::new(
        "https://a.test/page",
        Some("https://a.test/feed"),
        "https://a.test/llms.txt",
    );
    let out = h.drive(&mut m, &mut server);
    assert!(
        matches!(
            &out,
            SourceEvent::Finished(SourceOutcome::Failed(SourceFailure::FeedIsHtml { .. }))
        ),
        "{out:?}"
    );
}

fn refresh(h: &mut Harness, stored: Stored, server: &mut Server<'_>) -> Refreshed {
    refresh_to(h, stored, server, Blocklist::empty())
}

/// A refresh whose document validates to `list`.
fn refresh_to(
    h: &mut Harness,
    stored: Stored,
    server: &mut Server<'_>,
    list: Blocklist,
) -> Refreshed {
    let mut m = BlocklistRefresh::new(
        "https://wal.sh/.well-known/walsh-research/blocklist.json",
        stored,
    );
    loop {
        match h.drive(&mut m, server) {
            RefreshEvent::Finished(r) => return r,
            RefreshEvent::Validate { .. } => {
                m.validated(&mut h.cx(), Ok(list.clone()));
            }
        }
    }
}

/// The operator's list with `refresh` as its document writes it.
fn list_refreshed(refresh: &str) -> Blocklist {
    Blocklist::new(
        "walsh-research-blocklist/v1",
        Some(refresh),
        [BlockedDomain::new(
            "blocked.test",
            "2026-01-01",
            "opted out",
        )],
    )
    .unwrap()
}

/// Issue #18: a schema-valid `"refresh": "PT0S"` made the list stale the
/// instant it was adopted, so R12's block-on-refresh asked for it again
/// before every request: one blocklist GET a second, no target ever sent.
/// Driven as the pipeline drives a GET (a `NeedBlocklist` runs a refresh),
/// the list is now asked for once, the floor keeps it fresh, and the
/// targets go, a listed one still denied.
#[test]
fn a_zero_refresh_is_read_as_the_floor_and_the_targets_go() {
    use wr_core::constants::BLOCKLIST_REFRESH_FLOOR;
    let mut h = Harness::new(Gate::new(GateConfig {
        operator_base: OPERATOR.into(),
        ..GateConfig::default()
    }));
    h.operator_list = Some(list_refreshed("PT0S"));
    let mut server = robots_404_then(|_r: &Request| Ok(resp(200)));
    let mut outcomes = Vec::new();
    for url in [
        "https://a.test/1",
        "https://a.test/2",
        "https://b.test/1",
        "https://blocked.test/1",
    ] {
        let out = h.drive(&mut Get::new(url, None), &mut server);
        outcomes.push(out);
    }
    let blocklist_gets = h
        .urls()
        .iter()
        .filter(|u| u.ends_with("blocklist.json"))
        .count();
    assert_eq!(blocklist_gets, 1, "{:?}", h.urls());
    assert_eq!(h.run.blocklist_requests(), 1);
    assert_eq!(h.refreshed, [Refreshed::Fresh { entries: 1 }]);
    assert!(h.urls().contains(&"https://a.test/2"), "{:?}", h.urls());
    assert!(h.urls().contains(&"https://b.test/1"), "{:?}", h.urls());
    assert!(
        matches!(outcomes[2], GetOutcome::Response { .. }),
        "{:?}",
        outcomes[2]
    );
    assert!(
        matches!(outcomes[3], GetOutcome::DeniedBlocklist { .. }),
        "{:?}",
        outcomes[3]
    );
    assert!(!h.urls().iter().any(|u| u.contains("blocked.test")));
    // The reader is told the refresh was raised to the floor.
    assert!(
        h.effects
            .iter()
            .any(|e| matches!(e, Effect::Notice(Notice::RefreshFloored { floor, .. }) if floor.as_secs() == 300)),
        "{:?}",
        h.effects
    );
    // Fresh until the floor has passed, due at it.
    let adopted = h.now;
    assert!(matches!(
        h.gate.check("https://c.test/", adopted),
        wr_core::gate::Decision::NeedRobots(_)
    ));
    let due = h.sent[0]
        .0
        .saturating_add(BLOCKLIST_REFRESH_FLOOR)
        .saturating_add(Duration::from_millis(20));
    assert_eq!(
        h.gate.check("https://c.test/", due),
        wr_core::gate::Decision::NeedBlocklist
    );
}

/// Issue #18: whatever the clock does, a run asks for the blocklist at most
/// `BLOCKLIST_REQUESTS_PER_RUN` times; past that a refresh sends nothing
/// and the list in force stays (R3b), still blocking what it lists.
#[test]
fn a_run_asks_for_the_blocklist_a_bounded_number_of_times() {
    use wr_core::constants::{BLOCKLIST_REFRESH_FLOOR, BLOCKLIST_REQUESTS_PER_RUN};
    let mut h = Harness::new(Gate::new(GateConfig {
        operator_base: OPERATOR.into(),
        ..GateConfig::default()
    }));
    let mut server = |_r: &Request| Ok(resp(200));
    let mut outcomes = Vec::new();
    for _ in 0..(BLOCKLIST_REQUESTS_PER_RUN + 5) {
        // A clock that jumps an hour (past the floor and past R3b's retry
        // interval) before every refresh.
        h.now = h.now.saturating_add(Duration::from_secs(3600));
        assert_eq!(
            h.gate.check("https://a.test/", h.now),
            wr_core::gate::Decision::NeedBlocklist
        );
        outcomes.push(refresh_to(
            &mut h,
            Stored::Nothing,
            &mut server,
            list_refreshed("PT0S"),
        ));
    }
    let n = BLOCKLIST_REQUESTS_PER_RUN as usize;
    assert_eq!(h.sent.len(), n, "{:?}", h.urls());
    assert_eq!(h.run.blocklist_requests(), BLOCKLIST_REQUESTS_PER_RUN);
    assert!(outcomes[..n]
        .iter()
        .all(|r| matches!(r, Refreshed::Fresh { .. })));
    for r in &outcomes[n..] {
        assert!(
            matches!(
                r,
                Refreshed::Retained {
                    entries: 1,
                    cause: BlocklistCause::NotAskedAgain { .. }
                }
            ),
            "{r:?}"
        );
    }
    // The list in force still blocks, and no longer asks to be refreshed
    // at once (R3b's retry interval).
    assert!(matches!(
        h.gate.check("https://blocked.test/", h.now),
        wr_core::gate::Decision::DenyBlocklist(_)
    ));
    assert_ne!(
        h.gate.check("https://a.test/", h.now),
        wr_core::gate::Decision::NeedBlocklist
    );
    // A new run may ask again.
    h.run = Run::new(Duration::from_secs(300), Backoff::default());
    h.now = h.now.saturating_add(BLOCKLIST_REFRESH_FLOOR * 4);
    let r = refresh_to(&mut h, Stored::Nothing, &mut server, list_refreshed("PT0S"));
    assert_eq!(r, Refreshed::Fresh { entries: 1 });
    assert_eq!(h.sent.len(), n + 1);
}

#[test]
fn a_first_blocklist_fetch_that_fails_falls_open_loudly() {
    let mut h = Harness::new(Gate::new(GateConfig {
        operator_base: OPERATOR.into(),
        ..GateConfig::default()
    }));
    let mut server = |_r: &Request| Ok(resp(500));
    let r = refresh(&mut h, Stored::Nothing, &mut server);
    assert!(matches!(r, Refreshed::Fallback { .. }), "{r:?}");
    assert!(h.gate.blocklist_is_fallback());
    assert!(h
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Notice(Notice::BlocklistFallback { .. }))));
}

#[test]
fn a_blocklist_never_asked_for_because_the_operator_is_held_defers_targets() {
    let mut gate = Gate::new(GateConfig {
        operator_base: OPERATOR.into(),
        ..GateConfig::default()
    });
    gate.hold_host(
        "wal.sh",
        T0.saturating_add(Duration::from_secs(3600)),
        WaitReason::Cooldown,
    );
    let mut h = Harness::new(gate);
    let mut server = |r: &Request| panic!("requested {}", r.url());
    let r = refresh(&mut h, Stored::Nothing, &mut server);
    assert!(matches!(r, Refreshed::Unavailable { .. }), "{r:?}");
    let d = h.gate.check("https://a.test/x", h.now);
    assert!(
        matches!(d, wr_core::gate::Decision::BlocklistUnavailable { .. }),
        "{d:?}"
    );
}

#[test]
fn an_unreadable_stored_blocklist_is_not_a_first_fetch_that_failed() {
    let mut h = Harness::new(Gate::new(GateConfig {
        operator_base: OPERATOR.into(),
        ..GateConfig::default()
    }));
    let mut server = |_r: &Request| {
        Err(Failure {
            kind: FailureKind::Network,
            reason: "refused".into(),
        })
    };
    let r = refresh(&mut h, Stored::Unreadable, &mut server);
    assert!(
        matches!(
            &r,
            Refreshed::Unavailable {
                cause: BlocklistCause::StoredUnreadable { .. }
            }
        ),
        "{r:?}"
    );
}

#[test]
fn a_304_readopts_the_stored_list_and_a_failed_refresh_keeps_it() {
    let stored = gate_with(&["x.test"]).blocklist().unwrap().clone();
    let mut h = Harness::new(Gate::new(GateConfig {
        operator_base: OPERATOR.into(),
        ..GateConfig::default()
    }));
    let mut conditional = None;
    let mut server = |r: &Request| {
        conditional = Some(r.conditional);
        Ok(resp(304))
    };
    let r = refresh(&mut h, Stored::List(stored.clone()), &mut server);
    assert_eq!(r, Refreshed::Fresh { entries: 1 });
    assert_eq!(conditional, Some(true));
    h.now = h.now.saturating_add(Duration::from_secs(2));
    let mut failing = |_r: &Request| Ok(resp(503));
    let r = refresh(&mut h, Stored::List(stored), &mut failing);
    assert!(matches!(r, Refreshed::Retained { entries: 1, .. }), "{r:?}");
}

#[test]
fn a_retry_after_holds_at_least_as_long_as_asked_whatever_the_millisecond() {
    let mut h = Harness::new(gate_with(&[]));
    let mut n = 0;
    let mut server = robots_404_then(move |_r: &Request| {
        n += 1;
        Ok(if n == 1 {
            with(503, |x| x.retry_after = Some("2".into()))
        } else {
            resp(200)
        })
    });
    let out = h.drive(&mut Get::new("https://a.test/x", None), &mut server);
    assert!(matches!(out, GetOutcome::Response { .. }), "{out:?}");
    // The harness's exchange takes 20 ms: the 503 ended 20 ms after it was
    // sent, and the clock reads whole milliseconds, so the retry may not
    // start before end + 2 s + 1 ms.
    let (first, retry) = (h.sent[1].0, h.sent[2].0);
    assert!(retry.0 > first.0 + 20 + 2_000, "{} -> {}", first.0, retry.0);
}

/// `check` is a machine driven by the same loop: it fetches the origin's
/// robots.txt once (never the URL itself), then the gate's decision at the
/// instant it names is the answer.
#[test]
fn a_check_fetches_robots_txt_once_and_never_the_url() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = |r: &Request| {
        assert!(r.url().ends_with("/robots.txt"), "{} sent", r.url());
        Ok(with(200, |x| {
            x.body = b"User-agent: *\nDisallow: /private\n".to_vec()
        }))
    };
    let out = h.drive(&mut Check::new("https://a.test/private/x"), &mut server);
    assert_eq!(h.urls(), ["https://a.test/robots.txt"]);
    let Checked::Decided { at } = out else {
        panic!("{out:?}")
    };
    assert_eq!(at, h.now);
    assert!(matches!(
        h.gate.check("https://a.test/private/x", at),
        Decision::DenyRobots(_)
    ));
    // What was learnt is kept for the store, as a run keeps it.
    assert!(h
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Robots { status: 200, .. })));
}

/// An unreachable robots.txt is asked for once: the check then answers
/// with the gate's deferral rather than asking again.
#[test]
fn a_check_whose_robots_txt_fails_asks_once_and_answers_with_the_deferral() {
    let mut h = Harness::new(gate_with(&[]));
    let mut server = |_r: &Request| Ok(resp(503));
    let out = h.drive(&mut Check::new("https://a.test/feed"), &mut server);
    assert_eq!(h.urls(), ["https://a.test/robots.txt"]);
    let Checked::Decided { at } = out else {
        panic!("{out:?}")
    };
    assert!(matches!(
        h.gate.check("https://a.test/feed", at),
        Decision::Deferred { .. }
    ));
}

/// A blocked host is answered by R3 before any robots.txt: nothing sent.
#[test]
fn a_check_of_a_blocked_host_sends_nothing() {
    let mut h = Harness::new(gate_with(&["blocked.test"]));
    let mut server = |r: &Request| panic!("{} sent", r.url());
    let out = h.drive(&mut Check::new("https://blocked.test/"), &mut server);
    assert!(h.sent.is_empty());
    let Checked::Decided { at } = out else {
        panic!("{out:?}")
    };
    assert!(matches!(
        h.gate.check("https://blocked.test/", at),
        Decision::DenyBlocklist(_)
    ));
}

/// A check with no blocklist yet runs R12's refresh through the loop
/// first, then judges the URL under the list it got.
#[test]
fn a_check_without_a_blocklist_refreshes_it_first() {
    let mut h = Harness::new(Gate::new(GateConfig {
        operator_base: OPERATOR.into(),
        ..GateConfig::default()
    }));
    h.operator_list = Some(list_refreshed("P1D"));
    let mut server = |_r: &Request| Ok(resp(200));
    let out = h.drive(&mut Check::new("https://blocked.test/x"), &mut server);
    assert_eq!(h.refreshed, [Refreshed::Fresh { entries: 1 }]);
    assert_eq!(
        h.urls(),
        ["https://wal.sh/.well-known/walsh-research/blocklist.json"]
    );
    let Checked::Decided { at } = out else {
        panic!("{out:?}")
    };
    assert!(matches!(
        h.gate.check("https://blocked.test/x", at),
        Decision::DenyBlocklist(_)
    ));
}

/// A robots.txt host held past the run's patience: the check ends with
/// that deferral, without waiting and without a request.
#[test]
fn a_check_whose_robots_host_is_held_past_patience_is_deferred() {
    let mut h = Harness::new(gate_with(&[]));
    h.gate.hold_host(
        &wr_core::gate::HostKey::from_stored("a.test"),
        T0.saturating_add(Duration::from_secs(3600)),
        WaitReason::RetryAfter,
    );
    let mut server = |r: &Request| panic!("{} sent", r.url());
    let out = h.drive(&mut Check::new("https://a.test/feed"), &mut server);
    assert!(h.sent.is_empty());
    assert_eq!(h.now, T0, "no wait");
    assert!(
        matches!(&out, Checked::RobotsDeferred(d) if d.url == "https://a.test/robots.txt"),
        "{out:?}"
    );
}
