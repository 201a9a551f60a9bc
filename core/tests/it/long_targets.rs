//! Request targets that need percent-normalising are matched from a copy on
//! the stack when it fits (small, large, and past both: a lazy view). The
//! answer must not depend on which route a target's length takes, in either
//! model.
#![cfg(feature = "heapless")]

use wr_core::robots::fixed::FixedPolicy;
use wr_core::robots::Policy;

const BODY: &[u8] = b"User-agent: *\n\
    Allow: /\n\
    Disallow: /*~end$\n\
    Disallow: /*%c3%a9x$\n\
    Disallow: /?q$\n\
    Allow: /*%41*ok\n";

/// Lengths on both sides of every cut-off (256, 1024, 8192 octets of
/// normalised target).
const FILLS: [usize; 9] = [0, 10, 120, 250, 300, 1000, 2000, 5000, 20000];

fn answers(path: &str) -> [bool; 3] {
    let policy = Policy::parse(BODY, "Walsh-Research");
    let small = FixedPolicy::<8, 256>::parse(BODY, "Walsh-Research");
    let big = FixedPolicy::<64, 4096>::parse(BODY, "Walsh-Research");
    assert!(!small.overflowed() && !big.overflowed());
    [
        policy.check(path).allowed,
        small.check(path).allowed,
        big.check(path).allowed,
    ]
}

#[test]
fn decoded_tilde_matches_at_every_length() {
    for n in FILLS {
        let fill = "a".repeat(n);
        assert_eq!(answers(&format!("/{fill}%7Eend")), [false; 3], "{n}");
        assert_eq!(answers(&format!("/{fill}%7eend")), [false; 3], "{n}");
        assert_eq!(answers(&format!("/{fill}%7Eend/")), [true; 3], "{n}");
        assert_eq!(answers(&format!("/{fill}~end")), [false; 3], "{n}");
    }
}

#[test]
fn encoded_non_ascii_matches_at_every_length() {
    for n in FILLS {
        // Each `é` is 2 octets raw and 6 normalised.
        let fill = "é".repeat(n / 6 + 1);
        assert_eq!(answers(&format!("/{fill}x")), [false; 3], "{n}");
        assert_eq!(answers(&format!("/{fill}%C3%A9x")), [false; 3], "{n}");
        assert_eq!(answers(&format!("/{fill}xy")), [true; 3], "{n}");
    }
}

#[test]
fn google_reading_still_applies_to_long_targets() {
    for n in FILLS {
        let fill = "b".repeat(n);
        // `%41` is `A` in the spec's reading, literal in Google's: both
        // allow here, through the longer Allow or through `Allow: /`.
        assert_eq!(answers(&format!("/{fill}A{fill}ok")), [true; 3], "{n}");
        assert_eq!(answers(&format!("/{fill}%41{fill}ok")), [true; 3], "{n}");
    }
}

#[test]
fn target_without_a_path_is_rooted() {
    assert_eq!(answers("?q"), [false; 3]);
    assert_eq!(answers("?qq"), [true; 3]);
    assert_eq!(answers(""), [true; 3]);
}
