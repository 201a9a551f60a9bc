//! The pre-request gate (section 7) as a pure state machine.
//!
//! For every URL the bot wants, the gate answers from what it knows and the
//! instant the caller passes in: deny (R3, naming the listed domain), deny
//! (R2, naming the rule and its line), "fetch the blocklist / this host's
//! robots.txt first", wait until an instant (R4, R5), or go. The shell does
//! the fetching and reports back; the gate never performs I/O.
//!
//! The order R3 → R2 → R4 is enforced by construction: the only way to get
//! a [`Permit`] — and the shell's HTTP layer sends nothing without one — is
//! [`Gate::admit`] (targets, redirect hops, retries), which runs all three
//! gates in order every time, or [`Gate::admit_robots`] (R3 then R4 for a
//! host's `/robots.txt`), or [`Gate::admit_operator`] (R4 for the operator's
//! own section 5 resources, which the contract requires us to fetch).
//! Admitting records the request instant, so throttling cannot be skipped.

use crate::blocklist::{BlockedDomain, Blocklist};
use crate::constants::{
    BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, MIN_REQUEST_INTERVAL, OPERATOR_BASE, ROBOTS_TTL,
    TEST_FIXTURES_PATH, UA_TOKEN,
};
use crate::domain::strip_trailing_dots;
use crate::robots::{CrawlDelay, Policy, Verdict};
pub use crate::target::{Target, ToTarget};
use crate::time::Timestamp;
use crate::url::{Url, UrlError};
use alloc::collections::BTreeMap;
use alloc::string::{String, ToString};
use core::fmt;
use core::time::Duration;

/// How long a failed refresh (blocklist, robots.txt) is not retried while
/// the last good copy stays in force.
pub const REFRESH_RETRY: Duration = Duration::from_secs(15 * 60);

/// Tunables; the defaults are the section 6 constants.
#[derive(Debug, Clone)]
pub struct GateConfig {
    /// Product token for robots.txt group selection.
    pub token: String,
    /// robots.txt cache lifetime (R2).
    pub robots_ttl: Duration,
    /// Minimum spacing between two requests to one host (R4).
    pub min_interval: Duration,
    /// The operator's base URL (section 5; a mirror or test server in
    /// tests). [`Gate::admit_operator`] admits only the section 5
    /// resources under it, so the R4-only exemption cannot be spent on
    /// anything else.
    pub operator_base: String,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            token: UA_TOKEN.to_string(),
            robots_ttl: ROBOTS_TTL,
            min_interval: MIN_REQUEST_INTERVAL,
            operator_base: OPERATOR_BASE.to_string(),
        }
    }
}

/// The throttle key of a URL: lower-case host, without its trailing dots
/// ([`strip_trailing_dots`], the one rule of every host comparison), with
/// the port when it is not the scheme's default (R4: "the throttle key is
/// the host"). A type, not a string, so a host key cannot be mixed
/// up with an origin or a URL; it reads as a `&str` where one is wanted.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HostKey(String);

impl HostKey {
    /// The key of `url`.
    pub fn of(url: &Url<'_>) -> HostKey {
        let host = strip_trailing_dots(url.host).to_ascii_lowercase();
        HostKey(match url.non_default_port() {
            Some(p) => alloc::format!("{host}:{p}"),
            None => host,
        })
    }

    /// A key as [`HostKey::as_str`] wrote it (read back from a store).
    pub fn from_stored(key: &str) -> HostKey {
        HostKey(key.to_string())
    }

    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl core::ops::Deref for HostKey {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl core::borrow::Borrow<str> for HostKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for HostKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The robots.txt scope of a URL: scheme, host and port, written
/// `scheme://host:port` with the port always explicit (RFC 9309 §2.3), and
/// the host key its requests are throttled under.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Origin {
    key: String,
    host: HostKey,
}

impl Origin {
    /// The origin of `url`.
    pub fn of(url: &Url<'_>) -> Origin {
        Origin {
            key: alloc::format!(
                "{}://{}:{}",
                url.scheme.to_ascii_lowercase(),
                strip_trailing_dots(url.host).to_ascii_lowercase(),
                url.effective_port()
            ),
            host: HostKey::of(url),
        }
    }

    /// `scheme://host:port`.
    pub fn as_str(&self) -> &str {
        &self.key
    }

    /// The throttle key of the origin's host.
    pub fn host(&self) -> &HostKey {
        &self.host
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.key)
    }
}

/// [`HostKey::of`].
pub fn host_key(url: &Url<'_>) -> HostKey {
    HostKey::of(url)
}

/// [`Origin::of`].
pub fn origin_key(url: &Url<'_>) -> Origin {
    Origin::of(url)
}

/// Where a host's robots.txt lives.
pub fn robots_url(url: &Url<'_>) -> String {
    let host = strip_trailing_dots(url.host).to_ascii_lowercase();
    match url.non_default_port() {
        Some(p) => alloc::format!(
            "{}://{host}:{p}/robots.txt",
            url.scheme.to_ascii_lowercase()
        ),
        None => alloc::format!("{}://{host}/robots.txt", url.scheme.to_ascii_lowercase()),
    }
}

// Nearly every entry is `Known`, read on every admission: boxing its
// policy would add a pointer chase there to save the rare `Unreachable`
// some 200 octets.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum RobotsEntry {
    /// A parsed robots.txt (2xx) or allow-all (4xx).
    Known {
        policy: Policy,
        fetched_at: Timestamp,
        retry_after_failure: Option<Timestamp>,
    },
    /// 5xx / network error with nothing cached: the host is deferred.
    Unreachable {
        until: Timestamp,
        reason: crate::outcome::Unreachable,
    },
}

#[derive(Debug, Clone)]
struct BlocklistEntry {
    list: Blocklist,
    fresh_until: Timestamp,
    adopted: bool,
}

#[derive(Debug, Clone, Copy, Default)]
struct HostState {
    last_request: Option<Timestamp>,
    not_before: Option<Timestamp>,
    not_before_reason: Option<WaitReason>,
}

/// Why a request must wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum WaitReason {
    /// R4 spacing of max(1 s, Crawl-delay) since the last request.
    Throttle,
    /// R5: our own backoff after a 429/503 (or other retryable error)
    /// that came without a Retry-After.
    Backoff,
    /// R5: the server's `Retry-After` ("wait at least that long"). Unlike
    /// our own holds, nothing but the server may shorten it: `wr-feeds
    /// reset` keeps it unless forced.
    RetryAfter,
    /// R5: retries exhausted; the host is left alone for a while.
    Cooldown,
}

/// What the gate says about a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision<'g> {
    /// The URL is not an absolute http(s) URL.
    Invalid(UrlError),
    /// [`Gate::admit_operator`] was asked for something that is not one of
    /// the operator's section 5 resources.
    NotOperatorResource,
    /// R3: the host is on the operator blocklist.
    DenyBlocklist(&'g BlockedDomain),
    /// R2: robots.txt disallows the path; the verdict names the rule and
    /// the reading that denied it.
    DenyRobots(Verdict<'g>),
    /// The blocklist must be fetched (first time, or stale: R12
    /// block-on-refresh) before anything else.
    NeedBlocklist,
    /// This host's robots.txt must be fetched (or refreshed) first, from
    /// this URL.
    NeedRobots(String),
    /// R3: no blocklist was ever adopted and none could be asked for (the
    /// operator host is held, or the stored copy cannot be read): targets
    /// wait until the instant given rather than run unprotected. The
    /// spec's fail-open covers a first fetch that fails, not one never
    /// made.
    BlocklistUnavailable {
        /// When the blocklist may be asked for again.
        until: Timestamp,
        /// Why it could not be.
        reason: &'g crate::outcome::BlocklistCause,
    },
    /// R2: robots.txt was unreachable and nothing is cached: the host is
    /// deferred until the instant given.
    Deferred {
        /// When a new attempt may be made.
        until: Timestamp,
        /// What went wrong.
        reason: &'g crate::outcome::Unreachable,
    },
    /// R4/R5: not before `until`.
    Wait {
        /// The earliest instant the request may be sent.
        until: Timestamp,
        /// Why.
        reason: WaitReason,
    },
    /// Every gate passed; [`Gate::admit`] would issue a permit now.
    Ready,
}

/// Why a permit is issued; the shell may log it, the gate decided it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// A target URL (or a redirect hop or retry of one): R3, R2 and R4 passed.
    Target,
    /// A host's `/robots.txt`: R3 and R4 passed.
    Robots,
    /// An operator resource of section 5: R4 passed.
    Operator,
}

/// Proof that a request passed the gate. Only the gate creates one; the
/// shell's HTTP layer requires one per request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permit {
    url: String,
    host: HostKey,
    purpose: Purpose,
    at: Timestamp,
}

impl Permit {
    /// The URL the gate evaluated (untagged: R13 parameters are added at
    /// transmission only).
    pub fn url(&self) -> &str {
        &self.url
    }
    /// The throttle key.
    pub fn host(&self) -> &str {
        &self.host
    }
    /// Why the request is made.
    pub fn purpose(&self) -> Purpose {
        self.purpose
    }
    /// The instant the slot was taken.
    pub fn at(&self) -> Timestamp {
        self.at
    }
}

/// The gate's knowledge: the blocklist, robots.txt per origin, and the
/// per-host schedule.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    config: GateConfig,
    blocklist: Option<BlocklistEntry>,
    /// Set while no list is in force and none could be asked for.
    blocklist_unavailable: Option<(Timestamp, crate::outcome::BlocklistCause)>,
    robots: BTreeMap<Origin, RobotsEntry>,
    hosts: BTreeMap<HostKey, HostState>,
}

impl Gate {
    /// A gate that knows nothing yet.
    pub fn new(config: GateConfig) -> Gate {
        Gate {
            config,
            ..Gate::default()
        }
    }

    /// The configuration.
    pub fn config(&self) -> &GateConfig {
        &self.config
    }

    // ---- what the shell reports -------------------------------------

    /// A validated blocklist was adopted (R3c) at `fetched_at`.
    pub fn blocklist_adopted(&mut self, list: Blocklist, fetched_at: Timestamp) {
        let fresh_until = fetched_at.saturating_add(list.refresh());
        self.blocklist_unavailable = None;
        self.blocklist = Some(BlocklistEntry {
            list,
            fresh_until,
            adopted: true,
        });
    }

    /// Fetching or validating the blocklist failed at `now` (R3b): the last
    /// adopted list stays in force; with none, an empty list is used (fail
    /// open) and [`Gate::blocklist_is_fallback`] says so.
    pub fn blocklist_failed(&mut self, now: Timestamp) {
        let retry = now.saturating_add(REFRESH_RETRY);
        self.blocklist_unavailable = None;
        match &mut self.blocklist {
            Some(entry) => entry.fresh_until = retry,
            None => {
                self.blocklist = Some(BlocklistEntry {
                    list: Blocklist::empty(),
                    fresh_until: retry,
                    adopted: false,
                })
            }
        }
    }

    /// The blocklist could not even be asked for at `now` (the operator host
    /// is held until `until`, or the stored copy is unreadable). An adopted
    /// list stays in force until then (R3b); with none, targets get
    /// [`Decision::BlocklistUnavailable`] until `until` instead of the
    /// empty fail-open list, which is only for a first fetch that failed.
    pub fn blocklist_unavailable(
        &mut self,
        now: Timestamp,
        until: Timestamp,
        reason: &crate::outcome::BlocklistCause,
    ) {
        // Never in the past: the decision must hold the targets back.
        let until = until.max(now.saturating_add(Duration::from_secs(1)));
        match &mut self.blocklist {
            Some(entry) if entry.adopted => entry.fresh_until = until,
            _ => {
                self.blocklist = None;
                self.blocklist_unavailable = Some((until, reason.clone()));
            }
        }
    }

    /// Whether the list in force is the empty fail-open list of a first
    /// failure (nothing is protected yet).
    pub fn blocklist_is_fallback(&self) -> bool {
        matches!(&self.blocklist, Some(e) if !e.adopted)
    }

    /// The blocklist in force, if any.
    pub fn blocklist(&self) -> Option<&Blocklist> {
        self.blocklist.as_ref().map(|e| &e.list)
    }

    /// robots.txt for `url`'s origin answered 2xx with `body` at `fetched_at`.
    pub fn robots_fetched(&mut self, url: &Url<'_>, body: &[u8], fetched_at: Timestamp) {
        let policy = Policy::parse(body, &self.config.token);
        self.set_robots(url, policy, fetched_at);
    }

    /// robots.txt answered 4xx: no rules, everything allowed (section 9.1.1).
    pub fn robots_not_found(&mut self, url: &Url<'_>, fetched_at: Timestamp) {
        self.set_robots(url, Policy::allow_all(), fetched_at);
    }

    /// Installs a policy (also used to restore a persisted cache).
    pub fn set_robots(&mut self, url: &Url<'_>, policy: Policy, fetched_at: Timestamp) {
        self.robots.insert(
            origin_key(url),
            RobotsEntry::Known {
                policy,
                fetched_at,
                retry_after_failure: None,
            },
        );
    }

    /// robots.txt answered 5xx, timed out or failed at `now` (section 9.1.1).
    /// A cached copy, even stale, stays in force; without one the host is
    /// deferred (never a silent permanent disallow) until `now + REFRESH_RETRY`.
    /// Returns `true` when a cached copy is used.
    pub fn robots_unreachable(
        &mut self,
        url: &Url<'_>,
        now: Timestamp,
        reason: &crate::outcome::Unreachable,
    ) -> bool {
        let key = origin_key(url);
        let retry = now.saturating_add(REFRESH_RETRY);
        match self.robots.get_mut(&key) {
            Some(RobotsEntry::Known {
                retry_after_failure,
                ..
            }) => {
                *retry_after_failure = Some(retry);
                true
            }
            _ => {
                self.robots.insert(
                    key,
                    RobotsEntry::Unreachable {
                        until: retry,
                        reason: reason.clone(),
                    },
                );
                false
            }
        }
    }

    /// The policy in force for `url`'s origin, and when it was fetched.
    pub fn robots_policy(&self, url: &Url<'_>) -> Option<(&Policy, Timestamp)> {
        match self.robots.get(&origin_key(url)) {
            Some(RobotsEntry::Known {
                policy, fetched_at, ..
            }) => Some((policy, *fetched_at)),
            _ => None,
        }
    }

    /// Another process (or a previous run) sent a request to `host` at
    /// `at`: the schedule keeps the latest instant (R4, R4a).
    pub fn observe_request(&mut self, host: &str, at: Timestamp) {
        let h = self.hosts.entry(HostKey::from_stored(host)).or_default();
        h.last_request = h.last_request.max(Some(at));
    }

    /// The last request instant recorded for `host`.
    pub fn last_request(&self, host: &str) -> Option<Timestamp> {
        self.hosts.get(host).and_then(|h| h.last_request)
    }

    /// R5: nothing goes to `host` before `until` (Retry-After, backoff, or
    /// the cooldown after retries run out). Never shortens an earlier hold.
    pub fn hold_host(&mut self, host: &str, until: Timestamp, reason: WaitReason) {
        let h = self.hosts.entry(HostKey::from_stored(host)).or_default();
        if h.not_before.is_none_or(|t| t < until) {
            h.not_before = Some(until);
            h.not_before_reason = Some(reason);
        }
    }

    /// The hold on `host`, if any.
    pub fn host_hold(&self, host: &str) -> Option<(Timestamp, WaitReason)> {
        let h = self.hosts.get(host)?;
        Some((
            h.not_before?,
            h.not_before_reason.unwrap_or(WaitReason::Backoff),
        ))
    }

    // ---- questions ----------------------------------------------------

    /// The spacing R4 requires between two requests to `host`:
    /// max(1 s, the largest Crawl-delay of its origins' robots.txt).
    pub fn spacing(&self, host: &str) -> Duration {
        let delay = self
            .robots
            .iter()
            .filter(|(origin, _)| origin.host().as_str() == host)
            .filter_map(|(_, e)| match e {
                RobotsEntry::Known { policy, .. } => policy.crawl_delay(),
                RobotsEntry::Unreachable { .. } => None,
            })
            .max()
            .map(|CrawlDelay(d)| d);
        crate::throttle::spacing(delay).max(crate::throttle::ceil_millis(self.config.min_interval))
    }

    /// When the next request to `host` may start as far as R4 and R5 go
    /// (the later of the spacing after its last request and any hold), or
    /// `None` for a host never asked and not held. A scheduling hint for
    /// the caller; [`Gate::admit`] remains the only way to a request.
    pub fn next_slot(&self, host: &str) -> Option<Timestamp> {
        let state = self.hosts.get(host).copied().unwrap_or_default();
        let spaced = state
            .last_request
            .map(|last| last.saturating_add(self.spacing(host)));
        match (spaced, state.not_before) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }

    fn throttle(&self, host: &str, now: Timestamp) -> Option<Decision<'_>> {
        let state = self.hosts.get(host).copied().unwrap_or_default();
        if let Some(until) = state.not_before.filter(|&t| t > now) {
            let reason = state.not_before_reason.unwrap_or(WaitReason::Backoff);
            return Some(Decision::Wait { until, reason });
        }
        // An unseen host is not delayed (R4).
        let last = state.last_request?;
        let next = last.saturating_add(self.spacing(host));
        (next > now).then_some(Decision::Wait {
            until: next,
            reason: WaitReason::Throttle,
        })
    }

    fn blocklist_gate(&self, target: &Target, now: Timestamp) -> Option<Decision<'_>> {
        let Some(entry) = &self.blocklist else {
            return Some(match &self.blocklist_unavailable {
                Some((until, reason)) if *until > now => Decision::BlocklistUnavailable {
                    until: *until,
                    reason,
                },
                _ => Decision::NeedBlocklist,
            });
        };
        // R3 is checked against the list in force even when it is due for
        // refresh: a stale list still blocks what it lists.
        if let Some(d) = entry.list.blocked_by(target.host()) {
            return Some(Decision::DenyBlocklist(d));
        }
        if entry.fresh_until <= now {
            return Some(Decision::NeedBlocklist);
        }
        None
    }

    fn robots_gate(&self, target: &Target, now: Timestamp) -> Option<Decision<'_>> {
        match self.robots.get(target.origin()) {
            None => Some(Decision::NeedRobots(target.robots_url())),
            Some(RobotsEntry::Unreachable { until, reason }) => {
                if *until > now {
                    Some(Decision::Deferred {
                        until: *until,
                        reason,
                    })
                } else {
                    Some(Decision::NeedRobots(target.robots_url()))
                }
            }
            Some(RobotsEntry::Known {
                policy,
                fetched_at,
                retry_after_failure,
            }) => {
                let stale = fetched_at.saturating_add(self.config.robots_ttl) <= now;
                let retrying = retry_after_failure.is_some_and(|t| t > now);
                // R12 block-on-refresh: a stale copy is refreshed before it
                // answers anything, allow or deny. Letting a stale Disallow
                // answer first would never refresh a host whose every URL it
                // denies: a publisher who lifts a Disallow would stay refused
                // for ever, a silent permanent disallow. Nothing is fetched
                // from the origin meanwhile, so this cannot under-block. After
                // a failed refresh the copy stays in force until the retry.
                if stale && !retrying {
                    return Some(Decision::NeedRobots(target.robots_url()));
                }
                let verdict = policy.check(target.path_and_query());
                if !verdict.allowed {
                    return Some(Decision::DenyRobots(verdict));
                }
                None
            }
        }
    }

    /// Evaluates `target` (a [`Target`], or a URL as text: see
    /// [`ToTarget`]) at `now` without taking a slot: R3, then R2, then R4.
    pub fn check<T: ToTarget + ?Sized>(&self, target: &T, now: Timestamp) -> Decision<'_> {
        match target.to_target() {
            Ok(target) => self.check_target(&target, now),
            Err(e) => Decision::Invalid(e),
        }
    }

    fn check_target(&self, target: &Target, now: Timestamp) -> Decision<'_> {
        if let Some(d) = self.blocklist_gate(target, now) {
            return d;
        }
        if let Some(d) = self.robots_gate(target, now) {
            return d;
        }
        self.throttle(target.host_key(), now)
            .unwrap_or(Decision::Ready)
    }

    fn take_slot(&mut self, url: &str, host: &HostKey, purpose: Purpose, now: Timestamp) -> Permit {
        let h = self.hosts.entry(host.clone()).or_default();
        h.last_request = h.last_request.max(Some(now));
        Permit {
            url: url.to_string(),
            host: host.clone(),
            purpose,
            at: now,
        }
    }

    /// Runs the full gate for a target URL (a first request, a redirect hop
    /// or a retry) and, when every gate passes, takes the host's slot. The
    /// URL is split once ([`ToTarget`]); a [`Target`] is not split again.
    pub fn admit<T: ToTarget + ?Sized>(
        &mut self,
        target: &T,
        now: Timestamp,
    ) -> Result<Permit, Decision<'_>> {
        let target = target.to_target().map_err(Decision::Invalid)?;
        // Asked twice on refusal only: a refusal borrows the gate, which
        // taking the slot would need mutably.
        if !matches!(self.check_target(&target, now), Decision::Ready) {
            return Err(self.check_target(&target, now));
        }
        Ok(self.take_slot(target.url(), target.host_key(), Purpose::Target, now))
    }

    /// Admits the fetch of `target`'s `/robots.txt`: R3 (a blocked host's
    /// robots.txt is not fetched either), then R4.
    pub fn admit_robots<T: ToTarget + ?Sized>(
        &mut self,
        target: &T,
        now: Timestamp,
    ) -> Result<Permit, Decision<'_>> {
        let target = target.to_target().map_err(Decision::Invalid)?;
        // Asked twice on refusal only, as in `admit`.
        if self.blocklist_then_throttle(&target, now).is_some() {
            return Err(self.refusal(&target, now));
        }
        Ok(self.take_slot(
            &target.robots_url(),
            target.host_key(),
            Purpose::Robots,
            now,
        ))
    }

    /// Admits one redirect hop of a robots.txt fetch (RFC 9309 2.3.1.2):
    /// R3 for the hop's host (a Location to a blocked host is refused like
    /// any other request), then R4. R2 cannot apply: the hop is how this
    /// origin's robots.txt is being learnt. The permit covers exactly `hop`,
    /// so a redirect cannot widen it to anything else on that host.
    pub fn admit_robots_hop<T: ToTarget + ?Sized>(
        &mut self,
        hop: &T,
        now: Timestamp,
    ) -> Result<Permit, Decision<'_>> {
        let hop = hop.to_target().map_err(Decision::Invalid)?;
        if self.blocklist_then_throttle(&hop, now).is_some() {
            return Err(self.refusal(&hop, now));
        }
        Ok(self.take_slot(hop.url(), hop.host_key(), Purpose::Robots, now))
    }

    /// R3 then R4 for `target`, the gates of a robots.txt fetch: the first
    /// refusal, if any.
    fn blocklist_then_throttle(&self, target: &Target, now: Timestamp) -> Option<Decision<'_>> {
        self.blocklist_gate(target, now)
            .or_else(|| self.throttle(target.host_key(), now))
    }

    /// [`Gate::blocklist_then_throttle`]'s refusal, for a caller that knows
    /// there is one.
    fn refusal(&self, target: &Target, now: Timestamp) -> Decision<'_> {
        self.blocklist_then_throttle(target, now)
            .unwrap_or(Decision::Ready)
    }

    /// Admits a request for an operator resource of section 5 (blocklist,
    /// schema, fixtures): only R4 applies, since the contract itself
    /// requires these fetches and R3 cannot be known before the blocklist.
    ///
    /// Only the exact URLs `operator_base` + the section 5 paths qualify
    /// (blocklist, its schema, the test fixtures), and the operator's own
    /// `/robots.txt` (where the section 16 canaries live; a robots.txt
    /// fetch never needs R2): anything else, a redirect hop from one of
    /// them included, must go through [`Gate::admit`].
    ///
    /// The base is an origin (scheme, host, port) and is matched as one,
    /// never as a string prefix: a base with a path, query, fragment or
    /// userinfo admits nothing, so `https://blocked.example/#` cannot turn
    /// `https://blocked.example/#/.well-known/...` (a GET of
    /// `https://blocked.example/`) into an exempt request.
    pub fn admit_operator<T: ToTarget + ?Sized>(
        &mut self,
        target: &T,
        now: Timestamp,
    ) -> Result<Permit, Decision<'_>> {
        let target = target.to_target().map_err(Decision::Invalid)?;
        if !self.is_operator_resource(&target) {
            return Err(Decision::NotOperatorResource);
        }
        if self.throttle(target.host_key(), now).is_some() {
            return Err(self
                .throttle(target.host_key(), now)
                .unwrap_or(Decision::Ready));
        }
        Ok(self.take_slot(target.url(), target.host_key(), Purpose::Operator, now))
    }
}

impl Gate {
    /// Whether `url` is exactly one of the operator's section 5 resources
    /// (or its robots.txt) on the operator's origin.
    fn is_operator_resource(&self, target: &Target) -> bool {
        let Ok(base) = Url::parse(&self.config.operator_base) else {
            return false;
        };
        let base_is_origin = matches!(base.path_and_query, "" | "/")
            && base.fragment.is_none()
            && !self.config.operator_base.contains('@');
        base_is_origin
            && !target.has_fragment()
            && !target.url().contains('@')
            && target.origin() == &origin_key(&base)
            && [
                BLOCKLIST_PATH,
                BLOCKLIST_SCHEMA_PATH,
                TEST_FIXTURES_PATH,
                "/robots.txt",
            ]
            .contains(&target.path_and_query())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocklist::BlockedDomain;
    use crate::url::splits;
    use alloc::vec::Vec;

    const T0: Timestamp = Timestamp(1_779_494_400_000);

    /// A gate that knows the blocklist (`blocked.test`) and the robots.txt
    /// of `a.test`, which disallows `/private`.
    fn gate() -> Gate {
        let mut g = Gate::new(GateConfig::default());
        let list = Blocklist::new(
            "walsh-research-blocklist/v1",
            Some("PT6H"),
            [BlockedDomain::new("blocked.test", "2026-05-23", "opt-out")],
        )
        .unwrap();
        g.blocklist_adopted(list, T0);
        let a = Url::parse("https://a.test/").unwrap();
        g.robots_fetched(&a, b"User-agent: *\nDisallow: /private\n", T0);
        splits::take();
        g
    }

    #[test]
    fn a_url_given_as_text_is_split_once_per_admission() {
        let mut g = gate();
        assert!(g.admit("https://a.test/ok", T0).is_ok());
        assert_eq!(splits::take(), 1, "admitted");
        let later = T0.saturating_add(Duration::from_secs(60));
        assert!(matches!(
            g.admit("https://a.test/private", later),
            Err(Decision::DenyRobots(_))
        ));
        assert_eq!(splits::take(), 1, "refused by R2");
        let soon = T0.saturating_add(Duration::from_millis(100));
        assert!(matches!(
            g.admit("https://a.test/ok", soon),
            Err(Decision::Wait { .. })
        ));
        assert_eq!(splits::take(), 1, "refused by R4");
        assert!(g.admit_robots("https://b.test/x", T0).is_ok());
        assert_eq!(splits::take(), 1, "robots.txt");
        assert!(g.admit_robots_hop("https://c.test/robots.txt", T0).is_ok());
        assert_eq!(splits::take(), 1, "robots.txt hop");
        let blocklist = alloc::format!("{OPERATOR_BASE}{BLOCKLIST_PATH}");
        assert!(g.admit_operator(blocklist.as_str(), T0).is_ok());
        // The operator's base is split too, once.
        assert_eq!(splits::take(), 2, "operator resource");
        let _ = g.check("https://a.test/other", later);
        assert_eq!(splits::take(), 1, "check");
    }

    #[test]
    fn a_target_is_never_split_again() {
        let mut g = gate();
        let target = Target::parse("https://a.test/ok").unwrap();
        let denied = Target::parse("https://a.test/private").unwrap();
        let robots = Target::parse("https://b.test/").unwrap();
        assert_eq!(splits::take(), 3);
        assert_eq!(g.check(&target, T0), Decision::Ready);
        assert!(g.admit(&target, T0).is_ok());
        assert!(matches!(g.admit(&denied, T0), Err(Decision::DenyRobots(_))));
        assert!(g.admit_robots(&robots, T0).is_ok());
        let hop = g.admit_robots_hop(&robots, T0);
        assert!(
            matches!(hop, Err(Decision::Wait { .. })),
            "R4: b.test was just asked"
        );
        assert_eq!(splits::take(), 0);
    }

    /// Two gates in one state, one asked with text, the other with
    /// targets: the same decisions, the same permits, in every case the
    /// gate tells apart (blocked, malformed, userinfo, ports, dots, case,
    /// IPv6, fragments, queries, robots.txt unknown).
    #[test]
    fn decisions_are_the_same_for_a_target_and_its_text() {
        let urls = [
            "https://a.test/ok",
            "https://a.test/private/x?y",
            "HTTPS://A.TEST.:443/private",
            "https://user@a.test/ok#frag",
            "https://a.test:8443/ok",
            "http://a.test/ok",
            "https://x.blocked.test/ok",
            "https://[::1]:8080/ok",
            "https://b.test/?q",
            "https://b.test",
            "ftp://a.test/",
            "https://",
            "https://a.test:99999/",
        ];
        let mut by_text = gate();
        let mut by_target = gate();
        for (i, url) in urls.iter().enumerate() {
            let now = T0.saturating_add(Duration::from_millis(i as u64));
            let target = Target::parse(url);
            let checked = by_text.check(*url, now);
            match &target {
                Ok(t) => assert_eq!(by_target.check(t, now), checked, "{url}"),
                Err(e) => assert_eq!(checked, Decision::Invalid(*e), "{url}"),
            }
            // Refusals compared as text: a `Decision` borrows its gate.
            type Admit = fn(&mut Gate, &str, Timestamp) -> Result<Permit, String>;
            type AdmitTarget = fn(&mut Gate, &Target, Timestamp) -> Result<Permit, String>;
            let ways: [(Admit, AdmitTarget); 4] = [
                (
                    |g, u, t| g.admit(u, t).map_err(|d| alloc::format!("{d:?}")),
                    |g, u, t| g.admit(u, t).map_err(|d| alloc::format!("{d:?}")),
                ),
                (
                    |g, u, t| g.admit_robots(u, t).map_err(|d| alloc::format!("{d:?}")),
                    |g, u, t| g.admit_robots(u, t).map_err(|d| alloc::format!("{d:?}")),
                ),
                (
                    |g, u, t| {
                        g.admit_robots_hop(u, t)
                            .map_err(|d| alloc::format!("{d:?}"))
                    },
                    |g, u, t| {
                        g.admit_robots_hop(u, t)
                            .map_err(|d| alloc::format!("{d:?}"))
                    },
                ),
                (
                    |g, u, t| g.admit_operator(u, t).map_err(|d| alloc::format!("{d:?}")),
                    |g, u, t| g.admit_operator(u, t).map_err(|d| alloc::format!("{d:?}")),
                ),
            ];
            for (text_way, target_way) in ways {
                let a = text_way(&mut by_text, url, now);
                let Ok(t) = &target else {
                    assert!(a.is_err(), "{url}");
                    continue;
                };
                assert_eq!(a, target_way(&mut by_target, t, now), "{url}");
            }
        }
        let hosts = |g: &Gate| g.hosts.keys().cloned().collect::<Vec<_>>();
        assert_eq!(hosts(&by_text), hosts(&by_target));
    }

    #[test]
    fn a_target_keys_as_the_gate_always_did() {
        for url in [
            "https://A.test.:443/p?q#f",
            "http://a.test:8080/",
            "https://u:p@[::1]:8443",
            "HTTP://a.test?x",
        ] {
            let t = Target::parse(url).unwrap();
            let u = Url::parse(url).unwrap();
            assert_eq!(t.origin(), &origin_key(&u), "{url}");
            assert_eq!(t.host_key(), &host_key(&u), "{url}");
            assert_eq!(t.robots_url(), robots_url(&u), "{url}");
            assert_eq!(t.host(), u.host, "{url}");
            assert_eq!(t.path_and_query(), u.path_and_query, "{url}");
            assert_eq!(t.has_fragment(), u.fragment.is_some(), "{url}");
            assert_eq!(t.url(), url);
        }
    }
}
