//! wr-core-embed's integration tests, one module per former test file,
//! built as one binary (issue #21: one link per crate). The C driver the
//! C ABI test compiles is `c/embed_driver.c` beside them.
//!
//! `tests/header.rs` keeps a binary of its own so that the command that
//! rewrites the header, `WR_EMBED_BLESS=1 cargo test -p wr-core-embed
//! --test header`, quoted in the header itself, stays what it says.

#[path = "../common/mod.rs"]
mod common;

mod abi;
mod c_abi;
mod wasm;
