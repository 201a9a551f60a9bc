//! The fetch state: what the gate and the fetch machines need from one run
//! to the next, and from one process to another. Per host, the schedule
//! and holds (R4, R4a, R5); per origin, robots.txt (R2); the operator
//! blocklist and its standalone schema (R3, R10); the validators of each
//! URL and Accept variant (R7); per source, its last run, outcome, next
//! fetch and failures in a row (R8, R5).
//!
//! The digest archive ([`super::archive`]) shares the database file and
//! its transactions, but not these tables: only `record_fetch` touches
//! both, because a response's validators must never be committed without
//! the items they belong to (R7).

use super::*;

impl Store {
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
                record_request(&tx, host, at).map_err(&err)?;
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
            record_request(&tx, &slot_host, at).map_err(&err)?;
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
}

pub(super) fn write_validators(
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
pub(super) const HOST_COLUMNS: &str =
    "last_request, hold_until, hold_reason, retry_after_until, retry_after_asked";

/// A [`HostRow`] from the [`HOST_COLUMNS`] of `r` starting at column `at`.
pub(super) fn host_row(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<HostRow> {
    Ok(HostRow {
        last_request: ts(r.get(at)?),
        hold_until: ts(r.get(at + 1)?),
        cooldown: r.get::<_, Option<String>>(at + 2)?.as_deref() == Some("cooldown"),
        retry_after_until: ts(r.get(at + 3)?),
        retry_after_asked: ts(r.get(at + 4)?),
    })
}

pub(super) fn read_host(conn: &Connection, host: &str) -> rusqlite::Result<HostRow> {
    conn.query_row(
        &format!("SELECT {HOST_COLUMNS} FROM hosts WHERE host = ?1"),
        [host],
        |r| host_row(r, 0),
    )
    .optional()
    .map(|o| o.unwrap_or_default())
}

/// Records a request to `host` at `at` (R4), never moving the last one
/// back: both the gate's admission and the fetch machines' slot go
/// through here.
fn record_request(conn: &Connection, host: &str, at: Timestamp) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO hosts(host, last_request) VALUES (?1, ?2)
         ON CONFLICT(host) DO UPDATE SET last_request =
           max(coalesce(last_request, 0), excluded.last_request)",
        params![host, sql_ts(at)],
    )
    .map(drop)
}
