//! All persistent state in one SQLite database (R11), WAL mode.
//!
//! Tables: `robots` (per origin: status class, body truncated at 500 KiB,
//! fetch instant), `blocklist` (the adopted list: contract, refresh,
//! entries), `schema_cache` (the standalone blocklist schema, R10),
//! `validators` (ETag / Last-Modified per URL and Accept variant, R7, with
//! the representation they belong to), `hosts` (per-host last request and
//! hold, R4/R5, shared by every process using the state directory: R4a;
//! the instant a server's `Retry-After` asked to wait until is kept in a
//! column of its own, `retry_after_until`, because R5 lets no one shorten
//! it, not even `wr-feeds reset`),
//! `sources` (per-source last run, R8, and failed runs in a row), `items`
//! (every item seen per source, with `first_seen`, the set currently
//! offered, and the day and instant of the digest that first reported it)
//! and `digest_sources` (per digest day, each source's heading and
//! outcome as the last digest of that day wrote them, so `show` can write
//! that digest again).
//!
//! Migrations only add: columns with defaults and new tables, so a store
//! written by an older wr-feeds keeps working. Items an older wr-feeds
//! reported have no `reported_on` (NULL: "reported before days were
//! recorded"); the day they were first seen stands in for it wherever a
//! day is asked for ([`Days`]).
//!
//! Every method is one transaction (autocommit or explicit), so a process
//! killed at any moment leaves every committed unit of work intact and the
//! database consistent (SQLite's WAL guarantees atomic commits).
//! `synchronous = NORMAL`: a killed *process* loses nothing committed; only
//! an OS crash or power loss may drop the last transactions, never corrupt.

use crate::item::Item;
pub use crate::state::{
    BlocklistRow, Days, DigestSource, HostRow, ItemCounts, RobotsRow, SectionOutcome, SourceRow,
    Validators,
};
use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;
use wr_core::time::Timestamp;

/// A state-store failure, naming the database file.
#[derive(Debug, thiserror::Error)]
#[error("state store {}: {reason}", path.display())]
pub struct StoreError {
    /// The database (or directory).
    pub path: PathBuf,
    /// What failed, in words (it already quotes the underlying error).
    pub reason: String,
    /// The underlying error: the SQLite error, or the I/O error of
    /// creating the state directory.
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

/// Result alias.
pub type Result<T> = std::result::Result<T, StoreError>;

const SCHEMA: &str = "
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
  deferred_runs INTEGER NOT NULL DEFAULT 0, deferred_at INTEGER, deferred_reason TEXT,
  last_outcome TEXT, deferred_outcome TEXT);
CREATE TABLE IF NOT EXISTS items(
  source TEXT NOT NULL, id TEXT NOT NULL, url TEXT NOT NULL, title TEXT NOT NULL,
  published TEXT, first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL,
  position INTEGER NOT NULL, reported INTEGER NOT NULL DEFAULT 0, reported_on TEXT,
  reported_at INTEGER, PRIMARY KEY (source, id));
CREATE TABLE IF NOT EXISTS digest_sources(
  day TEXT NOT NULL, source TEXT NOT NULL, position INTEGER NOT NULL, name TEXT NOT NULL,
  url TEXT NOT NULL, tags TEXT NOT NULL, status TEXT NOT NULL, reason TEXT, method TEXT,
  max_items INTEGER, written_at INTEGER NOT NULL, outcome TEXT, PRIMARY KEY (day, source));
";

/// `PRAGMA user_version` of a store whose schema is this version's: every
/// migration of [`migrate`] has run. A store below it is brought up to
/// date when it is opened for writing (or, for a read-only open, once,
/// before it is read). 2: `hosts.retry_after_until` (issue #18) or
/// `sources.last_note` (issue #19), each added on its own branch; 3: both;
/// 4: `hosts.retry_after_asked` (issue #20, a capped Retry-After) or
/// `sources.next_fetch`, `next_fetch_by`, `feed_hints`, `deferred_runs`,
/// `deferred_at`, `deferred_reason` (issue #23), each on its own branch;
/// 5: both; 6: outcomes stored as typed JSON, never as sentences
/// (`sources.last_outcome`, `sources.deferred_outcome`,
/// `digest_sources.outcome`; issue #21). A row written before 6 keeps
/// the words it was written with in `reason` and `deferred_reason`,
/// shown as they are: words are never parsed back into an outcome.
const SCHEMA_VERSION: i64 = 6;

/// Why a host is held (R5), as [`Store::hold`] records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldCause {
    /// The server's `Retry-After`: kept apart, never shortened by a reset
    /// without `force` ([`Store::lift_hold`]).
    RetryAfter,
    /// Our own jittered backoff after a failure without a `Retry-After`.
    Backoff,
    /// Our own cool-down after retries ran out.
    Cooldown,
}

/// What [`Store::lift_hold`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lift {
    /// The hold before the reset, if the host was held after `now`.
    pub was: Option<Timestamp>,
    /// A server's `Retry-After` that is still in force after the reset
    /// (kept: `force` was not given). The host stays held until then.
    pub kept: Option<Timestamp>,
    /// A server's `Retry-After` that `force` lifted.
    pub forced: Option<Timestamp>,
}

/// The columns [`Store::query_heads`] reads.
const HEAD_COLUMNS: &str = "SELECT source, name, url, tags, status, reason, method, max_items,
   written_at, outcome FROM digest_sources";

/// A stored JSON value, when it reads back as `T`.
fn typed<T: serde::de::DeserializeOwned>(json: Option<String>) -> Option<T> {
    json.and_then(|j| serde_json::from_str(&j).ok())
}

/// A value as stored JSON.
fn json<T: serde::Serialize>(value: &T) -> Option<String> {
    serde_json::to_string(value).ok()
}

/// The condition "an item of the days `:first..=:last`, which span the
/// instants `[:start, :end)`" (see [`Days`]).
const IN_DAYS: &str = "reported = 1
     AND ((min(reported_on, :today) >= :first AND min(reported_on, :today) <= :last)
     OR (reported_on IS NULL AND first_seen >= :start AND first_seen < :end))";

fn ts(v: Option<i64>) -> Option<Timestamp> {
    v.map(|x| Timestamp(u64::try_from(x).unwrap_or(0)))
}

/// What a failed statement on the database at `path` reports.
/// How long a statement waits for another process's write to finish before
/// it gives up (and says so, see `describe`).
pub const BUSY_WAIT: Duration = Duration::from_secs(30);

fn sql_error(path: &Path) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError {
        path: path.to_path_buf(),
        reason: describe(&e),
        source: Some(Box::new(e)),
    }
}

/// SQLite's words, except for a busy database: "database is locked" reads
/// like corruption; it means another process held the store too long.
fn describe(e: &rusqlite::Error) -> String {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => format!(
            "busy: another wr-feeds process kept the state store locked for more than {} s; \
             nothing was lost, try again when it has finished ({e})",
            BUSY_WAIT.as_secs()
        ),
        _ => e.to_string(),
    }
}

/// Whether `e` says the store could not be opened or read for want of
/// writing: its `-shm` missing and not creatable (a read-only directory,
/// a full disk), or the file system refusing.
fn cannot_write(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(
            rusqlite::ErrorCode::CannotOpen
                | rusqlite::ErrorCode::ReadOnly
                | rusqlite::ErrorCode::DiskFull
                | rusqlite::ErrorCode::SystemIoFailure
                | rusqlite::ErrorCode::PermissionDenied
        )
    )
}

/// The database file `path` in SQLite's immutable mode: read-only, no
/// `-shm` or `-wal` opened or created, no locks taken.
fn open_immutable(path: &Path) -> rusqlite::Result<Connection> {
    use rusqlite::OpenFlags;
    let conn = Connection::open_with_flags(
        immutable_uri(path),
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(BUSY_WAIT)?;
    Ok(conn)
}

/// `file:PATH?immutable=1`, every octet of PATH but unreserved ones and
/// `/` percent-encoded (a `?`, `#` or `%` in a directory name would
/// otherwise end the path or start an escape).
fn immutable_uri(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut uri = String::from("file:");
    // An absolute Windows path (`C:/...`) is written `file:/C:/...`.
    #[cfg(windows)]
    let text = text.replace('\\', "/");
    #[cfg(windows)]
    if text.as_bytes().get(1) == Some(&b':') {
        uri.push('/');
    }
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

fn pending_in(conn: &Connection, source: &str) -> rusqlite::Result<Vec<Item>> {
    query_items(
        conn,
        "SELECT url, title, published, id FROM items WHERE source = ?1 AND reported = 0
         ORDER BY first_seen, position",
        source,
    )
}

/// Runs `sql`, which selects `url, title, published, id` for the source
/// `?1`, and reads the rows as items.
fn query_items(conn: &Connection, sql: &str, source: &str) -> rusqlite::Result<Vec<Item>> {
    let mut st = conn.prepare(sql)?;
    let rows = st.query_map([source], |r| {
        Ok(Item {
            url: r.get(0)?,
            title: r.get(1)?,
            published: r.get(2)?,
            id: r.get(3)?,
        })
    })?;
    rows.collect()
}

/// [`query_items`] with any parameters.
fn query_items_with(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<Item>> {
    let mut st = conn.prepare(sql)?;
    let rows = st.query_map(params, |r| {
        Ok(Item {
            url: r.get(0)?,
            title: r.get(1)?,
            published: r.get(2)?,
            id: r.get(3)?,
        })
    })?;
    rows.collect()
}

fn sql_ts(t: Timestamp) -> i64 {
    i64::try_from(t.0).unwrap_or(i64::MAX)
}

/// Creates what is missing and adds what older versions lack; every step
/// is idempotent (a store from any earlier version, or this one).
fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.execute_batch(SCHEMA)?;
    let has = |table: &str, column: &str| {
        conn.prepare(&format!("SELECT {column} FROM {table} LIMIT 0"))
            .is_ok()
    };
    // Stores from before `reported` existed: what they hold was shown in
    // an earlier digest.
    if !has("items", "reported") {
        conn.execute_batch("ALTER TABLE items ADD COLUMN reported INTEGER NOT NULL DEFAULT 1")?;
    }
    if !has("sources", "error_streak") {
        conn.execute_batch(
            "ALTER TABLE sources ADD COLUMN error_streak INTEGER NOT NULL DEFAULT 0",
        )?;
    }
    // Stores from before a run's notes on its source (issue #19).
    if !has("sources", "last_note") {
        conn.execute_batch("ALTER TABLE sources ADD COLUMN last_note TEXT")?;
    }
    // Stores from before digest days: their reported items keep a NULL day
    // ("reported before days were recorded"); the day they were first seen
    // stands in for it (see `Days`).
    if !has("items", "reported_on") {
        conn.execute_batch("ALTER TABLE items ADD COLUMN reported_on TEXT")?;
    }
    // The instant of the digest that first reported an item: a day's
    // digest lists its items in the order they were delivered.
    if !has("items", "reported_at") {
        conn.execute_batch("ALTER TABLE items ADD COLUMN reported_at INTEGER")?;
    }
    // Stores from before the server's Retry-After was kept apart (issue
    // #18): they wrote it as a "backoff" hold, as they wrote our own
    // backoff. Reading every such hold as the server's is R5's side: a
    // reset keeps it, and our own backoff lasts at most a minute anyway.
    if !has("hosts", "retry_after_until") {
        conn.execute_batch(
            "ALTER TABLE hosts ADD COLUMN retry_after_until INTEGER;
             UPDATE hosts SET retry_after_until = hold_until
               WHERE hold_reason = 'backoff' AND hold_until IS NOT NULL;",
        )?;
    }
    // The instant a server's Retry-After asked for, when it lay past
    // `RETRY_AFTER_CAP` and was capped (issue #20).
    if !has("hosts", "retry_after_asked") {
        conn.execute_batch("ALTER TABLE hosts ADD COLUMN retry_after_asked INTEGER")?;
    }
    // Stores from before publisher hints (issue #23): no hint is known,
    // R8's hour alone decides until the next fetch.
    // And from before deferrals were counted: none is known.
    for column in [
        "next_fetch INTEGER",
        "next_fetch_by TEXT",
        "feed_hints TEXT",
        "deferred_runs INTEGER NOT NULL DEFAULT 0",
        "deferred_at INTEGER",
        "deferred_reason TEXT",
    ] {
        let name = column.split(' ').next().unwrap_or(column);
        if !has("sources", name) {
            conn.execute_batch(&format!("ALTER TABLE sources ADD COLUMN {column}"))?;
        }
    }
    add_outcome_columns(conn)?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version < SCHEMA_VERSION {
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    Ok(())
}

/// Schema 6 (issue #21): outcomes as typed JSON. Rows from before keep
/// the words they were written with; nothing is parsed back from them.
fn add_outcome_columns(conn: &Connection) -> rusqlite::Result<()> {
    for (table, column) in [
        ("sources", "last_outcome"),
        ("sources", "deferred_outcome"),
        ("digest_sources", "outcome"),
    ] {
        let present = conn
            .prepare(&format!("SELECT {column} FROM {table} LIMIT 0"))
            .is_ok();
        if !present {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} TEXT"))?;
        }
    }
    Ok(())
}

/// The state database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// Opened in SQLite's immutable mode ([`Store::open_existing`]).
    immutable: bool,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens (creating the directory and tables) `<dir>/wr-feeds.sqlite3`.
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir).map_err(|e| StoreError {
            path: dir.to_path_buf(),
            reason: format!("cannot create the state directory: {e}"),
            source: Some(Box::new(e)),
        })?;
        let path = dir.join(crate::config::DB_FILE);
        let err = |e: rusqlite::Error| StoreError {
            path: path.clone(),
            reason: e.to_string(),
            source: Some(Box::new(e)),
        };
        let conn = Connection::open(&path).map_err(err)?;
        conn.busy_timeout(BUSY_WAIT).map_err(err)?;
        migrate(&conn).map_err(err)?;
        Ok(Store {
            conn,
            path,
            immutable: false,
        })
    }

    /// Opens the store of `dir` if there is one, creating nothing: `None`
    /// when the directory holds no database. For `status`, `show` and
    /// `reset`, which need no run lock: with `write` false the connection
    /// is read-only, and SQLite's WAL lets it read while a run writes. A
    /// store from an older wr-feeds is brought up to date first (a short
    /// write, waiting at most [`BUSY_WAIT`] for a run's transaction).
    ///
    /// Read-only, it still works where nothing can be written (a read-only
    /// mount, a full disk, a directory the user may not write; issue
    /// #20): a WAL database needs its `-shm` file, and when that file is
    /// missing and cannot be created SQLite cannot open it ("unable to
    /// open database file"), though `status` and `show` only read. The
    /// open then falls back to SQLite's immutable mode
    /// (`file:...?immutable=1`), which reads the database file alone
    /// ([`Store::is_immutable`] says so): what a run wrote to the `-wal`
    /// and never folded back (a run killed mid-way) is not seen, which
    /// the caller must say.
    pub fn open_existing(dir: &Path, write: bool) -> Result<Option<Store>> {
        Store::open_existing_as(dir, write, false)
    }

    /// Whether [`Store::open_existing`] had to read the database in
    /// SQLite's immutable mode (the state directory cannot be written).
    pub fn is_immutable(&self) -> bool {
        self.immutable
    }

    /// [`Store::open_existing`]; `immutable` forces the fallback of a
    /// read-only open (tests: the sessions that run them are root, which
    /// writes anywhere a permission alone forbids).
    #[doc(hidden)]
    pub fn open_existing_as(dir: &Path, write: bool, immutable: bool) -> Result<Option<Store>> {
        use rusqlite::OpenFlags;
        let path = dir.join(crate::config::DB_FILE);
        if !path.is_file() {
            return Ok(None);
        }
        let err = |e: rusqlite::Error| StoreError {
            path: path.clone(),
            reason: describe(&e),
            source: Some(Box::new(e)),
        };
        let rw = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let ro = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let open = |flags| -> rusqlite::Result<Connection> {
            let conn = Connection::open_with_flags(&path, flags)?;
            conn.busy_timeout(BUSY_WAIT)?;
            Ok(conn)
        };
        let version = |conn: &Connection| -> rusqlite::Result<i64> {
            conn.query_row("PRAGMA user_version", [], |r| r.get(0))
        };
        // SQLite opens lazily: the first read is where a missing `-shm`
        // that cannot be created shows.
        let first = if immutable && !write {
            Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CANTOPEN),
                Some("forced immutable".into()),
            ))
        } else {
            open(if write { rw } else { ro }).and_then(|c| version(&c).map(|v| (c, v)))
        };
        let (conn, version, immutable) = match first {
            Ok((c, v)) => (c, v, false),
            Err(e) if !write && cannot_write(&e) => {
                let c = open_immutable(&path).map_err(|e2| StoreError {
                    path: path.clone(),
                    reason: format!(
                        "{}; read in SQLite's immutable mode instead: {}",
                        describe(&e),
                        describe(&e2)
                    ),
                    source: Some(Box::new(e2)),
                })?;
                let v = version(&c).map_err(err)?;
                if v < SCHEMA_VERSION {
                    return Err(StoreError {
                        path: path.clone(),
                        reason: format!(
                            "the store is from an older wr-feeds and needs a one-time \
                             upgrade, which needs the state directory writable ({})",
                            describe(&e)
                        ),
                        source: Some(Box::new(e)),
                    });
                }
                (c, v, true)
            }
            Err(e) => return Err(err(e)),
        };
        let conn = if version >= SCHEMA_VERSION {
            conn
        } else if write {
            migrate(&conn).map_err(err)?;
            conn
        } else {
            drop(conn);
            migrate(&open(rw).map_err(err)?).map_err(err)?;
            open(ro).map_err(err)?
        };
        Ok(Some(Store {
            conn,
            path,
            immutable,
        }))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        sql_error(&self.path)(e)
    }

    // ---- R4 / R4a: per-host schedule ------------------------------------

    /// A host's schedule row.
    pub fn host(&self, host: &str) -> Result<HostRow> {
        read_host(&self.conn, host).map_err(|e| self.err(e))
    }

    /// Every host row (to seed a gate).
    pub fn hosts(&self) -> Result<Vec<(String, HostRow)>> {
        let run = || -> rusqlite::Result<Vec<(String, HostRow)>> {
            let mut st = self
                .conn
                .prepare(&format!("SELECT host, {HOST_COLUMNS} FROM hosts"))?;
            let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, host_row(r, 1)?)))?;
            rows.collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// Clamps every stored instant of the schedule that lies beyond what
    /// a clock that was right could have written ([`HostRow::clamped`],
    /// and R8's `sources.last_run` to now) and writes the clamped values
    /// back; returns how many rows changed. Clamping only on read was not
    /// enough: each read clamped to its own "now", so a last run 3 days
    /// ahead was always "just now" and R8 skipped the source for the whole
    /// skew, a hold always ended an hour later (issue #20).
    pub fn clamp_instants(&self, now: Timestamp) -> Result<usize> {
        let hosts = self.hosts()?;
        let run = || -> rusqlite::Result<usize> {
            let mut changed = 0;
            for (host, row) in hosts {
                let c = row.clamped(now);
                if c != row {
                    changed += self.conn.execute(
                        "UPDATE hosts SET last_request = ?2, hold_until = ?3,
                           retry_after_until = ?4, retry_after_asked = ?5 WHERE host = ?1",
                        params![
                            host,
                            c.last_request.map(sql_ts),
                            c.hold_until.map(sql_ts),
                            c.retry_after_until.map(sql_ts),
                            c.retry_after_asked.map(sql_ts)
                        ],
                    )?;
                }
            }
            let runs: Vec<(String, Timestamp)> = {
                let mut st = self
                    .conn
                    .prepare("SELECT name, last_run FROM sources WHERE last_run IS NOT NULL")?;
                let rows = st.query_map([], |r| Ok((r.get::<_, String>(0)?, ts(r.get(1)?))))?;
                rows.filter_map(|r| r.map(|(n, t)| t.map(|t| (n, t))).transpose())
                    .collect::<rusqlite::Result<_>>()?
            };
            for (name, at) in runs {
                let c = crate::clock::clamp_stored(at, now, Duration::ZERO);
                if c != at {
                    changed += self.conn.execute(
                        "UPDATE sources SET last_run = ?2 WHERE name = ?1",
                        params![name, sql_ts(c)],
                    )?;
                }
            }
            Ok(changed)
        };
        run().map_err(|e| self.err(e))
    }

    /// R4a: takes `host`'s slot atomically across processes. Inside one
    /// `BEGIN IMMEDIATE` transaction (a write lock, so two processes
    /// serialise here): reads the host's row, passes it to `admit` (which
    /// observes it in the gate and admits), and when `admit` returns
    /// `Ok((value, at))` records `at` as the host's last request and commits.
    pub fn reserve<T, E>(
        &mut self,
        host: &str,
        admit: impl FnOnce(HostRow) -> std::result::Result<(T, Timestamp), E>,
    ) -> Result<std::result::Result<T, E>> {
        let err = sql_error(&self.path);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&err)?;
        let row = read_host(&tx, host).map_err(&err)?;
        match admit(row) {
            Ok((value, at)) => {
                tx.execute(
                    "INSERT INTO hosts(host, last_request) VALUES (?1, ?2)
                     ON CONFLICT(host) DO UPDATE SET last_request =
                       max(coalesce(last_request, 0), excluded.last_request)",
                    params![host, sql_ts(at)],
                )
                .map_err(&err)?;
                tx.commit().map_err(&err)?;
                Ok(Ok(value))
            }
            Err(e) => {
                tx.rollback().map_err(&err)?;
                Ok(Err(e))
            }
        }
    }

    /// R4a for the fetch machines: inside one `BEGIN IMMEDIATE` transaction,
    /// reads `host`'s row and passes it to `decide`, which returns its value
    /// and, when it took a slot, the host and instant to record. Nothing is
    /// written otherwise.
    pub fn reserve_slot<T>(
        &mut self,
        host: &str,
        decide: impl FnOnce(HostRow) -> (T, Option<(String, Timestamp)>),
    ) -> Result<T> {
        let err = sql_error(&self.path);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&err)?;
        let row = read_host(&tx, host).map_err(&err)?;
        let (value, slot) = decide(row);
        if let Some((slot_host, at)) = slot {
            tx.execute(
                "INSERT INTO hosts(host, last_request) VALUES (?1, ?2)
                 ON CONFLICT(host) DO UPDATE SET last_request =
                   max(coalesce(last_request, 0), excluded.last_request)",
                params![slot_host, sql_ts(at)],
            )
            .map_err(&err)?;
        }
        tx.commit().map_err(&err)?;
        Ok(value)
    }

    /// R5: nothing goes to `host` before `until` (never shortens a hold).
    /// A server's `Retry-After` is also recorded apart
    /// ([`HostRow::retry_after_until`]), so a later hold of ours (a
    /// cool-down) cannot hide it from [`Store::lift_hold`].
    pub fn hold(&self, host: &str, until: Timestamp, cause: HoldCause) -> Result<()> {
        self.hold_asked(host, until, cause, None)
    }

    /// [`Store::hold`] as a run records it at `now`: a server's
    /// `Retry-After` past [`wr_core::constants::RETRY_AFTER_CAP`] is
    /// capped ([`wr_core::retry_after::cap_hold`]) and what it asked for
    /// kept beside it, for `status` to show (issue #20).
    pub fn hold_at(
        &self,
        host: &str,
        until: Timestamp,
        cause: HoldCause,
        now: Timestamp,
    ) -> Result<()> {
        if cause != HoldCause::RetryAfter {
            return self.hold(host, until, cause);
        }
        let capped = wr_core::retry_after::cap_hold(until, now);
        self.hold_asked(host, capped, cause, (capped < until).then_some(until))
    }

    fn hold_asked(
        &self,
        host: &str,
        until: Timestamp,
        cause: HoldCause,
        asked: Option<Timestamp>,
    ) -> Result<()> {
        // `hold_reason` keeps the words older versions read.
        let reason = match cause {
            HoldCause::Cooldown => "cooldown",
            HoldCause::Backoff | HoldCause::RetryAfter => "backoff",
        };
        let retry_after = (cause == HoldCause::RetryAfter).then(|| sql_ts(until));
        // Every expression of the update reads the row as it was: what
        // was asked goes with whichever Retry-After ends last.
        self.conn
            .execute(
                "INSERT INTO hosts(host, hold_until, hold_reason, retry_after_until,
                                   retry_after_asked)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(host) DO UPDATE SET
                   hold_reason = CASE WHEN coalesce(hold_until, 0) < excluded.hold_until
                                 THEN excluded.hold_reason ELSE hold_reason END,
                   hold_until = max(coalesce(hold_until, 0), excluded.hold_until),
                   retry_after_asked = CASE WHEN excluded.retry_after_until IS NULL
                                         OR excluded.retry_after_until
                                            < coalesce(retry_after_until, 0)
                                       THEN retry_after_asked
                                       ELSE excluded.retry_after_asked END,
                   retry_after_until = CASE WHEN excluded.retry_after_until IS NULL
                                       THEN retry_after_until
                                       ELSE max(coalesce(retry_after_until, 0),
                                                excluded.retry_after_until) END",
                params![host, sql_ts(until), reason, retry_after, asked.map(sql_ts)],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    // ---- R2 ---------------------------------------------------------------

    /// Every cached robots.txt.
    pub fn robots_all(&self) -> Result<Vec<RobotsRow>> {
        self.robots_where("", [])
    }

    /// The robots.txt cached for `origin` (`scheme://host:port`), if any.
    pub fn robots(&self, origin: &str) -> Result<Option<RobotsRow>> {
        Ok(self
            .robots_where(" WHERE origin = ?1", [origin])?
            .into_iter()
            .next())
    }

    fn robots_where<P: rusqlite::Params>(&self, filter: &str, params: P) -> Result<Vec<RobotsRow>> {
        let run = || -> rusqlite::Result<Vec<RobotsRow>> {
            let mut st = self.conn.prepare(&format!(
                "SELECT origin, status, body, fetched_at FROM robots{filter}"
            ))?;
            let rows = st.query_map(params, |r| {
                Ok(RobotsRow {
                    origin: r.get(0)?,
                    status: r.get(1)?,
                    body: r.get::<_, Option<Vec<u8>>>(2)?.unwrap_or_default(),
                    fetched_at: ts(r.get(3)?).unwrap_or_default(),
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// Caches a robots.txt.
    pub fn put_robots(&self, row: &RobotsRow) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO robots(origin, status, body, fetched_at) VALUES (?1,?2,?3,?4)",
                params![row.origin, row.status, row.body, sql_ts(row.fetched_at)],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    // ---- R3 / R10 ---------------------------------------------------------

    /// The adopted blocklist, if any.
    pub fn blocklist(&self) -> Result<Option<BlocklistRow>> {
        self.conn
            .query_row(
                "SELECT contract, refresh_ms, updated, entries, fetched_at FROM blocklist WHERE id = 1",
                [],
                |r| {
                    Ok(BlocklistRow {
                        contract: r.get(0)?,
                        refresh_ms: u64::try_from(r.get::<_, i64>(1)?).unwrap_or(0),
                        updated: r.get(2)?,
                        entries_json: r.get(3)?,
                        fetched_at: ts(r.get(4)?).unwrap_or_default(),
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Stores a newly adopted blocklist.
    pub fn put_blocklist(&self, row: &BlocklistRow) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO blocklist(id, contract, refresh_ms, updated, entries, fetched_at)
                 VALUES (1, ?1, ?2, ?3, ?4, ?5)",
                params![
                    row.contract,
                    i64::try_from(row.refresh_ms).unwrap_or(i64::MAX),
                    row.updated,
                    row.entries_json,
                    sql_ts(row.fetched_at)
                ],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// The cached standalone schema and when it was fetched.
    pub fn schema(&self, url: &str) -> Result<Option<(Vec<u8>, Timestamp)>> {
        self.conn
            .query_row(
                "SELECT body, fetched_at FROM schema_cache WHERE url = ?1",
                [url],
                |r| Ok((r.get(0)?, ts(r.get(1)?).unwrap_or_default())),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Caches the standalone schema.
    pub fn put_schema(&self, url: &str, body: &[u8], at: Timestamp) -> Result<()> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO schema_cache(url, body, fetched_at) VALUES (?1, ?2, ?3)",
                params![url, body, sql_ts(at)],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    // ---- R7 -----------------------------------------------------------------

    /// Validators stored for `url` fetched with `accept`.
    pub fn validators(&self, url: &str, accept: &str) -> Result<Option<Validators>> {
        self.conn
            .query_row(
                "SELECT etag, last_modified, kind FROM validators WHERE url = ?1 AND accept = ?2",
                [url, accept],
                |r| {
                    Ok(Validators {
                        etag: r.get(0)?,
                        last_modified: r.get(1)?,
                        kind: r.get(2)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Stores (or, with neither validator, forgets) validators.
    pub fn put_validators(
        &self,
        url: &str,
        accept: &str,
        v: &Validators,
        at: Timestamp,
    ) -> Result<()> {
        write_validators(&self.conn, url, accept, v, at).map_err(|e| self.err(e))
    }

    // ---- R8 and items ----------------------------------------------------------

    /// A source's row.
    pub fn source(&self, name: &str) -> Result<SourceRow> {
        self.conn
            .query_row(
                "SELECT last_run, last_status, method, fetched_url, offered_at, last_note,
                   next_fetch, next_fetch_by, feed_hints, deferred_runs, deferred_at,
                   deferred_reason, deferred_outcome, last_outcome
                 FROM sources WHERE name = ?1",
                [name],
                |r| {
                    let deferred_outcome: Option<crate::Why> = typed(r.get(12)?);
                    let deferred_reason = match &deferred_outcome {
                        Some(why) => Some(crate::Reason::new(why.clone()).to_string()),
                        None => r.get(11)?,
                    };
                    Ok(SourceRow {
                        last_run: ts(r.get(0)?),
                        last_status: r.get(1)?,
                        method: r.get(2)?,
                        fetched_url: r.get(3)?,
                        offered_at: ts(r.get(4)?),
                        last_note: r.get(5)?,
                        next_fetch: ts(r.get(6)?),
                        next_fetch_by: r.get(7)?,
                        feed_hints: r.get(8)?,
                        deferred_runs: u32::try_from(r.get::<_, i64>(9)?).unwrap_or(0),
                        deferred_at: ts(r.get(10)?),
                        deferred_reason,
                        deferred_outcome,
                        last_outcome: typed(r.get(13)?),
                    })
                },
            )
            .optional()
            .map(|o| o.unwrap_or_default())
            .map_err(|e| self.err(e))
    }

    /// Records that `name` ran at `at` with `status` (R8), and counts the
    /// failed runs in a row (`wr-feeds status`).
    pub fn record_run(&self, name: &str, at: Timestamp, status: &str) -> Result<()> {
        self.record_run_noted(name, at, status, None)
    }

    /// [`Store::record_run`] with what the run has to say of the source
    /// beyond its status (`read after repairs: ...`, `zero entries: ...`),
    /// which `wr-feeds status` shows; `None` clears an earlier run's.
    pub fn record_run_noted(
        &self,
        name: &str,
        at: Timestamp,
        status: &str,
        note: Option<&str>,
    ) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO sources(name, last_run, last_status, error_streak, last_note)
                 VALUES (?1, ?2, ?3, CASE WHEN ?3 = 'failed' THEN 1 ELSE 0 END, ?4)
                 ON CONFLICT(name) DO UPDATE SET last_run = excluded.last_run,
                   last_status = excluded.last_status,
                   last_note = excluded.last_note,
                   deferred_runs = 0,
                   error_streak = CASE WHEN excluded.last_status = 'failed'
                                  THEN sources.error_streak + 1 ELSE 0 END",
                params![name, sql_ts(at), status, note],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Keeps the last run's outcome of `name` with its facts, beside the
    /// label [`Store::record_run`] wrote.
    pub fn record_outcome(&self, name: &str, status: &crate::SourceStatus) -> Result<()> {
        self.conn
            .execute(
                "UPDATE sources SET last_outcome = ?2 WHERE name = ?1",
                params![name, json(status)],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Counts a run that deferred `name` (it was not tried: its last run,
    /// R8's hour, stays as it was), with when and why, for `status`. The
    /// why is kept as data; the words of an older deferral are dropped.
    pub fn record_deferral(&self, name: &str, at: Timestamp, why: &crate::Why) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO sources(name, deferred_runs, deferred_at, deferred_outcome)
                 VALUES (?1, 1, ?2, ?3)
                 ON CONFLICT(name) DO UPDATE SET deferred_runs = sources.deferred_runs + 1,
                   deferred_at = excluded.deferred_at, deferred_reason = NULL,
                   deferred_outcome = excluded.deferred_outcome",
                params![name, sql_ts(at), json(why)],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Records the earliest next fetch of `name` and the rule that set it
    /// (publisher hints, issue #23); `feed_hints` replaces the stored
    /// feed-element hints when given (a body was read), and keeps them when
    /// `None` (a 304: the document did not change).
    pub fn set_next_fetch(
        &self,
        name: &str,
        at: Timestamp,
        by: &str,
        feed_hints: Option<&str>,
    ) -> Result<()> {
        self.conn
            .execute(
                "INSERT INTO sources(name, next_fetch, next_fetch_by, feed_hints)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(name) DO UPDATE SET next_fetch = excluded.next_fetch,
                   next_fetch_by = excluded.next_fetch_by,
                   feed_hints = coalesce(excluded.feed_hints, sources.feed_hints)",
                params![name, sql_ts(at), by, feed_hints],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// Moves what the store holds under a source's old name to its key
    /// (`Source::key`), once: stores from before sources were keyed by URL.
    /// Nothing happens when the key already has a row or the name has none.
    pub fn adopt_name(&mut self, name: &str, key: &str) -> Result<()> {
        if name == key {
            return Ok(());
        }
        let err = sql_error(&self.path);
        let tx = self.conn.transaction().map_err(&err)?;
        let moved = tx
            .execute(
                "UPDATE sources SET name = ?2 WHERE name = ?1
                 AND NOT EXISTS (SELECT 1 FROM sources WHERE name = ?2)",
                [name, key],
            )
            .map_err(&err)?;
        if moved > 0 {
            tx.execute(
                "UPDATE OR IGNORE items SET source = ?2 WHERE source = ?1",
                [name, key],
            )
            .map_err(&err)?;
        }
        tx.commit().map_err(&err)
    }

    /// Every source the store has a row for, by key.
    pub fn source_names(&self) -> Result<Vec<String>> {
        let run = || -> rusqlite::Result<Vec<String>> {
            let mut st = self
                .conn
                .prepare("SELECT name FROM sources ORDER BY name")?;
            let rows = st.query_map([], |r| r.get(0))?;
            rows.collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// Failed runs in a row of `name` (0 after any other outcome).
    pub fn error_streak(&self, name: &str) -> Result<u32> {
        self.conn
            .query_row(
                "SELECT error_streak FROM sources WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .optional()
            .map(Option::unwrap_or_default)
            .map_err(|e| self.err(e))
    }

    /// Forgets `name`'s last run and error streak, so the next run fetches
    /// it whatever R8's hour says. Whether there was anything to forget.
    pub fn reset_source(&self, name: &str) -> Result<bool> {
        self.conn
            .execute(
                "UPDATE sources SET last_run = NULL, last_status = NULL, last_outcome = NULL,
                   error_streak = 0,
                   next_fetch = NULL, next_fetch_by = NULL
                 WHERE name = ?1
                   AND (last_run IS NOT NULL OR error_streak > 0 OR next_fetch IS NOT NULL)",
                [name],
            )
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    /// Lifts our own R5 holds on `host` (the backoff, the cool-down after
    /// retries ran out), but never a server's `Retry-After` unless `force`
    /// (R5: "wait at least that long"): without it the host stays held
    /// until the Retry-After's instant. Says what it did ([`Lift`]). One
    /// transaction: a hold a run writes meanwhile is either lifted whole or
    /// kept whole.
    pub fn lift_hold(&self, host: &str, now: Timestamp, force: bool) -> Result<Lift> {
        let err = sql_error(&self.path);
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(&err)?;
        let row = read_host(&tx, host).map_err(&err)?;
        let was = row.hold_until.filter(|&t| t > now);
        let server = row.retry_after_until.filter(|&t| t > now);
        let lift = match (was, server) {
            (None, _) => Lift::default(),
            (Some(_), Some(until)) if !force => {
                tx.execute(
                    "UPDATE hosts SET hold_until = ?2, hold_reason = 'backoff' WHERE host = ?1",
                    params![host, sql_ts(until)],
                )
                .map_err(&err)?;
                Lift {
                    was,
                    kept: Some(until),
                    forced: None,
                }
            }
            (Some(_), server) => {
                tx.execute(
                    "UPDATE hosts SET hold_until = NULL, hold_reason = NULL,
                       retry_after_until = NULL, retry_after_asked = NULL WHERE host = ?1",
                    [host],
                )
                .map_err(&err)?;
                Lift {
                    was,
                    kept: None,
                    forced: server,
                }
            }
        };
        tx.commit().map_err(&err)?;
        Ok(lift)
    }

    /// Stores the items a source currently offers, in one transaction, and
    /// returns the source's items not yet reported ([`Store::mark_reported`]):
    /// those never seen before, and any a killed run recorded but never
    /// delivered (first seen first, then in document order).
    pub fn record_items(
        &mut self,
        source: &str,
        method: &str,
        fetched_url: &str,
        items: &[Item],
        at: Timestamp,
    ) -> Result<Vec<Item>> {
        self.record_fetch(source, method, fetched_url, items, None, at)
    }

    /// [`Store::record_items`], storing in the same transaction the
    /// validators `(url, accept, validators)` of the response the items
    /// came from (R7). Never one without the other: validators committed
    /// alone would turn the next run's answer into a 304 and hide items
    /// that were never recorded.
    pub fn record_fetch(
        &mut self,
        source: &str,
        method: &str,
        fetched_url: &str,
        items: &[Item],
        validators: Option<(&str, &str, &Validators)>,
        at: Timestamp,
    ) -> Result<Vec<Item>> {
        let err = sql_error(&self.path);
        let tx = self.conn.transaction().map_err(&err)?;
        if let Some((url, accept, v)) = validators {
            write_validators(&tx, url, accept, v, at).map_err(&err)?;
        }
        for (pos, item) in items.iter().enumerate() {
            tx.execute(
                "INSERT INTO items(source, id, url, title, published, first_seen, last_seen, position, reported)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6, ?7, 0)
                 ON CONFLICT(source, id) DO UPDATE SET url = excluded.url, title = excluded.title,
                   published = excluded.published, last_seen = excluded.last_seen,
                   position = excluded.position",
                params![
                    source,
                    item.id,
                    item.url,
                    item.title,
                    item.published,
                    sql_ts(at),
                    i64::try_from(pos).unwrap_or(i64::MAX)
                ],
            )
            .map_err(&err)?;
        }
        tx.execute(
            "INSERT INTO sources(name, method, fetched_url, offered_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(name) DO UPDATE SET method = excluded.method,
               fetched_url = excluded.fetched_url, offered_at = excluded.offered_at",
            params![source, method, fetched_url, sql_ts(at)],
        )
        .map_err(&err)?;
        let pending = pending_in(&tx, source).map_err(&err)?;
        tx.commit().map_err(&err)?;
        Ok(pending)
    }

    /// The source's items not yet reported (see [`Store::record_items`]).
    pub fn pending_items(&self, source: &str) -> Result<Vec<Item>> {
        pending_in(&self.conn, source).map_err(|e| self.err(e))
    }

    /// Marks these items of each source as reported: a digest holding them
    /// has been delivered. Until then they stay pending, so a run killed
    /// (or a digest that failed to write) between fetching and delivering
    /// loses nothing: the next digest lists them. One transaction.
    pub fn mark_reported<'a>(
        &mut self,
        items: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<()> {
        let err = sql_error(&self.path);
        let tx = self.conn.transaction().map_err(&err)?;
        for (source, id) in items {
            tx.execute(
                "UPDATE items SET reported = 1 WHERE source = ?1 AND id = ?2",
                [source, id],
            )
            .map_err(&err)?;
        }
        tx.commit().map_err(&err)
    }

    /// Marks these items of each source as reported in the digest of `day`
    /// (`YYYY-MM-DD`). Only items not reported yet take the day: an item
    /// keeps the day it was first reported on, so a rerun (or `--all`)
    /// that lists it again does not move it to another day.
    pub fn mark_reported_on<'a>(
        &mut self,
        items: impl IntoIterator<Item = (&'a str, &'a str)>,
        day: &str,
    ) -> Result<()> {
        let err = sql_error(&self.path);
        let tx = self.conn.transaction().map_err(&err)?;
        for (source, id) in items {
            tx.execute(
                "UPDATE items SET reported = 1, reported_on = ?3
                 WHERE source = ?1 AND id = ?2 AND reported = 0",
                [source, id, day],
            )
            .map_err(&err)?;
        }
        tx.commit().map_err(&err)
    }

    /// A digest of `day` (`YYYY-MM-DD`) made at `at` was delivered: in one
    /// transaction, these items of each source stop being new and belong
    /// to that day from now on (those not reported yet; an item keeps its
    /// first day), and, when `sources` is given, the day's sections become
    /// these (replacing what an earlier digest of the day stored), so
    /// [`Store::digest_sources`] and `show` can write the digest again.
    /// Takes `&self`, so a caller holding the store through the pipeline
    /// can call it.
    pub fn record_digest<'a>(
        &self,
        day: &str,
        at: Timestamp,
        items: impl IntoIterator<Item = (&'a str, &'a str)>,
        sources: Option<&[DigestSource]>,
    ) -> Result<()> {
        let err = sql_error(&self.path);
        let tx = rusqlite::Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(&err)?;
        for (source, id) in items {
            tx.execute(
                "UPDATE items SET reported = 1, reported_on = ?3, reported_at = ?4
                 WHERE source = ?1 AND id = ?2 AND reported = 0",
                params![source, id, day, sql_ts(at)],
            )
            .map_err(&err)?;
        }
        if let Some(sources) = sources {
            tx.execute("DELETE FROM digest_sources WHERE day = ?1", [day])
                .map_err(&err)?;
            for (pos, s) in sources.iter().enumerate() {
                let tags = serde_json::to_string(&s.tags).unwrap_or_else(|_| "[]".into());
                tx.execute(
                    "INSERT OR REPLACE INTO digest_sources(day, source, position, name, url, tags,
                       status, reason, method, max_items, written_at, outcome)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                    params![
                        day,
                        s.source,
                        i64::try_from(pos).unwrap_or(i64::MAX),
                        s.name,
                        s.url,
                        tags,
                        s.status,
                        // The outcome is kept as data; words only when
                        // the caller has no outcome to give.
                        s.outcome.is_none().then_some(s.reason.as_deref()).flatten(),
                        s.method,
                        s.max_items.and_then(|n| i64::try_from(n).ok()),
                        sql_ts(at),
                        s.outcome.as_ref().and_then(json)
                    ],
                )
                .map_err(&err)?;
            }
        }
        tx.commit().map_err(&err)
    }

    /// The source's items reported in the digest of `day`, in the order
    /// they were delivered (see [`Store::day_items`]; here an item reported
    /// before days were recorded never counts).
    pub fn reported_on(&self, source: &str, day: &str) -> Result<Vec<Item>> {
        query_items_with(
            &self.conn,
            "SELECT url, title, published, id FROM items
             WHERE source = ?1 AND reported_on = ?2
             ORDER BY coalesce(reported_at, first_seen), first_seen, position",
            params![source, day],
        )
        .map_err(|e| self.err(e))
    }

    /// The source's items of the digest days `days`, in the order they
    /// were delivered (by the digest that first reported them, then first
    /// seen, then their place in the feed): those reported on one of the
    /// days, and those reported before days were recorded and first seen
    /// within them.
    pub fn day_items(&self, source: &str, days: &Days) -> Result<Vec<Item>> {
        query_items_with(
            &self.conn,
            &format!(
                "SELECT url, title, published, id FROM items WHERE source = :source AND {IN_DAYS}
                 ORDER BY coalesce(reported_at, first_seen), first_seen, position"
            ),
            rusqlite::named_params! {
                ":source": source,
                ":first": days.first,
                ":last": days.last,
                ":start": sql_ts(days.start),
                ":end": sql_ts(days.end),
                ":today": days.today,
            },
        )
        .map_err(|e| self.err(e))
    }

    /// Every source (by key) with an item in `days` ([`Store::day_items`]),
    /// in key order.
    pub fn day_item_sources(&self, days: &Days) -> Result<Vec<String>> {
        let run = || -> rusqlite::Result<Vec<String>> {
            let mut st = self.conn.prepare(&format!(
                "SELECT DISTINCT source FROM items WHERE {IN_DAYS} ORDER BY source"
            ))?;
            let rows = st.query_map(
                rusqlite::named_params! {
                    ":first": days.first,
                    ":last": days.last,
                    ":start": sql_ts(days.start),
                    ":end": sql_ts(days.end),
                    ":today": days.today,
                },
                |r| r.get(0),
            )?;
            rows.collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// Moves every digest day stored after `today` (by a clock that was
    /// ahead) to `today`, as [`Store::clamp_instants`] does with instants:
    /// an item reported "tomorrow" belongs to today's digest, and is not
    /// listed again by tomorrow's (issue #20). A section stored for such a
    /// day whose source already has one today is left where it is (the
    /// items are what a day holds; `show` reads no day after today).
    /// Returns how many rows moved.
    pub fn clamp_days(&self, today: &str) -> Result<usize> {
        let run = || -> rusqlite::Result<usize> {
            let items = self.conn.execute(
                "UPDATE items SET reported_on = ?1 WHERE reported_on > ?1",
                [today],
            )?;
            let heads = self.conn.execute(
                "UPDATE OR IGNORE digest_sources SET day = ?1 WHERE day > ?1",
                [today],
            )?;
            Ok(items + heads)
        };
        run().map_err(|e| self.err(e))
    }

    /// The sections of the last digest written on `day`
    /// ([`Store::record_digest`]), in its order; empty when none was
    /// recorded (a day before this was stored, or only `--all` digests).
    pub fn digest_sources(&self, day: &str) -> Result<Vec<DigestSource>> {
        self.query_heads(
            &format!("{HEAD_COLUMNS} WHERE day = ?1 ORDER BY position"),
            day,
        )
    }

    /// The section the most recent digest holding `source` (a key) gave
    /// it, if any: its name, page and tags then.
    pub fn last_digest_source(&self, source: &str) -> Result<Option<DigestSource>> {
        self.query_heads(
            &format!("{HEAD_COLUMNS} WHERE source = ?1 ORDER BY day DESC LIMIT 1"),
            source,
        )
        .map(|mut v| v.pop())
    }

    fn query_heads(&self, sql: &str, param: &str) -> Result<Vec<DigestSource>> {
        let run = || -> rusqlite::Result<Vec<DigestSource>> {
            let mut st = self.conn.prepare(sql)?;
            let rows = st.query_map([param], |r| {
                let outcome: Option<SectionOutcome> = typed(r.get(9)?);
                let reason = match &outcome {
                    Some(o) => o.reason(),
                    None => r.get(5)?,
                };
                Ok(DigestSource {
                    source: r.get(0)?,
                    name: r.get(1)?,
                    url: r.get(2)?,
                    tags: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default(),
                    status: r.get(4)?,
                    reason,
                    outcome,
                    method: r.get(6)?,
                    max_items: r
                        .get::<_, Option<i64>>(7)?
                        .and_then(|n| u64::try_from(n).ok()),
                    written_at: ts(r.get(8)?).unwrap_or_default(),
                })
            })?;
            rows.collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// The days (`YYYY-MM-DD`) from `since` on that have a digest, oldest
    /// first.
    pub fn digest_days(&self, since: &str) -> Result<Vec<String>> {
        let run = || -> rusqlite::Result<Vec<String>> {
            let mut st = self.conn.prepare(
                "SELECT DISTINCT reported_on FROM items
                 WHERE reported_on IS NOT NULL AND reported_on >= ?1 ORDER BY reported_on",
            )?;
            let rows = st.query_map([since], |r| r.get(0))?;
            rows.collect()
        };
        run().map_err(|e| self.err(e))
    }

    /// The items the source offered at its last successful fetch, in order.
    pub fn offered_items(&self, source: &str) -> Result<Vec<Item>> {
        query_items(
            &self.conn,
            "SELECT i.url, i.title, i.published, i.id FROM items i JOIN sources s
               ON s.name = i.source AND i.last_seen = s.offered_at
             WHERE i.source = ?1 ORDER BY i.position",
            source,
        )
        .map_err(|e| self.err(e))
    }

    /// Number of items ever seen for a source.
    pub fn items_seen(&self, source: &str) -> Result<u64> {
        self.conn
            .query_row(
                "SELECT count(*) FROM items WHERE source = ?1",
                [source],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|e| self.err(e))
    }

    /// Items ever seen for a source, and those no delivered digest has
    /// listed yet.
    pub fn item_counts(&self, source: &str) -> Result<ItemCounts> {
        self.conn
            .query_row(
                "SELECT count(*), coalesce(sum(reported = 0), 0) FROM items WHERE source = ?1",
                [source],
                |r| {
                    let n = |i: usize| r.get::<_, i64>(i).map(|v| u64::try_from(v).unwrap_or(0));
                    Ok(ItemCounts {
                        seen: n(0)?,
                        pending: n(1)?,
                    })
                },
            )
            .map_err(|e| self.err(e))
    }
}

fn write_validators(
    conn: &Connection,
    url: &str,
    accept: &str,
    v: &Validators,
    at: Timestamp,
) -> rusqlite::Result<()> {
    if v.etag.is_none() && v.last_modified.is_none() {
        conn.execute(
            "DELETE FROM validators WHERE url = ?1 AND accept = ?2",
            [url, accept],
        )?;
    } else {
        conn.execute(
            "INSERT OR REPLACE INTO validators(url, accept, etag, last_modified, kind, stored_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![url, accept, v.etag, v.last_modified, v.kind, sql_ts(at)],
        )?;
    }
    Ok(())
}

/// The columns [`host_row`] reads, in its order.
const HOST_COLUMNS: &str =
    "last_request, hold_until, hold_reason, retry_after_until, retry_after_asked";

/// A [`HostRow`] from the [`HOST_COLUMNS`] of `r` starting at column `at`.
fn host_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<HostRow> {
    Ok(HostRow {
        last_request: ts(r.get(at)?),
        hold_until: ts(r.get(at + 1)?),
        cooldown: r.get::<_, Option<String>>(at + 2)?.as_deref() == Some("cooldown"),
        retry_after_until: ts(r.get(at + 3)?),
        retry_after_asked: ts(r.get(at + 4)?),
    })
}

fn read_host(conn: &Connection, host: &str) -> rusqlite::Result<HostRow> {
    conn.query_row(
        &format!("SELECT {HOST_COLUMNS} FROM hosts WHERE host = ?1"),
        [host],
        |r| host_row(r, 0),
    )
    .optional()
    .map(|o| o.unwrap_or_default())
}

#[cfg(test)]
mod tests {
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
        let dir =
            std::env::temp_dir().join(format!("wr-store-immutable ?#%41-{}", std::process::id()));
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
}

#[cfg(test)]
#[path = "store_v5_tests.rs"]
mod v5_tests;
