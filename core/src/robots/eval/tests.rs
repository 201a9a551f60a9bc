//! Tests of the evaluator's filters, keys and scan against plain
//! references: each filter may only ever let a match through.

use super::filter::*;
use super::scan::*;
use super::*;
use crate::robots::Policy;

/// The tests' generator: a linear congruential one seeded with `seed`,
/// whose call gives a number below `n`. Each test keeps its own seed, so
/// a failure names its case again.
fn lcg(mut x: u32) -> impl FnMut(u32) -> u32 {
    move |n| {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (x >> 16) % n
    }
}

/// `count` pieces of `alphabet` drawn by `next`, end to end: the values and
/// targets the evaluator's tests build.
fn drawn(
    next: &mut impl FnMut(u32) -> u32,
    alphabet: &[&str],
    count: u32,
) -> alloc::string::String {
    (0..count)
        .map(|_| alphabet[next(alphabet.len() as u32) as usize])
        .collect()
}

/// Asserts that two verdicts are the same one: allowed or not, by the same
/// rule, in the same reading.
fn same_verdict(now: &Verdict<'_>, then: &Verdict<'_>, case: &dyn core::fmt::Debug) {
    assert_eq!(now.allowed, then.allowed, "{case:?}");
    assert_eq!(now.rule, then.rule, "{case:?}");
    assert_eq!(now.reading, then.reading, "{case:?}");
}

/// `decide`'s verdict on `t`, asserted to be the one the walk gives with
/// every form of `t` built and passed (the canonical form, RFC 9309's, and
/// Google's, the target as sent): what each shortcut is held to.
fn decided_as_the_walk_decides<'a>(
    policy: &'a Policy,
    t: &[u8],
    case: &dyn core::fmt::Debug,
) -> Verdict<'a> {
    extern crate std;
    let form = |mut view: percent::Normalized<'_>| {
        let mut out = std::vec::Vec::new();
        while let Some(b) = view.next_byte() {
            out.push(b);
        }
        out
    };
    let now = decide::<_, 256>(policy, t);
    let canon = form(percent::Normalized::new(t));
    let rfc = form(percent::Normalized::rfc(t));
    let walk = evaluate(
        policy,
        Subj::Slice(&canon),
        Some(Subj::Slice(&rfc)),
        Some(Subj::Slice(t)),
    );
    same_verdict(&now, &walk, case);
    now
}

#[test]
fn byte_sets_never_reject_a_match() {
    extern crate std;
    use std::vec::Vec;
    let mut next = lcg(5);
    let mut matched = 0;
    for _ in 0..3000 {
        // Some subjects lack `$` and `*`.
        let alphabet = if next(2) == 0 { 3 } else { 5 };
        let subject: Vec<u8> = (0..ByteSet::MIN_SUBJECT as u32 + next(64))
            .map(|_| b"/ab$*"[next(alphabet) as usize])
            .collect();
        let set = ByteSet::of(Subj::Slice(&subject)).expect("long enough");
        for b in 0..=255u8 {
            assert_eq!(set.has(b), subject.contains(&b));
        }
        let pattern: Vec<u8> = (0..next(12)).map(|_| b"/ab$*c"[next(6) as usize]).collect();
        if matcher::matches(&pattern, subject.as_slice()) {
            matched += 1;
            assert!(after_stars(&pattern).all(|b| set.has(b)), "{pattern:?}");
            let mut lazy = LazySet::NEW;
            assert!(lazy.may_match(&pattern, Subj::Slice(&subject)));
        }
    }
    assert!(matched > 100, "{matched}");
    let short = ByteSet::of(Subj::Slice(b"/short"));
    assert!(short.is_none());
    let firsts: Vec<u8> = after_stars(b"/a*b**c*$x*$").collect();
    assert_eq!(firsts, b"bc$");
    assert_eq!(after_stars(b"/a*$").count(), 0);
    assert_eq!(after_stars(b"/a*b*c").collect::<Vec<u8>>(), b"bc");
}

#[test]
fn second_keys_never_reject_a_match() {
    extern crate std;
    use std::vec::Vec;
    let mut next = lcg(7);
    let mut matched = 0;
    for _ in 0..20_000 {
        let subject: Vec<u8> = (0..next(24)).map(|_| b"/ab"[next(3) as usize]).collect();
        // A pattern that often matches: a prefix of the subject with
        // some octets turned into `*`, sometimes anchored.
        let mut pattern: Vec<u8> = subject[..next(subject.len() as u32 + 1) as usize]
            .iter()
            .map(|&b| if next(6) == 0 { b'*' } else { b })
            .collect();
        if next(4) == 0 {
            pattern.push(b'$');
        }
        let body = match pattern.split_last() {
            Some((b'$', rest)) => rest,
            _ => &pattern[..],
        };
        let lit: Vec<u8> = body.iter().copied().take_while(|&b| b != b'*').collect();
        let want = Key::from_octets(lit.iter().copied().skip(Key::MAX).take(Key::MAX));
        assert_eq!(Key::of_pattern_tail(&pattern), want, "{pattern:?}");
        assert_eq!(
            Key::pair_of_pattern(&pattern),
            (Key::of_pattern(&pattern), want),
            "{pattern:?}"
        );
        let head = Subj::Slice(&subject).head();
        let view = Subj::View(percent::Normalized::new(&subject)).head();
        assert_eq!(head, view);
        if matcher::matches(&pattern, subject.as_slice()) {
            matched += 1;
            let (k1, k2) = (Key::of_pattern(&pattern), Key::of_pattern_tail(&pattern));
            assert!(head.admits(k1, k2), "{pattern:?} {subject:?}");
        }
    }
    assert!(matched > 1000, "{matched}");
}

#[test]
fn target_tests_agree_with_percent() {
    extern crate std;
    use std::vec::Vec;
    let mut next = lcg(9);
    let mut canonical = 0;
    for _ in 0..20_000 {
        // Mostly plain octets, with now and then any octet at all.
        let t: Vec<u8> = (0..next(40))
            .map(|_| match next(16) {
                0 => next(256) as u8,
                1 => b"?:/#[]@%"[next(8) as usize],
                2 => b"\"'`{}<>|~="[next(10) as usize],
                _ => b"/ab=&.-"[next(7) as usize],
            })
            .collect();
        let plain_ref = !t
            .iter()
            .any(|&b| b == b'%' || !(0x21..=0x7a).contains(&b) || b"\"'`<>".contains(&b));
        let want = Scan {
            plain: plain_ref,
            query: t.contains(&b'?'),
        };
        assert_eq!(Scan::of(&t), want, "{t:?}");
        // A plain target is its own canonical form.
        assert!(!want.plain || percent::is_canonical(&t), "{t:?}");
        assert_eq!(rfc_differs(&t), percent::rfc_differs(&t), "{t:?}");
        let Scan { plain, query } = Scan::of(&t);
        // Whatever `decide` sends to the plain path needs no form.
        if plain && !query {
            assert!(!percent::has_special(&t), "{t:?}");
        }
        canonical += usize::from(plain);
    }
    assert!(canonical > 1000, "{canonical}");
    for b in 0..=255u8 {
        let t = [b'/', b'a', b'b', b'c', b'd', b'e', b'f', b'g', b'h', b];
        for t in [&t[..], &t[2..], &t[6..]] {
            let plain = !(b == b'%' || !(0x21..=0x7a).contains(&b) || b"\"'`<>".contains(&b));
            let want = Scan {
                plain,
                query: t.contains(&b'?'),
            };
            assert_eq!(Scan::of(t), want, "{b}");
        }
    }
}

#[test]
fn star_needs_never_reject_a_match() {
    extern crate std;
    use std::vec::Vec;
    let mut next = lcg(13);
    // Octets of distinct classes, and octets sharing one (`.` and `N`,
    // `/` and `O`, `a` and `A`), with `*` and `$`.
    let alphabet = b"/ab.NOA1*$";
    let (mut matched, mut rejected) = (0, 0);
    for _ in 0..50_000 {
        let subject: Vec<u8> = (0..next(40)).map(|_| alphabet[next(8) as usize]).collect();
        let pattern: Vec<u8> = (0..next(10)).map(|_| alphabet[next(10) as usize]).collect();
        let set = classes_of_target(&subject);
        assert_eq!(set, classes(&subject), "{subject:?}");
        let need = star_need(&pattern);
        let mut lazy = LazySet::NEW;
        let admitted = lazy.has_classes(need, Subj::Slice(&subject));
        assert_eq!(admitted, need & !set == 0);
        if matcher::matches(&pattern, subject.as_slice()) {
            matched += 1;
            assert!(admitted, "{pattern:?} {subject:?}");
        } else if !admitted {
            rejected += 1;
        }
    }
    assert!(matched > 1000 && rejected > 1000, "{matched} {rejected}");
    // The octets after the first `*`, not the `*`s nor a final `$`.
    assert_eq!(star_need(b"/a*b"), classes(b"b"));
    assert_eq!(star_need(b"/*.pdf$"), classes(b".pdf"));
    assert_eq!(star_need(b"/a*$"), 0);
    assert_eq!(star_need(b"/a*$x*"), classes(b"$x"));
    assert_eq!(star_need(b"/abc"), 0);
    assert_eq!(class(b'a'), class(b'A'));
    assert_ne!(class(b'.'), class(b'n'));
    assert_ne!(class(b'0'), class(b'p'));
}

#[cfg(feature = "alloc")]
#[test]
fn policies_list_every_star_need() {
    extern crate std;
    use std::format;
    use std::string::String;
    let mut body = String::from("User-agent: *\n");
    let values = [
        "/*.pdf",
        "/*",
        "/a*",
        "/a*b",
        "*/x/*y*",
        "/abcdefg*h",
        "/abcdefgh*",
        "/abcdefghijklm*n",
        "/abcdefghijklmn*o",
        "/abcdefghijklmnopq*r",
        "/plain",
        "/x$",
        "/*.php$",
        "/a%41*%42",
        "/abcdefghijklmn",
        "/abcdefghijklm*",
    ];
    for v in values {
        body.push_str(&format!("Disallow: {v}\n"));
    }
    let policy = Policy::parse(body.as_bytes(), "bot");
    let rules = &policy;
    let mut listed = 0;
    for i in 0..rules.len() {
        let spec = rules.view(i).spec;
        // Listed when the first `*` is among the first key's octets.
        let want = match spec.iter().position(|&b| b == b'*') {
            Some(at) if at < Key::MAX => star_need(spec),
            _ => 0,
        };
        let got = (0..)
            .map_while(|k| rules.star_need(k))
            .find(|&(j, _)| j == i)
            .map_or(0, |(_, need)| need);
        assert_eq!(got, want, "{:?}", rules.view(i).text);
        listed += usize::from(want != 0);
    }
    assert_eq!(listed, 5);
}

#[test]
fn head_tables_are_the_key_test() {
    let mut next = lcg(3);
    let mut admitted = 0;
    for _ in 0..50_000 {
        // Octets from a small alphabet (with NUL and 0xFF, which a
        // table entry's filler must not pass for) so that keys often
        // agree.
        let mut octets = |n: u32| -> ([u8; 7], usize) {
            let len = next(n) as usize;
            let mut o = [0u8; 7];
            for b in &mut o[..len] {
                *b = b"/a\0\xff"[next(4) as usize];
            }
            (o, len)
        };
        let (s, sn) = octets(8);
        let (p, pn) = octets(8);
        let (s2, sn2) = octets(8);
        let (p2, pn2) = octets(8);
        let head = Head::new(Key::of_slice(&s[..sn]), Key::of_slice(&s2[..sn2]));
        let (k1, k2) = (Key::of_slice(&p[..pn]), Key::of_slice(&p2[..pn2]));
        assert_eq!(head.admits1(k1), k1.admits(head.k1), "{p:?} {s:?}");
        let want = k1.admits(head.k1) && k2.admits(head.k2);
        assert_eq!(head.admits(k1, k2), want);
        assert_eq!(head.admits_with(&Head::table(head.k2), k1, k2), want);
        admitted += usize::from(want);
    }
    assert!(admitted > 1000, "{admitted}");
}

#[test]
fn keys_never_reject_a_match() {
    let head = |s: &[u8]| {
        let k = Key::of_slice(s);
        assert_eq!(k, Key::from_octets(s.iter().copied()));
        k
    };
    let k = |p: &[u8]| {
        let body = match p.split_last() {
            Some((b'$', rest)) => rest,
            _ => p,
        };
        let want = Key::from_octets(body.iter().copied().take_while(|&b| b != b'*'));
        assert_eq!(Key::of_pattern(p), want, "{p:?}");
        want
    };
    // Literal octets before the first `*`, at most 7 of them.
    assert!(k(b"/abc").admits(head(b"/abcdef")));
    assert!(!k(b"/abc").admits(head(b"/abd")));
    assert!(!k(b"/abc").admits(head(b"/ab")));
    assert!(k(b"/abcdefghij").admits(head(b"/abcdefXYZ")));
    assert!(!k(b"/abcdefghij").admits(head(b"/abcdeXghij")));
    // `*` and a final `$` end the literal part; an inner `$` does not.
    assert!(k(b"*x").admits(head(b"")));
    assert!(k(b"/a*x").admits(head(b"/a")));
    assert!(k(b"/a$").admits(head(b"/a")));
    assert!(!k(b"/a$b").admits(head(b"/a")));
    assert!(k(b"/a$b").admits(head(b"/a$bc")));
    assert!(k(b"$").admits(head(b"")));
    assert!(k(b"").admits(head(b"")));
    // A NUL octet is compared, not taken for padding.
    assert!(!k(b"/\0").admits(head(b"/")));
    assert!(k(b"/\0").admits(head(b"/\0x")));
    assert!(!k(b"/").admits(head(b"")));
    // Every place of a `*` (or none) around the 7-octet window.
    for len in 0..20 {
        for star in 0..=len {
            let mut p: [u8; 20] = *b"/abcdefghijklmnopqrs";
            if star < len {
                p[star] = b'*';
            }
            k(&p[..len]);
            assert_eq!(
                Key::pair_of_pattern(&p[..len]),
                (Key::of_pattern(&p[..len]), Key::of_pattern_tail(&p[..len]))
            );
            let mut anchored = [0u8; 21];
            anchored[..len].copy_from_slice(&p[..len]);
            anchored[len] = b'$';
            k(&anchored[..=len]);
            let a = &anchored[..=len];
            assert_eq!(
                Key::pair_of_pattern(a),
                (Key::of_pattern(a), Key::of_pattern_tail(a))
            );
        }
    }
}

/// The keys of a pattern read from a window that goes on past it are the
/// pattern's own, whatever follows: a `*`, a `$` or any octet after its
/// end changes neither key (`model::push_value` reads values so).
#[test]
fn keys_read_from_a_window_are_the_patterns_own() {
    let mut next = lcg(11);
    let alphabet = b"/ab*$%\0\xff";
    for _ in 0..50_000 {
        let mut window = [0u8; 40];
        let window = &mut window[..next(41) as usize];
        for b in window.iter_mut() {
            *b = alphabet[next(alphabet.len() as u32) as usize];
        }
        let len = next(window.len() as u32 + 1) as usize;
        let pattern = &window[..len];
        assert_eq!(
            Key::pair_of_prefix(window, len),
            Key::pair_of_pattern(pattern),
            "{window:?} {len}"
        );
        assert_eq!(
            Key::pair_of_pattern(pattern),
            (Key::of_pattern(pattern), Key::of_pattern_tail(pattern)),
            "{pattern:?}"
        );
    }
}

/// A target whose canonical form is itself goes to `evaluate_own`, as a
/// plain one does: the verdict must be the one its forms give when each
/// is passed as it was before (the canonical form, and Google's, the
/// target as sent).
#[test]
fn own_canonical_targets_are_judged_as_their_forms_would_be() {
    extern crate std;
    use std::{format, string::String};
    let mut next = lcg(11);
    // Escapes in both cases, of reserved, unreserved and non-ASCII octets;
    // raw octets some form encodes; wildcards.
    const PIECES: &[&str] = &[
        "/", "a", "%E6", "%e6", "%41", "%2F", "%7B", "{", "~", " ", "é", "*", "?", "=",
    ];
    let mut judged = 0;
    let mut denied = 0;
    for _ in 0..2_000 {
        let mut body = String::from("User-agent: *\n");
        for _ in 0..1 + next(6) {
            let kind = if next(2) == 0 { "Allow" } else { "Disallow" };
            let count = 1 + next(5);
            let value = drawn(&mut next, PIECES, count);
            let anchor = if next(4) == 0 { "$" } else { "" };
            body.push_str(&format!("{kind}: /{value}{anchor}\n"));
        }
        let policy = Policy::parse(body.as_bytes(), "bot");
        for _ in 0..20 {
            let count = next(6);
            let t = format!("/{}", drawn(&mut next, &PIECES[..PIECES.len() - 1], count));
            let t = t.as_bytes();
            if !percent::is_own_canonical(t) || rfc_differs(t) {
                continue;
            }
            judged += 1;
            let now = decide::<_, 256>(&policy, t);
            let forms = evaluate(&policy, Subj::Slice(t), None, Some(Subj::Slice(t)));
            denied += usize::from(!now.allowed);
            same_verdict(&now, &forms, &(&body, &t));
        }
    }
    assert!(
        judged > 5_000 && denied > 500,
        "{judged} judged, {denied} denied"
    );
}

/// In a file whose rules hold no `*` and no `?`, a target's RFC 9309 form
/// is not built (`RuleSet::query_blind`): the verdict must be the one the
/// built forms give.
#[test]
fn query_blind_files_judge_as_the_built_forms_do() {
    extern crate std;
    use std::{format, string::String};
    let mut next = lcg(13);
    // `?` and `*` in some files, so that some are not query-blind.
    const RULE: &[&str] = &[
        "/", "a", "b", "/a", "%2F", "=", ":", "@", "é", " ", "?", "*",
    ];
    const TARGET: &[&str] = &["/", "a", "b", "?", "=", ":", "@", "%2F", "#", "[", "é"];
    let (mut judged, mut denied, mut blind) = (0, 0, 0);
    for _ in 0..2_000 {
        let mut body = String::from("User-agent: *\n");
        for _ in 0..1 + next(6) {
            let kind = if next(2) == 0 { "Allow" } else { "Disallow" };
            // A rule in three may draw `?` and `*` too.
            let pieces = if next(3) == 0 { 0 } else { 2 };
            let count = next(5);
            let value = drawn(&mut next, &RULE[..RULE.len() - pieces], count);
            let anchor = if next(5) == 0 { "$" } else { "" };
            body.push_str(&format!("{kind}: /{value}{anchor}\n"));
        }
        let policy = Policy::parse(body.as_bytes(), "bot");
        blind += usize::from((&policy).query_blind());
        for _ in 0..20 {
            let count = next(8);
            let t = format!("/{}", drawn(&mut next, TARGET, count));
            let t = t.as_bytes();
            judged += 1;
            let now = decided_as_the_walk_decides(&policy, t, &(&body, &t));
            denied += usize::from(!now.allowed);
        }
    }
    assert!(
        (500..1_900).contains(&blind) && denied > 3_000,
        "{blind} blind files, {judged} judged, {denied} denied"
    );
}

/// A rule's view says it is a literal only when its canonical form holds
/// no `*` and ends in no `$` (its span is then taken without the
/// matcher), and says so for most short literals.
#[test]
fn literal_views_are_literals() {
    extern crate std;
    use std::format;
    let mut next = lcg(17);
    const PIECES: &[&str] = &["/", "a", "bc", "*", "$", "%2f", "é", "defghij"];
    let mut literal = 0;
    for _ in 0..3_000 {
        let count = next(8);
        let value = drawn(&mut next, PIECES, count);
        let body = format!("User-agent: *\nDisallow: /{value}\n");
        let policy = Policy::parse(body.as_bytes(), "bot");
        let Some(i) = (0..(&policy).len()).next() else {
            continue;
        };
        let r = (&policy).view(i);
        let is_literal = !r.spec.contains(&b'*') && r.spec.last() != Some(&b'$');
        if r.literal {
            literal += 1;
            assert!(is_literal, "{:?}", r.spec);
            assert_eq!(
                matcher::match_span(r.spec, Subj::Slice(r.spec)),
                Some((r.spec.len(), r.spec.len()))
            );
        }
        assert!(
            !is_literal || r.spec.len() > 2 * Key::MAX || r.literal,
            "{:?}",
            r.spec
        );
    }
    assert!(literal > 300, "{literal}");
}

/// A file whose rules are all prefixes is judged by `prefixes::evaluate`
/// (for a target that is its own form in every reading): the verdict must
/// be the walk's with every form built, in every reading's selection (a
/// named group the spec selects and Google does not), with rules that have
/// forms of their own (a raw space or brace, which Google keeps and the
/// canonical form encodes; a delimiter after a `?`), ties, and rules longer
/// than the keys.
#[test]
fn prefix_files_judge_as_the_walk_does() {
    extern crate std;
    use std::{format, string::String};
    let mut next = lcg(19);
    // The last two make a file the walk's alone.
    const RULE: &[&str] = &[
        "/",
        "a",
        "b",
        "ab",
        "/a",
        "%41",
        " ",
        "{",
        "é",
        "?",
        "=",
        ":",
        "defghijklmnop",
        "*",
        "$",
    ];
    const TARGET: &[&str] = &[
        "/",
        "a",
        "b",
        "ab",
        "?",
        "=",
        ":",
        "%20",
        "%7B",
        "é",
        "defghijklmnop",
    ];
    let (mut files, mut prefix_files, mut own_form_files) = (0, 0, 0);
    let (mut judged, mut denied, mut google_denied) = (0, 0, 0);
    for _ in 0..3_000 {
        let mut body = String::new();
        for group in 0..1 + next(3) {
            let agent = if group == 1 { "bo" } else { "*" };
            body.push_str(&format!("User-agent: {agent}\n"));
            for _ in 0..1 + next(6) {
                let kind = if next(2) == 0 { "Allow" } else { "Disallow" };
                // A rule in twenty may draw `*` or `$`.
                let pieces = if next(20) == 0 { 0 } else { 2 };
                let count = next(4);
                let value = drawn(&mut next, &RULE[..RULE.len() - pieces], count);
                body.push_str(&format!("{kind}: /{value}\n"));
            }
        }
        let policy = Policy::parse(body.as_bytes(), "bot");
        files += 1;
        if !(&policy).prefixes_only() {
            continue;
        }
        prefix_files += 1;
        own_form_files += usize::from((&policy).own_form_rule(0).is_some());
        for _ in 0..20 {
            let count = next(6);
            let t = format!("/{}", drawn(&mut next, TARGET, count));
            let t = t.as_bytes();
            judged += 1;
            let now = decided_as_the_walk_decides(&policy, t, &(&body, &t));
            denied += usize::from(!now.allowed);
            google_denied += usize::from(!now.allowed && now.reading == Reading::Google);
        }
    }
    assert!(
        prefix_files > files * 2 / 3
            && (300..prefix_files - 300).contains(&own_form_files)
            && denied > 10_000
            && google_denied > 2_000,
        "{prefix_files} of {files} files, {own_form_files} with own forms; \
         {judged} judged, {denied} denied, {google_denied} by Google's reading"
    );
}
