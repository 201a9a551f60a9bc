//! wr-conformance's integration tests, one module per former test file,
//! built as one binary (issue #21: one link per crate).

mod fixtures;
mod vectors;
