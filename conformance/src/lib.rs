//! Reference models of the Walsh-Research contract, written straight from
//! the spec's text (v1.3), independent of `wr-core`.
//!
//! The production code is fast and shares work between readings; the models
//! here are slow and literal, so that a test (or `wr-feeds attest`) can hold
//! the one against the other: production must never allow what a model
//! denies (R2c).
//!
//! [`faults`] holds the loopback server every crate's fault tests share;
//! [`redis_server`] the throwaway `redis-server` of the fleet tests;
//! [`fixtures`] the vectors and operator documents the self-check harness
//! compiles in; [`harness`] (feature `harness`) the section 14
//! self-check that `wr-feeds attest` runs; [`platform`] (feature
//! `platform`) the differential against Python's `urllib.robotparser`;
//! [`google`] (feature `google`) Google's reference parser.

pub mod faults;
pub mod fixtures;
#[cfg(feature = "google")]
pub mod google;
#[cfg(feature = "harness")]
pub mod harness;
#[cfg(feature = "platform")]
pub mod platform;
pub mod redis_server;
pub mod robots_cases;
pub mod robots_model;
