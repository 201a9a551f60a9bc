//! The pipeline: the driver of the fetch machines in `wr_core::fetch`.
//!
//! Every decision of a fetch (the gate for each hop and retry, what a
//! robots.txt answer means, R5 retries and holds, R9's stages, the
//! blocklist's adoption and fail-open rules) is made by a machine in
//! `wr-core`. This module only moves bytes and time: it polls a machine
//! inside the store's slot transaction for its host (R4a), sends what the
//! machine asks for with the HTTP client, reports back what came in,
//! sleeps until the instant a machine names, persists the machines'
//! effects, extracts items from the bodies handed out, and validates the
//! blocklist document against its schema.
//!
//! The loop that does this is not written here: it is
//! [`wr_core::fetch::driver`], the same loop the benches' simulation and
//! the core tests run on a virtual clock. The pipeline is its runtime
//! (`Shell`): the system clock, the HTTP client and the fleet's cache as
//! the transport, SQLite and the fleet as the store. `check` is a machine
//! too ([`Check`]), driven by that loop.
//!
//! Each source is a [`SourceFetch`]; the machines of a run are interleaved
//! by [`crate::schedule`] so a request to a ready host goes while another
//! host must wait. Requests are strictly serial (one thread, one request
//! at a time: R4).
//!
//! Decisions of the driver where the spec is silent (collected for
//! docs/conformance.md):
//!
//! * **R12: block-on-refresh.** A stale blocklist is refreshed before the
//!   next gated request, synchronously (sleeping for the operator host's
//!   slot if needed).
//! * **R4 spacing is measured conservatively:** the slot is taken (and
//!   persisted) when the request starts and the host's last-request instant
//!   is moved to when the response ends.
//! * **R7**: validators are stored per (URL, Accept) for the URL that
//!   answered, with the representation they belong to. Items are kept per
//!   source keyed by canonical URL with `first_seen`; "new" means first
//!   seen for that source and not yet reported delivered
//!   ([`Pipeline::mark_reported`]).
//! * **R8**: `last_run` is recorded for every finished source except
//!   deferred ones (so a deferred source is tried again next run).
//! * **R4a across machines** (a coordinator configured, see
//!   [`crate::fleet`]): the fleet's slot for the host is taken before the
//!   machine is polled and released after the answer; the fleet's waits
//!   and holds enter the gate as holds on this machine's clock; an answer
//!   from the fleet's cache is told to the machine at its fetch instant;
//!   a coordinator lost mid-run defers every remaining source.

use crate::blocklist_doc;
use crate::clock::{clamp_stored, Clock, Jitter};
use crate::config::Config;
use crate::extract::{self, Item};
use crate::fleet::{Coordinator, FleetError, Slot};
use crate::http::{BodyLimit, Http, Request as HttpRequest, ROBOTS_BODY_LIMIT};
use crate::report::{
    BlocklistState, CheckReport, Event, FetchError, Fetched, Method, Progress, Reason, RunReport,
    SignalReport, SourceReport, SourceStatus, Why,
};
use crate::schedule::Schedule;
use crate::store::{BlocklistRow, HoldCause, HostRow, RobotsRow, Store, StoreError, Validators};
use crate::words::words;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use wr_core::blocklist::{BlockedDomain, Blocklist};
use wr_core::constants::{BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH, SCHEMA_TTL};
use wr_core::fetch::driver::{self, Answer, Jobs, Next, Runtime, Step};
use wr_core::fetch::{
    self, Action, BlocklistRefresh, Check, Checked, Ctx, Effect, Extract, Get, GetOutcome, Machine,
    OperatorGet, Parser, RefreshEvent, Refreshed, Run, SourceEvent, SourceFetch, SourceOutcome,
    Stage, Stored,
};
use wr_core::gate::{host_key, Decision, Gate, GateConfig, HostKey, WaitReason};
use wr_core::hints::{Hint, Hints};
use wr_core::outcome::{Deferral, Refusal, RobotsDenial};
use wr_core::robots::Policy;
use wr_core::time::Timestamp;
use wr_core::url::Url as CoreUrl;

/// `d` in whole milliseconds, saturating.
fn ms_of(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// How long a call to the fleet coordinator may take before it counts as
/// lost.
const FLEET_TIMEOUT: Duration = Duration::from_secs(5);

/// R8: a source is not fetched again within this long (without `force`).
pub const MIN_SOURCE_INTERVAL: Duration = Duration::from_secs(3600);
pub use wr_core::fetch::{FEED_ACCEPT, LLMS_ACCEPT, MARKDOWN_ACCEPT, MAX_REDIRECTS};

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

impl Source {
    /// The source's identity in the state store: the canonical URL (R7) of
    /// its feed when it declares one, else of its page. Not its name:
    /// renaming a source in sources.toml keeps its R8 hour, its items and
    /// its days (issue #12). A URL that does not canonicalise is its own
    /// key.
    pub fn key(&self) -> String {
        let url = self.feed.as_deref().unwrap_or(&self.url);
        wr_core::canonical::canonical_url(url).unwrap_or_else(|_| url.to_string())
    }
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
///
/// The message of a wrapping variant is the wrapped error's own, and that
/// error is its `source()`.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// The state store.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// The HTTP client could not be built.
    #[error("HTTP client: {0}")]
    Http(String),
    /// The state directory is in use by another process (see
    /// [`crate::lock`]).
    #[error("{0}")]
    Lock(#[from] crate::lock::LockError),
    /// The fleet coordinator did not answer (see [`crate::fleet`]): at
    /// the start nothing is fetched; during a run every remaining target
    /// is deferred.
    #[error("{0}")]
    Fleet(#[from] FleetError),
}

struct Job {
    index: usize,
    source: Source,
    /// `source.key()`, computed once.
    key: String,
    fetch: SourceFetch,
}

/// The pipeline: a gate, the state store, an HTTP client and a clock.
pub struct Pipeline {
    /// Held while the pipeline lives: one process per state directory.
    lock: crate::lock::RunLock,
    config: Config,
    gate: Gate,
    /// What the machines of the current run share (patience, R5 schedule,
    /// timed-out hosts, effects to persist).
    run: Run,
    store: Store,
    http: Http,
    clock: Arc<dyn Clock>,
    jitter: Jitter,
    blocklist_state: BlocklistState,
    notices: Vec<String>,
    requests: u32,
    /// Hosts sent a request since the scheduler last heard of them.
    sent_to: Vec<String>,
    /// Hosts whose robots.txt was learnt since the scheduler last heard:
    /// their queued jobs are judged again (a denial needs no slot).
    learnt_robots: Vec<HostKey>,
    /// The fleet coordinator, when one is configured (R4a across machines).
    fleet: Option<Coordinator>,
    /// Why the coordinator stopped answering in this run: from then on
    /// every remaining target is deferred, never paced locally alone.
    fleet_lost: Option<FleetError>,
    /// The host whose fleet lease this process holds for the request
    /// being made.
    leased: Option<HostKey>,
}

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
    // The refresh is a number in the store, given back as a duration: no
    // ISO 8601 text is written to be parsed again (issue #21).
    Blocklist::new(
        &row.contract,
        None,
        entries
            .into_iter()
            .map(|e| BlockedDomain::new(&e.domain, &e.added, &e.reason)),
    )
    .ok()
    .map(|l| {
        l.with_refresh(Duration::from_millis(row.refresh_ms))
            .with_updated(&row.updated)
    })
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
/// (the gate then calls it invalid). Every command that judges a URL
/// (`check`, `robots`, the digest run) judges this form.
pub fn resolved(url: &str) -> String {
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
    let host = wr_core::domain::strip_trailing_dots(u.host).to_ascii_lowercase();
    Some(match u.non_default_port() {
        Some(p) => format!("{}://{host}:{p}", u.scheme.to_ascii_lowercase()),
        None => format!("{}://{host}", u.scheme.to_ascii_lowercase()),
    })
}

/// The pipeline as the runtime of the one driver loop
/// ([`wr_core::fetch::driver`]): the system clock with real sleeps, the
/// HTTP client (and the fleet's cache) as the transport, SQLite (and the
/// fleet's holds) as the store, each host's slot taken around a poll.
struct Shell<'a> {
    p: &'a mut Pipeline,
    progress: &'a mut dyn Progress,
    /// The coordinator was lost while the answer being handled was kept
    /// for the fleet: remembered once the answer is handled.
    lost: Option<FleetError>,
}

impl<'a> Shell<'a> {
    fn new(p: &'a mut Pipeline, progress: &'a mut dyn Progress) -> Shell<'a> {
        Shell {
            p,
            progress,
            lost: None,
        }
    }
}

impl Runtime for Shell<'_> {
    type Error = PipelineError;

    fn now(&self) -> Timestamp {
        self.p.clock.now()
    }

    fn wait_until(&mut self, until: Timestamp) {
        self.p.sleep_until(until, self.progress);
    }

    fn lend<T>(&mut self, at: Timestamp, f: impl FnOnce(&mut Ctx<'_>) -> T) -> T {
        self.p.with_cx_at(at, f)
    }

    fn take_effects(&mut self) -> Vec<Effect> {
        self.p.run.take_effects()
    }

    fn poll<M: Machine>(&mut self, m: &mut M) -> Result<Action<M::Output>, PipelineError> {
        self.p.poll(m)
    }

    fn send(&mut self, req: &fetch::Request) -> Result<Answer, PipelineError> {
        self.p.send(req, &mut self.lost, self.progress)
    }

    fn answered(&mut self, req: &fetch::Request) -> Result<(), PipelineError> {
        self.p.answered(req, self.lost.take());
        Ok(())
    }

    fn persist(&mut self, effect: Effect) -> Result<(), PipelineError> {
        self.p.persist(effect, self.progress)
    }

    fn refresh_blocklist(&mut self) -> Result<(), PipelineError> {
        self.p.refresh_blocklist(self.progress)
    }
}

/// A run's sources as the driver loop's [`Jobs`]: the scheduler says
/// whose turn it is; a turn is one step of the source's machine, then the
/// scheduler hears what the step taught (see `Pipeline::tell_scheduler`).
struct RunJobs<'a> {
    jobs: &'a mut [Option<Job>],
    sched: &'a mut Schedule<usize>,
    reports: &'a mut [Option<SourceReport>],
    options: RunOptions,
    /// Whether a job's start was told to the progress.
    started: Vec<bool>,
}

impl Jobs<Shell<'_>> for RunJobs<'_> {
    fn next(&mut self, now: Timestamp) -> Next<usize> {
        self.sched.next(now)
    }

    fn turn(&mut self, rt: &mut Shell<'_>, j: usize) -> Result<(), PipelineError> {
        let Some(mut job) = self.jobs[j].take() else {
            return Ok(());
        };
        if !self.started[j] {
            self.started[j] = true;
            rt.progress.event(Event::SourceStarted {
                name: &job.source.name,
            });
        }
        let step = rt.p.step_job(&mut job, self.options, rt.progress)?;
        rt.p.tell_scheduler(self.sched, self.jobs);
        match step {
            Step::Again(t) => {
                rt.p.queue(self.sched, j, &job, t);
                self.jobs[j] = Some(job);
            }
            Step::Done(report) => {
                rt.progress.event(Event::SourceDone {
                    name: &report.name,
                    status: &report.status,
                });
                self.reports[job.index] = Some(report);
            }
        }
        Ok(())
    }
}

impl Pipeline {
    /// Opens the state store in `config.state_dir` and restores the gate's
    /// knowledge from it (blocklist, robots.txt cache, per-host schedule).
    ///
    /// Waits (as [`Config::lock_wait`] says) while another process uses
    /// the same state directory; see [`crate::lock`].
    pub fn open(config: Config) -> Result<Pipeline, PipelineError> {
        Pipeline::open_waiting(config, &mut |_, _| {})
    }

    /// [`Pipeline::open`], calling `on_wait` with how long it has waited
    /// so far while another process holds the state directory, so the
    /// caller can say why nothing happens.
    pub fn open_waiting(
        config: Config,
        on_wait: &mut dyn FnMut(&std::path::Path, std::time::Duration),
    ) -> Result<Pipeline, PipelineError> {
        let lock = crate::lock::RunLock::acquire(&config.state_dir, config.lock_wait, on_wait)
            .map_err(PipelineError::Lock)?;
        let store = Store::open(&config.state_dir)?;
        let http = Http::new(&config).map_err(PipelineError::Http)?;
        // Before anything is fetched: a coordinator that does not answer
        // now stops the run (nothing is paced locally alone).
        let fleet = match &config.coordinator {
            Some(url) => Some(Coordinator::connect(
                url,
                config.timeouts.request + Duration::from_secs(1),
                FLEET_TIMEOUT,
            )?),
            None => None,
        };
        let clock = config.clock.clone();
        let now = clock.now();
        let mut gate = Gate::new(GateConfig {
            operator_base: config.operator_base.clone(),
            ..GateConfig::default()
        });
        let blocklist_state = restore(&store, &mut gate, now)?;
        let fleet = match fleet {
            Some(f) => Some(join_fleet(f, &store, &config.state_dir, now)?),
            None => None,
        };
        let seed = config.rng_seed.unwrap_or(now.0 ^ 0x5DEE_CE66_D1CE_4E5B);
        Ok(Pipeline {
            lock,
            jitter: Jitter::new(seed),
            run: Run::new(config.max_wait, config.backoff),
            config,
            gate,
            store,
            http,
            clock,
            blocklist_state,
            notices: Vec::new(),
            requests: 0,
            sent_to: Vec::new(),
            learnt_robots: Vec::new(),
            fleet,
            fleet_lost: None,
            leased: None,
        })
    }

    /// The fleet coordinator, if one is configured.
    pub fn fleet(&mut self) -> Option<&mut Coordinator> {
        self.fleet.as_mut()
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

    // ---- driving a machine ------------------------------------------------

    /// Lends the machines what they need: the gate, the run, the instant
    /// and a fresh random value.
    fn with_cx<R>(&mut self, f: impl FnOnce(&mut Ctx<'_>) -> R) -> R {
        let now = self.clock.now();
        self.with_cx_at(now, f)
    }

    /// [`Pipeline::with_cx`] at `now`: an answer the fleet's cache gives
    /// is told to the machine at the instant it was fetched, so a
    /// robots.txt or blocklist served from there is as old as it is.
    fn with_cx_at<R>(&mut self, now: Timestamp, f: impl FnOnce(&mut Ctx<'_>) -> R) -> R {
        // Every step of every machine comes here: a run waiting for the
        // lock sees this one is working (see [`crate::lock`]).
        self.lock.beat();
        let mut cx = Ctx {
            gate: &mut self.gate,
            run: &mut self.run,
            now,
            jitter: self.jitter.unit(),
        };
        f(&mut cx)
    }

    /// Why the coordinator no longer answers, remembered for the rest of
    /// the run.
    fn fleet_failed(&mut self, e: FleetError) -> PipelineError {
        self.fleet_lost.get_or_insert(e.clone());
        PipelineError::Fleet(e)
    }

    /// R4a across machines: asks the coordinator for `host`'s slot before
    /// the machine is polled. `Ok(true)`: the lease is ours. Otherwise the
    /// fleet's wait or hold is put in the gate (as a duration from this
    /// machine's now: the clocks of the fleet need not agree), so the
    /// machine waits or defers as it would for a local one. Without a
    /// coordinator: `Ok(false)` and nothing changes.
    fn fleet_acquire(&mut self, host: &HostKey) -> Result<bool, PipelineError> {
        if let Some(e) = &self.fleet_lost {
            return Err(PipelineError::Fleet(e.clone()));
        }
        let spacing = self.gate.spacing(host);
        let Some(fleet) = self.fleet.as_mut() else {
            return Ok(false);
        };
        let answer = fleet.acquire(host, spacing);
        let now = self.clock.now();
        match answer {
            Err(e) => Err(self.fleet_failed(e)),
            Ok(Slot::Go) => Ok(true),
            Ok(Slot::Wait { ms }) => {
                let until = now.saturating_add(Duration::from_millis(ms.max(1)));
                self.gate.hold_host(host, until, WaitReason::Throttle);
                Ok(false)
            }
            Ok(Slot::Held { ms, cause }) => {
                let until = now.saturating_add(Duration::from_millis(ms.max(1)));
                let reason = match cause {
                    HoldCause::RetryAfter => WaitReason::RetryAfter,
                    HoldCause::Cooldown => WaitReason::Cooldown,
                    HoldCause::Backoff => WaitReason::Backoff,
                };
                self.gate.hold_host(host, until, reason);
                Ok(false)
            }
        }
    }

    /// A machine may be polled a moment after the fleet said "wait N ms",
    /// when this machine's clock has passed the N ms: its request is then
    /// ready without the fleet's lease. Asks again, sleeping through short
    /// waits (at most the request timeout in all: never past a request of
    /// the fleet in flight); `Ok(true)` with the lease taken, `Ok(false)`
    /// when the slot is not to be had now.
    fn fleet_catch_up(
        &mut self,
        host: &str,
        progress: &mut dyn Progress,
    ) -> Result<bool, PipelineError> {
        let start = self.clock.now();
        let bound = start.saturating_add(self.config.timeouts.request);
        loop {
            let spacing = self.gate.spacing(host);
            let Some(fleet) = self.fleet.as_mut() else {
                return Ok(true);
            };
            match fleet.acquire(host, spacing) {
                Err(e) => return Err(self.fleet_failed(e)),
                Ok(Slot::Go) => {
                    self.leased = Some(HostKey::from_stored(host));
                    return Ok(true);
                }
                Ok(Slot::Wait { ms }) => {
                    let until = self.clock.now().saturating_add(Duration::from_millis(ms));
                    if until > bound {
                        return Ok(false);
                    }
                    self.sleep_until(until, progress);
                }
                Ok(Slot::Held { .. }) => return Ok(false),
            }
        }
    }

    /// Gives the fleet's slot for `host` back unused (the answer came from
    /// the fleet's cache, or the machine did not send).
    fn fleet_unused(&mut self, host: &str) -> Result<(), PipelineError> {
        if self.leased.as_deref() == Some(host) {
            self.leased = None;
        }
        match self.fleet.as_mut().map(|f| f.unused(host)) {
            Some(Err(e)) => Err(self.fleet_failed(e)),
            _ => Ok(()),
        }
    }

    /// Polls `m` inside the store's `BEGIN IMMEDIATE` transaction for the
    /// host it will ask next, after merging that host's persisted schedule
    /// (another process may have used it), and persists the slot it takes
    /// (R4a). With a coordinator, the fleet's slot is taken first (see
    /// [`Pipeline::fleet_acquire`]) and given back if no request follows.
    fn poll<M: Machine>(&mut self, m: &mut M) -> Result<Action<M::Output>, PipelineError> {
        let action = match m.next_host() {
            Some(host) => {
                let leased = self.fleet_acquire(&host)?;
                let (gate, run, clock, jitter) =
                    (&mut self.gate, &mut self.run, &self.clock, &mut self.jitter);
                let action = self.store.reserve_slot(&host, |row| {
                    let now = clock.now();
                    apply_host_row(gate, &host, row, now);
                    let mut cx = Ctx {
                        gate,
                        run,
                        now,
                        jitter: jitter.unit(),
                    };
                    let action = m.poll(&mut cx);
                    let slot = match &action {
                        Action::Send(r) => Some((r.permit.host().to_string(), r.permit.at())),
                        _ => None,
                    };
                    (action, slot)
                });
                let sends =
                    matches!(&action, Ok(Action::Send(r)) if r.permit.host() == host.as_str());
                if leased && sends {
                    self.leased = Some(host);
                } else if leased {
                    self.leased = Some(host.clone());
                    self.fleet_unused(&host)?;
                }
                action?
            }
            None => self.with_cx(|cx| m.poll(cx)),
        };
        Ok(action)
    }

    /// With a coordinator, before a request is sent: the fleet's answer
    /// instead of one from the wire, if it has one: the fleet's slot went
    /// to another machine meanwhile, or an answer another machine fetched
    /// in the last hour is handed over instead of a second request.
    fn fleet_answered(
        &mut self,
        req: &fetch::Request,
        host: &str,
        progress: &mut dyn Progress,
    ) -> Result<Option<Answer>, PipelineError> {
        let url = req.url().to_string();
        let accept = req.accept.unwrap_or("");
        if self.leased.as_deref() != Some(host) && !self.fleet_catch_up(host, progress)? {
            // The fleet's slot went to another machine, or a hold of
            // the fleet came in, between the fleet's answer and the
            // machine's: this request is not sent. It failed as a
            // transfer would (R5: retried on the schedule, where the
            // fleet's hold then answers).
            let failure = fetch::Failure {
                kind: fetch::FailureKind::Network,
                reason: format!(
                    "{url}: not sent: the fleet's slot for {host} was taken meanwhile (R4a)"
                ),
            };
            return Ok(Some(Answer::now(Err(failure))));
        }
        let cached = match self.fleet.as_mut().map(|f| f.cached(&url, accept)) {
            Some(Err(e)) => return Err(self.fleet_failed(e)),
            Some(Ok(c)) => c,
            None => None,
        };
        let Some((resp, age)) = cached else {
            return Ok(None);
        };
        self.fleet_unused(host)?;
        // Told at the instant it was fetched: a robots.txt or blocklist
        // served from the fleet's cache is as old as it is.
        let fetched = Timestamp(self.clock.now().0.saturating_sub(ms_of(age)));
        let limit = self.config.max_body;
        let too_large =
            matches!(req.limit, fetch::BodyLimit::Document) && resp.body.len() as u64 > limit;
        let result = match too_large {
            false => Ok(resp),
            true => Err(fetch::Failure {
                kind: fetch::FailureKind::TooLarge { limit },
                reason: format!("{url}: larger than {limit} bytes"),
            }),
        };
        Ok(Some(Answer {
            result,
            sent_kind: None,
            at: Some(fetched),
        }))
    }

    /// Sends what a machine asked for under its permit. With a
    /// coordinator: only under the fleet's lease for the host; an answer
    /// another machine fetched in the last hour is handed over instead of
    /// a second request; what this machine fetched is kept for the others
    /// (a coordinator lost while keeping it is `lost`, to be remembered
    /// once the answer is handled).
    fn send(
        &mut self,
        req: &fetch::Request,
        lost: &mut Option<FleetError>,
        progress: &mut dyn Progress,
    ) -> Result<Answer, PipelineError> {
        let url = req.url().to_string();
        let accept = req.accept.unwrap_or("");
        let host = req.permit.host().to_string();
        if self.fleet.is_some() {
            if let Some(answer) = self.fleet_answered(req, &host, progress)? {
                return Ok(answer);
            }
        }
        progress.event(Event::Request { url: &url });
        self.requests += 1;
        if !self.sent_to.contains(&host) {
            self.sent_to.push(host.clone());
        }
        let validators = match req.conditional {
            true => self.store.validators(&url, accept)?,
            false => None,
        };
        let http_req = HttpRequest {
            accept: req.accept,
            validators: validators.as_ref(),
            limit: match req.limit {
                fetch::BodyLimit::Robots => ROBOTS_BODY_LIMIT,
                fetch::BodyLimit::Document => BodyLimit::Fail(self.config.max_body),
            },
        };
        let result = self.http.send(&req.permit, &url, &http_req);
        progress.event(Event::Response {
            url: &url,
            status: result.as_ref().map_or(0, |r| r.status),
        });
        // Kept for the fleet before the lease is released, so a machine
        // that takes the slot next finds it.
        if let (Some(fleet), Ok(resp)) = (self.fleet.as_mut(), &result) {
            if let Err(e) = fleet.put_cached(&url, accept, resp) {
                *lost = Some(e);
            }
        }
        Ok(Answer {
            result: result.map_err(|e| e.to_failure()),
            sent_kind: validators.and_then(|v| v.kind),
            at: None,
        })
    }

    /// The answer to `req` is handled: the fleet's lease is released, and
    /// a coordinator lost meanwhile defers what comes next, not this
    /// answer.
    fn answered(&mut self, req: &fetch::Request, mut lost: Option<FleetError>) {
        let host = req.permit.host();
        if self.leased.take().is_some() {
            // The spacing counts from the end of the exchange, with the
            // Crawl-delay the answer may just have taught.
            let spacing = self.gate.spacing(host);
            if let Some(Err(e)) = self.fleet.as_mut().map(|f| f.release(host, spacing)) {
                lost.get_or_insert(e);
            }
        }
        if let Some(e) = lost {
            self.fleet_lost.get_or_insert(e);
        }
    }

    /// At most one request of `m` (see [`driver::step`]).
    fn step<M: Machine>(
        &mut self,
        m: &mut M,
        progress: &mut dyn Progress,
    ) -> Result<Step<M::Output>, PipelineError> {
        driver::step(&mut Shell::new(self, progress), m)
    }

    /// Steps `m` to its output, sleeping through its waits (the sequential
    /// callers: `check`, `selftest`, the operator resources).
    fn finish<M: Machine>(
        &mut self,
        m: &mut M,
        progress: &mut dyn Progress,
    ) -> Result<M::Output, PipelineError> {
        driver::finish(&mut Shell::new(self, progress), m)
    }

    /// A host held (R5): in the store, and in the fleet when there is
    /// one.
    fn hold(
        &mut self,
        host: &str,
        until: Timestamp,
        reason: WaitReason,
    ) -> Result<(), PipelineError> {
        let cause = match reason {
            WaitReason::RetryAfter => HoldCause::RetryAfter,
            WaitReason::Cooldown => HoldCause::Cooldown,
            WaitReason::Backoff | WaitReason::Throttle => HoldCause::Backoff,
        };
        self.store.hold_at(host, until, cause, self.clock.now())?;
        // The fleet honours it too, as a duration from now,
        // capped as the store caps a server's (issue #20).
        let now = self.clock.now();
        let until = match cause {
            HoldCause::RetryAfter => wr_core::retry_after::cap_hold(until, now),
            _ => until,
        };
        let remaining = now.until(until);
        if let Some(Err(e)) = self.fleet.as_mut().map(|f| f.hold(host, remaining, cause)) {
            return Err(self.fleet_failed(e));
        }
        Ok(())
    }

    /// Makes the machines' effects last.
    fn apply_effects(&mut self, progress: &mut dyn Progress) -> Result<(), PipelineError> {
        for effect in self.run.take_effects() {
            self.persist(effect, progress)?;
        }
        Ok(())
    }

    /// Makes one effect of a machine last.
    fn persist(
        &mut self,
        effect: Effect,
        progress: &mut dyn Progress,
    ) -> Result<(), PipelineError> {
        match effect {
            Effect::Hold {
                host,
                until,
                reason,
            } => self.hold(&host, until, reason)?,
            Effect::RequestEnded { host, at } => self
                .store
                .reserve_slot(&host, |_| ((), Some((host.to_string(), at))))?,
            Effect::Robots {
                origin,
                status,
                body,
                fetched_at,
            } => {
                self.learnt_robots.push(origin.host().clone());
                self.store.put_robots(&RobotsRow {
                    origin: origin.to_string(),
                    status,
                    body,
                    fetched_at,
                })?
            }
            Effect::BlocklistAdopted {
                list,
                fetched_at,
                validators,
            } => {
                self.store
                    .put_blocklist(&blocklist_to_row(&list, fetched_at))?;
                if let Some((etag, last_modified)) = validators {
                    let v = Validators {
                        etag,
                        last_modified,
                        kind: Some("blocklist".into()),
                    };
                    let url = self.operator_url(BLOCKLIST_PATH);
                    self.store
                        .put_validators(&url, "application/json", &v, fetched_at)?;
                }
            }
            Effect::PageIsOther {
                url,
                accept,
                etag,
                last_modified,
            } => {
                let v = Validators {
                    etag,
                    last_modified,
                    kind: Some("other".into()),
                };
                let now = self.clock.now();
                self.store.put_validators(&url, accept, &v, now)?;
            }
            Effect::Notice(n) => self.notice(progress, words(&n)),
        }
        Ok(())
    }

    // ---- blocklist (R3, R3b, R3c, R10, R12) ------------------------------

    fn operator_url(&self, path: &str) -> String {
        format!("{}{}", self.config.operator_base, path)
    }

    /// Refreshes the blocklist now (R12 block-on-refresh).
    fn refresh_blocklist(&mut self, progress: &mut dyn Progress) -> Result<(), PipelineError> {
        let url = self.operator_url(BLOCKLIST_PATH);
        let stored = match self.store.blocklist()? {
            None => Stored::Nothing,
            Some(row) => blocklist_from_row(&row).map_or(Stored::Unreadable, Stored::List),
        };
        let mut m = BlocklistRefresh::new(&url, stored);
        loop {
            match self.finish(&mut m, progress)? {
                RefreshEvent::Validate { body, .. } => {
                    let result = self.validate_blocklist(&body, progress)?;
                    self.with_cx(|cx| m.validated(cx, result));
                    self.apply_effects(progress)?;
                }
                RefreshEvent::Finished(done) => {
                    self.blocklist_state = match done {
                        Refreshed::Fresh { entries } => BlocklistState::Fresh { entries },
                        Refreshed::Retained { entries, cause } => BlocklistState::Retained {
                            entries,
                            reason: Reason::new(Why::Blocklist(cause)),
                        },
                        Refreshed::Fallback { cause } => BlocklistState::Fallback {
                            reason: Reason::new(Why::Blocklist(cause)),
                        },
                        Refreshed::Unavailable { cause } => BlocklistState::Unavailable {
                            reason: Reason::new(Why::Blocklist(cause)),
                        },
                    };
                    return Ok(());
                }
            }
        }
    }

    /// R3c / R10: validates against the inline schema, else the standalone
    /// schema (cached 7 days, stale copy used and logged on failure).
    fn validate_blocklist(
        &mut self,
        body: &[u8],
        progress: &mut dyn Progress,
    ) -> Result<Result<Blocklist, String>, PipelineError> {
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
    ) -> Result<Option<serde_json::Value>, PipelineError> {
        let url = self.operator_url(BLOCKLIST_SCHEMA_PATH);
        let now = self.clock.now();
        let cached = self.store.schema(&url)?;
        if let Some((body, at)) = &cached {
            if (*at).min(now).saturating_add(SCHEMA_TTL) > now {
                return Ok(serde_json::from_slice(body).ok());
            }
        }
        let mut get = OperatorGet::new(&url, "application/schema+json, application/json", false);
        let fetched = self.finish(&mut get, progress)?;
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
            Err(e) => words(&e.cause),
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

    fn sleep_until(&mut self, until: Timestamp, progress: &mut dyn Progress) {
        let now = self.clock.now();
        if until > now {
            let d = now.until(until);
            progress.event(Event::Waiting { duration: d, until });
            self.clock.sleep(d);
        }
    }

    // ---- one GET (selftest) ------------------------------------------------

    fn get_to_end(
        &mut self,
        mut m: Get,
        progress: &mut dyn Progress,
    ) -> Result<Result<Fetched, FetchError>, PipelineError> {
        let original = m.original().to_string();
        Ok(match self.finish(&mut m, progress)? {
            GetOutcome::Response { response, url, .. } => Ok(Fetched {
                url: original,
                final_url: url,
                status: response.status,
                content_type: response.content_type,
                body: response.body,
            }),
            GetOutcome::DeniedBlocklist { url, domain, .. } => {
                Err(FetchError::DeniedBlocklist { url, domain })
            }
            GetOutcome::DeniedRobots { url, denial } => Err(FetchError::DeniedRobots {
                url,
                rule: words(&denial),
                line: denial.line(),
            }),
            GetOutcome::Deferred { url, why, .. } => Err(FetchError::Deferred {
                url,
                reason: words(&why),
            }),
            GetOutcome::Invalid { url, error } => Err(FetchError::Invalid {
                url,
                reason: words(&error),
            }),
            GetOutcome::Failed { url, cause } => Err(FetchError::Failed {
                url,
                reason: words(&cause),
            }),
        })
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
        let m = Get::new(&resolved(url), accept).unconditional();
        let mut r = self.get_to_end(m, progress)?;
        if let Ok(f) = &mut r {
            f.url = url.to_string();
        }
        Ok(r)
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
        self.get_to_end(Get::operator(&url, accept), progress)
    }

    /// Records that the items of `report` reached the reader (the digest
    /// was written). Until this is called they stay pending and the next
    /// run reports them again, so a run killed between fetching and
    /// delivering loses nothing; calling it is the caller's promise that
    /// the digest is safe.
    pub fn mark_reported(&mut self, report: &RunReport) -> Result<(), PipelineError> {
        self.store.mark_reported(
            report
                .sources
                .iter()
                .flat_map(|s| s.items.iter().map(move |i| (s.key.as_str(), i.id.as_str()))),
        )?;
        Ok(())
    }

    /// [`Pipeline::mark_reported`] for the digest of `day` (`YYYY-MM-DD`):
    /// the items belong to that day's digest from now on (`show`,
    /// `--since`, and a rerun on the same day list them again).
    pub fn mark_reported_on(&mut self, report: &RunReport, day: &str) -> Result<(), PipelineError> {
        self.store.mark_reported_on(
            report
                .sources
                .iter()
                .flat_map(|s| s.items.iter().map(move |i| (s.key.as_str(), i.id.as_str()))),
            day,
        )?;
        Ok(())
    }

    /// The usage-preference lines (`Content-Signal`, `Content-Usage`,
    /// `License`) of the robots.txt stored for `url`'s origin: kept with
    /// it, as its body is. Empty when none is stored (or it has none).
    pub fn robots_signals(&self, url: &str) -> Result<Vec<SignalReport>, PipelineError> {
        Ok(robots_signals(&self.store, url)?)
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
        let url = url.to_string();
        match self.finish(&mut Check::new(&target), progress)? {
            Checked::RobotsDeferred(d) => Ok(CheckReport::Deferred {
                url,
                reason: crate::words::robots_deferred(&d),
            }),
            Checked::Decided { at } => {
                let d = self.gate.check(&target, at);
                Ok(self.report_check(url, &target, d, at))
            }
        }
    }

    /// The report of an allowed URL: the wait for its host's slot, the R4
    /// spacing and the robots.txt rule that decided, if one matched.
    fn allowed(&self, url: String, target: &str, wait: Duration) -> CheckReport {
        let (host, decided) = match CoreUrl::parse(target) {
            Ok(u) => {
                let decided = self
                    .gate
                    .robots_policy(&u)
                    .and_then(|(p, _)| p.check(u.path_and_query).rule)
                    .map(|r| (crate::words::rule_as_written(&r), r.line));
                (host_key(&u), decided)
            }
            Err(_) => (HostKey::default(), None),
        };
        let (rule, line) = decided.map_or((None, None), |(r, l)| (Some(r), Some(l)));
        CheckReport::Allowed {
            url,
            wait_ms: wait.as_millis() as u64,
            spacing_ms: self.gate.spacing(&host).as_millis() as u64,
            rule,
            line,
        }
    }

    /// The report for the gate's decision `d` on `target` (`url` as the
    /// caller wrote it).
    fn report_check(
        &self,
        url: String,
        target: &str,
        d: Decision<'_>,
        now: Timestamp,
    ) -> CheckReport {
        match d {
            Decision::NeedBlocklist | Decision::NeedRobots(_) => CheckReport::Deferred {
                url,
                reason: crate::words::not_obtained(&Refusal::from(d)),
            },
            Decision::DenyBlocklist(b) => CheckReport::DeniedBlocklist {
                url,
                domain: b.domain.clone(),
                reason: b.reason.clone(),
            },
            Decision::DenyRobots(v) => {
                let denial = RobotsDenial::of(&v);
                CheckReport::DeniedRobots {
                    url,
                    rule: words(&denial),
                    line: denial.line(),
                }
            }
            Decision::Deferred { reason, .. } => CheckReport::Deferred {
                url,
                reason: crate::words::robots_unreachable(reason),
            },
            Decision::BlocklistUnavailable { reason, .. } => CheckReport::Deferred {
                url,
                reason: crate::words::blocklist_not_obtained(reason),
            },
            Decision::Invalid(e) => CheckReport::Invalid {
                url,
                reason: e.to_string(),
            },
            Decision::NotOperatorResource => CheckReport::Invalid {
                url,
                reason: words(&Refusal::NotOperatorResource),
            },
            // A hold (R5 Retry-After, or the cool-down after repeated
            // failures) is not a pause before an allowed request: the host
            // will not be asked before then, whatever the caller does next.
            // Say so, with the instant.
            Decision::Wait {
                until,
                reason:
                    reason @ (WaitReason::Backoff | WaitReason::RetryAfter | WaitReason::Cooldown),
            } => CheckReport::Deferred {
                url,
                reason: crate::words::held(now, until, reason),
            },
            Decision::Wait { until, .. } => self.allowed(url, target, now.until(until)),
            Decision::Ready => self.allowed(url, target, Duration::ZERO),
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
        self.learnt_robots.clear();
        self.run = Run::new(self.config.max_wait, self.config.backoff);
        let started = self.clock.now();
        let mut reports: Vec<Option<SourceReport>> = vec![None; sources.len()];
        let mut sched = Schedule::new();
        let mut jobs = self.plan(
            sources,
            options,
            started,
            &mut sched,
            &mut reports,
            progress,
        )?;
        self.drive(&mut jobs, &mut sched, &mut reports, options, progress)?;
        Ok(RunReport {
            started_at: started.0,
            finished_at: self.clock.now().0,
            blocklist: self.blocklist_state.clone(),
            sources: reports.into_iter().flatten().collect(),
            notices: self.notices.clone(),
            requests: self.requests,
        })
    }

    /// A job for every source that is due, queued; the report of every
    /// source R8 skips, in `reports`.
    fn plan(
        &mut self,
        sources: &[Source],
        options: RunOptions,
        started: Timestamp,
        sched: &mut Schedule<usize>,
        reports: &mut [Option<SourceReport>],
        progress: &mut dyn Progress,
    ) -> Result<Vec<Option<Job>>, PipelineError> {
        let mut jobs: Vec<Option<Job>> = Vec::new();
        for (i, s) in sources.iter().enumerate() {
            if let Some(report) = self.skipped(s, started, options, progress)? {
                progress.event(Event::SourceDone {
                    name: &s.name,
                    status: &report.status,
                });
                reports[i] = Some(report);
                continue;
            }
            // URLs are parsed and put in the form that is sent once, here.
            let page = resolved(&s.url);
            let llms = format!("{}/llms.txt", origin_base(&page).unwrap_or_default());
            let feed = s.feed.as_deref().map(resolved);
            let job = Job {
                index: i,
                source: s.clone(),
                key: s.key(),
                fetch: SourceFetch::new(&page, feed.as_deref(), &llms),
            };
            self.queue(sched, jobs.len(), &job, started);
            jobs.push(Some(job));
        }
        Ok(jobs)
    }

    /// Steps the jobs in the order the scheduler gives until none is left,
    /// sleeping when every host must wait (the driver loop's
    /// [`driver::drive`]).
    fn drive(
        &mut self,
        jobs: &mut [Option<Job>],
        sched: &mut Schedule<usize>,
        reports: &mut [Option<SourceReport>],
        options: RunOptions,
        progress: &mut dyn Progress,
    ) -> Result<(), PipelineError> {
        let mut run = RunJobs {
            started: vec![false; jobs.len()],
            jobs,
            sched,
            reports,
            options,
        };
        driver::drive(&mut Shell::new(self, progress), &mut run)
    }

    /// R8 and the publisher's hints: the report of a source that ran less
    /// than an hour ago, or before the earliest next fetch its publisher
    /// allows; `None` when it is due. `force` fetches it anyway, and says
    /// what it overrides.
    fn skipped(
        &mut self,
        s: &Source,
        started: Timestamp,
        options: RunOptions,
        progress: &mut dyn Progress,
    ) -> Result<Option<SourceReport>, StoreError> {
        // Instants from the future (a clock that was ahead when they were
        // stored) count as now: they must not stretch a pause by the skew.
        let key = s.key();
        // A store from before sources were keyed by URL knows it by name.
        self.store.adopt_name(&s.name, &key)?;
        let row = self.store.source(&key)?;
        let (Some(last), Some((until, by))) = (
            row.last_run
                .map(|t| clamp_stored(t, started, Duration::ZERO)),
            crate::hints::due(&row, started),
        ) else {
            return Ok(None);
        };
        if until <= started {
            return Ok(None);
        }
        if options.force {
            self.notice(progress, crate::words::forced(&s.name, by, until));
            return Ok(None);
        }
        // Not fetched, but what an earlier run fetched and never delivered
        // (a failed write, a killed process) is still owed.
        let items = if options.all {
            self.store.offered_items(&key)?
        } else {
            self.store.pending_items(&key)?
        };
        Ok(Some(SourceReport {
            name: s.name.clone(),
            key,
            status: SourceStatus::Skipped {
                last_run: last.0,
                until: until.0,
                by,
            },
            items,
            method: None,
            fetched_url: None,
            notes: Vec::new(),
        }))
    }

    /// Tells the scheduler when the hosts just asked free again, so their
    /// other jobs sleep instead of waking only to hear "wait" from the
    /// gate. Not a slot beyond what the run waits for (a long Retry-After,
    /// the R5 cool-down): that wait is the machines' to turn into
    /// "deferred", never the scheduler's to sleep on.
    ///
    /// Jobs queued on a host whose robots.txt was just learnt are queued
    /// again: those it denies go without waiting for the slot.
    fn tell_scheduler(&mut self, sched: &mut Schedule<usize>, jobs: &[Option<Job>]) {
        let horizon = self.run.horizon(self.clock.now());
        for host in std::mem::take(&mut self.sent_to) {
            if let Some(at) = self.gate.next_slot(&host).filter(|&at| at <= horizon) {
                sched.host_free_at(&host, at);
            }
        }
        for host in std::mem::take(&mut self.learnt_robots) {
            for (j, ready_at) in sched.take_host(&host) {
                match jobs.get(j).and_then(Option::as_ref) {
                    Some(job) => self.queue(sched, j, job, ready_at),
                    None => sched.push(j, ready_at),
                }
            }
        }
    }

    /// Queues job `j` with the host its next request goes to, so the
    /// scheduler can serve the host with the longest remaining chain first
    /// (see [`crate::schedule`]). Only an ordering hint: the machine asks
    /// the gate itself. A job the gate will answer without a request (a
    /// denial, a deferral) is not made to wait for its host's slot: spec 7
    /// puts R2 and R3 before R4.
    fn queue(&self, sched: &mut Schedule<usize>, j: usize, job: &Job, ready_at: Timestamp) {
        let answered_without_request = matches!(
            self.gate.check(job.fetch.url(), ready_at),
            Decision::DenyBlocklist(_)
                | Decision::DenyRobots(_)
                | Decision::Deferred { .. }
                | Decision::BlocklistUnavailable { .. }
                | Decision::Invalid(_)
        );
        match job.fetch.next_host() {
            Some(host) if !answered_without_request => {
                let spacing = self.gate.spacing(&host);
                sched.push_on(j, ready_at, &host, spacing);
            }
            _ => sched.push(j, ready_at),
        }
    }

    /// Items from a body R9 handed out, how many the feed item cap
    /// dropped and what the reading has to say ([`crate::words::feed_notes`]), or why
    /// there are none.
    fn extract(x: &Extract) -> Result<(Vec<Item>, usize, Vec<String>, Hints), String> {
        match x.parser {
            Parser::Feed => {
                extract::read_feed(&x.response.body, &x.url, x.response.content_type.as_deref())
                    .map(|f| {
                        let notes = crate::words::feed_notes(&f);
                        (f.items, f.capped, notes, f.hints)
                    })
                    .map_err(|e| e.to_string())
            }
            Parser::Markdown => Ok((
                extract::markdown(&String::from_utf8_lossy(&x.response.body), &x.url),
                0,
                Vec::new(),
                Hints::default(),
            )),
        }
    }

    /// Stores what a source delivered (items and validators, in one
    /// transaction: R7, R11) and reports the new items.
    #[allow(clippy::too_many_arguments)]
    fn delivered(
        &mut self,
        name: &str,
        key: &str,
        x: Extract,
        items: Vec<Item>,
        notes: Vec<String>,
        options: RunOptions,
        now: Timestamp,
    ) -> Result<SourceReport, StoreError> {
        let validators = Validators {
            etag: x.response.etag.clone(),
            last_modified: x.response.last_modified.clone(),
            kind: Some(x.method.as_str().to_string()),
        };
        let new = self.store.record_fetch(
            key,
            x.method.as_str(),
            &x.url,
            &items,
            Some((&x.url, x.accept, &validators)),
            now,
        )?;
        Ok(SourceReport {
            name: name.to_string(),
            key: key.to_string(),
            status: SourceStatus::Ok {
                not_modified: false,
            },
            items: if options.all { items } else { new },
            method: Some(method(x.method)),
            fetched_url: Some(x.url),
            notes,
        })
    }

    fn step_job(
        &mut self,
        job: &mut Job,
        options: RunOptions,
        progress: &mut dyn Progress,
    ) -> Result<Step<SourceReport>, PipelineError> {
        let stepped = match &self.fleet_lost {
            Some(e) => Err(PipelineError::Fleet(e.clone())),
            None => self.step(&mut job.fetch, progress),
        };
        let event = match stepped {
            Ok(Step::Again(t)) => return Ok(Step::Again(t)),
            Ok(Step::Done(event)) => event,
            // Losing the coordinator defers the source (not recorded: R8
            // tries it again next run), never sends it paced locally alone.
            Err(PipelineError::Fleet(e)) => return Ok(Step::Done(without_fleet(job, &e))),
            Err(e) => return Err(e),
        };
        let now = self.clock.now();
        let name = job.source.name.clone();
        // The earliest next fetch a 200 or a 304 allows, with the feed's
        // own hints to keep (issue #23).
        let mut paced: Option<((Timestamp, Hint), Option<String>)> = None;
        let report = match event {
            SourceEvent::Extract(x) => match Self::extract(&x) {
                Err(reason) => {
                    job.fetch.extract_failed(&reason);
                    return Ok(Step::Again(now));
                }
                Ok((items, capped, notes, feed_hints)) => {
                    if capped > 0 {
                        self.notice(progress, crate::words::capped(&x.url, capped));
                    }
                    paced = Some((
                        crate::hints::next_fetch(now, &x.response, &feed_hints),
                        Some(crate::hints::feed_text(&feed_hints)),
                    ));
                    self.delivered(&name, &job.key, x, items, notes, options, now)?
                }
            },
            SourceEvent::Finished(SourceOutcome::NotModified {
                method: m,
                url,
                response,
            }) => {
                // The document did not change: its own hints still
                // hold; the 304's headers may say more.
                let feed = self
                    .store
                    .source(&job.key)?
                    .feed_hints
                    .map(|t| crate::hints::feed_from_text(&t))
                    .unwrap_or_default();
                paced = Some((crate::hints::next_fetch(now, &response, &feed), None));
                self.not_modified(job, options, method(m), url)?
            }
            SourceEvent::Finished(outcome) => SourceReport {
                name: name.clone(),
                key: job.key.clone(),
                status: SourceStatus::from(outcome).cleaned(),
                items: Vec::new(),
                method: None,
                fetched_url: None,
                notes: Vec::new(),
            },
        };
        self.record(&job.key, now, &report, paced)?;
        Ok(Step::Done(report))
    }

    /// A 304's report: the items still owed (what a killed run fetched
    /// and never delivered), or every item offered with `all`.
    fn not_modified(
        &mut self,
        job: &Job,
        options: RunOptions,
        method: Method,
        url: String,
    ) -> Result<SourceReport, StoreError> {
        Ok(SourceReport {
            name: job.source.name.clone(),
            key: job.key.clone(),
            status: SourceStatus::Ok { not_modified: true },
            items: if options.all {
                self.store.offered_items(&job.key)?
            } else {
                // Nothing new on the wire, but what a killed run
                // fetched and never delivered is still owed.
                self.store.pending_items(&job.key)?
            },
            method: Some(method),
            fetched_url: Some(url),
            notes: Vec::new(),
        })
    }

    /// Records a source's outcome: a run (with its note, and the next
    /// fetch its answer allows), or a deferral, which is not a run (R8's
    /// hour is not spent) but is counted, so `status` can say why nothing
    /// ran.
    fn record(
        &mut self,
        key: &str,
        now: Timestamp,
        report: &SourceReport,
        paced: Option<((Timestamp, Hint), Option<String>)>,
    ) -> Result<(), StoreError> {
        if let SourceStatus::Deferred { reason, .. } = &report.status {
            return self.store.record_deferral(key, now, reason.why());
        }
        let note = (!report.notes.is_empty()).then(|| report.notes.join("; "));
        self.store
            .record_run_noted(key, now, report.status.label(), note.as_deref())?;
        self.store.record_outcome(key, &report.status)?;
        if let Some(((at, by), feed)) = paced {
            self.store
                .set_next_fetch(key, at, by.key(), feed.as_deref())?;
        }
        Ok(())
    }
}

/// The report of a source deferred because the fleet coordinator was
/// lost: not recorded (R8 tries it again next run), never sent paced
/// locally alone.
fn without_fleet(job: &Job, e: &FleetError) -> SourceReport {
    SourceReport {
        name: job.source.name.clone(),
        key: job.key.clone(),
        status: SourceStatus::Deferred {
            reason: Reason::new(Why::Deferred {
                url: None,
                why: Deferral::Coordinator {
                    detail: e.to_string(),
                },
            }),
            until: None,
        },
        items: Vec::new(),
        method: None,
        fetched_url: None,
        notes: Vec::new(),
    }
}

/// [`Pipeline::robots_signals`] from a store alone (`status` reads it
/// without opening a pipeline).
pub fn robots_signals(store: &Store, url: &str) -> Result<Vec<SignalReport>, StoreError> {
    let target = resolved(url);
    let Ok(u) = CoreUrl::parse(&target) else {
        return Ok(Vec::new());
    };
    let origin = wr_core::gate::origin_key(&u);
    Ok(store
        .robots(origin.as_str())?
        .map(|r| SignalReport::of_body(&r.body))
        .unwrap_or_default())
}

/// The usage signals of a source (by its key): those of the stored
/// robots.txt of the origin it was last read from (after redirects), or
/// of its key's origin before it was ever read. One reading for the
/// digest, `show` and `status`.
pub fn source_signals(store: &Store, key: &str) -> Result<Vec<SignalReport>, StoreError> {
    let row = store.source(key)?;
    robots_signals(store, row.fetched_url.as_deref().unwrap_or(key))
}

/// How the digest names an R9 stage.
fn method(stage: Stage) -> Method {
    match stage {
        Stage::Feed => Method::Feed,
        Stage::Markdown => Method::Markdown,
        Stage::LlmsTxt => Method::LlmsTxt,
    }
}

impl From<SourceOutcome> for SourceStatus {
    fn from(o: SourceOutcome) -> SourceStatus {
        match o {
            SourceOutcome::NotModified { .. } => SourceStatus::Ok { not_modified: true },
            SourceOutcome::DeniedBlocklist { url, domain } => {
                SourceStatus::DeniedBlocklist { url, domain }
            }
            SourceOutcome::DeniedRobots { url, denial } => SourceStatus::DeniedRobots {
                url,
                rule: words(&denial),
                line: denial.line(),
            },
            SourceOutcome::Deferred { url, why, until } => SourceStatus::Deferred {
                reason: Reason::new(Why::Deferred {
                    url: Some(url),
                    why,
                }),
                until: until.map(|t| t.0),
            },
            SourceOutcome::LeftOut(why) => SourceStatus::LeftOut {
                reason: Reason::new(Why::LeftOut(why)),
            },
            SourceOutcome::Failed(why) => SourceStatus::Failed {
                reason: Reason::new(Why::Failed(why)),
            },
        }
    }
}

/// Restores the gate's knowledge from the store: the blocklist, the
/// robots.txt cache and the per-host schedule.
///
/// Stored instants in the future (the clock was ahead when they were
/// written, or has been set back since) are clamped to now and written back:
/// a robots.txt or blocklist must not stay "fresh" for its TTL plus the skew,
/// and every later start would clamp it anew.
fn restore(store: &Store, gate: &mut Gate, now: Timestamp) -> Result<BlocklistState, StoreError> {
    let mut blocklist_state = BlocklistState::Unknown;
    if let Some(mut row) = store.blocklist()? {
        let at = clamp_stored(row.fetched_at, now, Duration::ZERO);
        if at != row.fetched_at {
            row.fetched_at = at;
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
        let at = clamp_stored(row.fetched_at, now, Duration::ZERO);
        if at != row.fetched_at {
            row.fetched_at = at;
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
    // Written back, so that each later read does not clamp anew to its
    // own now (a hold ending an hour after every start).
    store.clamp_instants(now)?;
    for (host, row) in store.hosts()? {
        apply_host_row(gate, &host, row, now);
    }
    Ok(blocklist_state)
}

/// The file in the state directory that remembers the fleet's epoch
/// (see [`Coordinator::join`]).
pub const FLEET_EPOCH_FILE: &str = "fleet-epoch";

/// Joins the fleet: its epoch, checked against the one this state
/// directory remembers (a Redis that lost the fleet's state makes each
/// host wait out its spacing once), and this machine's R5 holds still in
/// force handed to the fleet (a hold never shortens one, so this is a
/// no-op when the fleet has them; after a loss, they are back).
fn join_fleet(
    mut fleet: Coordinator,
    store: &Store,
    dir: &std::path::Path,
    now: Timestamp,
) -> Result<Coordinator, PipelineError> {
    let path = dir.join(FLEET_EPOCH_FILE);
    let remembered = std::fs::read_to_string(&path).ok();
    let remembered = remembered
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let epoch = fleet.join(remembered)?;
    if remembered != Some(epoch.as_str()) {
        // Not remembering it only costs a later loss going unnoticed by
        // this machine; the run itself is unaffected.
        let _ = std::fs::write(&path, format!("{epoch}\n"));
    }
    for (host, row) in store.hosts()? {
        let row = row.clamped(now);
        let held = [
            row.retry_after_until.map(|t| (t, HoldCause::RetryAfter)),
            // Ours only where it outlasts the server's (a hold is never
            // before the Retry-After): the same instant keeps the server's
            // name, and with it reset's R5 rule.
            row.hold_until
                .filter(|&t| row.retry_after_until.is_none_or(|r| t > r))
                .map(|t| {
                    let cause = if row.cooldown {
                        HoldCause::Cooldown
                    } else {
                        HoldCause::Backoff
                    };
                    (t, cause)
                }),
        ];
        for (until, cause) in held.into_iter().flatten().filter(|(t, _)| *t > now) {
            fleet.hold(&host, now.until(until), cause)?;
        }
    }
    Ok(fleet)
}

/// Gives the gate what the store knows of `host`, every instant clamped
/// to `now` ([`HostRow::clamped`]): a last request or a hold written by a
/// clock that was ahead must not defer the host for the skew.
fn apply_host_row(gate: &mut Gate, host: &str, row: HostRow, now: Timestamp) {
    let row = row.clamped(now);
    if let Some(t) = row.last_request {
        gate.observe_request(host, t);
    }
    // The server's Retry-After first: a hold of ours that ends at the same
    // instant does not take its name.
    if let Some(until) = row.retry_after_until.filter(|&t| t > now) {
        gate.hold_host(host, until, WaitReason::RetryAfter);
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
