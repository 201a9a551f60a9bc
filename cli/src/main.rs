//! `wr-feeds`: the Walsh-Research bot's command-line front end.
//!
//! Exit status: 0 success; 1 a verdict or a source did not go through
//! (a URL disallowed, a source failed or deferred); 2 bad usage, bad
//! configuration or an unreadable file.

mod robots_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "wr-feeds",
    version,
    about = "A polite metadata bot: feeds and llms.txt under the Walsh-Research contract"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate URLs against a robots.txt file, offline (spec R2).
    ///
    /// Prints one verdict per URL: allowed or disallowed, and the rule that
    /// decided with its line number. Exit status 0 when every URL is allowed,
    /// 1 when any is disallowed, 2 on an error.
    Robots(robots_cmd::Args),
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
    match cli.command {
        Command::Robots(args) => robots_cmd::run(&args),
    }
}
