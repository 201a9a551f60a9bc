//! The pipeline: sources through R9, every request through the gate.
//!
//! Each source is a sequential *job* (robots.txt, target, redirect hops,
//! retries, R9 fallbacks); jobs are interleaved by [`crate::schedule`] so a
//! request to a ready host goes while another host must wait. Requests are
//! strictly serial (one thread, one request at a time: R4).
//!
//! Decisions where the spec is silent (collected for docs/conformance.md):
//!
//! * **R12: block-on-refresh.** A stale blocklist is refreshed before the
//!   next gated request, synchronously (sleeping for the operator host's
//!   slot if needed). A stale robots.txt is refreshed before the next
//!   request to its origin (the gate answers `NeedRobots`).
//! * **Blocklist and robots.txt are not retried within a run.** A failed
//!   blocklist refresh keeps the last list (R3b) and is retried 15 minutes
//!   later; a failed robots.txt (5xx, 429, timeout, too many redirects)
//!   uses the cached copy or defers the host for this run (9.1.1). Only
//!   targets get R5 retries (429, 500, 502, 503, 504 and transport errors).
//! * **R4 spacing is measured conservatively:** the slot is taken (and
//!   persisted) when the request starts and the host's last-request instant
//!   is moved to when the response ends, so the next request to that host
//!   starts at least max(1 s, Crawl-delay) after the previous one finished.
//! * **robots.txt redirects:** up to 5 hops, each admitted with
//!   `admit_robots_hop` (R3 + R4 for the hop's host, a permit for exactly
//!   the hop's URL); a sixth hop or a hop to a
//!   blocked host counts as "unreachable" (cached copy or defer), the
//!   conservative reading of RFC 9309 2.3.1.2.
//! * **A declared feed is the only path for that source**: if it fails the
//!   source fails (no silent switch to the page). A page denied by R2/R3
//!   ends the source (no llms.txt attempt); an llms.txt denied by robots.txt
//!   leaves the source out.
//! * **Page answers**: markdown Content-Type -> markdown; a feed
//!   Content-Type -> parsed as a feed; anything else (HTML, text/plain, no
//!   type) -> llms.txt. A page 4xx/5xx (after retries) fails the source.
//! * **R7**: validators are stored per (URL, Accept) for the URL that
//!   answered (each redirect hop looks up its own), with the representation
//!   they belong to, so a 304 on a page known to be HTML goes on to
//!   llms.txt. Items are kept per source keyed by canonical URL with
//!   `first_seen`; "new" means first seen for that source and not yet
//!   reported delivered ([`Pipeline::mark_reported`]).
//! * **R8**: `last_run` is recorded for every finished source except
//!   deferred ones (so a deferred source is tried again next run).

use crate::blocklist_doc;
use crate::clock::{Clock, Jitter};
use crate::config::Config;
use crate::extract::{self, content_kind, ContentKind, Item};
use crate::http::{BodyLimit, Http, HttpError, Request, Response, ROBOTS_BODY_LIMIT};
use crate::report::{
    BlocklistState, CheckReport, Event, FetchError, Fetched, Method, Progress, RunReport,
    SourceReport, SourceStatus,
};
use crate::schedule::{Next, Schedule};
use crate::store::{BlocklistRow, HostRow, RobotsRow, Store, StoreError, Validators};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use wr_core::backoff::{is_retryable_status, Backoff, BackoffStep};
use wr_core::blocklist::{BlockedDomain, Blocklist};
use wr_core::constants::{BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, FAILURE_COOLDOWN, SCHEMA_TTL};
use wr_core::gate::{host_key, origin_key, Decision, Gate, GateConfig, Permit, WaitReason};
use wr_core::robots::{Policy, Reading};
use wr_core::time::Timestamp;
use wr_core::url::Url as CoreUrl;

/// R8: a source is not fetched again within this long (without `force`).
pub const MIN_SOURCE_INTERVAL: Duration = Duration::from_secs(3600);
/// Redirect hops followed per request (C6).
pub const MAX_REDIRECTS: u8 = 5;
/// `Accept` for a declared feed.
pub const FEED_ACCEPT: &str = "application/atom+xml, application/rss+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.1";
/// `Accept` for a page (R9 content negotiation).
pub const MARKDOWN_ACCEPT: &str = "text/markdown";
/// `Accept` for `/llms.txt`.
pub const LLMS_ACCEPT: &str = "text/markdown, text/plain;q=0.9";

/// One declared source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    /// Unique name (the key of R8's last run and of the items seen).
    pub name: String,
    /// The page (R9 second and third choice).
    pub url: String,
    /// A declared feed (R9 first choice).
    pub feed: Option<String>,
}

/// Per-run switches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Ignore R8's one-hour minimum between two runs of a source.
    pub force: bool,
    /// Report every item currently offered, not only the new ones.
    pub all: bool,
}

/// Opening the pipeline or running it failed as a whole (per-source
/// problems are in the [`RunReport`]).
#[derive(Debug)]
pub enum PipelineError {
    /// The state store.
    Store(StoreError),
    /// The HTTP client could not be built.
    Http(String),
    /// The state directory is in use by another process (see
    /// [`crate::lock`]).
    Lock(crate::lock::LockError),
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PipelineError::Store(e) => e.fmt(f),
            PipelineError::Http(e) => write!(f, "HTTP client: {e}"),
            PipelineError::Lock(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for PipelineError {}

impl From<StoreError> for PipelineError {
    fn from(e: StoreError) -> Self {
        PipelineError::Store(e)
    }
}

/// Why an operator resource was not obtained.
#[derive(Debug, Clone)]
struct OperatorFailure {
    reason: String,
    /// Set when the request was never sent: the operator host is held
    /// until then (R5 cool-down or Retry-After past the run's patience).
    held_until: Option<Timestamp>,
}

impl OperatorFailure {
    fn failed(reason: String) -> OperatorFailure {
        OperatorFailure {
            reason,
            held_until: None,
        }
    }
}

/// An owned gate decision.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    NeedBlocklist,
    NeedRobots(String),
    DenyBlocklist {
        domain: String,
        reason: String,
    },
    DenyRobots {
        rule: String,
        line: u32,
    },
    Deferred {
        until: Timestamp,
        reason: String,
    },
    Wait {
        until: Timestamp,
        reason: WaitReason,
    },
    Invalid(String),
    Ready,
}

/// An instant for messages: an HTTP date, or a count of years for the
/// holds no calendar writes (a Retry-After of 2^63 ms is spec-correct:
/// "wait at least that long").
fn instant(t: Timestamp) -> String {
    let mut s = String::new();
    match wr_core::http_date::format_http_date(t, &mut s) {
        Ok(()) => s,
        Err(_) => format!(
            "more than {} years from the epoch",
            t.0 / (1000 * 86_400 * 365)
        ),
    }
}

/// Why a host will not be asked before `until`, for reports.
fn held(now: Timestamp, until: Timestamp, reason: WaitReason) -> String {
    let why = match reason {
        WaitReason::Cooldown => "cool-down after repeated failures, R5",
        WaitReason::Backoff => "Retry-After, R5",
        WaitReason::Throttle => "Crawl-delay spacing, R4",
    };
    let secs = now.until(until).as_secs();
    if secs < 10 * 365 * 86_400 {
        format!(
            "host held until {} ({why}; {secs} s from now)",
            instant(until)
        )
    } else {
        format!("host held until {} ({why})", instant(until))
    }
}

fn rule_text(kind: &str, pattern: &[u8]) -> String {
    format!("{kind}: {}", String::from_utf8_lossy(pattern))
}

fn own(d: Decision<'_>) -> Verdict {
    match d {
        Decision::Invalid(e) => Verdict::Invalid(e.to_string()),
        Decision::NotOperatorResource => {
            Verdict::Invalid(Decision::NotOperatorResource.to_string())
        }
        Decision::DenyBlocklist(b) => Verdict::DenyBlocklist {
            domain: b.domain.clone(),
            reason: b.reason.clone(),
        },
        Decision::DenyRobots(v) => match v.rule {
            Some(r) if v.reading != Reading::Spec => Verdict::DenyRobots {
                rule: format!(
                    "{} in {}",
                    rule_text(r.kind.as_str(), r.pattern),
                    v.reading.as_str()
                ),
                line: r.line,
            },
            Some(r) => Verdict::DenyRobots {
                rule: rule_text(r.kind.as_str(), r.pattern),
                line: r.line,
            },
            None => Verdict::DenyRobots {
                rule: v.to_string(),
                line: 0,
            },
        },
        Decision::NeedBlocklist => Verdict::NeedBlocklist,
        Decision::NeedRobots(u) => Verdict::NeedRobots(u),
        Decision::Deferred { until, reason } => Verdict::Deferred {
            until,
            reason: format!("robots.txt unreachable ({reason})"),
        },
        Decision::BlocklistUnavailable { until, reason } => Verdict::Deferred {
            until,
            reason: format!(
                "the operator blocklist could not be obtained ({reason}); not fetching without it (R3)"
            ),
        },
        Decision::Wait { until, reason } => Verdict::Wait { until, reason },
        Decision::Ready => Verdict::Ready,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AdmitKind {
    Target,
    Robots,
    RobotsHop,
    Operator,
}

/// A robots.txt fetch in progress for `target`'s origin.
#[derive(Debug, Clone)]
struct RobotsOp {
    target: String,
    url: String,
    hops: u8,
}

/// A gated GET in progress: redirects, retries and the robots.txt it needs.
#[derive(Debug, Clone)]
struct FetchOp {
    original: String,
    url: String,
    accept: Option<&'static str>,
    conditional: bool,
    operator: bool,
    hops: u8,
    attempt: u32,
    robots: Option<RobotsOp>,
}

impl FetchOp {
    fn new(url: &str, accept: Option<&'static str>) -> FetchOp {
        FetchOp {
            original: url.to_string(),
            url: resolved(url),
            accept,
            conditional: true,
            operator: false,
            hops: 0,
            attempt: 0,
            robots: None,
        }
    }
}

/// How a gated GET ended.
#[derive(Debug, Clone)]
enum FetchEnd {
    /// A final response (2xx, 304, or a non-retryable status).
    Response {
        resp: Response,
        final_url: String,
        sent: Option<Validators>,
    },
    Error(FetchError),
}

enum Step<T> {
    Again(Timestamp),
    Done(T),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Feed,
    Page,
    LlmsTxt,
}

struct Job {
    index: usize,
    source: Source,
    stage: Stage,
    op: Option<FetchOp>,
}

/// The pipeline: a gate, the state store, an HTTP client and a clock.
pub struct Pipeline {
    /// Held while the pipeline lives: one process per state directory.
    _lock: crate::lock::RunLock,
    config: Config,
    gate: Gate,
    store: Store,
    http: Http,
    clock: Arc<dyn Clock>,
    jitter: Jitter,
    backoff: Backoff,
    blocklist_state: BlocklistState,
    notices: Vec<String>,
    requests: u32,
    /// Hosts sent a request since the scheduler last heard of them.
    sent_to: Vec<String>,
    /// Timeouts per host in this run: a host that timed out twice is not
    /// asked again before the next run (a dead host costs two timeouts,
    /// not five retries per source).
    timeouts: std::collections::HashMap<String, u32>,
}

/// Timeouts after which a host is left alone for the rest of a run.
const TIMEOUTS_PER_RUN: u32 = 2;

impl fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pipeline")
            .field("config", &self.config)
            .field("store", &self.store)
            .finish_non_exhaustive()
    }
}

fn blocklist_from_row(row: &BlocklistRow) -> Option<Blocklist> {
    #[derive(Deserialize)]
    struct E {
        domain: String,
        added: String,
        reason: String,
    }
    let entries: Vec<E> = serde_json::from_str(&row.entries_json).ok()?;
    let refresh = format!("PT{}S", (row.refresh_ms / 1000).max(1));
    Blocklist::new(
        &row.contract,
        Some(&refresh),
        entries
            .into_iter()
            .map(|e| BlockedDomain::new(&e.domain, &e.added, &e.reason)),
    )
    .ok()
    .map(|l| l.with_updated(&row.updated))
}

fn blocklist_to_row(list: &Blocklist, at: Timestamp) -> BlocklistRow {
    let entries: Vec<serde_json::Value> = list
        .entries()
        .iter()
        .map(|e| serde_json::json!({"domain": e.domain, "added": e.added, "reason": e.reason}))
        .collect();
    BlocklistRow {
        contract: list.contract().to_string(),
        refresh_ms: u64::try_from(list.refresh().as_millis()).unwrap_or(u64::MAX),
        updated: list.updated().to_string(),
        entries_json: serde_json::Value::Array(entries).to_string(),
        fetched_at: at,
    }
}

/// The form of `url` that is judged and sent: parsed and serialised by the
/// WHATWG parser (dot segments `.`, `..`, `%2e` removed, the host in
/// punycode, percent-encoding made canonical), without the fragment.
/// `/a/../private` and `/./private` name `/private`, and that is what
/// servers (and the R13 tagging) act on, so R2 must judge that path, not
/// the spelling it arrived in. Redirect hops already come out of
/// `Url::join` in this form. A URL the parser refuses is left as it is
/// (the gate then calls it invalid).
fn resolved(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => url.to_string(),
    }
}

fn origin_base(url: &str) -> Option<String> {
    let u = CoreUrl::parse(url).ok()?;
    let host = u.host.trim_end_matches('.').to_ascii_lowercase();
    Some(match u.non_default_port() {
        Some(p) => format!("{}://{host}:{p}", u.scheme.to_ascii_lowercase()),
        None => format!("{}://{host}", u.scheme.to_ascii_lowercase()),
    })
}

impl Pipeline {
    /// Opens the state store in `config.state_dir` and restores the gate's
    /// knowledge from it (blocklist, robots.txt cache, per-host schedule).
    ///
    /// Waits (up to [`Config::lock_wait`]) while another process uses the
    /// same state directory; see [`crate::lock`].
    pub fn open(config: Config) -> Result<Pipeline, PipelineError> {
        Pipeline::open_waiting(config, &mut |_| {})
    }

    /// [`Pipeline::open`], calling `on_wait` once if another process holds
    /// the state directory, so the caller can say why nothing happens.
    pub fn open_waiting(
        config: Config,
        on_wait: &mut dyn FnMut(&std::path::Path),
    ) -> Result<Pipeline, PipelineError> {
        let lock = crate::lock::RunLock::acquire(&config.state_dir, config.lock_wait, on_wait)
            .map_err(PipelineError::Lock)?;
        let store = Store::open(&config.state_dir)?;
        let http = Http::new(&config).map_err(PipelineError::Http)?;
        let clock = config.clock.clone();
        let now = clock.now();
        let mut gate = Gate::new(GateConfig {
            operator_base: config.operator_base.clone(),
            ..GateConfig::default()
        });
        let mut blocklist_state = BlocklistState::Unknown;
        // Stored instants in the future (the clock was ahead when they were
        // written, or has been set back since) are clamped to now: a
        // robots.txt or blocklist must not stay "fresh" for its TTL plus
        // the skew.
        if let Some(mut row) = store.blocklist()? {
            if row.fetched_at > now {
                // Written back, or every later start would clamp it anew
                // and the copy would never go stale.
                row.fetched_at = now;
                store.put_blocklist(&row)?;
            }
            if let Some(list) = blocklist_from_row(&row) {
                blocklist_state = BlocklistState::Cached {
                    entries: list.len(),
                };
                gate.blocklist_adopted(list, row.fetched_at);
            }
        }
        for mut row in store.robots_all()? {
            if row.fetched_at > now {
                row.fetched_at = now;
                store.put_robots(&row)?;
            }
            let base = format!("{}/", row.origin);
            let Ok(u) = CoreUrl::parse(&base) else {
                continue;
            };
            if (200..300).contains(&row.status) {
                gate.robots_fetched(&u, &row.body, row.fetched_at);
            } else {
                gate.set_robots(&u, Policy::allow_all(), row.fetched_at);
            }
        }
        for (host, row) in store.hosts()? {
            apply_host_row(&mut gate, &host, row, now);
        }
        let seed = config.rng_seed.unwrap_or(now.0 ^ 0x5DEE_CE66_D1CE_4E5B);
        Ok(Pipeline {
            _lock: lock,
            jitter: Jitter::new(seed),
            backoff: config.backoff,
            config,
            gate,
            store,
            http,
            clock,
            blocklist_state,
            notices: Vec::new(),
            requests: 0,
            sent_to: Vec::new(),
            timeouts: std::collections::HashMap::new(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The gate (read-only), e.g. to show the blocklist in force.
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The state store (read-only access for reports).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Where the blocklist in force came from.
    pub fn blocklist_state(&self) -> &BlocklistState {
        &self.blocklist_state
    }

    /// Notices collected since the last run started.
    pub fn notices(&self) -> &[String] {
        &self.notices
    }

    fn notice(&mut self, progress: &mut dyn Progress, msg: String) {
        // Notices quote servers and documents: untrusted text.
        let msg = crate::extract::clean_message(&msg);
        progress.event(Event::Notice(&msg));
        self.notices.push(msg);
    }

    // ---- admission (R4a) --------------------------------------------------

    /// Runs the gate for `url` inside the store's `BEGIN IMMEDIATE`
    /// transaction, after merging the host's persisted schedule (another
    /// process may have used the host), and persists the slot.
    fn admit(&mut self, kind: AdmitKind, url: &str) -> Result<Result<Permit, Verdict>, StoreError> {
        let host = match CoreUrl::parse(url) {
            Ok(u) => host_key(&u),
            Err(e) => return Ok(Err(Verdict::Invalid(e.to_string()))),
        };
        let gate = &mut self.gate;
        let clock = &self.clock;
        self.store.reserve(&host, |row: HostRow| {
            let now = clock.now();
            apply_host_row(gate, &host, row, now);
            let r = match kind {
                AdmitKind::Target => gate.admit(url, now),
                AdmitKind::Robots => gate.admit_robots(url, now),
                AdmitKind::RobotsHop => gate.admit_robots_hop(url, now),
                AdmitKind::Operator => gate.admit_operator(url, now),
            };
            match r {
                Ok(p) => {
                    let at = p.at();
                    Ok((p, at))
                }
                Err(d) => Err(own(d)),
            }
        })
    }

    /// Sends under `permit`, counting it, and moves the host's last request
    /// to the end of the exchange (conservative R4 spacing).
    fn send(
        &mut self,
        permit: &Permit,
        url: &str,
        req: &Request<'_>,
        progress: &mut dyn Progress,
    ) -> Result<Result<Response, HttpError>, StoreError> {
        progress.event(Event::Request { url });
        self.requests += 1;
        if !self.sent_to.iter().any(|h| h == permit.host()) {
            self.sent_to.push(permit.host().to_string());
        }
        let r = self.http.send(permit, url, req);
        // +1 ms: the clock reads whole milliseconds (floor); rounding the end
        // up keeps the next start strictly max(1 s, Crawl-delay) later.
        let end = Timestamp(self.clock.now().0.saturating_add(1));
        self.gate.observe_request(permit.host(), end);
        self.store
            .reserve(permit.host(), |_| Ok::<_, ()>(((), end)))?
            .ok();
        progress.event(Event::Response {
            url,
            status: r.as_ref().map(|r| r.status).unwrap_or(0),
        });
        Ok(r)
    }

    fn hold(&mut self, host: &str, until: Timestamp, cooldown: bool) -> Result<(), StoreError> {
        let reason = if cooldown {
            WaitReason::Cooldown
        } else {
            WaitReason::Backoff
        };
        self.gate.hold_host(host, until, reason);
        self.store.hold(host, until, cooldown)
    }

    fn max_wait_end(&self) -> Timestamp {
        self.clock.now().saturating_add(self.config.max_wait)
    }

    // ---- blocklist (R3, R3b, R3c, R10, R12) ------------------------------

    fn operator_url(&self, path: &str) -> String {
        format!("{}{}", self.config.operator_base, path)
    }

    /// Waits for the operator host's slot (block-on-refresh) and sends.
    fn operator_get(
        &mut self,
        url: &str,
        accept: &'static str,
        validators: Option<&Validators>,
        progress: &mut dyn Progress,
    ) -> Result<Result<Response, OperatorFailure>, StoreError> {
        let permit = loop {
            match self.admit(AdmitKind::Operator, url)? {
                Ok(p) => break p,
                Err(Verdict::Wait { until, .. }) => {
                    let now = self.clock.now();
                    if until > self.max_wait_end() {
                        // Not asked at all: the caller must not take this
                        // for a fetch that failed.
                        return Ok(Err(OperatorFailure {
                            reason: format!(
                                "{url}: the operator host is held for {} s",
                                now.until(until).as_secs()
                            ),
                            held_until: Some(until),
                        }));
                    }
                    self.sleep_until(until, progress);
                }
                Err(other) => return Ok(Err(OperatorFailure::failed(format!("{url}: {other:?}")))),
            }
        };
        let req = Request {
            accept: Some(accept),
            validators,
            limit: BodyLimit::Fail(self.config.max_body),
        };
        let resp = self.send(&permit, url, &req, progress)?;
        // R5 holds for the operator too: a rate-limited refresh keeps the
        // last list (R3b) and is retried later, but the operator's
        // Retry-After still binds every other request to its host.
        if let Ok(r) = &resp {
            if is_retryable_status(r.status) {
                let now = self.clock.now();
                let after = r
                    .retry_after
                    .as_deref()
                    .and_then(|v| wr_core::retry_after::parse_retry_after(v, now).ok());
                if let Some(d) = after {
                    self.hold(permit.host(), now.saturating_add(d), false)?;
                }
            }
        }
        Ok(resp.map_err(|e| OperatorFailure::failed(e.to_string())))
    }

    fn sleep_until(&mut self, until: Timestamp, progress: &mut dyn Progress) {
        let now = self.clock.now();
        if until > now {
            let d = now.until(until);
            progress.event(Event::Waiting { duration: d, until });
            self.clock.sleep(d);
        }
    }

    /// Refreshes the blocklist now (R12 block-on-refresh).
    fn refresh_blocklist(&mut self, progress: &mut dyn Progress) -> Result<(), StoreError> {
        let url = self.operator_url(BLOCKLIST_PATH);
        let cached = self.store.validators(&url, "application/json")?;
        let had_list = self.store.blocklist()?;
        // A stored row that cannot be read is not "never had a list": a
        // list was adopted once, and what it protected is unknown.
        let stored_unreadable = had_list
            .as_ref()
            .is_some_and(|row| blocklist_from_row(row).is_none());
        let send_validators = cached.filter(|_| had_list.is_some() && !stored_unreadable);
        let outcome =
            self.operator_get(&url, "application/json", send_validators.as_ref(), progress)?;
        let now = self.clock.now();
        let mut held_until = None;
        let failure = match outcome {
            Err(e) => {
                held_until = e.held_until;
                Some(e.reason)
            }
            Ok(resp) if resp.status == 304 => {
                match had_list.as_ref().and_then(blocklist_from_row) {
                    Some(list) => {
                        let mut row = blocklist_to_row(&list, now);
                        row.fetched_at = now;
                        self.store.put_blocklist(&row)?;
                        self.blocklist_state = BlocklistState::Fresh {
                            entries: list.len(),
                        };
                        self.gate.blocklist_adopted(list, now);
                        None
                    }
                    None => Some(format!("{url}: 304 without a stored list")),
                }
            }
            Ok(resp) if (200..300).contains(&resp.status) => {
                match self.validate_blocklist(&resp.body, progress)? {
                    Ok(list) => {
                        self.store.put_blocklist(&blocklist_to_row(&list, now))?;
                        let v = Validators {
                            etag: resp.etag.clone(),
                            last_modified: resp.last_modified.clone(),
                            kind: Some("blocklist".into()),
                        };
                        self.store
                            .put_validators(&url, "application/json", &v, now)?;
                        self.blocklist_state = BlocklistState::Fresh {
                            entries: list.len(),
                        };
                        self.gate.blocklist_adopted(list, now);
                        None
                    }
                    Err(e) => Some(format!("{url}: {e}")),
                }
            }
            Ok(resp) => Some(format!("{url}: HTTP {}", resp.status)),
        };
        let adopted = self.gate.blocklist().is_some() && !self.gate.blocklist_is_fallback();
        if let (Some(reason), false, true) =
            (&failure, adopted, held_until.is_some() || stored_unreadable)
        {
            // R3's fail-open covers a first fetch that failed, not a list
            // never asked for nor one that was adopted and cannot be read:
            // defer the targets instead.
            let reason = if stored_unreadable {
                format!("{reason}; the stored copy cannot be read")
            } else {
                reason.clone()
            };
            let until = held_until.unwrap_or(now.saturating_add(wr_core::gate::REFRESH_RETRY));
            self.gate.blocklist_unavailable(now, until, &reason);
            self.blocklist_state = BlocklistState::Unavailable {
                reason: reason.clone(),
            };
            self.notice(
                progress,
                format!(
                    "WARNING: the operator blocklist could not be obtained ({reason}) and no \
                     usable copy exists: targets are deferred, not fetched without it (R3)"
                ),
            );
        } else if let Some(reason) = failure {
            self.gate.blocklist_failed(now);
            if self.gate.blocklist_is_fallback() {
                self.blocklist_state = BlocklistState::Fallback {
                    reason: reason.clone(),
                };
                self.notice(
                    progress,
                    format!(
                        "WARNING: the operator blocklist could not be obtained ({reason}) and no \
                         earlier copy exists: running with an EMPTY blocklist (fail open, R3b); \
                         opt-outs are not protected"
                    ),
                );
            } else {
                let entries = self.gate.blocklist().map_or(0, |l| l.len());
                self.blocklist_state = BlocklistState::Retained {
                    entries,
                    reason: reason.clone(),
                };
                self.notice(
                    progress,
                    format!(
                        "blocklist refresh failed ({reason}); keeping the last adopted list ({entries} {}, R3b)",
                        if entries == 1 { "entry" } else { "entries" }
                    ),
                );
            }
        }
        Ok(())
    }

    /// R3c / R10: validates against the inline schema, else the standalone
    /// schema (cached 7 days, stale copy used and logged on failure).
    fn validate_blocklist(
        &mut self,
        body: &[u8],
        progress: &mut dyn Progress,
    ) -> Result<Result<Blocklist, String>, StoreError> {
        let has_inline = serde_json::from_slice::<serde_json::Value>(body)
            .map(|v| v.get("schema").is_some())
            .unwrap_or(true);
        let fallback = if has_inline {
            None
        } else {
            self.standalone_schema(progress)?
        };
        Ok(blocklist_doc::validate(body, fallback.as_ref()).map_err(|e| e.to_string()))
    }

    fn standalone_schema(
        &mut self,
        progress: &mut dyn Progress,
    ) -> Result<Option<serde_json::Value>, StoreError> {
        let url = self.operator_url(BLOCKLIST_SCHEMA_PATH);
        let now = self.clock.now();
        let cached = self.store.schema(&url)?;
        if let Some((body, at)) = &cached {
            if (*at).min(now).saturating_add(SCHEMA_TTL) > now {
                return Ok(serde_json::from_slice(body).ok());
            }
        }
        let fetched = self.operator_get(
            &url,
            "application/schema+json, application/json",
            None,
            progress,
        )?;
        let now = self.clock.now();
        let failure = match fetched {
            Ok(resp) if (200..300).contains(&resp.status) => {
                // Compiled before it is cached: a schema under which no
                // document can be validated is a failed refresh (the stale
                // copy stays in use), never a replacement for a working one.
                match serde_json::from_slice::<serde_json::Value>(&resp.body) {
                    Ok(v) if v.is_object() => match blocklist_doc::compile_schema(&v) {
                        Ok(_) => {
                            self.store.put_schema(&url, &resp.body, now)?;
                            return Ok(Some(v));
                        }
                        Err(e) => format!("{url}: {e}"),
                    },
                    _ => format!("{url}: not a JSON schema object"),
                }
            }
            Ok(resp) => format!("{url}: HTTP {}", resp.status),
            Err(e) => e.reason,
        };
        match cached {
            Some((body, _)) => {
                self.notice(
                    progress,
                    format!(
                        "schema refresh failed ({failure}); using the stale cached schema (R10)"
                    ),
                );
                Ok(serde_json::from_slice(&body).ok())
            }
            None => {
                self.notice(
                    progress,
                    format!("no blocklist schema available ({failure}); the document cannot be validated (R10)"),
                );
                Ok(None)
            }
        }
    }

    // ---- robots.txt (R2) -------------------------------------------------

    fn step_robots(
        &mut self,
        r: &mut RobotsOp,
        progress: &mut dyn Progress,
    ) -> Result<Step<Option<FetchError>>, StoreError> {
        // Two sources on one origin both ask for its robots.txt; the second
        // waits for the host's slot, by which time the first has it. Use
        // the cached copy (R2), do not fetch it again.
        if r.hops == 0
            && !matches!(
                self.gate.check(&r.target, self.clock.now()),
                Decision::NeedRobots(_)
            )
        {
            return Ok(Step::Done(None));
        }
        let target = r.target.clone();
        let unreachable = |me: &mut Pipeline, reason: String, progress: &mut dyn Progress| {
            let now = me.clock.now();
            if let Ok(u) = CoreUrl::parse(&target) {
                if me.gate.robots_unreachable(&u, now, &reason) {
                    let origin = origin_key(&u);
                    me.notice(
                        progress,
                        format!("{reason}; using the cached robots.txt of {origin}"),
                    );
                }
            }
        };
        let kind = if r.hops == 0 {
            AdmitKind::Robots
        } else {
            AdmitKind::RobotsHop
        };
        match self.admit(kind, &r.url)? {
            Err(Verdict::NeedBlocklist) => {
                self.refresh_blocklist(progress)?;
                Ok(Step::Again(self.clock.now()))
            }
            Err(Verdict::Wait { until, reason }) => {
                if until > self.max_wait_end() {
                    return Ok(Step::Done(Some(FetchError::Deferred {
                        url: r.url.clone(),
                        reason: held(self.clock.now(), until, reason),
                    })));
                }
                Ok(Step::Again(until))
            }
            Err(Verdict::DenyBlocklist { domain, .. }) => {
                unreachable(
                    self,
                    format!(
                        "{}: redirected to a host on the operator blocklist ({domain})",
                        r.url
                    ),
                    progress,
                );
                Ok(Step::Done(None))
            }
            Err(other) => {
                unreachable(self, format!("{}: {other:?}", r.url), progress);
                Ok(Step::Done(None))
            }
            Ok(permit) => {
                let req = Request {
                    accept: None,
                    validators: None,
                    // One octet past 500 KiB: the parser must see that a
                    // long body was cut (see `ROBOTS_BODY_LIMIT`).
                    limit: ROBOTS_BODY_LIMIT,
                };
                let url = r.url.clone();
                let resp = self.send(&permit, &url, &req, progress)?;
                let now = self.clock.now();
                let Ok(tu) = CoreUrl::parse(&target) else {
                    return Ok(Step::Done(None));
                };
                let origin = origin_key(&tu);
                match resp {
                    Err(e) => unreachable(self, e.to_string(), progress),
                    Ok(resp) if (200..300).contains(&resp.status) => {
                        self.gate.robots_fetched(&tu, &resp.body, now);
                        self.store.put_robots(&RobotsRow {
                            origin,
                            status: resp.status,
                            body: resp.body,
                            fetched_at: now,
                        })?;
                    }
                    Ok(resp) if (300..400).contains(&resp.status) && resp.location.is_some() => {
                        let next = resp
                            .location
                            .as_deref()
                            .and_then(|l| url::Url::parse(&url).ok()?.join(l).ok())
                            .filter(|u| matches!(u.scheme(), "http" | "https"));
                        match next {
                            Some(n) if r.hops < MAX_REDIRECTS => {
                                r.hops += 1;
                                r.url = n.to_string();
                                return Ok(Step::Again(now));
                            }
                            Some(_) => unreachable(
                                self,
                                format!("{url}: more than {MAX_REDIRECTS} redirects"),
                                progress,
                            ),
                            None => {
                                unreachable(self, format!("{url}: bad redirect Location"), progress)
                            }
                        }
                    }
                    Ok(resp) if resp.status == 429 || resp.status >= 500 => {
                        if let Some(ra) = resp.retry_after.as_deref() {
                            if let Ok(d) = wr_core::retry_after::parse_retry_after(ra, now) {
                                self.hold(permit.host(), now.saturating_add(d), false)?;
                            }
                        }
                        unreachable(self, format!("{url}: HTTP {}", resp.status), progress);
                    }
                    Ok(resp) if (400..500).contains(&resp.status) => {
                        self.gate.robots_not_found(&tu, now);
                        self.store.put_robots(&RobotsRow {
                            origin,
                            status: resp.status,
                            body: Vec::new(),
                            fetched_at: now,
                        })?;
                    }
                    Ok(resp) => unreachable(self, format!("{url}: HTTP {}", resp.status), progress),
                }
                Ok(Step::Done(None))
            }
        }
    }

    // ---- gated fetch (R3 -> R2 -> R4, R5, C6, R7) ----------------------------

    fn step_fetch(
        &mut self,
        f: &mut FetchOp,
        progress: &mut dyn Progress,
    ) -> Result<Step<FetchEnd>, StoreError> {
        if let Some(mut r) = f.robots.take() {
            return Ok(match self.step_robots(&mut r, progress)? {
                Step::Again(t) => {
                    f.robots = Some(r);
                    Step::Again(t)
                }
                Step::Done(Some(err)) => Step::Done(FetchEnd::Error(err)),
                Step::Done(None) => Step::Again(self.clock.now()),
            });
        }
        let kind = if f.operator {
            AdmitKind::Operator
        } else {
            AdmitKind::Target
        };
        let url = f.url.clone();
        if let Some(reason) = self.timed_out_host(&url) {
            return Ok(Step::Done(FetchEnd::Error(FetchError::Deferred {
                url,
                reason,
            })));
        }
        let permit = match self.admit(kind, &url)? {
            Ok(p) => p,
            Err(v) => {
                return Ok(match v {
                    Verdict::NeedBlocklist => {
                        self.refresh_blocklist(progress)?;
                        Step::Again(self.clock.now())
                    }
                    Verdict::NeedRobots(robots) => {
                        f.robots = Some(RobotsOp {
                            target: url,
                            url: robots,
                            hops: 0,
                        });
                        Step::Again(self.clock.now())
                    }
                    Verdict::DenyBlocklist { domain, .. } => {
                        Step::Done(FetchEnd::Error(FetchError::DeniedBlocklist { url, domain }))
                    }
                    Verdict::DenyRobots { rule, line } => {
                        Step::Done(FetchEnd::Error(FetchError::DeniedRobots {
                            url,
                            rule,
                            line,
                        }))
                    }
                    Verdict::Deferred { reason, .. } => {
                        Step::Done(FetchEnd::Error(FetchError::Deferred {
                            url,
                            reason: format!("{reason}; deferred for this run"),
                        }))
                    }
                    Verdict::Wait { until, reason } => {
                        if until > self.max_wait_end() {
                            Step::Done(FetchEnd::Error(FetchError::Deferred {
                                url,
                                reason: held(self.clock.now(), until, reason),
                            }))
                        } else {
                            Step::Again(until)
                        }
                    }
                    Verdict::Invalid(reason) => {
                        Step::Done(FetchEnd::Error(FetchError::Invalid { url, reason }))
                    }
                    Verdict::Ready => Step::Again(self.clock.now()),
                });
            }
        };
        let accept_key = f.accept.unwrap_or("");
        let validators = if f.conditional {
            self.store.validators(&url, accept_key)?
        } else {
            None
        };
        let req = Request {
            accept: f.accept,
            validators: validators.as_ref(),
            limit: BodyLimit::Fail(self.config.max_body),
        };
        let result = self.send(&permit, &url, &req, progress)?;
        let now = self.clock.now();
        let (retry_after, what) = match result {
            Err(HttpError::Transport {
                reason, timed_out, ..
            }) => {
                if timed_out {
                    *self.timeouts.entry(permit.host().to_string()).or_default() += 1;
                    if let Some(why) = self.timed_out_host(&url) {
                        return Ok(Step::Done(FetchEnd::Error(FetchError::Deferred {
                            url,
                            reason: format!("{reason}; {why}"),
                        })));
                    }
                }
                (None, reason)
            }
            Err(e) => {
                return Ok(Step::Done(FetchEnd::Error(FetchError::Failed {
                    url,
                    reason: match e {
                        HttpError::TooLarge { limit, .. } => {
                            format!("too large (more than {limit} bytes)")
                        }
                        other => other.to_string(),
                    },
                })))
            }
            Ok(resp) => {
                let s = resp.status;
                if (300..400).contains(&s) && s != 304 {
                    let next = resp
                        .location
                        .as_deref()
                        .and_then(|l| url::Url::parse(&url).ok()?.join(l).ok());
                    return Ok(match next {
                        None => Step::Done(FetchEnd::Error(FetchError::Failed {
                            url,
                            reason: format!("HTTP {s} without a usable Location"),
                        })),
                        Some(n) if !matches!(n.scheme(), "http" | "https") => {
                            Step::Done(FetchEnd::Error(FetchError::Failed {
                                url,
                                reason: format!("redirect to a non-http(s) URL {n}"),
                            }))
                        }
                        Some(_) if f.hops >= MAX_REDIRECTS => {
                            Step::Done(FetchEnd::Error(FetchError::Failed {
                                url: f.original.clone(),
                                reason: format!("more than {MAX_REDIRECTS} redirects"),
                            }))
                        }
                        Some(n) => {
                            // The retry budget (R5: at most 5) is the
                            // target's, not the hop's: resetting it here
                            // let one target cost up to 36 requests.
                            f.hops += 1;
                            f.url = n.to_string();
                            // Only the section 5 URL itself is exempt from
                            // R3 and R2 (`admit_operator`); wherever it
                            // redirects to is an ordinary hop: full gate.
                            f.operator = false;
                            Step::Again(now)
                        }
                    });
                }
                if is_retryable_status(s) {
                    let ra = resp
                        .retry_after
                        .as_deref()
                        .and_then(|v| wr_core::retry_after::parse_retry_after(v, now).ok());
                    (ra, format!("HTTP {s}"))
                } else {
                    return Ok(Step::Done(FetchEnd::Response {
                        resp,
                        final_url: url,
                        sent: validators,
                    }));
                }
            }
        };
        // R5: retry with Retry-After or full-jitter backoff.
        let host = permit.host().to_string();
        match self
            .backoff
            .next(f.attempt, retry_after, self.jitter.unit())
        {
            BackoffStep::GiveUp => {
                self.hold(&host, now.saturating_add(FAILURE_COOLDOWN), true)?;
                Ok(Step::Done(FetchEnd::Error(FetchError::Failed {
                    url,
                    reason: format!(
                        "{what} after {} retries; leaving {host} alone for {} min",
                        f.attempt,
                        FAILURE_COOLDOWN.as_secs() / 60
                    ),
                })))
            }
            BackoffStep::Retry { after } => {
                let until = now.saturating_add(after);
                self.hold(&host, until, false)?;
                if after > self.config.max_wait {
                    return Ok(Step::Done(FetchEnd::Error(FetchError::Deferred {
                        url,
                        reason: format!(
                            "{what} with Retry-After {} s, longer than this run waits ({} s); deferred to a later run",
                            after.as_secs(),
                            self.config.max_wait.as_secs()
                        ),
                    })));
                }
                f.attempt += 1;
                Ok(Step::Again(until))
            }
        }
    }

    /// Why `url`'s host is not asked again in this run, if it timed out
    /// too often.
    fn timed_out_host(&self, url: &str) -> Option<String> {
        // Nearly always empty: skip parsing the URL again.
        if self.timeouts.is_empty() {
            return None;
        }
        let host = host_key(&CoreUrl::parse(url).ok()?);
        let n = *self.timeouts.get(&host)?;
        (n >= TIMEOUTS_PER_RUN).then(|| {
            format!("{host} timed out {n} times in this run; left alone until the next run")
        })
    }

    fn fetch_to_end(
        &mut self,
        mut f: FetchOp,
        progress: &mut dyn Progress,
    ) -> Result<FetchEnd, StoreError> {
        loop {
            match self.step_fetch(&mut f, progress)? {
                Step::Again(t) => self.sleep_until(t, progress),
                Step::Done(end) => return Ok(end),
            }
        }
    }

    fn to_fetched(original: &str, end: FetchEnd) -> Result<Fetched, FetchError> {
        match end {
            FetchEnd::Response {
                resp, final_url, ..
            } => Ok(Fetched {
                url: original.to_string(),
                final_url,
                status: resp.status,
                content_type: resp.content_type,
                body: resp.body,
            }),
            FetchEnd::Error(e) => Err(e),
        }
    }

    /// One gated GET of `url` (not conditional), with redirects (each hop
    /// gated) and R5 retries, sleeping when its host must wait. Operator
    /// compliance URLs are R13-tagged on the wire. For `selftest`.
    pub fn fetch_gated(
        &mut self,
        url: &str,
        accept: Option<&'static str>,
        progress: &mut dyn Progress,
    ) -> Result<Result<Fetched, FetchError>, PipelineError> {
        let mut op = FetchOp::new(url, accept);
        op.conditional = false;
        let end = self.fetch_to_end(op, progress)?;
        Ok(Self::to_fetched(url, end))
    }

    /// Fetches a section 5 operator resource (`path` under the operator
    /// base, e.g. [`wr_core::constants::TEST_FIXTURES_PATH`]): R4 only
    /// (`admit_operator`), R13-tagged, no conditional request.
    pub fn fetch_operator(
        &mut self,
        path: &str,
        accept: Option<&'static str>,
        progress: &mut dyn Progress,
    ) -> Result<Result<Fetched, FetchError>, PipelineError> {
        let url = self.operator_url(path);
        let mut op = FetchOp::new(&url, accept);
        op.conditional = false;
        op.operator = true;
        let end = self.fetch_to_end(op, progress)?;
        Ok(Self::to_fetched(&url, end))
    }

    /// Records that the items of `report` reached the reader (the digest
    /// was written). Until this is called they stay pending and the next
    /// run reports them again, so a run killed between fetching and
    /// delivering loses nothing; calling it is the caller's promise that
    /// the digest is safe.
    pub fn mark_reported(&mut self, report: &RunReport) -> Result<(), PipelineError> {
        self.store
            .mark_reported(report.sources.iter().flat_map(|s| {
                s.items
                    .iter()
                    .map(move |i| (s.name.as_str(), i.id.as_str()))
            }))?;
        Ok(())
    }

    /// The gate's answer for `url` without requesting it. May fetch the
    /// blocklist and `url`'s robots.txt (waiting for their hosts' slots).
    pub fn check(
        &mut self,
        url: &str,
        progress: &mut dyn Progress,
    ) -> Result<CheckReport, PipelineError> {
        self.check_unclean(url, progress).map(CheckReport::cleaned)
    }

    fn check_unclean(
        &mut self,
        url: &str,
        progress: &mut dyn Progress,
    ) -> Result<CheckReport, PipelineError> {
        // Judged in the form that would be sent (see `resolved`); the
        // report names the URL as the caller wrote it.
        let target = resolved(url);
        let mut robots_tries = 0;
        loop {
            let now = self.clock.now();
            if let Ok(u) = CoreUrl::parse(&target) {
                let host = host_key(&u);
                let row = self.store.host(&host)?;
                apply_host_row(&mut self.gate, &host, row, now);
            }
            let verdict = own(self.gate.check(&target, now));
            let report = match verdict {
                Verdict::NeedBlocklist => {
                    self.refresh_blocklist(progress)?;
                    continue;
                }
                Verdict::NeedRobots(robots) if robots_tries == 0 => {
                    robots_tries += 1;
                    let mut r = RobotsOp {
                        target: target.clone(),
                        url: robots,
                        hops: 0,
                    };
                    loop {
                        match self.step_robots(&mut r, progress)? {
                            Step::Again(t) => self.sleep_until(t, progress),
                            Step::Done(Some(e)) => {
                                return Ok(CheckReport::Deferred {
                                    url: url.to_string(),
                                    reason: e.to_string(),
                                })
                            }
                            Step::Done(None) => break,
                        }
                    }
                    continue;
                }
                Verdict::NeedRobots(robots) => CheckReport::Deferred {
                    url: url.to_string(),
                    reason: format!("{robots} could not be obtained"),
                },
                Verdict::DenyBlocklist { domain, reason } => CheckReport::DeniedBlocklist {
                    url: url.to_string(),
                    domain,
                    reason,
                },
                Verdict::DenyRobots { rule, line } => CheckReport::DeniedRobots {
                    url: url.to_string(),
                    rule,
                    line,
                },
                Verdict::Deferred { reason, .. } => CheckReport::Deferred {
                    url: url.to_string(),
                    reason,
                },
                Verdict::Invalid(reason) => CheckReport::Invalid {
                    url: url.to_string(),
                    reason,
                },
                // A hold (R5 Retry-After, or the cool-down after repeated
                // failures) is not a pause before an allowed request: the
                // host will not be asked before then, whatever the caller
                // does next. Say so, with the instant.
                Verdict::Wait {
                    until,
                    reason: reason @ (WaitReason::Backoff | WaitReason::Cooldown),
                } => CheckReport::Deferred {
                    url: url.to_string(),
                    reason: held(now, until, reason),
                },
                Verdict::Ready | Verdict::Wait { .. } => {
                    let wait_ms = match verdict {
                        Verdict::Wait { until, .. } => now.until(until).as_millis() as u64,
                        _ => 0,
                    };
                    let (host, rule, line) = match CoreUrl::parse(&target) {
                        Ok(u) => {
                            let (rule, line) = match self.gate.robots_policy(&u) {
                                Some((p, _)) => match p.check(u.path_and_query).rule {
                                    Some(r) => {
                                        (Some(rule_text(r.kind.as_str(), r.pattern)), Some(r.line))
                                    }
                                    None => (None, None),
                                },
                                None => (None, None),
                            };
                            (host_key(&u), rule, line)
                        }
                        Err(_) => (String::new(), None, None),
                    };
                    CheckReport::Allowed {
                        url: url.to_string(),
                        wait_ms,
                        spacing_ms: self.gate.spacing(&host).as_millis() as u64,
                        rule,
                        line,
                    }
                }
            };
            return Ok(report);
        }
    }

    // ---- runs (R8, R9) ------------------------------------------------------

    /// Runs every source (see the crate docs). A source that fails never
    /// stops the others; only a state-store failure aborts the run.
    pub fn run(
        &mut self,
        sources: &[Source],
        options: RunOptions,
        progress: &mut dyn Progress,
    ) -> Result<RunReport, PipelineError> {
        self.notices.clear();
        self.requests = 0;
        self.sent_to.clear();
        self.timeouts.clear();
        let started = self.clock.now();
        let mut reports: Vec<Option<SourceReport>> = vec![None; sources.len()];
        let mut jobs: Vec<Option<Job>> = Vec::new();
        let mut sched = Schedule::new();
        for (i, s) in sources.iter().enumerate() {
            let row = self.store.source(&s.name)?;
            // Instants from the future (a clock that was ahead when they
            // were stored) count as now: they must not stretch a TTL or a
            // pause by the skew.
            if let Some(last) = row.last_run.map(|t| t.min(started)) {
                if !options.force && last.saturating_add(MIN_SOURCE_INTERVAL) > started {
                    let status = SourceStatus::Skipped { last_run: last.0 };
                    progress.event(Event::SourceDone {
                        name: &s.name,
                        status: &status,
                    });
                    reports[i] = Some(SourceReport {
                        name: s.name.clone(),
                        status,
                        items: Vec::new(),
                        method: None,
                        fetched_url: None,
                    });
                    continue;
                }
            }
            let stage = if s.feed.is_some() {
                Stage::Feed
            } else {
                Stage::Page
            };
            jobs.push(Some(Job {
                index: i,
                source: s.clone(),
                stage,
                op: None,
            }));
            if let Some(job) = jobs.last().and_then(Option::as_ref) {
                self.queue(&mut sched, jobs.len() - 1, job, started);
            }
        }
        let mut started_jobs = vec![false; jobs.len()];
        loop {
            let now = self.clock.now();
            match sched.next(now) {
                Next::Idle => break,
                Next::Sleep(t) => self.sleep_until(t, progress),
                Next::Run(j) => {
                    let Some(mut job) = jobs[j].take() else {
                        continue;
                    };
                    if !started_jobs[j] {
                        started_jobs[j] = true;
                        progress.event(Event::SourceStarted {
                            name: &job.source.name,
                        });
                    }
                    let step = self.step_job(&mut job, options, progress)?;
                    // Tell the scheduler when the hosts just asked free
                    // again, so their other jobs sleep instead of waking
                    // only to hear "wait" from the gate. Not a slot beyond
                    // what the run waits for (a long Retry-After, the R5
                    // cool-down): that wait is the gate's to turn into
                    // "deferred", never the scheduler's to sleep on, so
                    // those jobs wake as queued and hear it from the gate.
                    let horizon = self.max_wait_end();
                    for host in std::mem::take(&mut self.sent_to) {
                        if let Some(at) = self.gate.next_slot(&host).filter(|&at| at <= horizon) {
                            sched.host_free_at(&host, at);
                        }
                    }
                    match step {
                        Step::Again(t) => {
                            self.queue(&mut sched, j, &job, t);
                            jobs[j] = Some(job);
                        }
                        Step::Done(report) => {
                            progress.event(Event::SourceDone {
                                name: &report.name,
                                status: &report.status,
                            });
                            reports[job.index] = Some(report);
                        }
                    }
                }
            }
        }
        Ok(RunReport {
            started_at: started.0,
            finished_at: self.clock.now().0,
            blocklist: self.blocklist_state.clone(),
            sources: reports.into_iter().flatten().collect(),
            notices: self.notices.clone(),
            requests: self.requests,
        })
    }

    /// Queues job `j` with the host its next request goes to, so the
    /// scheduler can serve the host with the longest remaining chain first
    /// (see [`crate::schedule`]). Only an ordering hint: the step itself
    /// asks the gate.
    fn queue(&self, sched: &mut Schedule<usize>, j: usize, job: &Job, ready_at: Timestamp) {
        let url = match &job.op {
            Some(FetchOp {
                robots: Some(r), ..
            }) => r.url.clone(),
            Some(f) => f.url.clone(),
            None => Self::stage_op(job).url,
        };
        match CoreUrl::parse(&url) {
            Ok(u) => {
                let host = host_key(&u);
                let spacing = self.gate.spacing(&host);
                sched.push_on(j, ready_at, &host, spacing);
            }
            Err(_) => sched.push(j, ready_at),
        }
    }

    fn stage_op(job: &Job) -> FetchOp {
        match job.stage {
            Stage::Feed => FetchOp::new(
                job.source.feed.as_deref().unwrap_or(&job.source.url),
                Some(FEED_ACCEPT),
            ),
            Stage::Page => FetchOp::new(&job.source.url, Some(MARKDOWN_ACCEPT)),
            Stage::LlmsTxt => {
                let base = origin_base(&job.source.url).unwrap_or_default();
                FetchOp::new(&format!("{base}/llms.txt"), Some(LLMS_ACCEPT))
            }
        }
    }

    fn step_job(
        &mut self,
        job: &mut Job,
        options: RunOptions,
        progress: &mut dyn Progress,
    ) -> Result<Step<SourceReport>, StoreError> {
        let mut op = job.op.take().unwrap_or_else(|| Self::stage_op(job));
        let end = match self.step_fetch(&mut op, progress)? {
            Step::Again(t) => {
                job.op = Some(op);
                return Ok(Step::Again(t));
            }
            Step::Done(end) => end,
        };
        let now = self.clock.now();
        let name = job.source.name.clone();
        let accept = op.accept.unwrap_or("");
        let outcome: Outcome = match (job.stage, end) {
            (_, FetchEnd::Error(e)) => match (job.stage, e) {
                (Stage::LlmsTxt, FetchError::DeniedRobots { url, rule, line }) => Outcome::Status(SourceStatus::LeftOut {
                    reason: format!("no feed, no markdown, and {url} is disallowed by robots.txt ({rule}, line {line})"),
                }),
                (Stage::LlmsTxt, FetchError::DeniedBlocklist { url, domain }) => Outcome::Status(SourceStatus::LeftOut {
                    reason: format!("no feed, no markdown, and {url} is on the operator blocklist ({domain})"),
                }),
                (_, FetchError::DeniedRobots { url, rule, line }) => Outcome::Status(SourceStatus::DeniedRobots { url, rule, line }),
                (_, FetchError::DeniedBlocklist { url, domain }) => Outcome::Status(SourceStatus::DeniedBlocklist { url, domain }),
                (_, FetchError::Deferred { url, reason }) => Outcome::Status(SourceStatus::Deferred {
                    reason: format!("{url}: {reason}"),
                    until: None,
                }),
                (_, FetchError::Invalid { url, reason }) => Outcome::Status(SourceStatus::Failed {
                    reason: format!("{url}: invalid URL: {reason}"),
                }),
                (_, FetchError::Failed { url, reason }) => Outcome::Status(SourceStatus::Failed {
                    reason: format!("{url}: {reason}"),
                }),
            },
            (stage, FetchEnd::Response { resp, final_url, sent }) => {
                let kind = content_kind(resp.content_type.as_deref());
                let validators = |kind: &str| Validators {
                    etag: resp.etag.clone(),
                    last_modified: resp.last_modified.clone(),
                    kind: Some(kind.to_string()),
                };
                let sent_kind = sent.as_ref().and_then(|v| v.kind.clone());
                match (stage, resp.status) {
                    (_, 304) => match (stage, sent_kind.as_deref()) {
                        (Stage::Page, Some("other")) | (Stage::Page, None) => Outcome::Next(Stage::LlmsTxt),
                        (_, k) => Outcome::NotModified {
                            method: k.and_then(Method::parse).unwrap_or(match stage {
                                Stage::Feed => Method::Feed,
                                Stage::Page => Method::Markdown,
                                Stage::LlmsTxt => Method::LlmsTxt,
                            }),
                            final_url,
                        },
                    },
                    (Stage::Feed, 200..=299) => {
                        if kind == ContentKind::Html {
                            Outcome::Status(SourceStatus::Failed {
                                reason: format!("{final_url}: the declared feed answered HTML (never scraped, R9)"),
                            })
                        } else {
                            match extract::feed(&resp.body, &final_url) {
                                Ok(items) => Outcome::Items { method: Method::Feed, items, final_url, validators: validators("feed") },
                                Err(e) => Outcome::Status(SourceStatus::Failed {
                                    reason: format!("{final_url}: {e}"),
                                }),
                            }
                        }
                    }
                    (Stage::Page, 200..=299) => match kind {
                        ContentKind::Markdown => {
                            let items = extract::markdown(&String::from_utf8_lossy(&resp.body), &final_url);
                            Outcome::Items { method: Method::Markdown, items, final_url, validators: validators("markdown") }
                        }
                        ContentKind::Feed => match extract::feed(&resp.body, &final_url) {
                            Ok(items) => Outcome::Items { method: Method::Feed, items, final_url, validators: validators("feed") },
                            Err(_) => Outcome::Next(Stage::LlmsTxt),
                        },
                        _ => {
                            self.store.put_validators(&final_url, accept, &validators("other"), now)?;
                            Outcome::Next(Stage::LlmsTxt)
                        }
                    },
                    (Stage::LlmsTxt, 200..=299) => match kind {
                        ContentKind::Markdown | ContentKind::PlainText => {
                            let items = extract::markdown(&String::from_utf8_lossy(&resp.body), &final_url);
                            Outcome::Items { method: Method::LlmsTxt, items, final_url, validators: validators("llms-txt") }
                        }
                        ContentKind::Html => Outcome::Status(SourceStatus::LeftOut {
                            reason: format!("no feed, no markdown, and {final_url} answered HTML (never scraped, R9)"),
                        }),
                        _ => Outcome::Status(SourceStatus::LeftOut {
                            reason: format!(
                                "no feed, no markdown, and {final_url} answered {}",
                                resp.content_type.as_deref().unwrap_or("no Content-Type")
                            ),
                        }),
                    },
                    (Stage::LlmsTxt, s) => Outcome::Status(SourceStatus::LeftOut {
                        reason: format!("no feed declared, no markdown offered, no llms.txt ({final_url}: HTTP {s})"),
                    }),
                    (_, s) => Outcome::Status(SourceStatus::Failed {
                        reason: format!("{final_url}: HTTP {s}"),
                    }),
                }
            }
        };
        let report = match outcome {
            Outcome::Next(stage) => {
                job.stage = stage;
                return Ok(Step::Again(now));
            }
            Outcome::Items {
                method,
                items,
                final_url,
                validators,
            } => {
                let new = self.store.record_fetch(
                    &name,
                    method.as_str(),
                    &final_url,
                    &items,
                    Some((&final_url, accept, &validators)),
                    now,
                )?;
                SourceReport {
                    name: name.clone(),
                    status: SourceStatus::Ok {
                        not_modified: false,
                    },
                    items: if options.all { items } else { new },
                    method: Some(method),
                    fetched_url: Some(final_url),
                }
            }
            Outcome::NotModified { method, final_url } => SourceReport {
                name: name.clone(),
                status: SourceStatus::Ok { not_modified: true },
                items: if options.all {
                    self.store.offered_items(&name)?
                } else {
                    // Nothing new on the wire, but what a killed run
                    // fetched and never delivered is still owed.
                    self.store.pending_items(&name)?
                },
                method: Some(method),
                fetched_url: Some(final_url),
            },
            Outcome::Status(status) => SourceReport {
                name: name.clone(),
                status: status.cleaned(),
                items: Vec::new(),
                method: None,
                fetched_url: None,
            },
        };
        if !matches!(report.status, SourceStatus::Deferred { .. }) {
            self.store.record_run(&name, now, report.status.label())?;
        }
        Ok(Step::Done(report))
    }
}

enum Outcome {
    Next(Stage),
    Items {
        method: Method,
        items: Vec<Item>,
        final_url: String,
        /// Stored with the items, in one transaction (R7, R11).
        validators: Validators,
    },
    NotModified {
        method: Method,
        final_url: String,
    },
    Status(SourceStatus),
}

fn apply_host_row(gate: &mut Gate, host: &str, row: HostRow, now: Timestamp) {
    if let Some(t) = row.last_request {
        gate.observe_request(host, t);
    }
    if let Some(until) = row.hold_until.filter(|&t| t > now) {
        let reason = if row.cooldown {
            WaitReason::Cooldown
        } else {
            WaitReason::Backoff
        };
        gate.hold_host(host, until, reason);
    }
}
