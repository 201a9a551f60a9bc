//! The outcome vocabulary: every denial, deferral, hold, skip and failure
//! of a fetch as a value carrying its facts, never as a sentence.
//!
//! Why data and not words (issue #21): an outcome travels from the machine
//! that decided it through the driver, the store and the digest. When it
//! travelled as English, every layer formatted it again, prefixes were
//! stripped and labels read back from text. Here each outcome is an enum
//! whose fields are the facts a reader needs (the URL, the rule and its
//! line, the host, the instant, the status, the kind of cause); wr-core
//! writes no words for them. The one presenter, `wr_feeds::words`, writes
//! people's words from these values, and the store keeps them as typed
//! JSON (the `serde` feature), so a digest written again from the store
//! reads exactly as the day it was written.
//!
//! The only text in these values is text the bot did not write: a
//! transport's own error words, an extractor's or a schema validator's
//! message, a robots.txt rule, a Content-Type. All of it is untrusted and
//! cleaned by the presenter before it is shown.

use crate::fetch::FailureKind;
use crate::gate::{HostKey, WaitReason};
use crate::time::Timestamp;
use crate::url::UrlError;
use alloc::boxed::Box;
use alloc::string::String;
use core::time::Duration;

#[cfg(feature = "serde")]
use serde::{Deserialize, Serialize};

/// Why one request (or its chain of redirects and retries) ended without
/// the answer it wanted.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "cause", rename_all = "kebab-case"))]
pub enum Cause {
    /// A final status that is not usable here (not retried, or R9 cannot
    /// use it).
    Status {
        /// The HTTP status.
        status: u16,
    },
    /// A redirect without a usable `Location`.
    NoLocation {
        /// The 3xx status.
        status: u16,
    },
    /// A redirect to a URL that is not http(s).
    NotWebRedirect {
        /// The `Location`, resolved.
        location: String,
    },
    /// More than [`crate::fetch::MAX_REDIRECTS`] hops.
    TooManyRedirects,
    /// The request got no response.
    Transport {
        /// What kind of failure (it decides; the words only explain).
        kind: FailureKind,
        /// The transport's own words (untrusted).
        detail: String,
    },
    /// R5's retries ran out: the host is left alone for a while.
    RetriesExhausted {
        /// The last attempt's cause (a status or a transport failure).
        last: Box<Cause>,
        /// Retries made.
        retries: u32,
        /// The host left alone.
        host: HostKey,
        /// For how many minutes (the cool-down, or a longer Retry-After).
        alone_min: u64,
    },
}

/// Why robots.txt could not be read (section 9.1.1's "unreachable"): kept
/// by the gate with the deferral, and told to the reader when a cached
/// copy stands in.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "unreachable", rename_all = "kebab-case")
)]
pub enum Unreachable {
    /// The robots.txt URL (or a hop) answered this.
    Answered {
        /// The URL asked.
        url: String,
        /// Why it is no answer.
        cause: Cause,
    },
    /// A redirect without a usable `Location`, or to a non-web URL.
    BadRedirect {
        /// The URL that redirected.
        url: String,
    },
    /// The request got no response (the transport's words, no URL: they
    /// name it).
    Transport {
        /// Kind.
        kind: FailureKind,
        /// The transport's words.
        detail: String,
    },
    /// A redirect to a host on the operator blocklist.
    RedirectBlocked {
        /// The hop refused.
        url: String,
        /// The listed domain.
        domain: String,
    },
    /// The gate refused the request for another reason.
    Refused {
        /// The URL.
        url: String,
        /// The gate's refusal.
        refusal: Refusal,
    },
}

/// A gate refusal that is neither a denial nor a wait, owned.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "refusal", rename_all = "kebab-case"))]
pub enum Refusal {
    /// Not an absolute http(s) URL.
    Invalid {
        /// What is wrong with it.
        error: InvalidUrl,
    },
    /// Not one of the operator's section 5 resources.
    NotOperatorResource,
    /// R3: on the operator blocklist.
    DenyBlocklist {
        /// The listed domain.
        domain: String,
    },
    /// R2: disallowed.
    DenyRobots {
        /// What in robots.txt denied.
        denial: RobotsDenial,
    },
    /// The blocklist is needed first.
    NeedBlocklist,
    /// No blocklist can be had.
    BlocklistUnavailable {
        /// Why.
        cause: Box<BlocklistCause>,
    },
    /// A robots.txt is needed first.
    NeedRobots {
        /// Its URL.
        url: String,
    },
    /// robots.txt unreachable.
    Deferred {
        /// Why.
        why: Box<Unreachable>,
    },
    /// Not before an instant.
    Wait {
        /// Not before.
        until: Timestamp,
        /// Why.
        reason: WaitReason,
    },
    /// Nothing refused (asked again).
    Ready,
}

/// What is wrong with a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum InvalidUrl {
    /// It does not parse as an absolute http(s) URL.
    Url(UrlError),
    /// It is not one of the operator's section 5 resources.
    NotOperatorResource,
}

/// Why the operator blocklist was not obtained (R3, R3b).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "blocklist", rename_all = "kebab-case"))]
pub enum BlocklistCause {
    /// Never asked: the operator host is held past the run's patience.
    Held {
        /// The list's URL.
        url: String,
        /// Held for this many seconds from the decision.
        secs: u64,
    },
    /// The gate refused the request.
    Refused {
        /// The list's URL.
        url: String,
        /// The refusal.
        refusal: Refusal,
    },
    /// The request got no response.
    Transport {
        /// The list's URL.
        url: String,
        /// Kind.
        kind: FailureKind,
        /// The transport's words.
        detail: String,
    },
    /// An answer that is not a list.
    Status {
        /// The list's URL.
        url: String,
        /// The status.
        status: u16,
    },
    /// A 304 with no stored list to confirm.
    NotModifiedWithoutList {
        /// The list's URL.
        url: String,
    },
    /// The document failed validation (R3c, R10).
    Invalid {
        /// The list's URL.
        url: String,
        /// The validator's words.
        detail: String,
    },
    /// The run's bound on blocklist requests is reached.
    NotAskedAgain {
        /// The list's URL.
        url: String,
        /// Requests this run sent.
        asked: u32,
    },
    /// Any of the above, with a stored copy that cannot be read.
    StoredUnreadable {
        /// The refresh's own cause.
        cause: Box<BlocklistCause>,
    },
}

/// Why a GET (or a source) is not done in this run: it is tried again in
/// a later one (R8 does not count it).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "deferral", rename_all = "kebab-case"))]
pub enum Deferral {
    /// The robots.txt the URL needs was asked for and could not be had.
    RobotsUnobtainable {
        /// The robots.txt URL.
        robots: String,
    },
    /// The host is held past the run's patience (R4, R5).
    Held {
        /// When it was decided.
        at: Timestamp,
        /// Not before.
        until: Timestamp,
        /// Why.
        reason: WaitReason,
    },
    /// robots.txt was unreachable and nothing is cached (9.1.1).
    RobotsUnreachable {
        /// Why.
        why: Unreachable,
    },
    /// No blocklist, and none is fetched without (R3).
    BlocklistUnavailable {
        /// Why.
        cause: BlocklistCause,
    },
    /// A retry would wait longer than the run does (R5).
    RetryTooLate {
        /// The answer that asked for the retry.
        last: Cause,
        /// The wait, in seconds.
        after_s: u64,
        /// The run's patience, in seconds.
        patience_s: u64,
    },
    /// The host timed out too often in this run.
    TimedOut {
        /// The last timeout's words, when this GET met it.
        detail: Option<String>,
        /// The host.
        host: HostKey,
        /// Timeouts in this run.
        times: u32,
    },
    /// The fleet coordinator could not be reached (the driver's, R4a).
    Coordinator {
        /// The coordinator's words.
        detail: String,
    },
}

/// What in a robots.txt denied a URL (R2): the deciding rule as written,
/// its line, and the reading that denied. Facts only: the reader's words
/// for a denial are written once, by `wr_feeds::words`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct RobotsDenial {
    /// The deciding rule; `None` when no rule decided (a fixed capacity's
    /// deliberate over-block).
    pub rule: Option<DecidingRule>,
    /// The reading that denied.
    pub reading: crate::robots::Reading,
    /// The denial is an over-block because a fixed capacity was exceeded.
    pub overflow: bool,
}

/// The rule of a [`RobotsDenial`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
pub struct DecidingRule {
    /// Allow or Disallow.
    pub kind: crate::robots::RuleKind,
    /// The value as written (invalid UTF-8 replaced: it is shown, never
    /// matched again).
    pub pattern: String,
    /// Its 1-based line in robots.txt.
    pub line: u32,
}

impl RobotsDenial {
    /// The facts of a denying verdict.
    pub fn of(v: &crate::robots::Verdict<'_>) -> RobotsDenial {
        RobotsDenial {
            rule: v.rule.map(|r| DecidingRule {
                kind: r.kind,
                pattern: String::from_utf8_lossy(r.pattern).into_owned(),
                line: r.line,
            }),
            reading: v.reading,
            overflow: v.overflow,
        }
    }

    /// The deciding rule's line; 0 when no rule decided.
    pub fn line(&self) -> u32 {
        self.rule.as_ref().map_or(0, |r| r.line)
    }
}

/// R9 found nothing this bot may read: the source is left out, never
/// scraped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "left-out", rename_all = "kebab-case"))]
pub enum LeftOut {
    /// `/llms.txt` is disallowed by robots.txt.
    DeniedRobots {
        /// Its URL.
        url: String,
        /// What in robots.txt denied it.
        denial: RobotsDenial,
    },
    /// `/llms.txt` is on the operator blocklist.
    DeniedBlocklist {
        /// Its URL.
        url: String,
        /// The listed domain.
        domain: String,
    },
    /// `/llms.txt` answered HTML.
    Html {
        /// Its URL.
        url: String,
    },
    /// `/llms.txt` answered a type that is not text.
    Type {
        /// Its URL.
        url: String,
        /// The `Content-Type`, if any.
        content_type: Option<String>,
    },
    /// `/llms.txt` answered an error status.
    Status {
        /// Its URL.
        url: String,
        /// The status.
        status: u16,
    },
}

/// Why a source failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(Serialize, Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "failure", rename_all = "kebab-case"))]
pub enum SourceFailure {
    /// The GET of `url` ended without a usable answer.
    Fetch {
        /// The URL.
        url: String,
        /// Why.
        cause: Cause,
    },
    /// The URL is not one to fetch.
    Invalid {
        /// The URL.
        url: String,
        /// What is wrong with it.
        error: InvalidUrl,
    },
    /// The body could not be read.
    Unreadable {
        /// The URL that answered.
        url: String,
        /// The extractor's words.
        detail: String,
    },
    /// The declared feed answered HTML (never scraped, R9).
    FeedIsHtml {
        /// The URL.
        url: String,
    },
}

/// Something the reader should know that is no source's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// robots.txt could not be read; the cached copy stands in.
    CachedRobots {
        /// Why it could not.
        why: Unreachable,
        /// The origin.
        origin: crate::gate::Origin,
    },
    /// The blocklist's refresh was shorter than the floor (R3).
    RefreshFloored {
        /// As written.
        written: Duration,
        /// The floor.
        floor: Duration,
        /// As read.
        read: Duration,
    },
    /// No blocklist, none usable: targets are deferred (R3).
    BlocklistUnavailable {
        /// Why.
        cause: BlocklistCause,
    },
    /// The first fetch of the blocklist failed: fail open (R3b).
    BlocklistFallback {
        /// Why.
        cause: BlocklistCause,
    },
    /// A refresh failed; the last adopted list stays (R3b).
    BlocklistRetained {
        /// Why.
        cause: BlocklistCause,
        /// Its entries.
        entries: usize,
    },
}

impl From<crate::gate::Decision<'_>> for Refusal {
    fn from(d: crate::gate::Decision<'_>) -> Refusal {
        use crate::gate::Decision;
        match d {
            Decision::Invalid(e) => Refusal::Invalid {
                error: InvalidUrl::Url(e),
            },
            Decision::NotOperatorResource => Refusal::NotOperatorResource,
            Decision::DenyBlocklist(b) => Refusal::DenyBlocklist {
                domain: b.domain.clone(),
            },
            Decision::DenyRobots(v) => Refusal::DenyRobots {
                denial: RobotsDenial::of(&v),
            },
            Decision::NeedBlocklist => Refusal::NeedBlocklist,
            Decision::NeedRobots(url) => Refusal::NeedRobots { url },
            Decision::BlocklistUnavailable { reason, .. } => Refusal::BlocklistUnavailable {
                cause: Box::new(reason.clone()),
            },
            Decision::Deferred { reason, .. } => Refusal::Deferred {
                why: Box::new(reason.clone()),
            },
            Decision::Wait { until, reason } => Refusal::Wait { until, reason },
            Decision::Ready => Refusal::Ready,
        }
    }
}
