//! Loopback replicas for the end-to-end tests: one recording server per
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
use wr_conformance::faults::{Fault, FaultServer};

/// A recorded request: wr-conformance's recording server's record
/// (method, host, target, headers, arrival instant).
pub use wr_conformance::faults::Request as Req;

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
    /// `Retry-After`, if any.
    pub retry_after: Option<String>,
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
            retry_after: None,
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
    pub fn retry_after(mut self, value: &str) -> Route {
        self.retry_after = Some(value.into());
        self
    }
}

/// One loopback host: wr-conformance's recording server (the one every
/// suite uses), answering from a route table.
pub struct Host {
    pub name: String,
    pub port: u16,
    routes: Arc<Mutex<HashMap<String, Route>>>,
    server: FaultServer,
}

impl Host {
    pub fn start(name: &str) -> Host {
        let routes: Arc<Mutex<HashMap<String, Route>>> = Arc::default();
        let r = routes.clone();
        let server = FaultServer::start_with(move |req: &Req| {
            let route = {
                let routes = r.lock().unwrap();
                routes
                    .get(&req.target)
                    .or_else(|| routes.get(req.path()))
                    .cloned()
            };
            respond(req, route)
        });
        Host {
            name: name.into(),
            port: server.port(),
            routes,
            server,
        }
    }

    pub fn route(&self, path: &str, route: Route) -> &Host {
        self.routes.lock().unwrap().insert(path.into(), route);
        self
    }

    /// The most requests this host was ever answering at once.
    pub fn peak_in_flight(&self) -> usize {
        self.server.peak_in_flight()
    }

    pub fn requests(&self) -> Vec<Req> {
        self.server.requests()
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

/// The answer of `route` to `rec`: a 304 when a validator matches (the
/// ETag, else Last-Modified when no ETag was sent), 404 without a route.
fn respond(rec: &Req, route: Option<Route>) -> Fault {
    let Some(route) = route else {
        return Fault::typed(404, "text/plain", "not found");
    };
    let not_modified = match (&route.etag, rec.header("If-None-Match")) {
        (Some(e), Some(h)) => h.split(',').any(|x| x.trim() == e),
        _ => false,
    } || matches!((&route.last_modified, rec.header("If-Modified-Since"), rec.header("If-None-Match")),
        (Some(lm), Some(h), None) if lm == h);
    let mut answer = if not_modified {
        Fault::typed(304, &route.content_type, Vec::new())
    } else {
        Fault::typed(route.status, &route.content_type, route.body.clone())
    };
    if let Some(e) = &route.etag {
        answer = answer.with_header("ETag", e);
    }
    if let Some(lm) = &route.last_modified {
        answer = answer.with_header("Last-Modified", lm);
    }
    if let Some(ra) = &route.retry_after {
        answer = answer.with_header("Retry-After", ra);
    }
    match route.delay {
        Some(d) => answer.after(d),
        None => answer,
    }
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
    /// The operator's hosts and `hosts`: every host a run may reach.
    pub fn with<'a>(&'a self, hosts: &'a [Host]) -> Vec<&'a Host> {
        let mut v = vec![&self.wal, &self.pypi];
        v.extend(hosts.iter());
        v
    }

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

/// A fresh temporary directory, removed on drop; kept, and named on
/// standard error, when the test failed, for the post-mortem.
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
        if std::thread::panicking() {
            eprintln!("kept for the failed test: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
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

/// `wr-feeds check URLS...` in a fresh state directory under `tmp`: exit 1
/// and one `denied ... (R2...` line per URL, in order.
pub fn check_denies_each(tmp: &TempDir, op: &Operator, hosts: &[Host], urls: &[String]) {
    let mut args = vec!["check"];
    args.extend(urls.iter().map(String::as_str));
    let o = wr(&tmp.path().join("state"), &op.with(hosts), &args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}\n{}", stderr(&o));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), urls.len(), "{out}");
    for (line, url) in lines.iter().zip(urls) {
        assert!(line.starts_with(&format!("denied    {url}  (R2")), "{out}");
    }
}

/// A JSON digest run of one source per URL (`Row 0`, `Row 1`...) in a fresh
/// state directory under `tmp`: every source reported denied with no item.
/// Returns the reported sources, in order.
pub fn digest_denies_each(
    tmp: &TempDir,
    op: &Operator,
    hosts: &[Host],
    urls: &[String],
) -> Vec<serde_json::Value> {
    let mut sources = String::new();
    for (i, url) in urls.iter().enumerate() {
        sources.push_str(&format!(
            "[[source]]\nname = \"Row {i}\"\nurl = \"{url}\"\n\n"
        ));
    }
    let file = tmp.write("sources.toml", &sources);
    let o = wr(
        &tmp.path().join("state"),
        &op.with(hosts),
        &[file.to_str().unwrap(), "--format", "json"],
    );
    let out = stdout(&o);
    let digest: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{}", stderr(&o)));
    let text = digest.to_string();
    let reported = digest["sources"].as_array().cloned().expect("sources");
    assert_eq!(reported.len(), urls.len(), "{text}");
    for s in &reported {
        assert_eq!(s["status"], "denied", "{text}");
        assert_eq!(s["items"].as_array().map(Vec::len), Some(0), "{text}");
    }
    reported
}
