//! Loopback test servers that record every request (method, host, path +
//! query, headers, arrival instant), and helpers to point a pipeline at
//! them with `connect_to`.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use wr_conformance::faults::{Fault, FaultServer};
use wr_feeds::{Config, ConnectTo, Identity, Timeouts};

/// One request as the server saw it (method, host without the port,
/// target, headers, arrival instant): the one recording server's record.
pub use wr_conformance::faults::Request as Recorded;

/// A reply.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub delay: Option<Duration>,
}

impl Reply {
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), content_type.into())],
            body: body.into(),
            delay: None,
        }
    }
    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            headers: vec![],
            body: vec![],
            delay: None,
        }
    }
    pub fn header(mut self, k: &str, v: &str) -> Reply {
        self.headers.push((k.into(), v.into()));
        self
    }
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::status(status).header("Location", location)
    }
    pub fn not_found() -> Reply {
        Reply::new(404, "text/plain", "not found")
    }
    pub fn delayed(mut self, d: Duration) -> Reply {
        self.delay = Some(d);
        self
    }
}

impl From<Reply> for Fault {
    fn from(r: Reply) -> Fault {
        let answer = Fault::Answer {
            status: r.status,
            headers: r.headers.iter().map(|(k, v)| format!("{k}: {v}")).collect(),
            body: r.body,
        };
        match r.delay {
            Some(d) => answer.after(d),
            None => answer,
        }
    }
}

/// A plain-HTTP loopback server: wr-conformance's recording server (the
/// one every suite uses), answering with `handler`.
pub struct TestServer {
    pub port: u16,
    inner: FaultServer,
}

impl TestServer {
    pub fn start(handler: impl Fn(&Recorded) -> Reply + Send + Sync + 'static) -> TestServer {
        let inner = FaultServer::start_with(move |r: &Recorded| handler(r).into());
        TestServer {
            port: inner.port(),
            inner,
        }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.requests()
    }

    pub fn requests_to(&self, host: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.host == host)
            .collect()
    }

    pub fn clear(&self) {
        self.inner.clear();
    }

    /// The most requests it was ever answering at once.
    pub fn peak_in_flight(&self) -> usize {
        self.inner.peak_in_flight()
    }

    /// `host:80` goes to this server.
    pub fn connect(&self, host: &str) -> ConnectTo {
        ConnectTo::new(host, 80, "127.0.0.1", self.port)
    }
}

/// A fresh, empty state directory (not created: the pipeline creates it),
/// removed when the test that holds it ends, so that test runs leave no
/// stores behind; kept, and named on standard error, when the test
/// failed, for the post-mortem.
pub fn state_dir(name: &str) -> StateDir {
    static N: AtomicU64 = AtomicU64::new(0);
    let d = std::env::temp_dir().join(format!(
        "wr-feeds-test-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    StateDir(d)
}

/// See [`state_dir`]. Bind it for the whole test (`let dir =
/// state_dir(..)`): a temporary is dropped, and the directory removed, at
/// the end of its statement.
pub struct StateDir(PathBuf);

impl std::ops::Deref for StateDir {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl Drop for StateDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept for the failed test: {}", self.0.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

pub const TEST_IDENTITY_IMPL: &str = "walsh-research/wr-feeds";

/// A config whose operator is `http://wal.sh` and whose `hosts` all go to
/// `server`.
pub fn config(dir: &PathBuf, server: &TestServer, hosts: &[&str]) -> Config {
    let mut c = Config::new(dir);
    c.set_operator_base("http://wal.sh").unwrap();
    c.connect_to.push(server.connect("wal.sh"));
    for h in hosts {
        c.connect_to.push(server.connect(h));
    }
    c.identity = Some(Identity {
        implementation: TEST_IDENTITY_IMPL.into(),
        sha: "abc1234".into(),
        spec: wr_core::constants::SPEC_VERSION.into(),
    });
    c.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        request: Duration::from_secs(5),
        ..Timeouts::default()
    };
    c.rng_seed = Some(42);
    // A test that kept one pipeline open while opening another on the
    // same state would wait this long, then fail, instead of hanging.
    c.lock_wait.most = Duration::from_secs(20);
    c
}

pub fn data(path: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Section 16 canaries, plus a rule that would refuse every R13-tagged URL
/// if the gate ever saw the tags.
pub const OPERATOR_ROBOTS: &str = "User-agent: *\nDisallow: /research/bots/dogfood-walsh-only\n\nUser-agent: Walsh-Research\nDisallow: /research/bots/dogfood-disallow\nAllow: /research/bots/dogfood-allow\nAllow: /research/bots/dogfood-walsh-only\nDisallow: /*impl=\nCrawl-delay: 2\n";

/// The operator replica (`wal.sh`): blocklist (inline schema, lists
/// example.com), standalone schema, fixtures, robots.txt, dogfood pages.
pub fn operator(r: &Recorded) -> Reply {
    match r.path() {
        "/.well-known/walsh-research/blocklist.json" => {
            Reply::new(200, "application/json", data("operator/blocklist.json"))
        }
        "/.well-known/walsh-research/blocklist.schema.json" => Reply::new(
            200,
            "application/schema+json",
            data("operator/blocklist.schema.json"),
        ),
        "/.well-known/walsh-research/test-fixtures.json" => {
            Reply::new(200, "application/json", data("operator/test-fixtures.json"))
        }
        "/robots.txt" => Reply::new(200, "text/plain", OPERATOR_ROBOTS),
        p if p.starts_with("/research/bots/dogfood-") => {
            Reply::new(200, "text/html", format!("<p>{p}</p>"))
        }
        _ => Reply::not_found(),
    }
}

/// Every request carried the exact R1 User-Agent.
pub fn assert_ua(reqs: &[Recorded]) {
    for r in reqs {
        let n = r
            .headers
            .iter()
            .filter(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
            .count();
        assert_eq!(
            n, 1,
            "one User-Agent header: {} {}{}",
            r.method, r.host, r.target
        );
        assert_eq!(
            r.header("user-agent"),
            Some(wr_core::constants::USER_AGENT),
            "{} {}{}",
            r.method,
            r.host,
            r.target
        );
    }
}

/// Gaps between consecutive arrivals at `host` are at least `min`.
pub fn assert_spacing(reqs: &[Recorded], host: &str, min: Duration) {
    let at: Vec<Instant> = reqs
        .iter()
        .filter(|r| r.host == host)
        .map(|r| r.at)
        .collect();
    for w in at.windows(2) {
        let gap = w[1] - w[0];
        assert!(gap >= min, "{host}: gap {gap:?} < {min:?}");
    }
}

/// A minimal HTTPS server (rustls) answering every request with `body`,
/// recording requests. Returns (port, log, DER of the self-signed cert).
pub fn start_tls(
    names: &[&str],
    handler: impl Fn(&Recorded) -> Reply + Send + Sync + 'static,
) -> (u16, Arc<Mutex<Vec<Recorded>>>, Vec<u8>) {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
    let ck =
        rcgen::generate_simple_self_signed(names.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            .unwrap();
    let cert_der = ck.cert.der().to_vec();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der()));
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![CertificateDer::from(cert_der.clone())], key)
        .unwrap();
    let cfg = Arc::new(cfg);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(tcp) = stream else { continue };
            let Ok(conn) = rustls::ServerConnection::new(cfg.clone()) else {
                continue;
            };
            let mut tls = rustls::StreamOwned::new(conn, tcp);
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let head = loop {
                match tls.read(&mut chunk) {
                    Ok(0) | Err(_) => break None,
                    Ok(n) => {
                        buf.extend_from_slice(&chunk[..n]);
                        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                            break Some(String::from_utf8_lossy(&buf[..i]).to_string());
                        }
                    }
                }
            };
            let Some(head) = head else { continue };
            let mut lines = head.split("\r\n");
            let mut first = lines.next().unwrap_or("").split(' ');
            let method = first.next().unwrap_or("").to_string();
            let target = first.next().unwrap_or("").to_string();
            let headers: Vec<(String, String)> = lines
                .filter_map(|h| h.split_once(':'))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect();
            let host = headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("host"))
                .map(|(_, v)| {
                    v.rsplit_once(':')
                        .map_or(v.as_str(), |(h, _)| h)
                        .to_string()
                })
                .unwrap_or_default();
            let rec = Recorded {
                method,
                host,
                target,
                headers,
                at: Instant::now(),
            };
            l.lock().unwrap().push(rec.clone());
            let reply = handler(&rec);
            let mut out = format!(
                "HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n",
                reply.status,
                reply.body.len()
            );
            for (k, v) in &reply.headers {
                out.push_str(&format!("{k}: {v}\r\n"));
            }
            out.push_str("\r\n");
            let _ = tls.write_all(out.as_bytes());
            let _ = tls.write_all(&reply.body);
            let _ = tls.flush();
            tls.conn.send_close_notify();
            let _ = tls.flush();
        }
    });
    (port, log, cert_der)
}
