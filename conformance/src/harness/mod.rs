//! The section 14 self-check harness behind `wr-feeds attest` (feature
//! `harness`): every requirement checked against the production code, not
//! against a description of it.
//!
//! It lives here, not in the CLI, because it is test equipment: the
//! product's modules should read as the product, and the harness's
//! fixtures, models and loopback replica belong together, packaged with
//! the crate that holds them (`cargo package` sees only this package's
//! files). The CLI's `attest` command only runs it and prints the result.
//!
//! * [`checks`]: offline checks of R1-R12 (the production robots.txt
//!   parser held against [`crate::robots_model`], the gate, the backoff,
//!   blocklist documents against their schema...).
//! * [`replica`]: the end-to-end half, the real `wr_feeds` pipeline run
//!   against a loopback replica of an operator site and four publishers.
//! * [`vectors`]: the spec's section 12 and 16 vectors, run in-process.
//!
//! The feature pulls `wr-feeds` (and with it HTTP, TLS and SQLite), so
//! the crates whose tests only need the models and the fault server do
//! not build it.

pub mod checks;
pub mod replica;
pub mod vectors;

/// The section 6 User-Agent, as the spec text writes it.
pub const SPEC_USER_AGENT: &str =
    "Mozilla/5.0 (compatible; Walsh-Research/1.2; +https://wal.sh/bot/)";
