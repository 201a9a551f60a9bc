//! What every command that opens the state does first: the pipeline's
//! configuration from flags, environment and `[settings]`, the pipeline
//! opened (waiting for another run's lock, saying so).

use crate::sources::Settings;
use crate::ui::Ui;
use crate::Common;
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use wr_feeds::{Config, ConnectTo, Pipeline};

pub(crate) fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The git commit the binary was built from (R13 `sha`), if known.
fn build_sha() -> Option<&'static str> {
    option_env!("WR_GIT_SHA").filter(|s| !s.is_empty())
}

/// Builds the pipeline configuration: flags, then the environment, then
/// `[settings]`, then defaults.
pub(crate) fn config(common: &Common, settings: &Settings) -> Result<Config, String> {
    let dir = match (&common.state_dir, &settings.state_dir) {
        (Some(d), _) if !d.as_os_str().is_empty() => d.clone(),
        (_, Some(d)) => d.clone(),
        _ => wr_feeds::config::default_state_dir().map_err(|e| e.to_string())?,
    };
    let mut cfg = Config::new(dir);
    let env_base = std::env::var("WR_OPERATOR_BASE")
        .ok()
        .filter(|v| !v.is_empty());
    if let Some(base) = env_base.as_deref() {
        cfg.set_operator_base(base)
            .map_err(|e| format!("WR_OPERATOR_BASE: {e}"))?;
    } else if let Some(base) = settings.operator_base.as_deref() {
        cfg.set_operator_base(base)
            .map_err(|e| format!("`operator_base` in [settings]: {e}"))?;
    }
    for c in &common.connect_to {
        cfg.connect_to
            .push(c.parse::<ConnectTo>().map_err(|e| e.to_string())?);
    }
    cfg.coordinator = match common.coordinator.as_deref().filter(|c| !c.is_empty()) {
        Some(c) => Some(
            crate::sources::check_coordinator(c)
                .map_err(|e| format!("--coordinator / WR_COORDINATOR: {e}"))?,
        ),
        None => settings.coordinator.clone(),
    };
    if let Some(t) = settings.timeout_secs {
        cfg.timeouts.request = Duration::from_secs(t);
    }
    if let (Some(id), Some(sha)) = (cfg.identity.as_mut(), build_sha()) {
        if std::env::var("GITHUB_SHA").map_or(true, |s| s.is_empty()) {
            id.sha = sha.to_string();
        }
    }
    Ok(cfg)
}

pub(crate) fn open(cfg: Config, ui: &Ui) -> Option<Pipeline> {
    let dir = cfg.state_dir.clone();
    let stall = cfg.lock_wait.stall.as_secs().div_ceil(60);
    let most = cfg.lock_wait.most.as_secs() / 3600;
    let mut on_wait = |lock: &std::path::Path, waited: Duration| {
        if waited < Duration::from_secs(1) {
            ui.warn(&format!(
                "another wr-feeds run is using {} ({}); waiting for it to finish, as long as \
                 it makes progress (giving up after {stall} min without progress, or \
                 {most} h in all)",
                dir.display(),
                lock.display()
            ))
        } else {
            ui.warn(&format!(
                "still waiting for the other wr-feeds run to finish ({} so far)",
                crate::cmd::status::span(waited.as_secs())
            ))
        }
    };
    match Pipeline::open_waiting(cfg, &mut on_wait) {
        Ok(p) => Some(p),
        Err(wr_feeds::PipelineError::Fleet(e)) => {
            ui.error(&format!(
                "cannot reach the fleet coordinator ({e}); nothing was fetched: without it the \
                 machines of the fleet cannot share one budget per host (R4a)"
            ));
            None
        }
        Err(e) => {
            ui.error(&format!("cannot open the state in {}: {e}", dir.display()));
            None
        }
    }
}
