//! The digest archive: every item seen per source (`items`: first and
//! last seen, the set a source currently offers, the day and instant of
//! the digest that first reported each) and each digest day's sections
//! (`digest_sources`), so that an item is reported once (R7), a killed
//! run's items are still owed to the next digest, and `show` can write a
//! past day's digest again.
//!
//! It shares the database file with the fetch state
//! ([`super::fetch_state`]), not its tables, but for `record_fetch`,
//! which commits a response's items and its validators together.

use super::fetch_state::write_validators;
use super::*;

impl Store {
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

/// The columns [`Store::query_heads`] reads.
const HEAD_COLUMNS: &str = "SELECT source, name, url, tags, status, reason, method, max_items,
   written_at, outcome FROM digest_sources";

/// The condition "an item of the days `:first..=:last`, which span the
/// instants `[:start, :end)`" (see [`Days`]).
const IN_DAYS: &str = "reported = 1
     AND ((min(reported_on, :today) >= :first AND min(reported_on, :today) <= :last)
     OR (reported_on IS NULL AND first_seen >= :start AND first_seen < :end))";

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
    query_items_with(conn, sql, [source])
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
