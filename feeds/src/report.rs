//! What a run, a check or a gated fetch reports back, and the progress
//! callbacks.

use crate::extract::clean_message;
use crate::item::Item;
use crate::words::words;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;
use wr_core::outcome::{BlocklistCause, Deferral, LeftOut, SourceFailure};
use wr_core::time::Timestamp;

/// What a deferred, left out or failed source (or a blocklist that could
/// not be had) is, as data: the value wr-core decided, kept whole so the
/// store can keep it typed and the presenter ([`crate::words`]) can word
/// it. The only outcome that did not come from a machine is a deferral
/// for want of the fleet's slot, which the driver decides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Why {
    /// Not this run.
    Deferred {
        /// The URL held back (none when the run held it back).
        url: Option<String>,
        /// Why.
        why: Deferral,
    },
    /// R9 found nothing to read.
    LeftOut(LeftOut),
    /// The transfer or the document failed.
    Failed(SourceFailure),
    /// The blocklist could not be had.
    Blocklist(BlocklistCause),
}

impl crate::words::Present for Why {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::words::Words;
        match self {
            Why::Deferred { url: Some(u), why } => write!(f, "{u}: {}", Words(why)),
            Why::Deferred { url: None, why } => why.present(f),
            Why::LeftOut(l) => l.present(f),
            Why::Failed(x) => x.present(f),
            Why::Blocklist(c) => c.present(f),
        }
    }
}

/// A [`Why`] with its words, written once by the presenter and cleaned
/// for a terminal, a file and JSON ([`clean_message`]). It reads as the
/// words (`Deref<Target = str>`, `Display`); it is stored and compared as
/// the value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Why", into = "Why")]
pub struct Reason {
    why: Why,
    text: String,
}

impl Reason {
    /// The reason `why` is, with its words.
    pub fn new(why: Why) -> Reason {
        let text = clean_message(&words(&why));
        Reason { why, text }
    }

    /// The outcome as data.
    pub fn why(&self) -> &Why {
        &self.why
    }
}

impl From<Why> for Reason {
    fn from(why: Why) -> Reason {
        Reason::new(why)
    }
}

impl From<Reason> for Why {
    fn from(r: Reason) -> Why {
        r.why
    }
}

impl std::ops::Deref for Reason {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// How a source's items were obtained (R9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// RSS / Atom / JSON Feed (declared, or served for the page).
    Feed,
    /// The page answered `Accept: text/markdown` with markdown.
    Markdown,
    /// `/llms.txt` at the host root.
    LlmsTxt,
}

impl Method {
    /// Stable name (`feed`, `markdown`, `llms-txt`).
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Feed => "feed",
            Method::Markdown => "markdown",
            Method::LlmsTxt => "llms-txt",
        }
    }
}

/// The outcome of one source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum SourceStatus {
    /// Fetched (or 304: `not_modified`, no new data).
    Ok {
        /// The server answered 304 (R7).
        not_modified: bool,
    },
    /// R8: the source ran less than an hour ago, or its publisher asked
    /// for a longer pause (issue #23); not fetched (use `force`).
    Skipped {
        /// When it last ran (Unix ms).
        last_run: u64,
        /// The earliest next fetch (Unix ms).
        until: u64,
        /// What set it: R8's hour, or a publisher hint.
        by: wr_core::hints::Hint,
    },
    /// R3: the host (or a redirect target) is on the operator blocklist.
    DeniedBlocklist {
        /// The URL refused.
        url: String,
        /// The listed domain.
        domain: String,
    },
    /// R2: robots.txt disallows the URL (or a redirect target).
    DeniedRobots {
        /// The URL refused.
        url: String,
        /// The rule, e.g. `Disallow: /private`.
        rule: String,
        /// Its line in robots.txt.
        line: u32,
    },
    /// Not this run: robots.txt unreachable with nothing cached, a
    /// Retry-After or cool-down longer than the run may wait.
    Deferred {
        /// Why.
        reason: Reason,
        /// Not before (Unix ms), when known.
        until: Option<u64>,
    },
    /// No feed, no markdown, no llms.txt: left out, never scraped (R9).
    LeftOut {
        /// What was tried.
        reason: Reason,
    },
    /// The transfer or the document failed (after R5 retries).
    Failed {
        /// Why, naming the URL.
        reason: Reason,
    },
}

impl SourceStatus {
    /// The status with every text made safe for a terminal, a file and
    /// JSON ([`clean_message`]): reasons quote parsers' errors about feed
    /// bytes, rules come from robots.txt, URLs from Location headers.
    pub fn cleaned(self) -> SourceStatus {
        let c = |s: String| clean_message(&s);
        match self {
            SourceStatus::DeniedBlocklist { url, domain } => SourceStatus::DeniedBlocklist {
                url: c(url),
                domain: c(domain),
            },
            SourceStatus::DeniedRobots { url, rule, line } => SourceStatus::DeniedRobots {
                url: c(url),
                rule: c(rule),
                line,
            },
            // A reason's words are cleaned when they are written.
            other @ (SourceStatus::Ok { .. }
            | SourceStatus::Skipped { .. }
            | SourceStatus::Deferred { .. }
            | SourceStatus::LeftOut { .. }
            | SourceStatus::Failed { .. }) => other,
        }
    }

    /// Whether this status should make the run's exit status 1 (failed or
    /// deferred). Denials, "left out" and R8 skips are expected outcomes.
    pub fn is_problem(&self) -> bool {
        matches!(
            self,
            SourceStatus::Failed { .. } | SourceStatus::Deferred { .. }
        )
    }
    /// A short label: `ok`, `not-modified`, `skipped`, `denied-r3`,
    /// `denied-r2`, `deferred`, `left-out`, `failed`.
    pub fn label(&self) -> &'static str {
        match self {
            SourceStatus::Ok {
                not_modified: false,
            } => "ok",
            SourceStatus::Ok { not_modified: true } => "not-modified",
            SourceStatus::Skipped { .. } => "skipped",
            SourceStatus::DeniedBlocklist { .. } => "denied-r3",
            SourceStatus::DeniedRobots { .. } => "denied-r2",
            SourceStatus::Deferred { .. } => "deferred",
            SourceStatus::LeftOut { .. } => "left-out",
            SourceStatus::Failed { .. } => "failed",
        }
    }
}

/// A denial's facts (R3 or R2), borrowed from the [`SourceStatus`] that
/// carries them: what the digest says of a denied source is written from
/// these, never cut out of the status's own sentence (issue #21).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Denial<'a> {
    /// R3: the URL's host (or a redirect target's) is on the operator
    /// blocklist.
    Blocklist {
        /// The URL refused.
        url: &'a str,
        /// The listed domain.
        domain: &'a str,
    },
    /// R2: robots.txt disallows the URL.
    Robots {
        /// The URL refused.
        url: &'a str,
        /// The rule, e.g. `Disallow: /private`.
        rule: &'a str,
        /// Its line in robots.txt.
        line: u32,
    },
}

impl SourceStatus {
    /// The denial this status is, if it is one.
    pub fn denial(&self) -> Option<Denial<'_>> {
        match self {
            SourceStatus::DeniedBlocklist { url, domain } => {
                Some(Denial::Blocklist { url, domain })
            }
            SourceStatus::DeniedRobots { url, rule, line } => Some(Denial::Robots {
                url,
                rule,
                line: *line,
            }),
            _ => None,
        }
    }
}

/// One source's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceReport {
    /// The source's name.
    pub name: String,
    /// Its identity in the state store ([`crate::Source::key`]): the
    /// canonical URL of its feed, else of its page.
    pub key: String,
    /// What happened.
    pub status: SourceStatus,
    /// Items first seen in this run, or every item currently offered with
    /// `RunOptions::all`, in the source's order.
    pub items: Vec<Item>,
    /// How the items were obtained.
    pub method: Option<Method>,
    /// The final URL the items came from (after redirects).
    pub fetched_url: Option<String>,
    /// What an `ok` source's reading has to say (cleaned): `read after
    /// repairs: ...` for an ill-formed feed read leniently, `zero entries:
    /// ...` for a feed that lists nothing, `no item: ...` when no entry
    /// has an http(s) link. Empty otherwise.
    pub notes: Vec<String>,
}

/// Where the blocklist in force came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum BlocklistState {
    /// Fetched and validated during this run.
    Fresh {
        /// Number of listed domains.
        entries: usize,
    },
    /// A cached, still fresh copy (from the store).
    Cached {
        /// Number of listed domains.
        entries: usize,
    },
    /// The refresh failed; the last adopted list stays in force (R3b, R3c).
    Retained {
        /// Number of listed domains.
        entries: usize,
        /// Why the refresh failed.
        reason: Reason,
    },
    /// The first-ever fetch failed: an empty list is used and nothing is
    /// protected. Report this loudly.
    Fallback {
        /// Why.
        reason: Reason,
    },
    /// No list was ever adopted and none could be asked for (the operator
    /// host is held, or the stored copy cannot be read): targets are
    /// deferred rather than fetched unprotected (R3).
    Unavailable {
        /// Why.
        reason: Reason,
    },
    /// Not needed yet (nothing was gated).
    Unknown,
}

/// The result of [`crate::Pipeline::run`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunReport {
    /// Run start (Unix ms).
    pub started_at: u64,
    /// Run end (Unix ms).
    pub finished_at: u64,
    /// The blocklist in force at the end of the run.
    pub blocklist: BlocklistState,
    /// One report per source, in input order.
    pub sources: Vec<SourceReport>,
    /// Things a user should see (a stale schema used, a fail-open blocklist).
    pub notices: Vec<String>,
    /// HTTP requests sent.
    pub requests: u32,
}

impl RunReport {
    /// Whether any source failed or was deferred (exit status 1).
    pub fn has_problems(&self) -> bool {
        self.sources.iter().any(|s| s.status.is_problem())
    }
}

/// The gate's answer for [`crate::Pipeline::check`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum CheckReport {
    /// The URL would be fetched.
    Allowed {
        /// The URL.
        url: String,
        /// How long the request would wait for its host's slot (ms).
        wait_ms: u64,
        /// R4 spacing for the host (ms).
        spacing_ms: u64,
        /// The robots.txt rule that decided, if one matched (e.g. `Allow: /a`).
        rule: Option<String>,
        /// Its line.
        line: Option<u32>,
    },
    /// R3.
    DeniedBlocklist {
        /// The URL.
        url: String,
        /// The listed domain.
        domain: String,
        /// Its reason.
        reason: String,
    },
    /// R2.
    DeniedRobots {
        /// The URL.
        url: String,
        /// The rule.
        rule: String,
        /// Its line.
        line: u32,
    },
    /// robots.txt unreachable and nothing cached.
    Deferred {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// Not an absolute http(s) URL.
    Invalid {
        /// As given.
        url: String,
        /// Why.
        reason: String,
    },
}

impl CheckReport {
    /// The report with every text made safe for a terminal, a file and
    /// JSON (see [`SourceStatus::cleaned`]).
    pub fn cleaned(self) -> CheckReport {
        let c = |s: String| clean_message(&s);
        match self {
            CheckReport::Allowed {
                url,
                wait_ms,
                spacing_ms,
                rule,
                line,
            } => CheckReport::Allowed {
                url: c(url),
                wait_ms,
                spacing_ms,
                rule: rule.map(c),
                line,
            },
            CheckReport::DeniedBlocklist {
                url,
                domain,
                reason,
            } => CheckReport::DeniedBlocklist {
                url: c(url),
                domain: c(domain),
                reason: c(reason),
            },
            CheckReport::DeniedRobots { url, rule, line } => CheckReport::DeniedRobots {
                url: c(url),
                rule: c(rule),
                line,
            },
            CheckReport::Deferred { url, reason } => CheckReport::Deferred {
                url: c(url),
                reason: c(reason),
            },
            CheckReport::Invalid { url, reason } => CheckReport::Invalid {
                url: c(url),
                reason: c(reason),
            },
        }
    }
}

/// A gated fetch's response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The URL requested first.
    pub url: String,
    /// The URL that answered (after redirects), untagged.
    pub final_url: String,
    /// HTTP status (2xx, 304, or a final 4xx).
    pub status: u16,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// The body (at most `max_body` bytes).
    pub body: Vec<u8>,
}

/// Why a gated fetch produced no response.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// R3 refused `url`.
    #[error("{url}: denied by the operator blocklist (R3): {domain}")]
    DeniedBlocklist {
        /// The URL refused (maybe a redirect target).
        url: String,
        /// The listed domain.
        domain: String,
    },
    /// R2 refused `url`.
    #[error("{url}: denied by robots.txt (R2): {rule} (line {line})")]
    DeniedRobots {
        /// The URL refused.
        url: String,
        /// The rule.
        rule: String,
        /// Its line.
        line: u32,
    },
    /// Not now (robots.txt unreachable, long Retry-After, cool-down).
    #[error("{url}: deferred: {reason}")]
    Deferred {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// The URL is not an absolute http(s) URL.
    #[error("{url}: invalid URL: {reason}")]
    Invalid {
        /// As given.
        url: String,
        /// Why.
        reason: String,
    },
    /// Transport error, too large, too many redirects, retries exhausted.
    #[error("{url}: {reason}")]
    Failed {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
}

/// Something the user may want to see while a run is long.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// A source starts (index into the sources slice).
    SourceStarted {
        /// Source name.
        name: &'a str,
    },
    /// A request is about to be sent (untagged URL).
    Request {
        /// The URL.
        url: &'a str,
    },
    /// A response arrived.
    Response {
        /// The URL.
        url: &'a str,
        /// HTTP status, 0 for a transport error.
        status: u16,
    },
    /// Nothing is ready: the run sleeps.
    Waiting {
        /// How long.
        duration: Duration,
        /// Until (Unix ms).
        until: Timestamp,
    },
    /// A source finished.
    SourceDone {
        /// Name.
        name: &'a str,
        /// Outcome.
        status: &'a SourceStatus,
    },
    /// A message for the user (also collected in `RunReport::notices`).
    Notice(&'a str),
}

/// Progress callbacks.
pub trait Progress {
    /// Called for every [`Event`].
    fn event(&mut self, event: Event<'_>);
}

/// Ignores progress.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn event(&mut self, _event: Event<'_>) {}
}

impl<F: FnMut(Event<'_>)> Progress for F {
    fn event(&mut self, event: Event<'_>) {
        self(event)
    }
}

/// A usage-preference line of an origin's robots.txt (`Content-Signal`,
/// `Content-Usage`, `License`; see `wr_core::robots::signals`): what the
/// publisher asked of uses the bot does not make. Reported, never obeyed
/// as an access rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignalReport {
    /// The field, as robots.txt writes it (`Content-Signal`).
    pub field: &'static str,
    /// Its value, control characters removed (untrusted text).
    pub value: String,
    /// Its line in the robots.txt.
    pub line: u32,
}

impl SignalReport {
    /// The usage-preference lines of a robots.txt body.
    pub fn of_body(body: &[u8]) -> Vec<SignalReport> {
        wr_core::robots::signals::signals(body)
            .map(|s| SignalReport {
                field: s.field.as_str(),
                value: clean_message(&String::from_utf8_lossy(s.value)),
                line: s.line,
            })
            .collect()
    }
}

impl fmt::Display for SignalReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (line {})", self.field, self.value, self.line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status's sentence is `denied by` and the denial's own words,
    /// written in one place ([`Denial`]'s `Display`).
    #[test]
    fn a_denial_is_worded_once() {
        let robots = SourceStatus::DeniedRobots {
            url: "https://a.example/p".into(),
            rule: "Disallow: /p".into(),
            line: 3,
        };
        let d = robots.denial().expect("a denial");
        assert_eq!(
            d,
            Denial::Robots {
                url: "https://a.example/p",
                rule: "Disallow: /p",
                line: 3
            }
        );
        assert_eq!(robots.to_string(), format!("denied by {d}"));
        assert_eq!(
            robots.to_string(),
            "denied by robots.txt (R2): https://a.example/p (Disallow: /p, line 3)"
        );
        let listed = SourceStatus::DeniedBlocklist {
            url: "https://b.example/".into(),
            domain: "b.example".into(),
        };
        assert_eq!(
            listed.to_string(),
            "denied by the operator blocklist (R3): https://b.example/ (b.example is listed)"
        );
        assert_eq!(
            SourceStatus::Ok {
                not_modified: false
            }
            .denial(),
            None
        );
    }

    #[test]
    fn a_skip_stores_its_hint_by_key_and_reads_the_words_an_older_row_holds() {
        use wr_core::hints::Hint;
        let skip = SourceStatus::Skipped {
            last_run: 1,
            until: 2,
            by: Hint::Ttl,
        };
        let json = serde_json::to_string(&skip).unwrap();
        assert!(json.contains(r#""by":"ttl""#), "{json}");
        assert_eq!(serde_json::from_str::<SourceStatus>(&json).unwrap(), skip);
        // Written by the release before: the words shown, not the key.
        for (words, hint) in [
            ("R8 (one fetch per hour)", Hint::R8),
            ("RSS ttl", Hint::Ttl),
            ("Cache-Control max-age", Hint::MaxAge),
            ("a week (a publisher hint asked for longer)", Hint::Cap),
        ] {
            let old = format!(r#"{{"status":"skipped","last_run":1,"until":2,"by":"{words}"}}"#);
            let read: SourceStatus = serde_json::from_str(&old).unwrap();
            assert_eq!(
                read,
                SourceStatus::Skipped {
                    last_run: 1,
                    until: 2,
                    by: hint
                },
                "{old}"
            );
        }
        assert!(serde_json::from_str::<SourceStatus>(
            r#"{"status":"skipped","last_run":1,"until":2,"by":"a sentence"}"#
        )
        .is_err());
    }
}
