//! Loopback replicas for the end-to-end tests: one tiny_http server per
//! host name, reached with `--connect-to NAME:80:127.0.0.1:PORT`, each
//! recording every request. Serves the operator site (test-fixtures.json,
//! blocklist.json with its inline schema, robots.txt with the section 16
//! canaries) and publisher sites with the real feeds and llms.txt files of
//! feeds/tests/data (copied from the shared corpus with their licences).
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A recorded request.
#[derive(Debug, Clone)]
pub struct Req {
    pub method: String,
    /// Path and query as sent.
    pub url: String,
    pub headers: Vec<(String, String)>,
    /// When the request arrived.
    pub at: std::time::Instant,
}

impl Req {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn path(&self) -> &str {
        self.url.split('?').next().unwrap_or(&self.url)
    }
}

/// A canned response.
#[derive(Debug, Clone)]
pub struct Route {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// Hold the response this long (a slow or hung server).
    pub delay: Option<Duration>,
}

impl Route {
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Route {
        Route {
            status: 200,
            content_type: content_type.into(),
            body: body.into(),
            etag: None,
            last_modified: None,
            delay: None,
        }
    }
    pub fn status(status: u16) -> Route {
        Route {
            status,
            ..Route::ok("text/plain", "")
        }
    }
    pub fn with_validators(mut self, etag: &str, last_modified: &str) -> Route {
        self.etag = Some(etag.into());
        self.last_modified = Some(last_modified.into());
        self
    }
    pub fn delayed(mut self, d: Duration) -> Route {
        self.delay = Some(d);
        self
    }
}

/// One loopback host.
pub struct Host {
    pub name: String,
    pub port: u16,
    log: Arc<Mutex<Vec<Req>>>,
    routes: Arc<Mutex<HashMap<String, Route>>>,
    /// Requests being answered now, and the most there ever were.
    in_flight: Arc<std::sync::atomic::AtomicUsize>,
    peak: Arc<std::sync::atomic::AtomicUsize>,
}

impl Host {
    pub fn start(name: &str) -> Host {
        let server = tiny_http::Server::http("127.0.0.1:0").expect("bind loopback");
        let port = server.server_addr().to_ip().expect("ip address").port();
        let log: Arc<Mutex<Vec<Req>>> = Arc::default();
        let routes: Arc<Mutex<HashMap<String, Route>>> = Arc::default();
        let in_flight: Arc<std::sync::atomic::AtomicUsize> = Arc::default();
        let peak: Arc<std::sync::atomic::AtomicUsize> = Arc::default();
        let (l, r) = (log.clone(), routes.clone());
        let (inf, pk) = (in_flight.clone(), peak.clone());
        std::thread::spawn(move || {
            for req in server.incoming_requests() {
                let rec = Req {
                    method: req.method().to_string(),
                    url: req.url().to_string(),
                    headers: req
                        .headers()
                        .iter()
                        .map(|h| (h.field.to_string(), h.value.to_string()))
                        .collect(),
                    at: std::time::Instant::now(),
                };
                let route = {
                    let routes = r.lock().unwrap();
                    routes
                        .get(&rec.url)
                        .or_else(|| routes.get(rec.path()))
                        .cloned()
                };
                l.lock().unwrap().push(rec.clone());
                use std::sync::atomic::Ordering::SeqCst;
                let now = inf.fetch_add(1, SeqCst) + 1;
                pk.fetch_max(now, SeqCst);
                let inf = inf.clone();
                std::thread::spawn(move || {
                    respond(req, &rec, route);
                    inf.fetch_sub(1, SeqCst);
                });
            }
        });
        Host {
            name: name.into(),
            port,
            log,
            routes,
            in_flight,
            peak,
        }
    }

    pub fn route(&self, path: &str, route: Route) -> &Host {
        self.routes.lock().unwrap().insert(path.into(), route);
        self
    }

    /// The most requests this host was ever answering at once.
    pub fn peak_in_flight(&self) -> usize {
        self.peak.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Req> {
        self.log.lock().unwrap().clone()
    }

    pub fn requests_to(&self, path: &str) -> Vec<Req> {
        self.requests()
            .into_iter()
            .filter(|r| r.path() == path)
            .collect()
    }

    /// `--connect-to` value sending `http://NAME/` here.
    pub fn connect_to(&self) -> String {
        format!("{}:80:127.0.0.1:{}", self.name, self.port)
    }

    pub fn base(&self) -> String {
        format!("http://{}", self.name)
    }
}

fn respond(req: tiny_http::Request, rec: &Req, route: Option<Route>) {
    let Some(route) = route else {
        let _ = req.respond(tiny_http::Response::from_string("not found").with_status_code(404));
        return;
    };
    if let Some(d) = route.delay {
        std::thread::sleep(d);
    }
    let not_modified = match (&route.etag, rec.header("If-None-Match")) {
        (Some(e), Some(h)) => h.split(',').any(|x| x.trim() == e),
        _ => false,
    } || matches!((&route.last_modified, rec.header("If-Modified-Since"), rec.header("If-None-Match")),
        (Some(lm), Some(h), None) if lm == h);
    let mut resp = if not_modified {
        tiny_http::Response::from_data(Vec::new()).with_status_code(304)
    } else {
        tiny_http::Response::from_data(route.body.clone()).with_status_code(route.status)
    };
    let mut add = |k: &str, v: &str| {
        if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            resp.add_header(h);
        }
    };
    add("Content-Type", &route.content_type);
    if let Some(e) = &route.etag {
        add("ETag", e);
    }
    if let Some(lm) = &route.last_modified {
        add("Last-Modified", lm);
    }
    let _ = req.respond(resp);
}

pub fn data(rel: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../feeds/tests/data")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The section 16 robots.txt of the operator site.
pub const CANARY_ROBOTS: &str = "User-agent: *\nDisallow: /research/bots/dogfood-walsh-only\n\nUser-agent: Walsh-Research\nDisallow: /research/bots/dogfood-disallow\nAllow: /research/bots/dogfood-allow\nAllow: /research/bots/dogfood-walsh-only\nCrawl-delay: 1\n";

/// The operator replica (`wal.test`) and the external positive
/// (`pypi.test`).
pub struct Operator {
    pub wal: Host,
    pub pypi: Host,
}

impl Operator {
    pub fn start(robots: &str) -> Operator {
        let wal = Host::start("wal.test");
        let pypi = Host::start("pypi.test");
        let fixtures = String::from_utf8(data("operator/test-fixtures.json"))
            .unwrap()
            .replace("https://wal.sh", "http://wal.test")
            .replace("https://pypi.org", "http://pypi.test");
        wal.route("/robots.txt", Route::ok("text/plain", robots))
            .route(
                "/.well-known/walsh-research/test-fixtures.json",
                Route::ok("application/json", fixtures),
            )
            .route(
                "/.well-known/walsh-research/blocklist.json",
                Route::ok("application/json", data("operator/blocklist.json")),
            )
            .route(
                "/.well-known/walsh-research/blocklist.schema.json",
                Route::ok("application/json", data("operator/blocklist.schema.json")),
            );
        for page in ["dogfood-allow", "dogfood-disallow", "dogfood-walsh-only"] {
            let body = format!("<!doctype html><title>{page}</title><p>{page}</p>");
            wal.route(
                &format!("/research/bots/{page}"),
                Route::ok("text/html", body.clone()),
            );
            wal.route(
                &format!("/research/bots/{page}.html"),
                Route::ok("text/html", body.clone()),
            );
            wal.route(
                &format!("/research/bots/{page}.md"),
                Route::ok("text/markdown", body),
            );
        }
        pypi.route(
            "/robots.txt",
            Route::ok("text/plain", "User-agent: *\nDisallow: /pypi/*/json\n"),
        )
        .route(
            "/project/jsonschema/",
            Route::ok("text/html", "<!doctype html><title>jsonschema</title>"),
        );
        Operator { wal, pypi }
    }
}

/// A fresh temporary directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let p = std::env::temp_dir().join(format!("wr-cli-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the built binary with a clean environment: the given state dir,
/// the operator at `http://wal.test`, and `--connect-to` for every host.
pub fn wr(state: &Path, hosts: &[&Host], args: &[&str]) -> Output {
    wr_command(state, hosts, args)
        .output()
        .expect("run wr-feeds")
}

/// The command [`wr`] runs, for a test that needs to change it (standard
/// output, say) before running it.
pub fn wr_command(state: &Path, hosts: &[&Host], args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_wr-feeds"));
    cmd.env_remove("WR_STATE_DIR")
        .env_remove("GITHUB_SHA")
        .env_remove("GITHUB_REPOSITORY")
        .env("NO_COLOR", "1")
        .env("WR_OPERATOR_BASE", "http://wal.test")
        .arg("--state-dir")
        .arg(state);
    for h in hosts {
        cmd.arg("--connect-to").arg(h.connect_to());
    }
    cmd.args(args);
    cmd
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
