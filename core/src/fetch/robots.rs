//! One origin's robots.txt, and what each answer means (section 9.1.1).
//!
//! * 2xx: parsed (the body is cut one octet past 500 KiB by the driver, so
//!   the parser sees the cut) and in force for its TTL;
//! * 4xx: "no rules", everything allowed;
//! * 3xx: up to [`MAX_REDIRECTS`] hops, each admitted on its own (R3 and R4
//!   for the hop's host, a permit for exactly the hop: RFC 9309 2.3.1.2);
//! * 429, 5xx, a timeout, a network error, a sixth hop, a hop to a blocked
//!   host: unreachable. A cached copy, even stale, stays in force; with
//!   none the origin is deferred for [`crate::gate::REFRESH_RETRY`] (never a
//!   silent permanent disallow). A Retry-After on a 429/5xx holds the host
//!   (R5) for everything else too.
//!
//! robots.txt is not retried within a run: the cached copy or the deferral
//! answers until the gate asks for it again.

use super::{host_of, is_web, Action, Ctx, Effect, Failure, Machine, Response, MAX_REDIRECTS};
use crate::gate::{origin_key, Decision, WaitReason};
use crate::outcome::{Cause, Notice, Refusal, Unreachable};
use crate::time::Timestamp;
use crate::url::Url;
use alloc::string::{String, ToString};

/// The robots.txt fetch for one target's origin.
#[derive(Debug, Clone)]
pub struct RobotsFetch {
    /// The URL whose origin this robots.txt governs.
    target: String,
    /// Where the next request goes (`/robots.txt`, or a redirect hop).
    url: String,
    host: Option<crate::gate::HostKey>,
    hops: u8,
    sent: Option<crate::gate::HostKey>,
    end: Option<Result<(), RobotsDeferral>>,
}

/// robots.txt could not be asked for within the run's patience: the
/// target is deferred to a later run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsDeferral {
    /// The robots.txt URL (or hop) that was held.
    pub url: String,
    /// When that was decided.
    pub at: Timestamp,
    /// Not before.
    pub until: Timestamp,
    /// Why the host is held.
    pub reason: WaitReason,
}

impl RobotsFetch {
    /// Fetches `robots_url` (as the gate named it) for `target`'s origin.
    pub fn new(target: &str, robots_url: &str) -> RobotsFetch {
        RobotsFetch {
            target: target.to_string(),
            url: robots_url.to_string(),
            host: host_of(robots_url),
            hops: 0,
            sent: None,
            end: None,
        }
    }

    /// The URL the next request goes to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Section 9.1.1's "unreachable": the cached copy stays, or the origin
    /// is deferred.
    fn unreachable(&mut self, cx: &mut Ctx<'_>, why: Unreachable) {
        if let Ok(u) = Url::parse(&self.target) {
            if cx.gate.robots_unreachable(&u, cx.now, &why) {
                let origin = origin_key(&u);
                cx.run
                    .push(Effect::Notice(Notice::CachedRobots { why, origin }));
            }
        }
        self.end = Some(Ok(()));
    }

    fn learned(&mut self, cx: &mut Ctx<'_>, status: u16, body: alloc::vec::Vec<u8>) {
        if let Ok(u) = Url::parse(&self.target) {
            if (200..300).contains(&status) {
                cx.gate.robots_fetched(&u, &body, cx.now);
            } else {
                cx.gate.robots_not_found(&u, cx.now);
            }
            cx.run.push(Effect::Robots {
                origin: origin_key(&u),
                status,
                body,
                fetched_at: cx.now,
            });
        }
        self.end = Some(Ok(()));
    }
}

impl Machine for RobotsFetch {
    /// `Ok(())` when the gate knows what it needs for the target (fetched,
    /// cached, or deferred by 9.1.1); `Err` when robots.txt could not even
    /// be asked for in this run.
    type Output = Result<(), RobotsDeferral>;

    fn next_host(&self) -> Option<crate::gate::HostKey> {
        self.host.clone()
    }

    fn poll(&mut self, cx: &mut Ctx<'_>) -> Action<Self::Output> {
        if let Some(end) = self.end.take() {
            return Action::Done(end);
        }
        // Two targets on one origin both ask for its robots.txt; the second
        // waits for the host's slot, by which time the first has it. The
        // cached copy answers (R2); it is not fetched again.
        if self.hops == 0 && !matches!(cx.gate.check(&self.target, cx.now), Decision::NeedRobots(_))
        {
            return Action::Done(Ok(()));
        }
        let admitted = if self.hops == 0 {
            cx.gate.admit_robots(&self.url, cx.now)
        } else {
            cx.gate.admit_robots_hop(&self.url, cx.now)
        };
        let refused = match admitted {
            Ok(permit) => {
                self.sent = Some(crate::gate::HostKey::from_stored(permit.host()));
                return Action::Send(super::Request {
                    permit,
                    accept: None,
                    conditional: false,
                    limit: super::BodyLimit::Robots,
                });
            }
            Err(Decision::NeedBlocklist) => return Action::NeedBlocklist,
            Err(Decision::Wait { until, reason }) => {
                if until > cx.run.horizon(cx.now) {
                    return Action::Done(Err(RobotsDeferral {
                        url: self.url.clone(),
                        at: cx.now,
                        until,
                        reason,
                    }));
                }
                return Action::Wait(until);
            }
            Err(Decision::DenyBlocklist(d)) => Unreachable::RedirectBlocked {
                url: self.url.clone(),
                domain: d.domain.clone(),
            },
            Err(other) => Unreachable::Refused {
                url: self.url.clone(),
                refusal: Refusal::from(other),
            },
        };
        self.unreachable(cx, refused);
        Action::Done(self.end.take().unwrap_or(Ok(())))
    }

    fn handle_response(&mut self, cx: &mut Ctx<'_>, resp: Response, _sent_kind: Option<&str>) {
        let host = self.sent.take().unwrap_or_default();
        super::ended(cx, &host);
        let s = resp.status;
        match s {
            200..=299 | 400..=499 if s != 429 => {
                let body = if (200..300).contains(&s) {
                    resp.body
                } else {
                    alloc::vec::Vec::new()
                };
                self.learned(cx, s, body);
            }
            300..=399 if resp.location.is_some() => match resp.location {
                Some(next) if is_web(&next) && self.hops < MAX_REDIRECTS => {
                    self.hops += 1;
                    self.host = host_of(&next);
                    self.url = next;
                }
                Some(next) if is_web(&next) => {
                    let url = self.url.clone();
                    let cause = Cause::TooManyRedirects;
                    self.unreachable(cx, Unreachable::Answered { url, cause })
                }
                _ => {
                    let url = self.url.clone();
                    self.unreachable(cx, Unreachable::BadRedirect { url })
                }
            },
            _ => {
                if crate::backoff::is_retryable_status(s) {
                    let after = resp
                        .retry_after
                        .as_deref()
                        .and_then(|v| crate::retry_after::parse_retry_after(v, cx.now).ok());
                    if let Some(d) = after {
                        cx.run
                            .hold(cx.gate, &host, super::after(cx, d), WaitReason::RetryAfter);
                    }
                }
                let url = self.url.clone();
                let cause = Cause::Status { status: s };
                self.unreachable(cx, Unreachable::Answered { url, cause });
            }
        }
    }

    fn handle_failure(&mut self, cx: &mut Ctx<'_>, failure: Failure) {
        let host = self.sent.take().unwrap_or_default();
        super::ended(cx, &host);
        let why = Unreachable::Transport {
            kind: failure.kind,
            detail: failure.reason,
        };
        self.unreachable(cx, why);
    }

    fn take_output(&mut self) -> Option<Self::Output> {
        self.end.take()
    }
}
