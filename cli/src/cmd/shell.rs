//! `completions` and `man`: what a shell and `man` need to know of
//! `wr-feeds`, generated from the clap definition that `--help` prints, so
//! that neither can drift from the flags the binary takes.

use crate::output::Output;
use crate::{CliError, CmdResult};
use std::process::ExitCode;

/// Options of `completions`.
#[derive(clap::Args, Debug)]
pub(crate) struct CompletionsArgs {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// Writes the completion script of `shell` for `cli` to standard output.
pub(crate) fn completions(args: &CompletionsArgs, mut cli: clap::Command) -> CmdResult {
    let mut script = Vec::new();
    let name = cli.get_name().to_string();
    clap_complete::generate(args.shell, &mut cli, name, &mut script);
    write(&script, "the completion script")
}

/// Writes the manual page (roff) of `cli` to standard output.
pub(crate) fn man(cli: clap::Command) -> CmdResult {
    let mut page = Vec::new();
    clap_mangen::Man::new(cli)
        .render(&mut page)
        .map_err(|e| CliError::msg(format!("cannot render the manual page: {e}")))?;
    write(&page, "the manual page")
}

fn write(contents: &[u8], what: &str) -> CmdResult {
    Output::Stdout
        .write(contents)
        .map_err(|e| CliError::write(format!("{what} to standard output"), e))?;
    Ok(ExitCode::SUCCESS)
}
