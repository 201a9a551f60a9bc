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
//! Two concerns share the file and its transactions, each in a module of
//! its own: the fetch state (`fetch_state.rs`: hosts, robots, blocklist,
//! schema cache, validators, sources) and the digest archive
//! (`archive.rs`: items, digest sections). This module opens the
//! database, migrates it, and holds what both use.
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

/// A stored JSON value, when it reads back as `T`.
fn typed<T: serde::de::DeserializeOwned>(json: Option<String>) -> Option<T> {
    json.and_then(|j| serde_json::from_str(&j).ok())
}

/// A value as stored JSON.
fn json<T: serde::Serialize>(value: &T) -> Option<String> {
    serde_json::to_string(value).ok()
}

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
}

mod archive;
mod fetch_state;

#[cfg(test)]
mod tests;

#[cfg(test)]
mod v5_tests;
