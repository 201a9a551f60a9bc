//! `wr-feeds export SOURCES`: the sources as an OPML 2.0 subscription list.

use crate::opml;
use crate::output;
use crate::sources;
use crate::ui::Ui;
use crate::{CliError, CmdResult, Common};
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

pub fn run(args: &Args, common: &Common) -> CmdResult {
    // Checked before any work: a device or a FIFO is refused, `--force`
    // or not.
    let output =
        output::checked_new(args.output.as_deref(), args.force).map_err(CliError::Output)?;
    let file = match sources::load(&args.sources) {
        Ok(f) => f,
        Err(e) => {
            return Err(e.into());
        }
    };
    let title = format!("wr-feeds sources ({})", args.sources.display());
    let xml = opml::export(&file.sources, &title);
    // Issue #20: they are kept (`import` reads them back), but a feed
    // reader passes over a `link` outline: said, not lost without a word.
    let pages = file.sources.iter().filter(|s| s.feed.is_none()).count();
    if pages > 0 {
        Ui::new(common.quiet, common.verbose).warn(&format!(
            "{pages} source{} without a feed written as `link` outline{}: feed readers \
             pass over them; `wr-feeds import` reads them back",
            if pages == 1 { "" } else { "s" },
            if pages == 1 { "" } else { "s" },
        ));
    }
    match output.write(xml.as_bytes()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => Err(CliError::write(output.display(), e)),
    }
}
