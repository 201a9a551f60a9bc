//! The `wr-feeds` binary's end-to-end tests, one module per former test
//! file, built as one binary (issue #21): each test binary linked its own
//! copy of rustls, SQLite, jsonschema and ICU, and the 16 links cost more
//! than the tests. Every test runs the built binary in processes of its
//! own, so none needs a test binary of its own.

mod common;

mod audit_rows;
mod concurrent_runs;
mod digest_days;
mod digest_refine;
mod e2e_digest;
mod e2e_selftest;
mod e2e_titles;
mod fleet;
mod hints_status;
mod output_files;
mod robots_cmd;
mod shell_cmds;
mod source_signals;
mod status_deferred;
mod status_reset;
mod under_blocking;
