use super::*;

fn item(id: &str) -> Item {
    Item {
        url: format!("https://a.test/{id}"),
        title: id.to_string(),
        published: None,
        id: format!("https://a.test/{id}"),
    }
}

/// Records the items `ids` for the source `src` at `at`; returns the
/// titles of its pending items.
fn record(s: &mut Store, ids: &[&str], at: u64) -> Vec<String> {
    let items: Vec<Item> = ids.iter().map(|id| item(id)).collect();
    s.record_items("src", "feed", "https://a.test/f", &items, Timestamp(at))
        .unwrap()
        .into_iter()
        .map(|i| i.title)
        .collect()
}

/// Issue #20: a server's Retry-After is capped at 30 days from when
/// it is recorded, what it asked kept beside it; a shorter one is kept
/// whole; one stored uncapped (before the cap) is capped when read
/// and written back so, its asked instant kept.
#[test]
fn a_retry_after_past_the_cap_is_capped_and_what_it_asked_kept() {
    use wr_core::constants::RETRY_AFTER_CAP;
    let dir = std::env::temp_dir().join(format!("wr-store-ra-cap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let s = Store::open(&dir).unwrap();
    let now = Timestamp::from_secs(1_800_000_000);
    let cap = now.saturating_add(RETRY_AFTER_CAP);
    let decade = now.saturating_add(Duration::from_secs(3_650 * 86_400));
    let day = now.saturating_add(Duration::from_secs(86_400));
    s.hold_at("far.test", decade, HoldCause::RetryAfter, now)
        .unwrap();
    s.hold_at("day.test", day, HoldCause::RetryAfter, now)
        .unwrap();
    let far = s.host("far.test").unwrap();
    assert_eq!(
        (far.hold_until, far.retry_after_until, far.retry_after_asked),
        (Some(cap), Some(cap), Some(decade))
    );
    let d = s.host("day.test").unwrap();
    assert_eq!(
        (d.hold_until, d.retry_after_until, d.retry_after_asked),
        (Some(day), Some(day), None)
    );
    // Read later, a capped hold is not capped again.
    let later = now.saturating_add(Duration::from_secs(3_600));
    assert_eq!(far.clamped(later), far);
    // Our cool-down after it does not lose what was asked.
    s.hold_at("far.test", later, HoldCause::Cooldown, later)
        .unwrap();
    assert_eq!(s.host("far.test").unwrap().retry_after_asked, Some(decade));
    // Stored before the cap existed.
    s.hold("old.test", decade, HoldCause::RetryAfter).unwrap();
    let old = s.host("old.test").unwrap().clamped(now);
    assert_eq!(old.retry_after_asked, Some(decade));
    assert!(old.retry_after_until.unwrap() <= cap.saturating_add(Duration::from_secs(1)));
    assert_eq!(old.hold_until, old.retry_after_until);
    assert!(s.clamp_instants(now).unwrap() >= 1);
    let written = s.host("old.test").unwrap();
    assert_eq!(written, old);
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The read-only open's fallback (issue #20), forced: the session that
/// runs the tests is root, which writes where a permission alone
/// forbids (cli/tests/it/status_reset.rs makes a directory truly
/// unwritable where it can). Proves the immutable open reads the
/// store, says it did, creates nothing beside it, and copes with a
/// directory name that a URI would misread (`?`, `#`, `%`, a space).
#[test]
fn a_read_only_open_falls_back_to_immutable_mode() {
    let dir = std::env::temp_dir().join(format!("wr-store-immutable ?#%41-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let s = Store::open(&dir).unwrap();
        s.hold("h.test", Timestamp(5_000), HoldCause::Cooldown)
            .unwrap();
    }
    let names = || {
        let mut v: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        v.sort();
        v
    };
    let before = names();
    let s = Store::open_existing_as(&dir, false, true).unwrap().unwrap();
    assert!(s.is_immutable());
    assert_eq!(s.host("h.test").unwrap().hold_until, Some(Timestamp(5_000)));
    assert_eq!(names(), before, "nothing created beside the store");
    drop(s);
    let s = Store::open_existing(&dir, false).unwrap().unwrap();
    assert!(!s.is_immutable(), "a writable directory is read as usual");
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A store another process keeps locked past the busy wait says so in
/// words, not only as SQLite's "database is locked".
#[test]
fn a_busy_store_says_another_process_holds_it() {
    let e = rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
        Some("database is locked".into()),
    );
    let msg = describe(&e);
    assert!(msg.starts_with("busy: another wr-feeds process"), "{msg}");
    assert!(msg.contains("30 s"), "{msg}");
}

/// An item reported on a day stays that day's, however often it is
/// listed again; only its own day lists it.
#[test]
fn an_item_belongs_to_the_day_it_was_first_reported() {
    let dir = std::env::temp_dir().join(format!("wr-store-days-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut s = Store::open(&dir).unwrap();
    let id = |x: &str| item(x).id;
    let (a, b, c) = (id("a"), id("b"), id("c"));
    record(&mut s, &["a", "b"], 1_000);
    s.mark_reported_on([("src", a.as_str()), ("src", b.as_str())], "2026-11-23")
        .unwrap();
    record(&mut s, &["a", "b", "c"], 2_000);
    let all = [
        ("src", a.as_str()),
        ("src", b.as_str()),
        ("src", c.as_str()),
    ];
    s.mark_reported_on(all, "2026-11-24").unwrap();
    let ids = |day| -> Vec<String> {
        s.reported_on("src", day)
            .unwrap()
            .into_iter()
            .map(|i| i.title)
            .collect()
    };
    assert_eq!(ids("2026-11-23"), ["a", "b"]);
    assert_eq!(ids("2026-11-24"), ["c"]);
    assert_eq!(s.digest_days("2026-11-24").unwrap(), ["2026-11-24"]);
    assert_eq!(s.digest_days("2000-01-01").unwrap().len(), 2);
    assert!(s.pending_items("src").unwrap().is_empty());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `status` counts failed runs in a row; `reset` forgets a source's run
/// and lifts a host's hold, and says when there was nothing to do.
#[test]
fn a_runs_note_is_kept_until_the_next_run() {
    let dir = std::env::temp_dir().join(format!("wr-store-note-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let s = Store::open(&dir).unwrap();
    s.record_run_noted("src", Timestamp(1), "ok", Some("read after repairs: x"))
        .unwrap();
    let row = s.source("src").unwrap();
    assert_eq!(row.last_status.as_deref(), Some("ok"));
    assert_eq!(row.last_note.as_deref(), Some("read after repairs: x"));
    s.record_run("src", Timestamp(2), "ok").unwrap();
    assert_eq!(s.source("src").unwrap().last_note, None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn error_streaks_reset_and_holds_lift() {
    let dir = std::env::temp_dir().join(format!("wr-store-reset-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let s = Store::open(&dir).unwrap();
    for (i, status) in ["failed", "failed", "ok", "failed"].iter().enumerate() {
        s.record_run("src", Timestamp(i as u64), status).unwrap();
    }
    assert_eq!(s.error_streak("src").unwrap(), 1);
    s.record_run("src", Timestamp(9), "failed").unwrap();
    assert_eq!(s.error_streak("src").unwrap(), 2);
    assert!(s.reset_source("src").unwrap());
    assert_eq!(s.source("src").unwrap().last_run, None);
    assert_eq!(s.error_streak("src").unwrap(), 0);
    assert!(!s.reset_source("src").unwrap(), "nothing left to reset");
    s.hold("h.test", Timestamp(5_000), HoldCause::Cooldown)
        .unwrap();
    assert_eq!(
        s.lift_hold("h.test", Timestamp(1_000), false).unwrap(),
        Lift {
            was: Some(Timestamp(5_000)),
            ..Lift::default()
        }
    );
    assert_eq!(s.host("h.test").unwrap().hold_until, None);
    assert_eq!(
        s.lift_hold("h.test", Timestamp(1_000), false).unwrap(),
        Lift::default()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue #18 (R5: "wait at least that long"): a reset lifts our own
/// holds but keeps a server's Retry-After, also under a longer
/// cool-down of ours, unless forced.
#[test]
fn a_reset_keeps_a_servers_retry_after_unless_forced() {
    let dir = std::env::temp_dir().join(format!("wr-store-ra-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let s = Store::open(&dir).unwrap();
    let now = Timestamp(1_000);
    // Our backoff, then the server's Retry-After, then our cool-down.
    s.hold("h.test", Timestamp(2_000), HoldCause::Backoff)
        .unwrap();
    s.hold("h.test", Timestamp(3_600_000), HoldCause::RetryAfter)
        .unwrap();
    s.hold("h.test", Timestamp(1_000), HoldCause::RetryAfter)
        .unwrap();
    let row = s.host("h.test").unwrap();
    assert_eq!(row.hold_until, Some(Timestamp(3_600_000)));
    assert_eq!(row.retry_after_until, Some(Timestamp(3_600_000)));
    s.hold("h.test", Timestamp(7_200_000), HoldCause::Cooldown)
        .unwrap();
    let row = s.host("h.test").unwrap();
    assert_eq!(
        (row.hold_until, row.cooldown, row.retry_after_until),
        (Some(Timestamp(7_200_000)), true, Some(Timestamp(3_600_000)))
    );
    // Without force: our cool-down goes, the server's hour stays.
    let lift = s.lift_hold("h.test", now, false).unwrap();
    assert_eq!(
        lift,
        Lift {
            was: Some(Timestamp(7_200_000)),
            kept: Some(Timestamp(3_600_000)),
            forced: None
        }
    );
    let row = s.host("h.test").unwrap();
    assert_eq!(row.hold_until, Some(Timestamp(3_600_000)));
    assert!(!row.cooldown);
    // Again: nothing of ours left, the server's hold is kept.
    let lift = s.lift_hold("h.test", now, false).unwrap();
    assert_eq!(lift.kept, Some(Timestamp(3_600_000)));
    assert_eq!(
        s.host("h.test").unwrap().hold_until,
        Some(Timestamp(3_600_000))
    );
    // Forced: lifted, and said so.
    let lift = s.lift_hold("h.test", now, true).unwrap();
    assert_eq!(
        lift,
        Lift {
            was: Some(Timestamp(3_600_000)),
            kept: None,
            forced: Some(Timestamp(3_600_000))
        }
    );
    let row = s.host("h.test").unwrap();
    assert_eq!((row.hold_until, row.retry_after_until), (None, None));
    // A Retry-After already past is no reason to keep anything.
    s.hold("p.test", Timestamp(500), HoldCause::RetryAfter)
        .unwrap();
    s.hold("p.test", Timestamp(9_000), HoldCause::Cooldown)
        .unwrap();
    let lift = s.lift_hold("p.test", now, false).unwrap();
    assert_eq!((lift.was, lift.kept), (Some(Timestamp(9_000)), None));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A store from before Retry-After was kept apart: its "backoff" holds
/// may have been a server's, so they are read as one (R5's side).
#[test]
fn an_older_stores_backoff_holds_are_kept_as_the_servers() {
    let dir = std::env::temp_dir().join(format!("wr-store-ra-old-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let old = Connection::open(dir.join(crate::config::DB_FILE)).unwrap();
    old.execute_batch(
        "CREATE TABLE hosts(
           host TEXT PRIMARY KEY, last_request INTEGER, hold_until INTEGER, hold_reason TEXT);
         INSERT INTO hosts VALUES ('ra.test', NULL, 5000, 'backoff');
         INSERT INTO hosts VALUES ('cool.test', NULL, 5000, 'cooldown');
         PRAGMA user_version = 1;",
    )
    .unwrap();
    drop(old);
    let s = Store::open_existing(&dir, true).unwrap().unwrap();
    assert_eq!(
        s.host("ra.test").unwrap().retry_after_until,
        Some(Timestamp(5_000))
    );
    assert_eq!(s.host("cool.test").unwrap().retry_after_until, None);
    assert_eq!(
        s.lift_hold("ra.test", Timestamp(1_000), false)
            .unwrap()
            .kept,
        Some(Timestamp(5_000))
    );
    assert_eq!(
        s.lift_hold("cool.test", Timestamp(1_000), false)
            .unwrap()
            .kept,
        None
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A store from before sources were keyed by URL: what it holds under
/// the name moves to the key once, and never over an existing key.
#[test]
fn a_named_source_is_adopted_by_its_key_once() {
    let dir = std::env::temp_dir().join(format!("wr-store-adopt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut s = Store::open(&dir).unwrap();
    record(&mut s, &["a", "b"], 1_000);
    s.record_run("src", Timestamp(1_000), "ok").unwrap();
    s.adopt_name("src", "https://a.test/f").unwrap();
    assert_eq!(s.items_seen("https://a.test/f").unwrap(), 2);
    assert_eq!(
        s.source("https://a.test/f").unwrap().last_run,
        Some(Timestamp(1_000))
    );
    assert_eq!(s.items_seen("src").unwrap(), 0);
    // A later row under the old name does not replace the key's.
    s.record_run("src", Timestamp(9_000), "failed").unwrap();
    s.adopt_name("src", "https://a.test/f").unwrap();
    assert_eq!(
        s.source("https://a.test/f").unwrap().last_run,
        Some(Timestamp(1_000))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn titles(items: Vec<Item>) -> Vec<String> {
    items.into_iter().map(|i| i.title).collect()
}

fn days(first: &str, last: &str, start: u64, end: u64) -> Days {
    Days {
        first: first.into(),
        last: last.into(),
        start: Timestamp(start),
        end: Timestamp(end),
        today: "9999-12-31".into(),
    }
}

/// A day's items come back in the order they were delivered, each
/// once; a later digest of the same day adds to them and replaces the
/// day's sections; an item keeps its first day whatever lists it again.
#[test]
fn a_digest_day_keeps_its_items_in_delivery_order() {
    let dir = std::env::temp_dir().join(format!("wr-store-digest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut s = Store::open(&dir).unwrap();
    let (a, c, z) = (item("a").id, item("c").id, item("z").id);
    record(&mut s, &["z"], 500);
    // Run 1 of the day delivers z (owed from an earlier, failed run) ...
    let head = |status: &str| DigestSource {
        source: "src".into(),
        name: "Src".into(),
        url: "https://a.test/".into(),
        tags: vec!["t".into()],
        status: status.into(),
        reason: None,
        outcome: None,
        method: Some("feed".into()),
        max_items: Some(9),
        written_at: Timestamp(0),
    };
    record(&mut s, &["a", "b"], 1_000);
    let first: Vec<(&str, &str)> = vec![("src", z.as_str()), ("src", a.as_str())];
    s.record_digest("2026-11-24", Timestamp(2_000), first, Some(&[head("ok")]))
        .unwrap();
    // ... run 2 the same day delivers c and b (b was left pending).
    record(&mut s, &["c"], 3_000);
    let b = item("b").id;
    let second = [
        ("src", c.as_str()),
        ("src", b.as_str()),
        ("src", a.as_str()),
    ];
    s.record_digest(
        "2026-11-24",
        Timestamp(4_000),
        second,
        Some(&[head("skipped")]),
    )
    .unwrap();
    let day = days("2026-11-24", "2026-11-24", 0, 10_000);
    assert_eq!(
        titles(s.day_items("src", &day).unwrap()),
        ["z", "a", "b", "c"]
    );
    assert_eq!(
        titles(s.reported_on("src", "2026-11-24").unwrap()),
        ["z", "a", "b", "c"]
    );
    assert_eq!(s.day_item_sources(&day).unwrap(), ["src"]);
    let mut heads = s.digest_sources("2026-11-24").unwrap();
    assert_eq!(heads.len(), 1);
    assert_eq!(heads[0].status, "skipped");
    assert_eq!(heads[0].tags, ["t"]);
    assert_eq!(heads[0].written_at, Timestamp(4_000));
    assert_eq!(heads[0].max_items, Some(9));
    assert_eq!(s.last_digest_source("src").unwrap(), heads.pop());
    // The next day, an `--all` digest lists everything again: nothing
    // moves, and without sections the day has none.
    let all = [("src", a.as_str()), ("src", c.as_str())];
    s.record_digest("2026-11-25", Timestamp(90_000), all, None)
        .unwrap();
    let next = days("2026-11-25", "2026-11-25", 86_400_000, 172_800_000);
    assert!(s.day_items("src", &next).unwrap().is_empty());
    assert!(s.digest_sources("2026-11-25").unwrap().is_empty());
    assert_eq!(
        s.item_counts("src").unwrap(),
        ItemCounts {
            seen: 4,
            pending: 0
        }
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue #23: a store from before publisher hints (schema 3, no
/// `next_fetch` columns) opens, knows no hint, takes one, and a reset
/// forgets it with the last run.
#[test]
fn a_store_from_before_hints_gains_them_and_reset_forgets_them() {
    let dir = std::env::temp_dir().join(format!("wr-store-hints-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let old = Connection::open(dir.join(crate::config::DB_FILE)).unwrap();
    old.execute_batch(
        "CREATE TABLE sources(name TEXT PRIMARY KEY, last_run INTEGER, last_status TEXT,
           method TEXT, fetched_url TEXT, offered_at INTEGER,
           error_streak INTEGER NOT NULL DEFAULT 0, last_note TEXT);
         INSERT INTO sources(name, last_run, last_status) VALUES ('src', 1000, 'ok');
         PRAGMA user_version = 3;",
    )
    .unwrap();
    drop(old);
    let s = Store::open(&dir).unwrap();
    let row = s.source("src").unwrap();
    assert_eq!(row.last_run, Some(Timestamp(1000)));
    assert_eq!((row.next_fetch, row.next_fetch_by), (None, None));
    s.set_next_fetch("src", Timestamp(9000), "ttl", Some("90 - - 0 0"))
        .unwrap();
    // A 304 keeps the feed's hints.
    s.set_next_fetch("src", Timestamp(9500), "ttl", None)
        .unwrap();
    let row = s.source("src").unwrap();
    assert_eq!(row.next_fetch, Some(Timestamp(9500)));
    assert_eq!(row.next_fetch_by.as_deref(), Some("ttl"));
    assert_eq!(row.feed_hints.as_deref(), Some("90 - - 0 0"));
    let version: i64 = s
        .conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    assert!(s.reset_source("src").unwrap());
    let row = s.source("src").unwrap();
    assert_eq!((row.last_run, row.next_fetch), (None, None));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A store written before days were recorded (items reported, no
/// `reported_on`, no `reported_at`, no `digest_sources`) opens, keeps
/// its items reported with a NULL day, and places them by the day they
/// were first seen; a digest today never takes them over.
#[test]
fn items_reported_before_days_were_recorded_belong_to_their_first_seen_day() {
    let dir = std::env::temp_dir().join(format!("wr-store-legacy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let old = Connection::open(dir.join(crate::config::DB_FILE)).unwrap();
    old.execute_batch(
        "CREATE TABLE sources(name TEXT PRIMARY KEY, last_run INTEGER, last_status TEXT,
           method TEXT, fetched_url TEXT, offered_at INTEGER);
         CREATE TABLE items(
           source TEXT NOT NULL, id TEXT NOT NULL, url TEXT NOT NULL, title TEXT NOT NULL,
           published TEXT, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
           position INTEGER NOT NULL, reported INTEGER NOT NULL DEFAULT 0,
           PRIMARY KEY (source, id));
         INSERT INTO items VALUES ('src', 'https://a.test/old', 'https://a.test/old', 'old',
           NULL, 1000, 1000, 0, 1);
         INSERT INTO items VALUES ('src', 'https://a.test/owed', 'https://a.test/owed', 'owed',
           NULL, 1000, 1000, 1, 0);",
    )
    .unwrap();
    drop(old);
    // Read-only first: the schema is brought up to date, then read.
    let ro = Store::open_existing(&dir, false).unwrap().expect("a store");
    let day1 = days("1970-01-01", "1970-01-01", 0, 86_400_000);
    assert_eq!(titles(ro.day_items("src", &day1).unwrap()), ["old"]);
    assert!(ro.reported_on("src", "1970-01-01").unwrap().is_empty());
    assert_eq!(
        ro.item_counts("src").unwrap(),
        ItemCounts {
            seen: 2,
            pending: 1
        }
    );
    assert_eq!(ro.error_streak("src").unwrap(), 0);
    drop(ro);
    let mut s = Store::open(&dir).unwrap();
    let (old_id, owed) = (
        "https://a.test/old".to_string(),
        "https://a.test/owed".to_string(),
    );
    s.record_digest(
        "2026-11-24",
        Timestamp(1_779_580_800_000),
        [("src", old_id.as_str()), ("src", owed.as_str())],
        None,
    )
    .unwrap();
    let today = days(
        "2026-11-24",
        "2026-11-24",
        1_779_580_800_000,
        1_779_667_200_000,
    );
    assert_eq!(titles(s.day_items("src", &today).unwrap()), ["owed"]);
    assert_eq!(titles(s.day_items("src", &day1).unwrap()), ["old"]);
    record(&mut s, &["new"], 1_779_580_900_000);
    assert_eq!(titles(s.pending_items("src").unwrap()), ["new"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `status`, `show` and `reset` open only a store that exists (nothing
/// is created for a mistyped directory), and read while another
/// connection holds a write transaction, as a run does.
#[test]
fn an_existing_store_is_read_while_a_run_writes() {
    let dir = std::env::temp_dir().join(format!("wr-store-ro-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(Store::open_existing(&dir, false).unwrap().is_none());
    assert!(Store::open_existing(&dir, true).unwrap().is_none());
    assert!(!dir.exists(), "nothing created");
    let mut s = Store::open(&dir).unwrap();
    record(&mut s, &["a"], 1);
    s.record_run("src", Timestamp(1), "failed").unwrap();
    let writer = Connection::open(dir.join(crate::config::DB_FILE)).unwrap();
    writer
        .execute_batch("BEGIN IMMEDIATE; UPDATE sources SET last_status = 'ok';")
        .unwrap();
    let started = std::time::Instant::now();
    let ro = Store::open_existing(&dir, false).unwrap().expect("a store");
    assert_eq!(
        ro.source("src").unwrap().last_status.as_deref(),
        Some("failed")
    );
    assert_eq!(ro.error_streak("src").unwrap(), 1);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        ro.record_run("src", Timestamp(2), "ok").is_err(),
        "read-only"
    );
    writer.execute_batch("COMMIT").unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn items_are_pending_until_reported() {
    let dir = std::env::temp_dir().join(format!("wr-store-pending-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut s = Store::open(&dir).unwrap();
    assert_eq!(record(&mut s, &["1", "2"], 1), ["1", "2"]);
    // Not delivered: still owed, alongside anything new.
    assert_eq!(
        record(&mut s, &["2", "3"], 2),
        ["1", "2", "3"],
        "first seen first"
    );
    s.mark_reported([("src", "https://a.test/1"), ("src", "https://a.test/2")])
        .unwrap();
    let pending: Vec<String> = s
        .pending_items("src")
        .unwrap()
        .into_iter()
        .map(|i| i.title)
        .collect();
    assert_eq!(pending, ["3"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_store_from_before_reporting_treats_its_items_as_reported() {
    let dir = std::env::temp_dir().join(format!("wr-store-migrate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let old = Connection::open(dir.join(crate::config::DB_FILE)).unwrap();
    old.execute_batch(
        "CREATE TABLE items(
           source TEXT NOT NULL, id TEXT NOT NULL, url TEXT NOT NULL, title TEXT NOT NULL,
           published TEXT, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
           position INTEGER NOT NULL, PRIMARY KEY (source, id));
         INSERT INTO items VALUES ('src', 'https://a.test/1', 'https://a.test/1', '1', NULL, 1, 1, 0);",
    )
    .unwrap();
    drop(old);
    let mut s = Store::open(&dir).unwrap();
    assert!(s.pending_items("src").unwrap().is_empty());
    assert_eq!(record(&mut s, &["1", "2"], 2), ["2"]);
    let _ = std::fs::remove_dir_all(&dir);
}
