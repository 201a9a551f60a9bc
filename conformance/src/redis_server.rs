//! A throwaway `redis-server` on a loopback port, for the fleet tests
//! (the coordinator of `wr_feeds::fleet`, issue #22).
//!
//! Each test starts its own server (`--save '' --appendonly no`: nothing
//! is written to disk) on a free port and stops it on drop, so tests do
//! not share state and a killed test leaves no file behind.
//!
//! The binary is `$WR_REDIS_SERVER`, else `redis-server` on the `PATH`.
//! When it cannot be started, [`RedisServer::for_test`] says so on
//! standard error and the test skips; with `WR_REQUIRE_REDIS=1` (set by
//! `.ci/run`, which installs the server) it fails instead, so CI never
//! passes a fleet test it did not run.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server`, killed on drop.
#[derive(Debug)]
pub struct RedisServer {
    child: Option<Child>,
    port: u16,
}

fn binary() -> String {
    std::env::var("WR_REDIS_SERVER")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "redis-server".to_string())
}

fn answers_ping(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    if s.write_all(b"PING\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 7];
    s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
}

impl RedisServer {
    /// Starts a server on a free loopback port and waits until it answers
    /// `PING` (at most 10 s), or says why it could not.
    pub fn start() -> Result<RedisServer, String> {
        let bin = binary();
        let mut last = String::new();
        // A free port can be taken between the probe and the start: try
        // a few.
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map_err(|e| format!("no free loopback port: {e}"))?
                .port();
            let child = Command::new(&bin)
                .args(["--port", &port.to_string()])
                .args(["--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .args(["--daemonize", "no", "--loglevel", "warning"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("cannot run {bin}: {e}"))?;
            let mut server = RedisServer {
                child: Some(child),
                port,
            };
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if answers_ping(port) {
                    return Ok(server);
                }
                if let Some(c) = server.child.as_mut() {
                    if let Ok(Some(status)) = c.try_wait() {
                        last = format!("{bin} on port {port} exited: {status}");
                        break;
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            if last.is_empty() {
                last = format!("{bin} on port {port} did not answer PING within 10 s");
            }
            server.stop();
        }
        Err(last)
    }

    /// [`RedisServer::start`] for a test: `None` (after saying why on
    /// standard error) when the server cannot be started, unless
    /// `WR_REQUIRE_REDIS=1`, where it panics with the reason.
    pub fn for_test(test: &str) -> Option<RedisServer> {
        match RedisServer::start() {
            Ok(s) => Some(s),
            Err(e) => {
                let required = std::env::var("WR_REQUIRE_REDIS").is_ok_and(|v| v == "1");
                assert!(
                    !required,
                    "{test}: redis-server is required (WR_REQUIRE_REDIS=1) but {e}"
                );
                eprintln!(
                    "SKIP {test}: redis-server cannot be started ({e}); install it \
                     (apt-get install redis-server) or set WR_REDIS_SERVER to run this test"
                );
                None
            }
        }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `redis://127.0.0.1:PORT/0`.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Kills the server now (a Redis lost mid-run).
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}
