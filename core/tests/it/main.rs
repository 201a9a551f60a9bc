//! wr-core's integration tests, one module per former test file, built as
//! one binary (issue #21): each test binary links its own copy of the
//! dependencies, and 17 links cost more than the tests they ran. No test
//! here needs a process of its own (none sets an environment variable,
//! changes directory or installs process-wide state).
//!
//! proptest keeps its regression seeds beside the `it` directory, in
//! `tests/proptest-regressions/<module>.txt` (its default for a source
//! directory with a `main.rs`).

mod audit_rows;
mod corpus;
mod corpus_replay;
mod fetch_machines;
mod fetch_props;
mod fixed;
mod gate;
mod google_suites;
mod long_lines;
mod long_targets;
mod parsing_edges;
mod properties;
mod properties_misc;
mod readings;
mod spec_model;
mod vectors_misc;
mod vectors_robots;

/// A proptest's number of cases: `ci`, or `PROPTEST_CASES` when set, for
/// a deeper run by hand (`PROPTEST_CASES=200000 cargo test --release -p
/// wr-core --test it spec_model::`). proptest reads that variable only for
/// a config that leaves `cases` at its default, and each test here sets
/// its own. A deeper run found the `%%327` class (docs/conformance.md).
pub(crate) fn cases(ci: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ci)
}
