//! wr-feeds' integration tests, one module per former test file, built as
//! one binary (issue #21): each test binary links its own copy of rustls,
//! SQLite, jsonschema and ICU, and the links cost more than the tests.
//!
//! Two tests keep a binary of their own, as they need a process of their
//! own: `tests/extract_memory.rs` installs a counting global allocator
//! (other tests' allocations would count against its peaks), and
//! `tests/pipeline_e2e.rs` re-runs its own binary to kill a child
//! mid-run, naming the child's test as `--exact kill_child`.

#[path = "../common/mod.rs"]
mod common;

mod blocklist_doc;
mod clean_props;
mod extract_corpus;
mod extract_feed;
mod extract_feedparser;
mod extract_formats;
mod extract_markdown;
mod extract_title;
mod fleet;
mod platform_robotparser;
mod publisher_hints;
mod scorecard;
