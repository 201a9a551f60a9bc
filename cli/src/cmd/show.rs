//! `wr-feeds show [SOURCES] [DATE]`: a past digest again, from the store.
//!
//! A digest is a day (see `cmd::run::run`): every item remembers the day
//! of the digest that first reported it, in the order digests delivered
//! them, and the store keeps each source's heading and outcome as the last
//! digest of the day wrote them. So any day's digest can be written again
//! without a request: the same sections, the same items in the same
//! order, each source cut to the same `max_items`. With SOURCES the
//! sources are those of the file, under the names it gives them now;
//! without it, those of that day's digest, as it named them.
//! `--since DATE` gathers every item of the days from DATE to today into
//! one digest.

use crate::cmd::setup::{config, now_secs};
use crate::digest::{self, Digest, DigestItem, SourceReport, Status};
use crate::sources::{self, Format, Settings};
use crate::Common;
use crate::{CliError, CmdResult};
use std::path::PathBuf;
use std::process::ExitCode;
use wr_feeds::store::{Days, DigestSource, Store, StoreError};

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The sources file (its sources, under the names it gives them now,
    /// and its [settings]) [default: the sources of that day's digest, as
    /// it named them]. A lone argument shaped like YYYY-MM-DD is the DATE.
    #[arg(value_name = "SOURCES")]
    pub(crate) first: Option<String>,
    /// The day, YYYY-MM-DD (a local date, as in a digest's title)
    /// [default: today].
    #[arg(value_name = "DATE")]
    pub(crate) second: Option<String>,
    /// Every item of the days from this one (YYYY-MM-DD) to today, in one
    /// digest.
    #[arg(long, value_name = "DATE", conflicts_with = "second")]
    pub(crate) since: Option<String>,
    /// Digest format [default: markdown, or `format` in [settings]].
    #[arg(long, value_enum)]
    pub(crate) format: Option<sources::Format>,
}

/// Whether `s` is shaped like a date (`NNNN-NN-NN`): a lone argument of
/// that shape is the DATE, anything else the SOURCES file.
fn date_shaped(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

/// SOURCES and DATE from the one or two positional arguments.
fn positionals(args: &Args) -> (Option<PathBuf>, Option<String>) {
    match (&args.first, &args.second) {
        (Some(one), None) if date_shaped(one) => (None, Some(one.clone())),
        (first, second) => (first.as_ref().map(PathBuf::from), second.clone()),
    }
}

fn store_err(e: StoreError) -> CliError {
    CliError::Store(e)
}

/// A section from the store: what `head` says the digest of the day
/// said of the source, or a plain one for a source it did not hold.
fn section(
    name: &str,
    url: &str,
    tags: &[String],
    head: Option<&DigestSource>,
    items: Vec<wr_feeds::Item>,
) -> SourceReport {
    let status = head
        .and_then(|h| Status::from_word(&h.status))
        .unwrap_or(Status::Ok);
    SourceReport {
        name: name.to_string(),
        url: url.to_string(),
        tags: tags.to_vec(),
        status,
        reason: head.and_then(|h| h.reason.clone()),
        method: head.and_then(|h| h.method.clone()),
        items: items.iter().map(DigestItem::from).collect(),
        not_listed: 0,
        filtered: Vec::new(),
        listed_elsewhere: 0,
        signals: Vec::new(),
    }
}

fn to_usize(n: Option<u64>) -> Option<usize> {
    n.and_then(|n| usize::try_from(n).ok())
}

/// The days asked for: DATE, or `--since` (checked: a real date, not
/// after today, not both).
fn asked_days(
    args: &Args,
    date: Option<String>,
    today: chrono::NaiveDate,
) -> Result<(Option<chrono::NaiveDate>, Option<chrono::NaiveDate>), CliError> {
    // clap sees a lone DATE as SOURCES (`first`): the conflict is checked
    // here, or `show DATE --since D` silently ignored the DATE.
    if let (Some(d), Some(s)) = (&date, &args.since) {
        return Err(CliError::Usage(format!(
            "DATE ({d}) and --since {s} cannot be used together: DATE shows one day, \
             --since every day from it to today"
        )));
    }
    let date = date
        .as_deref()
        .map(digest::parse_day)
        .transpose()
        .map_err(|e| CliError::Usage(format!("DATE {e}")))?;
    let since = args
        .since
        .as_deref()
        .map(digest::parse_day)
        .transpose()
        .map_err(|e| CliError::Usage(format!("--since {e}")))?;
    for d in [date, since].into_iter().flatten() {
        if d > today {
            return Err(CliError::Usage(format!(
                "{d} is after today ({today}): no digest of it exists yet"
            )));
        }
    }
    Ok((date, since))
}

/// Runs `show`.
pub fn run(args: &Args, common: &Common) -> CmdResult {
    let now = now_secs();
    let today = digest::parse_day(&digest::day(now)).map_err(CliError::Message)?;
    let (sources_path, date) = positionals(args);
    let (date, since) = asked_days(args, date, today)?;
    let file = match &sources_path {
        Some(p) => Some(sources::load(p)?),
        None => None,
    };
    let settings = file
        .as_ref()
        .map(|f| f.settings.clone())
        .unwrap_or_else(Settings::default);
    let cfg = config(common, &settings).map_err(CliError::Config)?;
    // Read-only: no run lock, no network, nothing created.
    let Some(store) = Store::open_existing(&cfg.state_dir, false).map_err(store_err)? else {
        return Err(CliError::msg(format!(
            "nothing to show: no state in {} (no digest was made with it; --state-dir, \
             WR_STATE_DIR or [settings] state_dir name the one the digest uses)",
            cfg.state_dir.display()
        )));
    };
    crate::cmd::status::say_if_immutable(&store, common);
    let (title, range, heads) = match since {
        Some(s) => (
            format!("since {s}"),
            digest::days(s, today, today),
            Vec::new(),
        ),
        None => {
            let d = date.unwrap_or(today);
            let range = digest::days(d, d, today);
            let heads = store.digest_sources(&range.first).map_err(store_err)?;
            (range.first.clone(), range, heads)
        }
    };
    // `--since` gathers: no day's outcomes, no day's cut.
    let one_day = since.is_none();
    let mut sections = match &file {
        Some(f) => from_file(&store, f, &range, &heads, one_day)?,
        None => from_store(&store, &range, &heads, one_day)?,
    };
    // As the digest listed them: each link once, under the first source
    // (issue #23).
    digest::list_once(&mut sections);
    // A day no digest was made: saying so (exit 1), not an empty digest
    // with exit 0. Items an older store reported without days still
    // count as that day's digest.
    if one_day && heads.is_empty() && sections.iter().all(|s| s.items.is_empty()) {
        crate::ui::Ui::new(common.quiet, common.verbose).error(&format!("no digest for {title}"));
        return Ok(ExitCode::from(1));
    }
    // The instant the day's last digest was made, as it said.
    let generated = heads
        .iter()
        .map(|h| h.written_at.0 / 1000)
        .max()
        .and_then(|s| i64::try_from(s).ok())
        .unwrap_or(now);
    let d = Digest::titled(&title, generated, sections);
    let text = match args.format.or(settings.format).unwrap_or_default() {
        Format::Markdown => d.to_markdown(),
        Format::Json => d.to_json(),
    };
    crate::ui::print_out(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The sections of the file's (enabled) sources, in its order and under
/// its names.
fn from_file(
    store: &Store,
    file: &sources::SourcesFile,
    range: &Days,
    heads: &[DigestSource],
    one_day: bool,
) -> Result<Vec<SourceReport>, CliError> {
    let mut out = Vec::new();
    for s in file.sources.iter().filter(|s| s.enabled) {
        let key = s.key();
        let head = heads.iter().find(|h| h.source == key);
        let items = store.day_items(&key, range).map_err(store_err)?;
        let mut section = section(&s.name, &s.url, &s.tags, head, items);
        section.signals = signals(store, &key)?;
        // The file's filters, as the digest applied them.
        let section = crate::digest::assemble::filtered(section, &file.filters, s);
        out.push(if one_day {
            section.capped(s.max_items)
        } else {
            section
        });
    }
    Ok(out)
}

/// The usage signals of the robots.txt stored for the origin the source
/// was last read from (its key, a canonical URL, before any fetch): what
/// the digest showed, as `status` does.
fn signals(store: &Store, key: &str) -> Result<Vec<wr_feeds::SignalReport>, CliError> {
    wr_feeds::pipeline::source_signals(store, key).map_err(store_err)
}

/// The sections of the day's digest as it was written (names, pages and
/// tags as they were then), then any other source with items in `range`
/// (a day from before sections were kept), under the name its last digest
/// gave it, else its key.
fn from_store(
    store: &Store,
    range: &Days,
    heads: &[DigestSource],
    one_day: bool,
) -> Result<Vec<SourceReport>, CliError> {
    let mut out = Vec::new();
    for h in heads {
        let items = store.day_items(&h.source, range).map_err(store_err)?;
        let mut section = section(&h.name, &h.url, &h.tags, Some(h), items);
        section.signals = signals(store, &h.source)?;
        out.push(section.capped(to_usize(h.max_items)));
    }
    for key in store.day_item_sources(range).map_err(store_err)? {
        if heads.iter().any(|h| h.source == key) {
            continue;
        }
        let items = store.day_items(&key, range).map_err(store_err)?;
        let last = store.last_digest_source(&key).map_err(store_err)?;
        let (name, url, tags) = match &last {
            Some(l) => (l.name.as_str(), l.url.as_str(), l.tags.as_slice()),
            None => (key.as_str(), key.as_str(), &[][..]),
        };
        let section = section(name, url, tags, None, items);
        out.push(match (&last, one_day) {
            (Some(l), true) => section.capped(to_usize(l.max_items)),
            _ => section,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_date_is_the_date_and_anything_else_the_sources() {
        let args = |first: Option<&str>, second: Option<&str>| Args {
            first: first.map(String::from),
            second: second.map(String::from),
            since: None,
            format: None,
        };
        assert_eq!(
            positionals(&args(Some("2026-11-24"), None)),
            (None, Some("2026-11-24".into()))
        );
        assert_eq!(
            positionals(&args(Some("sources.toml"), None)),
            (Some("sources.toml".into()), None)
        );
        assert_eq!(
            positionals(&args(Some("s.toml"), Some("2026-11-24"))),
            (Some("s.toml".into()), Some("2026-11-24".into()))
        );
        assert_eq!(positionals(&args(None, None)), (None, None));
        // Shaped like a date, checked as one later.
        assert!(date_shaped("2026-13-45"));
        assert!(!date_shaped("./2026-11-24"));
    }
}
