//! Size probe: the smallest bare-metal program that parses a robots.txt
//! into caller storage, decides a path, reads the Crawl-delay and checks a
//! host against a blocked domain, through this crate's C ABI, with no
//! allocator. Its `.text` is what those decisions cost a device.
//!
//! Built for `thumbv7em-none-eabihf` only (it defines `_start` and a panic
//! handler), by `.ci/run` and docs/performance.md "Embedded sizes":
//!
//! ```text
//! cargo build -p wr-core-embed --example size_probe --target thumbv7em-none-eabihf \
//!     --profile embed --no-default-features --features size-probe
//! ```
//!
//! It is linked, never run: the inputs come through `black_box` so that
//! nothing is folded away at compile time.
#![no_std]
#![no_main]

use core::hint::black_box;
use core::mem::MaybeUninit;
use wr_core_embed::blocklist::wr_host_matches_domain;
use wr_core_embed::fixed::{
    wr_fixed_policy_allowed, wr_fixed_policy_crawl_delay_ms, wr_fixed_policy_parse,
};
use wr_core_embed::{WrVerdict, WR_FIXED_POLICY_SIZE};

#[repr(C, align(8))]
struct Storage([u8; WR_FIXED_POLICY_SIZE]);

static BODY: &[u8] = b"User-agent: *\nDisallow: /private\nAllow: /private/ok\nCrawl-delay: 2\n";

/// Entry point (never run).
#[no_mangle]
pub extern "C" fn _start() -> ! {
    let body = black_box(BODY);
    let token = black_box(&b"Walsh-Research"[..]);
    let path = black_box(&b"/private/x"[..]);
    let host = black_box(&b"www.example.com"[..]);
    let domain = black_box(&b"example.com"[..]);
    let mut storage = MaybeUninit::<Storage>::uninit();
    let mut verdict = MaybeUninit::<WrVerdict>::uninit();
    let mut delay = 0u64;
    let s = storage.as_mut_ptr().cast::<u8>();
    // SAFETY: every pointer is to live, large enough, aligned memory.
    unsafe {
        let parsed = wr_fixed_policy_parse(
            s,
            WR_FIXED_POLICY_SIZE,
            body.as_ptr(),
            body.len(),
            token.as_ptr(),
            token.len(),
        );
        let allowed =
            wr_fixed_policy_allowed(s.cast(), path.as_ptr(), path.len(), verdict.as_mut_ptr());
        let has_delay = wr_fixed_policy_crawl_delay_ms(s.cast(), &mut delay);
        let blocked =
            wr_host_matches_domain(host.as_ptr(), host.len(), domain.as_ptr(), domain.len());
        black_box((parsed, allowed, has_delay, blocked, delay, verdict));
    }
    loop {
        core::hint::spin_loop();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
