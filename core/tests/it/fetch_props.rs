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
use wr_core::fetch::driver::{self, Answer as DriverAnswer, Runtime};
use wr_core::fetch::{
    Action, BodyLimit, Ctx, Effect, Failure, FailureKind, Get, GetOutcome, Machine, Request,
    Response, Run,
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

/// The generated web as the runtime of the driver loop the pipeline runs
/// ([`driver::finish`]): a virtual clock, exchanges of 20 ms, answers from
/// the generated script. Every request is checked as it is sent; a broken
/// rule stops the loop with the loop's error.
struct Web<'a> {
    gate: Gate,
    run: Run,
    now: Timestamp,
    robots: &'a [RobotsAnswer],
    answers: std::iter::Cycle<std::slice::Iter<'a, Answer>>,
    /// Per host: when its last request ended.
    ended: HashMap<String, Timestamp>,
    /// Per origin: the rules it answered with, if any.
    rules: HashMap<String, Policy>,
    robots_asked: Vec<String>,
    targets: usize,
    /// Polls left before the GET is called endless.
    polls: u32,
}

impl Web<'_> {
    /// R2, R3 and R4 for `req`, about to be sent now.
    fn judge(&mut self, req: &Request) -> Result<(), String> {
        let url = req.url();
        let host = host_of(url).to_string();
        if host == "blocked.test" {
            return Err(format!("R3: sent {url}"));
        }
        if let Some(last) = self.ended.get(&host) {
            if self.now.0 < last.0 + 1000 {
                return Err(format!("R4: {url} at {} after {}", self.now.0, last.0));
            }
        }
        if req.limit == BodyLimit::Robots {
            self.robots_asked.push(host);
            return Ok(());
        }
        self.targets += 1;
        if !self.robots_asked.contains(&host) {
            return Err(format!("R2: {url} before its robots.txt"));
        }
        match self.rules.get(&host) {
            Some(p) if !p.check(path_of(url)).allowed => Err(format!("R2: sent {url}")),
            _ => Ok(()),
        }
    }

    fn robots_reply(&mut self, host: &str) -> Result<Response, Failure> {
        let h = HOSTS.iter().position(|&x| x == host).unwrap_or(0);
        match self.robots[h] {
            RobotsAnswer::Rules => {
                self.rules
                    .insert(host.to_string(), Policy::parse(ROBOTS, "Walsh-Research"));
                Ok(Response {
                    status: 200,
                    body: ROBOTS.to_vec(),
                    ..Response::default()
                })
            }
            RobotsAnswer::NotFound => Ok(Response {
                status: 404,
                ..Response::default()
            }),
            RobotsAnswer::ServerError => Ok(Response {
                status: 500,
                ..Response::default()
            }),
            RobotsAnswer::Fails => Err(Failure {
                kind: FailureKind::Network,
                reason: "reset".into(),
            }),
            RobotsAnswer::RedirectToB => Ok(Response {
                status: 301,
                location: Some("https://b.test/robots.txt".into()),
                ..Response::default()
            }),
        }
    }

    fn target_reply(&mut self) -> Result<Response, Failure> {
        match *self.answers.next().unwrap() {
            Answer::Ok => Ok(Response {
                status: 200,
                ..Response::default()
            }),
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
            Answer::TimedOut => Err(Failure {
                kind: FailureKind::TimedOut,
                reason: "timed out".into(),
            }),
            Answer::Network => Err(Failure {
                kind: FailureKind::Network,
                reason: "reset".into(),
            }),
            Answer::Local => Err(Failure {
                kind: FailureKind::Local,
                reason: "uri too long".into(),
            }),
        }
    }
}

impl Runtime for Web<'_> {
    type Error = String;

    fn now(&self) -> Timestamp {
        self.now
    }

    fn wait_until(&mut self, until: Timestamp) {
        self.now = until;
    }

    fn lend<T>(&mut self, at: Timestamp, f: impl FnOnce(&mut Ctx<'_>) -> T) -> T {
        f(&mut Ctx {
            gate: &mut self.gate,
            run: &mut self.run,
            now: at,
            jitter: 0.5,
        })
    }

    fn take_effects(&mut self) -> Vec<Effect> {
        self.run.take_effects()
    }

    fn poll<M: Machine>(&mut self, m: &mut M) -> Result<Action<M::Output>, String> {
        self.polls = self.polls.checked_sub(1).ok_or("the GET never ended")?;
        let now = self.now;
        let action = self.lend(now, |cx| m.poll(cx));
        match action {
            Action::Wait(t) if t < now => Err(format!("a wait into the past: {t:?}")),
            Action::NeedBlocklist => Err("NeedBlocklist with a fresh list".into()),
            a => Ok(a),
        }
    }

    fn send(&mut self, req: &Request) -> Result<DriverAnswer, String> {
        self.judge(req)?;
        let host = host_of(req.url()).to_string();
        // The exchange takes 20 ms.
        self.now = self.now.saturating_add(Duration::from_millis(20));
        self.ended.insert(host.clone(), self.now);
        let reply = match req.limit {
            BodyLimit::Robots => self.robots_reply(&host),
            BodyLimit::Document => self.target_reply(),
        };
        Ok(DriverAnswer::now(reply))
    }

    fn persist(&mut self, _effect: Effect) -> Result<(), String> {
        Ok(())
    }

    fn refresh_blocklist(&mut self) -> Result<(), String> {
        Err("NeedBlocklist with a fresh list".into())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: crate::cases(2000), ..ProptestConfig::default() })]

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
        let start = format!("https://{}{}", HOSTS[start_host], PATHS[start_path]);
        let mut web = Web {
            gate,
            run: Run::new(Duration::from_secs(patience_s), Backoff::default()),
            now: t0,
            robots: &robots,
            answers: answers.iter().cycle(),
            ended: HashMap::new(),
            rules: HashMap::new(),
            robots_asked: Vec::new(),
            targets: 0,
            polls: 500,
        };
        let outcome = driver::finish(&mut web, &mut Get::new(&start, None))
            .map_err(TestCaseError::fail)?;
        let targets = web.targets;
        prop_assert!(targets <= 1 + 5 + 5, "{targets} target requests");
        if let GetOutcome::Response { url, .. } = &outcome {
            prop_assert!(host_of(url) != "blocked.test");
        }
    }
}
