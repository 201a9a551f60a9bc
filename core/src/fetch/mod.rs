//! Every decision of a fetch, as sans-I/O state machines.
//!
//! The gate ([`crate::gate`]) says whether one request may go now. A fetch
//! is more than one request: robots.txt first (section 9.1.1 says what each
//! of its answers means), redirect hops that are each gated again, R5
//! retries under one budget per target, Retry-After holds, local errors
//! that must not be retried, the R9 stages of a source, and the operator's
//! own section 5 resources. Those decisions live here, in machines that
//! never touch a socket, a clock, a disk or a random number generator, in
//! the manner of `quinn-proto`: the driver (the `feeds` crate) feeds them
//! events and asks what to do next.
//!
//! * [`Get`]: one gated GET of a target (or of an operator resource that
//!   may redirect), with the robots.txt fetch it needs ([`RobotsFetch`]),
//!   its redirects and its retries;
//! * [`RobotsFetch`]: one origin's robots.txt and what its answer means;
//! * [`SourceFetch`]: one declared source through R9 (feed, then
//!   `Accept: text/markdown`, then `/llms.txt`, else left out);
//! * [`OperatorGet`] and [`BlocklistRefresh`]: the section 5 resources and
//!   R3/R3b/R12's rules for adopting, keeping or doing without a blocklist;
//! * [`Check`]: the gate's answer for a URL without requesting it (the
//!   blocklist and robots.txt it needs first, the host's slot).
//!
//! Every driver runs them with one loop, [`driver`], over a
//! [`driver::Runtime`] that supplies the clock, the transport and the
//! store.
//!
//! Each machine answers [`Machine::poll`] with an [`Action`]: send this
//! request under this [`Permit`] (a permit from the gate), fetch the blocklist
//! first, wait until an instant, or done with an outcome. The driver sends
//! and reports back with [`Machine::handle_response`] or
//! [`Machine::handle_failure`]. What must outlive the machine (a hold, a
//! robots.txt to store, a notice for the reader) is queued on the [`Run`]
//! as an [`Effect`] for the driver to persist. Every outcome (a denial,
//! a deferral, a failure, a notice) is a value of [`crate::outcome`] with
//! its facts: the machines write no words for people. Tests drive the
//! machines with made-up responses and instants; no server, no sleeping.
//!
//! One GET, driven by hand: a redirect is followed only through the gate
//! again, here after R4's one-second wait for the host.
//!
//! ```
//! use core::time::Duration;
//! use wr_core::backoff::Backoff;
//! use wr_core::blocklist::Blocklist;
//! use wr_core::fetch::{Action, Ctx, Get, GetOutcome, Machine, Response, Run};
//! use wr_core::gate::{Gate, GateConfig};
//! use wr_core::time::Timestamp;
//! use wr_core::url::Url;
//!
//! let t0 = Timestamp(1_700_000_000_000);
//! let mut gate = Gate::new(GateConfig::default());
//! gate.blocklist_adopted(Blocklist::empty(), t0);
//! gate.robots_not_found(&Url::parse("https://example.com/").unwrap(), t0);
//! let mut run = Run::new(Duration::from_secs(300), Backoff::default());
//! let mut cx = Ctx { gate: &mut gate, run: &mut run, now: t0, jitter: 0.5 };
//!
//! let mut get = Get::new("https://example.com/feed", None);
//! let Action::Send(req) = get.poll(&mut cx) else { panic!("send first") };
//! assert_eq!(req.url(), "https://example.com/feed");
//! let moved = Response {
//!     status: 301,
//!     location: Some("https://example.com/new".into()),
//!     ..Response::default()
//! };
//! get.handle_response(&mut cx, moved, None);
//!
//! let Action::Wait(slot) = get.poll(&mut cx) else { panic!("R4 first") };
//! cx.now = slot;
//! let Action::Send(req) = get.poll(&mut cx) else { panic!("then the hop") };
//! assert_eq!(req.url(), "https://example.com/new");
//! let ok = Response { status: 200, body: b"<rss/>".to_vec(), ..Response::default() };
//! get.handle_response(&mut cx, ok, None);
//! assert!(matches!(
//!     get.take_output(),
//!     Some(GetOutcome::Response { url, .. }) if url == "https://example.com/new"
//! ));
//! ```
//!
//! What the driver still does, because it is I/O or parsing rather than a
//! decision: it resolves a `Location` against the request URL (with a
//! WHATWG parser, so `..` and `%2e` are gone before R2 judges the hop), it
//! looks up and stores validators, it extracts items from bodies, and it
//! validates the blocklist document against its JSON schema.

mod check;
mod content;
pub mod driver;
mod get;
mod operator;
mod robots;
mod source;

pub use crate::outcome::{
    BlocklistCause, Cause, DecidingRule, Deferral, InvalidUrl, LeftOut, Notice, Refusal,
    RobotsDenial, SourceFailure, Unreachable,
};
pub use check::{Check, Checked};
pub use content::{content_kind, ContentKind};
pub use get::{Get, GetOutcome};
pub use operator::{
    BlocklistRefresh, OperatorFailure, OperatorGet, OperatorOutcome, RefreshEvent, Refreshed,
    Stored,
};
pub use robots::{RobotsDeferral, RobotsFetch};
pub use source::{
    Extract, Parser, SourceEvent, SourceFetch, SourceOutcome, Stage, FEED_ACCEPT, LLMS_ACCEPT,
    MARKDOWN_ACCEPT,
};

use crate::backoff::Backoff;
use crate::blocklist::Blocklist;
use crate::gate::{Gate, HostKey, Origin, Permit, WaitReason};
use crate::time::Timestamp;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use core::time::Duration;

/// Redirect hops followed per request (C6).
pub const MAX_REDIRECTS: u8 = 5;

/// Timeouts after which a host is left alone for the rest of a run: a dead
/// host costs two timeouts, not five retries for each of its sources.
pub const TIMEOUTS_PER_RUN: u32 = 2;

/// A response as the machines see it. The driver moves it in and the
/// machine hands it back unchanged in its outcome: the bytes a digest is
/// built from are the bytes that came off the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `ETag`.
    pub etag: Option<String>,
    /// `Last-Modified`.
    pub last_modified: Option<String>,
    /// `Location`, resolved by the driver against the request URL into an
    /// absolute URL; `None` when absent or unresolvable.
    pub location: Option<String>,
    /// `Retry-After`, as sent.
    pub retry_after: Option<String>,
    /// `Cache-Control`, as sent: its `max-age` is a publisher hint
    /// ([`crate::hints`]).
    pub cache_control: Option<String>,
    /// `Expires`, as sent (a publisher hint).
    pub expires: Option<String>,
    /// `Date`, as sent: what `Expires` is measured from.
    pub date: Option<String>,
    /// Body (cut at the limit for robots.txt, see `truncated`).
    pub body: Vec<u8>,
    /// Whether the body was cut at [`BodyLimit::Robots`].
    pub truncated: bool,
}

/// What kind of transport failure happened; the kind decides, the text
/// only explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FailureKind {
    /// A connect, idle or whole-request timeout: retryable, and counted
    /// against [`TIMEOUTS_PER_RUN`].
    TimedOut,
    /// Refused, reset, closed early, DNS, TLS: retryable (R5, C5).
    Network,
    /// The request could not be made as asked (a URL too long for a request
    /// line), or the answer was not HTTP that can be read. Retrying would
    /// meet the same refusal: no retry, no hold, the one fetch fails.
    Local,
    /// The body went past the driver's limit for documents.
    TooLarge {
        /// The limit in bytes.
        limit: u64,
    },
}

/// A request that got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// What happened.
    pub kind: FailureKind,
    /// The transport's words (untrusted: may quote the server).
    pub reason: String,
}

/// The validators the driver stores for one URL and `Accept` and sends
/// back with a conditional request (R7): the store's row and the
/// transport's input are this one value, so neither imports the other.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Validators {
    /// `ETag`.
    pub etag: Option<String>,
    /// `Last-Modified`.
    pub last_modified: Option<String>,
    /// Which representation they belong to (`feed`, `markdown`, `llms-txt`,
    /// `other`, ...): what a 304 means (R7).
    pub kind: Option<String>,
}

/// How much of a body the driver keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyLimit {
    /// robots.txt: keep one octet past the 500 KiB the parser reads, so it
    /// sees that a longer file was cut, and never fail.
    Robots,
    /// Everything else: fail past the configured document limit.
    Document,
}

/// A request a machine wants sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The gate's permit: it names the URL (untagged) and the host.
    pub permit: Permit,
    /// `Accept`, if any.
    pub accept: Option<&'static str>,
    /// Whether the driver should send the validators it stored for this
    /// URL and `Accept` (R7).
    pub conditional: bool,
    /// How much of the body to keep.
    pub limit: BodyLimit,
}

impl Request {
    /// The URL to send.
    pub fn url(&self) -> &str {
        self.permit.url()
    }
}

/// What a machine asks of its driver.
#[derive(Debug, Clone, PartialEq)]
pub enum Action<T> {
    /// Send this request, then report with `handle_response` or
    /// `handle_failure`.
    Send(Request),
    /// The blocklist must be fetched or refreshed first (R3, R12
    /// block-on-refresh): run a [`BlocklistRefresh`], then poll again.
    NeedBlocklist,
    /// Poll again at this instant (R4 spacing, R5 backoff), no later than
    /// the run's patience allows.
    Wait(Timestamp),
    /// The machine has something to say (for most machines: it is done).
    Done(T),
}

/// Something the driver must make last: persist, or show the reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// R5: nothing goes to `host` before `until` (already in the gate).
    Hold {
        /// The throttle key.
        host: HostKey,
        /// Not before.
        until: Timestamp,
        /// The server's Retry-After, our backoff, or the cool-down after
        /// retries ran out: a store must keep a Retry-After apart, since
        /// only it may never be shortened by the operator (R5).
        reason: WaitReason,
    },
    /// An origin's robots.txt answered (2xx with `body`, or 4xx: allow
    /// all); already in the gate, to be stored for the next run.
    Robots {
        /// The origin whose robots.txt it is.
        origin: Origin,
        /// The status.
        status: u16,
        /// The body (empty for a 4xx).
        body: Vec<u8>,
        /// When.
        fetched_at: Timestamp,
    },
    /// A blocklist was adopted (R3c); already in the gate.
    BlocklistAdopted {
        /// The list.
        list: Blocklist,
        /// When it was fetched (or confirmed by a 304).
        fetched_at: Timestamp,
        /// The validators (`ETag`, `Last-Modified`) of a new document, to
        /// be stored in place of the old ones; `None` for a 304, which
        /// keeps them.
        validators: Option<(Option<String>, Option<String>)>,
    },
    /// A page answered with something R9 cannot use: remember its
    /// validators with that kind, so a 304 next time goes straight on to
    /// `/llms.txt`.
    PageIsOther {
        /// The URL that answered.
        url: String,
        /// The `Accept` it was asked with.
        accept: &'static str,
        /// `ETag`.
        etag: Option<String>,
        /// `Last-Modified`.
        last_modified: Option<String>,
    },
    /// A request to `host` ended at `at`: its spacing counts from here
    /// (R4, measured conservatively from the end of the exchange); already
    /// in the gate, to be stored for other processes (R4a).
    RequestEnded {
        /// The throttle key.
        host: HostKey,
        /// The end of the exchange, rounded up to the next millisecond.
        at: Timestamp,
    },
    /// A note for the reader (untrusted text inside: clean before showing).
    Notice(Notice),
}

/// What one run shares between its machines: the run's patience, the R5
/// schedule, the hosts that timed out, and the effects not yet taken.
#[derive(Debug, Clone)]
pub struct Run {
    /// How long the run waits for a host (a longer hold defers instead).
    pub patience: Duration,
    /// R5's retry schedule.
    pub backoff: Backoff,
    timeouts: BTreeMap<HostKey, u32>,
    /// Requests sent for the blocklist in this run (bounded by
    /// [`crate::constants::BLOCKLIST_REQUESTS_PER_RUN`]).
    blocklist_requests: u32,
    effects: Vec<Effect>,
}

impl Run {
    /// A run that waits at most `patience` for a host.
    pub fn new(patience: Duration, backoff: Backoff) -> Run {
        Run {
            patience,
            backoff,
            timeouts: BTreeMap::new(),
            blocklist_requests: 0,
            effects: Vec::new(),
        }
    }

    /// The effects queued since the last call, oldest first.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        core::mem::take(&mut self.effects)
    }

    /// Queues an effect.
    pub fn push(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// The last instant this run waits for, seen from `now`.
    pub fn horizon(&self, now: Timestamp) -> Timestamp {
        now.saturating_add(self.patience)
    }

    /// How many times `host` timed out in this run, when that is too often
    /// to ask it again before the next run.
    pub fn timed_out(&self, host: &str) -> Option<u32> {
        let n = *self.timeouts.get(host)?;
        (n >= TIMEOUTS_PER_RUN).then_some(n)
    }

    /// How many requests for the blocklist this run has sent.
    pub fn blocklist_requests(&self) -> u32 {
        self.blocklist_requests
    }

    fn note_timeout(&mut self, host: &HostKey) {
        *self.timeouts.entry(host.clone()).or_default() += 1;
    }

    /// Puts a hold in the gate and queues it for the store.
    fn hold(&mut self, gate: &mut Gate, host: &HostKey, until: Timestamp, reason: WaitReason) {
        gate.hold_host(host, until, reason);
        self.push(Effect::Hold {
            host: host.clone(),
            until,
            reason,
        });
    }
}

/// What a machine is given each time it is asked or told something.
#[derive(Debug)]
pub struct Ctx<'a> {
    /// What the bot knows.
    pub gate: &'a mut Gate,
    /// The run.
    pub run: &'a mut Run,
    /// The current instant.
    pub now: Timestamp,
    /// A fresh random value in `[0, 1)` for backoff jitter.
    pub jitter: f64,
}

/// The interface every fetch machine offers its driver.
pub trait Machine {
    /// What it answers when it has something to say.
    type Output;

    /// The throttle key of the host its next request would go to, when it
    /// knows: the driver takes that host's cross-process slot (R4a) around
    /// [`Machine::poll`], and the scheduler orders work by it.
    fn next_host(&self) -> Option<HostKey>;

    /// What to do now.
    fn poll(&mut self, cx: &mut Ctx<'_>) -> Action<Self::Output>;

    /// The request last asked for was answered. `sent_kind` is the
    /// representation kind stored with the validators the driver sent, if
    /// it sent any (R7: a 304 means "the same kind as before").
    fn handle_response(&mut self, cx: &mut Ctx<'_>, response: Response, sent_kind: Option<&str>);

    /// The request last asked for got no response.
    fn handle_failure(&mut self, cx: &mut Ctx<'_>, failure: Failure);

    /// The output, if the last event decided it: lets the driver act on a
    /// response (store a source's items) at once, without a poll that
    /// might already admit the next request.
    fn take_output(&mut self) -> Option<Self::Output>;
}

/// `d` after now, rounded up to the next millisecond: the clock reads whole
/// milliseconds (floor), and a hold must last at least what the server
/// asked for ("wait at least that long"), never 1 ms less.
fn after(cx: &Ctx<'_>, d: core::time::Duration) -> Timestamp {
    Timestamp(cx.now.0.saturating_add(1)).saturating_add(d)
}

/// Records the end of an exchange with `host`. +1 ms: the clock reads whole
/// milliseconds (floor); rounding the end up keeps the next start strictly
/// max(1 s, Crawl-delay) after it.
fn ended(cx: &mut Ctx<'_>, host: &HostKey) {
    if host.is_empty() {
        return;
    }
    let at = Timestamp(cx.now.0.saturating_add(1));
    cx.gate.observe_request(host, at);
    cx.run.push(Effect::RequestEnded {
        host: host.clone(),
        at,
    });
}

/// The throttle key of an absolute URL, or `None` if it is not one.
fn host_of(url: &str) -> Option<HostKey> {
    crate::url::Url::parse(url).ok().map(|u| HostKey::of(&u))
}

/// Whether a resolved `Location` is one the bot follows at all.
fn is_web(url: &str) -> bool {
    let lower = |p: &str| {
        url.len() >= p.len() && url.as_bytes()[..p.len()].eq_ignore_ascii_case(p.as_bytes())
    };
    lower("http://") || lower("https://")
}
