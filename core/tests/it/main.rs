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
