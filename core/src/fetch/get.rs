//! One gated GET: the gate for every hop and retry, the robots.txt it
//! needs, redirects, and R5 retries under one budget per target.
//!
//! * Every request (the first, each redirect hop, each retry) is admitted
//!   by the gate again: R3, then R2, then R4. A hop to a blocked host or a
//!   disallowed path ends the GET there, denied, naming the hop.
//! * The retry budget (R5: at most five) belongs to the target, not to the
//!   hop: a chain of redirects shares it, so one target costs at most
//!   1 + 5 + [`MAX_REDIRECTS`] requests.
//! * 429, 500, 502, 503 and 504 and network errors are retried after the
//!   Retry-After or the jittered backoff, which also holds the host for
//!   every other request. A wait past the run's patience defers the target
//!   to a later run; retries run out into a one-hour cool-down of the host.
//! * A timeout counts against the host: after [`super::TIMEOUTS_PER_RUN`]
//!   the host is left alone for the rest of the run.
//! * A local failure (the request could not be made, the answer was not
//!   HTTP) and a body past the limit fail at once: retrying meets the same
//!   refusal, and holding the host for it would punish its other sources.

use super::robots::{RobotsDeferral, RobotsFetch};
use super::{
    host_of, is_web, Action, BodyLimit, Ctx, Failure, FailureKind, Machine, Request, Response,
    MAX_REDIRECTS,
};
use crate::backoff::{is_retryable_status, BackoffStep};
use crate::constants::FAILURE_COOLDOWN;
use crate::gate::{Decision, WaitReason};
use crate::outcome::{BlocklistCause, Cause, Deferral, InvalidUrl, RobotsDenial, Unreachable};
use crate::time::Timestamp;
use alloc::string::{String, ToString};
use core::time::Duration;

/// How a GET ended: the one type a source's outcome is made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GetOutcome {
    /// A final answer: 2xx, 304, or a status that is not retried.
    Response {
        /// As it came off the wire.
        response: Response,
        /// The URL that answered (after redirects).
        url: String,
        /// The representation kind of the validators sent, if any (R7).
        sent_kind: Option<String>,
    },
    /// R3 refused `url` (the target or a hop).
    DeniedBlocklist {
        /// The URL refused.
        url: String,
        /// The listed domain.
        domain: String,
        /// Its reason in the list.
        reason: String,
    },
    /// R2 refused `url` (the target or a hop).
    DeniedRobots {
        /// The URL refused.
        url: String,
        /// What in robots.txt denied it.
        denial: RobotsDenial,
    },
    /// Not in this run.
    Deferred {
        /// The URL held back.
        url: String,
        /// Why.
        why: Deferral,
        /// Not before, when known.
        until: Option<Timestamp>,
    },
    /// Not an absolute http(s) URL (or not an operator resource).
    Invalid {
        /// As given.
        url: String,
        /// What is wrong with it.
        error: InvalidUrl,
    },
    /// A failure that ends the GET: too many redirects, retries exhausted,
    /// a local error, a body past the limit.
    Failed {
        /// The URL.
        url: String,
        /// Why.
        cause: Cause,
    },
}

/// One gated GET.
#[derive(Debug, Clone)]
pub struct Get {
    original: String,
    url: String,
    host: Option<crate::gate::HostKey>,
    accept: Option<&'static str>,
    conditional: bool,
    operator: bool,
    hops: u8,
    attempt: u32,
    robots: Option<RobotsFetch>,
    /// A robots.txt fetch already ran for the current URL: if the gate asks
    /// for it again at once, it could not be obtained (never a loop).
    robots_asked: bool,
    /// The host of the request in flight.
    sent: Option<crate::gate::HostKey>,
    end: Option<GetOutcome>,
}

impl Get {
    /// A GET of `url` (absolute, already in the form that is sent) with
    /// `Accept: accept`, conditional on stored validators (R7).
    pub fn new(url: &str, accept: Option<&'static str>) -> Get {
        Get {
            original: url.to_string(),
            url: url.to_string(),
            host: host_of(url),
            accept,
            conditional: true,
            operator: false,
            hops: 0,
            attempt: 0,
            robots: None,
            robots_asked: false,
            sent: None,
            end: None,
        }
    }

    /// The same GET without validators.
    pub fn unconditional(mut self) -> Get {
        self.conditional = false;
        self
    }

    /// A GET of one of the operator's section 5 resources: R4 only for the
    /// resource itself ([`crate::gate::Gate::admit_operator`]); wherever it
    /// redirects to is an ordinary hop, gated in full.
    pub fn operator(url: &str, accept: Option<&'static str>) -> Get {
        let mut g = Get::new(url, accept).unconditional();
        g.operator = true;
        g
    }

    /// The URL as first asked for.
    pub fn original(&self) -> &str {
        &self.original
    }

    /// The URL the next request goes to (a robots.txt fetch included).
    pub fn url(&self) -> &str {
        match &self.robots {
            Some(r) => r.url(),
            None => &self.url,
        }
    }

    /// The `Accept` sent.
    pub fn accept(&self) -> Option<&'static str> {
        self.accept
    }

    fn finish(&mut self, outcome: GetOutcome) {
        self.end = Some(outcome);
    }

    fn failed(&mut self, cause: Cause) {
        let url = self.url.clone();
        self.finish(GetOutcome::Failed { url, cause });
    }

    /// What the gate's refusal means for this GET.
    fn refused(&mut self, cx: &mut Ctx<'_>, refusal: Refused) -> Action<GetOutcome> {
        let url = self.url.clone();
        let outcome = match refusal {
            Refused::NeedBlocklist => return Action::NeedBlocklist,
            // `admit` only refuses with a reason; ask again.
            Refused::Again => return Action::Wait(cx.now),
            Refused::NeedRobots(robots) if self.robots_asked => GetOutcome::Deferred {
                url,
                why: Deferral::RobotsUnobtainable { robots },
                until: None,
            },
            Refused::NeedRobots(robots) => {
                // The robots.txt fetch starts now.
                self.robots_asked = true;
                self.robots = Some(RobotsFetch::new(&self.url, &robots));
                return self.poll(cx);
            }
            Refused::Wait(until, _) if until <= cx.run.horizon(cx.now) => {
                return Action::Wait(until)
            }
            Refused::Wait(until, reason) => GetOutcome::Deferred {
                url,
                why: Deferral::Held {
                    at: cx.now,
                    until,
                    reason,
                },
                until: Some(until),
            },
            Refused::DenyBlocklist { domain, reason } => GetOutcome::DeniedBlocklist {
                url,
                domain,
                reason,
            },
            Refused::DenyRobots(denial) => GetOutcome::DeniedRobots { url, denial },
            Refused::Deferred { until, why } => GetOutcome::Deferred {
                url,
                why: Deferral::RobotsUnreachable { why },
                until: Some(until),
            },
            Refused::Unavailable { until, cause } => GetOutcome::Deferred {
                url,
                why: Deferral::BlocklistUnavailable { cause },
                until: Some(until),
            },
            Refused::Invalid(error) => GetOutcome::Invalid { url, error },
        };
        Action::Done(outcome)
    }

    /// R5: another attempt after `retry_after` or the backoff, holding the
    /// host meanwhile; or the cool-down when the budget is spent.
    fn retry(
        &mut self,
        cx: &mut Ctx<'_>,
        host: &crate::gate::HostKey,
        retry_after: Option<Duration>,
        what: Cause,
    ) {
        let step = cx.run.backoff.next(self.attempt, retry_after, cx.jitter);
        match step {
            BackoffStep::GiveUp => {
                // The last answer's Retry-After binds even when the budget
                // is spent: the cool-down never ends before it (R5: "wait
                // at least that long").
                if let Some(d) = retry_after {
                    let until = super::after(cx, d);
                    cx.run.hold(cx.gate, host, until, WaitReason::RetryAfter);
                }
                let until = super::after(cx, FAILURE_COOLDOWN);
                cx.run.hold(cx.gate, host, until, WaitReason::Cooldown);
                let alone = retry_after.map_or(FAILURE_COOLDOWN, |d| d.max(FAILURE_COOLDOWN));
                self.failed(Cause::RetriesExhausted {
                    last: alloc::boxed::Box::new(what),
                    retries: self.attempt,
                    host: host.clone(),
                    alone_min: alone.as_secs().div_ceil(60),
                });
            }
            BackoffStep::Retry { after } => {
                let until = super::after(cx, after);
                let reason = match retry_after {
                    Some(_) => WaitReason::RetryAfter,
                    None => WaitReason::Backoff,
                };
                cx.run.hold(cx.gate, host, until, reason);
                if after > cx.run.patience {
                    let url = self.url.clone();
                    self.finish(GetOutcome::Deferred {
                        url,
                        why: Deferral::RetryTooLate {
                            last: what,
                            after_s: after.as_secs(),
                            patience_s: cx.run.patience.as_secs(),
                        },
                        until: Some(until),
                    });
                } else {
                    self.attempt += 1;
                }
            }
        }
    }
}

impl Machine for Get {
    type Output = GetOutcome;

    fn next_host(&self) -> Option<crate::gate::HostKey> {
        match &self.robots {
            Some(r) => r.next_host(),
            None => self.host.clone(),
        }
    }

    fn poll(&mut self, cx: &mut Ctx<'_>) -> Action<GetOutcome> {
        if let Some(end) = self.end.take() {
            return Action::Done(end);
        }
        if let Some(r) = &mut self.robots {
            match r.poll(cx) {
                Action::Done(Ok(())) => self.robots = None,
                Action::Done(Err(RobotsDeferral {
                    url,
                    at,
                    until,
                    reason,
                })) => {
                    self.robots = None;
                    return Action::Done(GetOutcome::Deferred {
                        url,
                        why: Deferral::Held { at, until, reason },
                        until: Some(until),
                    });
                }
                Action::Send(req) => return Action::Send(req),
                Action::NeedBlocklist => return Action::NeedBlocklist,
                Action::Wait(t) => return Action::Wait(t),
            }
        }
        if let Some(host) = &self.host {
            if let Some(times) = cx.run.timed_out(host) {
                return Action::Done(GetOutcome::Deferred {
                    url: self.url.clone(),
                    why: Deferral::TimedOut {
                        detail: None,
                        host: host.clone(),
                        times,
                    },
                    until: None,
                });
            }
        }
        let admitted = if self.operator {
            cx.gate.admit_operator(&self.url, cx.now)
        } else {
            cx.gate.admit(&self.url, cx.now)
        };
        match admitted {
            Ok(permit) => {
                self.sent = Some(crate::gate::HostKey::from_stored(permit.host()));
                Action::Send(Request {
                    permit,
                    accept: self.accept,
                    conditional: self.conditional,
                    limit: BodyLimit::Document,
                })
            }
            // The decision borrows the gate; own what the answer needs.
            Err(d) => {
                let refusal = Refused::from(d);
                self.refused(cx, refusal)
            }
        }
    }

    fn handle_response(&mut self, cx: &mut Ctx<'_>, resp: Response, sent_kind: Option<&str>) {
        if let Some(r) = &mut self.robots {
            return r.handle_response(cx, resp, sent_kind);
        }
        let host = self.sent.take().unwrap_or_default();
        super::ended(cx, &host);
        let s = resp.status;
        if (300..400).contains(&s) && s != 304 {
            match resp.location {
                None => self.failed(Cause::NoLocation { status: s }),
                Some(n) if !is_web(&n) => self.failed(Cause::NotWebRedirect { location: n }),
                Some(_) if self.hops >= MAX_REDIRECTS => {
                    let url = self.original.clone();
                    self.finish(GetOutcome::Failed {
                        url,
                        cause: Cause::TooManyRedirects,
                    });
                }
                Some(n) => {
                    self.hops += 1;
                    self.host = host_of(&n);
                    self.url = n;
                    self.robots_asked = false;
                    // Only the section 5 URL itself is exempt from R3 and
                    // R2; wherever it redirects to is an ordinary hop.
                    self.operator = false;
                }
            }
            return;
        }
        if is_retryable_status(s) {
            let after = resp
                .retry_after
                .as_deref()
                .and_then(|v| crate::retry_after::parse_retry_after(v, cx.now).ok());
            return self.retry(cx, &host, after, Cause::Status { status: s });
        }
        let url = self.url.clone();
        self.finish(GetOutcome::Response {
            response: resp,
            url,
            sent_kind: sent_kind.map(str::to_string),
        });
    }

    fn handle_failure(&mut self, cx: &mut Ctx<'_>, failure: Failure) {
        if let Some(r) = &mut self.robots {
            return r.handle_failure(cx, failure);
        }
        let host = self.sent.take().unwrap_or_default();
        super::ended(cx, &host);
        let kind = failure.kind;
        let cause = Cause::Transport {
            kind,
            detail: failure.reason,
        };
        match kind {
            FailureKind::TimedOut => {
                cx.run.note_timeout(&host);
                if let Some(times) = cx.run.timed_out(&host) {
                    let url = self.url.clone();
                    let Cause::Transport { detail, .. } = cause else {
                        return;
                    };
                    self.finish(GetOutcome::Deferred {
                        url,
                        why: Deferral::TimedOut {
                            detail: Some(detail),
                            host,
                            times,
                        },
                        until: None,
                    });
                } else {
                    self.retry(cx, &host, None, cause);
                }
            }
            FailureKind::Network => self.retry(cx, &host, None, cause),
            FailureKind::Local | FailureKind::TooLarge { .. } => self.failed(cause),
        }
    }

    fn take_output(&mut self) -> Option<GetOutcome> {
        self.end.take()
    }
}

/// A gate refusal with its borrowed parts owned, so the machine can change
/// itself while answering it.
enum Refused {
    NeedBlocklist,
    NeedRobots(String),
    Again,
    Wait(Timestamp, WaitReason),
    DenyBlocklist {
        domain: String,
        reason: String,
    },
    DenyRobots(RobotsDenial),
    Deferred {
        until: Timestamp,
        why: Unreachable,
    },
    Unavailable {
        until: Timestamp,
        cause: BlocklistCause,
    },
    Invalid(InvalidUrl),
}

impl From<Decision<'_>> for Refused {
    fn from(d: Decision<'_>) -> Refused {
        match d {
            Decision::NeedBlocklist => Refused::NeedBlocklist,
            Decision::NeedRobots(u) => Refused::NeedRobots(u),
            Decision::Ready => Refused::Again,
            Decision::Wait { until, reason } => Refused::Wait(until, reason),
            Decision::DenyBlocklist(b) => Refused::DenyBlocklist {
                domain: b.domain.clone(),
                reason: b.reason.clone(),
            },
            Decision::DenyRobots(v) => Refused::DenyRobots(RobotsDenial::of(&v)),
            Decision::Deferred { until, reason } => Refused::Deferred {
                until,
                why: reason.clone(),
            },
            Decision::BlocklistUnavailable { until, reason } => Refused::Unavailable {
                until,
                cause: reason.clone(),
            },
            Decision::Invalid(e) => Refused::Invalid(InvalidUrl::Url(e)),
            Decision::NotOperatorResource => Refused::Invalid(InvalidUrl::NotOperatorResource),
        }
    }
}
