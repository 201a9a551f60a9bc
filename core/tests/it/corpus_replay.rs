//! Replays the real-world robots.txt corpus against the reference model of
//! the spec's algorithm (`wr-conformance`): for every file, 20 request
//! targets built from the file's own rules, and the R2c invariant that
//! `Policy` never allows a target the model denies (over-blocking is
//! permitted, under-blocking is not). The Crawl-delay `Policy` applies must
//! not be shorter than the model's either.
//!
//! The corpus (4,231 files, see `../shared/corpus/README.md`) is not copied
//! into the project; without it the test replays the 400-file slice the
//! benches keep (`benches/data/robots-slice/`, same source), and says so.
//! Targets are chosen by a small linear congruential generator seeded with
//! the file name, so every run asks the same questions.

use std::path::Path;
use wr_conformance::robots_cases::{toggle_encoding, TOKEN};
use wr_conformance::robots_model::{
    lines, placed_octets_may_differ, LineKind, Model, Options, MAX_BODY,
};
use wr_core::robots::{Policy, MAX_CRAWL_DELAY};

const CORPUS: &str = "../../shared/corpus/robots-real-world";
/// The in-repo slice of the same corpus (see its README).
const SLICE: &str = "../benches/data/robots-slice";

/// Targets asked about per file.
const TARGETS_PER_FILE: usize = 20;

/// A deterministic pseudo-random sequence (Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    /// Seeded with the FNV-1a hash of `name`.
    fn new(name: &str) -> Lcg {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Lcg(h)
    }

    /// A number below `n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// What a `*` of a rule value becomes in a target.
const EXPANSIONS: &[&str] = &[
    "",
    "a",
    "x/y",
    "dir/",
    "page.html",
    "?q=1",
    "%7E",
    "ツ",
    "trackback/",
];

/// What may follow the (possibly cut) rule value in a target.
const SUFFIXES: &[&str] = &[
    "",
    "/",
    "x",
    "/index.html",
    "?q=1",
    ".pdf",
    "%41",
    "ツ",
    "/trackback/",
    "&a=b",
];

/// One target built from `value` (a rule value as written).
fn target_from(value: &[u8], rng: &mut Lcg) -> String {
    let value = String::from_utf8_lossy(value);
    let (body, anchored) = match value.strip_suffix('$') {
        Some(rest) => (rest, true),
        None => (&*value, false),
    };
    let mut t = String::new();
    for (i, piece) in body.split('*').enumerate() {
        if i > 0 {
            t.push_str(rng.pick(EXPANSIONS));
        }
        t.push_str(piece);
    }
    if anchored && rng.chance(20) {
        t.push('$');
    }
    let cut = rng.below(100);
    if cut < 30 {
        // Cut anywhere.
        let mut at = rng.below(t.len() + 1);
        while !t.is_char_boundary(at) {
            at -= 1;
        }
        t.truncate(at);
    } else if cut < 45 {
        // Cut to the directory (`/dir/index.html` asks about `/dir/`),
        // and ask about the directory itself.
        if let Some(slash) = t.rfind('/') {
            t.truncate(slash + 1);
            return t;
        }
    }
    if !anchored || rng.chance(30) {
        t.push_str(rng.pick(SUFFIXES));
    }
    if rng.chance(20) && !t.is_empty() {
        t = toggle_encoding(&t, rng.below(t.len()), rng.chance(50));
    }
    t
}

/// The targets for one file: every other one from the rules the model
/// selected for the token, the rest from any Allow or Disallow of the file.
fn targets(name: &str, body: &[u8], model: &Model) -> Vec<String> {
    let mut rng = Lcg::new(name);
    let selected: Vec<&[u8]> = model.rules().iter().map(|r| r.value.as_slice()).collect();
    let all_lines = lines(body);
    let all: Vec<&[u8]> = all_lines
        .iter()
        .filter(|l| matches!(l.kind, LineKind::Allow | LineKind::Disallow))
        .map(|l| l.value.as_slice())
        .collect();
    (0..TARGETS_PER_FILE)
        .map(|i| {
            let pool = if i % 2 == 0 && !selected.is_empty() {
                &selected
            } else {
                &all
            };
            if pool.is_empty() {
                return rng.pick(SUFFIXES).to_string();
            }
            target_from(rng.pick(pool), &mut rng)
        })
        .collect()
}

#[test]
fn policy_never_allows_what_the_model_denies_on_the_real_world_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join(CORPUS);
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(_) => {
            eprintln!(
                "the robots.txt corpus is absent at {} (it lives beside the project); \
                 replaying the in-repo slice of it instead",
                dir.display()
            );
            std::fs::read_dir(root.join(SLICE))
                .expect("benches/data/robots-slice is in the repository")
        }
    };
    let mut names: Vec<_> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    names.sort();
    let (mut files, mut asked, mut model_denied, mut policy_denied, mut cut) = (0, 0, 0, 0, 0);
    let (mut any_denied, mut over_blocked) = (0, 0);
    let mut violations: Vec<String> = Vec::new();
    let mut delay_violations: Vec<String> = Vec::new();
    for path in &names {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let whole = std::fs::read(path).unwrap();
        // The model is defined up to 500 KiB; a longer body is read as its
        // first 500 KiB by both (section 9.1.1 lets a tool cut it there).
        if whole.len() > MAX_BODY {
            cut += 1;
        }
        let body = &whole[..whole.len().min(MAX_BODY)];
        let model = Model::parse(body, TOKEN);
        // The other readings of the text (issue #18), where they can
        // differ: a denial one of them demands is no over-block.
        let asked_here = targets(&name, body, &model);
        let unicode = body
            .iter()
            .any(|&b| b >= 0x80 || (0x1C..=0x1F).contains(&b));
        let escapes = body.contains(&b'%') || asked_here.iter().any(|t| t.contains('%'));
        let placed = placed_octets_may_differ(body);
        let readings: Vec<Model> = Options::all()
            .skip(1)
            .filter(|o| {
                (unicode || !o.unicode_space)
                    && (escapes || !o.reserved_escapes)
                    && (placed || !o.placed_octets)
            })
            .map(|o| Model::parse_with(body, TOKEN, o))
            .collect();
        let policy = Policy::parse(&whole, TOKEN);
        for target in asked_here {
            let m = model.decide(&target);
            let p = policy.check(&target);
            let any = !m.allowed || readings.iter().any(|r| !r.decide(&target).allowed);
            asked += 1;
            model_denied += usize::from(!m.allowed);
            any_denied += usize::from(any);
            policy_denied += usize::from(!p.allowed);
            over_blocked += usize::from(!p.allowed && !any);
            if any && p.allowed {
                violations.push(format!(
                    "{name}: target {target:?}: a reading of the text denies; Policy: {p:?}"
                ));
                continue;
            }
            if !m.allowed && p.allowed {
                let rule = model
                    .rules()
                    .iter()
                    .find(|r| Some(r.line) == m.line)
                    .map(|r| r.to_string())
                    .unwrap_or_default();
                violations.push(format!(
                    "{name}: target {target:?}: model denies by {rule}; Policy: {p:?}"
                ));
            }
        }
        if let Some(want) = model.crawl_delay() {
            let want = want.min(MAX_CRAWL_DELAY.as_secs_f64());
            let got = policy.crawl_delay().map(|d| d.0.as_secs_f64());
            if got.is_none_or(|got| got + 1e-9 < want) {
                delay_violations.push(format!("{name}: Crawl-delay: Policy {got:?}, model {want}"));
            }
        }
        files += 1;
    }
    let over = over_blocked as f64 * 100.0 / asked.max(1) as f64;
    println!(
        "corpus replay: {files} files ({cut} cut to 500 KiB), {asked} targets; \
         model denies {model_denied} (some reading of the text: {any_denied}), \
         Policy denies {policy_denied}, over-blocks {over_blocked} ({over:.2} %); \
         {} under-blocked targets, {} short Crawl-delays",
        violations.len(),
        delay_violations.len()
    );
    // Issue #18: the strict readings may cost over-blocks, at most 0.5 %
    // of the questions.
    assert!(
        over <= 0.5,
        "over-blocks {over_blocked} of {asked} ({over:.2} %)"
    );
    // The whole corpus, or the whole slice: a folder half read is a bug
    // of this test, not a pass.
    assert!(
        files > 4000 || files == 400,
        "expected the whole corpus (4,231 files) or the slice (400), read {files}"
    );
    let mut report = String::new();
    for v in violations.iter().chain(&delay_violations).take(40) {
        report.push_str(v);
        report.push('\n');
    }
    assert!(
        violations.is_empty() && delay_violations.is_empty(),
        "Policy under-blocks the model on {} targets and shortens {} Crawl-delays; the first:\n{report}",
        violations.len(),
        delay_violations.len()
    );
}
