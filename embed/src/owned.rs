//! A parsed robots.txt on the heap (feature `alloc`): every selected rule,
//! whatever the file's size, behind an owned handle.
//!
//! Also the two functions a WebAssembly host needs to pass octets in:
//! [`wr_buffer_alloc`] and [`wr_buffer_free`].

use crate::{answer, crawl_delay, input, token as read_token, WrVerdict};
use crate::{WR_ERR_NULL, WR_OK};
use alloc::alloc::{alloc, dealloc, Layout};
use alloc::boxed::Box;
use wr_core::robots::Policy;

/// The rules of one product token, on the heap. Opaque: made by
/// [`wr_policy_parse`], freed by [`wr_policy_free`].
pub struct WrPolicy(Policy);

/// Alignment of every [`wr_buffer_alloc`] block: enough for a
/// `WrFixedPolicy`.
const BUFFER_ALIGN: usize = crate::WR_FIXED_POLICY_ALIGN;

/// Parses a robots.txt `body` for the product `token` and stores a new
/// handle in `*out` (free it with `wr_policy_free`). Bodies over 500 KiB
/// are cut (spec 9.1.1). Returns `WR_OK`, or an error with `*out` left
/// untouched: `WR_ERR_NULL` (null `out`, or a null pointer with a non-zero
/// length), `WR_ERR_UTF8` / `WR_ERR_EMPTY_TOKEN` (bad token). Running out
/// of memory aborts, as any allocation failure in Rust does.
///
/// # Safety
///
/// `body` and `token` must point to `body_len` and `token_len` readable
/// octets (or be null with length 0); `out` must be null or valid for
/// writing one pointer.
#[no_mangle]
pub unsafe extern "C" fn wr_policy_parse(
    body: *const u8,
    body_len: usize,
    token: *const u8,
    token_len: usize,
    out: *mut *mut WrPolicy,
) -> i32 {
    if out.is_null() {
        return WR_ERR_NULL;
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
    let handle = Box::into_raw(Box::new(WrPolicy(Policy::parse(body, token))));
    // SAFETY: non-null, and valid for writes by the caller's promise.
    unsafe { out.write_unaligned(handle) };
    WR_OK
}

/// Frees a handle made by `wr_policy_parse`. Null is ignored. Patterns of
/// verdicts it gave are invalid afterwards.
///
/// # Safety
///
/// `policy` must be null or a handle from `wr_policy_parse` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn wr_policy_free(policy: *mut WrPolicy) {
    if !policy.is_null() {
        // SAFETY: made by `Box::into_raw` in `wr_policy_parse`, freed once.
        drop(unsafe { Box::from_raw(policy) });
    }
}

/// Decides whether the request target `path` (path and query as sent,
/// `/a/b?c`; empty means `/`) may be fetched: only if every reading
/// allows it. Returns 1 (allowed) or 0 (disallowed) and, when `out` is not
/// null, writes the verdict there (deciding rule, line, pattern as
/// written, reading). Errors: `WR_ERR_NULL`.
///
/// # Safety
///
/// `policy` must be null or a live handle from `wr_policy_parse`; `path`
/// must point to `path_len` readable octets (or be null with length 0);
/// `out` must be null or valid for writing one `WrVerdict`.
#[no_mangle]
pub unsafe extern "C" fn wr_policy_allowed(
    policy: *const WrPolicy,
    path: *const u8,
    path_len: usize,
    out: *mut WrVerdict,
) -> i32 {
    // SAFETY: a live handle by the caller's promise; null is `None`.
    let Some(policy) = (unsafe { policy.as_ref() }) else {
        return WR_ERR_NULL;
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
/// (also for a null `out_ms`).
///
/// # Safety
///
/// `policy` must be null or a live handle from `wr_policy_parse`; `out_ms`
/// must be null or valid for writing one `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn wr_policy_crawl_delay_ms(
    policy: *const WrPolicy,
    out_ms: *mut u64,
) -> i32 {
    // SAFETY: a live handle by the caller's promise; null is `None`.
    match unsafe { policy.as_ref() } {
        // SAFETY: forwarded to the caller.
        Some(p) => unsafe { crawl_delay(p.0.crawl_delay(), out_ms) },
        None => WR_ERR_NULL,
    }
}

/// Number of rules kept for the selected groups, or `WR_ERR_NULL`.
///
/// # Safety
///
/// `policy` must be null or a live handle from `wr_policy_parse`.
#[no_mangle]
pub unsafe extern "C" fn wr_policy_rule_count(policy: *const WrPolicy) -> i32 {
    // SAFETY: a live handle by the caller's promise; null is `None`.
    match unsafe { policy.as_ref() } {
        Some(p) => crate::count(p.0.rule_count()),
        None => WR_ERR_NULL,
    }
}

/// Allocates `size` octets aligned to `WR_FIXED_POLICY_ALIGN` (so the block
/// may serve as `wr_fixed_policy_parse` storage). Returns null when `size`
/// is 0 or the memory is not there. Meant for WebAssembly hosts, which must
/// place inputs in the module's memory; C callers may use their own memory.
#[no_mangle]
pub extern "C" fn wr_buffer_alloc(size: usize) -> *mut u8 {
    match Layout::from_size_align(size, BUFFER_ALIGN) {
        // SAFETY: the layout's size is not zero.
        Ok(layout) if size != 0 => unsafe { alloc(layout) },
        _ => core::ptr::null_mut(),
    }
}

/// Frees a block from `wr_buffer_alloc`; `size` must be the size it was
/// asked with. Null is ignored.
///
/// # Safety
///
/// `ptr` must be null or a block from `wr_buffer_alloc(size)` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn wr_buffer_free(ptr: *mut u8, size: usize) {
    if ptr.is_null() {
        return;
    }
    if let Ok(layout) = Layout::from_size_align(size, BUFFER_ALIGN) {
        // SAFETY: allocated with this very layout by `wr_buffer_alloc`.
        unsafe { dealloc(ptr, layout) };
    }
}
