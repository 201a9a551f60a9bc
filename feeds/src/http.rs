//! The only way bytes leave the process: a ureq 3 agent (rustls with the
//! bundled Mozilla roots of `webpki-roots`, gzip) behind a [`Http::send`]
//! that requires a gate [`Permit`].
//!
//! * R1: the exact `USER_AGENT` on every request (agent default and an
//!   explicit header).
//! * Redirects are never followed by ureq (`max_redirects(0)`): the caller
//!   resolves each `Location` and runs it through the gate again.
//! * R13: [`Http::send`] appends `impl`, `sha`, `spec` to operator
//!   compliance URLs *on the wire only*; the gate and the caller see the
//!   untagged URL.
//! * Limits: connect and whole-request timeouts; bodies are read up to a
//!   limit counted after decompression, either truncated (robots.txt at
//!   500 KiB and one octet, see [`ROBOTS_BODY_LIMIT`]) or failing "too
//!   large" (feeds, pages).
//! * `--connect-to`: a custom ureq `Resolver` maps `host1:port1` to
//!   `host2:port2`; the URI (so Host, SNI and certificate name) is unchanged.

use crate::config::{Config, ConnectTo, Identity};
use std::io::Read;
use std::net::ToSocketAddrs;
use ureq::unversioned::resolver::{DefaultResolver, ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};
use wr_core::constants::{ROBOTS_MAX_BYTES, USER_AGENT};
use wr_core::fetch::Validators;
use wr_core::gate::Permit;

/// How much of a body to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyLimit {
    /// Read at most this many bytes and drop the rest (robots.txt).
    Truncate(usize),
    /// More than this many bytes is an error ("too large").
    Fail(u64),
}

impl BodyLimit {
    /// The most octets read from the wire under this limit: one past it,
    /// so that a body going over the limit is told from one ending there.
    fn read_cap(self) -> u64 {
        match self {
            BodyLimit::Truncate(n) => n as u64,
            BodyLimit::Fail(n) => n,
        }
        .saturating_add(1)
    }

    /// What this limit keeps of `body`, and whether it cut anything; `Err`
    /// with the limit when a body is over a [`BodyLimit::Fail`].
    pub fn apply(self, body: &[u8]) -> Result<(&[u8], bool), u64> {
        match self {
            BodyLimit::Truncate(n) if body.len() > n => Ok((&body[..n], true)),
            BodyLimit::Fail(n) if body.len() as u64 > n => Err(n),
            _ => Ok((body, false)),
        }
    }
}

/// The body limit of every robots.txt request: 500 KiB
/// (`ROBOTS_MAX_BYTES`, spec 9.1.1) and one octet more.
///
/// The octet past the limit is kept on purpose. wr-core's parser applies
/// the 500 KiB limit itself, and treats the line the limit falls in with
/// care: a Disallow is read cut short (it still denies all that the whole
/// rule denied, and outranks every other rule), anything else is dropped
/// (a cut `Allow: /private/feed.xml-and-more` would read `Allow:
/// /private/feed` and open paths its author never opened). It can only do
/// that when it sees that the body goes on past the limit. A body cut at
/// exactly 500 KiB looks complete, and its cut last line looks whole. The
/// extra octet also tells the parser whether the limit fell at the end of
/// a line (which is then whole) or inside a UTF-8 character. The body is
/// stored as kept, so a copy read back from the state store parses the
/// same way.
pub const ROBOTS_BODY_LIMIT: BodyLimit = BodyLimit::Truncate(ROBOTS_MAX_BYTES + 1);

/// The part of a served robots.txt `body` that [`Http::send`] keeps under
/// [`ROBOTS_BODY_LIMIT`]: the octets the pipeline hands to wr-core's
/// parser. For checks that run the parser on the very input production
/// gives it, without a server.
pub fn robots_body(body: &[u8]) -> &[u8] {
    // A `Truncate` limit never refuses a body; the fallback only keeps the
    // function total.
    ROBOTS_BODY_LIMIT.apply(body).map_or(body, |(kept, _)| kept)
}

/// One request's options.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// `Accept`, if any.
    pub accept: Option<&'a str>,
    /// Conditional headers to replay (R7).
    pub validators: Option<&'a Validators>,
    /// Body limit.
    pub limit: BodyLimit,
}

/// A response (any status: the machines in `wr_core::fetch` decide). Its
/// `Location` is resolved against the request URL here, once, by the WHATWG
/// parser (dot segments, `%2e`, punycode, no fragment), so the gate judges
/// a hop in the form that is sent.
pub use wr_core::fetch::Response;

/// Why no response came back.
///
/// `reason` is the underlying error in words (the message quotes it);
/// `source` is that error itself, the `source()` of a transport or
/// unsendable failure.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// Connect, TLS, DNS, timeout, reset: retryable (R5, C5).
    #[error("{url}: {reason}")]
    Transport {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
        /// A timeout (connect, answer or whole request): the pipeline
        /// gives up on a host that times out twice in a run.
        timed_out: bool,
        /// The ureq error, or the I/O error of reading the body.
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The request could not be made as asked (a URL too long for an HTTP
    /// request line, a header value that is not one), or the answer was not
    /// HTTP that can be read (malformed or oversized response headers).
    /// Retrying would meet the same refusal, so R5 does not apply and no
    /// host is held for it: the one source fails.
    #[error("{url}: {reason}")]
    Unsendable {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
        /// The ureq error.
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    /// The body exceeded [`BodyLimit::Fail`].
    #[error("{url}: too large (more than {limit} bytes)")]
    TooLarge {
        /// The URL.
        url: String,
        /// The limit in bytes.
        limit: u64,
    },
    /// The permit does not cover this URL (a bug in the caller).
    #[error("{url}: no gate permit for this URL")]
    NotPermitted {
        /// The URL.
        url: String,
    },
}

impl HttpError {
    /// Whether R5 retries apply.
    pub fn is_retryable(&self) -> bool {
        matches!(self, HttpError::Transport { .. })
    }
}

#[derive(Debug)]
struct ConnectToResolver {
    rules: Vec<ConnectTo>,
    default: DefaultResolver,
}

impl Resolver for ConnectToResolver {
    fn resolve(
        &self,
        uri: &ureq::http::Uri,
        config: &ureq::config::Config,
        timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let host = uri.host().unwrap_or_default();
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = uri.port_u16().unwrap_or(match uri.scheme_str() {
            Some("https") => 443,
            _ => 80,
        });
        for rule in &self.rules {
            if let Some((to_host, to_port)) = rule.apply(host, port) {
                let mut out = self.default.empty();
                let addrs = (to_host.as_str(), to_port)
                    .to_socket_addrs()
                    .map_err(|_| ureq::Error::HostNotFound)?;
                for a in addrs.take(16) {
                    out.push(a);
                }
                if out.is_empty() {
                    return Err(ureq::Error::HostNotFound);
                }
                return Ok(out);
            }
        }
        self.default.resolve(uri, config, timeout)
    }
}

/// The HTTP client.
#[derive(Debug)]
pub struct Http {
    agent: ureq::Agent,
    identity: Option<Identity>,
    operator_origin: Option<url::Url>,
}

impl Http {
    /// An agent for `config`.
    pub fn new(config: &Config) -> Result<Http, String> {
        let mut tls = ureq::tls::TlsConfig::builder().provider(ureq::tls::TlsProvider::Rustls);
        if let Some(roots) = &config.tls_roots {
            let certs: Vec<ureq::tls::Certificate<'static>> = roots
                .iter()
                .map(|der| ureq::tls::Certificate::from_der(der).to_owned())
                .collect();
            tls = tls.root_certs(ureq::tls::RootCerts::new_with_certs(&certs));
        }
        let agent_config = ureq::Agent::config_builder()
            .max_redirects(0)
            .http_status_as_error(false)
            .user_agent(USER_AGENT)
            .proxy(if config.use_env_proxy {
                ureq::Proxy::try_from_env()
            } else {
                None
            })
            .timeout_connect(Some(config.timeouts.connect))
            .timeout_recv_response(Some(config.timeouts.answer.min(config.timeouts.request)))
            .timeout_global(Some(config.timeouts.request))
            .tls_config(tls.build())
            .build();
        let resolver = ConnectToResolver {
            rules: config.connect_to.clone(),
            default: DefaultResolver::default(),
        };
        let agent = ureq::Agent::with_parts(agent_config, DefaultConnector::new(), resolver);
        let operator_origin = url::Url::parse(&config.operator_base).ok();
        Ok(Http {
            agent,
            identity: config.identity.clone(),
            operator_origin,
        })
    }

    /// Whether `url` is one of the operator's compliance URLs that R13
    /// tags: on the operator origin, `/robots.txt`, anything under
    /// `/.well-known/walsh-research/` (blocklist, schema, fixtures) or
    /// `/research/bots/` (the dogfood canaries and lab pages).
    pub fn is_compliance_url(&self, url: &str) -> bool {
        let (Some(op), Ok(u)) = (&self.operator_origin, url::Url::parse(url)) else {
            return false;
        };
        let same_origin = u.scheme() == op.scheme()
            && u.host_str().map(str::to_ascii_lowercase)
                == op.host_str().map(str::to_ascii_lowercase)
            && u.port_or_known_default() == op.port_or_known_default();
        let path = u.path();
        same_origin
            && (path == "/robots.txt"
                || path.starts_with("/.well-known/walsh-research/")
                || path.starts_with("/research/bots/"))
    }

    /// The URL as transmitted: R13 tags appended to compliance URLs.
    ///
    /// The tags are appended to the very string the gate judged (minus a
    /// fragment, which is never sent); the URL is not re-serialised, so
    /// the path on the wire is byte for byte the path R2 evaluated.
    pub fn wire_url(&self, url: &str) -> String {
        match &self.identity {
            Some(id) if self.is_compliance_url(url) => {
                let base = url.split_once('#').map_or(url, |(b, _)| b);
                let tags = url::form_urlencoded::Serializer::new(String::new())
                    .append_pair("impl", &id.implementation)
                    .append_pair("sha", &id.sha)
                    .append_pair("spec", &id.spec)
                    .finish();
                let sep = match base.split_once('?') {
                    None => "?",
                    Some((_, "")) => "",
                    Some(_) => "&",
                };
                format!("{base}{sep}{tags}")
            }
            _ => url.to_string(),
        }
    }

    /// Sends one GET for `url` under `permit`, which must have been minted
    /// for exactly that URL.
    pub fn send(
        &self,
        permit: &Permit,
        url: &str,
        req: &Request<'_>,
    ) -> Result<Response, HttpError> {
        // Every permit covers exactly the URL the gate admitted (robots.txt
        // redirect hops get their own, `Gate::admit_robots_hop`).
        let covered = permit.url() == url;
        if !covered {
            return Err(HttpError::NotPermitted {
                url: url.to_string(),
            });
        }
        let wire = self.wire_url(url);
        let mut builder = self.agent.get(&wire).header("User-Agent", USER_AGENT);
        if let Some(a) = req.accept {
            builder = builder.header("Accept", a);
        }
        if let Some(v) = req.validators {
            if let Some(etag) = &v.etag {
                builder = builder.header("If-None-Match", etag);
            }
            if let Some(lm) = &v.last_modified {
                builder = builder.header("If-Modified-Since", lm);
            }
        }
        let mut resp = builder.call().map_err(|e| transport_error(url, e))?;
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(|s| s.trim().to_string())
        };
        let status = resp.status().as_u16();
        let content_type = header("content-type");
        let etag = header("etag");
        let last_modified = header("last-modified");
        let location = header("location").and_then(|l| resolve_location(url, &l));
        let retry_after = header("retry-after");
        let cache_control = header("cache-control");
        let expires = header("expires");
        let date = header("date");
        let (body, truncated) = read_body(&mut resp, url, req)?;
        Ok(Response {
            status,
            content_type,
            etag,
            last_modified,
            location,
            retry_after,
            cache_control,
            expires,
            date,
            body,
            truncated,
        })
    }
}

/// Why a request could not be sent or answered: unsendable (the same
/// every time) or a transport failure (worth a retry).
fn transport_error(url: &str, e: ureq::Error) -> HttpError {
    let (url, reason) = (url.to_string(), describe(&e));
    if is_deterministic(&e) {
        HttpError::Unsendable {
            url,
            reason,
            source: Box::new(e),
        }
    } else {
        let timed_out = matches!(&e, ureq::Error::Timeout(_))
            || matches!(&e, ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut);
        HttpError::Transport {
            url,
            reason,
            timed_out,
            source: Box::new(e),
        }
    }
}

/// The response's body, read up to the request's limit: the bytes kept
/// and whether they were cut.
fn read_body(
    resp: &mut ureq::http::Response<ureq::Body>,
    url: &str,
    req: &Request<'_>,
) -> Result<(Vec<u8>, bool), HttpError> {
    let mut body = Vec::new();
    let mut reader = resp.body_mut().as_reader().take(req.limit.read_cap());
    reader
        .read_to_end(&mut body)
        .map_err(|e| HttpError::Transport {
            url: url.to_string(),
            timed_out: is_timeout(&e),
            reason: format!("reading the body: {e}"),
            source: Box::new(e),
        })?;
    let (kept, truncated) = match req.limit.apply(&body) {
        Ok((kept, cut)) => (kept.len(), cut),
        Err(limit) => {
            return Err(HttpError::TooLarge {
                url: url.to_string(),
                limit,
            })
        }
    };
    body.truncate(kept);
    Ok((body, truncated))
}

/// Whether a body read failed by a timeout, judged by the error's kind
/// and type, never its words (issue #21): ureq hands its own errors (a
/// `Timeout`, or the socket's `TimedOut`) through the reader wrapped in an
/// `io::Error`.
fn is_timeout(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::TimedOut;
    e.kind() == TimedOut
        || match e.get_ref().and_then(|x| x.downcast_ref::<ureq::Error>()) {
            Some(ureq::Error::Timeout(_)) => true,
            Some(ureq::Error::Io(io)) => io.kind() == TimedOut,
            _ => false,
        }
}

/// `location` resolved against `base`, without its fragment; `None` when it
/// does not resolve.
pub fn resolve_location(base: &str, location: &str) -> Option<String> {
    let mut next = url::Url::parse(base).ok()?.join(location).ok()?;
    next.set_fragment(None);
    Some(next.to_string())
}

impl HttpError {
    /// The kind the fetch machines decide on, and the transport's words.
    pub fn to_failure(&self) -> wr_core::fetch::Failure {
        use wr_core::fetch::{Failure, FailureKind};
        match self {
            HttpError::Transport {
                reason, timed_out, ..
            } => Failure {
                kind: if *timed_out {
                    FailureKind::TimedOut
                } else {
                    FailureKind::Network
                },
                reason: reason.clone(),
            },
            HttpError::Unsendable { reason, .. } => Failure {
                kind: FailureKind::Local,
                reason: reason.clone(),
            },
            HttpError::TooLarge { limit, .. } => Failure {
                kind: FailureKind::TooLarge { limit: *limit },
                reason: self.to_string(),
            },
            // A permit that does not cover the URL is a bug in the caller;
            // retrying it would not help.
            HttpError::NotPermitted { .. } => Failure {
                kind: FailureKind::Local,
                reason: self.to_string(),
            },
        }
    }
}

/// Whether `e` would recur on every retry: the request could not be built
/// (URL, header), or the response could not be read as HTTP. Network,
/// TLS and timeout failures are transient (R5).
fn is_deterministic(e: &ureq::Error) -> bool {
    matches!(
        e,
        ureq::Error::Http(_)
            | ureq::Error::BadUri(_)
            | ureq::Error::Protocol(_)
            | ureq::Error::LargeResponseHeader(..)
            | ureq::Error::InvalidProxyUrl
    )
}

fn describe(e: &ureq::Error) -> String {
    // rustls's words for an answer that is not TLS at all, most often a
    // plain-HTTP server on the port an https URL names; they arrive as an
    // I/O error or a TLS one.
    let text = e.to_string();
    if text.contains("InvalidContentType") {
        return format!(
            "TLS handshake failed: the server did not answer in TLS (is it plain HTTP on this port?) ({text})"
        );
    }
    match e {
        ureq::Error::Timeout(t) => match t {
            ureq::Timeout::Connect => "timed out connecting".to_string(),
            ureq::Timeout::RecvResponse => "timed out waiting for an answer".to_string(),
            ureq::Timeout::RecvBody => "timed out reading the body".to_string(),
            ureq::Timeout::Global | ureq::Timeout::PerCall => {
                "timed out (the whole request took too long)".to_string()
            }
            other => format!("timed out ({other})"),
        },
        ureq::Error::HostNotFound => "host not found".to_string(),
        ureq::Error::ConnectionFailed => "connection failed".to_string(),
        // The resolver's and the OS's wording ("io: failed to lookup
        // address information: ...") says little to someone reading a
        // digest; name the usual cases, keep the detail.
        ureq::Error::Io(io) => {
            let detail = io.to_string();
            match io.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
                std::io::ErrorKind::ConnectionReset => "connection reset by the server".to_string(),
                std::io::ErrorKind::TimedOut => "timed out".to_string(),
                _ if detail.contains("failed to lookup address") => {
                    format!("host not found ({detail})")
                }
                _ => format!("i/o error: {detail}"),
            }
        }
        ureq::Error::Http(h) => format!("cannot make this request: {h}"),
        ureq::Error::BadUri(u) => format!("cannot make this request: bad URI ({u})"),
        ureq::Error::Protocol(p) => format!("the server's answer is not readable HTTP: {p}"),
        ureq::Error::LargeResponseHeader(n, max) => {
            format!("the server's response headers are too large ({n} bytes, limit {max})")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body read's timeout is known by its type: words that say
    /// "timeout" are not one, and ureq's own timeout, wrapped in an
    /// `io::Error` as its reader hands it, is.
    #[test]
    fn a_timeout_is_judged_by_its_kind_not_its_words() {
        use std::io::{Error, ErrorKind};
        let wrapped = ureq::Error::Timeout(ureq::Timeout::RecvBody).into_io();
        assert!(is_timeout(&wrapped));
        assert!(is_timeout(&Error::from(ErrorKind::TimedOut)));
        let io = ureq::Error::Io(Error::from(ErrorKind::TimedOut));
        assert!(is_timeout(&Error::other(io)));
        assert!(!is_timeout(&Error::other(
            "connection reset: timeout timed out"
        )));
        assert!(!is_timeout(&Error::from(ErrorKind::ConnectionReset)));
    }
    use crate::config::Config;
    use wr_core::gate::{Gate, GateConfig};
    use wr_core::time::Timestamp;

    #[test]
    fn limits_keep_what_they_say() {
        let body = b"0123456789";
        assert_eq!(BodyLimit::Truncate(4).apply(body), Ok((&body[..4], true)));
        assert_eq!(BodyLimit::Truncate(10).apply(body), Ok((&body[..], false)));
        assert_eq!(BodyLimit::Fail(9).apply(body), Err(9));
        assert_eq!(BodyLimit::Fail(10).apply(body), Ok((&body[..], false)));
        assert_eq!(BodyLimit::Truncate(4).read_cap(), 5);
        assert_eq!(BodyLimit::Fail(u64::MAX).read_cap(), u64::MAX);
    }

    /// A robots.txt over 500 KiB reaches the parser one octet longer than
    /// the limit, so the parser knows its last line was cut: a cut Allow
    /// is dropped and opens nothing, a cut Disallow still denies.
    #[test]
    fn a_cut_robots_txt_is_parsed_as_cut() {
        use wr_core::constants::UA_TOKEN;
        use wr_core::robots::Policy;
        let at_limit = |group: &str, line: &str, within: usize| {
            let mut body = format!("User-agent: *\n{group}").into_bytes();
            body.resize(ROBOTS_MAX_BYTES - within - 1, b'#');
            body.push(b'\n');
            body.extend_from_slice(line.as_bytes());
            body.push(b'\n');
            body
        };
        let allow = at_limit(
            "Disallow: /private\n",
            "Allow: /private/feed.xml-and-more",
            "Allow: /private/feed".len(),
        );
        let disallow = at_limit(
            "Allow: /blog/feed\n",
            "Disallow: /blog/feed.xml",
            "Disallow: /blog/fe".len(),
        );
        for (body, path) in [(&allow, "/private/feed.xml"), (&disallow, "/blog/feed.xml")] {
            let kept = robots_body(body);
            assert_eq!(kept.len(), ROBOTS_MAX_BYTES + 1);
            assert!(!Policy::parse(kept, UA_TOKEN).check(path).allowed, "{path}");
        }
        let small = b"User-agent: *\nDisallow: /x\n";
        assert_eq!(robots_body(small), small);
    }

    #[test]
    fn transport_errors_are_named_for_a_reader() {
        use std::io::{Error, ErrorKind};
        let io = |kind, msg: &str| describe(&ureq::Error::Io(Error::new(kind, msg.to_string())));
        let dns = io(
            ErrorKind::Other,
            "failed to lookup address information: Name or service not known",
        );
        assert!(dns.starts_with("host not found ("), "{dns}");
        assert!(dns.contains("Name or service not known"), "{dns}");
        assert_eq!(
            io(ErrorKind::ConnectionRefused, "os error 111"),
            "connection refused"
        );
        assert_eq!(io(ErrorKind::TimedOut, "x"), "timed out");
        assert_eq!(io(ErrorKind::Other, "odd"), "i/o error: odd");
        assert_eq!(describe(&ureq::Error::HostNotFound), "host not found");
    }

    /// A permit is for one URL: the shell refuses to spend it on another,
    /// even on the same host, before anything reaches the network (the
    /// `.invalid` hosts could not be resolved anyway).
    #[test]
    fn a_permit_covers_exactly_the_url_it_was_minted_for() {
        let http = Http::new(&Config::new(std::env::temp_dir())).unwrap();
        let mut gate = Gate::new(GateConfig {
            operator_base: "https://op.invalid".to_string(),
            ..GateConfig::default()
        });
        gate.blocklist_failed(Timestamp(0));
        let req = Request {
            accept: None,
            validators: None,
            limit: BodyLimit::Truncate(1024),
        };
        let hop = gate
            .admit_robots_hop("https://cdn.invalid/a/robots.txt", Timestamp(0))
            .unwrap();
        for other in [
            "https://cdn.invalid/a/robots.txt?x",
            "https://cdn.invalid/private",
            "https://elsewhere.invalid/a/robots.txt",
        ] {
            assert!(matches!(
                http.send(&hop, other, &req),
                Err(HttpError::NotPermitted { .. })
            ));
        }
        let op = gate
            .admit_operator(
                "https://op.invalid/.well-known/walsh-research/blocklist.json",
                Timestamp(0),
            )
            .unwrap();
        assert!(matches!(
            http.send(
                &op,
                "https://op.invalid/.well-known/walsh-research/x.json",
                &req
            ),
            Err(HttpError::NotPermitted { .. })
        ));
    }
}
