//! Issue #11: a 10 MiB feed of 246,000 tiny items took 414 MB (40 times
//! the body) to extract. Peak heap use is measured here with a counting
//! allocator (bytes, not time: no timing in tests) and must stay a small
//! multiple of the body.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = NOW.fetch_add(layout.size(), Ordering::SeqCst) + layout.size();
            PEAK.fetch_max(now, Ordering::SeqCst);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), Ordering::SeqCst);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counters are process-wide: the measurements take turns.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn a_10_mib_feed_of_tiny_items_extracts_in_a_small_multiple_of_its_size() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut body = String::from("<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title><link>https://a.test/</link><description>d</description>\n");
    let mut i = 0;
    while body.len() < 10 << 20 {
        body.push_str(&format!("<item><link>https://a.test/{i}</link></item>\n"));
        i += 1;
    }
    body.push_str("</channel></rss>\n");
    let body = body.into_bytes();
    let before = NOW.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let f = wr_feeds::extract::feed_with_stats(&body, "https://a.test/feed.xml").unwrap();
    let peak = PEAK.load(Ordering::SeqCst) - before;
    assert_eq!(f.entries, i);
    assert_eq!(f.items.len(), wr_feeds::extract::MAX_FEED_ITEMS);
    let ratio = peak as f64 / body.len() as f64;
    eprintln!(
        "{} items, {} bytes, peak {} bytes ({ratio:.2}x)",
        i,
        body.len(),
        peak
    );
    // Before the windowed parse and the cap: about 40x (issue #11 measured
    // 414 MB for 10 MiB of 246,000 items).
    assert!(ratio < 6.0, "peak {peak} bytes is {ratio:.1}x the body");
}

/// The same for JSON Feed: its items are sliced out of the body and read a
/// window at a time (before: 42.8x, measured with this test).
#[test]
fn a_10_mib_json_feed_of_tiny_items_stays_bounded() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut body = String::from(
        "{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"t\",\"items\":[",
    );
    let mut i = 0;
    while body.len() < 10 << 20 {
        if i > 0 {
            body.push(',');
        }
        body.push_str(&format!(
            "{{\"id\":\"{i}\",\"url\":\"https://a.test/{i}\"}}"
        ));
        i += 1;
    }
    body.push_str("]}");
    let body = body.into_bytes();
    let before = NOW.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let f = wr_feeds::extract::feed_with_stats(&body, "https://a.test/feed.json").unwrap();
    let peak = PEAK.load(Ordering::SeqCst) - before;
    assert_eq!(f.entries, i);
    let ratio = peak as f64 / body.len() as f64;
    eprintln!(
        "JSON: {} items, {} bytes, peak {} bytes ({ratio:.2}x)",
        i,
        body.len(),
        peak
    );
    assert_eq!(f.items.len(), wr_feeds::extract::MAX_FEED_ITEMS);
    assert!(ratio < 6.0, "peak {peak} bytes is {ratio:.1}x the body");
}

/// One entry whose HTML title is 10 MiB of escaped `<script>` tags: the text
/// kept of one element is bounded (64 KiB), so reading it costs a
/// fraction of the body, not copies of it (issue #19).
#[test]
fn a_10_mib_title_costs_a_fraction_of_its_size() {
    let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut body = String::from(
        "<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><title type=\"html\">",
    );
    while body.len() < 10 << 20 {
        body.push_str("&lt;script&gt;x&lt;/script&gt;y ");
    }
    body.push_str("</title><link href=\"https://a.test/1\"/></entry></feed>\n");
    let body = body.into_bytes();
    let before = NOW.load(Ordering::SeqCst);
    PEAK.store(before, Ordering::SeqCst);
    let f = wr_feeds::extract::feed_with_stats(&body, "https://a.test/feed.xml").unwrap();
    let peak = PEAK.load(Ordering::SeqCst) - before;
    assert_eq!(f.items.len(), 1);
    assert!(
        f.items[0].title.starts_with("y y y"),
        "{}",
        f.items[0].title
    );
    let ratio = peak as f64 / body.len() as f64;
    eprintln!(
        "title: {} bytes, peak {peak} bytes ({ratio:.3}x)",
        body.len()
    );
    assert!(ratio < 0.1, "peak {peak} bytes is {ratio:.2}x the body");
}
