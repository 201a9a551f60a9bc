//! Properties of the fetch machines under any sequence of answers: a
//! generated web of three hosts (one on the blocklist), each with a
//! robots.txt that answers in one of several ways, and targets that
//! redirect, fail, rate-limit or answer in any order. Whatever happens:
//!
//! * nothing is ever sent to a blocked host (R3), not even robots.txt;
//! * no target or hop is sent to a path its origin's robots.txt denies,
//!   once that robots.txt answered (R2), and none before robots.txt was
//!   asked for;
//! * requests to one host start at least 1 s after the previous one to it
//!   ended (R4);
//! * one GET costs at most 1 + 5 retries + 5 hops target requests (R5, C6),
//!   and ends.
#![cfg(feature = "alloc")]

use proptest::prelude::*;
use std::collections::HashMap;
use std::time::Duration;
use wr_core::backoff::Backoff;
use wr_core::blocklist::{BlockedDomain, Blocklist};
use wr_core::fetch::{
    Action, BodyLimit, Ctx, Failure, FailureKind, Get, GetOutcome, Machine, Response, Run,
};
use wr_core::gate::{Gate, GateConfig};
use wr_core::robots::Policy;
use wr_core::time::Timestamp;

const HOSTS: [&str; 3] = ["a.test", "b.test", "blocked.test"];
const PATHS: [&str; 4] = ["/", "/feed", "/private/x", "/other"];
const ROBOTS: &[u8] = b"User-agent: *\nDisallow: /private\n";

/// How a host's robots.txt answers.
#[derive(Debug, Clone, Copy)]
enum RobotsAnswer {
    Rules,
    NotFound,
    ServerError,
    Fails,
    RedirectToB,
}

/// How a target request is answered.
#[derive(Debug, Clone, Copy)]
enum Answer {
    Ok,
    Redirect { host: usize, path: usize },
    Unavailable { retry_after: Option<u16> },
    TimedOut,
    Network,
    Local,
}

fn robots_answer() -> impl Strategy<Value = RobotsAnswer> {
    prop_oneof![
        Just(RobotsAnswer::Rules),
        Just(RobotsAnswer::NotFound),
        Just(RobotsAnswer::ServerError),
        Just(RobotsAnswer::Fails),
        Just(RobotsAnswer::RedirectToB),
    ]
}

fn answer() -> impl Strategy<Value = Answer> {
    prop_oneof![
        3 => Just(Answer::Ok),
        3 => (0..HOSTS.len(), 0..PATHS.len()).prop_map(|(host, path)| Answer::Redirect { host, path }),
        2 => proptest::option::of(0u16..5).prop_map(|retry_after| Answer::Unavailable { retry_after }),
        1 => Just(Answer::TimedOut),
        1 => Just(Answer::Network),
        1 => Just(Answer::Local),
    ]
}

/// Answer sequences: any, or the ones that probe the retry budget across
/// hops (rate-limited, then moved, again and again).
fn answers() -> impl Strategy<Value = Vec<Answer>> {
    prop_oneof![
        proptest::collection::vec(answer(), 1..40),
        (0..2usize, 0..PATHS.len(), 1..4usize).prop_map(|(host, path, n)| {
            let mut v = vec![Answer::Unavailable { retry_after: None }; n];
            v.push(Answer::Redirect { host, path });
            v
        }),
    ]
}

fn host_of(url: &str) -> &str {
    url.split("://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or("")
}

fn path_of(url: &str) -> &str {
    let rest = url.split("://").nth(1).unwrap_or("");
    rest.find('/').map_or("/", |i| &rest[i..])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn no_answer_sequence_makes_a_get_break_a_rule(
        robots in proptest::collection::vec(robots_answer(), HOSTS.len()),
        answers in answers(),
        start_host in 0..2usize,
        start_path in 0..PATHS.len(),
        patience_s in 0u64..120,
    ) {
        let t0 = Timestamp(1_700_000_000_000);
        let mut gate = Gate::new(GateConfig::default());
        let list = Blocklist::new(
            "walsh-research-blocklist/v1",
            Some("P1D"),
            [BlockedDomain::new("blocked.test", "2026-01-01", "opted out")],
        )
        .unwrap();
        gate.blocklist_adopted(list, t0);
        let mut run = Run::new(Duration::from_secs(patience_s), Backoff::default());
        let start = format!("https://{}{}", HOSTS[start_host], PATHS[start_path]);
        let mut get = Get::new(&start, None);
        let mut now = t0;
        let mut next_answer = answers.iter().cycle();
        // Per host: when its last request ended; per origin: the rules it
        // answered with, if any.
        let mut ended: HashMap<String, Timestamp> = HashMap::new();
        let mut rules: HashMap<String, Policy> = HashMap::new();
        let mut robots_asked: Vec<String> = Vec::new();
        let mut targets = 0;
        let mut outcome = None;
        for _ in 0..500 {
            let mut cx = Ctx { gate: &mut gate, run: &mut run, now, jitter: 0.5 };
            let action = get.poll(&mut cx);
            let req = match action {
                Action::Done(o) => { outcome = Some(o); break; }
                Action::Wait(t) => { prop_assert!(t >= now); now = t; continue; }
                Action::NeedBlocklist => return Err(TestCaseError::fail("NeedBlocklist with a fresh list")),
                Action::Send(req) => req,
            };
            let url = req.url().to_string();
            let host = host_of(&url).to_string();
            prop_assert!(host != "blocked.test", "R3: sent {url}");
            if let Some(last) = ended.get(&host) {
                prop_assert!(now.0 >= last.0 + 1000, "R4: {url} at {} after {}", now.0, last.0);
            }
            let is_robots = req.limit == BodyLimit::Robots;
            if is_robots {
                robots_asked.push(host.clone());
            } else {
                targets += 1;
                prop_assert!(robots_asked.contains(&host), "R2: {url} before its robots.txt");
                if let Some(p) = rules.get(&host) {
                    prop_assert!(p.check(path_of(&url)).allowed, "R2: sent {url}");
                }
            }
            // The exchange takes 20 ms.
            now = now.saturating_add(Duration::from_millis(20));
            ended.insert(host.clone(), now);
            let mut cx = Ctx { gate: &mut gate, run: &mut run, now, jitter: 0.5 };
            let h = HOSTS.iter().position(|&x| x == host).unwrap_or(0);
            let reply: Result<Response, Failure> = if is_robots {
                match robots[h] {
                    RobotsAnswer::Rules => {
                        rules.insert(host.clone(), Policy::parse(ROBOTS, "Walsh-Research"));
                        Ok(Response { status: 200, body: ROBOTS.to_vec(), ..Response::default() })
                    }
                    RobotsAnswer::NotFound => Ok(Response { status: 404, ..Response::default() }),
                    RobotsAnswer::ServerError => Ok(Response { status: 500, ..Response::default() }),
                    RobotsAnswer::Fails => Err(Failure { kind: FailureKind::Network, reason: "reset".into() }),
                    RobotsAnswer::RedirectToB => Ok(Response {
                        status: 301,
                        location: Some("https://b.test/robots.txt".into()),
                        ..Response::default()
                    }),
                }
            } else {
                match *next_answer.next().unwrap() {
                    Answer::Ok => Ok(Response { status: 200, ..Response::default() }),
                    Answer::Redirect { host, path } => Ok(Response {
                        status: 302,
                        location: Some(format!("https://{}{}", HOSTS[host], PATHS[path])),
                        ..Response::default()
                    }),
                    Answer::Unavailable { retry_after } => Ok(Response {
                        status: 503,
                        retry_after: retry_after.map(|s| s.to_string()),
                        ..Response::default()
                    }),
                    Answer::TimedOut => Err(Failure { kind: FailureKind::TimedOut, reason: "timed out".into() }),
                    Answer::Network => Err(Failure { kind: FailureKind::Network, reason: "reset".into() }),
                    Answer::Local => Err(Failure { kind: FailureKind::Local, reason: "uri too long".into() }),
                }
            };
            match reply {
                Ok(r) => get.handle_response(&mut cx, r, None),
                Err(f) => get.handle_failure(&mut cx, f),
            }
            if let Some(o) = get.take_output() {
                outcome = Some(o);
                break;
            }
        }
        prop_assert!(outcome.is_some(), "the GET never ended");
        prop_assert!(targets <= 1 + 5 + 5, "{targets} target requests");
        if let Some(GetOutcome::Response { url, .. }) = &outcome {
            prop_assert!(host_of(url) != "blocked.test");
        }
    }
}
