//! The `wasm32-unknown-unknown` module, built by this test (profile
//! `embed-wasm`, feature `standalone`) and run in the wasmi interpreter: every
//! vector of tests/common through its exports, as a host would call them
//! (inputs placed with `wr_buffer_alloc`, answers read from its memory).
//!
//! Needs the wasm32 target: `rustup target add wasm32-unknown-unknown`
//! (`.ci/run` adds it). Without it this test fails, saying so.

use crate::common;

use std::sync::OnceLock;

use common::{Answer, Embedding, Mode};
use wasmi::{Engine, Instance, Linker, Memory, Module, Store, WasmParams, WasmResults};
use wr_core_embed::{
    WR_ERR_ALIGN, WR_ERR_BUFFER_TOO_SMALL, WR_ERR_NULL, WR_FIXED_POLICY_SIZE, WR_OK,
};

/// The arguments `.ci/run` builds the module with, too (same target
/// directory, so one build serves both).
const BUILD: &[&str] = &[
    "rustc",
    "-p",
    "wr-core-embed",
    "--lib",
    "--crate-type",
    "cdylib",
    "--target",
    "wasm32-unknown-unknown",
    "--profile",
    "embed-wasm",
    "--features",
    "standalone",
];

fn module_bytes() -> &'static [u8] {
    static WASM: OnceLock<Vec<u8>> = OnceLock::new();
    WASM.get_or_init(|| {
        common::cargo_build(
            "the wasm module",
            BUILD,
            "This test needs the wasm32 target of the toolchain: \
             `rustup target add wasm32-unknown-unknown`.",
        );
        let path = common::artefact_target_dir()
            .join("wasm32-unknown-unknown/embed-wasm/wr_core_embed.wasm");
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    })
}

/// `WrVerdict` in wasm32's C layout: four octets, `rule_line`, then the
/// 32-bit `pattern` and `pattern_len`.
const VERDICT_SIZE: u32 = 16;

enum Current {
    None,
    Fixed(u32),
    Owned(u32),
}

struct Wasm {
    store: Store<()>,
    instance: Instance,
    memory: Memory,
    fixed_size: u32,
    current: Current,
}

impl Wasm {
    fn new() -> Wasm {
        let engine = Engine::default();
        let module = Module::new(&engine, module_bytes()).expect("a valid wasm module");
        let mut store = Store::new(&engine, ());
        // No imports: the module must be self-contained.
        let instance = Linker::<()>::new(&engine)
            .instantiate_and_start(&mut store, &module)
            .expect("the module instantiates with no imports");
        let memory = instance
            .get_memory(&store, "memory")
            .expect("the module exports its memory");
        let mut w = Wasm {
            store,
            instance,
            memory,
            fixed_size: 0,
            current: Current::None,
        };
        w.fixed_size = w.call("wr_fixed_policy_size", ());
        w
    }

    fn call<P: WasmParams, R: WasmResults>(&mut self, name: &str, params: P) -> R {
        self.instance
            .get_typed_func::<P, R>(&self.store, name)
            .unwrap_or_else(|e| panic!("export {name}: {e}"))
            .call(&mut self.store, params)
            .unwrap_or_else(|e| panic!("{name} trapped: {e}"))
    }

    fn alloc(&mut self, size: u32) -> u32 {
        let p: u32 = self.call("wr_buffer_alloc", size);
        assert_ne!(p, 0, "wr_buffer_alloc({size})");
        p
    }

    /// Copies `data` into the module: `(ptr, len)`, `(0, 0)` when empty.
    fn put(&mut self, data: &[u8]) -> (u32, u32) {
        if data.is_empty() {
            return (0, 0);
        }
        let len = u32::try_from(data.len()).expect("fits wasm32");
        let p = self.alloc(len);
        self.memory
            .write(&mut self.store, p as usize, data)
            .expect("in bounds");
        (p, len)
    }

    fn free(&mut self, (p, len): (u32, u32)) {
        if p != 0 {
            self.call::<_, ()>("wr_buffer_free", (p, len));
        }
    }

    /// A scratch block filled with 0xAA, so that what was not written shows.
    fn scratch(&mut self, size: u32) -> (u32, u32) {
        self.put(&vec![0xAA; size as usize])
    }

    fn read(&self, p: u32, len: u32) -> Vec<u8> {
        let mut buf = vec![0; len as usize];
        self.memory
            .read(&self.store, p as usize, &mut buf)
            .expect("in bounds");
        buf
    }

    fn u32_at(&self, p: u32) -> u32 {
        u32::from_le_bytes(self.read(p, 4).try_into().expect("4 octets"))
    }

    fn release(&mut self) {
        match std::mem::replace(&mut self.current, Current::None) {
            Current::None => {}
            Current::Fixed(s) => self.free((s, self.fixed_size)),
            Current::Owned(h) => self.call::<_, ()>("wr_policy_free", h),
        }
    }

    fn policy(&self) -> (&'static str, u32) {
        match self.current {
            Current::Fixed(s) => ("wr_fixed_policy", s),
            Current::Owned(h) => ("wr_policy", h),
            Current::None => panic!("no policy"),
        }
    }
}

impl Embedding for Wasm {
    fn parse(&mut self, mode: Mode, body: &[u8], token: &[u8]) -> i32 {
        self.release();
        let b = self.put(body);
        let t = self.put(token);
        let status = match mode {
            Mode::Fixed => {
                let s = self.alloc(self.fixed_size);
                let status: i32 = self.call(
                    "wr_fixed_policy_parse",
                    (s, self.fixed_size, b.0, b.1, t.0, t.1),
                );
                if status >= 0 {
                    self.current = Current::Fixed(s);
                } else {
                    self.free((s, self.fixed_size));
                }
                status
            }
            Mode::Owned => {
                let out = self.scratch(4);
                let status: i32 = self.call("wr_policy_parse", (b.0, b.1, t.0, t.1, out.0));
                if status >= 0 {
                    self.current = Current::Owned(self.u32_at(out.0));
                }
                self.free(out);
                status
            }
        };
        self.free(b);
        self.free(t);
        status
    }

    fn allowed(&mut self, path: &[u8]) -> (i32, Answer) {
        let (prefix, p) = self.policy();
        let path = self.put(path);
        let out = self.scratch(VERDICT_SIZE);
        let ret: i32 = self.call(&format!("{prefix}_allowed"), (p, path.0, path.1, out.0));
        let v = self.read(out.0, VERDICT_SIZE);
        let word = |i: usize| u32::from_le_bytes(v[i..i + 4].try_into().expect("4 octets"));
        let (pattern, pattern_len) = (word(8), word(12));
        let answer = Answer {
            allowed: v[0],
            overflow: v[1],
            reading: v[2],
            rule_kind: v[3],
            rule_line: word(4),
            pattern: (pattern != 0).then(|| self.read(pattern, pattern_len)),
        };
        self.free(out);
        self.free(path);
        (ret, answer)
    }

    fn crawl_delay_ms(&mut self) -> (i32, u64) {
        let (prefix, p) = self.policy();
        let out = self.scratch(8);
        let ret: i32 = self.call(&format!("{prefix}_crawl_delay_ms"), (p, out.0));
        let ms = u64::from_le_bytes(self.read(out.0, 8).try_into().expect("8 octets"));
        self.free(out);
        (ret, ms)
    }

    fn rule_count(&mut self) -> i32 {
        let (prefix, p) = self.policy();
        self.call(&format!("{prefix}_rule_count"), p)
    }

    fn overflowed(&mut self) -> i32 {
        let Current::Fixed(s) = self.current else {
            panic!("not a fixed policy")
        };
        self.call("wr_fixed_policy_overflowed", s)
    }

    fn host_matches(&mut self, host: &[u8], domain: &[u8]) -> i32 {
        let h = self.put(host);
        let d = self.put(domain);
        let ret = self.call("wr_host_matches_domain", (h.0, h.1, d.0, d.1));
        self.free(h);
        self.free(d);
        ret
    }

    fn host_matches_any(&mut self, host: &[u8], domains: &[&[u8]]) -> (i32, usize) {
        let h = self.put(host);
        let entries: Vec<(u32, u32)> = domains.iter().map(|d| self.put(d)).collect();
        // `WrBytes` in wasm32: two 32-bit words.
        let list: Vec<u8> = entries
            .iter()
            .flat_map(|&(p, n)| p.to_le_bytes().into_iter().chain(n.to_le_bytes()))
            .collect();
        let l = self.put(&list);
        let out = self.scratch(4);
        let count = u32::try_from(domains.len()).expect("small");
        let ret: i32 = self.call("wr_host_matches_any_domain", (h.0, h.1, l.0, count, out.0));
        let index = match self.u32_at(out.0) {
            0xAAAA_AAAA => usize::MAX,
            i => i as usize,
        };
        self.free(out);
        self.free(l);
        for e in entries {
            self.free(e);
        }
        self.free(h);
        (ret, index)
    }
}

#[test]
fn every_vector_through_the_wasm_module() {
    let report = common::run_all(&mut Wasm::new());
    report.assert("wasm", common::MIN_CHECKS);
}

#[test]
fn the_module_imports_nothing_and_exports_the_header() {
    let engine = Engine::default();
    let module = Module::new(&engine, module_bytes()).expect("a valid wasm module");
    let imports: Vec<String> = module
        .imports()
        .map(|i| format!("{}::{}", i.module(), i.name()))
        .collect();
    assert!(imports.is_empty(), "imports {imports:?}");
    let exports: Vec<&str> = module.exports().map(|e| e.name()).collect();
    for name in common::exported() {
        assert!(
            exports.contains(&name.as_str()),
            "{name} is not exported: {exports:?}"
        );
    }
}

#[test]
fn the_module_refuses_bad_pointers() {
    let mut w = Wasm::new();
    let size = w.fixed_size;
    eprintln!("wr_fixed_policy_size() in wasm32: {size}");
    assert!(
        size as usize <= WR_FIXED_POLICY_SIZE,
        "the header's bound holds on wasm32"
    );
    let s = w.alloc(size + 8);
    let body = w.put(b"User-agent: *\nDisallow: /x\n");
    let token = w.put(b"Bot");
    let parse = |w: &mut Wasm, s: u32, n: u32, b: (u32, u32), t: (u32, u32)| -> i32 {
        w.call("wr_fixed_policy_parse", (s, n, b.0, b.1, t.0, t.1))
    };
    assert_eq!(parse(&mut w, 0, size, body, token), WR_ERR_NULL);
    assert_eq!(
        parse(&mut w, s, size - 1, body, token),
        WR_ERR_BUFFER_TOO_SMALL
    );
    assert_eq!(parse(&mut w, s + 4, size, body, token), WR_ERR_ALIGN);
    assert_eq!(parse(&mut w, s, size, (0, 3), token), WR_ERR_NULL);
    assert_eq!(parse(&mut w, s, size, body, token), WR_OK);
    let ret: i32 = w.call("wr_fixed_policy_allowed", (s, 0u32, 1u32, 0u32));
    assert_eq!(ret, WR_ERR_NULL, "null path with a length");
    let path = w.put(b"/x");
    let ret: i32 = w.call("wr_fixed_policy_allowed", (s, path.0, path.1, 0u32));
    assert_eq!(ret, 0, "denied, with no out-verdict");
    let ret: i32 = w.call("wr_fixed_policy_crawl_delay_ms", (s, 0u32));
    assert_eq!(ret, WR_ERR_NULL, "null out_ms");
    let ret: i32 = w.call("wr_policy_parse", (body.0, body.1, token.0, token.1, 0u32));
    assert_eq!(ret, WR_ERR_NULL, "null out");
    let ret: u32 = w.call("wr_buffer_alloc", 0u32);
    assert_eq!(ret, 0, "a zero-size buffer is null");
    let ret: u32 = w.call("wr_buffer_alloc", u32::MAX);
    assert_eq!(ret, 0, "an impossible buffer is null, not a trap");
}

/// The module grows its own memory and never gives it back, so an
/// allocator that did not reuse freed blocks would grow it with every
/// parse. A host that parses and frees one policy after another must see
/// the memory settle: after a few rounds (the allocator's bins fill), more
/// rounds add no page.
#[test]
fn freed_policies_give_their_memory_back_to_the_module() {
    let mut w = Wasm::new();
    let mut body = Vec::new();
    for i in 0..1_500 {
        body.extend_from_slice(format!("User-agent: bot{i}\nDisallow: /p{i}/*q\n").as_bytes());
    }
    let pages = |w: &Wasm| w.memory.size(&w.store);
    let round = |w: &mut Wasm, mode: Mode| {
        assert!(w.parse(mode, &body, b"Walsh-Research") >= 0);
        let (ret, _) = w.allowed(b"/p17/xq");
        assert_eq!(ret, 1, "no group names us: allowed");
        w.release();
    };
    for mode in [Mode::Owned, Mode::Fixed] {
        for _ in 0..4 {
            round(&mut w, mode);
        }
    }
    let settled = pages(&w);
    for mode in [Mode::Owned, Mode::Fixed] {
        for _ in 0..12 {
            round(&mut w, mode);
        }
    }
    assert_eq!(
        pages(&w),
        settled,
        "24 more parse-and-free rounds of a {} B body grew the memory",
        body.len()
    );
}
