//! A parsed robots.txt in the caller's storage: no allocator
//! ([`FixedPolicy`] of [`WR_FIXED_RULES`] rules and [`WR_FIXED_BYTES`]
//! pattern octets per group set).
//!
//! The storage holds the policy itself, so it needs no teardown: drop,
//! reuse or re-parse it at will. The policy is built in the storage
//! ([`FixedPolicy::parse_in_place`]), never copied to the stack: in the
//! thumbv7em build the largest stack frame of parse and check is about
//! 1.1 KiB (the copy of a long percent-encoded path being matched).

use crate::{answer, crawl_delay, input, token as read_token, WrVerdict};
use crate::{WR_ERR_ALIGN, WR_ERR_BUFFER_TOO_SMALL, WR_ERR_NULL, WR_OK, WR_OVERFLOWED};
use core::mem::{align_of, size_of};
use wr_core::robots::fixed::FixedPolicy;

/// Rules kept per group set (the named set and the `*` set each).
pub const WR_FIXED_RULES: usize = 64;
/// Octets of patterns kept per group set.
pub const WR_FIXED_BYTES: usize = 4096;
/// Octets of storage that always suffice for a [`WrFixedPolicy`] on any
/// target (`wr_fixed_policy_size()` gives the exact figure for this build).
pub const WR_FIXED_POLICY_SIZE: usize = 13312;
/// Alignment that always suffices for a [`WrFixedPolicy`].
pub const WR_FIXED_POLICY_ALIGN: usize = 8;

/// The rules of one product token, held in the caller's storage. Opaque:
/// reach it through the `wr_fixed_policy_*` functions only.
pub struct WrFixedPolicy(FixedPolicy<WR_FIXED_RULES, WR_FIXED_BYTES>);

const _: () = assert!(size_of::<WrFixedPolicy>() <= WR_FIXED_POLICY_SIZE);
const _: () = assert!(align_of::<WrFixedPolicy>() <= WR_FIXED_POLICY_ALIGN);

/// The policy at `policy`, or the error code for an unusable pointer.
///
/// # Safety
///
/// A non-null, aligned `policy` must point to storage that a successful
/// [`wr_fixed_policy_parse`] filled, not written while the reference lives.
unsafe fn get<'a>(policy: *const WrFixedPolicy) -> Result<&'a WrFixedPolicy, i32> {
    if !policy.is_aligned() {
        return Err(WR_ERR_ALIGN);
    }
    // SAFETY: aligned; initialised by the caller's promise; null is `None`.
    unsafe { policy.as_ref() }.ok_or(WR_ERR_NULL)
}

/// Exact number of octets a [`WrFixedPolicy`] takes in this build (at most
/// `WR_FIXED_POLICY_SIZE`).
#[no_mangle]
pub extern "C" fn wr_fixed_policy_size() -> usize {
    size_of::<WrFixedPolicy>()
}

/// Parses a robots.txt `body` for the product `token` (for example
/// `Walsh-Research`) into `storage`, which then holds the policy: cast
/// `storage` to `WrFixedPolicy *` for the other `wr_fixed_policy_*`
/// functions. Uses no allocator. Bodies over 500 KiB are cut (spec 9.1.1).
///
/// Returns `WR_OK`, or `WR_OVERFLOWED` when the selected rules did not fit:
/// the policy is usable but over-blocks (see `wr_fixed_policy_overflowed`).
/// Errors: `WR_ERR_NULL` (null `storage`, or a null pointer with a non-zero
/// length), `WR_ERR_BUFFER_TOO_SMALL` (`storage_len` below
/// `wr_fixed_policy_size()`), `WR_ERR_ALIGN` (`storage` not aligned to
/// `WR_FIXED_POLICY_ALIGN`), `WR_ERR_UTF8` / `WR_ERR_EMPTY_TOKEN` (bad
/// token); on error `storage` is left untouched.
///
/// # Safety
///
/// `storage` must be valid for writing `storage_len` octets; `body` and
/// `token` must point to `body_len` and `token_len` readable octets (or be
/// null with length 0); none of them may overlap.
#[no_mangle]
pub unsafe extern "C" fn wr_fixed_policy_parse(
    storage: *mut u8,
    storage_len: usize,
    body: *const u8,
    body_len: usize,
    token: *const u8,
    token_len: usize,
) -> i32 {
    if storage.is_null() {
        return WR_ERR_NULL;
    }
    if storage_len < size_of::<WrFixedPolicy>() {
        return WR_ERR_BUFFER_TOO_SMALL;
    }
    let dst = storage.cast::<WrFixedPolicy>();
    if !dst.is_aligned() {
        return WR_ERR_ALIGN;
    }
    // SAFETY: the caller promises readable inputs.
    let Some(body) = (unsafe { input(body, body_len) }) else {
        return WR_ERR_NULL;
    };
    // SAFETY: as above.
    let token = match unsafe { read_token(token, token_len) } {
        Ok(t) => t,
        Err(e) => return e,
    };
    // Built in the storage itself: an empty policy written in place, then
    // parsed in place, so that no copy of it is ever on the stack.
    // SAFETY: non-null, aligned, large enough (checked above) and writable
    // by the caller's promise; initialised by the write before the borrow.
    let policy = unsafe {
        dst.write(WrFixedPolicy(FixedPolicy::default()));
        &mut *dst
    };
    policy.0.parse_in_place(body, token);
    if policy.0.overflowed() {
        WR_OVERFLOWED
    } else {
        WR_OK
    }
}

/// Whether a capacity was exceeded for the selected rules: 1 when answers
/// may over-block, 0 when they are exactly the full algorithm's, negative
/// on error (`WR_ERR_NULL`, `WR_ERR_ALIGN`).
///
/// # Safety
///
/// `policy` must be null or point to storage a successful
/// `wr_fixed_policy_parse` filled.
#[no_mangle]
pub unsafe extern "C" fn wr_fixed_policy_overflowed(policy: *const WrFixedPolicy) -> i32 {
    // SAFETY: forwarded to the caller.
    match unsafe { get(policy) } {
        Ok(p) => i32::from(p.0.overflowed()),
        Err(e) => e,
    }
}

/// Decides whether the request target `path` (path and query as sent,
/// `/a/b?c`; empty means `/`) may be fetched: only if every reading
/// allows it. Returns 1 (allowed) or 0 (disallowed) and, when `out` is not
/// null, writes the verdict there (deciding rule, line, pattern, reading,
/// overflow). Errors: `WR_ERR_NULL`, `WR_ERR_ALIGN`.
///
/// # Safety
///
/// `policy` must be null or point to storage a successful
/// `wr_fixed_policy_parse` filled; `path` must point to `path_len`
/// readable octets (or be null with length 0); `out` must be null or valid
/// for writing one `WrVerdict`.
#[no_mangle]
pub unsafe extern "C" fn wr_fixed_policy_allowed(
    policy: *const WrFixedPolicy,
    path: *const u8,
    path_len: usize,
    out: *mut WrVerdict,
) -> i32 {
    // SAFETY: forwarded to the caller.
    let policy = match unsafe { get(policy) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: forwarded to the caller.
    let Some(path) = (unsafe { input(path, path_len) }) else {
        return WR_ERR_NULL;
    };
    let verdict = policy.0.check_bytes(path);
    // SAFETY: forwarded to the caller.
    unsafe { answer(&verdict, out) }
}

/// The selected Crawl-delay (R2d; the largest any reading selected) in
/// milliseconds, rounded up: returns 1 and writes it to `out_ms`, or
/// returns 0 and writes 0 when the file sets none. Errors: `WR_ERR_NULL`
/// (also for a null `out_ms`), `WR_ERR_ALIGN`.
///
/// # Safety
///
/// `policy` must be null or point to storage a successful
/// `wr_fixed_policy_parse` filled; `out_ms` must be null or valid for
/// writing one `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn wr_fixed_policy_crawl_delay_ms(
    policy: *const WrFixedPolicy,
    out_ms: *mut u64,
) -> i32 {
    // SAFETY: forwarded to the caller.
    match unsafe { get(policy) } {
        // SAFETY: forwarded to the caller.
        Ok(p) => unsafe { crawl_delay(p.0.crawl_delay(), out_ms) },
        Err(e) => e,
    }
}

/// Number of rules kept for the selected groups (at most
/// `2 * WR_FIXED_RULES`), or a negative error (`WR_ERR_NULL`,
/// `WR_ERR_ALIGN`).
///
/// # Safety
///
/// `policy` must be null or point to storage a successful
/// `wr_fixed_policy_parse` filled.
#[no_mangle]
pub unsafe extern "C" fn wr_fixed_policy_rule_count(policy: *const WrFixedPolicy) -> i32 {
    // SAFETY: forwarded to the caller.
    match unsafe { get(policy) } {
        Ok(p) => crate::count(p.0.rule_count()),
        Err(e) => e,
    }
}
