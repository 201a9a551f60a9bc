//! The end-to-end half of `wr-feeds attest`: the real `wr_feeds` pipeline
//! run against a replica of an operator site and four publisher sites
//! served from 127.0.0.1 inside this process, with a throw-away state
//! directory. Every host name resolves to the loopback server (a catch-all
//! `--connect-to`), so nothing leaves the machine whatever the sources
//! say. The server records every request (host, target, headers, when it
//! arrived and when its answer was ready); the checks read that log and the
//! pipeline's reports.
//!
//! Two scenarios:
//!
//! * **Wire** (real clock, about 5 s): three runs of the same sources, each
//!   on a freshly opened pipeline over the same state directory. Run 1
//!   fetches everything; run 2 (`force`) revalidates, with the blocklist now
//!   answering 404; run 3 (no `force`) comes less than an hour later.
//! * **Schema** (a virtual clock, instant): a blocklist without an inline
//!   schema, so the standalone schema is fetched, cached for 7 days, used
//!   stale when its refresh fails, and never replaced by "no schema".
//!
//! The HTTP/1.1 responder is deliberately minimal: one request per
//! connection (`Connection: close`), GET only, bodies from fixed routes.

use crate::faults::{Fault, FaultServer};
use crate::harness::checks::{Check, BLOCKLIST_DOC, BLOCKLIST_SCHEMA};
use crate::harness::Requirement;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use wr_core::constants::{BLOCKLIST_PATH, BLOCKLIST_SCHEMA_PATH};
use wr_feeds::{
    BlocklistState, CheckReport, Clock, Config, ConnectTo, ManualClock, Method, NoProgress,
    Pipeline, RunOptions, RunReport, Source, SourceStatus, SystemClock, Timeouts,
};

// ---- the responder ---------------------------------------------------------

/// A request as the server read it: the recording server's record.
pub use crate::faults::Request;

/// An answer.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

impl Reply {
    pub(crate) fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type", content_type.to_string())],
            body: body.into(),
        }
    }
    fn status(status: u16) -> Reply {
        Reply::new(status, "text/plain", format!("{status}\n"))
    }
    fn header(mut self, k: &'static str, v: &str) -> Reply {
        self.headers.push((k, v.to_string()));
        self
    }
}

impl From<Reply> for Fault {
    fn from(r: Reply) -> Fault {
        Fault::Answer {
            status: r.status,
            headers: r.headers.iter().map(|(k, v)| format!("{k}: {v}")).collect(),
            body: r.body,
        }
    }
}

/// One exchange in the log.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The request.
    pub req: Request,
    /// The status answered.
    pub status: u16,
    /// When the request had arrived (headers read).
    pub start: Instant,
    /// When the answer was ready, just before its first byte was written:
    /// a serial client cannot send its next request before this.
    pub end: Instant,
}

/// How long each answer is held: the window in which a second, concurrent
/// request would be seen overlapping.
const HOLD: Duration = Duration::from_millis(10);

/// The replica's server: wr-conformance's recording server (the one every
/// test suite uses), holding each answer [`HOLD`] and refusing what is not
/// a GET of a path.
pub struct Server {
    inner: FaultServer,
}

impl Server {
    /// Binds 127.0.0.1 on a free port and serves `handler`, one thread per
    /// connection.
    pub fn start(
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<Server> {
        let inner = FaultServer::try_start_with(move |req: &Request| {
            if req.method != "GET" || !req.target.starts_with('/') {
                return Reply::status(400).into();
            }
            std::thread::sleep(HOLD);
            handler(req).into()
        })?;
        Ok(Server { inner })
    }

    /// Every answered GET so far, in arrival order.
    pub fn hits(&self) -> Vec<Hit> {
        self.inner
            .exchanges()
            .into_iter()
            .filter(|e| e.req.method == "GET" && e.req.target.starts_with('/'))
            .filter_map(|e| {
                Some(Hit {
                    status: e.status?,
                    start: e.req.at,
                    end: e.answered?,
                    req: e.req,
                })
            })
            .collect()
    }

    /// The port it listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.inner.port()
    }

    /// Sends every host and port here.
    pub fn connect_to(&self) -> ConnectTo {
        ConnectTo {
            from_host: None,
            from_port: None,
            to_host: Some("127.0.0.1".to_string()),
            to_port: Some(self.port()),
        }
    }
}

// ---- the replica sites -----------------------------------------------------

const OPERATOR: &str = "operator.test";
const FEED: &str = "feed.test";
const MARKDOWN: &str = "markdown.test";
const LLMS: &str = "llms.test";
const HTML: &str = "html.test";
const BLOCKED: &str = "blocked.test";
/// A host on no list (the schema scenario asks about it first).
const FREE: &str = "free.test";

/// A string placed in the body (not the titles) of every page and feed
/// entry: metadata extraction must not carry it anywhere (R6).
pub const CONTENT_MARKER: &str = "wr-attest-content-2f9c61";

const ETAG: &str = "\"feed-v1\"";
const LAST_MODIFIED: &str = "Sat, 23 May 2026 00:00:00 GMT";
/// The feed's Crawl-delay (ms); above 1 s so the wire shows which applies.
const FEED_CRAWL_DELAY_MS: u64 = 1500;

fn feed_robots() -> String {
    format!(
        "User-agent: *\nDisallow: /\n\nUser-agent: Walsh-Research\nDisallow: /private/\nCrawl-delay: {}\n",
        FEED_CRAWL_DELAY_MS as f64 / 1000.0
    )
}

fn feed_xml() -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>Loopback feed</title>
  <id>urn:wr-attest:feed</id>
  <updated>2026-05-23T00:00:00Z</updated>
  <link rel="self" href="http://{FEED}/feed.xml"/>
  <entry>
    <title>First post</title>
    <id>urn:wr-attest:1</id>
    <link href="http://{FEED}/posts/1"/>
    <link rel="enclosure" href="http://{FEED}/media/1.mp3" type="audio/mpeg"/>
    <updated>2026-05-22T00:00:00Z</updated>
    <content type="html">&lt;p&gt;{CONTENT_MARKER}&lt;/p&gt;&lt;img src="http://{FEED}/img/1.png"&gt;</content>
  </entry>
  <entry>
    <title>First post, linked again</title>
    <id>urn:wr-attest:1b</id>
    <link href="HTTP://FEED.test:80/posts/1/#comments"/>
    <updated>2026-05-22T00:00:00Z</updated>
    <summary>{CONTENT_MARKER}</summary>
  </entry>
  <entry>
    <title>Second post</title>
    <id>urn:wr-attest:2</id>
    <link href="http://{FEED}/private/2"/>
    <updated>2026-05-21T00:00:00Z</updated>
    <summary>{CONTENT_MARKER}</summary>
  </entry>
</feed>
"#
    )
}

fn markdown_page() -> String {
    format!(
        "# Notes\n\n{CONTENT_MARKER} prose that is content, not metadata.\n\n- [Alpha](http://{MARKDOWN}/alpha)\n- [Beta](http://{MARKDOWN}/beta)\n\n![logo](http://{MARKDOWN}/logo.png)\n"
    )
}

fn html_page(host: &str) -> String {
    format!(
        "<!doctype html><html><head><title>{host}</title><link rel=\"stylesheet\" href=\"/style.css\"><script src=\"/app.js\"></script></head><body><p>{CONTENT_MARKER}</p><a href=\"http://{host}/from-html\">From the HTML</a><img src=\"/logo.png\"></body></html>"
    )
}

fn llms_txt() -> String {
    format!(
        "# llms.test\n\n> {CONTENT_MARKER}\n\n- [Guide](http://{LLMS}/guide.md): the guide\n- [API](http://{LLMS}/api.md)\n"
    )
}

/// The operator's blocklist listing [`BLOCKED`], with `refresh`; without
/// the inline schema when `inline` is false.
fn blocklist_doc(refresh: &str, inline: bool) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_str(BLOCKLIST_DOC).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        m.insert("refresh".into(), serde_json::json!(refresh));
        m.insert(
            "blocked".into(),
            serde_json::json!([{"domain": BLOCKED, "added": "2026-05-23", "reason": "loopback opt-out"}]),
        );
        if !inline {
            m.remove("schema");
        }
    }
    v.to_string().into_bytes()
}

/// The wire scenario's sources.
fn sources() -> Vec<Source> {
    let s = |name: &str, url: String, feed: Option<String>| Source {
        name: name.to_string(),
        url,
        feed,
    };
    vec![
        s(
            "feed",
            format!("http://{FEED}/"),
            Some(format!("http://{FEED}/feed.xml")),
        ),
        s("disallowed", format!("http://{FEED}/private/page"), None),
        s("markdown", format!("http://{MARKDOWN}/notes"), None),
        s("llms", format!("http://{LLMS}/about"), None),
        s("html", format!("http://{HTML}/"), None),
        s(
            "blocked",
            format!("http://{BLOCKED}/"),
            Some(format!("http://{BLOCKED}/feed.xml")),
        ),
        s("blocked-sub", format!("http://www.{BLOCKED}/news"), None),
    ]
}

/// Shared state of the wire replica: the phase (1, 2, 3: which run) and
/// how often the feed was asked for.
#[derive(Default)]
struct WireState {
    phase: AtomicU8,
    feed_hits: AtomicUsize,
}

fn wire_site(state: &WireState, r: &Request) -> Reply {
    let path = r.target.split('?').next().unwrap_or("");
    match (r.host.as_str(), path) {
        (OPERATOR, BLOCKLIST_PATH) => {
            if state.phase.load(Ordering::SeqCst) >= 2 {
                Reply::status(404)
            } else {
                Reply::new(200, "application/json", blocklist_doc("PT1S", true))
            }
        }
        (FEED, "/robots.txt") => Reply::new(200, "text/plain", feed_robots()),
        (FEED, "/feed.xml") => {
            if state.feed_hits.fetch_add(1, Ordering::SeqCst) == 0 {
                return Reply::status(503).header("Retry-After", "1");
            }
            let fresh = r.header("If-None-Match") == Some(ETAG)
                || r.header("If-Modified-Since") == Some(LAST_MODIFIED);
            if fresh {
                Reply::status(304)
                    .header("ETag", ETAG)
                    .header("Last-Modified", LAST_MODIFIED)
            } else {
                Reply::new(200, "application/atom+xml", feed_xml())
                    .header("ETag", ETAG)
                    .header("Last-Modified", LAST_MODIFIED)
            }
        }
        (MARKDOWN, "/notes")
            if r.header("Accept")
                .is_some_and(|a| a.contains("text/markdown")) =>
        {
            Reply::new(200, "text/markdown; charset=utf-8", markdown_page())
        }
        (MARKDOWN, "/llms.txt") => Reply::new(200, "text/plain", llms_txt()),
        (LLMS, "/robots.txt") => Reply::new(200, "text/plain", "User-agent: *\nAllow: /\n"),
        (LLMS, "/llms.txt") => Reply::new(200, "text/plain; charset=utf-8", llms_txt()),
        (MARKDOWN | HTML, "/robots.txt") | (HTML, "/llms.txt") => Reply::status(404),
        (_, p) if p.ends_with(".xml") => Reply::new(200, "application/atom+xml", feed_xml()),
        (host, _) => Reply::new(200, "text/html; charset=utf-8", html_page(host)),
    }
}

// ---- running ---------------------------------------------------------------

/// What the loopback run established, per requirement.
#[derive(Debug, Clone)]
pub struct Report {
    /// Checks per requirement.
    pub checks: BTreeMap<Requirement, Vec<Check>>,
    /// Requests the servers answered.
    pub requests: usize,
    /// Wall-clock time of the whole run.
    pub elapsed: Duration,
}

/// The loopback run did not happen (`--offline-only`, or no loopback
/// socket), or what it established.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Why it did not run.
    Skipped(String),
    /// It ran.
    Ran(Report),
}

/// A temporary directory removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> std::io::Result<TempDir> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let p = std::env::temp_dir().join(format!(
            "wr-feeds-attest-{tag}-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&p)?;
        Ok(TempDir(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn config(dir: &Path, server: &Server, clock: Arc<dyn Clock>) -> Config {
    let mut cfg = Config::new(dir);
    // Cannot fail: a constant http URL.
    let _ = cfg.set_operator_base(&format!("http://{OPERATOR}"));
    cfg.connect_to = vec![server.connect_to()];
    cfg.identity = None;
    cfg.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(5),
        ..Timeouts::default()
    };
    cfg.rng_seed = Some(0x5eed);
    // A proxy from the environment would take the requests away from the
    // replica (the catch-all resolver keeps them on this machine anyway).
    cfg.use_env_proxy = false;
    cfg.clock = clock;
    cfg
}

/// Runs both scenarios and checks what they show.
pub fn run() -> Outcome {
    let began = Instant::now();
    let wire = match wire_scenario() {
        Ok(w) => w,
        Err(Setup(e)) => return Outcome::Skipped(e),
    };
    let schema = match schema_scenario() {
        Ok(s) => s,
        Err(Setup(e)) => return Outcome::Skipped(e),
    };
    let requests = wire.hits.len() + schema.hits.len();
    let mut checks = wire_checks(&wire);
    let (r10, r11) = schema_checks(&schema);
    checks.entry(Requirement::R10).or_default().extend(r10);
    checks.entry(Requirement::R11).or_default().extend(r11);
    let all_hits: Vec<&Hit> = wire.hits.iter().chain(&schema.hits).collect();
    checks.insert(Requirement::R1, vec![ua_check(&all_hits)]);
    Outcome::Ran(Report {
        checks,
        requests,
        elapsed: began.elapsed(),
    })
}

/// The harness itself could not be set up (not a finding about the tool).
struct Setup(String);

/// What the wire scenario recorded.
#[derive(Clone)]
struct Wire {
    hits: Vec<Hit>,
    /// Index of the first hit of run 2 and of run 3.
    run2_at: usize,
    run3_at: usize,
    runs: Vec<Result<RunReport, String>>,
    /// State directory files containing [`CONTENT_MARKER`].
    marker_files: Vec<String>,
    state_files: usize,
}

fn wire_scenario() -> Result<Wire, Setup> {
    let state = Arc::new(WireState::default());
    state.phase.store(1, Ordering::SeqCst);
    let st = state.clone();
    let server = Server::start(move |r| wire_site(&st, r))
        .map_err(|e| Setup(format!("cannot listen on 127.0.0.1: {e}")))?;
    let dir = TempDir::new("wire")
        .map_err(|e| Setup(format!("cannot create a temporary state directory: {e}")))?;
    let srcs = sources();
    let mut runs = Vec::new();
    let mut marks = Vec::new();
    for (phase, force) in [(1u8, false), (2, true), (3, false)] {
        state.phase.store(phase, Ordering::SeqCst);
        marks.push(server.hits().len());
        if phase == 2 {
            // The list's PT1S is read as the 5-minute floor (issue #18):
            // run 2 stands for a run after it, so the list is due.
            age_stored_blocklist(&dir.0)?;
        }
        // A fresh pipeline each time: only the state directory carries
        // anything from one run to the next (R11).
        let cfg = config(&dir.0, &server, Arc::new(SystemClock::new()));
        let r = Pipeline::open(cfg)
            .map_err(|e| format!("cannot open the pipeline: {e}"))
            .and_then(|mut p| {
                let rep = p
                    .run(&srcs, RunOptions { force, all: false }, &mut NoProgress)
                    .map_err(|e| format!("the run failed: {e}"))?;
                // As `wr-feeds` does once the digest is written.
                p.mark_reported(&rep)
                    .map_err(|e| format!("cannot mark the items reported: {e}"))?;
                Ok(rep)
            });
        runs.push(r);
    }
    let hits = server.hits();
    drop(server);
    let (marker_files, state_files) = scan_dir(&dir.0, CONTENT_MARKER.as_bytes());
    Ok(Wire {
        hits,
        run2_at: marks.get(1).copied().unwrap_or(0),
        run3_at: marks.get(2).copied().unwrap_or(0),
        runs,
        marker_files,
        state_files,
    })
}

/// Moves the stored blocklist's fetch instant a refresh floor (and a
/// second) into the past, as if the next run came that much later.
fn age_stored_blocklist(dir: &Path) -> Result<(), Setup> {
    let by = wr_core::constants::BLOCKLIST_REFRESH_FLOOR + Duration::from_secs(1);
    let fail = |e: String| Setup(format!("cannot age the stored blocklist: {e}"));
    let store = wr_feeds::store::Store::open(dir).map_err(|e| fail(e.to_string()))?;
    // No stored list is a finding of run 1, which the R3b check reports.
    let Some(mut row) = store.blocklist().map_err(|e| fail(e.to_string()))? else {
        return Ok(());
    };
    row.fetched_at = wr_core::time::Timestamp(
        row.fetched_at
            .0
            .saturating_sub(u64::try_from(by.as_millis()).unwrap_or(u64::MAX)),
    );
    store.put_blocklist(&row).map_err(|e| fail(e.to_string()))
}

/// Files under `dir` containing `needle`, and how many files were read.
fn scan_dir(dir: &Path, needle: &[u8]) -> (Vec<String>, usize) {
    let mut found = Vec::new();
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                n += 1;
                if bytes.windows(needle.len()).any(|w| w == needle) {
                    found.push(
                        p.file_name()
                            .map_or_else(String::new, |f| f.to_string_lossy().into_owned()),
                    );
                }
            }
        }
    }
    (found, n)
}

fn ms_between(a: Instant, b: Instant) -> u64 {
    u64::try_from(b.saturating_duration_since(a).as_millis()).unwrap_or(u64::MAX)
}

fn path_of(h: &Hit) -> &str {
    h.req.target.split('?').next().unwrap_or("")
}

fn is_blocked_host(host: &str) -> bool {
    host == BLOCKED || host.ends_with(&format!(".{BLOCKED}"))
}

fn ua_check(hits: &[&Hit]) -> Check {
    let requests: Vec<&Request> = hits.iter().map(|h| &h.req).collect();
    let bad = crate::harness::checks::user_agent_problems(&requests);
    Check::new(
        "User-Agent on the wire",
        !hits.is_empty() && bad.is_empty(),
        if bad.is_empty() {
            format!(
                "all {} requests of the loopback run carried exactly one User-Agent, the section 6 value",
                hits.len()
            )
        } else {
            format!(
                "{} of {} requests did not: {}",
                bad.len(),
                hits.len(),
                bad.join(", ")
            )
        },
    )
}

/// A check from a list of conditions (description, held?).
fn all_of(name: &str, what: &str, conds: Vec<(String, bool)>) -> Check {
    let failed: Vec<&str> = conds
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(d, _)| d.as_str())
        .collect();
    if conds.is_empty() {
        return Check::new(name, false, format!("{what}: nothing was checked"));
    }
    if failed.is_empty() {
        Check::new(
            name,
            true,
            format!(
                "{what}: {}",
                conds
                    .iter()
                    .map(|(d, _)| d.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        )
    } else {
        Check::new(
            name,
            false,
            format!("{what}: did not hold: {}", failed.join("; ")),
        )
    }
}

fn source<'a>(r: &'a Result<RunReport, String>, name: &str) -> Option<&'a wr_feeds::SourceReport> {
    r.as_ref().ok()?.sources.iter().find(|s| s.name == name)
}

fn status_is(r: &Result<RunReport, String>, name: &str, f: impl Fn(&SourceStatus) -> bool) -> bool {
    source(r, name).is_some_and(|s| f(&s.status))
}

/// The checks of the wire scenario, per requirement.
fn wire_checks(w: &Wire) -> BTreeMap<Requirement, Vec<Check>> {
    let mut out: BTreeMap<Requirement, Vec<Check>> = BTreeMap::new();
    let none = Err("did not run".to_string());
    let (r1, r2, r3) = (
        w.runs.first().unwrap_or(&none),
        w.runs.get(1).unwrap_or(&none),
        w.runs.get(2).unwrap_or(&none),
    );
    for (i, r) in w.runs.iter().enumerate() {
        if let Err(e) = r {
            let c = Check::new("pipeline runs", false, format!("run {}: {e}", i + 1));
            for k in [
                Requirement::R2,
                Requirement::R2d,
                Requirement::R3,
                Requirement::R3b,
                Requirement::R4,
                Requirement::R5,
                Requirement::R6,
                Requirement::R7,
                Requirement::R8,
                Requirement::R9,
                Requirement::R11,
            ] {
                out.entry(k).or_default().push(c.clone());
            }
        }
    }
    let hits = &w.hits;
    let (a, b) = (w.run2_at.min(hits.len()), w.run3_at.min(hits.len()));
    let run1 = hits.get(..a).unwrap_or_default();
    let run2 = hits.get(a..b).unwrap_or_default();
    let run3 = hits.get(b..).unwrap_or_default();
    let to = |host: &str| -> Vec<&Hit> { hits.iter().filter(|h| h.req.host == host).collect() };
    let publishers = [FEED, MARKDOWN, LLMS, HTML];

    // R2: robots.txt first on every host, cached, obeyed.
    let robots_first = publishers
        .iter()
        .all(|h| to(h).first().is_some_and(|x| path_of(x) == "/robots.txt"));
    let robots_once = publishers
        .iter()
        .all(|h| to(h).iter().filter(|x| path_of(x) == "/robots.txt").count() == 1);
    let private = hits
        .iter()
        .filter(|h| h.req.host == FEED && path_of(h).starts_with("/private/"))
        .count();
    let denied_r2 = [r1, r2].iter().all(|r| {
        status_is(r, "disallowed", |s| {
            matches!(s, SourceStatus::DeniedRobots { .. })
        })
    });
    out.entry(Requirement::R2).or_default().push(all_of(
        "robots.txt on the wire",
        "loopback run",
        vec![
            (
                "the first request to each of the 4 publisher hosts was its /robots.txt".into(),
                robots_first,
            ),
            (
                "each robots.txt was requested once over both fetching runs (cached, 24 h TTL)"
                    .into(),
                robots_once,
            ),
            (
                format!("{private} requests under the disallowed /private/ (a declared page and a feed link)"),
                private == 0,
            ),
            (
                "the disallowed source was reported denied by robots.txt in both runs".into(),
                denied_r2,
            ),
        ],
    ));

    // R3: the blocklist first, the blocked host never contacted.
    let first_is_blocklist = run1
        .first()
        .is_some_and(|h| h.req.host == OPERATOR && path_of(h) == BLOCKLIST_PATH);
    let blocked_hits = hits.iter().filter(|h| is_blocked_host(&h.req.host)).count();
    let denied_r3 = [r1, r2].iter().all(|r| {
        ["blocked", "blocked-sub"]
            .iter()
            .all(|n| status_is(r, n, |s| matches!(s, SourceStatus::DeniedBlocklist { .. })))
    });
    out.entry(Requirement::R3).or_default().push(all_of(
        "blocklist on the wire",
        "loopback run",
        vec![
            (
                "the blocklist was the first request, before any robots.txt".into(),
                first_is_blocklist,
            ),
            (
                format!("{blocked_hits} requests to {BLOCKED} or its subdomains"),
                blocked_hits == 0,
            ),
            (
                format!(
                    "the sources on {BLOCKED} and www.{BLOCKED} were denied at R3 in both runs"
                ),
                denied_r3,
            ),
        ],
    ));

    // R3b: a 404 on refresh keeps the last list.
    let refreshed_404 = run2
        .iter()
        .any(|h| h.req.host == OPERATOR && path_of(h) == BLOCKLIST_PATH && h.status == 404);
    let retained = matches!(
        r2.as_ref().map(|r| &r.blocklist),
        Ok(BlocklistState::Retained { entries: 1, .. })
    );
    out.entry(Requirement::R3b).or_default().push(all_of(
        "404 on refresh",
        "loopback run 2 (the stored list past its refresh, the operator now answering 404)",
        vec![
            (
                "the blocklist refresh was answered 404".into(),
                refreshed_404,
            ),
            (
                "the pipeline reported the last list (1 domain) retained".into(),
                retained,
            ),
            (
                format!("{BLOCKED} still denied, never requested"),
                denied_r3 && blocked_hits == 0,
            ),
        ],
    ));

    // R4: serial, spaced per host, unseen hosts not delayed.
    let mut overlaps = 0;
    let mut sorted: Vec<&Hit> = hits.iter().collect();
    sorted.sort_by_key(|h| h.start);
    for pair in sorted.windows(2) {
        if pair[1].start < pair[0].end {
            overlaps += 1;
        }
    }
    let mut min_gap: BTreeMap<&str, u64> = BTreeMap::new();
    for host in [OPERATOR, FEED, MARKDOWN, LLMS, HTML] {
        let starts: Vec<Instant> = to(host).iter().map(|h| h.start).collect();
        if let Some(g) = starts.windows(2).map(|w| ms_between(w[0], w[1])).min() {
            min_gap.insert(host, g);
        }
    }
    let spaced = min_gap.values().all(|&g| g >= 1000);
    let first_at = run1.first().map(|h| h.start);
    let unseen_ms = publishers
        .iter()
        .filter_map(|h| {
            let first = run1.iter().find(|x| x.req.host == *h)?;
            Some(ms_between(first_at?, first.start))
        })
        .max();
    out.entry(Requirement::R4).or_default().push(all_of(
        "on the wire",
        &format!("loopback run, {} requests", hits.len()),
        vec![
            (
                format!("{overlaps} requests overlapped another (serial: each arrived after the previous answer was ready)"),
                overlaps == 0 && hits.len() > 1,
            ),
            (
                format!(
                    "smallest gap between two requests to one host: {}",
                    min_gap
                        .iter()
                        .map(|(h, g)| format!("{h} {g} ms"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                spaced && min_gap.len() >= 4,
            ),
            (
                format!(
                    "every publisher host's first request came {} ms or less after the run's first (unseen hosts not delayed; the key is the host)",
                    unseen_ms.unwrap_or(u64::MAX)
                ),
                unseen_ms.is_some_and(|m| m < 1000),
            ),
        ],
    ));

    // R2d: the Crawl-delay of feed.test on the wire.
    let feed_gap = min_gap.get(FEED).copied();
    out.entry(Requirement::R2d).or_default().push(all_of(
        "on the wire",
        "loopback run",
        vec![(
            format!(
                "{FEED} (Crawl-delay {}) smallest gap {} ms",
                FEED_CRAWL_DELAY_MS as f64 / 1000.0,
                feed_gap.unwrap_or(0)
            ),
            feed_gap.is_some_and(|g| g >= FEED_CRAWL_DELAY_MS) && to(FEED).len() >= 3,
        )],
    ));

    // R5: a 503 with Retry-After is retried, not taken for success.
    let feed_reqs: Vec<&Hit> = to(FEED)
        .into_iter()
        .filter(|h| path_of(h) == "/feed.xml")
        .collect();
    let retried = feed_reqs.first().is_some_and(|h| h.status == 503)
        && feed_reqs.get(1).is_some_and(|h| h.status == 200);
    let retry_gap = match (feed_reqs.first(), feed_reqs.get(1)) {
        (Some(a), Some(b)) => ms_between(a.end, b.start),
        _ => 0,
    };
    let feed_items = source(r1, "feed").map_or(0, |s| s.items.len());
    out.entry(Requirement::R5).or_default().push(all_of(
        "on the wire",
        "loopback run 1",
        vec![
            (
                "the feed answered 503 with Retry-After: 1 and was requested again".into(),
                retried,
            ),
            (
                format!("the retry came {retry_gap} ms after the 503 (Retry-After 1 s)"),
                retry_gap >= 1000,
            ),
            (
                format!("the source was reported ok with {feed_items} items from the retry, not from the 503"),
                status_is(r1, "feed", |s| matches!(s, SourceStatus::Ok { not_modified: false }))
                    && feed_items == 2,
            ),
        ],
    ));

    // R6: only declared targets and well-known resources.
    let srcs = sources();
    let mut allowed: Vec<(String, String)> =
        vec![(OPERATOR.to_string(), BLOCKLIST_PATH.to_string())];
    for s in &srcs {
        for u in std::iter::once(&s.url).chain(s.feed.as_ref()) {
            if let Ok(p) = url::Url::parse(u) {
                let host = p.host_str().unwrap_or("").to_string();
                allowed.push((host.clone(), p.path().to_string()));
                allowed.push((host.clone(), "/robots.txt".to_string()));
                if s.feed.is_none() {
                    allowed.push((host, "/llms.txt".to_string()));
                }
            }
        }
    }
    let outside: Vec<String> = hits
        .iter()
        .filter(|h| !allowed.contains(&(h.req.host.clone(), h.req.target.clone())))
        .map(|h| format!("{}{}", h.req.host, h.req.target))
        .collect();
    let linked = [
        format!("{FEED}/posts/1"),
        format!("{FEED}/media/1.mp3"),
        format!("{FEED}/img/1.png"),
        format!("{MARKDOWN}/alpha"),
        format!("{MARKDOWN}/logo.png"),
        format!("{LLMS}/guide.md"),
        format!("{LLMS}/style.css"),
        format!("{LLMS}/app.js"),
        format!("{LLMS}/logo.png"),
        format!("{LLMS}/from-html"),
        format!("{HTML}/from-html"),
    ];
    let followed = linked
        .iter()
        .filter(|l| {
            hits.iter()
                .any(|h| format!("{}{}", h.req.host, path_of(h)) == **l)
        })
        .count();
    let items: Vec<&wr_feeds::Item> = w
        .runs
        .iter()
        .filter_map(|r| r.as_ref().ok())
        .flat_map(|r| r.sources.iter().flat_map(|s| s.items.iter()))
        .collect();
    let content_in_items = items
        .iter()
        .filter(|i| {
            i.title.contains(CONTENT_MARKER)
                || i.url.contains(CONTENT_MARKER)
                || i.published
                    .as_deref()
                    .is_some_and(|p| p.contains(CONTENT_MARKER))
        })
        .count();
    out.entry(Requirement::R6).or_default().push(all_of(
        "scope on the wire",
        "loopback run",
        vec![
            (
                format!(
                    "{} requests outside the declared sources, their robots.txt and llms.txt, and the operator blocklist{}",
                    outside.len(),
                    if outside.is_empty() { String::new() } else { format!(": {}", outside.join(", ")) }
                ),
                outside.is_empty() && !hits.is_empty(),
            ),
            (
                format!(
                    "{followed} of {} linked URLs (entries, enclosure, images, script, stylesheet, page links) requested",
                    linked.len()
                ),
                followed == 0,
            ),
            (
                format!(
                    "{} items reported (title, URL, date); {content_in_items} carry any of the text placed in every page and entry body",
                    items.len()
                ),
                content_in_items == 0 && !items.is_empty(),
            ),
            (
                format!(
                    "{} of {} state files retain that content",
                    w.marker_files.len(),
                    w.state_files
                ),
                w.marker_files.is_empty() && w.state_files > 0,
            ),
        ],
    ));

    // R7: conditional requests and canonical dedup.
    let run2_feed = run2
        .iter()
        .find(|h| h.req.host == FEED && path_of(h) == "/feed.xml");
    let conditional = run2_feed.is_some_and(|h| {
        h.req.header("If-None-Match") == Some(ETAG)
            && h.req.header("If-Modified-Since") == Some(LAST_MODIFIED)
            && h.status == 304
    });
    let not_modified = status_is(r2, "feed", |s| {
        matches!(s, SourceStatus::Ok { not_modified: true })
    }) && source(r2, "feed").is_some_and(|s| s.items.is_empty());
    out.entry(Requirement::R7).or_default().push(all_of(
        "conditional fetch on the wire",
        "loopback runs 1 and 2",
        vec![
            (
                "run 2 replayed the feed's ETag as If-None-Match and its Last-Modified as If-Modified-Since, and got 304".into(),
                conditional,
            ),
            (
                "the 304 was reported not modified, with no new items".into(),
                not_modified,
            ),
            (
                format!("3 feed entries, two of them one URL spelt differently, gave {feed_items} items"),
                feed_items == 2,
            ),
        ],
    ));

    // R8: within the hour, nothing is fetched again (observed; the daily
    // frequency is the scheduler's).
    let skipped = r3.as_ref().is_ok_and(|r| {
        r.sources.iter().all(|s| {
            matches!(s.status, SourceStatus::Skipped { .. })
                || matches!(
                    s.status,
                    SourceStatus::DeniedBlocklist { .. } | SourceStatus::DeniedRobots { .. }
                )
        }) && r
            .sources
            .iter()
            .any(|s| matches!(s.status, SourceStatus::Skipped { .. }))
    });
    out.entry(Requirement::R8).or_default().push(all_of(
        "one-hour floor",
        "loopback run 3 (no --force, right after run 2)",
        vec![(
            format!("every fetched source skipped, {} requests sent", run3.len()),
            skipped && run3.is_empty(),
        )],
    ));

    // R9: feed > markdown > llms.txt; HTML never parsed.
    let accept_md = |host: &str, path: &str| {
        hits.iter()
            .filter(|h| h.req.host == host && path_of(h) == path)
            .all(|h| {
                h.req
                    .header("Accept")
                    .is_some_and(|a| a.contains("text/markdown"))
            })
            && hits
                .iter()
                .any(|h| h.req.host == host && path_of(h) == path)
    };
    let method = |name: &str| source(r1, name).and_then(|s| s.method);
    let requested = |host: &str, path: &str| {
        hits.iter()
            .any(|h| h.req.host == host && path_of(h) == path)
    };
    let from_html = items.iter().filter(|i| i.url.contains("from-html")).count();
    let llms_after_page = {
        let page = hits
            .iter()
            .position(|h| h.req.host == LLMS && path_of(h) == "/about");
        let txt = hits
            .iter()
            .position(|h| h.req.host == LLMS && path_of(h) == "/llms.txt");
        matches!((page, txt), (Some(a), Some(b)) if a < b)
    };
    out.entry(Requirement::R9).or_default().push(all_of(
        "formats on the wire",
        "loopback run",
        vec![
            (
                "the source with a declared feed used it; its page was never requested".into(),
                method("feed") == Some(Method::Feed) && !requested(FEED, "/"),
            ),
            (
                "the page offering markdown was asked with Accept: text/markdown and used; its llms.txt was never requested".into(),
                method("markdown") == Some(Method::Markdown)
                    && accept_md(MARKDOWN, "/notes")
                    && !requested(MARKDOWN, "/llms.txt"),
            ),
            (
                "the page answering HTML to Accept: text/markdown fell back to /llms.txt".into(),
                method("llms") == Some(Method::LlmsTxt) && accept_md(LLMS, "/about") && llms_after_page,
            ),
            (
                "the HTML-only source with no llms.txt was left out".into(),
                status_is(r1, "html", |s| matches!(s, SourceStatus::LeftOut { .. }))
                    && source(r1, "html").is_some_and(|s| s.items.is_empty()),
            ),
            (
                format!("{from_html} items came from an HTML page's links"),
                from_html == 0,
            ),
        ],
    ));

    // R11: what run 2 and 3 knew came from the state directory alone.
    let run2_robots = run2.iter().filter(|h| path_of(h) == "/robots.txt").count();
    out.entry(Requirement::R11).or_default().push(all_of(
        "across pipeline instances",
        "three pipelines opened one after another on one state directory (nothing shared in memory)",
        vec![
            (
                format!("run 2 requested {run2_robots} robots.txt (cached from run 1)"),
                run2_robots == 0 && !run2.is_empty(),
            ),
            (
                "run 2 replayed run 1's validators".into(),
                conditional,
            ),
            (
                "run 2 kept run 1's blocklist when the refresh failed".into(),
                retained,
            ),
            (
                "run 3 knew when run 2 had fetched each source".into(),
                skipped,
            ),
        ],
    ));
    out
}

// ---- the schema scenario (R10) -----------------------------------------------

#[derive(Clone)]
struct SchemaRun {
    hits: Vec<Hit>,
    steps: Vec<Step>,
}

#[derive(Clone)]
/// One step of the schema scenario: a new pipeline asked about a host not
/// on the list (so a stale list is refreshed; a listed host would be
/// denied by the stale list without one) and then about the listed host.
struct Step {
    /// Hits before the step.
    before: usize,
    /// The answer for the listed host.
    listed: Result<CheckReport, String>,
    /// The blocklist after the step.
    state: BlocklistState,
    /// The pipeline's notices.
    notices: Vec<String>,
}

fn schema_scenario() -> Result<SchemaRun, Setup> {
    let schema_down = Arc::new(AtomicBool::new(false));
    let down = schema_down.clone();
    let server = Server::start(move |r| {
        let path = r.target.split('?').next().unwrap_or("");
        match (r.host.as_str(), path) {
            (OPERATOR, BLOCKLIST_PATH) => {
                Reply::new(200, "application/json", blocklist_doc("PT6H", false))
            }
            (OPERATOR, BLOCKLIST_SCHEMA_PATH) if !down.load(Ordering::SeqCst) => {
                Reply::new(200, "application/schema+json", BLOCKLIST_SCHEMA)
            }
            (OPERATOR, BLOCKLIST_SCHEMA_PATH) => Reply::status(500),
            _ => Reply::status(404),
        }
    })
    .map_err(|e| Setup(format!("cannot listen on 127.0.0.1: {e}")))?;
    let dir = TempDir::new("schema")
        .map_err(|e| Setup(format!("cannot create a temporary state directory: {e}")))?;
    let other = TempDir::new("schema-new")
        .map_err(|e| Setup(format!("cannot create a temporary state directory: {e}")))?;
    let clock = Arc::new(ManualClock::new(SystemClock::new().now()));
    let free = format!("http://{FREE}/page");
    let listed = format!("http://{BLOCKED}/page");
    let mut steps = Vec::new();
    let plan: [(&Path, Duration, bool); 4] = [
        (&dir.0, Duration::ZERO, false),
        (&dir.0, Duration::from_secs(7 * 3600), false),
        (&dir.0, Duration::from_secs(8 * 86_400), true),
        (&other.0, Duration::ZERO, true),
    ];
    for (d, advance, down) in plan {
        clock.advance(advance);
        schema_down.store(down, Ordering::SeqCst);
        let before = server.hits().len();
        let cfg = config(d, &server, clock.clone());
        let step = match Pipeline::open(cfg) {
            Ok(mut p) => {
                let first = p.check(&free, &mut NoProgress).map_err(|e| e.to_string());
                let notices = p.notices().to_vec();
                let state = p.blocklist_state().clone();
                let listed = first
                    .and_then(|_| p.check(&listed, &mut NoProgress).map_err(|e| e.to_string()));
                Step {
                    before,
                    listed,
                    state,
                    notices,
                }
            }
            Err(e) => Step {
                before,
                listed: Err(format!("cannot open the pipeline: {e}")),
                state: BlocklistState::Unknown,
                notices: Vec::new(),
            },
        };
        steps.push(step);
    }
    let hits = server.hits();
    Ok(SchemaRun { hits, steps })
}

/// (R10 checks, R11 checks) of the schema scenario.
fn schema_checks(s: &SchemaRun) -> (Vec<Check>, Vec<Check>) {
    let schema_reqs = |i: usize| -> Vec<u16> {
        let from = s.steps.get(i).map_or(usize::MAX, |x| x.before);
        let to = s.steps.get(i + 1).map_or(s.hits.len(), |x| x.before);
        s.hits
            .get(from.min(s.hits.len())..to.min(s.hits.len()))
            .unwrap_or_default()
            .iter()
            .filter(|h| path_of(h) == BLOCKLIST_SCHEMA_PATH)
            .map(|h| h.status)
            .collect()
    };
    // Adopted now (fetched and validated in this step), and in force.
    let denied = |i: usize| {
        s.steps.get(i).is_some_and(|x| {
            matches!(x.state, BlocklistState::Fresh { entries: 1 })
                && matches!(x.listed, Ok(CheckReport::DeniedBlocklist { .. }))
        })
    };
    let notice = |i: usize, needle: &str| {
        s.steps
            .get(i)
            .is_some_and(|x| x.notices.iter().any(|n| n.contains(needle)))
    };
    let fallback = matches!(
        s.steps.get(3).map(|x| &x.state),
        Some(BlocklistState::Fallback { .. })
    );
    let not_denied = matches!(
        s.steps.get(3).map(|x| &x.listed),
        Some(Ok(r)) if !matches!(r, CheckReport::DeniedBlocklist { .. })
    );
    let r10 = all_of(
        "standalone schema",
        "loopback operator whose blocklist has no inline schema, virtual clock, a new pipeline per step",
        vec![
            (
                format!("first fetch: schema requested ({:?}), list adopted", schema_reqs(0)),
                schema_reqs(0) == [200] && denied(0),
            ),
            (
                format!("7 h later (list stale, schema within 7 days): schema requests {:?}, list adopted", schema_reqs(1)),
                schema_reqs(1).is_empty() && denied(1),
            ),
            (
                format!("8 days later, schema refresh failing ({:?}): the stale schema used, logged, list adopted", schema_reqs(2)),
                schema_reqs(2) == [500] && denied(2) && notice(2, "stale"),
            ),
            (
                format!("first fetch with no schema obtainable ({:?}): not adopted, the listed host not denied", schema_reqs(3)),
                schema_reqs(3) == [500] && fallback && not_denied && notice(3, "cannot be validated"),
            ),
        ],
    );
    let r11 = all_of(
        "schema cache across pipeline instances",
        "loopback schema scenario",
        vec![(
            "a new pipeline on the same state directory used the cached schema without a request"
                .into(),
            schema_reqs(0) == [200] && schema_reqs(1).is_empty() && denied(1),
        )],
    );
    (vec![r10], vec![r11])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpStream;

    #[test]
    fn server_answers_records_and_refuses_what_is_not_a_get() {
        let s = Server::start(|r| Reply::new(200, "text/plain", r.target.clone())).unwrap();
        let mut c = TcpStream::connect(("127.0.0.1", s.port())).unwrap();
        c.write_all(b"GET /hello HTTP/1.1\r\nHost: x.test\r\nUser-Agent: u\r\n\r\n")
            .unwrap();
        let mut out = String::new();
        c.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
        assert!(out.ends_with("\r\n\r\n/hello"), "{out}");
        let hits = s.hits();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].req.host, "x.test");
        assert!(hits[0].end >= hits[0].start + HOLD);
        // Garbage is refused, not counted as a hit, and the server keeps
        // serving.
        let mut c = TcpStream::connect(("127.0.0.1", s.port())).unwrap();
        c.write_all(b"\x00\x01 nonsense\r\n\r\n").unwrap();
        let mut out = String::new();
        c.read_to_string(&mut out).unwrap();
        assert!(out.starts_with("HTTP/1.1 400"), "{out}");
        assert_eq!(s.hits().len(), 1);
    }

    fn fails(checks: &BTreeMap<Requirement, Vec<Check>>, k: Requirement) -> bool {
        checks
            .get(&k)
            .is_some_and(|c| !crate::harness::checks::all_passed(c))
    }

    /// A copy of `w` with `hit` inserted at index `at`, the run marks kept
    /// on the same hits.
    fn with_hit(w: &Wire, at: usize, hit: Hit) -> Wire {
        let mut w = w.clone();
        let at = at.min(w.hits.len());
        w.hits.insert(at, hit);
        // A hit inserted at a run's first index opens that run.
        if w.run2_at > at {
            w.run2_at += 1;
        }
        if w.run3_at > at {
            w.run3_at += 1;
        }
        w
    }

    fn hit_like(w: &Wire, host: &str, target: &str) -> Hit {
        let mut h = w.hits[1].clone();
        h.req.host = host.to_string();
        h.req.target = target.to_string();
        h
    }

    /// Each wire check fails on a log showing the violation it is about.
    #[test]
    fn wire_checks_fail_on_a_tampered_log() {
        let w = wire_scenario().ok().expect("loopback");
        let real = wire_checks(&w);
        for (k, c) in &real {
            assert!(
                crate::harness::checks::all_passed(c),
                "{k}: {}",
                crate::harness::checks::evidence(c)
            );
        }
        let n2 = w.run2_at;
        // R2: a request under the disallowed path; R6: a followed link.
        let t = wire_checks(&with_hit(&w, 1, hit_like(&w, FEED, "/private/2")));
        assert!(fails(&t, Requirement::R2) && fails(&t, Requirement::R6));
        let t = wire_checks(&with_hit(&w, n2 - 1, hit_like(&w, FEED, "/posts/1")));
        assert!(fails(&t, Requirement::R6));
        // R3: the blocked host contacted; the blocklist not first.
        let t = wire_checks(&with_hit(&w, 1, hit_like(&w, "www.blocked.test", "/")));
        assert!(fails(&t, Requirement::R3) && fails(&t, Requirement::R3b));
        let t = wire_checks(&with_hit(&w, 0, hit_like(&w, LLMS, "/robots.txt")));
        assert!(fails(&t, Requirement::R3));
        // R3b: the refresh answered 200 instead of 404.
        let mut t = w.clone();
        for h in &mut t.hits[n2..] {
            if path_of(h) == BLOCKLIST_PATH {
                h.status = 200;
            }
        }
        assert!(fails(&wire_checks(&t), Requirement::R3b));
        // R4: two requests overlapping; R2d/R4: feed.test spaced too closely.
        let mut t = w.clone();
        t.hits[2].start = t.hits[1].start;
        assert!(fails(&wire_checks(&t), Requirement::R4));
        let mut t = w.clone();
        let feed: Vec<usize> = (0..t.hits.len())
            .filter(|&i| t.hits[i].req.host == FEED)
            .collect();
        t.hits[feed[1]].start = t.hits[feed[0]].start + Duration::from_millis(1200);
        assert!(fails(&wire_checks(&t), Requirement::R2d));
        // R5: the first feed answer a success.
        let mut t = w.clone();
        t.hits[feed[1]].status = 200;
        assert!(fails(&wire_checks(&t), Requirement::R5));
        // R7 and R11: run 2 without validators.
        let mut t = w.clone();
        for h in &mut t.hits[n2..] {
            h.req
                .headers
                .retain(|(k, _)| !k.eq_ignore_ascii_case("If-None-Match"));
        }
        let c = wire_checks(&t);
        assert!(fails(&c, Requirement::R7) && fails(&c, Requirement::R11));
        // R11: run 2 fetched robots.txt again.
        let t = wire_checks(&with_hit(&w, n2 + 1, hit_like(&w, LLMS, "/robots.txt")));
        assert!(fails(&t, Requirement::R11) && fails(&t, Requirement::R2));
        // R8: run 3 sent a request.
        let t = with_hit(&w, w.hits.len(), hit_like(&w, MARKDOWN, "/notes"));
        assert!(fails(&wire_checks(&t), Requirement::R8));
        // R9: the markdown page's llms.txt asked for anyway.
        let t = wire_checks(&with_hit(&w, n2 - 1, hit_like(&w, MARKDOWN, "/llms.txt")));
        assert!(fails(&t, Requirement::R9));
        // R1: one request with another User-Agent.
        let mut t = w.clone();
        for (k, v) in &mut t.hits[3].req.headers {
            if k.eq_ignore_ascii_case("User-Agent") {
                *v = "Mozilla/5.0".to_string();
            }
        }
        let refs: Vec<&Hit> = t.hits.iter().collect();
        assert!(!ua_check(&refs).passed);
        // R6: content kept in the state directory.
        let mut t = w.clone();
        t.marker_files.push("wr-feeds.sqlite3".into());
        assert!(fails(&wire_checks(&t), Requirement::R6));
    }

    #[test]
    fn schema_checks_fail_on_a_tampered_log() {
        let s = schema_scenario().ok().expect("loopback");
        let (r10, r11) = schema_checks(&s);
        assert!(
            crate::harness::checks::all_passed(&r10),
            "{}",
            crate::harness::checks::evidence(&r10)
        );
        assert!(
            crate::harness::checks::all_passed(&r11),
            "{}",
            crate::harness::checks::evidence(&r11)
        );
        // The schema fetched again within its 7 days.
        let mut t = s.clone();
        let schema_hit = t
            .hits
            .iter()
            .find(|h| path_of(h) == BLOCKLIST_SCHEMA_PATH)
            .cloned()
            .unwrap();
        let at = t.steps[1].before;
        t.hits.insert(at, schema_hit);
        for st in &mut t.steps[2..] {
            st.before += 1;
        }
        let (r10, r11) = schema_checks(&t);
        assert!(
            !crate::harness::checks::all_passed(&r10) && !crate::harness::checks::all_passed(&r11)
        );
        // The unvalidatable document adopted.
        let mut t = s.clone();
        t.steps[3].state = BlocklistState::Fresh { entries: 1 };
        assert!(!crate::harness::checks::all_passed(&schema_checks(&t).0));
        // The stale schema used silently.
        let mut t = s.clone();
        t.steps[2].notices.clear();
        assert!(!crate::harness::checks::all_passed(&schema_checks(&t).0));
    }

    #[test]
    fn the_loopback_run_proves_what_it_claims() {
        let Outcome::Ran(r) = run() else {
            panic!("the loopback run did not run");
        };
        for (k, checks) in &r.checks {
            assert!(
                crate::harness::checks::all_passed(checks),
                "{k}: {}",
                crate::harness::checks::evidence(checks)
            );
        }
        use Requirement::*;
        for k in [R1, R2, R2d, R3, R3b, R4, R5, R6, R7, R8, R9, R10, R11] {
            assert!(r.checks.contains_key(&k), "{k}");
        }
    }
}
