//! A loopback HTTP server that misbehaves on purpose, for the fault tests
//! of every crate (issue #11): one implementation, not a copy per crate.
//!
//! It speaks raw HTTP/1.1 over `std::net`, because the faults are exactly
//! what a well-behaved server library will not do: never answer, drip the
//! body one octet at a time, reset the connection, close it halfway
//! through the headers, send a header line without a colon. Each
//! connection serves one request; the answer is chosen by a function of
//! the request's path, and every request line is logged.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
}

/// The running server.
pub struct FaultServer {
    port: u16,
    log: Arc<Mutex<Vec<String>>>,
}

impl FaultServer {
    /// Starts on an ephemeral loopback port; `route` picks the fault for
    /// each request path (with its query).
    pub fn start(route: impl Fn(&str) -> Fault + Send + Sync + 'static) -> FaultServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("local address").port();
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let route = Arc::new(route);
        let l = log.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                let (route, log) = (route.clone(), l.clone());
                std::thread::spawn(move || serve(conn, &*route, &log));
            }
        });
        FaultServer { port, log }
    }

    /// The port to connect to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every request line received so far (`GET /path HTTP/1.1`).
    pub fn requests(&self) -> Vec<String> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// The paths requested so far, in order.
    pub fn paths(&self) -> Vec<String> {
        self.requests()
            .iter()
            .filter_map(|l| l.split(' ').nth(1).map(str::to_string))
            .collect()
    }
}

fn serve(mut conn: TcpStream, route: &dyn Fn(&str) -> Fault, log: &Mutex<Vec<String>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // Up to the end of the request head (no request here has a body). A
    // TLS ClientHello (record type 0x16) has no head to wait for: it is
    // routed as the path `<tls>`, so a test can answer it in plain text.
    while !buf.windows(4).any(|w| w == b"\r\n\r\n")
        && buf.len() < 1 << 20
        && buf.first() != Some(&0x16)
    {
        match conn.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let line = if buf.first() == Some(&0x16) {
        "TLS <tls>".to_string()
    } else {
        String::from_utf8_lossy(&buf)
            .lines()
            .next()
            .unwrap_or_default()
            .to_string()
    };
    if let Ok(mut l) = log.lock() {
        l.push(line.clone());
    }
    let path = line.split(' ').nth(1).unwrap_or("/");
    let _ = match route(path) {
        Fault::Answer {
            status,
            headers,
            body,
        } => {
            let mut head = format!("HTTP/1.1 {status} X\r\nContent-Length: {}\r\n", body.len());
            for h in headers {
                head.push_str(&h);
                head.push_str("\r\n");
            }
            head.push_str("Connection: close\r\n\r\n");
            conn.write_all(head.as_bytes())
                .and_then(|()| conn.write_all(&body))
        }
        Fault::NeverAnswer(hold) => {
            std::thread::sleep(hold);
            Ok(())
        }
        Fault::Drip { body, every } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            conn.write_all(head.as_bytes()).and_then(|()| {
                for b in body {
                    conn.write_all(&[b])?;
                    std::thread::sleep(every);
                }
                Ok(())
            })
        }
        Fault::Reset => conn.shutdown(Shutdown::Both),
        Fault::CloseEarly => conn
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Ty")
            .and_then(|()| conn.shutdown(Shutdown::Both)),
        Fault::MalformedHeader => {
            conn.write_all(b"HTTP/1.1 200 OK\r\nthis is not a header\r\nContent-Length: 0\r\n\r\n")
        }
        Fault::GzipBomb { expands_to } => {
            let body = gzip_zeros(expands_to);
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            conn.write_all(head.as_bytes())
                .and_then(|()| conn.write_all(&body))
        }
    };
}

/// `n` zero octets, gzip-compressed (about 1 KiB on the wire per MiB).
pub fn gzip_zeros(n: usize) -> Vec<u8> {
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
