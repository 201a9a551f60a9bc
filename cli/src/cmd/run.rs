//! The digest, the default command: `wr-feeds SOURCES`.

use crate::cmd::setup::{config, now_secs, open};
use crate::digest::{self, assemble, Digest, Status};
use crate::output::{self, Output};
use crate::sources::{self, Format};
use crate::ui::Ui;
use crate::{CliError, CmdResult, Common};
use std::path::PathBuf;
use std::process::ExitCode;
use wr_core::time::Timestamp;
use wr_feeds::{BlocklistState, RunOptions};

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
        BlocklistState::Fallback { .. } | BlocklistState::Unavailable { .. } if ui.quiet => {
            if let Some(e) = wr_feeds::words::blocklist_error(state) {
                ui.error(&e)
            }
        }
        // The pipeline's notice has said it (a warning, hidden by -q):
        // saying it here too printed it twice (issue #12).
        BlocklistState::Retained { .. } => {}
        BlocklistState::Fresh { entries } | BlocklistState::Cached { entries } => {
            ui.detail(1, &format!("operator blocklist: {}", domains(*entries)))
        }
        BlocklistState::Unavailable { .. } => {}
        BlocklistState::Fallback { .. } | BlocklistState::Unknown => {}
    }
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

/// What the digest is to be made of, checked before anything is fetched.
struct Plan {
    file: sources::SourcesFile,
    format: Format,
    /// Now (Unix seconds), and its day: the digest's.
    now: i64,
    day: String,
    output: Output,
    /// Where the other day's digest the output file holds is kept.
    earlier: Option<PathBuf>,
}

/// Reads the sources file and checks the output, before any request;
/// with the configuration the pipeline opens with.
fn plan(args: &Args, common: &Common, ui: &Ui) -> Result<(Plan, wr_feeds::Config), CliError> {
    let Some(path) = &args.sources else {
        ui.error("no sources file given\n\nUsage: wr-feeds [OPTIONS] <SOURCES>\n\nFor more information, try '--help'.");
        return Err(CliError::Printed);
    };
    let file = sources::load(path)?;
    let format = args.format.or(file.settings.format).unwrap_or_default();
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
    let cfg = config(common, &file.settings).map_err(CliError::Config)?;
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
    let plan = Plan {
        file,
        format,
        now,
        day,
        output,
        earlier,
    };
    Ok((plan, cfg))
}

/// The default command: run the sources, write the digest.
pub fn run(args: &Args, common: &Common) -> CmdResult {
    let mut ui = Ui::new(common.quiet, common.verbose);
    let (plan, cfg) = plan(args, common, &ui)?;
    let Some(mut pipeline) = open(cfg, &ui) else {
        return Err(CliError::Printed);
    };
    // `enabled = false`: kept in the file, not run, not listed.
    let active: Vec<&sources::Source> = plan.file.sources.iter().filter(|s| s.enabled).collect();
    let srcs: Vec<wr_feeds::Source> = active.iter().map(|s| s.to_pipeline()).collect();
    ui.start_progress(srcs.len() as u64);
    let opts = RunOptions {
        force: args.force,
        all: args.all,
    };
    let result = pipeline.run(&srcs, opts, &mut ui);
    ui.finish();
    let report = result.map_err(CliError::Run)?;
    report_blocklist(&ui, &report.blocklist);
    let store = pipeline.store();
    let day_sources = assemble::day_so_far(store, &report.sources, args.all, &plan.day, &ui);
    let sections = assemble::sections(store, &active, &day_sources, &plan.file.filters, &ui);
    for r in &sections.reports {
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
    let d = Digest::new(plan.now, &plan.day, args.all, sections.reports);
    let text = match plan.format {
        Format::Markdown => d.to_markdown(),
        Format::Json => d.to_json(),
    };
    deliver(&plan, &text, &ui)?;
    // The digest is delivered: only now do its items stop being new, and
    // belong to today's digest. An `--all` digest is not the day's: its
    // sections are not kept for `show`.
    let delivered = report
        .sources
        .iter()
        .flat_map(|s| s.items.iter().map(move |i| (s.key.as_str(), i.id.as_str())));
    let at = Timestamp(u64::try_from(plan.now).unwrap_or(0).saturating_mul(1000));
    let heads = (!args.all).then_some(sections.heads.as_slice());
    if let Err(e) = store.record_digest(&plan.day, at, delivered, heads) {
        ui.warn(&format!(
            "the digest was written but its items could not be marked as reported ({e}); \
             the next digest lists them again"
        ));
    }
    ui.info(&summary(&d, &report, args.all, &plan.output));
    Ok(ExitCode::from(d.exit_code()))
}

/// Keeps the other day's digest the output file holds, then writes
/// today's.
fn deliver(plan: &Plan, text: &str, ui: &Ui) -> Result<(), CliError> {
    let output = &plan.output;
    if let (Some(kept), Output::File { path, .. }) = (&plan.earlier, output) {
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
    output.write(text.as_bytes()).map_err(|source| {
        let what = match output {
            Output::Stdout => "the digest to standard output".to_string(),
            file => file.display(),
        };
        CliError::Write {
            what,
            then: " (this run's new items stay pending and the next digest lists them)",
            source,
        }
    })
}

/// The run's last line on stderr: sources by outcome, items, requests,
/// where the digest went.
fn summary(d: &Digest, report: &wr_feeds::RunReport, all: bool, output: &Output) -> String {
    let count = |st: Status| d.sources.iter().filter(|s| s.status == st).count();
    // New: this run's items (what it found, and what an undelivered
    // digest owed), not the day's the digest lists again (issue #20);
    // with --all, what the digest lists.
    let items: usize = if all {
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
    format!(
        "{}: {}; {items} {} {}{}; {}{}",
        plural(d.sources.len(), "source", "sources"),
        parts.join(", "),
        if all { "listed" } else { "new" },
        if items == 1 { "item" } else { "items" },
        unlisted(d),
        plural(report.requests as usize, "request", "requests"),
        match output {
            Output::Stdout => String::new(),
            file => format!("; digest written to {}", file.display()),
        }
    )
}

/// What the digest does not list of the items (issue #23), said so the
/// count is not mistaken for the digest's length: ` (N filtered out, M
/// listed under an earlier source)`, or nothing.
fn unlisted(d: &Digest) -> String {
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
    if unlisted.is_empty() {
        String::new()
    } else {
        format!(" ({})", unlisted.join(", "))
    }
}
