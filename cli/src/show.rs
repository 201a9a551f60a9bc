//! `wr-feeds show SOURCES [DATE]`: a past digest again, from the store.
//!
//! A digest is a day (see `app::run_digest`); every item remembers the day
//! of the digest that reported it, so any day's digest can be written
//! again without a request: the same items, in the same order, under the
//! names sources.toml gives them today. `--since DATE` gathers every day
//! from DATE on into one digest.

use crate::app::config;
use crate::digest::{self, Digest, DigestItem, SourceReport, Status};
use crate::sources::{self, Format};
use crate::{CliError, CmdResult};
use crate::{Common, ShowArgs};
use std::process::ExitCode;
use wr_feeds::store::Store;

/// Whether `s` is a `YYYY-MM-DD` date.
fn is_day(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

/// Runs `show`.
pub fn run(args: &ShowArgs, common: &Common) -> CmdResult {
    let today = digest::day(crate::app::now_secs());
    let day = args.date.clone().unwrap_or_else(|| today.clone());
    for (what, d) in [("DATE", Some(&day)), ("--since", args.since.as_ref())] {
        if let Some(d) = d.filter(|d| !is_day(d)) {
            return Err(CliError::msg(format!(
                "{what} {d:?} is not a date (expected YYYY-MM-DD)"
            )));
        }
    }
    let file = match sources::load(&args.sources) {
        Ok(f) => f,
        Err(e) => {
            return Err(CliError::msg(e.to_string()));
        }
    };
    let cfg = match config(common, &file.settings) {
        Ok(c) => c,
        Err(e) => {
            return Err(CliError::msg(e));
        }
    };
    // Read-only use of the store: no run lock, no network.
    let store = match Store::open(&cfg.state_dir) {
        Ok(s) => s,
        Err(e) => {
            return Err(CliError::msg(e.to_string()));
        }
    };
    let days = match &args.since {
        Some(since) => match store.digest_days(since) {
            Ok(d) => d,
            Err(e) => {
                return Err(CliError::msg(e.to_string()));
            }
        },
        None => vec![day.clone()],
    };
    let mut reports = Vec::new();
    for s in file.sources.iter().filter(|s| s.enabled) {
        let mut items: Vec<DigestItem> = Vec::new();
        for d in &days {
            match store.reported_on(&s.key(), d) {
                Ok(found) => items.extend(found.into_iter().map(|i| DigestItem {
                    title: i.title,
                    url: i.url,
                    published: i.published,
                })),
                Err(e) => {
                    return Err(CliError::msg(e.to_string()));
                }
            }
        }
        reports.push(SourceReport {
            name: s.name.clone(),
            url: s.url.clone(),
            tags: s.tags.clone(),
            status: Status::Ok,
            reason: None,
            method: None,
            items,
            not_listed: 0,
        });
    }
    let title = match &args.since {
        Some(since) => format!("since {since}"),
        None => day,
    };
    let d = Digest::titled(&title, crate::app::now_secs(), reports);
    let text = match args.format.or(file.settings.format).unwrap_or_default() {
        Format::Markdown => d.to_markdown(),
        Format::Json => d.to_json(),
    };
    if crate::ui::print_out(&text) {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(CliError::Printed)
    }
}

#[cfg(test)]
mod tests {
    use super::is_day;

    #[test]
    fn dates_are_yyyy_mm_dd() {
        assert!(is_day("2026-11-24"));
        for bad in [
            "2026-1-24",
            "20261124",
            "2026/11/24",
            "yesterday",
            "2026-11-24x",
            "",
        ] {
            assert!(!is_day(bad), "{bad}");
        }
    }
}
