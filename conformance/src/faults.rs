//! The loopback HTTP server of every test suite and of `wr-feeds attest`'s
//! replica: one implementation, not a copy per crate (issues #11, #12).
//!
//! It speaks raw HTTP/1.1 over `std::net`, because the faults are exactly
//! what a well-behaved server library will not do: never answer, drip the
//! body one octet at a time, reset the connection, close it halfway
//! through the headers, send a header line without a colon. Each
//! connection serves one request (`Connection: close`) on its own thread,
//! so concurrent requests overlap in the log rather than queue unseen.
//!
//! Every request is recorded when its head has been read ([`Request`]:
//! method, host, target, headers, arrival instant) and completed when its
//! answer is ready ([`Exchange`]: the status, and the instant just before
//! the first octet of the answer was written: a serial client cannot send
//! its next request before it). The server counts the requests it is
//! answering at once, so a test can assert one request in flight per host.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the server does with one request.
#[derive(Debug, Clone)]
pub enum Fault {
    /// A well-formed answer.
    Answer {
        /// Status code.
        status: u16,
        /// Extra header lines (`Name: value`).
        headers: Vec<String>,
        /// The body.
        body: Vec<u8>,
    },
    /// Read the request, then send nothing and keep the connection open
    /// for this long.
    NeverAnswer(Duration),
    /// A 200 whose declared body arrives one octet per `every`.
    Drip {
        /// The body.
        body: Vec<u8>,
        /// Pause between octets.
        every: Duration,
    },
    /// Close the connection at once, without a word: the client sees a
    /// reset or an early end of stream.
    Reset,
    /// Send the status line and part of a header, then close.
    CloseEarly,
    /// A 200 with a header line that has no colon.
    MalformedHeader,
    /// A 200 feed whose `Content-Encoding: gzip` body is small on the wire
    /// and expands to `expands_to` zero octets: a client that decompresses
    /// without a limit runs out of memory.
    GzipBomb {
        /// Octets after decompression.
        expands_to: usize,
    },
    /// Wait this long, then do as the inner fault says (a slow server).
    After(Duration, Box<Fault>),
}

impl Fault {
    /// A redirect (`status` 301, 302, 303, 307 or 308) to `location`.
    pub fn redirect(status: u16, location: &str) -> Fault {
        Fault::Answer {
            status,
            headers: vec![format!("Location: {location}")],
            body: Vec::new(),
        }
    }

    /// A well-formed answer with no extra headers.
    pub fn answer(status: u16, body: impl Into<Vec<u8>>) -> Fault {
        Fault::Answer {
            status,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// A well-formed answer with its `Content-Type`.
    pub fn typed(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Fault {
        Fault::Answer {
            status,
            headers: vec![format!("Content-Type: {content_type}")],
            body: body.into(),
        }
    }

    /// This answer with one more header line, when it is an
    /// [`Fault::Answer`] (or one after a delay); other faults are kept.
    pub fn with_header(self, name: &str, value: &str) -> Fault {
        match self {
            Fault::Answer {
                status,
                mut headers,
                body,
            } => {
                headers.push(format!("{name}: {value}"));
                Fault::Answer {
                    status,
                    headers,
                    body,
                }
            }
            Fault::After(delay, inner) => {
                Fault::After(delay, Box::new(inner.with_header(name, value)))
            }
            other => other,
        }
    }

    /// This fault after `delay`.
    pub fn after(self, delay: Duration) -> Fault {
        Fault::After(delay, Box::new(self))
    }

    /// The status the client is sent, if it is sent one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Fault::Answer { status, .. } => Some(*status),
            Fault::Drip { .. } | Fault::MalformedHeader | Fault::GzipBomb { .. } => Some(200),
            Fault::After(_, inner) => inner.status(),
            Fault::NeverAnswer(_) | Fault::Reset | Fault::CloseEarly => None,
        }
    }
}

/// A request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// The method (`GET`).
    pub method: String,
    /// The Host header without its port, lower case; `<tls>` for a TLS
    /// handshake sent to this plain-text server.
    pub host: String,
    /// The request target as sent: path and query.
    pub target: String,
    /// The header lines as sent.
    pub headers: Vec<(String, String)>,
    /// When its head had been read.
    pub at: Instant,
}

impl Request {
    /// A header's value (the first, by case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The path, without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or("")
    }

    /// The query, if any.
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, q)| q)
    }
}

/// One request and what became of it.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// The request.
    pub req: Request,
    /// The status sent, once the answer was ready (`None`: none sent,
    /// or not yet).
    pub status: Option<u16>,
    /// When the answer was ready, just before its first octet was written.
    pub answered: Option<Instant>,
}

type Route = Arc<dyn Fn(&Request) -> Fault + Send + Sync>;

/// Largest request head read.
const MAX_HEAD: usize = 1 << 20;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the serving threads share.
#[derive(Default)]
struct Shared {
    log: Mutex<Vec<Exchange>>,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    stop: AtomicBool,
}

/// The running server, on 127.0.0.1; it stops when dropped.
pub struct FaultServer {
    port: u16,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl FaultServer {
    /// Starts on an ephemeral loopback port; `route` picks the fault for
    /// each request path (with its query).
    pub fn start(route: impl Fn(&str) -> Fault + Send + Sync + 'static) -> FaultServer {
        FaultServer::start_with(move |r: &Request| route(&r.target))
    }

    /// Starts on an ephemeral loopback port; `route` picks the answer for
    /// each request, seeing all of it.
    /// Panics if no loopback port can be bound (tests only; see
    /// [`FaultServer::try_start_with`]).
    pub fn start_with(route: impl Fn(&Request) -> Fault + Send + Sync + 'static) -> FaultServer {
        FaultServer::try_start_with(route).expect("bind a loopback port")
    }

    /// [`FaultServer::start_with`], saying why when no loopback port can
    /// be bound (for `wr-feeds attest`, which must not panic).
    pub fn try_start_with(
        route: impl Fn(&Request) -> Fault + Send + Sync + 'static,
    ) -> std::io::Result<FaultServer> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let shared: Arc<Shared> = Arc::default();
        let route: Route = Arc::new(route);
        let sh = shared.clone();
        let thread = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if sh.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (route, sh) = (route.clone(), sh.clone());
                std::thread::spawn(move || serve(conn, &*route, &sh));
            }
        });
        Ok(FaultServer {
            port,
            shared,
            thread: Some(thread),
        })
    }

    /// The port to connect to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every exchange so far, in order of arrival.
    pub fn exchanges(&self) -> Vec<Exchange> {
        let mut v = lock(&self.shared.log).clone();
        v.sort_by_key(|e| e.req.at);
        v
    }

    /// Every request so far, in order of arrival.
    pub fn requests(&self) -> Vec<Request> {
        self.exchanges().into_iter().map(|e| e.req).collect()
    }

    /// The paths requested so far (with their queries), in order.
    pub fn paths(&self) -> Vec<String> {
        self.requests().into_iter().map(|r| r.target).collect()
    }

    /// Forgets the requests so far (the in-flight peak stays).
    pub fn clear(&self) {
        lock(&self.shared.log).clear();
    }

    /// The most requests it was ever answering at once.
    pub fn peak_in_flight(&self) -> usize {
        self.shared.peak.load(Ordering::SeqCst)
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The request head, up to its blank line; `None` if the connection
/// ended first. A TLS ClientHello (record type 0x16) has no head to wait
/// for: it is answered as the request `TLS <tls>` (host `<tls>`), so a
/// test can answer it in plain text.
fn read_request(conn: &mut TcpStream) -> Option<Request> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let end = loop {
        if buf.first() == Some(&0x16) {
            return Some(Request {
                method: "TLS".into(),
                host: "<tls>".into(),
                target: "<tls>".into(),
                headers: Vec::new(),
                at: Instant::now(),
            });
        }
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        if buf.len() > MAX_HEAD {
            break buf.len();
        }
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let text = String::from_utf8_lossy(&buf[..end]);
    let mut lines = text.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_string();
    let target = first.next().unwrap_or_default().to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let host = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("host"))
        .map(|(_, v)| match v.rsplit_once(':') {
            Some((h, p)) if p.bytes().all(|b| b.is_ascii_digit()) => h.to_ascii_lowercase(),
            _ => v.to_ascii_lowercase(),
        })
        .unwrap_or_default();
    Some(Request {
        method,
        host,
        target,
        headers,
        at: Instant::now(),
    })
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Counts a request in flight for as long as it lives.
struct InFlight<'a>(&'a Shared);

impl<'a> InFlight<'a> {
    fn enter(sh: &'a Shared) -> InFlight<'a> {
        let now = sh.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        sh.peak.fetch_max(now, Ordering::SeqCst);
        InFlight(sh)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

fn serve(mut conn: TcpStream, route: &dyn Fn(&Request) -> Fault, sh: &Shared) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let Some(req) = read_request(&mut conn) else {
        return;
    };
    // The count ends just before the answer's last octet leaves: a client
    // can send its next request only after reading it, so a request that
    // follows an answer is never counted as overlapping it.
    let mut in_flight = Some(InFlight::enter(sh));
    let index = {
        let mut log = lock(&sh.log);
        log.push(Exchange {
            req: req.clone(),
            status: None,
            answered: None,
        });
        log.len() - 1
    };
    let mut fault = route(&req);
    while let Fault::After(delay, inner) = fault {
        std::thread::sleep(delay);
        fault = *inner;
    }
    if let Some(e) = lock(&sh.log).get_mut(index) {
        e.status = fault.status();
        e.answered = Some(Instant::now());
    }
    let _ = answer(&mut conn, fault, &mut || drop(in_flight.take()));
    drop(in_flight.take());
    let _ = conn.flush();
    let _ = conn.shutdown(Shutdown::Write);
}

/// Writes `bytes`, calling `release` just before the last octet goes out.
fn write_releasing(
    conn: &mut TcpStream,
    bytes: &[u8],
    release: &mut dyn FnMut(),
) -> std::io::Result<()> {
    let Some((last, head)) = bytes.split_last() else {
        release();
        return Ok(());
    };
    conn.write_all(head)?;
    release();
    conn.write_all(&[*last])
}

/// Answers with `fault`; `release` ends the request's in-flight count
/// before the client can have read the whole answer (see `serve`).
fn answer(conn: &mut TcpStream, fault: Fault, release: &mut dyn FnMut()) -> std::io::Result<()> {
    match fault {
        Fault::Answer {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
            // A 304 has no body, and says so by having no length.
            if status != 304 {
                head.push_str(&format!("Content-Length: {}\r\n", body.len()));
            }
            for h in headers {
                head.push_str(&h);
                head.push_str("\r\n");
            }
            head.push_str("Connection: close\r\n\r\n");
            let mut all = head.into_bytes();
            if status != 304 {
                all.extend_from_slice(&body);
            }
            write_releasing(conn, &all, release)
        }
        Fault::NeverAnswer(hold) => {
            std::thread::sleep(hold);
            release();
            Ok(())
        }
        Fault::Drip { body, every } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            conn.write_all(head.as_bytes())?;
            let last = body.len().saturating_sub(1);
            for (i, b) in body.into_iter().enumerate() {
                if i == last {
                    release();
                }
                conn.write_all(&[b])?;
                std::thread::sleep(every);
            }
            release();
            Ok(())
        }
        Fault::Reset => {
            release();
            conn.shutdown(Shutdown::Both)
        }
        Fault::CloseEarly => write_releasing(conn, b"HTTP/1.1 200 OK\r\nContent-Ty", release)
            .and_then(|()| conn.shutdown(Shutdown::Both)),
        Fault::MalformedHeader => write_releasing(
            conn,
            b"HTTP/1.1 200 OK\r\nthis is not a header\r\nContent-Length: 0\r\n\r\n",
            release,
        ),
        Fault::GzipBomb { expands_to } => {
            let body = gzip_zeros(expands_to);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            conn.write_all(head.as_bytes())?;
            write_releasing(conn, &body, release)
        }
        Fault::After(delay, inner) => {
            std::thread::sleep(delay);
            answer(conn, *inner, release)
        }
    }
}

/// `n` zero octets, gzip-compressed (about 1 KiB on the wire per MiB).
///
/// Compressed once per size and process: 256 MiB at the best level takes
/// over a second (more on a loaded machine), which a bomb served inside a
/// client's request deadline must not spend there. A test can call this
/// before its run to have the bomb ready.
pub fn gzip_zeros(n: usize) -> Arc<Vec<u8>> {
    static MADE: OnceLock<Mutex<HashMap<usize, Arc<Vec<u8>>>>> = OnceLock::new();
    let made = MADE.get_or_init(Default::default);
    if let Some(b) = lock(made).get(&n) {
        return Arc::clone(b);
    }
    let body = Arc::new(compress_zeros(n));
    Arc::clone(lock(made).entry(n).or_insert(body))
}

fn compress_zeros(n: usize) -> Vec<u8> {
    use flate2::write::GzEncoder;
    use flate2::Compression;
    let mut enc = GzEncoder::new(Vec::new(), Compression::best());
    let chunk = vec![0u8; 1 << 20];
    let mut left = n;
    while left > 0 {
        let k = left.min(chunk.len());
        if enc.write_all(&chunk[..k]).is_err() {
            break;
        }
        left -= k;
    }
    enc.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(port: u16, head: &[u8]) -> String {
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        c.write_all(head).unwrap();
        let mut out = String::new();
        let _ = c.read_to_string(&mut out);
        out
    }

    #[test]
    fn records_each_request_and_when_it_was_answered() {
        let s = FaultServer::start_with(|r| {
            Fault::typed(200, "text/plain", r.target.clone()).after(Duration::from_millis(20))
        });
        let out = get(
            s.port(),
            b"GET /a?b HTTP/1.1\r\nHost: Feed.Test:8080\r\nAccept: x\r\n\r\n",
        );
        assert!(out.starts_with("HTTP/1.1 200 OK\r\n"), "{out}");
        assert!(out.ends_with("\r\n\r\n/a?b"), "{out}");
        let ex = s.exchanges();
        assert_eq!(ex.len(), 1);
        let r = &ex[0].req;
        assert_eq!((r.method.as_str(), r.host.as_str()), ("GET", "feed.test"));
        assert_eq!((r.path(), r.query()), ("/a", Some("b")));
        assert_eq!(r.header("accept"), Some("x"));
        assert_eq!(ex[0].status, Some(200));
        let answered = ex[0].answered.expect("answered");
        assert!(answered >= r.at + Duration::from_millis(20));
        assert_eq!(s.paths(), ["/a?b"]);
        s.clear();
        assert!(s.requests().is_empty());
    }

    #[test]
    fn garbage_is_answered_without_a_panic_and_the_server_keeps_serving() {
        let s = FaultServer::start(|_| Fault::answer(404, ""));
        let _ = get(s.port(), b"\x00\x01 nonsense\r\n\r\n");
        let _ = get(
            s.port(),
            &[0xff, 0xfe, b' ', b'/', b'\r', b'\n', b'\r', b'\n'],
        );
        let out = get(s.port(), b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(out.starts_with("HTTP/1.1 404"), "{out}");
        assert_eq!(s.requests().len(), 3);
    }

    #[test]
    fn counts_the_requests_answered_at_once() {
        // Each answer waits until all three requests are being answered:
        // the peak is three exactly when they were in flight together.
        let all_in = std::sync::Barrier::new(3);
        let s = FaultServer::start(move |_| {
            all_in.wait();
            Fault::answer(200, "")
        });
        let port = s.port();
        let t: Vec<_> = (0..3)
            .map(|_| std::thread::spawn(move || get(port, b"GET / HTTP/1.1\r\n\r\n")))
            .collect();
        for t in t {
            t.join().unwrap();
        }
        assert_eq!(s.peak_in_flight(), 3);
        let one = FaultServer::start(|_| Fault::answer(200, ""));
        let _ = get(one.port(), b"GET / HTTP/1.1\r\n\r\n");
        let _ = get(one.port(), b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(one.peak_in_flight(), 1);
    }
}
