//! The operator's section 5 resources, and the blocklist's life (R3, R3b,
//! R3c, R10, R12).
//!
//! [`OperatorGet`] fetches one section 5 resource: only R4 applies
//! ([`crate::gate::Gate::admit_operator`]), nothing is retried within a run,
//! and a Retry-After the operator sends still holds its host for every
//! other request (R5).
//!
//! [`BlocklistRefresh`] decides what a refresh means:
//!
//! * a valid document is adopted (R3c); a 304 re-adopts the stored list;
//! * a failed refresh keeps the last adopted list (R3b), retried after
//!   [`crate::gate::REFRESH_RETRY`];
//! * with no list ever adopted, a *first fetch that failed* runs with an
//!   empty list (the spec's fail-open, loudly);
//! * but a list that could not even be asked for (the operator host is
//!   held past the run's patience) or a stored list that cannot be read is
//!   not "a first fetch that failed": targets are deferred until the list
//!   can be asked for, never fetched unprotected;
//! * a run asks for the list at most
//!   [`BLOCKLIST_REQUESTS_PER_RUN`] times: past that a refresh is not
//!   sent and counts as failed (the list in force stays, R3b), like
//!   robots.txt, which a run does not ask for again either. With the
//!   refresh floor ([`crate::constants::BLOCKLIST_REFRESH_FLOOR`]) no run
//!   shorter than an hour reaches the bound; it stops what the floor
//!   cannot, a clock that keeps jumping ahead (issue #18).

use super::{Action, Ctx, Effect, Failure, Machine, Request, Response};
use crate::backoff::is_retryable_status;
use crate::blocklist::Blocklist;
use crate::constants::{BLOCKLIST_REFRESH_FLOOR, BLOCKLIST_REQUESTS_PER_RUN};
use crate::gate::{Decision, WaitReason, REFRESH_RETRY};
use crate::outcome::{BlocklistCause, Notice, Refusal};
use crate::time::Timestamp;
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// Why an operator resource was not obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorFailure {
    /// Why, naming the URL.
    pub cause: BlocklistCause,
    /// Set when the request was never sent: the operator host is held
    /// until then (R5 cool-down or a Retry-After past the run's patience).
    pub held_until: Option<Timestamp>,
}

/// How an [`OperatorGet`] ended.
pub type OperatorOutcome = Result<Response, OperatorFailure>;

/// One section 5 resource.
#[derive(Debug, Clone)]
pub struct OperatorGet {
    url: String,
    host: Option<crate::gate::HostKey>,
    accept: &'static str,
    conditional: bool,
    sent: Option<crate::gate::HostKey>,
    end: Option<OperatorOutcome>,
}

impl OperatorGet {
    /// A GET of `url` (the operator base and a section 5 path) with
    /// `Accept: accept`, conditional on stored validators when asked.
    pub fn new(url: &str, accept: &'static str, conditional: bool) -> OperatorGet {
        OperatorGet {
            url: url.to_string(),
            host: super::host_of(url),
            accept,
            conditional,
            sent: None,
            end: None,
        }
    }

    fn fail(&mut self, cause: BlocklistCause) {
        self.end = Some(Err(OperatorFailure {
            cause,
            held_until: None,
        }));
    }
}

impl Machine for OperatorGet {
    type Output = OperatorOutcome;

    fn next_host(&self) -> Option<crate::gate::HostKey> {
        self.host.clone()
    }

    fn poll(&mut self, cx: &mut Ctx<'_>) -> Action<OperatorOutcome> {
        if let Some(end) = self.end.take() {
            return Action::Done(end);
        }
        match cx.gate.admit_operator(&self.url, cx.now) {
            Ok(permit) => {
                self.sent = Some(crate::gate::HostKey::from_stored(permit.host()));
                Action::Send(Request {
                    permit,
                    accept: Some(self.accept),
                    conditional: self.conditional,
                    limit: super::BodyLimit::Document,
                })
            }
            Err(Decision::Wait { until, .. }) if until > cx.run.horizon(cx.now) => {
                // Not asked at all: the caller must not take this for a
                // fetch that failed.
                Action::Done(Err(OperatorFailure {
                    cause: BlocklistCause::Held {
                        url: self.url.clone(),
                        secs: cx.now.until(until).as_secs(),
                    },
                    held_until: Some(until),
                }))
            }
            Err(Decision::Wait { until, .. }) => Action::Wait(until),
            Err(other) => Action::Done(Err(OperatorFailure {
                cause: BlocklistCause::Refused {
                    url: self.url.clone(),
                    refusal: Refusal::from(other),
                },
                held_until: None,
            })),
        }
    }

    fn handle_response(&mut self, cx: &mut Ctx<'_>, resp: Response, _sent_kind: Option<&str>) {
        let host = self.sent.take().unwrap_or_default();
        super::ended(cx, &host);
        // R5 holds for the operator too: a rate-limited refresh keeps the
        // last list (R3b) and is retried later, but the operator's
        // Retry-After still binds every other request to its host.
        if is_retryable_status(resp.status) {
            let after = resp
                .retry_after
                .as_deref()
                .and_then(|v| crate::retry_after::parse_retry_after(v, cx.now).ok());
            if let Some(d) = after {
                cx.run
                    .hold(cx.gate, &host, super::after(cx, d), WaitReason::RetryAfter);
            }
        }
        self.end = Some(Ok(resp));
    }

    fn handle_failure(&mut self, cx: &mut Ctx<'_>, failure: Failure) {
        let host = self.sent.take().unwrap_or_default();
        super::ended(cx, &host);
        self.fail(BlocklistCause::Transport {
            url: self.url.clone(),
            kind: failure.kind,
            detail: failure.reason,
        });
    }

    fn take_output(&mut self) -> Option<OperatorOutcome> {
        self.end.take()
    }
}

/// What the store holds of the last adopted list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// Nothing: no list was ever adopted.
    Nothing,
    /// A list that reads back.
    List(Blocklist),
    /// A row that cannot be read: a list was adopted once, and what it
    /// protected is unknown.
    Unreadable,
}

/// Where the blocklist in force came from after a refresh.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refreshed {
    /// Fetched (or confirmed by a 304) and adopted now.
    Fresh {
        /// Entries.
        entries: usize,
    },
    /// The refresh failed; the last adopted list stays (R3b).
    Retained {
        /// Entries.
        entries: usize,
        /// Why the refresh failed.
        cause: BlocklistCause,
    },
    /// The first fetch failed: an empty list, fail open (R3b).
    Fallback {
        /// Why.
        cause: BlocklistCause,
    },
    /// No usable list and none could be asked for: targets are deferred.
    Unavailable {
        /// Why.
        cause: BlocklistCause,
    },
}

/// What a [`BlocklistRefresh`] has to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefreshEvent {
    /// Validate this document (R3c, R10) and answer with
    /// [`BlocklistRefresh::validated`].
    Validate {
        /// The document.
        body: Vec<u8>,
        /// Its validators, stored with the list when it is adopted.
        etag: Option<String>,
        /// Its validators.
        last_modified: Option<String>,
    },
    /// Done.
    Finished(Refreshed),
}

/// One refresh of the operator blocklist.
#[derive(Debug, Clone)]
pub struct BlocklistRefresh {
    get: OperatorGet,
    stored: Stored,
    validating: Option<(Option<String>, Option<String>)>,
    /// Whether this refresh has sent its request (it counts once against
    /// the run's bound).
    asked: bool,
    end: Option<Refreshed>,
}

impl BlocklistRefresh {
    /// Refreshes from `url` given what the store holds. Validators are sent
    /// only when a readable list is stored (a 304 must have a list to
    /// confirm).
    pub fn new(url: &str, stored: Stored) -> BlocklistRefresh {
        let conditional = matches!(stored, Stored::List(_));
        BlocklistRefresh {
            get: OperatorGet::new(url, "application/json", conditional),
            stored,
            validating: None,
            asked: false,
            end: None,
        }
    }

    /// The answer to [`RefreshEvent::Validate`]: the validated list, or why
    /// the document was refused (the validator's words).
    pub fn validated(&mut self, cx: &mut Ctx<'_>, result: Result<Blocklist, String>) {
        let validators = self.validating.take().unwrap_or_default();
        match result {
            Ok(list) => self.adopt(cx, list, Some(validators)),
            Err(detail) => {
                let url = self.get.url.clone();
                self.failed(cx, BlocklistCause::Invalid { url, detail }, None)
            }
        }
    }

    fn adopt(
        &mut self,
        cx: &mut Ctx<'_>,
        list: Blocklist,
        validators: Option<(Option<String>, Option<String>)>,
    ) {
        let entries = list.len();
        if validators.is_some() && list.refresh_was_floored() {
            cx.run.push(Effect::Notice(Notice::RefreshFloored {
                written: list.refresh_as_written(),
                floor: BLOCKLIST_REFRESH_FLOOR,
                read: list.refresh(),
            }));
        }
        cx.gate.blocklist_adopted(list.clone(), cx.now);
        cx.run.push(Effect::BlocklistAdopted {
            list,
            fetched_at: cx.now,
            validators,
        });
        self.end = Some(Refreshed::Fresh { entries });
    }

    /// R3b, and what it does not cover.
    fn failed(&mut self, cx: &mut Ctx<'_>, cause: BlocklistCause, held_until: Option<Timestamp>) {
        let adopted = cx.gate.blocklist().is_some() && !cx.gate.blocklist_is_fallback();
        let unreadable = self.stored == Stored::Unreadable;
        self.end = Some(if !adopted && (held_until.is_some() || unreadable) {
            // The fail-open covers a first fetch that failed, not a list
            // never asked for nor one adopted once that cannot be read.
            let cause = if unreadable {
                BlocklistCause::StoredUnreadable {
                    cause: Box::new(cause),
                }
            } else {
                cause
            };
            let until = held_until.unwrap_or(cx.now.saturating_add(REFRESH_RETRY));
            cx.gate.blocklist_unavailable(cx.now, until, &cause);
            cx.run.push(Effect::Notice(Notice::BlocklistUnavailable {
                cause: cause.clone(),
            }));
            Refreshed::Unavailable { cause }
        } else {
            cx.gate.blocklist_failed(cx.now);
            if cx.gate.blocklist_is_fallback() {
                cx.run.push(Effect::Notice(Notice::BlocklistFallback {
                    cause: cause.clone(),
                }));
                Refreshed::Fallback { cause }
            } else {
                let entries = cx.gate.blocklist().map_or(0, |l| l.len());
                cx.run.push(Effect::Notice(Notice::BlocklistRetained {
                    cause: cause.clone(),
                    entries,
                }));
                Refreshed::Retained { entries, cause }
            }
        });
    }
}

impl Machine for BlocklistRefresh {
    type Output = RefreshEvent;

    fn next_host(&self) -> Option<crate::gate::HostKey> {
        self.get.next_host()
    }

    fn poll(&mut self, cx: &mut Ctx<'_>) -> Action<RefreshEvent> {
        if let Some(end) = self.end.take() {
            return Action::Done(RefreshEvent::Finished(end));
        }
        if !self.asked && cx.run.blocklist_requests >= BLOCKLIST_REQUESTS_PER_RUN {
            let cause = BlocklistCause::NotAskedAgain {
                url: self.get.url.clone(),
                asked: cx.run.blocklist_requests,
            };
            self.failed(cx, cause, None);
            return self.poll(cx);
        }
        let resp = match self.get.poll(cx) {
            Action::Done(Ok(resp)) => resp,
            Action::Done(Err(e)) => {
                self.failed(cx, e.cause, e.held_until);
                return self.poll(cx);
            }
            Action::Send(r) => {
                if !self.asked {
                    self.asked = true;
                    cx.run.blocklist_requests += 1;
                }
                return Action::Send(r);
            }
            Action::NeedBlocklist => return Action::NeedBlocklist,
            Action::Wait(t) => return Action::Wait(t),
        };
        let url = self.get.url.clone();
        match resp.status {
            304 => match &self.stored {
                Stored::List(list) => {
                    let list = list.clone();
                    self.adopt(cx, list, None);
                }
                _ => self.failed(cx, BlocklistCause::NotModifiedWithoutList { url }, None),
            },
            200..=299 => {
                self.validating = Some((resp.etag.clone(), resp.last_modified.clone()));
                return Action::Done(RefreshEvent::Validate {
                    body: resp.body,
                    etag: resp.etag,
                    last_modified: resp.last_modified,
                });
            }
            status => self.failed(cx, BlocklistCause::Status { url, status }, None),
        }
        self.poll(cx)
    }

    fn handle_response(&mut self, cx: &mut Ctx<'_>, resp: Response, sent_kind: Option<&str>) {
        self.get.handle_response(cx, resp, sent_kind)
    }

    fn handle_failure(&mut self, cx: &mut Ctx<'_>, failure: Failure) {
        self.get.handle_failure(cx, failure)
    }
    fn take_output(&mut self) -> Option<RefreshEvent> {
        self.end.take().map(RefreshEvent::Finished)
    }
}
