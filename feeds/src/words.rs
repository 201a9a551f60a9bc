//! The one presenter: people's words for the outcome vocabulary of
//! [`wr_core::outcome`], and for wr-core's answers that people read: a
//! robots.txt verdict and its rule, reading and variant, a gate decision,
//! the hint that set a source's next fetch. wr-core gives those as values
//! with stable keys for machines, and no words.
//!
//! Why one place (issue #21): an outcome used to be worded where it was
//! decided, then reworded, prefixed and stripped on its way to the digest,
//! so the same denial or deferral had several texts and one was read back
//! from words. Now wr-core hands the driver values with their facts, the
//! store keeps those values, and every reader (the Markdown and JSON
//! digests, `status`, `check`, `show`, stderr) gets its words here. A
//! sentence changes in this file or nowhere.
//!
//! The texts are the ones the project has always printed: the end-to-end
//! suites and the README pin them byte for byte. The untrusted text inside
//! (a transport's words, a rule, a Content-Type) is cleaned by the callers
//! that show it ([`crate::extract::clean_message`]).

use std::fmt;
use wr_core::constants::BLOCKLIST_REQUESTS_PER_RUN;
use wr_core::fetch::{FailureKind, MAX_REDIRECTS};
use wr_core::gate::WaitReason;
use wr_core::hints::Hint;
use wr_core::outcome::{
    BlocklistCause, Cause, Deferral, InvalidUrl, LeftOut, Notice, Refusal, RobotsDenial,
    SourceFailure, Unreachable,
};
use wr_core::robots::{MatchedRule, Reading, Variant, Verdict};
use wr_core::time::Timestamp;

/// An outcome value, worded for people by [`Present`].
pub struct Words<'a, T: ?Sized>(pub &'a T);

/// Writes the people's words of an outcome value.
pub trait Present {
    /// Writes them.
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl<T: Present + ?Sized> fmt::Display for Words<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.present(f)
    }
}

/// The words of `value`.
pub fn words<T: Present + ?Sized>(value: &T) -> String {
    Words(value).to_string()
}

/// An instant for people: an HTTP date, or a count of years for the holds
/// no calendar writes (a Retry-After of 2^63 ms is spec-correct: "wait at
/// least that long").
pub fn instant(t: Timestamp) -> String {
    let mut s = String::new();
    match wr_core::http_date::format_http_date(t, &mut s) {
        Ok(()) => s,
        Err(_) => format!(
            "more than {} years from the epoch",
            t.0 / (1000 * 86_400 * 365)
        ),
    }
}

/// Unix seconds as `YYYY-MM-DDTHH:MM:SSZ` (UTC): the instants of the
/// digest and of `status`.
pub fn rfc3339(unix_secs: i64) -> String {
    crate::extract::date::unix_rfc3339(unix_secs)
}

/// A reading's name, as a denial names the reading that denied.
pub fn reading(r: Reading) -> &'static str {
    match r {
        Reading::Spec => "the spec's reading",
        Reading::Rfc9309 => "RFC 9309's reading",
        Reading::Google => "Google's reading",
    }
}

/// `Disallow: /private (line 3)`: a rule as written, an octet beyond
/// UTF-8 shown as U+FFFD, and its line.
impl Present for MatchedRule<'_> {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (line {})", rule_as_written(self), self.line)
    }
}

/// The reading options of a [`Variant`], comma-separated (none for the
/// base reading).
impl Present for Variant {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const OPTIONS: [(u8, &str); 6] = [
            (Variant::UNICODE_SPACE, "Unicode spaces trimmed"),
            (Variant::WHOLE_AGENT, "User-agent values read whole"),
            (Variant::LINE_LIMIT, "lines cut at 16,663 octets"),
            (
                Variant::RESERVED_ESCAPES,
                "escapes such as %2F read as their octets",
            ),
            (
                Variant::EMPTY_AGENT,
                "an empty User-agent value a prefix of every token",
            ),
            (
                Variant::BOM_KEPT,
                "a byte-order mark read as text of the first line",
            ),
        ];
        let mut sep = "";
        for (_, words) in OPTIONS.iter().filter(|(bit, _)| self.bits() & bit != 0) {
            write!(f, "{sep}{words}")?;
            sep = ", ";
        }
        Ok(())
    }
}

/// `allowed (no rule matched)`, `disallowed by Disallow: /p (line 2) in
/// Google's reading (User-agent values read whole)`: a verdict, with the
/// reading and the variant when they are not the spec's plain one.
impl Present for Verdict<'_> {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.allowed {
            "allowed"
        } else {
            "disallowed"
        })?;
        match self.rule {
            Some(r) if self.reading != Reading::Spec => {
                write!(f, " by {} in {}", Words(&r), reading(self.reading))?;
                if !self.variant.is_base() {
                    write!(f, " ({})", Words(&self.variant))?;
                }
                Ok(())
            }
            Some(r) if !self.variant.is_base() => write!(
                f,
                " by {} in the spec's reading ({})",
                Words(&r),
                Words(&self.variant)
            ),
            Some(r) => write!(f, " by {}", Words(&r)),
            None if self.overflow => f.write_str(" (capacity exceeded: over-blocking)"),
            None => f.write_str(" (no rule matched)"),
        }
    }
}

/// `check`'s reason when what the gate needed first (the blocklist, a
/// robots.txt: [`Refusal::NeedBlocklist`], [`Refusal::NeedRobots`]) could
/// not be had in this check.
pub fn not_obtained(r: &Refusal) -> String {
    format!("{}: it could not be obtained", Words(r))
}

/// robots.txt unreachable with nothing cached (9.1.1): `check`'s reason,
/// and a deferral's words after `deferred: `.
pub fn robots_unreachable(why: &Unreachable) -> String {
    format!("robots.txt unreachable ({})", Words(why))
}

/// `check`'s reason when no blocklist could be had (R3: nothing is
/// fetched without one).
pub fn blocklist_not_obtained(cause: &BlocklistCause) -> String {
    format!(
        "the operator blocklist could not be obtained ({}); not fetching without it (R3)",
        Words(cause)
    )
}

/// `check`'s reason when the robots.txt it needed was held back.
pub fn robots_deferred(d: &wr_core::fetch::RobotsDeferral) -> String {
    format!("{}: deferred: {}", d.url, held(d.at, d.until, d.reason))
}

/// A rule as written, `Allow: /a`, an octet beyond UTF-8 shown as U+FFFD:
/// how `check` names the rule that allowed, and a verdict's rule before
/// its line.
pub fn rule_as_written(r: &MatchedRule<'_>) -> String {
    format!(
        "{}: {}",
        r.kind.as_str(),
        String::from_utf8_lossy(r.pattern)
    )
}

/// The notice of a source fetched before it was due, because of `--force`.
pub fn forced(name: &str, by: Hint, until: Timestamp) -> String {
    let what = match by {
        Hint::R8 => "R8's one fetch per hour".to_string(),
        other => format!("the publisher's hint ({})", hint(other)),
    };
    format!(
        "{name}: --force fetches it now, overriding {what}: not due before {}",
        crate::hints::when(until)
    )
}

/// The notice of a feed's older items left out (a feed keeps at most
/// [`crate::extract::MAX_FEED_ITEMS`]).
pub fn capped(url: &str, capped: usize) -> String {
    format!(
        "{url}: {capped} older items left out: a feed keeps at most its {} newest",
        crate::extract::MAX_FEED_ITEMS
    )
}

/// What a feed's reading has to say beyond "ok", for the digest and
/// `status` (issue #19: no source is "ok" with nothing said when it needed
/// repairs or listed nothing). Cleaned: repairs quote the document.
pub fn feed_notes(f: &crate::extract::FeedExtract) -> Vec<String> {
    let mut notes = Vec::new();
    if !f.repairs.is_empty() {
        notes.push(format!("read after repairs: {}", f.repairs.join("; ")));
    }
    if f.entries == 0 {
        notes.push(format!(
            "zero entries: the {} document lists none",
            f.format
        ));
    } else if f.items.is_empty() && f.skipped_no_link == f.entries {
        notes.push(format!(
            "no item: none of its {} entries has an http(s) link",
            f.entries
        ));
    }
    notes
        .into_iter()
        .map(|n| crate::extract::clean_message(&n))
        .collect()
}

/// The rule that set a source's next fetch, as `status` and the digest
/// name it.
pub fn hint(h: Hint) -> &'static str {
    match h {
        Hint::R8 => "R8 (one fetch per hour)",
        Hint::MaxAge => "Cache-Control max-age",
        Hint::Expires => "Expires",
        Hint::Ttl => "RSS ttl",
        Hint::UpdatePeriod => "sy:updatePeriod",
        Hint::SkipHours => "RSS skipHours",
        Hint::SkipDays => "RSS skipDays",
        Hint::Cap => "a week (a publisher hint asked for longer)",
    }
}

/// Why a request waits: the requirement that holds it back.
fn wait_reason(reason: WaitReason) -> &'static str {
    match reason {
        WaitReason::Cooldown => "cool-down after repeated failures, R5",
        WaitReason::RetryAfter => "the server's Retry-After, R5",
        WaitReason::Backoff => "backoff after a failed request, R5",
        WaitReason::Throttle => "Crawl-delay spacing, R4",
    }
}

/// Why a host will not be asked before `until`, seen from `now`.
pub fn held(now: Timestamp, until: Timestamp, reason: WaitReason) -> String {
    let why = wait_reason(reason);
    let secs = now.until(until).as_secs();
    if secs < 10 * 365 * 86_400 {
        format!(
            "host held until {} ({why}; {secs} s from now)",
            instant(until)
        )
    } else {
        format!("host held until {} ({why})", instant(until))
    }
}

/// A robots.txt denial's rule as every report shows it: `Disallow:
/// /private`, then the reading that denied when it is not the spec's own.
impl Present for RobotsDenial {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.rule {
            Some(r) => {
                write!(f, "{}: {}", r.kind.as_str(), r.pattern)?;
                if self.reading != Reading::Spec {
                    write!(f, " in {}", reading(self.reading))?;
                }
                Ok(())
            }
            None if self.overflow => f.write_str("disallowed (capacity exceeded: over-blocking)"),
            None => f.write_str("disallowed (no rule matched)"),
        }
    }
}

impl Present for Cause {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Status { status } => write!(f, "HTTP {status}"),
            Cause::NoLocation { status } => write!(f, "HTTP {status} without a usable Location"),
            Cause::NotWebRedirect { location } => {
                write!(f, "redirect to a non-http(s) URL {location}")
            }
            Cause::TooManyRedirects => write!(f, "more than {MAX_REDIRECTS} redirects"),
            Cause::Transport {
                kind: FailureKind::TooLarge { limit },
                ..
            } => write!(f, "too large (more than {limit} bytes)"),
            Cause::Transport { detail, .. } => f.write_str(detail),
            Cause::RetriesExhausted {
                last,
                retries,
                host,
                alone_min,
            } => write!(
                f,
                "{} after {retries} retries; leaving {host} alone for {alone_min} min",
                Words(&**last)
            ),
        }
    }
}

impl Present for Unreachable {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreachable::Answered { url, cause } => write!(f, "{url}: {}", Words(cause)),
            Unreachable::BadRedirect { url } => write!(f, "{url}: bad redirect Location"),
            Unreachable::Transport { detail, .. } => f.write_str(detail),
            Unreachable::RedirectBlocked { url, domain } => write!(
                f,
                "{url}: redirected to a host on the operator blocklist ({domain})"
            ),
            Unreachable::Refused { url, refusal } => write!(f, "{url}: {}", Words(refusal)),
        }
    }
}

impl Present for InvalidUrl {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InvalidUrl::Url(e) => write!(f, "{e}"),
            InvalidUrl::NotOperatorResource => {
                f.write_str("not one of the operator's section 5 resources")
            }
        }
    }
}

impl Present for Refusal {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Invalid { error } => write!(f, "invalid URL: {}", Words(error)),
            Refusal::NotOperatorResource => {
                f.write_str("not one of the operator's section 5 resources")
            }
            Refusal::DenyBlocklist { domain } => {
                write!(f, "denied by the operator blocklist (R3): {domain}")
            }
            Refusal::DenyRobots { denial } => {
                write!(f, "denied by robots.txt (R2): {}", Words(denial))
            }
            Refusal::NeedBlocklist => f.write_str("needs the operator blocklist first"),
            Refusal::BlocklistUnavailable { cause } => write!(
                f,
                "deferred: the operator blocklist is unavailable ({})",
                Words(&**cause)
            ),
            Refusal::NeedRobots { url } => write!(f, "needs {url} first"),
            Refusal::Deferred { why } => write!(f, "deferred: {}", robots_unreachable(why)),
            Refusal::Wait { until, reason } => write!(f, "wait until {} ms ({reason:?})", until.0),
            Refusal::Ready => f.write_str("ready"),
        }
    }
}

impl Present for BlocklistCause {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlocklistCause::Held { url, secs } => {
                write!(f, "{url}: the operator host is held for {secs} s")
            }
            BlocklistCause::Refused { url, refusal } => write!(f, "{url}: {}", Words(refusal)),
            BlocklistCause::Transport { url, detail, .. } => write!(f, "{url}: {detail}"),
            BlocklistCause::Status { url, status } => write!(f, "{url}: HTTP {status}"),
            BlocklistCause::NotModifiedWithoutList { url } => {
                write!(f, "{url}: 304 without a stored list")
            }
            BlocklistCause::Invalid { url, detail } => write!(f, "{url}: {detail}"),
            BlocklistCause::NotAskedAgain { url, asked } => write!(
                f,
                "{url}: not asked again, this run has asked for it {asked} times already \
                 (at most {BLOCKLIST_REQUESTS_PER_RUN} a run)"
            ),
            BlocklistCause::StoredUnreadable { cause } => {
                write!(f, "{}; the stored copy cannot be read", Words(&**cause))
            }
        }
    }
}

impl Present for Deferral {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Deferral::RobotsUnobtainable { robots } => {
                write!(f, "{robots} could not be obtained; deferred for this run")
            }
            Deferral::Held { at, until, reason } => f.write_str(&held(*at, *until, *reason)),
            Deferral::RobotsUnreachable { why } => write!(
                f,
                "robots.txt unreachable ({}); deferred for this run",
                Words(why)
            ),
            Deferral::BlocklistUnavailable { cause } => write!(
                f,
                "the operator blocklist could not be obtained ({}); not fetching without it \
                 (R3); deferred for this run",
                Words(cause)
            ),
            Deferral::RetryTooLate {
                last,
                after_s,
                patience_s,
            } => write!(
                f,
                "{} with Retry-After {after_s} s, longer than this run waits ({patience_s} s); \
                 deferred to a later run",
                Words(last)
            ),
            Deferral::TimedOut {
                detail,
                host,
                times,
            } => {
                if let Some(d) = detail {
                    write!(f, "{d}; ")?;
                }
                write!(
                    f,
                    "{host} timed out {times} times in this run; left alone until the next run"
                )
            }
            Deferral::Coordinator { detail } => write!(
                f,
                "{detail}; not fetched without the fleet's slot (R4a), tried again next run"
            ),
        }
    }
}

impl Present for LeftOut {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NONE: &str = "no feed, no markdown, and";
        match self {
            LeftOut::DeniedRobots { url, denial } => write!(
                f,
                "{NONE} {url} is disallowed by robots.txt ({}, line {})",
                Words(denial),
                denial.line()
            ),
            LeftOut::DeniedBlocklist { url, domain } => {
                write!(f, "{NONE} {url} is on the operator blocklist ({domain})")
            }
            LeftOut::Html { url } => {
                write!(f, "{NONE} {url} answered HTML (never scraped, R9)")
            }
            LeftOut::Type { url, content_type } => write!(
                f,
                "{NONE} {url} answered {}",
                content_type.as_deref().unwrap_or("no Content-Type")
            ),
            LeftOut::Status { url, status } => write!(
                f,
                "no feed declared, no markdown offered, no llms.txt ({url}: HTTP {status})"
            ),
        }
    }
}

impl Present for SourceFailure {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceFailure::Fetch { url, cause } => write!(f, "{url}: {}", Words(cause)),
            SourceFailure::Invalid { url, error } => {
                write!(f, "{url}: invalid URL: {}", Words(error))
            }
            SourceFailure::Unreadable { url, detail } => write!(f, "{url}: {detail}"),
            SourceFailure::FeedIsHtml { url } => write!(
                f,
                "{url}: the declared feed answered HTML (never scraped, R9)"
            ),
        }
    }
}

impl Present for Notice {
    fn present(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::CachedRobots { why, origin } => {
                write!(f, "{}; using the cached robots.txt of {origin}", Words(why))
            }
            Notice::RefreshFloored {
                written,
                floor,
                read,
            } => write!(
                f,
                "the operator blocklist's refresh ({} s) is shorter than the {} s floor: \
                 read as {} s (R3; a zero refresh would ask for the list before every request)",
                written.as_secs_f64(),
                floor.as_secs_f64(),
                read.as_secs_f64()
            ),
            Notice::BlocklistUnavailable { cause } => write!(
                f,
                "the operator blocklist could not be obtained ({}) and no usable copy exists: \
                 targets are deferred, not fetched without it (R3)",
                Words(cause)
            ),
            Notice::BlocklistFallback { cause } => write!(
                f,
                "the operator blocklist could not be obtained ({}) and no earlier copy \
                 exists: running with an EMPTY blocklist (fail open, R3b); opt-outs are not \
                 protected",
                Words(cause)
            ),
            Notice::BlocklistRetained { cause, entries } => write!(
                f,
                "blocklist refresh failed ({}); keeping the last adopted list ({entries} {}, \
                 R3b)",
                Words(cause),
                if *entries == 1 { "entry" } else { "entries" }
            ),
        }
    }
}

/// The digest's reason of a source whose server answered 304: in JSON
/// only, since the Markdown's "No new items." says it already.
pub const NOT_MODIFIED: &str = "not modified since the last run (304)";

/// What the digest says of a source's outcome beyond its status word (the
/// `reason` of a section; `show` writes it again from the stored
/// outcome): a denial's facts, why it was deferred, left out or failed,
/// the R8 or publisher pause of a skipped source, or what an `ok` source's
/// reading noted.
pub fn digest_reason(status: &crate::SourceStatus, notes: &[String]) -> Option<String> {
    use crate::SourceStatus;
    let at = |ms: u64| rfc3339((ms / 1000) as i64);
    match status {
        SourceStatus::Ok { not_modified: true } => Some(NOT_MODIFIED.to_string()),
        // A feed read after repairs, or listing nothing (issue #19).
        SourceStatus::Ok { .. } => (!notes.is_empty()).then(|| notes.join("; ")),
        SourceStatus::Skipped {
            last_run,
            by: Hint::R8,
            ..
        } => Some(format!(
            "fetched less than an hour ago ({}), R8; --force fetches it anyway",
            at(*last_run)
        )),
        // A publisher hint (issue #23): when, and which.
        SourceStatus::Skipped {
            last_run,
            until,
            by,
        } => Some(format!(
            "fetched {}; the publisher asks for no fetch before {} ({}); --force fetches it \
             anyway",
            at(*last_run),
            at(*until),
            hint(*by)
        )),
        s @ (SourceStatus::DeniedBlocklist { .. } | SourceStatus::DeniedRobots { .. }) => {
            s.denial().map(|d| d.to_string())
        }
        SourceStatus::Deferred { reason, .. }
        | SourceStatus::LeftOut { reason }
        | SourceStatus::Failed { reason } => Some(reason.to_string()),
    }
}

/// What denied the URL and how: `robots.txt (R2): URL (RULE, line N)`.
/// The digest's reason of a denied source; [`crate::SourceStatus`]'s sentence
/// puts `denied by` before it.
impl fmt::Display for crate::report::Denial<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            crate::report::Denial::Blocklist { url, domain } => {
                write!(f, "the operator blocklist (R3): {url} ({domain} is listed)")
            }
            crate::report::Denial::Robots { url, rule, line } => {
                write!(f, "robots.txt (R2): {url} ({rule}, line {line})")
            }
        }
    }
}

impl fmt::Display for crate::SourceStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            crate::SourceStatus::Ok {
                not_modified: false,
            } => f.write_str("ok"),
            crate::SourceStatus::Ok { not_modified: true } => f.write_str("not modified (304)"),
            crate::SourceStatus::Skipped { by: Hint::R8, .. } => {
                f.write_str("skipped: fetched less than an hour ago (R8; --force to override)")
            }
            crate::SourceStatus::Skipped { by, .. } => write!(
                f,
                "skipped: the publisher asks for no fetch this soon ({}; --force to override)",
                hint(*by)
            ),
            crate::SourceStatus::DeniedBlocklist { .. }
            | crate::SourceStatus::DeniedRobots { .. } => match self.denial() {
                Some(d) => write!(f, "denied by {d}"),
                None => Ok(()),
            },
            crate::SourceStatus::Deferred { reason, .. } => write!(f, "deferred: {reason}"),
            crate::SourceStatus::LeftOut { reason } => write!(f, "left out: {reason}"),
            crate::SourceStatus::Failed { reason } => write!(f, "failed: {reason}"),
        }
    }
}

fn check_secs(ms: u64) -> String {
    format!("{:.1} s", ms as f64 / 1000.0)
}

/// One line of `check` output.
pub fn check_line(r: &crate::CheckReport) -> String {
    match r {
        crate::CheckReport::Allowed {
            url,
            wait_ms,
            spacing_ms,
            rule,
            line,
        } => {
            let rule = match (rule, line) {
                (Some(r), Some(l)) => format!("robots.txt {r} (line {l})"),
                (Some(r), None) => format!("robots.txt {r}"),
                _ => "no robots.txt rule matched".to_string(),
            };
            format!(
                "allowed   {url}  (R3 not listed; R2 {rule}; R4 wait {}, spacing {})",
                check_secs(*wait_ms),
                check_secs(*spacing_ms)
            )
        }
        crate::CheckReport::DeniedBlocklist {
            url,
            domain,
            reason,
        } => format!("denied    {url}  (R3 operator blocklist: {domain} is listed: {reason})"),
        crate::CheckReport::DeniedRobots { url, rule, line } => {
            format!("denied    {url}  (R2 robots.txt {rule}, line {line})")
        }
        crate::CheckReport::Deferred { url, reason } => format!("deferred  {url}  ({reason})"),
        crate::CheckReport::Invalid { url, reason } => format!("invalid   {url}  ({reason})"),
    }
}

/// What a quiet run (`-q`, which hides the notices) says as an error of a
/// blocklist it had to do without: the fail-open of a first failed fetch,
/// or targets deferred for want of any list.
pub fn blocklist_error(state: &crate::BlocklistState) -> Option<String> {
    match state {
        crate::BlocklistState::Fallback { reason } => Some(format!(
            "the operator blocklist could not be fetched and none was ever adopted ({reason}): \
             no out-of-band opt-out is known yet (R3b fail-open)"
        )),
        crate::BlocklistState::Unavailable { reason } => Some(format!(
            "the operator blocklist could not be obtained and no usable copy exists ({reason}): \
             targets were deferred, not fetched without it (R3)"
        )),
        _ => None,
    }
}

/// Why a host is held, as `status` says it beside the instant.
pub fn hold_cause(cause: crate::store::HoldCause) -> &'static str {
    use crate::store::HoldCause;
    match cause {
        HoldCause::RetryAfter => "the server's Retry-After (R5)",
        HoldCause::Cooldown => "cool-down after repeated failures (R5)",
        HoldCause::Backoff => "backoff after a failed request (R5)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wr_core::gate::HostKey;

    /// A denial's rule reads as wr-core's `denial_rule` wrote it before
    /// the denial became facts: the spec's reading unnamed, another named.
    #[test]
    fn a_robots_denial_reads_as_reports_always_showed_it() {
        use wr_core::robots::Policy;
        let denial = |body: &str, path: &str| {
            let policy = Policy::parse(body.as_bytes(), "Walsh-Research");
            let v = policy.check(path);
            assert!(!v.allowed, "{body:?} {path}");
            RobotsDenial::of(&v)
        };
        let spec = denial(
            "User-agent: *\nAllow: /\nDisallow: /private\n",
            "/private/x",
        );
        assert_eq!(words(&spec), "Disallow: /private");
        assert_eq!(spec.line(), 3);
        // A misspelt Disallow only Google's reading reads.
        let google = denial("User-agent: *\nDissallow: /x\n", "/x");
        assert_eq!(words(&google), "Disallow: /x in Google's reading");
        assert_eq!(google.line(), 2);
        // A rule beyond ASCII is shown as written.
        let raw = denial(
            "User-agent: *\nDisallow: /\u{e9}t\u{e9}\n",
            "/%C3%A9t%C3%A9",
        );
        assert_eq!(words(&raw), "Disallow: /\u{e9}t\u{e9}");
        let none = RobotsDenial {
            rule: None,
            reading: Reading::Spec,
            overflow: true,
        };
        assert_eq!(
            words(&none),
            "disallowed (capacity exceeded: over-blocking)"
        );
        let refused = Refusal::DenyRobots { denial: spec };
        assert_eq!(
            words(&refused),
            "denied by robots.txt (R2): Disallow: /private"
        );
    }

    /// A verdict's words, which wr-core's `Display` wrote before issue #21
    /// moved them here, character for character.
    #[test]
    fn a_verdict_reads_as_wr_core_wrote_it() {
        use wr_core::robots::Policy;
        let said = |body: &str, path: &str| {
            let policy = Policy::parse(body.as_bytes(), "Walsh-Research");
            words(&policy.check(path))
        };
        assert_eq!(
            said("User-agent: *\nDisallow: /x\n", "/x"),
            "disallowed by Disallow: /x (line 2)"
        );
        assert_eq!(
            said("User-agent: *\nDisallow: /x\n", "/y"),
            "allowed (no rule matched)"
        );
        assert_eq!(
            said("User-agent: *\nDisallow: /\nAllow: /y\n", "/y"),
            "allowed by Allow: /y (line 3)"
        );
        assert_eq!(
            said("User-agent: *\nDissallow: /tmp\n", "/tmp/x"),
            "disallowed by Disallow: /tmp (line 2) in Google's reading"
        );
        // A rule's octets beyond UTF-8 are shown as U+FFFD.
        let policy = Policy::parse(b"User-agent: *\nDisallow: /\xff\n", "Walsh-Research");
        assert_eq!(
            words(&policy.check("/%FF")),
            "disallowed by Disallow: /\u{FFFD} (line 2)"
        );
        // A versioned agent read whole is not our token: its group does not
        // apply, and the verdict says in which reading of the file.
        let v = said(
            "User-agent: Walsh-Research/1.2\nAllow: /\n\nUser-agent: *\nDisallow: /\n",
            "/page",
        );
        assert!(
            v.starts_with("disallowed by Disallow: / (line 5) in ")
                && v.ends_with("(User-agent values read whole)"),
            "{v}"
        );
        let every = Variant::of(Variant::ALL);
        assert_eq!(
            words(&every),
            "Unicode spaces trimmed, User-agent values read whole, lines cut at 16,663 \
             octets, escapes such as %2F read as their octets, an empty User-agent value a \
             prefix of every token, a byte-order mark read as text of the first line"
        );
        assert_eq!(words(&Variant::BASE), "");
        assert_eq!(reading(Reading::Rfc9309), "RFC 9309's reading");
    }

    /// The words are the ones wr-core used to write itself (before issue
    /// #21), character for character: the suites and the README pin them.
    #[test]
    fn outcomes_read_as_they_always_did() {
        let host = HostKey::from_stored("a.test");
        let op = "https://op.test/blocklist.json".to_string();
        let retries = Cause::RetriesExhausted {
            last: Box::new(Cause::Status { status: 503 }),
            retries: 5,
            host: host.clone(),
            alone_min: 60,
        };
        let unreadable = BlocklistCause::StoredUnreadable {
            cause: Box::new(BlocklistCause::Transport {
                url: op.clone(),
                kind: FailureKind::Network,
                detail: "refused".into(),
            }),
        };
        let cases: [(String, &str); 8] = [
            (
                words(&retries),
                "HTTP 503 after 5 retries; leaving a.test alone for 60 min",
            ),
            (
                words(&Cause::Transport {
                    kind: FailureKind::TooLarge { limit: 10 },
                    detail: "ignored".into(),
                }),
                "too large (more than 10 bytes)",
            ),
            (
                words(&Deferral::TimedOut {
                    detail: Some("timed out".into()),
                    host,
                    times: 2,
                }),
                "timed out; a.test timed out 2 times in this run; left alone until the next run",
            ),
            (
                words(&Deferral::RetryTooLate {
                    last: Cause::Status { status: 429 },
                    after_s: 7200,
                    patience_s: 300,
                }),
                "HTTP 429 with Retry-After 7200 s, longer than this run waits (300 s); \
                 deferred to a later run",
            ),
            (
                words(&Deferral::BlocklistUnavailable {
                    cause: unreadable.clone(),
                }),
                "the operator blocklist could not be obtained \
                 (https://op.test/blocklist.json: refused; the stored copy cannot be read); \
                 not fetching without it (R3); deferred for this run",
            ),
            (
                words(&LeftOut::Type {
                    url: "https://a.test/llms.txt".into(),
                    content_type: None,
                }),
                "no feed, no markdown, and https://a.test/llms.txt answered no Content-Type",
            ),
            (
                words(&Notice::BlocklistRetained {
                    cause: BlocklistCause::Status {
                        url: op,
                        status: 503,
                    },
                    entries: 1,
                }),
                "blocklist refresh failed (https://op.test/blocklist.json: HTTP 503); keeping \
                 the last adopted list (1 entry, R3b)",
            ),
            (
                words(&Deferral::Held {
                    at: Timestamp(1_000),
                    until: Timestamp(9_000),
                    reason: WaitReason::Cooldown,
                }),
                "host held until Thu, 01 Jan 1970 00:00:09 GMT (cool-down after repeated \
                 failures, R5; 8 s from now)",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
