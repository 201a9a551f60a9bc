//! `wr-feeds status` and `wr-feeds reset`: the state at a glance, and a way
//! to lift what holds a host or a source back.
//!
//! Neither makes a request, and neither creates a state directory that is
//! not there. `status` opens the store read-only and never touches the
//! run lock: SQLite's WAL lets it read while a run writes. `reset` writes
//! one short transaction per target; it holds the run lock only while it
//! writes, and only if no run holds it (it never waits for one). A reset
//! takes effect from the next run: a run in progress keeps what it already
//! knows.

use crate::app::{config, now_secs};
use crate::digest::rfc3339;
use crate::sources::{self, Settings};
use crate::ui::Ui;
use crate::{CliError, CmdResult};
use crate::{Common, ResetArgs, StatusArgs};
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;
use wr_core::time::Timestamp;
use wr_feeds::extract::clean_message;
use wr_feeds::store::{Store, StoreError};

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
    error_streak: u32,
    items_seen: u64,
    /// Items seen that no delivered digest has listed yet: the next
    /// digest lists them.
    items_pending: u64,
}

#[derive(Serialize)]
struct HostLine {
    host: String,
    held_until: String,
    /// Seconds from now.
    held_for_s: u64,
    cooldown: bool,
    reason: &'static str,
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

#[derive(Serialize)]
struct Status {
    state_dir: String,
    /// Whether the state directory holds a store at all.
    exists: bool,
    sources: Vec<SourceLine>,
    held_hosts: Vec<HostLine>,
    blocklist: Option<BlocklistLine>,
}

fn ms_to_rfc3339(ms: u64) -> String {
    rfc3339(i64::try_from(ms / 1000).unwrap_or(i64::MAX))
}

/// A duration in words a glance reads: `40 s`, `12 min`, `5 h`, `3 days`.
fn span(secs: u64) -> String {
    match secs {
        s if s < 120 => format!("{s} s"),
        s if s < 2 * 3600 => format!("{} min", s / 60),
        s if s < 2 * 86_400 => format!("{} h", s / 3600),
        s => format!("{} days", s / 86_400),
    }
}

fn now() -> Timestamp {
    Timestamp(u64::try_from(now_secs()).unwrap_or(0).saturating_mul(1000))
}

/// The settings and sources (name, key, enabled) of a sources file, if
/// one is given.
type Named = Vec<(String, String, bool)>;

fn settings_of(path: Option<&Path>) -> Result<(Settings, Named), CliError> {
    match path {
        None => Ok((Settings::default(), Vec::new())),
        Some(p) => {
            let f = sources::load(p).map_err(|e| CliError::msg(e.to_string()))?;
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
fn open_existing(
    common: &Common,
    settings: &Settings,
    write: bool,
) -> Result<(std::path::PathBuf, Option<Store>), CliError> {
    let cfg = config(common, settings).map_err(CliError::msg)?;
    let store = Store::open_existing(&cfg.state_dir, write).map_err(store_err)?;
    Ok((cfg.state_dir, store))
}

fn store_err(e: StoreError) -> CliError {
    CliError::msg(e.to_string())
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
        sources.push(SourceLine {
            last_run: row.last_run.map(|t| ms_to_rfc3339(t.0)),
            outcome: row.last_status,
            error_streak: store.error_streak(&key)?,
            items_seen: counts.seen,
            items_pending: counts.pending,
            name,
            key,
            enabled,
        });
    }
    let mut held_hosts: Vec<HostLine> = store
        .hosts()?
        .into_iter()
        .filter_map(|(host, row)| {
            let until = row.hold_until.filter(|t| t.0 > now_ms)?;
            Some(HostLine {
                host,
                held_until: ms_to_rfc3339(until.0),
                held_for_s: (until.0 - now_ms).div_ceil(1000),
                cooldown: row.cooldown,
                reason: if row.cooldown {
                    "cool-down after repeated failures (R5)"
                } else {
                    "Retry-After or backoff (R5)"
                },
            })
        })
        .collect();
    held_hosts.sort_by(|a, b| a.host.cmp(&b.host));
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
        sources,
        held_hosts,
        blocklist,
    })
}

fn table(st: &Status) -> String {
    let mut out = format!("state: {}\n", clean_message(&st.state_dir));
    if !st.exists {
        out.push_str("\n(no state here: no run has used this directory)\n");
        return out;
    }
    out.push_str("\nsources:\n");
    if st.sources.is_empty() {
        out.push_str("  (none has run yet)\n");
    }
    let names: Vec<String> = st.sources.iter().map(|s| clean_message(&s.name)).collect();
    let w = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (s, name) in st.sources.iter().zip(&names) {
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
    }
    out.push_str("\nhosts held:\n");
    if st.held_hosts.is_empty() {
        out.push_str("  none\n");
    }
    for h in &st.held_hosts {
        let host = clean_message(&h.host);
        out.push_str(&format!(
            "  {host}  until {} (in {}; {}); `wr-feeds reset {host}` lifts it\n",
            h.held_until,
            span(h.held_for_s),
            h.reason,
        ));
    }
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
    out
}

/// Runs `status`.
pub fn run_status(args: &StatusArgs, common: &Common) -> CmdResult {
    let (settings, names) = settings_of(args.sources.as_deref())?;
    let (dir, store) = open_existing(common, &settings, false)?;
    let st = match &store {
        Some(store) => gather(store, names, &dir).map_err(store_err)?,
        None => Status {
            state_dir: dir.display().to_string(),
            exists: false,
            sources: Vec::new(),
            held_hosts: Vec::new(),
            blocklist: None,
        },
    };
    let text = if args.json {
        let mut s = serde_json::to_string_pretty(&st).unwrap_or_else(|_| "{}".into());
        s.push('\n');
        s
    } else {
        table(&st)
    };
    if crate::ui::print_out(&text) {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(CliError::Printed)
    }
}

/// What a reset target may name: a source (by key) and a host.
struct Target {
    /// The store key of the source it names, if any.
    key: Option<String>,
    /// The host key it names, if any.
    host: Option<String>,
}

/// A target as written: a source name of the sources file (any case), an
/// http(s) URL (the source it identifies, and its host), or a host
/// (`example.com`, `example.com:8080`), which may also be a source key
/// (`status` lists keys when given no sources file).
fn target(raw: &str, named: &Named) -> Target {
    let t = raw.trim();
    if let Some((_, key, _)) = named.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(t)) {
        return Target {
            key: Some(key.clone()),
            host: None,
        };
    }
    let lower = t.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        let host = wr_core::url::Url::parse(t)
            .ok()
            .map(|u| wr_core::gate::host_key(&u).as_str().to_string());
        let key = wr_core::canonical::canonical_url(t).unwrap_or_else(|_| t.to_string());
        return Target {
            key: Some(key),
            host,
        };
    }
    Target {
        key: None,
        host: Some(lower.trim_end_matches('.').to_string()),
    }
}

/// Runs `reset`: exit 0 when something was lifted for every target, 1 when
/// a target had nothing to lift.
pub fn run_reset(args: &ResetArgs, common: &Common) -> CmdResult {
    let ui = Ui::new(common.quiet, common.verbose);
    let (settings, named) = settings_of(args.sources.as_deref())?;
    let (dir, store) = open_existing(common, &settings, true)?;
    let Some(store) = store else {
        ui.error(&format!(
            "nothing to reset: no state in {} (no run has used it)",
            dir.display()
        ));
        return Ok(ExitCode::from(1));
    };
    // The run lock, only if free and only while writing: no run starts
    // half-way through a reset. A run that holds it is not waited for; it
    // keeps what it already knows until it ends.
    let lock = wr_feeds::lock::RunLock::acquire(&dir, Duration::ZERO, &mut |_| {});
    if lock.is_err() {
        ui.warn(
            "a run is in progress on this state directory: what is reset here takes effect \
             from the next run (the one in progress keeps what it already knows)",
        );
    }
    let now = now();
    let mut all_found = true;
    let mut said = Vec::new();
    for raw in &args.targets {
        let shown = clean_message(raw);
        let t = target(raw, &named);
        let mut lifted = Vec::new();
        if let Some(host) = &t.host {
            if let Some(until) = store.lift_hold(host, now).map_err(store_err)? {
                lifted.push(format!(
                    "lifted the hold on host {} (it was held until {})",
                    clean_message(host),
                    ms_to_rfc3339(until.0)
                ));
            }
        }
        // A host may also be a source's key (`status` without a sources
        // file lists keys): try it as one.
        let key = t.key.clone().or_else(|| t.host.clone());
        if let Some(key) = key {
            let row = store.source(&key).map_err(store_err)?;
            let streak = store.error_streak(&key).map_err(store_err)?;
            if store.reset_source(&key).map_err(store_err)? {
                let last = match (row.last_run, row.last_status.as_deref()) {
                    (Some(t), Some(s)) => {
                        format!(
                            "its last run ({}, {})",
                            ms_to_rfc3339(t.0),
                            clean_message(s)
                        )
                    }
                    (Some(t), None) => format!("its last run ({})", ms_to_rfc3339(t.0)),
                    _ => "its last run".to_string(),
                };
                lifted.push(format!(
                    "source `{shown}`: forgot {last} and its {streak} failed {} in a row; the \
                     next run fetches it (R8's hour lifted)",
                    if streak == 1 { "run" } else { "runs" }
                ));
            }
        }
        if lifted.is_empty() {
            all_found = false;
            ui.error(&format!(
                "{shown}: nothing to reset (no host held under that name and no source that \
                 has run by that name or URL{})",
                if args.sources.is_none() {
                    "; to name a source by its name, give --sources FILE"
                } else {
                    ""
                }
            ));
        }
        said.extend(lifted);
    }
    drop(lock);
    for s in said {
        if !crate::ui::print_out(&format!("{s}\n")) {
            return Err(CliError::Printed);
        }
    }
    if all_found {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(1))
    }
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

    #[test]
    fn targets_name_sources_urls_and_hosts() {
        let named: Named = vec![(
            "Rust Blog".into(),
            "https://blog.test/feed.xml".into(),
            true,
        )];
        let t = target("rust blog", &named);
        assert_eq!(t.key.as_deref(), Some("https://blog.test/feed.xml"));
        assert_eq!(t.host, None);
        let t = target("HTTPS://Example.COM:8443/feed.xml", &named);
        assert_eq!(t.host.as_deref(), Some("example.com:8443"));
        assert_eq!(t.key.as_deref(), Some("https://example.com:8443/feed.xml"));
        let t = target("Example.com.", &named);
        assert_eq!(t.host.as_deref(), Some("example.com"));
        assert_eq!(t.key, None);
    }
}
