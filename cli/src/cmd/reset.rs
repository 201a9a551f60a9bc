//! `wr-feeds reset HOST|SOURCE...`: lifts a host's hold (R5) or forgets a
//! source's state (its R8 hour, its error streak), saying what it lifted.
//!
//! Only our own holds are lifted: the backoff and the one-hour cool-down
//! after retries ran out. A server's `Retry-After` is kept, since R5 says
//! "wait at least that long" and a reset that lifted it made the next run
//! ask a server that had said 3600 s a second later (issue #18). `--force`
//! lifts it anyway, and says so.
//!
//! It makes no request and creates no state directory. It writes one
//! short transaction per target; it holds the run lock only while it
//! writes, and only if no run holds it (it never waits for one). A reset
//! takes effect from the next run: a run in progress keeps what it
//! already knows.
//!
//! With a coordinator configured, a host's hold is also lifted in the
//! fleet (every machine's next slot), under the same rule: a server's
//! Retry-After is kept without `--force`.

use super::status::{ms_to_rfc3339, now, open_existing, settings_of, store_err, Named};
use crate::ui::Ui;
use crate::{CmdResult, Common};
use std::path::PathBuf;
use std::process::ExitCode;
use wr_feeds::extract::clean_message;
use wr_feeds::fleet::FleetLift;
use wr_feeds::store::Lift;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// Hosts (`example.com`, `example.com:8080`) or source names.
    #[arg(value_name = "HOST|SOURCE", required = true)]
    pub(crate) targets: Vec<String>,
    /// A sources file whose [settings] state_dir to use.
    #[arg(long, value_name = "SOURCES")]
    pub(crate) sources: Option<PathBuf>,
    /// Also lift a hold a server asked for with `Retry-After` (R5 says
    /// to wait at least that long; without --force it is kept).
    #[arg(long)]
    pub(crate) force: bool,
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
        host: Some(wr_core::domain::strip_trailing_dots(&lower).to_string()),
    }
}

/// What was done for one target: what was lifted (said on standard
/// output), and a server's Retry-After kept (said on stderr).
#[derive(Default)]
struct Done {
    lifted: Vec<String>,
    kept: Vec<String>,
}

/// Connects to the fleet coordinator, if one is configured.
fn connect_fleet(
    coordinator: Option<&str>,
) -> Result<Option<wr_feeds::fleet::Coordinator>, crate::CliError> {
    let Some(url) = coordinator else {
        return Ok(None);
    };
    wr_feeds::fleet::Coordinator::connect(
        url,
        std::time::Duration::from_secs(1),
        std::time::Duration::from_secs(5),
    )
    .map(Some)
    .map_err(|source| crate::CliError::Fleet {
        what: "cannot reach the fleet coordinator (nothing was reset)".to_string(),
        source,
    })
}

/// Runs `reset`: exit 0 when something was lifted for every target, 1 when
/// a target had nothing to lift or only a server's Retry-After, which is
/// kept without `--force`.
pub fn run(args: &Args, common: &Common) -> CmdResult {
    let ui = Ui::new(common.quiet, common.verbose);
    let (settings, named) = settings_of(args.sources.as_deref())?;
    let (dir, store) = open_existing(common, &settings, true)?;
    let coordinator = crate::cmd::setup::config(common, &settings)
        .map_err(crate::CliError::Config)?
        .coordinator;
    if store.is_none() && coordinator.is_none() {
        ui.error(&format!(
            "nothing to reset: no state in {} (no run has used it)",
            dir.display()
        ));
        return Ok(ExitCode::from(1));
    }
    let mut fleet = connect_fleet(coordinator.as_deref())?;
    // The run lock, only if free and only while writing: no run starts
    // half-way through a reset. A run that holds it is not waited for; it
    // keeps what it already knows until it ends.
    let lock = store.as_ref().map(|_| {
        wr_feeds::lock::RunLock::acquire(&dir, wr_feeds::lock::LockWait::NONE, &mut |_, _| {})
    });
    if lock.as_ref().is_some_and(|l| l.is_err()) {
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
        let mut done = Done::default();
        if let (Some(host), Some(fleet)) = (&t.host, fleet.as_mut()) {
            let lift =
                fleet
                    .lift_hold(host, args.force)
                    .map_err(|source| crate::CliError::Fleet {
                        what: format!("cannot reset {shown} in the fleet"),
                        source,
                    })?;
            fleet_words(lift, &shown, &clean_message(host), now, &mut done);
        }
        if let (Some(host), Some(store)) = (&t.host, store.as_ref()) {
            let lift = store.lift_hold(host, now, args.force).map_err(store_err)?;
            store_words(lift, &shown, &clean_message(host), &mut done);
        }
        // A host may also be a source's key (`status` without a sources
        // file lists keys): try it as one.
        let key = t.key.clone().or_else(|| t.host.clone());
        if let (Some(key), Some(store)) = (key, store.as_ref()) {
            done.lifted.extend(forget_source(store, &key, &shown)?);
        }
        all_found &= say_target(&ui, args, &shown, &done);
        said.extend(done.lifted);
    }
    drop(lock);
    for s in said {
        crate::ui::print_out(&format!("{s}\n"))?;
    }
    if all_found {
        Ok(ExitCode::SUCCESS)
    } else {
        Ok(ExitCode::from(1))
    }
}

/// What the fleet's lift of `host`'s hold did, in words.
fn fleet_words(
    lift: FleetLift,
    shown: &str,
    host: &str,
    now: wr_core::time::Timestamp,
    done: &mut Done,
) {
    let at = |ms: u64| ms_to_rfc3339(now.0.saturating_add(ms));
    match lift {
        FleetLift { was_ms: None, .. } => {}
        FleetLift {
            was_ms: Some(was),
            kept_ms: Some(until),
            ..
        } => {
            if was > until {
                done.lifted.push(format!(
                    "fleet: lifted our own hold on host {host} (it was held until {})",
                    at(was)
                ));
            }
            done.kept.push(format!(
                "{shown}: kept the fleet's hold on host {host} until {}: the server asked \
                 for it with Retry-After, and R5 says to wait at least that long; \
                 `wr-feeds reset --force {host}` lifts it anyway",
                at(until)
            ));
        }
        FleetLift {
            was_ms: Some(was),
            forced_ms,
            ..
        } => done.lifted.push(format!(
            "fleet: lifted the hold on host {host} (it was held until {}){}",
            at(was),
            match forced_ms {
                Some(s) => format!(
                    ", including the server's Retry-After until {} (--force: R5 asks \
                     to wait at least that long)",
                    at(s)
                ),
                None => String::new(),
            }
        )),
    }
}

/// What the store's lift of `host`'s hold did, in words.
fn store_words(lift: Lift, shown: &str, host: &str, done: &mut Done) {
    match lift {
        Lift { was: None, .. } => {}
        Lift {
            was: Some(was),
            kept: Some(until),
            ..
        } => {
            if was > until {
                done.lifted.push(format!(
                    "lifted our own hold on host {host} (it was held until {})",
                    ms_to_rfc3339(was.0)
                ));
            }
            done.kept.push(format!(
                "{shown}: kept the hold on host {host} until {}: the server asked for it \
                 with Retry-After, and R5 says to wait at least that long; \
                 `wr-feeds reset --force {host}` lifts it anyway",
                ms_to_rfc3339(until.0)
            ));
        }
        Lift {
            was: Some(was),
            forced: Some(server),
            ..
        } => done.lifted.push(format!(
            "lifted the hold on host {host} (it was held until {}), including the \
             server's Retry-After until {} (--force: R5 asks to wait at least that long)",
            ms_to_rfc3339(was.0),
            ms_to_rfc3339(server.0)
        )),
        Lift { was: Some(was), .. } => done.lifted.push(format!(
            "lifted the hold on host {host} (it was held until {})",
            ms_to_rfc3339(was.0)
        )),
    }
}

/// Forgets the source `key`'s last run and error streak; what was
/// forgotten, in words, if it had run.
fn forget_source(
    store: &wr_feeds::store::Store,
    key: &str,
    shown: &str,
) -> Result<Option<String>, crate::CliError> {
    let row = store.source(key).map_err(store_err)?;
    let streak = store.error_streak(key).map_err(store_err)?;
    if !store.reset_source(key).map_err(store_err)? {
        return Ok(None);
    }
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
    Ok(Some(format!(
        "source `{shown}`: forgot {last} and its {streak} failed {} in a row; the \
         next run fetches it (R8's hour lifted)",
        if streak == 1 { "run" } else { "runs" }
    )))
}

/// Says on stderr what was kept, or that nothing was found; whether
/// something was lifted for the target.
fn say_target(ui: &Ui, args: &Args, shown: &str, done: &Done) -> bool {
    // A kept Retry-After is an answer, not a failure to find the
    // target; it is an error only when nothing else was done.
    for k in &done.kept {
        if done.lifted.is_empty() {
            ui.error(k);
        } else {
            ui.warn(k);
        }
    }
    if done.lifted.is_empty() && done.kept.is_empty() {
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
    !done.lifted.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

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
