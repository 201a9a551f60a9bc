//! `wr-feeds export SOURCES`: the sources as an OPML 2.0 subscription list.

use crate::digest;
use crate::opml;
use crate::sources;
use crate::ui;
use crate::{CliError, CmdResult};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The sources file.
    #[arg(value_name = "SOURCES")]
    pub(crate) sources: PathBuf,
    /// Write the OPML here instead of standard output (`-`: standard
    /// output).
    #[arg(short, long, value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    pub(crate) force: bool,
}

pub fn run(args: &Args) -> CmdResult {
    let file = match sources::load(&args.sources) {
        Ok(f) => f,
        Err(e) => {
            return Err(CliError::msg(format!("{e}")));
        }
    };
    let title = format!("wr-feeds sources ({})", args.sources.display());
    let xml = opml::export(&file.sources, &title);
    // `-o -` is standard output, as for the digest.
    match args.output.as_ref().filter(|o| o.as_os_str() != "-") {
        None => {
            if ui::print_out(&xml) {
                Ok(ExitCode::SUCCESS)
            } else {
                Err(CliError::Printed)
            }
        }
        Some(path) if path.exists() && !args.force => {
            eprintln!(
                "wr-feeds: {} exists; pass --force to replace it",
                path.display()
            );
            Err(CliError::Printed)
        }
        Some(path) => match digest::write_atomic(path, xml.as_bytes()) {
            Ok(()) => Ok(ExitCode::SUCCESS),
            Err(e) => {
                eprintln!("wr-feeds: cannot write {}: {e}", path.display());
                Err(CliError::Printed)
            }
        },
    }
}
