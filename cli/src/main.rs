//! `wr-feeds`: the Walsh-Research bot's command-line front end.
//!
//! Exit status: 0 success; 1 a verdict or a source did not go through
//! (a URL disallowed, a source failed or deferred); 2 bad usage, bad
//! configuration or an unreadable file.

mod cmd;
mod digest;
mod filters;
mod opml;
mod output;
mod sources;
mod ui;

use clap::{Args, CommandFactory, Parser, Subcommand};
use cmd::{attest, check, export, import, reset, robots, run, selftest, shell, show, status};

/// Why a command could not do its work. Every command returns
/// `Result<ExitCode, CliError>`; `main` alone turns an error into the
/// message and exit status 2, so the status is decided in one place. Each
/// family is a variant, and the error it wraps stays its `source()`:
/// `main` prints the chain ([`message`]), and decides by the cause, not
/// by its words (a closed standard output is quiet, a full disk is not).
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Bad usage: arguments that do not go together, a date or a URL that
    /// is not one.
    #[error("{0}")]
    Usage(String),
    /// The sources file cannot be read or is not valid (its message names
    /// the file, line and column).
    #[error(transparent)]
    Sources(#[from] sources::LoadError),
    /// The configuration (state directory, operator site, coordinator,
    /// `--connect-to`) is not valid.
    #[error("{0}")]
    Config(String),
    /// An input file (a robots.txt, an OPML list) cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file as the user named it.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An input file was read but is not what it should be.
    #[error("{}: {reason}", path.display())]
    Invalid {
        /// The file as the user named it.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The output named is refused before any work (a device, a file
    /// that exists without `--force`, a kept name taken).
    #[error("{0}")]
    Output(String),
    /// A result could not be written (`what`: `standard output`, a file,
    /// `the digest to standard output`...); `then` says what follows
    /// from it, when something does.
    #[error("cannot write {what}{then}")]
    Write {
        /// What was being written, and where.
        what: String,
        /// What that leaves behind (` (this run's new items stay ...)`).
        then: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Another day's digest could not be kept beside the output file
    /// before today's replaced it ([`cmd::run`]).
    #[error(
        "{output} holds another day's digest, which could not be kept as {} before today's \
         replaced it (nothing was written, and this run's new items stay pending for the \
         next digest)",
        kept.display()
    )]
    Keep {
        /// The output file, as named.
        output: String,
        /// The name the other day's digest was to be kept under.
        kept: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The state store.
    #[error(transparent)]
    Store(#[from] wr_feeds::store::StoreError),
    /// The run started but could not complete (the store, the lock, the
    /// fleet coordinator).
    #[error("the run could not complete")]
    Run(#[source] wr_feeds::PipelineError),
    /// The fleet coordinator (`what` says what was being done).
    #[error("{what}")]
    Fleet {
        /// What could not be done, and what that means.
        what: String,
        /// Why.
        #[source]
        source: wr_feeds::fleet::FleetError,
    },
    /// Anything else the command could not do, in its words.
    #[error("{0}")]
    Message(String),
    /// The command has already said what went wrong (a partial report on
    /// standard output, a failed write to it).
    #[error("(reported above)")]
    Printed,
}

impl CliError {
    /// An error with this message.
    pub(crate) fn msg(m: impl Into<String>) -> CliError {
        CliError::Message(m.into())
    }

    /// A failed write of `what` (see [`CliError::Write`]).
    pub(crate) fn write(what: impl Into<String>, source: std::io::Error) -> CliError {
        CliError::Write {
            what: what.into(),
            then: "",
            source,
        }
    }

    /// Whether the error is standard output closed by its reader (`wr-feeds
    /// ... | head -1`): nobody is left to read anything, and the command
    /// stops quietly, as ripgrep does. Known by the cause's kind, and only
    /// for a write of the command's output: a full disk is not this, nor
    /// a socket to the fleet coordinator that broke mid-run.
    pub(crate) fn is_closed_pipe(&self) -> bool {
        matches!(self, CliError::Write { source, .. }
            if source.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// What a command returns: its exit status (0 or 1), or why it could not
/// run (status 2).
pub(crate) type CmdResult = Result<ExitCode, CliError>;
use std::path::PathBuf;
use std::process::ExitCode;

const EXIT_HELP: &str = "\
Exit status:
  0  every source went through (or was skipped by R8, denied by its
     publisher, or left out for lack of a feed, markdown or llms.txt)
  1  some sources failed or were deferred (the digest still lists the others)
  2  bad usage or configuration: nothing was fetched

Environment:
  WR_STATE_DIR      state directory (same as --state-dir)
  WR_OPERATOR_BASE  operator site for the blocklist and fixtures [default: https://wal.sh]
  WR_COORDINATOR    fleet coordinator, redis://HOST:PORT/DB (same as --coordinator)
  NO_COLOR          no colour on stderr";

#[derive(Parser)]
#[command(
    name = "wr-feeds",
    version,
    about = "A polite metadata bot: a daily digest of feeds, markdown and llms.txt under the Walsh-Research contract",
    long_about = "A polite metadata bot: reads sources.toml, fetches each source through the \
Walsh-Research pre-request gate (operator blocklist, robots.txt, one request per second per \
host), and writes a Markdown (or JSON) digest of the links and titles first seen since the \
previous digest.",
    after_help = EXIT_HELP,
    arg_required_else_help = true
)]
struct Cli {
    #[command(flatten)]
    run: run::Args,
    #[command(flatten)]
    common: Common,
    #[command(subcommand)]
    command: Option<Command>,
}

/// Options shared by every command that talks to the network.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct Common {
    /// Only errors on stderr.
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub(crate) quiet: bool,
    /// More detail on stderr (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
    /// Where state lives (robots.txt and blocklist caches, validators,
    /// schedule, items seen).
    #[arg(long, global = true, env = "WR_STATE_DIR", value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,
    /// Send requests for HOST1:PORT1 to HOST2:PORT2 instead, as curl's
    /// --connect-to: URLs, Host headers, robots.txt scope and throttling
    /// keep the original name. An empty HOST1 or PORT1 matches any.
    #[arg(long, global = true, value_name = "HOST1:PORT1:HOST2:PORT2")]
    pub(crate) connect_to: Vec<String>,
    /// The fleet coordinator, redis://HOST:PORT/DB: several processes or
    /// machines share one politeness budget per host (R4a; see
    /// docs/deployment.md). Overrides `coordinator` in [settings].
    #[arg(long, global = true, env = "WR_COORDINATOR", value_name = "URL")]
    pub(crate) coordinator: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate URLs against a robots.txt file, offline (spec R2).
    ///
    /// Prints one verdict per URL: allowed or disallowed, and the rule that
    /// decided with its line number. Exit status 0 when every URL is allowed,
    /// 1 when any is disallowed, 2 on an error.
    Robots(robots::Args),
    /// Turn an OPML subscription list into sources.toml.
    ///
    /// Every outline with an xmlUrl (or `type="link"` with a url: a source
    /// without a feed), at any depth, becomes a source; folders
    /// and `category` become tags; a commented outline (isComment) becomes
    /// `enabled = false`. The file is read in the encoding it declares (a
    /// byte order mark, UTF-16, or the XML declaration: windows-1252,
    /// ISO-8859-1, Shift_JIS...). Exit status 0, or 2 when the file cannot
    /// be read or parsed (or the output exists without --force).
    Import(import::Args),
    /// Writes the sources of a sources file as an OPML 2.0 subscription
    /// list (UTF-8) for a feed reader: sources with a feed as `rss`
    /// outlines, page-only ones as `link` outlines, tags as `category`,
    /// `enabled = false` as `isComment="true"`.
    #[command(visible_alias = "export-opml")]
    Export(export::Args),
    /// Show the gate's answer for URLs without fetching them (dry run).
    ///
    /// Per URL: the operator blocklist (R3), the robots.txt rule and its line
    /// (R2), and how long the request would wait (R4). The blocklist and the
    /// URL's robots.txt may be fetched (politely) to answer; the URL itself
    /// never is. Exit status 0 when every URL is allowed, 1 when any is
    /// denied or deferred, 2 on bad input.
    Check(check::Args),
    /// Run the live conformance fixtures (spec 13) and canaries (spec 16).
    ///
    /// Reads test-fixtures.json from the operator site (WR_OPERATOR_BASE),
    /// fetches or refuses each fixture through the full gate, checks the
    /// three dogfood canaries against the operator's robots.txt, and prints
    /// every expectation with PASS, FAIL or SKIP (not verifiable from here,
    /// e.g. the external site is unreachable). Requests to the operator's
    /// compliance URLs carry R13 impl/sha/spec tags. The result is recorded
    /// in the state directory for `attest`. Exit status 0 only when every
    /// expectation passed, 1 otherwise, 2 on bad configuration.
    Selftest(selftest::Args),
    /// Print a walsh-research-attestation/v1 document (spec 14).
    ///
    /// A requirement is true only when checks made by this binary now prove
    /// it: the compiled-in section 12 and 16 vectors; in-process checks of
    /// the real robots.txt, throttle, gate, backoff and blocklist validation
    /// code; an end-to-end run of the real pipeline against replica sites
    /// served on 127.0.0.1 inside the process, with a temporary state
    /// directory (about 5 s, nothing leaves the machine); and a passing
    /// `selftest` against https://wal.sh recorded by this version in the last
    /// 7 days. Any check that fails, or a part no check covers, makes the
    /// requirement false, with the reason under "evidence" and each check's
    /// detail under "checks". Exit status 0.
    Attest(attest::Args),
    /// Writes a past day's digest again from the state directory, without
    /// a request: the same sections, outcomes and items, in the same order.
    /// DATE is YYYY-MM-DD (the local date in a digest's title) [default:
    /// today]; --since DATE gathers every day from DATE to today.
    Show(show::Args),
    /// The state at a glance: per source its last run, outcome, failed runs
    /// in a row and items seen; the hosts held (R5) and until when; the
    /// adopted blocklist's age. No request is made.
    Status(status::Args),
    /// Lifts a host's hold (a Retry-After or the cool-down after repeated
    /// failures) or forgets a source's last run (R8's hour) and error
    /// streak, saying what it lifted. Exit 1 if a target had nothing to
    /// reset. Takes effect from the next run.
    Reset(reset::Args),
    /// Writes a completion script for SHELL (bash, elvish, fish,
    /// powershell, zsh) to standard output, e.g.
    /// `wr-feeds completions bash > ~/.local/share/bash-completion/completions/wr-feeds`.
    Completions(shell::CompletionsArgs),
    /// Writes the manual page (roff) to standard output, e.g.
    /// `wr-feeds man > ~/.local/share/man/man1/wr-feeds.1`.
    Man,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match try_main(&cli) {
        Ok(code) => code,
        // Its reader is gone: nothing is left to say, and nobody to say
        // it to (ripgrep's choice: status 0).
        Err(e) if e.is_closed_pipe() => ExitCode::SUCCESS,
        Err(CliError::Printed) => ExitCode::from(2),
        Err(e) => {
            let ui = ui::Ui::new(cli.common.quiet, cli.common.verbose);
            ui.error(&message(&e));
            ExitCode::from(2)
        }
    }
}

/// What `main` prints for `e`: its message, then each `source()` joined
/// by ": ", except a cause whose words are already said: the library
/// errors' messages quote the error they wrap (a store error quotes
/// SQLite's words, a pipeline error its lock's), so a cause is said once.
fn message(e: &CliError) -> String {
    let mut msg = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let words = s.to_string();
        if !msg.contains(&words) {
            msg.push_str(&format!(": {words}"));
        }
        source = s.source();
    }
    msg
}

/// Runs the command `cli` names.
fn try_main(cli: &Cli) -> CmdResult {
    if cli.command.is_some() && cli.run.given() {
        return Err(CliError::Usage(
            "SOURCES, --all, --force, --format and --output belong to the digest, not to a subcommand\n\nFor more information, try '--help'."
                .to_string(),
        ));
    }
    match &cli.command {
        Some(Command::Robots(args)) => robots::run(args),
        Some(Command::Import(args)) => import::run(args, &cli.common),
        Some(Command::Export(args)) => export::run(args, &cli.common),
        Some(Command::Check(args)) => check::run(args, &cli.common),
        Some(Command::Selftest(args)) => selftest::run(args, &cli.common),
        Some(Command::Attest(args)) => attest::run(args, &cli.common),
        Some(Command::Show(args)) => show::run(args, &cli.common),
        Some(Command::Status(args)) => status::run(args, &cli.common),
        Some(Command::Reset(args)) => reset::run(args, &cli.common),
        Some(Command::Completions(args)) => shell::completions(args, Cli::command()),
        Some(Command::Man) => shell::man(Cli::command()),
        None => run::run(&cli.run, &cli.common),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The library errors now have `source()` chains, and their messages
    /// already quote the error they wrap: what `main` prints says it once.
    #[test]
    fn a_wrapped_error_is_printed_once() {
        let io = std::io::Error::other("disk full");
        let lock = wr_feeds::lock::LockError::Io {
            path: PathBuf::from("/state/lock"),
            source: io,
        };
        let e = wr_feeds::PipelineError::from(lock);
        assert!(std::error::Error::source(&e).is_some());
        let printed = message(&CliError::Run(e));
        assert_eq!(
            printed,
            "the run could not complete: cannot lock /state/lock: disk full"
        );
        assert_eq!(printed.matches("disk full").count(), 1);
    }

    /// Each family keeps its cause as `source()`, and the printed chain
    /// reads as the sentence users saw when the cause was formatted in.
    #[test]
    fn a_cause_is_kept_and_printed_after_its_error() {
        let e = CliError::Write {
            what: "the digest to standard output".to_string(),
            then: " (this run's new items stay pending and the next digest lists them)",
            source: std::io::Error::from(std::io::ErrorKind::StorageFull),
        };
        let cause = std::error::Error::source(&e).expect("the cause is kept");
        assert_eq!(
            cause.downcast_ref::<std::io::Error>().map(|e| e.kind()),
            Some(std::io::ErrorKind::StorageFull)
        );
        let printed = message(&e);
        assert!(
            printed.starts_with(
                "cannot write the digest to standard output (this run's new items stay \
                 pending and the next digest lists them): "
            ),
            "{printed}"
        );
        let read = CliError::Read {
            path: PathBuf::from("robots.txt"),
            source: std::io::Error::other("no such thing"),
        };
        assert_eq!(message(&read), "cannot read robots.txt: no such thing");
    }

    /// A closed pipe is told apart from a full disk by the cause's kind,
    /// at any depth of the chain, never by its words.
    #[test]
    fn a_closed_pipe_is_known_by_its_cause() {
        let pipe = CliError::write("to standard output", std::io::ErrorKind::BrokenPipe.into());
        assert!(pipe.is_closed_pipe());
        let full = CliError::write("to standard output", std::io::ErrorKind::StorageFull.into());
        assert!(!full.is_closed_pipe());
        // Words that say "Broken pipe" are not a closed pipe.
        let words = CliError::msg("Broken pipe (os error 32)");
        assert!(!words.is_closed_pipe());
        // A broken pipe that is not the command's output (the state, a
        // coordinator's socket) is an error like any other.
        let lock = wr_feeds::lock::LockError::Io {
            path: PathBuf::from("/state/lock"),
            source: std::io::ErrorKind::BrokenPipe.into(),
        };
        assert!(!CliError::Run(lock.into()).is_closed_pipe());
    }
}
