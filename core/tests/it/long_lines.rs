//! Disallow lines longer than the lexer keeps (`MAX_LINE`) are cut; the cut
//! rule must still deny every path the whole rule denies (R2c), whatever
//! octets the cut lands next to: a literal `$` (which would become an end
//! anchor) or a percent escape (whose decoded octet the path may carry).

use wr_core::robots::lexer::MAX_LINE;
use wr_core::robots::Policy;

const PREFIX: &str = "Disallow: ";

/// A Disallow value whose line is cut right after `at_cut`, followed by
/// `after`, and a path the whole value matches.
fn case(at_cut: &str, after: &str, path_tail: &str) -> (String, String) {
    let mut stem = String::from("/");
    while PREFIX.len() + stem.len() + at_cut.len() < MAX_LINE {
        stem.push('a');
    }
    let value = format!("{stem}{at_cut}{after}");
    assert!(PREFIX.len() + value.len() > MAX_LINE);
    let body = format!("User-agent: *\nAllow: /\n{PREFIX}{value}\n");
    (body, format!("{stem}{path_tail}"))
}

fn cases() -> Vec<(&'static str, String, String)> {
    let mut v = Vec::new();
    for (name, at_cut, after, tail) in [
        ("plain", "b", "bbbb", "bbbbb"),
        ("literal $ at the cut", "$", "bbbb", "$bbbb"),
        ("two literal $ at the cut", "$$", "bbbb", "$$bbbb"),
        ("% of an escape at the cut", "%", "41bb", "Abb"),
        ("%4 of an escape at the cut", "%4", "1bb", "Abb"),
        ("$ then a cut escape", "$%4", "1bb", "$Abb"),
        ("escape cut in a * segment", "*x%7", "eb", "zzx~b"),
    ] {
        let (body, path) = case(at_cut, after, tail);
        v.push((name, body, path));
    }
    v
}

#[test]
fn a_cut_disallow_still_denies_what_the_whole_rule_denies() {
    for (name, body, path) in cases() {
        let p = Policy::parse(body.as_bytes(), "Walsh-Research");
        let v = p.check(&path);
        assert!(!v.allowed, "{name}: {v:?}");
        assert_eq!(v.rule.map(|r| r.line), Some(3), "{name}");
    }
}

#[cfg(feature = "heapless")]
#[test]
fn the_fixed_model_reads_cut_lines_the_same_way() {
    use wr_core::robots::fixed::FixedPolicy;
    for (name, body, path) in cases() {
        let p = FixedPolicy::<4, 65536>::parse(body.as_bytes(), "Walsh-Research");
        assert!(!p.check(&path).allowed, "{name}");
    }
}
