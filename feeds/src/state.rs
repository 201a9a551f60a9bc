//! The rows of the state store, as plain data: what the bot remembers
//! between runs.
//!
//! Why a module of its own (issue #21): the rows used to live in the
//! store, beside the SQL, and other concerns reached into them (the
//! transport took the store's validators). Here they are values that
//! import neither the transport nor the extractor; the store
//! ([`crate::store`]) reads and writes them, and re-exports them.
//!
//! Two concerns, kept apart: the **fetch state** (robots.txt, the
//! blocklist, each host's schedule and holds, each source's last run),
//! which decides what the next run may do; and the **digest archive**
//! (each day's sections and items), which only says what was delivered.
//! A duration is a number (milliseconds), an instant a [`Timestamp`], an
//! outcome typed JSON ([`crate::Why`], [`crate::SourceStatus`]): no row
//! holds text to be parsed back.

use std::time::Duration;
use wr_core::time::Timestamp;

/// The validators of one URL and `Accept` (R7): wr-core's, shared with
/// the transport, which sends them.
pub use wr_core::fetch::Validators;

// ---- fetch state -----------------------------------------------------------

/// A stored robots.txt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsRow {
    /// `scheme://host:port`.
    pub origin: String,
    /// HTTP status it was fetched with (2xx: parsed body; 4xx: allow all).
    pub status: u16,
    /// The body (2xx only), truncated at 500 KiB.
    pub body: Vec<u8>,
    /// When it was fetched.
    pub fetched_at: Timestamp,
}

/// The stored blocklist (fields of an adopted, validated document).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlocklistRow {
    /// `contract`.
    pub contract: String,
    /// `refresh` in ms.
    pub refresh_ms: u64,
    /// `updated`.
    pub updated: String,
    /// `[{domain, added, reason}]` as JSON.
    pub entries_json: String,
    /// When it was fetched.
    pub fetched_at: Timestamp,
}

/// A host's schedule row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HostRow {
    /// Last request instant (any process).
    pub last_request: Option<Timestamp>,
    /// Not before this instant (the latest of every hold).
    pub hold_until: Option<Timestamp>,
    /// `true` when the latest hold is a cool-down (retries exhausted).
    pub cooldown: bool,
    /// The latest instant a server's `Retry-After` asked to wait until
    /// (R5: "wait at least that long"); `hold_until` is never before it.
    pub retry_after_until: Option<Timestamp>,
    /// What that `Retry-After` asked for, when it lay past
    /// [`wr_core::constants::RETRY_AFTER_CAP`] and `retry_after_until`
    /// is the cap ([`wr_core::retry_after::cap_hold`]).
    pub retry_after_asked: Option<Timestamp>,
}

impl HostRow {
    /// The longest hold of our own (the cool-down after retries run out;
    /// a backoff step is shorter), with a second's slack for the
    /// millisecond the holds round up by.
    pub const LONGEST_OWN_HOLD: Duration = wr_core::constants::FAILURE_COOLDOWN
        .saturating_add(wr_core::constants::BACKOFF_CAP)
        .saturating_add(Duration::from_secs(1));

    /// The row as of `now`, every instant through
    /// [`crate::clock::clamp_stored`]: the last request no later than
    /// now; a hold of ours no later than now plus
    /// [`HostRow::LONGEST_OWN_HOLD`] (a longer one was written by a clock
    /// that was ahead). A server's `Retry-After` is kept whole up to
    /// [`wr_core::constants::RETRY_AFTER_CAP`] from now: R5 says wait at
    /// least that long and has no upper bound, so only a hold past that
    /// cap (written before the cap existed) is shortened, to it, keeping
    /// what was asked in [`HostRow::retry_after_asked`]. The hold is never
    /// before the server's.
    pub fn clamped(self, now: Timestamp) -> HostRow {
        use crate::clock::clamp_stored;
        // A second's slack, as for our own holds: a reader whose clock
        // reads whole seconds must not shave a hold capped a moment ago.
        let server = self
            .retry_after_until
            .map(|t| wr_core::retry_after::cap_hold(t, now.saturating_add(Duration::from_secs(1))));
        let asked = match (self.retry_after_until, server) {
            (Some(was), Some(capped)) if capped < was => self.retry_after_asked.or(Some(was)),
            _ => self.retry_after_asked,
        };
        HostRow {
            last_request: self
                .last_request
                .map(|t| clamp_stored(t, now, Duration::ZERO)),
            hold_until: self.hold_until.map(|t| {
                clamp_stored(t, now, HostRow::LONGEST_OWN_HOLD)
                    .max(server.unwrap_or_default().min(t))
            }),
            cooldown: self.cooldown,
            retry_after_until: server,
            retry_after_asked: asked,
        }
    }
}

/// A source's R8 row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceRow {
    /// Last run instant.
    pub last_run: Option<Timestamp>,
    /// Status label of the last run.
    pub last_status: Option<String>,
    /// Method of the last successful fetch.
    pub method: Option<String>,
    /// Final URL of the last successful fetch.
    pub fetched_url: Option<String>,
    /// When the currently offered item set was last fetched.
    pub offered_at: Option<Timestamp>,
    /// What the last run had to say beyond its status (`read after
    /// repairs: ...`, `zero entries: ...`).
    pub last_note: Option<String>,
    /// The earliest next fetch the publisher's hints allow (issue #23).
    pub next_fetch: Option<Timestamp>,
    /// The rule that set it (`wr_core::hints::Hint::key`).
    pub next_fetch_by: Option<String>,
    /// The hints the feed's own elements gave the last time it was read
    /// whole (`ttl`, `sy:*`, `skipHours`, `skipDays`), for a 304 to reuse.
    pub feed_hints: Option<String>,
    /// Runs in a row that deferred the source (robots.txt unreachable, a
    /// host held...) since it last ran; 0 once it runs.
    pub deferred_runs: u32,
    /// When it was last deferred.
    pub deferred_at: Option<Timestamp>,
    /// Why it was last deferred, in the presenter's words (from
    /// `deferred_outcome`; a store from before version 6 gives the words it
    /// kept).
    pub deferred_reason: Option<String>,
    /// Why it was last deferred, as data (none for a deferral recorded
    /// before version 6).
    pub deferred_outcome: Option<crate::Why>,
    /// The last run's outcome with its facts (none before version 6).
    pub last_outcome: Option<crate::SourceStatus>,
}

// ---- digest archive --------------------------------------------------------

/// The digest days `first..=last` (`YYYY-MM-DD`, as the caller counts
/// days) and the instants they span, `[start, end)`. An item belongs to
/// the day of the digest that first reported it; an item reported before
/// days were recorded (`reported_on` NULL) belongs to the day it was first
/// seen, which the instants place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Days {
    /// First day, `YYYY-MM-DD`.
    pub first: String,
    /// Last day, `YYYY-MM-DD` (inclusive).
    pub last: String,
    /// The instant `first` begins.
    pub start: Timestamp,
    /// The instant the day after `last` begins.
    pub end: Timestamp,
    /// The reader's today, `YYYY-MM-DD`: a day stored after it (by a
    /// clock that was ahead) is read as today, as every stored instant is
    /// clamped to now ([`crate::clock::clamp_stored`]; issue #20).
    pub today: String,
}

/// One source's section of a digest day, as the last digest written that
/// day had it ([`crate::store::Store::record_digest`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DigestSource {
    /// The source's key ([`crate::Source::key`]).
    pub source: String,
    /// Its name then.
    pub name: String,
    /// Its page then.
    pub url: String,
    /// Its tags then.
    pub tags: Vec<String>,
    /// The digest's status word (`ok`, `skipped`, `failed`, ...).
    pub status: String,
    /// Why, when the digest said, in the presenter's words: written from
    /// `outcome` when it is known ([`crate::words::digest_reason`]), else
    /// the words a store from before version 6 kept.
    pub reason: Option<String>,
    /// The section's outcome as data, which the store keeps instead of
    /// its words.
    pub outcome: Option<SectionOutcome>,
    /// How its items were obtained (`feed`, `markdown`, `llms-txt`).
    pub method: Option<String>,
    /// The source's `max_items` then: the section listed at most this
    /// many of the day's items.
    pub max_items: Option<u64>,
    /// When that digest was made (ignored by [`crate::store::Store::record_digest`],
    /// which is told the instant).
    pub written_at: Timestamp,
}

/// A digest section's outcome as the store keeps it (typed JSON): the
/// source's status with its facts, and what its reading noted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SectionOutcome {
    /// The run's outcome for the source.
    pub status: crate::SourceStatus,
    /// What an `ok` source's reading noted.
    pub notes: Vec<String>,
}

impl SectionOutcome {
    /// The digest's reason for it, in the presenter's words.
    pub fn reason(&self) -> Option<String> {
        crate::words::digest_reason(&self.status, &self.notes)
    }
}

/// A source's counts for `status`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ItemCounts {
    /// Every item ever seen.
    pub seen: u64,
    /// Seen but in no digest delivered yet (the next digest lists them).
    pub pending: u64,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn source(rel: &str) -> String {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(rel);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The layering this module is for: the transport and the extractor
    /// use no row of the store, and the rows and the store use neither the
    /// transport nor the extractor (an item is [`crate::item`]'s).
    #[test]
    fn rows_are_apart_from_the_transport_and_the_extractor() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/extract");
        let mut users: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("extract/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        users.push("http.rs".into());
        for f in &users {
            let text = source(f);
            for row in ["store", "state"].map(|m| format!("crate::{m}")) {
                assert!(!text.contains(row.as_str()), "{f} uses {row}");
            }
        }
        // Spelt at run time: this file names them too.
        let others = ["extract", "http"].map(|m| format!("crate::{m}"));
        let store = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store");
        let mut rows = vec!["state.rs".to_string()];
        rows.extend(
            std::fs::read_dir(&store)
                .unwrap()
                .map(|e| format!("store/{}", e.unwrap().file_name().to_string_lossy())),
        );
        assert!(rows.len() > 3, "{rows:?}");
        for f in &rows {
            let text = source(f);
            for other in &others {
                assert!(!text.contains(other.as_str()), "{f} uses {other}");
            }
        }
    }
}
