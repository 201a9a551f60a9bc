//! The exported functions called in-process, as Rust calls any `extern "C"`
//! function: every vector (tests/common) and the boundary's refusals that
//! need raw pointers (null, misaligned, too small). The wasm module and the
//! C program are held to the same vectors in tests/wasm.rs and
//! tests/c_abi.rs.

use crate::common;

use common::{Answer, Embedding, Mode};
use std::ptr::{null, null_mut};
use wr_core_embed::blocklist::{wr_host_matches_any_domain, wr_host_matches_domain};
use wr_core_embed::fixed::*;
use wr_core_embed::owned::*;
use wr_core_embed::*;

/// Caller storage for a fixed policy, aligned as the header asks.
#[repr(C, align(8))]
struct Storage([u8; WR_FIXED_POLICY_SIZE]);

fn storage() -> Box<Storage> {
    Box::new(Storage([0; WR_FIXED_POLICY_SIZE]))
}

fn verdict() -> WrVerdict {
    WrVerdict {
        allowed: 9,
        overflow: 9,
        reading: 9,
        rule_kind: 9,
        rule_line: 9,
        pattern: null(),
        pattern_len: 0,
    }
}

enum Current {
    None,
    Fixed,
    Owned(*mut WrPolicy),
}

struct Native {
    storage: Box<Storage>,
    current: Current,
}

impl Native {
    fn new() -> Native {
        Native {
            storage: storage(),
            current: Current::None,
        }
    }

    fn fixed(&self) -> *const WrFixedPolicy {
        self.storage.0.as_ptr().cast()
    }

    fn release(&mut self) {
        if let Current::Owned(p) = std::mem::replace(&mut self.current, Current::None) {
            // SAFETY: a live handle from wr_policy_parse, freed once.
            unsafe { wr_policy_free(p) };
        }
    }
}

impl Drop for Native {
    fn drop(&mut self) {
        self.release();
    }
}

/// A verdict's pattern, copied out of the policy.
fn copy(v: &WrVerdict) -> Answer {
    Answer {
        allowed: v.allowed,
        overflow: v.overflow,
        reading: v.reading,
        rule_kind: v.rule_kind,
        rule_line: v.rule_line,
        pattern: (!v.pattern.is_null())
            // SAFETY: the policy that wrote it is alive.
            .then(|| unsafe { std::slice::from_raw_parts(v.pattern, v.pattern_len) }.to_vec()),
    }
}

impl Embedding for Native {
    fn parse(&mut self, mode: Mode, body: &[u8], token: &[u8]) -> i32 {
        self.release();
        // SAFETY: live slices, storage of the asked size and alignment.
        unsafe {
            match mode {
                Mode::Fixed => {
                    let s = self.storage.0.as_mut_ptr();
                    let status = wr_fixed_policy_parse(
                        s,
                        WR_FIXED_POLICY_SIZE,
                        body.as_ptr(),
                        body.len(),
                        token.as_ptr(),
                        token.len(),
                    );
                    if status >= 0 {
                        self.current = Current::Fixed;
                    }
                    status
                }
                Mode::Owned => {
                    let mut p = null_mut();
                    let status = wr_policy_parse(
                        body.as_ptr(),
                        body.len(),
                        token.as_ptr(),
                        token.len(),
                        &mut p,
                    );
                    if status >= 0 {
                        self.current = Current::Owned(p);
                    }
                    status
                }
            }
        }
    }

    fn allowed(&mut self, path: &[u8]) -> (i32, Answer) {
        let mut v = verdict();
        // SAFETY: a parsed policy, a live path, a writable verdict.
        let ret = unsafe {
            match self.current {
                Current::Fixed => {
                    wr_fixed_policy_allowed(self.fixed(), path.as_ptr(), path.len(), &mut v)
                }
                Current::Owned(p) => wr_policy_allowed(p, path.as_ptr(), path.len(), &mut v),
                Current::None => panic!("no policy"),
            }
        };
        (ret, copy(&v))
    }

    fn crawl_delay_ms(&mut self) -> (i32, u64) {
        let mut ms = u64::MAX;
        // SAFETY: a parsed policy and a writable u64.
        let ret = unsafe {
            match self.current {
                Current::Fixed => wr_fixed_policy_crawl_delay_ms(self.fixed(), &mut ms),
                Current::Owned(p) => wr_policy_crawl_delay_ms(p, &mut ms),
                Current::None => panic!("no policy"),
            }
        };
        (ret, ms)
    }

    fn rule_count(&mut self) -> i32 {
        // SAFETY: a parsed policy.
        unsafe {
            match self.current {
                Current::Fixed => wr_fixed_policy_rule_count(self.fixed()),
                Current::Owned(p) => wr_policy_rule_count(p),
                Current::None => panic!("no policy"),
            }
        }
    }

    fn overflowed(&mut self) -> i32 {
        assert!(matches!(self.current, Current::Fixed));
        // SAFETY: a parsed fixed policy.
        unsafe { wr_fixed_policy_overflowed(self.fixed()) }
    }

    fn host_matches(&mut self, host: &[u8], domain: &[u8]) -> i32 {
        // SAFETY: live slices.
        unsafe { wr_host_matches_domain(host.as_ptr(), host.len(), domain.as_ptr(), domain.len()) }
    }

    fn host_matches_any(&mut self, host: &[u8], domains: &[&[u8]]) -> (i32, usize) {
        let list: Vec<WrBytes> = domains
            .iter()
            .map(|d| WrBytes {
                ptr: d.as_ptr(),
                len: d.len(),
            })
            .collect();
        let mut index = usize::MAX;
        // SAFETY: live slices and a writable index.
        let ret = unsafe {
            wr_host_matches_any_domain(
                host.as_ptr(),
                host.len(),
                list.as_ptr(),
                list.len(),
                &mut index,
            )
        };
        (ret, index)
    }
}

#[test]
fn every_vector_through_the_abi_in_process() {
    let report = common::run_all(&mut Native::new());
    report.assert("in-process", common::MIN_CHECKS);
}

#[test]
fn storage_constants_hold() {
    eprintln!(
        "wr_fixed_policy_size() on this host: {}",
        wr_fixed_policy_size()
    );
    assert!(wr_fixed_policy_size() <= WR_FIXED_POLICY_SIZE);
    // The bound is not wildly loose either (it is a C array size).
    assert!(wr_fixed_policy_size() + 1024 > WR_FIXED_POLICY_SIZE);
}

#[test]
fn null_misaligned_and_short_inputs_are_refused() {
    let body = b"User-agent: *\nDisallow: /x\n";
    let mut s = storage();
    let base = s.0.as_mut_ptr();
    let size = wr_fixed_policy_size();
    let mut v = verdict();
    let mut ms = 7u64;
    // SAFETY: every pointer is null, or live and large enough; the
    // functions must refuse rather than touch what they were not given.
    unsafe {
        let tok = b"Bot".as_ptr();
        assert_eq!(
            wr_fixed_policy_parse(null_mut(), size, body.as_ptr(), body.len(), tok, 3),
            WR_ERR_NULL
        );
        assert_eq!(
            wr_fixed_policy_parse(base, size - 1, body.as_ptr(), body.len(), tok, 3),
            WR_ERR_BUFFER_TOO_SMALL
        );
        assert_eq!(
            wr_fixed_policy_parse(base.add(1), size, body.as_ptr(), body.len(), tok, 3),
            WR_ERR_ALIGN
        );
        assert_eq!(
            wr_fixed_policy_parse(base, size, null(), 5, tok, 3),
            WR_ERR_NULL
        );
        assert_eq!(
            wr_fixed_policy_parse(base, size, body.as_ptr(), body.len(), null(), 3),
            WR_ERR_NULL
        );
        assert_eq!(
            wr_fixed_policy_parse(base, size, body.as_ptr(), body.len(), null(), 0),
            WR_ERR_EMPTY_TOKEN
        );
        // Refusals left the storage untouched.
        assert!(s.0.iter().all(|&b| b == 0));
        // Null body with length 0 is the empty file.
        assert_eq!(wr_fixed_policy_parse(base, size, null(), 0, tok, 3), WR_OK);
        assert_eq!(
            wr_fixed_policy_parse(base, size, body.as_ptr(), body.len(), tok, 3),
            WR_OK
        );
        let p = base.cast::<WrFixedPolicy>();
        assert_eq!(wr_fixed_policy_allowed(p, b"/x".as_ptr(), 2, &mut v), 0);
        assert_eq!(
            (v.rule_kind, v.rule_line, v.pattern_len),
            (WR_RULE_DISALLOW, 2, 2)
        );
        // `out` is optional.
        assert_eq!(wr_fixed_policy_allowed(p, b"/x".as_ptr(), 2, null_mut()), 0);
        assert_eq!(wr_fixed_policy_allowed(p, null(), 0, null_mut()), 1);
        assert_eq!(wr_fixed_policy_allowed(p, null(), 2, &mut v), WR_ERR_NULL);
        assert_eq!(
            wr_fixed_policy_allowed(null(), b"/".as_ptr(), 1, &mut v),
            WR_ERR_NULL
        );
        assert_eq!(
            wr_fixed_policy_allowed(base.add(4).cast(), b"/".as_ptr(), 1, &mut v),
            WR_ERR_ALIGN
        );
        assert_eq!(wr_fixed_policy_crawl_delay_ms(p, null_mut()), WR_ERR_NULL);
        assert_eq!(wr_fixed_policy_crawl_delay_ms(null(), &mut ms), WR_ERR_NULL);
        assert_eq!(ms, 7, "untouched on error");
        assert_eq!(wr_fixed_policy_rule_count(null()), WR_ERR_NULL);
        assert_eq!(wr_fixed_policy_overflowed(null()), WR_ERR_NULL);
        assert_eq!(wr_fixed_policy_overflowed(p), 0);

        assert_eq!(
            wr_policy_parse(body.as_ptr(), body.len(), tok, 3, null_mut()),
            WR_ERR_NULL
        );
        let mut h = null_mut();
        assert_eq!(wr_policy_parse(null(), 1, tok, 3, &mut h), WR_ERR_NULL);
        assert_eq!(
            wr_policy_parse(body.as_ptr(), body.len(), b"\xc3".as_ptr(), 1, &mut h),
            WR_ERR_UTF8
        );
        assert!(h.is_null(), "untouched on error");
        assert_eq!(
            wr_policy_allowed(null(), b"/".as_ptr(), 1, &mut v),
            WR_ERR_NULL
        );
        assert_eq!(wr_policy_crawl_delay_ms(null(), &mut ms), WR_ERR_NULL);
        assert_eq!(wr_policy_rule_count(null()), WR_ERR_NULL);
        wr_policy_free(null_mut());

        let host = b"www.example.com";
        assert_eq!(
            wr_host_matches_domain(null(), 3, b"a".as_ptr(), 1),
            WR_ERR_NULL
        );
        assert_eq!(
            wr_host_matches_domain(host.as_ptr(), host.len(), null(), 1),
            WR_ERR_NULL
        );
        let mut index = 99usize;
        assert_eq!(
            wr_host_matches_any_domain(host.as_ptr(), host.len(), null(), 1, &mut index),
            WR_ERR_NULL
        );
        assert_eq!(
            wr_host_matches_any_domain(host.as_ptr(), host.len(), null(), 0, &mut index),
            0
        );
        let bad = [WrBytes {
            ptr: null(),
            len: 4,
        }];
        assert_eq!(
            wr_host_matches_any_domain(host.as_ptr(), host.len(), bad.as_ptr(), 1, &mut index),
            WR_ERR_NULL
        );
        let good = [WrBytes {
            ptr: b"example.com".as_ptr(),
            len: 11,
        }];
        let misaligned = good.as_ptr().cast::<u8>().add(1).cast::<WrBytes>();
        assert_eq!(
            wr_host_matches_any_domain(host.as_ptr(), host.len(), misaligned, 1, &mut index),
            WR_ERR_ALIGN
        );
        assert_eq!(index, 99, "untouched on error");
        assert_eq!(
            wr_host_matches_any_domain(host.as_ptr(), host.len(), good.as_ptr(), 1, null_mut()),
            1
        );
        assert_eq!(
            wr_host_matches_any_domain(
                host.as_ptr(),
                host.len(),
                good.as_ptr(),
                usize::MAX,
                &mut index
            ),
            WR_ERR_NULL
        );
    }
}

#[test]
fn buffers_round_trip() {
    assert!(wr_buffer_alloc(0).is_null());
    assert!(wr_buffer_alloc(usize::MAX).is_null());
    let size = wr_fixed_policy_size();
    let p = wr_buffer_alloc(size);
    assert!(!p.is_null());
    assert_eq!(p.align_offset(WR_FIXED_POLICY_ALIGN), 0);
    // SAFETY: a block of `size` octets, aligned, freed once with its size.
    unsafe {
        assert_eq!(
            wr_fixed_policy_parse(p, size, null(), 0, b"Bot".as_ptr(), 3),
            WR_OK
        );
        wr_buffer_free(p, size);
        wr_buffer_free(null_mut(), 3);
    }
}
