//! wr-core: every pure part of the Walsh-Research bot contract
//! (`walsh-research-compliance/v1.3`).
//!
//! This crate never performs I/O, never reads a clock and never draws a
//! random number: fetched bytes, the current [`time::Timestamp`] and random
//! values are passed in by the caller. That keeps every decision a publisher
//! cares about (may we fetch this URL, and when?) a deterministic function
//! that tests can drive exhaustively, and leaves the I/O shell (`wr-feeds`)
//! thin. See `docs/architecture.md`.
//!
//! Where to start:
//!
//! * [`robots::Policy`]: parse a robots.txt once for a product token, then
//!   [`robots::Policy::check`] paths (allowed only if every reading allows,
//!   with the deciding rule);
//! * [`gate::Gate`]: the pre-request gate (R3 → R2 → R4), the only maker of
//!   a [`gate::Permit`];
//! * [`fetch`]: every decision of a fetch as sans-I/O state machines;
//! * [`blocklist::Blocklist`], [`duration::parse_duration`],
//!   [`retry_after::parse_retry_after`], [`backoff::Backoff`],
//!   [`canonical::canonical_url`], [`throttle::spacing`]: the pieces.
//!
//! The crate README has runnable examples of the first two.
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// With neither model enabled only the building blocks remain.
#![cfg_attr(not(any(feature = "alloc", feature = "heapless")), allow(dead_code))]

#[cfg(feature = "alloc")]
extern crate alloc;

pub mod backoff;
#[cfg(feature = "alloc")]
pub mod blocklist;
pub mod canonical;
pub mod constants;
pub mod domain;
pub mod duration;
#[cfg(feature = "alloc")]
pub mod fetch;
#[cfg(feature = "alloc")]
pub mod gate;
#[cfg(feature = "alloc")]
pub mod hints;
pub mod http_date;
#[cfg(feature = "alloc")]
pub mod outcome;
pub mod percent;
pub mod retry_after;
pub mod robots;
#[cfg(feature = "alloc")]
pub mod target;
pub mod throttle;
pub mod time;
pub mod url;

// The README's examples are compiled and run as doctests.
#[cfg(all(doctest, feature = "alloc"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// Whether a scan that tests whole blocks of octets without an early exit
/// becomes SIMD code on this target (SSE2, NEON). Without it (wasm32, the
/// Cortex-M of thumbv7em) the blocks only unroll: the plain octet loop is
/// as fast there and keeps the embedded artefacts within their size
/// budgets. The scans of targets and of stored values ask this one place.
pub(crate) const BLOCKS_VECTORISE: bool = cfg!(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64"
));
