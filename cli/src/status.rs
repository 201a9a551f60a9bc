//! `wr-feeds status` and `wr-feeds reset`: the state at a glance, and a way
//! to lift what holds a host or a source back.
//!
//! Both read the state directory only (no request, no run lock: SQLite's
//! WAL lets them read while a run writes). A reset takes effect from the
//! next run; a run in progress keeps what it already knows.

use crate::app::{config, now_secs};
use crate::digest::rfc3339;
use crate::sources::{self, Settings};
use crate::ui::Ui;
use crate::{CliError, CmdResult};
use crate::{Common, ResetArgs, StatusArgs};
use serde::Serialize;
use std::process::ExitCode;
use wr_feeds::extract::clean_message;
use wr_feeds::store::Store;

#[derive(Serialize)]
struct SourceLine {
    name: String,
    last_run: Option<String>,
    outcome: Option<String>,
    error_streak: u32,
    items_seen: u64,
}

#[derive(Serialize)]
struct HostLine {
    host: String,
    held_until: String,
    reason: &'static str,
}

#[derive(Serialize)]
struct BlocklistLine {
    entries: usize,
    fetched_at: String,
    age_s: u64,
}

#[derive(Serialize)]
struct Status {
    state_dir: String,
    sources: Vec<SourceLine>,
    held_hosts: Vec<HostLine>,
    blocklist: Option<BlocklistLine>,
}

fn ms_to_rfc3339(ms: u64) -> String {
    rfc3339(i64::try_from(ms / 1000).unwrap_or(i64::MAX))
}

/// The store of the state directory `common` and `settings` name.
fn open(common: &Common, settings: &Settings, ui: &Ui) -> Option<Store> {
    let cfg = config(common, settings).map_err(|e| ui.error(&e)).ok()?;
    Store::open(&cfg.state_dir)
        .map_err(|e| ui.error(&e.to_string()))
        .ok()
}

/// The settings of a sources file and its sources as (name, store key).
type Named = Vec<(String, String)>;

fn settings_of(path: Option<&std::path::Path>, ui: &Ui) -> Option<(Settings, Named)> {
    match path {
        None => Some((Settings::default(), Vec::new())),
        Some(p) => match sources::load(p) {
            Ok(f) => Some((
                f.settings,
                f.sources
                    .iter()
                    .map(|s| (s.name.clone(), s.key()))
                    .collect(),
            )),
            Err(e) => {
                ui.error(&e.to_string());
                None
            }
        },
    }
}

fn gather(store: &Store, named: Named) -> Result<Status, wr_feeds::store::StoreError> {
    let now_ms = u64::try_from(now_secs()).unwrap_or(0) * 1000;
    // Without a sources file, every source the store knows, by its key.
    let named = if named.is_empty() {
        store
            .source_names()?
            .into_iter()
            .map(|k| (k.clone(), k))
            .collect()
    } else {
        named
    };
    let mut sources = Vec::new();
    for (name, key) in named {
        let row = store.source(&key)?;
        sources.push(SourceLine {
            last_run: row.last_run.map(|t| ms_to_rfc3339(t.0)),
            outcome: row.last_status,
            error_streak: store.error_streak(&key)?,
            items_seen: store.items_seen(&key)?,
            name,
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
                reason: if row.cooldown {
                    "cool-down after repeated failures (R5)"
                } else {
                    "Retry-After or backoff (R5)"
                },
            })
        })
        .collect();
    held_hosts.sort_by(|a, b| a.host.cmp(&b.host));
    let blocklist = store.blocklist()?.map(|row| BlocklistLine {
        entries: serde_json::from_str::<Vec<serde_json::Value>>(&row.entries_json)
            .map_or(0, |v| v.len()),
        fetched_at: ms_to_rfc3339(row.fetched_at.0),
        age_s: now_ms.saturating_sub(row.fetched_at.0) / 1000,
    });
    Ok(Status {
        state_dir: store.path().display().to_string(),
        sources,
        held_hosts,
        blocklist,
    })
}

fn table(st: &Status) -> String {
    let mut out = format!("state: {}\n\nsources:\n", clean_message(&st.state_dir));
    if st.sources.is_empty() {
        out.push_str("  (none has run yet)\n");
    }
    let w = st
        .sources
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    for s in &st.sources {
        out.push_str(&format!(
            "  {:<w$}  last run {:<20}  {:<12}  {} failed in a row  {} items seen\n",
            clean_message(&s.name),
            s.last_run.as_deref().unwrap_or("never"),
            s.outcome.as_deref().unwrap_or("-"),
            s.error_streak,
            s.items_seen,
        ));
    }
    out.push_str("\nhosts held:\n");
    if st.held_hosts.is_empty() {
        out.push_str("  none\n");
    }
    for h in &st.held_hosts {
        out.push_str(&format!(
            "  {}  until {} ({}); `wr-feeds reset {}` lifts it\n",
            clean_message(&h.host),
            h.held_until,
            h.reason,
            clean_message(&h.host)
        ));
    }
    match &st.blocklist {
        Some(b) => out.push_str(&format!(
            "\noperator blocklist: {} {}, fetched {} ({} h ago)\n",
            b.entries,
            if b.entries == 1 { "entry" } else { "entries" },
            b.fetched_at,
            b.age_s / 3600
        )),
        None => out.push_str("\noperator blocklist: none adopted yet\n"),
    }
    out
}

/// Runs `status`.
pub fn run_status(args: &StatusArgs, common: &Common) -> CmdResult {
    let ui = Ui::new(common.quiet, common.verbose);
    let Some((settings, names)) = settings_of(args.sources.as_deref(), &ui) else {
        return Err(CliError::Printed);
    };
    let Some(store) = open(common, &settings, &ui) else {
        return Err(CliError::Printed);
    };
    let st = match gather(&store, names) {
        Ok(s) => s,
        Err(e) => {
            return Err(CliError::msg(e.to_string()));
        }
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

/// Runs `reset`: exit 0 when something was lifted for every target, 1 when
/// a target had nothing to lift.
pub fn run_reset(args: &ResetArgs, common: &Common) -> CmdResult {
    let ui = Ui::new(common.quiet, common.verbose);
    let Some((settings, named)) = settings_of(args.sources.as_deref(), &ui) else {
        return Err(CliError::Printed);
    };
    let Some(store) = open(common, &settings, &ui) else {
        return Err(CliError::Printed);
    };
    let now = wr_core::time::Timestamp(u64::try_from(now_secs()).unwrap_or(0) * 1000);
    let mut all_found = true;
    for target in &args.targets {
        let shown = clean_message(target);
        let host = target.trim().trim_end_matches('.').to_ascii_lowercase();
        // A source by its name in the sources file, or by its key (the
        // canonical URL `status` lists).
        let key = named
            .iter()
            .find(|(name, _)| name == target)
            .map(|(_, key)| key.clone())
            .unwrap_or_else(|| {
                wr_core::canonical::canonical_url(target).unwrap_or_else(|_| target.clone())
            });
        let lifted = store.lift_hold(&host, now).and_then(|held| {
            let source = store.reset_source(&key)?;
            Ok((held, source))
        });
        let mut said = Vec::new();
        match lifted {
            Err(e) => {
                return Err(CliError::msg(e.to_string()));
            }
            Ok((held, source)) => {
                if let Some(until) = held {
                    said.push(format!(
                        "lifted the hold on host {shown} (it was held until {})",
                        ms_to_rfc3339(until.0)
                    ));
                }
                if source {
                    said.push(format!(
                        "forgot the last run and error streak of source `{shown}`: the next run fetches it (R8's hour lifted)"
                    ));
                }
            }
        }
        if said.is_empty() {
            all_found = false;
            ui.error(&format!(
                "{shown}: nothing to reset (no held host and no source that has run by that name)"
            ));
        }
        for s in said {
            if !crate::ui::print_out(&format!("{s}\n")) {
                return Err(CliError::Printed);
            }
        }
    }
    if all_found {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(1))
    }
}
