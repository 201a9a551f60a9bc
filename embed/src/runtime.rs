//! What a standalone artefact (feature `standalone`) needs and a library
//! linked into a Rust program must not bring: a panic handler and, with
//! `alloc`, a global allocator.
//!
//! * wasm32: a panic traps (`unreachable`), and the allocator is talc
//!   growing the module's own memory, so the module imports nothing
//!   (chosen over dlmalloc for size: see embed/Cargo.toml).
//! * unix (the C staticlib): a panic calls the C library's `abort`, and the
//!   allocator is the C library's `malloc` family.
//! * bare metal: a panic spins; bring your own allocator (and usually your
//!   own panic handler: then leave this feature off).

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    #[cfg(target_arch = "wasm32")]
    core::arch::wasm32::unreachable();
    #[cfg(all(unix, not(target_arch = "wasm32")))]
    // SAFETY: the C library's `abort` has no preconditions.
    unsafe {
        libc::abort()
    }
    #[cfg(not(any(unix, target_arch = "wasm32")))]
    loop {
        core::hint::spin_loop();
    }
}

#[cfg(all(feature = "alloc", target_arch = "wasm32"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(all(feature = "alloc", unix, not(target_arch = "wasm32")))]
#[global_allocator]
static ALLOCATOR: libc::Malloc = libc::Malloc;

#[cfg(all(feature = "alloc", not(any(unix, target_arch = "wasm32"))))]
compile_error!(
    "`standalone` with `alloc` provides an allocator on wasm32 and unix only: \
     build with `--no-default-features --features standalone`, or drop \
     `standalone` and provide a #[global_allocator]"
);

/// The few C library functions the unix artefact uses, declared here so
/// that no binding crate is needed.
///
/// cbindgen:ignore
#[cfg(all(unix, not(target_arch = "wasm32")))]
mod libc {
    use core::alloc::{GlobalAlloc, Layout};
    use core::ffi::{c_int, c_void};

    extern "C" {
        pub fn abort() -> !;
        fn malloc(size: usize) -> *mut c_void;
        fn free(ptr: *mut c_void);
        fn realloc(ptr: *mut c_void, size: usize) -> *mut c_void;
        fn posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> c_int;
    }

    /// `malloc` guarantees at least this alignment on every unix target.
    const MALLOC_ALIGN: usize = 8;

    /// The C library's allocator.
    pub struct Malloc;

    // SAFETY: `malloc`, `posix_memalign` and `realloc` return blocks of at
    // least the asked size and alignment (or null), and `free` releases
    // what they returned.
    unsafe impl GlobalAlloc for Malloc {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if layout.align() <= MALLOC_ALIGN {
                // SAFETY: any size is valid for malloc.
                return unsafe { malloc(layout.size()) }.cast();
            }
            let mut out = core::ptr::null_mut();
            // SAFETY: the alignment is a power of two above 8, so a multiple
            // of `sizeof(void *)`, as posix_memalign requires.
            match unsafe { posix_memalign(&mut out, layout.align(), layout.size()) } {
                0 => out.cast(),
                _ => core::ptr::null_mut(),
            }
        }

        unsafe fn dealloc(&self, ptr: *mut u8, _: Layout) {
            // SAFETY: `ptr` came from `alloc` or `realloc` above.
            unsafe { free(ptr.cast()) }
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if layout.align() <= MALLOC_ALIGN {
                // SAFETY: `ptr` came from `malloc` (alignment <= 8).
                return unsafe { realloc(ptr.cast(), new_size) }.cast();
            }
            // SAFETY: the default's preconditions are ours.
            let new =
                unsafe { self.alloc(Layout::from_size_align_unchecked(new_size, layout.align())) };
            if !new.is_null() {
                // SAFETY: both blocks hold at least the smaller size.
                unsafe {
                    core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                    self.dealloc(ptr, layout);
                }
            }
            new
        }
    }
}
