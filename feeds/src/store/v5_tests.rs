//! A store as version 5 wrote it (the schema and the rows of the code
//! before issue #21) opens with this version and loses nothing: the words
//! it kept are shown as they were, never parsed back into an outcome, and
//! what is written from now on is data.

use super::*;
use crate::report::{Reason, SourceStatus, Why};
use wr_core::gate::WaitReason;
use wr_core::outcome::Deferral;

/// The schema version 5 created, verbatim.
const V5_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS robots(
  origin TEXT PRIMARY KEY, status INTEGER NOT NULL, body BLOB, fetched_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS blocklist(
  id INTEGER PRIMARY KEY CHECK (id = 1), contract TEXT NOT NULL, refresh_ms INTEGER NOT NULL,
  updated TEXT NOT NULL, entries TEXT NOT NULL, fetched_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS schema_cache(
  url TEXT PRIMARY KEY, body BLOB NOT NULL, fetched_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS validators(
  url TEXT NOT NULL, accept TEXT NOT NULL, etag TEXT, last_modified TEXT, kind TEXT,
  stored_at INTEGER NOT NULL, PRIMARY KEY (url, accept));
CREATE TABLE IF NOT EXISTS hosts(
  host TEXT PRIMARY KEY, last_request INTEGER, hold_until INTEGER, hold_reason TEXT,
  retry_after_until INTEGER, retry_after_asked INTEGER);
CREATE TABLE IF NOT EXISTS sources(
  name TEXT PRIMARY KEY, last_run INTEGER, last_status TEXT, method TEXT, fetched_url TEXT,
  offered_at INTEGER, error_streak INTEGER NOT NULL DEFAULT 0, last_note TEXT,
  next_fetch INTEGER, next_fetch_by TEXT, feed_hints TEXT,
  deferred_runs INTEGER NOT NULL DEFAULT 0, deferred_at INTEGER, deferred_reason TEXT);
CREATE TABLE IF NOT EXISTS items(
  source TEXT NOT NULL, id TEXT NOT NULL, url TEXT NOT NULL, title TEXT NOT NULL,
  published TEXT, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
  position INTEGER NOT NULL, reported INTEGER NOT NULL DEFAULT 0, reported_on TEXT,
  reported_at INTEGER, PRIMARY KEY (source, id));
CREATE TABLE IF NOT EXISTS digest_sources(
  day TEXT NOT NULL, source TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
  url TEXT NOT NULL, tags TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, method TEXT,
  max_items INTEGER, written_at INTEGER NOT NULL, PRIMARY KEY (day, source));
";

/// Today's words for a denied section and a deferral, as version 5 kept
/// them.
const DENIED: &str = "robots.txt (R2): https://d.test/ (Disallow: /, line 2)";
const DEFERRED: &str = "https://h.test/feed: host held until Thu, 01 Jan 1970 00:00:09 GMT \
                        (the server's Retry-After, R5; 8 s from now)";

fn v5_store(dir: &std::path::Path) {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let old = Connection::open(dir.join(crate::config::DB_FILE)).unwrap();
    old.execute_batch(V5_SCHEMA).unwrap();
    old.execute(
        "INSERT INTO sources(name, last_run, last_status, error_streak, last_note,
           deferred_runs, deferred_at, deferred_reason)
         VALUES ('d', 1000, 'denied-r2', 0, NULL, 0, NULL, NULL),
                ('h', NULL, NULL, 0, NULL, 2, 1000, ?1)",
        [DEFERRED],
    )
    .unwrap();
    old.execute(
        "INSERT INTO digest_sources(day, source, position, name, url, tags, status, reason,
           method, max_items, written_at)
         VALUES ('2026-11-24', 'd', 0, 'D', 'https://d.test/', '[\"x\"]', 'denied', ?1,
           NULL, 3, 2000)",
        [DENIED],
    )
    .unwrap();
    old.execute_batch("PRAGMA user_version = 5;").unwrap();
}

fn version(s: &Store) -> i64 {
    s.conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn a_version_5_store_opens_and_keeps_its_words() {
    let dir = std::env::temp_dir().join(format!("wr-store-v5-{}", std::process::id()));
    v5_store(&dir);
    // The read-only open of `status` and `show` upgrades it first.
    let s = Store::open_existing(&dir, false).unwrap().unwrap();
    assert_eq!(version(&s), SCHEMA_VERSION);
    let heads = s.digest_sources("2026-11-24").unwrap();
    assert_eq!(heads.len(), 1);
    let h = &heads[0];
    assert_eq!(
        (h.name.as_str(), h.url.as_str(), h.status.as_str()),
        ("D", "https://d.test/", "denied")
    );
    assert_eq!(h.tags, ["x"]);
    assert_eq!(h.reason.as_deref(), Some(DENIED));
    assert_eq!(h.outcome, None, "words are not parsed back into an outcome");
    assert_eq!((h.max_items, h.written_at), (Some(3), Timestamp(2000)));
    let d = s.source("d").unwrap();
    assert_eq!(d.last_run, Some(Timestamp(1000)));
    assert_eq!(d.last_status.as_deref(), Some("denied-r2"));
    assert_eq!(d.last_outcome, None);
    let held = s.source("h").unwrap();
    assert_eq!(held.deferred_runs, 2);
    assert_eq!(held.deferred_at, Some(Timestamp(1000)));
    assert_eq!(held.deferred_reason.as_deref(), Some(DEFERRED));
    assert_eq!(held.deferred_outcome, None);
    drop(s);

    // Written from now on: data, read back in the presenter's words,
    // the same words version 5 stored.
    let s = Store::open(&dir).unwrap();
    let why = Why::Deferred {
        url: Some("https://h.test/feed".into()),
        why: Deferral::Held {
            at: Timestamp(1000),
            until: Timestamp(9000),
            reason: WaitReason::RetryAfter,
        },
    };
    s.record_deferral("h", Timestamp(1500), &why).unwrap();
    let held = s.source("h").unwrap();
    assert_eq!(held.deferred_runs, 3);
    assert_eq!(held.deferred_outcome.as_ref(), Some(&why));
    assert_eq!(held.deferred_reason.as_deref(), Some(DEFERRED));
    let stored: (Option<String>, Option<String>) = s
        .conn
        .query_row(
            "SELECT deferred_reason, deferred_outcome FROM sources WHERE name = 'h'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(stored.0, None, "no sentence is stored");
    assert!(stored.1.is_some_and(|j| !j.contains("host held")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_digest_section_is_stored_as_data_and_read_in_the_presenters_words() {
    let dir = std::env::temp_dir().join(format!("wr-store-v6-{}", std::process::id()));
    v5_store(&dir);
    let s = Store::open(&dir).unwrap();
    let status = SourceStatus::DeniedRobots {
        url: "https://d.test/".into(),
        rule: "Disallow: /".into(),
        line: 2,
    };
    let failed = SourceStatus::Failed {
        reason: Reason::new(Why::Failed(wr_core::outcome::SourceFailure::FeedIsHtml {
            url: "https://f.test/feed".into(),
        })),
    };
    let head = |source: &str, status: &SourceStatus| DigestSource {
        source: source.into(),
        name: source.to_uppercase(),
        url: format!("https://{source}.test/"),
        status: "denied".into(),
        // What a caller says in words is not what is stored.
        reason: Some("ignored: the outcome is stored".into()),
        outcome: Some(SectionOutcome {
            status: status.clone(),
            notes: Vec::new(),
        }),
        ..DigestSource::default()
    };
    let heads = [head("d", &status), head("f", &failed)];
    s.record_digest("2026-11-25", Timestamp(3000), [], Some(&heads))
        .unwrap();
    let read = s.digest_sources("2026-11-25").unwrap();
    assert_eq!(read[0].reason.as_deref(), Some(DENIED));
    assert_eq!(
        read[1].reason.as_deref(),
        Some("https://f.test/feed: the declared feed answered HTML (never scraped, R9)")
    );
    assert_eq!(read[0].outcome.as_ref().map(|o| &o.status), Some(&status));
    assert_eq!(read[1].outcome.as_ref().map(|o| &o.status), Some(&failed));
    let reasons: Vec<Option<String>> = s
        .conn
        .prepare("SELECT reason FROM digest_sources WHERE day = '2026-11-25'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert_eq!(reasons, [None, None], "no sentence is stored");
    // The version 5 day is still there, in its own words.
    assert_eq!(
        s.digest_sources("2026-11-24").unwrap()[0].reason.as_deref(),
        Some(DENIED)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
