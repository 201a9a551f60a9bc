//! `wr-feeds status`: the state at a glance (per source, per host, the
//! adopted blocklist). `reset` ([`super::reset`]) shares its way of
//! opening the store and naming sources.
//!
//! Neither makes a request, and neither creates a state directory that is
//! not there. `status` opens the store read-only and never touches the
//! run lock: SQLite's WAL lets it read while a run writes. `reset` writes
//! one short transaction per target; it holds the run lock only while it
//! writes, and only if no run holds it (it never waits for one). A reset
//! takes effect from the next run: a run in progress keeps what it already
//! knows.
//!
//! With a coordinator (`--coordinator`, `WR_COORDINATOR`, `coordinator` in
//! `[settings]`), `status` also shows the fleet: every host the machines
//! share, its hold (R5) and whose, whether a request is in flight, when
//! the next may start and the last slots taken, by which machine.

use crate::cmd::setup::{config, now_secs};
use crate::digest::rfc3339;
use crate::sources::{self, Settings};
use crate::Common;
use crate::{CliError, CmdResult};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use wr_core::time::Timestamp;
use wr_feeds::extract::clean_message;
use wr_feeds::store::{HoldCause, Store, StoreError};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// A sources file: list its sources in its order (and use its
    /// [settings] state_dir) [default: every source the state knows].
    #[arg(value_name = "SOURCES")]
    pub(crate) sources: Option<PathBuf>,
    /// One JSON document instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Serialize)]
struct SourceLine {
    /// The name sources.toml gives it, else its key.
    name: String,
    /// Its key in the store: the canonical URL of its feed, else its page.
    key: String,
    /// `false` for `enabled = false` in the sources file.
    enabled: bool,
    last_run: Option<String>,
    outcome: Option<String>,
    /// What the last run had to say beyond its outcome: `read after
    /// repairs: ...`, `zero entries: ...` (issue #19).
    note: Option<String>,
    error_streak: u32,
    items_seen: u64,
    /// Items seen that no delivered digest has listed yet: the next
    /// digest lists them.
    items_pending: u64,
    /// The earliest next fetch, when it is later than now: R8's hour, or
    /// the publisher's hints (issue #23).
    next_fetch: Option<String>,
    /// What set it: `R8 (one fetch per hour)`, `Cache-Control max-age`,
    /// `RSS ttl`...
    next_fetch_by: Option<String>,
    /// The usage preferences (`Content-Signal`, `Content-Usage`,
    /// `License`) of the stored robots.txt of the origin it was last
    /// read from (its feed's or page's before a first fetch).
    signals: Vec<wr_feeds::SignalReport>,
    /// Runs in a row that deferred it since it last ran (robots.txt
    /// unreachable, its host held...): it was not tried.
    deferred_runs: u32,
    /// When it was last deferred, and why (cleaned).
    last_deferred: Option<String>,
    deferred_reason: Option<String>,
}

#[derive(Serialize)]
pub(super) struct HostLine {
    pub(super) host: String,
    pub(super) held_until: String,
    /// Seconds from now.
    pub(super) held_for_s: u64,
    cooldown: bool,
    pub(super) reason: &'static str,
    /// Until when a server's `Retry-After` holds the host, if it does:
    /// `reset` keeps that much of the hold unless `--force` (R5).
    retry_after_until: Option<String>,
    /// What `wr-feeds reset HOST` would do, in words.
    pub(super) reset: String,
    /// The hold as stored, when it lay beyond any hold of ours and was
    /// clamped (written by a clock that was ahead; issue #20): what the
    /// next run will write back.
    #[serde(skip_serializing_if = "Option::is_none")]
    clamped_from: Option<String>,
    /// What the server's `Retry-After` asked for, when it lay past the
    /// cap (`wr_core::constants::RETRY_AFTER_CAP`, 30 days from when it
    /// was recorded) and `retry_after_until` is the cap (issue #20).
    #[serde(skip_serializing_if = "Option::is_none")]
    retry_after_asked: Option<String>,
}

#[derive(Serialize)]
struct BlocklistLine {
    entries: usize,
    fetched_at: String,
    age_s: u64,
    refresh_s: u64,
    /// Older than its `refresh`: the next run fetches it again (R12).
    stale: bool,
}

/// A host as the fleet's coordinator knows it.
#[derive(Serialize)]
struct FleetHostLine {
    host: String,
    /// Until when the fleet holds it (R5), on this machine's clock.
    held_until: Option<String>,
    held_for_s: Option<u64>,
    reason: Option<&'static str>,
    /// A server's Retry-After: `reset` keeps it unless `--force`.
    retry_after_until: Option<String>,
    /// Seconds until the next request may start.
    next_slot_in_s: f64,
    /// A request of some machine is in flight (a lease is held).
    in_flight: bool,
    /// The last slots taken: which machine, how many seconds ago.
    recent: Vec<(String, f64)>,
}

#[derive(Serialize)]
struct FleetLine {
    coordinator: String,
    /// Why the coordinator could not be read, if it could not.
    error: Option<String>,
    hosts: Vec<FleetHostLine>,
}

#[derive(Serialize)]
struct Status {
    state_dir: String,
    /// Whether the state directory holds a store at all.
    exists: bool,
    /// Sources whose last attempt was deferred.
    deferred: usize,
    sources: Vec<SourceLine>,
    held_hosts: Vec<HostLine>,
    blocklist: Option<BlocklistLine>,
    /// The fleet, when a coordinator is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    fleet: Option<FleetLine>,
}

pub(super) fn ms_to_rfc3339(ms: u64) -> String {
    rfc3339(i64::try_from(ms / 1000).unwrap_or(i64::MAX))
}

/// A duration in words a glance reads: `40 s`, `12 min`, `5 h`, `3 days`.
pub(crate) fn span(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 2 * 3600 => format!("{} min", s / 60),
        s if s < 2 * 86_400 => format!("{} h", s / 3600),
        s => format!("{} days", s / 86_400),
    }
}

pub(super) fn now() -> Timestamp {
    Timestamp(u64::try_from(now_secs()).unwrap_or(0).saturating_mul(1000))
}

/// The settings and sources (name, key, enabled) of a sources file, if
/// one is given.
pub(super) type Named = Vec<(String, String, bool)>;

pub(super) fn settings_of(path: Option<&Path>) -> Result<(Settings, Named), CliError> {
    match path {
        None => Ok((Settings::default(), Vec::new())),
        Some(p) => {
            let f = sources::load(p)?;
            let named = f
                .sources
                .iter()
                .map(|s| (s.name.clone(), s.key(), s.enabled))
                .collect();
            Ok((f.settings, named))
        }
    }
}

/// The state directory `common` and `settings` name, and its store if it
/// has one (nothing is created).
pub(super) fn open_existing(
    common: &Common,
    settings: &Settings,
    write: bool,
) -> Result<(std::path::PathBuf, Option<Store>), CliError> {
    let cfg = config(common, settings).map_err(CliError::Config)?;
    let store = Store::open_existing(&cfg.state_dir, write).map_err(store_err)?;
    Ok((cfg.state_dir, store))
}

/// Says that `store` was read in SQLite's immutable mode, and what that
/// leaves out (see [`Store::open_existing`]).
pub(super) fn say_if_immutable(store: &Store, common: &Common) {
    if store.is_immutable() {
        crate::ui::Ui::new(common.quiet, common.verbose).warn(&format!(
            "{} cannot be written (a read-only or full file system?): read as it stands on \
             disk, in SQLite's immutable mode; what a run left in its write-ahead log \
             (`-wal`), if one was stopped before it ended, is not shown",
            store.path().display()
        ));
    }
}

pub(super) fn store_err(e: StoreError) -> CliError {
    CliError::Store(e)
}

fn gather(store: &Store, named: Named, dir: &Path) -> Result<Status, StoreError> {
    let now_ms = now().0;
    // Without a sources file, every source the store knows, by its key.
    let named = if named.is_empty() {
        store
            .source_names()?
            .into_iter()
            .map(|k| (k.clone(), k, true))
            .collect()
    } else {
        named
    };
    let mut sources = Vec::new();
    for (name, key, enabled) in named {
        let row = store.source(&key)?;
        let counts = store.item_counts(&key)?;
        let (next_fetch, next_fetch_by) = next_fetch(&row, now_ms);
        let signals = wr_feeds::pipeline::source_signals(store, &key)?;
        let deferred = row.deferred_runs > 0;
        sources.push(SourceLine {
            signals,
            deferred_runs: row.deferred_runs,
            last_deferred: row
                .deferred_at
                .filter(|_| deferred)
                .map(|t| ms_to_rfc3339(t.0)),
            deferred_reason: row
                .deferred_reason
                .filter(|_| deferred)
                .map(|r| clean_message(&r)),
            next_fetch,
            next_fetch_by,
            last_run: row.last_run.map(|t| ms_to_rfc3339(t.0)),
            // A reset source has no last run, and nothing to say of it.
            note: row.last_note.filter(|_| row.last_run.is_some()),
            outcome: row.last_status,
            error_streak: store.error_streak(&key)?,
            items_seen: counts.seen,
            items_pending: counts.pending,
            name,
            key,
            enabled,
        });
    }
    let held_hosts = held_hosts(store, now_ms)?;
    let blocklist = store.blocklist()?.map(|row| {
        let age_s = now_ms.saturating_sub(row.fetched_at.0) / 1000;
        BlocklistLine {
            entries: serde_json::from_str::<Vec<serde_json::Value>>(&row.entries_json)
                .map_or(0, |v| v.len()),
            fetched_at: ms_to_rfc3339(row.fetched_at.0),
            age_s,
            refresh_s: row.refresh_ms / 1000,
            stale: age_s.saturating_mul(1000) >= row.refresh_ms,
        }
    });
    Ok(Status {
        state_dir: dir.display().to_string(),
        exists: true,
        deferred: sources.iter().filter(|s| s.deferred_runs > 0).count(),
        sources,
        held_hosts,
        blocklist,
        fleet: None,
    })
}

/// Every host held after `now_ms` (R5), by name, as the next run will
/// see it, with what `reset` would do of it.
pub(super) fn held_hosts(store: &Store, now_ms: u64) -> Result<Vec<HostLine>, StoreError> {
    let mut held_hosts: Vec<HostLine> = store
        .hosts()?
        .into_iter()
        .filter_map(|(host, row)| {
            // As the next run will see it: a hold written by a clock that
            // was ahead is clamped (issue #20).
            let stored = row.hold_until;
            let row = row.clamped(wr_core::time::Timestamp(now_ms));
            let until = row.hold_until.filter(|t| t.0 > now_ms)?;
            // A hold stored past the Retry-After cap is shown as capped
            // (below), not as written by a clock that was ahead.
            let asked = row.retry_after_asked;
            let clamped_from = stored
                .filter(|&t| t != until && Some(t) != asked)
                .map(|t| ms_to_rfc3339(t.0));
            let server = row.retry_after_until.filter(|t| t.0 > now_ms);
            let name = clean_message(&host);
            // Never suggest a reset that would be refused (R5: a server's
            // Retry-After is kept unless forced).
            let reset = match server {
                Some(s) if s >= until => format!(
                    "the server asked for it (R5: wait at least that long), so \
                     `wr-feeds reset {name}` keeps it; `wr-feeds reset --force {name}` lifts it"
                ),
                Some(s) => format!(
                    "`wr-feeds reset {name}` lifts it down to the server's Retry-After \
                     until {} (R5), `--force` lifts that too",
                    ms_to_rfc3339(s.0)
                ),
                None => format!("`wr-feeds reset {name}` lifts it"),
            };
            Some(HostLine {
                held_until: ms_to_rfc3339(until.0),
                held_for_s: (until.0 - now_ms).div_ceil(1000),
                cooldown: row.cooldown,
                reason: wr_feeds::words::hold_cause(match server {
                    Some(s) if s >= until => HoldCause::RetryAfter,
                    _ if row.cooldown => HoldCause::Cooldown,
                    _ => HoldCause::Backoff,
                }),
                retry_after_until: server.map(|s| ms_to_rfc3339(s.0)),
                reset,
                host,
                clamped_from,
                retry_after_asked: asked.map(|t| ms_to_rfc3339(t.0)),
            })
        })
        .collect();
    held_hosts.sort_by(|a, b| a.host.cmp(&b.host));
    Ok(held_hosts)
}

/// When the next run may fetch a source, if not now: the later of R8's
/// hour after its last run and the stored publisher hint (capped as the
/// pipeline caps it).
fn next_fetch(row: &wr_feeds::store::SourceRow, now_ms: u64) -> (Option<String>, Option<String>) {
    match wr_feeds::hints::due(row, Timestamp(now_ms)) {
        Some((at, by)) if at.0 > now_ms => (
            Some(ms_to_rfc3339(at.0)),
            Some(wr_feeds::words::hint(by).to_string()),
        ),
        _ => (None, None),
    }
}

/// The fleet's hosts, read from the coordinator at `url`.
fn fleet(url: &str) -> FleetLine {
    let shown = wr_feeds::fleet::redacted(url);
    let read = wr_feeds::fleet::Coordinator::connect(
        url,
        std::time::Duration::from_secs(1),
        std::time::Duration::from_secs(5),
    )
    .and_then(|mut c| c.hosts());
    let now_ms = now().0;
    match read {
        Err(e) => FleetLine {
            coordinator: shown,
            error: Some(e.to_string()),
            hosts: Vec::new(),
        },
        Ok(hosts) => FleetLine {
            coordinator: shown,
            error: None,
            hosts: hosts
                .into_iter()
                .map(|h| FleetHostLine {
                    held_until: h
                        .held_ms
                        .map(|(ms, _)| ms_to_rfc3339(now_ms.saturating_add(ms))),
                    held_for_s: h.held_ms.map(|(ms, _)| ms.div_ceil(1000)),
                    reason: h.held_ms.map(|(_, c)| wr_feeds::words::hold_cause(c)),
                    retry_after_until: h
                        .retry_after_ms
                        .map(|ms| ms_to_rfc3339(now_ms.saturating_add(ms))),
                    next_slot_in_s: h.next_slot_ms as f64 / 1000.0,
                    in_flight: h.in_flight,
                    recent: h
                        .recent
                        .into_iter()
                        .map(|(who, ago)| (who, ago as f64 / 1000.0))
                        .collect(),
                    host: h.host,
                })
                .collect(),
        },
    }
}

fn fleet_table(f: &FleetLine, out: &mut String) {
    out.push_str(&format!(
        "
fleet (coordinator {}):
",
        clean_message(&f.coordinator)
    ));
    if let Some(e) = &f.error {
        out.push_str(&format!(
            "  cannot be read: {}
",
            clean_message(e)
        ));
        return;
    }
    if f.hosts.is_empty() {
        out.push_str(
            "  no host asked yet
",
        );
    }
    for h in &f.hosts {
        let host = clean_message(&h.host);
        let mut line = format!("  {host}");
        match (&h.held_until, h.held_for_s, h.reason) {
            (Some(until), Some(secs), Some(reason)) => line.push_str(&format!(
                "  held until {until} (in {}; {reason})",
                span(secs)
            )),
            _ if h.next_slot_in_s > 0.0 => {
                line.push_str(&format!("  next request in {:.1} s", h.next_slot_in_s))
            }
            _ => line.push_str("  free"),
        }
        if h.in_flight {
            line.push_str(", a request in flight");
        }
        if let Some((who, ago)) = h.recent.first() {
            line.push_str(&format!(
                "; last slot {ago:.1} s ago by {} ({} recent)",
                clean_message(who),
                h.recent.len()
            ));
        }
        out.push_str(&line);
        out.push('\n');
    }
}

fn table(st: &Status) -> String {
    let mut out = format!("state: {}\n", clean_message(&st.state_dir));
    if !st.exists {
        out.push_str("\n(no state here: no run has used this directory)\n");
        if let Some(f) = &st.fleet {
            fleet_table(f, &mut out);
        }
        return out;
    }
    sources_table(st, &mut out);
    hosts_table(&st.held_hosts, &mut out);
    match &st.blocklist {
        Some(b) => out.push_str(&format!(
            "\noperator blocklist: {} {}, fetched {} ({} ago; refreshed every {}{})\n",
            b.entries,
            if b.entries == 1 { "entry" } else { "entries" },
            b.fetched_at,
            span(b.age_s),
            span(b.refresh_s),
            if b.stale {
                ", due: the next run fetches it again"
            } else {
                ""
            }
        )),
        None => out.push_str("\noperator blocklist: none adopted yet\n"),
    }
    if let Some(f) = &st.fleet {
        fleet_table(f, &mut out);
    }
    out
}

/// The `sources:` part of the table: a line per source, then what it has
/// to say (a note, deferrals, robots.txt signals, a publisher's pause).
fn sources_table(st: &Status, out: &mut String) {
    out.push_str("\nsources:\n");
    // A run where every source was deferred ran none of them (issue #23):
    // say so, and how many were deferred, not only "never" per line.
    if st.sources.iter().all(|s| s.last_run.is_none()) {
        match st.deferred {
            0 => out.push_str("  (none has run yet)\n"),
            n => out.push_str(&format!(
                "  (none has run yet: {n} deferred at their last attempt, see below)\n"
            )),
        }
    } else if st.deferred > 0 {
        out.push_str(&format!(
            "  ({} deferred at their last attempt, see below)\n",
            st.deferred
        ));
    }
    let names: Vec<String> = st.sources.iter().map(|s| clean_message(&s.name)).collect();
    let w = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (s, name) in st.sources.iter().zip(&names) {
        source_lines(s, name, w, out);
    }
}

/// One source's lines, its name padded to `w`.
fn source_lines(s: &SourceLine, name: &str, w: usize, out: &mut String) {
    let mut line = format!(
        "  {name:<w$}  last run {:<20}  {:<12}  {} failed in a row  {} items seen",
        s.last_run.as_deref().unwrap_or("never"),
        clean_message(s.outcome.as_deref().unwrap_or("-")),
        s.error_streak,
        s.items_seen,
    );
    if s.items_pending > 0 {
        line.push_str(&format!(", {} not in a digest yet", s.items_pending));
    }
    if !s.enabled {
        line.push_str("  (enabled = false)");
    }
    out.push_str(&line);
    out.push('\n');
    if let Some(note) = &s.note {
        out.push_str(&format!("  {:w$}  {}\n", "", clean_message(note)));
    }
    if let (Some(at), Some(why)) = (&s.last_deferred, &s.deferred_reason) {
        let times = match s.deferred_runs {
            1 => "once".to_string(),
            n => format!("{n} runs in a row"),
        };
        out.push_str(&format!(
            "  {:w$}  deferred {times} since its last run, last at {at}: {why}\n",
            ""
        ));
    }
    for sig in &s.signals {
        out.push_str(&format!(
            "  {:w$}  robots.txt {}\n",
            "",
            clean_message(&sig.to_string())
        ));
    }
    if let (Some(at), Some(by)) = (&s.next_fetch, &s.next_fetch_by) {
        out.push_str(&format!(
            "  {:w$}  next fetch not before {at} ({by}; --force overrides)\n",
            ""
        ));
    }
}

/// The `hosts held:` part of the table.
fn hosts_table(held: &[HostLine], out: &mut String) {
    out.push_str("\nhosts held:\n");
    if held.is_empty() {
        out.push_str("  none\n");
    }
    for h in held {
        let host = clean_message(&h.host);
        out.push_str(&format!(
            "  {host}  until {} (in {}; {}); {}\n",
            h.held_until,
            span(h.held_for_s),
            h.reason,
            h.reset,
        ));
        if let Some(asked) = &h.retry_after_asked {
            out.push_str(&format!(
                "  {:w$}  the server's Retry-After asked until {asked}: capped at {} days from \
                 when it was recorded (R5 sets no bound, but no rate limit lasts that long)\n",
                "",
                wr_core::constants::RETRY_AFTER_CAP.as_secs() / 86_400,
                w = host.chars().count()
            ));
        }
        if let Some(from) = &h.clamped_from {
            out.push_str(&format!(
                "  {:w$}  stored as until {from}, beyond any hold of ours: written by a clock \
                 that was ahead, so clamped\n",
                "",
                w = host.chars().count()
            ));
        }
    }
}

/// Runs `status`.
pub fn run(args: &Args, common: &Common) -> CmdResult {
    let (settings, names) = settings_of(args.sources.as_deref())?;
    let (dir, store) = open_existing(common, &settings, false)?;
    if let Some(s) = &store {
        say_if_immutable(s, common);
    }
    let coordinator = config(common, &settings)
        .map_err(CliError::Config)?
        .coordinator;
    let mut st = match &store {
        Some(store) => gather(store, names, &dir).map_err(store_err)?,
        None => Status {
            state_dir: dir.display().to_string(),
            exists: false,
            deferred: 0,
            sources: Vec::new(),
            held_hosts: Vec::new(),
            blocklist: None,
            fleet: None,
        },
    };
    st.fleet = coordinator.as_deref().map(fleet);
    let unreadable = st.fleet.as_ref().is_some_and(|f| f.error.is_some());
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&st).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    } else {
        table(&st)
    };
    crate::ui::print_out(&text)?;
    // The local state is shown either way; a fleet that cannot be read
    // is a status 1, so a script does not take "no hold" for an answer.
    Ok(if unreadable {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_read_at_a_glance() {
        assert_eq!(span(40), "40 s");
        assert_eq!(span(12 * 60), "12 min");
        assert_eq!(span(5 * 3600), "5 h");
        assert_eq!(span(3 * 86_400), "3 days");
    }
}
