//! `wr-feeds check URL...`: the gate's answer without fetching (dry run).

use crate::cmd::setup::{config, open};
use crate::sources::{self, Settings};
use crate::ui::Ui;
use crate::{CliError, CmdResult, Common};
use std::process::ExitCode;
use wr_feeds::CheckReport;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// URLs to evaluate.
    #[arg(value_name = "URL", required = true)]
    pub(crate) urls: Vec<String>,
    /// One JSON object per URL per line.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `wr-feeds check URL...`.
pub fn run(args: &Args, common: &Common) -> CmdResult {
    let mut ui = Ui::new(common.quiet, common.verbose);
    let mut bad = false;
    for u in &args.urls {
        if let Err(e) = sources::check_url(u) {
            ui.error(&e);
            bad = true;
        }
    }
    if bad {
        return Err(CliError::Printed);
    }
    let cfg = match config(common, &Settings::default()) {
        Ok(c) => c,
        Err(e) => return Err(CliError::Config(e)),
    };
    let Some(mut p) = open(cfg, &ui) else {
        return Err(CliError::Printed);
    };
    let mut code = 0u8;
    for u in &args.urls {
        let u = u.trim();
        let report = match p.check(u, &mut ui) {
            Ok(r) => r,
            Err(e) => {
                ui.error(&format!("{u}: {e}"));
                code = 2;
                continue;
            }
        };
        // The origin's usage preferences, kept with its robots.txt:
        // reported beside the verdict, never part of it.
        let signals = p.robots_signals(u).unwrap_or_default();
        let line = if args.json {
            let mut v = serde_json::to_value(&report).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.insert("signals".into(), serde_json::json!(signals));
            }
            v.to_string()
        } else {
            let mut line = check_line(&report);
            for s in &signals {
                line.push_str(&format!("\n          robots.txt {s}"));
            }
            line
        };
        if !matches!(report, CheckReport::Allowed { .. }) {
            code = code.max(if matches!(report, CheckReport::Invalid { .. }) {
                2
            } else {
                1
            });
        }
        crate::ui::print_out(&format!("{line}\n"))?;
    }
    Ok(ExitCode::from(code))
}

/// One line of `check` output (the presenter's).
pub use wr_feeds::words::check_line;

// ---- selftest ----------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_lines_name_gate_rule_and_wait() {
        let l = check_line(&CheckReport::DeniedRobots {
            url: "https://a/x".into(),
            rule: "Disallow: /x".into(),
            line: 4,
        });
        assert_eq!(
            l,
            "denied    https://a/x  (R2 robots.txt Disallow: /x, line 4)"
        );
        let l = check_line(&CheckReport::Allowed {
            url: "https://a/y".into(),
            wait_ms: 1500,
            spacing_ms: 2000,
            rule: None,
            line: None,
        });
        assert!(l.starts_with("allowed   https://a/y"), "{l}");
        assert!(l.contains("wait 1.5 s, spacing 2.0 s"), "{l}");
    }
}
