//! wr-feeds: the synchronous I/O shell around `wr-core`.
//!
//! Every byte the bot fetches passes through `wr_core::gate::Gate`: this
//! crate only moves bytes (HTTP, SQLite) and turns feeds and markdown into
//! links and titles. See `docs/architecture.md`.
//!
//! # Public API (for the CLI)
//!
//! ```text
//! let cfg = Config::from_env()?;            // WR_STATE_DIR, WR_OPERATOR_BASE, defaults
//! // cfg.state_dir = ...; cfg.connect_to.push("wal.sh:443:127.0.0.1:8443".parse()?);
//! let mut p = Pipeline::open(cfg)?;        // opens/creates <state_dir>/wr-feeds.sqlite3 (WAL)
//! let report: RunReport = p.run(&sources, RunOptions { force, all }, &mut progress)?;
//! let check: CheckReport = p.check("https://example.com/feed.xml", &mut progress)?;
//! // Outer Result: state-store failure (abort); inner: this URL's outcome.
//! let fetched: Result<Fetched, FetchError> =
//!     p.fetch_gated("https://wal.sh/research/bots/dogfood-allow", Some("text/markdown"), &mut progress)?;
//! let fixtures: Result<Fetched, FetchError> =
//!     p.fetch_operator(TEST_FIXTURES_PATH, Some("application/json"), &mut progress)?;
//! let parsed = wr_feeds::blocklist_doc::parse_fixtures(&fixtures?.body)?;
//! ```
//!
//! * [`Config`] (module [`config`]): `state_dir` (default
//!   `$XDG_STATE_HOME/wr-feeds`, else `~/.local/state/wr-feeds`; `WR_STATE_DIR`
//!   overrides), `operator_base` (default `https://wal.sh`, `WR_OPERATOR_BASE`
//!   overrides), `connect_to: Vec<ConnectTo>` (curl's `HOST1:PORT1:HOST2:PORT2`,
//!   `FromStr`), `timeouts` (connect 10 s, whole request 30 s), `max_body`
//!   (10 MiB after decompression), `max_wait` (longest single wait the run
//!   sleeps for; longer waits defer the source, default 5 min), `identity`
//!   (R13 `impl`/`sha`/`spec`, `None` = no tags; [`Identity::detect`] reads
//!   `GITHUB_REPOSITORY`/`GITHUB_SHA`), `tls_roots` (DER certificates that
//!   *replace* the bundled Mozilla roots, for tests and private CAs),
//!   `clock` (an `Arc<dyn Clock>`, [`SystemClock`] by default; tests use
//!   [`ManualClock`]) and `rng_seed` (backoff jitter; seeded from the clock
//!   when `None`).
//! * [`Source`]: `{ name, url, feed: Option<String> }`.
//! * [`Pipeline::run`] runs every source through R9 (declared feed, else
//!   the page with `Accept: text/markdown`, else `/llms.txt`, else "left
//!   out"), serially, with the scheduler of [`schedule`]. It returns a
//!   [`RunReport`]: `blocklist: BlocklistState` (fresh / cached / retained
//!   after a failure / fail-open fallback: print the fallback loudly),
//!   `sources: Vec<SourceReport>` in input order, `notices` (stale schema
//!   used, ...), `requests` (count). A [`SourceReport`] has `name`,
//!   `status: SourceStatus`, `items: Vec<Item>` (the items not yet
//!   reported: first seen in this run, or owed by a run whose digest was
//!   never delivered; with `all` every item currently offered; call
//!   [`Pipeline::mark_reported`] once they are delivered), `method:
//!   Option<Method>` (`Feed`, `Markdown`, `LlmsTxt`), `fetched_url` (final
//!   URL after redirects). [`SourceStatus`] is `Ok { not_modified }`,
//!   `Skipped { last_run, until, by }` (R8's hour, or a publisher hint
//!   such as `Cache-Control: max-age` or RSS `ttl`, not over; no `force`),
//!   `DeniedBlocklist`,
//!   `DeniedRobots`, `Deferred`, `LeftOut`, `Failed`, each with its reason;
//!   [`SourceStatus::is_problem`] tells which make the exit status 1.
//! * [`Pipeline::check`]: the gate's answer for a URL without fetching it.
//!   It MAY fetch the blocklist (operator host) and the URL's robots.txt (and
//!   wait for their hosts' slots), since the answer depends on them; it never
//!   requests the URL itself. Returns [`CheckReport`] (`Allowed { wait,
//!   spacing, rule }`, `DeniedBlocklist`, `DeniedRobots { rule, line }`,
//!   `Deferred`, `Invalid`).
//! * [`Pipeline::fetch_gated`]: one gated GET (redirects and R5 retries
//!   included), for `selftest`: [`Fetched`] or a [`FetchError`] that says
//!   whether the gate refused (`Denied*`), the host was deferred, or the
//!   transfer failed. Operator compliance URLs are R13-tagged on the wire.
//!   [`Pipeline::fetch_operator`] fetches a section 5 resource (R4 only).
//! * Errors: [`PipelineError`] (store or HTTP client set-up) aborts; every
//!   per-URL problem is a value naming the URL.
//! * [`Progress`]: callbacks ([`Event`]: request sent, response, waiting,
//!   source done, notice); [`NoProgress`] ignores them.
//!
//! Modules: [`http`] (ureq agent; `send` requires a `&Permit`), [`store`]
//! (SQLite state), [`schedule`] (pure ordering of ready/waiting work),
//! [`pipeline`] (the state machines), [`clock`], [`config`], [`report`].

pub mod blocklist_doc;
pub mod clock;
pub mod config;
pub mod extract;
pub mod fleet;
pub mod hints;
pub mod http;
pub mod item;
pub mod lock;
pub mod pipeline;
pub mod report;
pub mod schedule;
pub mod state;
pub mod store;
pub mod words;

pub use clock::{Clock, ManualClock, SystemClock};
pub use config::{Config, ConfigError, ConnectTo, Identity, Timeouts};
pub use extract::Item;
pub use pipeline::{Pipeline, PipelineError, RunOptions, Source};
pub use report::{
    BlocklistState, CheckReport, Denial, Event, FetchError, Fetched, Method, NoProgress, Progress,
    Reason, RunReport, SignalReport, SourceReport, SourceStatus, Why,
};

#[cfg(test)]
mod error_tests;
