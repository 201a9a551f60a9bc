//! One item: a link and what it is called, the unit the whole house
//! passes along.
//!
//! Why a module of its own (issue #21): the extractor makes items, the
//! store keeps them and the reports carry them. When the type lived in the
//! extractor, the store imported the extractor to keep a row; here it
//! belongs to none of them, and each imports it alone.

use serde::{Deserialize, Serialize};

/// One extracted entry: where it lives and what it is called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// The cleaned title ([`crate::extract::clean_title`]); the URL when the source gave
    /// none.
    pub title: String,
    /// Absolute `http` or `https` URL, as serialised by the `url` crate
    /// (host lowercased, IDNA and percent-encoding normalised), without
    /// userinfo.
    pub url: String,
    /// Publication date in RFC 3339 (UTC, `Z`), when the source states one.
    pub published: Option<String>,
    /// The section 10.2 canonical key of [`Item::url`]: deterministic across
    /// runs, used for de-duplication (R7).
    pub id: String,
}
