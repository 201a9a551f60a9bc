//! wr-core-embed's integration tests, one module per former test file,
//! built as one binary (issue #21: one link per crate).
//!
//! Two keep a binary of their own: `tests/header.rs`, so that the command
//! that rewrites the header, `WR_EMBED_BLESS=1 cargo test -p wr-core-embed
//! --test header`, quoted in the header itself, stays what it says; and
//! `tests/c_abi.rs`, which names its C driver `c/embed_driver.c` both
//! beside itself and from the package root.

#[path = "../common/mod.rs"]
mod common;

mod abi;
mod wasm;
