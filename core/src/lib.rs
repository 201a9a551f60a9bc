//! wr-core: every pure part of the Walsh-Research bot contract
//! (`walsh-research-compliance/v1.3`).
//!
//! This crate never performs I/O, never reads a clock and never draws a
//! random number: fetched bytes, the current [`time::Timestamp`] and random
//! values are passed in by the caller. That keeps every decision a publisher
//! cares about (may we fetch this URL, and when?) a deterministic function
//! that tests can drive exhaustively, and leaves the I/O shell (`wr-feeds`)
//! thin. See `docs/architecture.md`.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
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
pub mod http_date;
pub mod percent;
pub mod retry_after;
pub mod robots;
pub mod throttle;
pub mod time;
pub mod url;
