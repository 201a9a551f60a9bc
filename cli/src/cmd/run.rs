//! The digest, the default command: `wr-feeds SOURCES`.

use crate::cmd::setup::{config, now_secs, open};
use crate::digest::{self, Digest, DigestItem, SourceReport, Status};
use crate::output::{self, Output};
use crate::sources::{self, Format};
use crate::ui::Ui;
use crate::{CliError, CmdResult, Common};
use std::path::PathBuf;
use std::process::ExitCode;
use wr_core::time::Timestamp;
use wr_feeds::store::DigestSource;
use wr_feeds::{BlocklistState, RunOptions, SourceStatus};

/// Options of the digest (the default command).
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Args {
    /// The sources file (see README: `[[source]]` tables with name, url,
    /// feed, tags; an optional `[settings]` table).
    #[arg(value_name = "SOURCES")]
    pub(crate) sources: Option<PathBuf>,
    /// List every item currently offered, not only those first seen since
    /// the previous digest.
    #[arg(long)]
    pub(crate) all: bool,
    /// Fetch sources even if they were fetched less than an hour ago (R8).
    #[arg(long)]
    pub(crate) force: bool,
    /// Digest format [default: markdown, or `format` in [settings]].
    #[arg(long, value_enum)]
    pub(crate) format: Option<sources::Format>,
    /// Write the digest to FILE (atomically) instead of standard output.
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

impl Args {
    pub(crate) fn given(&self) -> bool {
        self.sources.is_some()
            || self.all
            || self.force
            || self.format.is_some()
            || self.output.is_some()
    }
}

fn domains(n: usize) -> String {
    if n == 1 {
        "1 domain".to_string()
    } else {
        format!("{n} domains")
    }
}

fn report_blocklist(ui: &Ui, state: &BlocklistState) {
    match state {
        // Not quiet: the pipeline's own notice has said it already.
        BlocklistState::Fallback { reason } if ui.quiet => ui.error(&format!(
            "the operator blocklist could not be fetched and none was ever adopted ({reason}): \
             no out-of-band opt-out is known yet (R3b fail-open)"
        )),
        // The pipeline's notice has said it (a warning, hidden by -q):
        // saying it here too printed it twice (issue #12).
        BlocklistState::Retained { .. } => {}
        BlocklistState::Unavailable { reason } if ui.quiet => ui.error(&format!(
            "the operator blocklist could not be obtained and no usable copy exists ({reason}): \
             targets were deferred, not fetched without it (R3)"
        )),
        BlocklistState::Fresh { entries } | BlocklistState::Cached { entries } => {
            ui.detail(1, &format!("operator blocklist: {}", domains(*entries)))
        }
        BlocklistState::Unavailable { .. } => {}
        BlocklistState::Fallback { .. } | BlocklistState::Unknown => {}
    }
}

/// A source's section of the digest, with every item `r` holds (cut to
/// its `max_items` by [`SourceReport::capped`]).
fn to_report(src: &sources::Source, r: &wr_feeds::SourceReport) -> SourceReport {
    let (status, reason) = match &r.status {
        SourceStatus::Ok { not_modified } => (
            Status::Ok,
            if *not_modified {
                Some(digest::NOT_MODIFIED.to_string())
            } else {
                // A feed read after repairs, or listing nothing (issue #19).
                (!r.notes.is_empty()).then(|| r.notes.join("; "))
            },
        ),
        SourceStatus::Skipped { last_run, by, .. } if by == wr_core::hints::Hint::R8.as_str() => (
            Status::Skipped,
            Some(format!(
                "fetched less than an hour ago ({}), R8; --force fetches it anyway",
                digest::rfc3339((*last_run / 1000) as i64)
            )),
        ),
        // A publisher hint (issue #23): when, and which.
        SourceStatus::Skipped {
            last_run, until, by
        } => (
            Status::Skipped,
            Some(format!(
                "fetched {}; the publisher asks for no fetch before {} ({by}); --force fetches it anyway",
                digest::rfc3339((*last_run / 1000) as i64),
                digest::rfc3339((*until / 1000) as i64)
            )),
        ),
        s @ (SourceStatus::DeniedBlocklist { .. } | SourceStatus::DeniedRobots { .. }) => {
            (Status::Denied, s.denial().map(|d| d.to_string()))
        }
        SourceStatus::Deferred { reason, .. } => (Status::Deferred, Some(reason.clone())),
        SourceStatus::LeftOut { reason } => (Status::LeftOut, Some(reason.clone())),
        SourceStatus::Failed { reason } => (Status::Failed, Some(reason.clone())),
    };
    SourceReport {
        name: src.name.clone(),
        url: src.url.clone(),
        tags: src.tags.clone(),
        status,
        reason,
        method: r.method.map(|m| m.as_str().to_string()),
        items: r
            .items
            .iter()
            .map(|i| DigestItem {
                title: i.title.clone(),
                url: i.url.clone(),
                published: i.published.clone(),
                also_in: Vec::new(),
            })
            .collect(),
        not_listed: 0,
        filtered: Vec::new(),
        listed_elsewhere: 0,
        signals: Vec::new(),
    }
}

/// The section with only the items the filters keep, and what each
/// filter left out.
pub(crate) fn filtered(
    mut r: SourceReport,
    global: &crate::filters::Filters,
    src: &sources::Source,
) -> SourceReport {
    use crate::filters::{apply, Scope};
    let items = std::mem::take(&mut r.items);
    let (kept, counts) = apply(
        items,
        [(global, Scope::Global), (&src.filters, Scope::Source)],
        |i: &DigestItem| (i.title.as_str(), i.url.as_str()),
    );
    r.items = kept;
    r.filtered = counts;
    r
}

/// Where the digest of another day that the plain `-o` file `path` holds
/// will be kept ([`digest::kept_name`]), checked before anything is
/// fetched: `None` when the file holds no digest, or today's (a rerun
/// rewrites its own day), or when that name already holds the very same
/// bytes. A kept name taken by something else is refused, saying why:
/// today's digest would otherwise empty what the file held, a whole day
/// of items, at the first run after local midnight.
fn earlier_day(path: &std::path::Path, today: &str) -> Result<Option<PathBuf>, CliError> {
    let Ok(held) = std::fs::read(path) else {
        return Ok(None);
    };
    let Some(day) = digest::day_held(&held).filter(|d| d != today) else {
        return Ok(None);
    };
    let kept = digest::kept_name(path, &day);
    match std::fs::read(&kept) {
        Ok(k) if k == held => Ok(None),
        Ok(_) => Err(CliError::Output(format!(
            "{} holds the digest of {day}, which would be kept as {} before today's replaces \
             it, but that file exists and holds something else: move one of them, or name \
             one file per day with `{{date}}` (`-o digest-{{date}}.md`); nothing was fetched",
            path.display(),
            kept.display()
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Some(kept)),
        Err(e) => Err(CliError::Output(format!(
            "{} holds the digest of {day}, to be kept as {} before today's replaces it, \
             but that name cannot be read ({e}); nothing was fetched",
            path.display(),
            kept.display()
        ))),
    }
}

/// Copies the other day's digest that `path` holds to `kept` (a new
/// file, never one that exists; synced; the same permissions), just
/// before today's is written. Returns the day kept, `None` when the file
/// no longer holds another day's digest.
fn keep_earlier(path: &std::path::Path, kept: &std::path::Path) -> std::io::Result<Option<String>> {
    use std::io::Write;
    let held = match std::fs::read(path) {
        Ok(h) => h,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(day) = digest::day_held(&held) else {
        return Ok(None);
    };
    if std::fs::read(kept).is_ok_and(|k| k == held) {
        return Ok(Some(day));
    }
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(kept)?;
    let mut write = || -> std::io::Result<()> {
        f.write_all(&held)?;
        if let Ok(m) = std::fs::metadata(path) {
            f.set_permissions(m.permissions())?;
        }
        f.sync_all()
    };
    if let Err(e) = write() {
        // Half a copy is no copy: the next run must not take it for one.
        let _ = std::fs::remove_file(kept);
        return Err(e);
    }
    Ok(Some(day))
}

/// The default command: run the sources, write the digest.
pub fn run(args: &Args, common: &Common) -> CmdResult {
    let mut ui = Ui::new(common.quiet, common.verbose);
    let Some(path) = &args.sources else {
        ui.error("no sources file given\n\nUsage: wr-feeds [OPTIONS] <SOURCES>\n\nFor more information, try '--help'.");
        return Err(CliError::Printed);
    };
    let file = match sources::load(path) {
        Ok(f) => f,
        Err(e) => return Err(e.into()),
    };
    let format = args.format.or(file.settings.format).unwrap_or_default();
    // `-o -` is standard output, as for every other tool.
    // A digest is a day (the local date, in its title): a rerun on the
    // same day writes that day's digest again, with anything new added.
    let now = now_secs();
    let day = digest::day(now);
    // `-o -` (or `output = "-"`) is standard output, as for every other
    // tool; a file is checked (symlink followed, device refused, its
    // directory writable) before anything is fetched.
    let raw = args.output.clone().or(file.settings.output.clone());
    let named: Option<PathBuf> = raw.as_ref().map(|o| digest::dated(o, &day));
    let output = output::checked(named.as_deref()).map_err(CliError::Output)?;
    // A plain `-o FILE` (no `{date}`) holding another day's digest: that
    // digest is kept beside it before today's replaces it (issue #20).
    let per_day = raw
        .as_ref()
        .is_some_and(|o| o.to_string_lossy().contains("{date}"));
    let earlier = match &output {
        Output::File { path, .. } if !per_day => earlier_day(path, &day)?,
        _ => None,
    };
    let cfg = match config(common, &file.settings) {
        Ok(c) => c,
        Err(e) => return Err(CliError::Config(e)),
    };
    ui.detail(
        1,
        &format!(
            "{} sources from {}; state in {}; operator {}",
            file.sources.len(),
            path.display(),
            cfg.state_dir.display(),
            cfg.operator_base
        ),
    );
    let Some(mut pipeline) = open(cfg, &ui) else {
        return Err(CliError::Printed);
    };
    // `enabled = false`: kept in the file, not run, not listed.
    let active: Vec<&sources::Source> = file.sources.iter().filter(|s| s.enabled).collect();
    let srcs: Vec<wr_feeds::Source> = active.iter().map(|s| s.to_pipeline()).collect();
    ui.start_progress(srcs.len() as u64);
    let opts = RunOptions {
        force: args.force,
        all: args.all,
    };
    let result = pipeline.run(&srcs, opts, &mut ui);
    ui.finish();
    let report = match result {
        Ok(r) => r,
        Err(e) => return Err(CliError::Run(e)),
    };
    report_blocklist(&ui, &report.blocklist);
    // The day's digest so far: the items earlier digests of today
    // delivered come first, in the order they were delivered, then this
    // run's, each once. A rerun never writes a poorer digest, whatever R8
    // or a 304 says of the source now.
    let today = digest::parse_day(&day).ok().map(|d| digest::days(d, d, d));
    // A digest day stored after today, by a clock that was ahead, is
    // today's (issue #20), written back as the pipeline wrote back the
    // schedule's instants when it opened.
    if let Err(e) = pipeline.store().clamp_days(&day) {
        ui.warn(&format!(
            "digest days stored after today could not be moved to today ({e})"
        ));
    }
    let mut day_sources = report.sources.clone();
    if !args.all {
        for r in &mut day_sources {
            let Some(today) = &today else { break };
            match pipeline.store().day_items(&r.key, today) {
                Ok(mut earlier) if !earlier.is_empty() => {
                    let listed: std::collections::HashSet<String> =
                        earlier.iter().map(|e| e.id.clone()).collect();
                    r.items.retain(|i| !listed.contains(&i.id));
                    earlier.append(&mut r.items);
                    r.items = earlier;
                }
                Ok(_) => {}
                Err(e) => ui.warn(&format!(
                    "today's earlier items of `{}` could not be read ({e}); this digest lists \
                     only this run's",
                    r.name
                )),
            }
        }
    }
    // Each section whole, as the store keeps it for `show`, then cut to
    // the source's max_items.
    let whole: Vec<SourceReport> = active
        .iter()
        .copied()
        .zip(&day_sources)
        .map(|(s, r)| {
            let mut w = to_report(s, r);
            // The publisher's usage preferences, from the robots.txt of
            // the origin the source was read from (or would be).
            match wr_feeds::pipeline::source_signals(pipeline.store(), &r.key) {
                Ok(signals) => w.signals = signals,
                Err(e) => ui.warn(&format!(
                    "the robots.txt signals of `{}` could not be read ({e})",
                    s.name
                )),
            }
            w
        })
        .collect();
    let heads: Vec<DigestSource> = whole
        .iter()
        .zip(&day_sources)
        .zip(&active)
        .map(|((w, r), s)| DigestSource {
            source: r.key.clone(),
            name: w.name.clone(),
            url: w.url.clone(),
            tags: w.tags.clone(),
            status: w.status.as_str().to_string(),
            reason: w.reason.clone(),
            method: w.method.clone(),
            max_items: s.max_items.and_then(|n| u64::try_from(n).ok()),
            written_at: Timestamp(0),
        })
        .collect();
    // Then filtered (`[filters]`, the source's keep/drop), cut to its
    // max_items, and each link listed once, under the first source.
    let mut reports: Vec<SourceReport> = whole
        .into_iter()
        .zip(&active)
        .map(|(w, s)| filtered(w, &file.filters, s).capped(s.max_items))
        .collect();
    digest::list_once(&mut reports);
    for r in &reports {
        // With -v every outcome was printed as it happened.
        // A failed or deferred source is an error: `-q` (cron) must show
        // it, or nobody hears of it.
        if r.status.is_problem() && ui.verbose == 0 {
            ui.error(&format!(
                "source `{}` ({}): {}: {}",
                r.name,
                r.url,
                r.status.as_str(),
                r.reason.as_deref().unwrap_or("")
            ));
        }
    }
    let d = Digest::new(now, &day, args.all, reports);
    let text = match format {
        Format::Markdown => d.to_markdown(),
        Format::Json => d.to_json(),
    };
    if let (Some(kept), Output::File { path, .. }) = (&earlier, &output) {
        match keep_earlier(path, kept) {
            Ok(Some(d)) => ui.info(&format!(
                "{} held the digest of {d}: kept as {} before today's replaced it",
                output.display(),
                kept.display()
            )),
            Ok(None) => {}
            Err(source) => {
                return Err(CliError::Keep {
                    output: output.display(),
                    kept: kept.clone(),
                    source,
                })
            }
        }
    }
    if let Err(e) = output.write(text.as_bytes()) {
        let what = match &output {
            Output::Stdout => "the digest to standard output".to_string(),
            file => file.display(),
        };
        return Err(CliError::Write {
            what,
            then: " (this run's new items stay pending and the next digest lists them)",
            source: e,
        });
    }
    // The digest is delivered: only now do its items stop being new, and
    // belong to today's digest. An `--all` digest is not the day's: its
    // sections are not kept for `show`.
    let delivered = report
        .sources
        .iter()
        .flat_map(|s| s.items.iter().map(move |i| (s.key.as_str(), i.id.as_str())));
    let at = Timestamp(u64::try_from(now).unwrap_or(0).saturating_mul(1000));
    let heads = (!args.all).then_some(heads.as_slice());
    if let Err(e) = pipeline.store().record_digest(&day, at, delivered, heads) {
        ui.warn(&format!(
            "the digest was written but its items could not be marked as reported ({e}); \
             the next digest lists them again"
        ));
    }
    let count = |st: Status| d.sources.iter().filter(|s| s.status == st).count();
    // New: this run's items (what it found, and what an undelivered
    // digest owed), not the day's the digest lists again (issue #20);
    // with --all, what the digest lists.
    let items: usize = if args.all {
        d.sources.iter().map(|s| s.items.len()).sum()
    } else {
        report.sources.iter().map(|s| s.items.len()).sum()
    };
    let mut parts = vec![format!("{} ok", count(Status::Ok))];
    for st in [
        Status::Skipped,
        Status::Denied,
        Status::Deferred,
        Status::LeftOut,
        Status::Failed,
    ] {
        let n = count(st);
        if n > 0 {
            parts.push(format!("{n} {}", st.as_str().replace('_', " ")));
        }
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    // What the digest does not list of them (issue #23), said so the
    // count is not mistaken for the digest's length.
    let filtered: usize = d
        .sources
        .iter()
        .flat_map(|s| &s.filtered)
        .map(|f| f.dropped)
        .sum();
    let elsewhere: usize = d.sources.iter().map(|s| s.listed_elsewhere).sum();
    let mut unlisted = Vec::new();
    if filtered > 0 {
        unlisted.push(format!("{filtered} filtered out"));
    }
    if elsewhere > 0 {
        unlisted.push(format!("{elsewhere} listed under an earlier source"));
    }
    let unlisted = if unlisted.is_empty() {
        String::new()
    } else {
        format!(" ({})", unlisted.join(", "))
    };
    ui.info(&format!(
        "{}: {}; {items} {} {}{unlisted}; {}{}",
        plural(d.sources.len(), "source", "sources"),
        parts.join(", "),
        if args.all { "listed" } else { "new" },
        if items == 1 { "item" } else { "items" },
        plural(report.requests as usize, "request", "requests"),
        match &output {
            Output::Stdout => String::new(),
            file => format!("; digest written to {}", file.display()),
        }
    ));
    Ok(ExitCode::from(d.exit_code()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(status: SourceStatus) -> SourceReport {
        let src = sources::Source {
            name: "denied by robots.txt (R2): a name".into(),
            url: "https://denied.example/".into(),
            feed: None,
            tags: vec![],
            enabled: true,
            max_items: None,
            filters: Default::default(),
        };
        let r = wr_feeds::SourceReport {
            name: src.name.clone(),
            key: src.url.clone(),
            status,
            items: vec![],
            method: None,
            fetched_url: None,
            notes: vec!["denied by the operator blocklist (R3): a note".into()],
        };
        to_report(&src, &r)
    }

    /// A denied source's reason is written from the denial's facts, not
    /// cut out of the status's sentence: words of the label in the URL,
    /// the rule, the source's name or its notes change nothing.
    #[test]
    fn a_denial_is_carried_as_data_not_read_back_from_its_words() {
        let r = section(SourceStatus::DeniedRobots {
            url: "https://denied.example/denied by robots.txt (R2): x".into(),
            rule: "Disallow: /denied by ".into(),
            line: 7,
        });
        assert_eq!(r.status, Status::Denied);
        assert_eq!(
            r.reason.as_deref(),
            Some(
                "robots.txt (R2): https://denied.example/denied by robots.txt (R2): x \
                 (Disallow: /denied by , line 7)"
            )
        );
        let r = section(SourceStatus::DeniedBlocklist {
            url: "https://denied.example/".into(),
            domain: "denied.example".into(),
        });
        assert_eq!(r.status, Status::Denied);
        assert_eq!(
            r.reason.as_deref(),
            Some("the operator blocklist (R3): https://denied.example/ (denied.example is listed)")
        );
    }
}
