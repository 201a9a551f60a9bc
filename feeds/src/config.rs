//! Pipeline configuration: where state lives, where the operator is, how
//! hosts are reached, and the limits.

use crate::clock::{Clock, SystemClock};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// Feeds and pages larger than this (after decompression) fail with
/// "too large".
pub const DEFAULT_MAX_BODY: u64 = 10 * 1024 * 1024;
/// The longest single wait a run sleeps through before it defers the
/// source to a later run instead.
pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(300);
/// Name of the SQLite file inside the state directory.
pub const DB_FILE: &str = "wr-feeds.sqlite3";

/// Connect, answer and whole-request timeouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// TCP + TLS connect.
    pub connect: Duration,
    /// From the request sent to the first octet of the answer: a server
    /// that accepts and never answers is given up on after this, not after
    /// the whole-request timeout.
    pub answer: Duration,
    /// The whole request, headers and body (a server that drips its body
    /// is cut off here).
    pub request: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            answer: Duration::from_secs(15),
            request: Duration::from_secs(30),
        }
    }
}

/// R13 identity appended to operator compliance URLs at transmission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// `impl`: `{org}/{repo}`.
    pub implementation: String,
    /// `sha`: short commit (or `dev`).
    pub sha: String,
    /// `spec`: the spec version targeted.
    pub spec: String,
}

impl Identity {
    /// From `GITHUB_REPOSITORY` / `GITHUB_SHA` when set, else
    /// `walsh-research/wr-feeds` and `dev`; `spec` is [`wr_core::constants::SPEC_VERSION`].
    pub fn detect() -> Identity {
        let implementation = std::env::var("GITHUB_REPOSITORY")
            .ok()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "walsh-research/wr-feeds".to_string());
        let sha = std::env::var("GITHUB_SHA")
            .ok()
            .filter(|s| !s.is_empty())
            .map(|s| s.chars().take(7).collect())
            .unwrap_or_else(|| "dev".to_string());
        Identity {
            implementation,
            sha,
            spec: wr_core::constants::SPEC_VERSION.to_string(),
        }
    }
}

/// curl's `--connect-to HOST1:PORT1:HOST2:PORT2`: connections for
/// `host1:port1` go to `host2:port2`; the Host header, SNI and certificate
/// check still use `host1`. An empty HOST1 or PORT1 matches any; an empty
/// HOST2 or PORT2 keeps the original. IPv6 literals go in brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectTo {
    /// Host to match (lower case), `None` = any.
    pub from_host: Option<String>,
    /// Port to match, `None` = any.
    pub from_port: Option<u16>,
    /// Host to connect to, `None` = the original host.
    pub to_host: Option<String>,
    /// Port to connect to, `None` = the original port.
    pub to_port: Option<u16>,
}

impl ConnectTo {
    /// `host1:port1` → `host2:port2`.
    pub fn new(from_host: &str, from_port: u16, to_host: &str, to_port: u16) -> ConnectTo {
        ConnectTo {
            from_host: Some(from_host.to_ascii_lowercase()),
            from_port: Some(from_port),
            to_host: Some(to_host.to_string()),
            to_port: Some(to_port),
        }
    }

    /// Where a connection for `host:port` goes, if this rule applies.
    pub fn apply(&self, host: &str, port: u16) -> Option<(String, u16)> {
        let host_ok = self
            .from_host
            .as_deref()
            .is_none_or(|h| h.eq_ignore_ascii_case(wr_core::domain::strip_trailing_dots(host)));
        let port_ok = self.from_port.is_none_or(|p| p == port);
        (host_ok && port_ok).then(|| {
            (
                self.to_host.clone().unwrap_or_else(|| host.to_string()),
                self.to_port.unwrap_or(port),
            )
        })
    }
}

fn split_field(s: &str) -> Option<(&str, &str)> {
    if let Some(rest) = s.strip_prefix('[') {
        let end = rest.find(']')?;
        let after = &rest[end + 1..];
        let after = after.strip_prefix(':')?;
        Some((&s[..end + 2], after))
    } else {
        s.split_once(':')
    }
}

impl FromStr for ConnectTo {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| ConfigError::ConnectTo {
            value: s.to_string(),
            reason: why.to_string(),
        };
        let (h1, rest) = split_field(s).ok_or_else(|| bad("expected HOST1:PORT1:HOST2:PORT2"))?;
        let (p1, rest) = rest
            .split_once(':')
            .ok_or_else(|| bad("expected HOST1:PORT1:HOST2:PORT2"))?;
        let (h2, p2) = split_field(rest).ok_or_else(|| bad("expected HOST1:PORT1:HOST2:PORT2"))?;
        let port = |p: &str| -> Result<Option<u16>, ConfigError> {
            if p.is_empty() {
                Ok(None)
            } else {
                p.parse::<u16>()
                    .map(Some)
                    .map_err(|_| bad(&format!("bad port {p:?}")))
            }
        };
        let host = |h: &str| -> Option<String> {
            (!h.is_empty()).then(|| h.trim_start_matches('[').trim_end_matches(']').to_string())
        };
        Ok(ConnectTo {
            from_host: host(h1).map(|h| h.to_ascii_lowercase()),
            from_port: port(p1)?,
            to_host: host(h2),
            to_port: port(p2)?,
        })
    }
}

/// Everything the pipeline needs to know before it opens.
#[derive(Clone)]
pub struct Config {
    /// Directory holding the SQLite state (created if missing).
    pub state_dir: PathBuf,
    /// Operator base URL (section 5), without a trailing slash.
    pub operator_base: String,
    /// `--connect-to` rules, first match wins.
    pub connect_to: Vec<ConnectTo>,
    /// Connect and whole-request timeouts.
    pub timeouts: Timeouts,
    /// Size limit of a feed, page or operator document after decompression.
    pub max_body: u64,
    /// A wait longer than this defers the source instead of sleeping.
    pub max_wait: Duration,
    /// How long opening the pipeline waits for another process using the
    /// same state directory (see [`crate::lock`]).
    pub lock_wait: crate::lock::LockWait,
    /// R13 tags; `None` sends no tags.
    pub identity: Option<Identity>,
    /// DER certificates trusted *instead of* the bundled Mozilla roots
    /// (webpki-roots). `None` = the Mozilla roots.
    pub tls_roots: Option<Vec<Vec<u8>>>,
    /// The clock.
    pub clock: Arc<dyn Clock>,
    /// Jitter seed; `None` seeds from the clock.
    pub rng_seed: Option<u64>,
    /// R5 schedule (section 6 defaults; tests shorten it).
    pub backoff: wr_core::backoff::Backoff,
    /// Send requests through the proxy named by `ALL_PROXY`, `HTTPS_PROXY`
    /// or `HTTP_PROXY` (minus `NO_PROXY`), as ureq does by default. `false`
    /// connects directly: the loopback run of `attest` must reach its own
    /// replica whatever the environment says.
    pub use_env_proxy: bool,
    /// The fleet coordinator (`redis://host:port/db`, see
    /// [`crate::fleet`]): several processes or machines share one
    /// politeness budget per host. `None`: the state directory's lock and
    /// store alone, as before.
    pub coordinator: Option<String>,
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("state_dir", &self.state_dir)
            .field("operator_base", &self.operator_base)
            .field("connect_to", &self.connect_to)
            .field("timeouts", &self.timeouts)
            .field("max_body", &self.max_body)
            .field("max_wait", &self.max_wait)
            .field("identity", &self.identity)
            .field("tls_roots", &self.tls_roots.as_ref().map(|r| r.len()))
            .field("use_env_proxy", &self.use_env_proxy)
            .field(
                "coordinator",
                &self.coordinator.as_deref().map(crate::fleet::redacted),
            )
            .finish_non_exhaustive()
    }
}

impl Config {
    /// Defaults for `state_dir`; everything else at its default.
    pub fn new(state_dir: impl Into<PathBuf>) -> Config {
        Config {
            state_dir: state_dir.into(),
            operator_base: wr_core::constants::OPERATOR_BASE.to_string(),
            connect_to: Vec::new(),
            timeouts: Timeouts::default(),
            max_body: DEFAULT_MAX_BODY,
            max_wait: DEFAULT_MAX_WAIT,
            lock_wait: crate::lock::LockWait {
                stall: DEFAULT_LOCK_STALL,
                most: DEFAULT_LOCK_WAIT,
                report_every: Duration::from_secs(60),
            },
            identity: Some(Identity::detect()),
            tls_roots: None,
            clock: Arc::new(SystemClock::new()),
            rng_seed: None,
            backoff: wr_core::backoff::Backoff::default(),
            use_env_proxy: true,
            coordinator: None,
        }
    }

    /// Defaults plus the environment: `WR_STATE_DIR`, `WR_OPERATOR_BASE`,
    /// `WR_COORDINATOR`.
    pub fn from_env() -> Result<Config, ConfigError> {
        let dir = match std::env::var_os("WR_STATE_DIR").filter(|v| !v.is_empty()) {
            Some(d) => PathBuf::from(d),
            None => default_state_dir()?,
        };
        let mut cfg = Config::new(dir);
        if let Some(base) = std::env::var("WR_OPERATOR_BASE")
            .ok()
            .filter(|v| !v.is_empty())
        {
            cfg.set_operator_base(&base)?;
        }
        cfg.coordinator = std::env::var("WR_COORDINATOR")
            .ok()
            .filter(|v| !v.is_empty());
        Ok(cfg)
    }

    /// Validates and sets the operator base: an http(s) origin (scheme,
    /// host, optional port; a trailing `/` is accepted). A path, query,
    /// fragment or userinfo is refused: the gate exempts the section 5
    /// resources on that origin from R3 and R2, and matches it as an
    /// origin, so anything more would be either ignored or a way around
    /// the gate.
    pub fn set_operator_base(&mut self, base: &str) -> Result<(), ConfigError> {
        let parsed = url::Url::parse(base).map_err(|e| ConfigError::OperatorBase {
            value: base.to_string(),
            reason: e.to_string(),
        })?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(ConfigError::OperatorBase {
                value: base.to_string(),
                reason: "expected an http(s) URL".to_string(),
            });
        }
        let extra = if parsed.path() != "/" {
            Some("a path")
        } else if parsed.query().is_some() {
            Some("a query")
        } else if parsed.fragment().is_some() {
            Some("a fragment")
        } else if !parsed.username().is_empty() || parsed.password().is_some() {
            Some("userinfo")
        } else {
            None
        };
        if let Some(extra) = extra {
            return Err(ConfigError::OperatorBase {
                value: base.to_string(),
                reason: format!(
                    "expected an origin such as https://wal.sh (scheme, host and port only), not a URL with {extra}"
                ),
            });
        }
        self.operator_base = parsed.origin().ascii_serialization();
        Ok(())
    }
}

/// The most a run waits in all for another that holds the state
/// directory and keeps making progress ([`crate::lock::LockWait::most`]):
/// runs of a daily digest are not worth stacking for longer than a day.
/// A fixed 30 minutes was shorter than an honest run (1,000 sources at
/// Crawl-delay 2 take 33.5 minutes; issue #20).
pub const DEFAULT_LOCK_WAIT: Duration = Duration::from_secs(24 * 3600);

/// How long a waiting run bears the holder's silence
/// ([`crate::lock::LockWait::stall`]): twice the longest a working run
/// goes without a step ([`DEFAULT_MAX_WAIT`], or one request's timeout).
pub const DEFAULT_LOCK_STALL: Duration = Duration::from_secs(600);

/// `$XDG_STATE_HOME/wr-feeds`, else `$HOME/.local/state/wr-feeds`.
pub fn default_state_dir() -> Result<PathBuf, ConfigError> {
    if let Some(x) = std::env::var_os("XDG_STATE_HOME").filter(|v| !v.is_empty()) {
        let p = PathBuf::from(x);
        if p.is_absolute() {
            return Ok(p.join("wr-feeds"));
        }
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(h) => Ok(PathBuf::from(h).join(".local/state/wr-feeds")),
        None => Err(ConfigError::NoStateDir),
    }
}

/// A configuration value that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A `--connect-to` value.
    #[error("bad --connect-to {value:?}: {reason}")]
    ConnectTo {
        /// As given.
        value: String,
        /// Why.
        reason: String,
    },
    /// `WR_OPERATOR_BASE`.
    #[error("bad operator base URL {value:?}: {reason}")]
    OperatorBase {
        /// As given.
        value: String,
        /// Why.
        reason: String,
    },
    /// Neither `WR_STATE_DIR`, `XDG_STATE_HOME` nor `HOME` is set.
    #[error("no state directory: set WR_STATE_DIR (or --state-dir), XDG_STATE_HOME or HOME")]
    NoStateDir,
}

#[cfg(test)]
mod operator_base_tests {
    use super::*;

    #[test]
    fn the_operator_base_is_an_origin() {
        let mut c = Config::new("/nonexistent");
        for (base, want) in [
            ("https://wal.sh", "https://wal.sh"),
            ("https://wal.sh/", "https://wal.sh"),
            ("HTTPS://Wal.SH:443/", "https://wal.sh"),
            ("http://mirror.test:8080", "http://mirror.test:8080"),
        ] {
            c.set_operator_base(base).unwrap();
            assert_eq!(c.operator_base, want, "{base}");
        }
        for base in [
            "https://blocked.example/#",
            "https://blocked.example/?",
            "https://blocked.example/wr",
            "https://user@blocked.example",
            "ftp://wal.sh",
            "wal.sh",
        ] {
            let e = c.set_operator_base(base).unwrap_err().to_string();
            assert!(e.contains(base), "{e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_to_parses_curl_syntax() {
        let c: ConnectTo = "wal.sh:443:127.0.0.1:8443".parse().unwrap();
        assert_eq!(c, ConnectTo::new("wal.sh", 443, "127.0.0.1", 8443));
        assert_eq!(c.apply("WAL.sh", 443), Some(("127.0.0.1".into(), 8443)));
        assert_eq!(c.apply("wal.sh", 80), None);
        let any: ConnectTo = "::127.0.0.1:9000".parse().unwrap();
        assert_eq!(any.apply("x.test", 80), Some(("127.0.0.1".into(), 9000)));
        let v6: ConnectTo = "[::1]:80:[::1]:81".parse().unwrap();
        assert_eq!(v6.from_host.as_deref(), Some("::1"));
        assert_eq!(v6.to_port, Some(81));
        assert!("wal.sh:x:a:1".parse::<ConnectTo>().is_err());
        assert!("nonsense".parse::<ConnectTo>().is_err());
    }
}
