//! The operator blocklist's host check (R3a) with wr-core's domain
//! matching ([`host_matches_domain`]): a host is covered by a listed domain
//! when it is that domain or a subdomain of it, ASCII case-insensitively,
//! ports, IPv6 brackets and trailing dots ignored on both sides; an
//! empty domain covers nothing.

use crate::{input_str, WrBytes, WR_ERR_ALIGN, WR_ERR_NULL};
use wr_core::domain::host_matches_domain;

/// Whether `host` (a URL's host, a port allowed) is covered by the blocked
/// `domain`: 1 yes, 0 no. `example.com` covers `www.example.com` and
/// `EXAMPLE.COM:8080`, not `notexample.com` or `example.com.evil.test`.
/// Errors: `WR_ERR_NULL`, `WR_ERR_UTF8` (either is not UTF-8).
///
/// # Safety
///
/// `host` and `domain` must point to `host_len` and `domain_len` readable
/// octets (or be null with length 0).
#[no_mangle]
pub unsafe extern "C" fn wr_host_matches_domain(
    host: *const u8,
    host_len: usize,
    domain: *const u8,
    domain_len: usize,
) -> i32 {
    // SAFETY: the caller promises readable inputs.
    let (host, domain) = match unsafe { (input_str(host, host_len), input_str(domain, domain_len)) }
    {
        (Ok(h), Ok(d)) => (h, d),
        (Err(e), _) | (_, Err(e)) => return e,
    };
    i32::from(host_matches_domain(host, domain))
}

/// Whether `host` is covered by any of the `count` blocked domains at
/// `domains`: returns 1 and writes the index of the first listed domain
/// that covers it to `out_index` (when not null), or returns 0. Every
/// entry is checked for validity before any is matched, so a bad entry is
/// reported wherever it sits. Errors: `WR_ERR_NULL` (null `domains` with a
/// non-zero `count`, or an entry with a null pointer and a non-zero
/// length), `WR_ERR_UTF8`.
///
/// # Safety
///
/// `host` must point to `host_len` readable octets (or be null with length
/// 0); `domains` must point to `count` readable `WrBytes` (or be null with
/// `count` 0), each pointing to its `len` readable octets; `out_index`
/// must be null or valid for writing one `size_t`.
#[no_mangle]
pub unsafe extern "C" fn wr_host_matches_any_domain(
    host: *const u8,
    host_len: usize,
    domains: *const WrBytes,
    count: usize,
    out_index: *mut usize,
) -> i32 {
    // SAFETY: the caller promises a readable host.
    let host = match unsafe { input_str(host, host_len) } {
        Ok(h) => h,
        Err(e) => return e,
    };
    if count != 0 && domains.is_null() {
        return WR_ERR_NULL;
    }
    if !domains.is_aligned() {
        return WR_ERR_ALIGN;
    }
    let Some(bytes) = count.checked_mul(core::mem::size_of::<WrBytes>()) else {
        return WR_ERR_NULL;
    };
    if bytes > isize::MAX as usize {
        return WR_ERR_NULL;
    }
    let list: &[WrBytes] = if count == 0 {
        &[]
    } else {
        // SAFETY: non-null, aligned, within isize::MAX octets, and `count`
        // readable entries by the caller's promise.
        unsafe { core::slice::from_raw_parts(domains, count) }
    };
    // SAFETY (both closures): each entry points to readable octets by the
    // caller's promise.
    let domain = |d: &WrBytes| unsafe { input_str(d.ptr, d.len) };
    if let Some(Err(e)) = list.iter().map(domain).find(Result::is_err) {
        return e;
    }
    let hit = list
        .iter()
        .position(|d| matches!(domain(d), Ok(d) if host_matches_domain(host, d)));
    match hit {
        Some(i) => {
            if !out_index.is_null() {
                // SAFETY: non-null, and valid for writes by the promise.
                unsafe { out_index.write_unaligned(i) };
            }
            1
        }
        None => 0,
    }
}
