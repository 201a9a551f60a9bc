//! One module per command, each owning its arguments (`Args`) and its
//! `run`, which returns `Result<ExitCode, CliError>`: the exit status is
//! decided once, in `main`. What several commands share (opening the
//! pipeline from flags and `[settings]`) is [`setup`].

pub(crate) mod attest;
pub(crate) mod check;
pub(crate) mod export;
pub(crate) mod import;
pub(crate) mod reset;
pub(crate) mod robots;
pub(crate) mod run;
pub(crate) mod selftest;
pub(crate) mod setup;
pub(crate) mod shell;
pub(crate) mod show;
pub(crate) mod status;
