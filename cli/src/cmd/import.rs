//! `wr-feeds import FILE.opml`: an OPML subscription list as sources.toml.

use crate::opml;
use crate::output::{self, Output};
use crate::sources;
use crate::{CliError, CmdResult, Common};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub(crate) struct Args {
    /// The OPML file (`-` reads standard input).
    #[arg(value_name = "FILE.opml")]
    pub(crate) file: PathBuf,
    /// Write sources.toml here instead of standard output (`-`: standard
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
    let bytes = if args.file.as_os_str() == "-" {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin(), &mut b).map(|_| b)
    } else {
        std::fs::read(&args.file)
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => {
            return Err(CliError::Read {
                path: args.file.clone(),
                source: e,
            });
        }
    };
    // In the encoding the file declares (issue #12).
    let text = match opml::decode(&bytes) {
        Ok(t) => t,
        Err(reason) => {
            return Err(CliError::Invalid {
                path: args.file.clone(),
                reason,
            });
        }
    };
    let imp = match opml::import(&text) {
        Ok(i) => i,
        Err(reason) => {
            return Err(CliError::Invalid {
                path: args.file.clone(),
                reason,
            });
        }
    };
    if !common.quiet {
        for w in &imp.warnings {
            eprintln!("wr-feeds: {}: {w}", args.file.display());
        }
    }
    if imp.sources.is_empty() {
        return Err(CliError::Invalid {
            path: args.file.clone(),
            reason: "no outline with an http(s) xmlUrl".to_string(),
        });
    }
    let header = format!(
        "Imported by wr-feeds from {} ({} sources).\nSee README.md for the format; add a [settings] table if needed.",
        args.file.display(),
        imp.sources.len()
    );
    let toml = sources::to_toml(&imp.sources, &header);
    if let Err(e) = output.write(toml.as_bytes()) {
        return Err(CliError::write(output.display(), e));
    }
    if !common.quiet && output != Output::Stdout {
        eprintln!(
            "wr-feeds: wrote {} sources to {}",
            imp.sources.len(),
            output.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
