//! The fleet coordinator (R4a, spec 19): several `wr-feeds` processes,
//! on one machine or many, with one politeness budget per host, kept in
//! Redis.
//!
//! # Why
//!
//! The state directory's lock serialises the processes of one machine.
//! Two machines under one User-Agent each keep their own schedule: the
//! publisher sees twice the load, each robots.txt and the blocklist twice,
//! and neither machine honours the other's `Retry-After`. Spec 9.3 (R4a)
//! says a deployment of several instances MUST add cross-process
//! coordination; section 19 names the backend, "Redis / SQLite token
//! bucket". Redis is what every machine of a group can reach, runs a Lua
//! script atomically, and expires a key on its own (a lease).
//!
//! # What is shared
//!
//! * **Per host** (`wr:host:{HOST}`, a hash): the next instant a request
//!   may start (`slot`), the spacing last used (max(1 s, Crawl-delay)),
//!   every R5 hold (`hold_until`, `hold_cause`, and a server's
//!   `retry_after_until` kept apart, as the local store does), and a
//!   **lease** (`wr:host:{HOST}:lease`, the holder's id, expiring after
//!   the request timeout): at most one request in flight per host in the
//!   fleet, and a machine killed mid-request frees it on expiry.
//! * **Responses** (`wr:resp:{ACCEPT} {URL}`, a hash, expiring after an
//!   hour): what one machine fetched (robots.txt, the blocklist, a feed:
//!   body as capped today, validators, status) is handed to the others
//!   instead of a second request, so robots.txt and the blocklist are
//!   fetched once for the fleet and R8 ("not more than once per hour")
//!   holds for it. Its age travels with it: a robots.txt served from here
//!   is as old as when it was fetched, never "fresh" again.
//!
//! Digests, sources and items stay per machine.
//!
//! # Clocks
//!
//! Every instant in Redis is on Redis's clock (`TIME`, read inside the
//! scripts); what crosses the wire is a *duration* ("wait 1 800 ms", "held
//! for 40 s", "fetched 12 s ago"), which each machine adds to its own
//! clock. Machines whose clocks disagree by an hour still space requests
//! right.
//!
//! # Failures
//!
//! Every call returns [`FleetError`] when Redis does not answer. The
//! pipeline never falls back to local pacing: it defers every remaining
//! target of the run (see `crate::pipeline`). A coordinator that cannot be
//! reached at the start stops the run before anything is fetched.

use crate::store::HoldCause;
use std::time::Duration;
use wr_core::fetch::Response;

/// The longest spacing the scripts are given (about 31 years): Lua's
/// numbers are doubles, and a Crawl-delay of `1e30` (which the robots
/// module reads as `Duration::MAX`) is a host never asked again either
/// way, since every wait past the run's patience defers.
const MAX_MS: u64 = 1 << 50;

/// How long a response stays in the fleet's cache: R8's hour.
pub const RESPONSE_TTL: Duration = Duration::from_secs(3600);

/// Redis did not answer, or answered something this version cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("coordinator {url}: {reason}")]
pub struct FleetError {
    /// The coordinator's URL, without a password.
    pub url: String,
    /// What went wrong.
    pub reason: String,
}

/// The answer to "may this machine send a request to HOST now?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Yes: the lease is this machine's until [`Coordinator::release`] or
    /// [`Coordinator::unused`] (or its expiry).
    Go,
    /// Another request of the fleet is in flight (then `ms` is the
    /// lease's remaining time or the spacing, whichever is shorter) or the
    /// spacing since the last one is not over: ask again in `ms`.
    Wait {
        /// How long from now.
        ms: u64,
    },
    /// An R5 hold of the fleet: nothing goes to the host for `ms`.
    Held {
        /// How long from now.
        ms: u64,
        /// Whose hold it is.
        cause: HoldCause,
    },
}

/// A host the fleet knows, as `status` shows it. Durations are from the
/// coordinator's now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetHost {
    /// The throttle key.
    pub host: String,
    /// The hold still in force, and whose.
    pub held_ms: Option<(u64, HoldCause)>,
    /// A server's `Retry-After` still in force.
    pub retry_after_ms: Option<u64>,
    /// How long until the next request may start (0: now).
    pub next_slot_ms: u64,
    /// Whether a request is in flight (a lease is held).
    pub in_flight: bool,
    /// The last slots taken: (holder, how long ago in ms).
    pub recent: Vec<(String, u64)>,
}

/// What [`Coordinator::lift_hold`] did, in durations from now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FleetLift {
    /// The hold before the reset, if any.
    pub was_ms: Option<u64>,
    /// A server's `Retry-After` kept (no `force`).
    pub kept_ms: Option<u64>,
    /// A server's `Retry-After` that `force` lifted.
    pub forced_ms: Option<u64>,
}

/// Takes a host's slot: a hold of the fleet, then a lease in flight, then
/// the spacing, in that order, on Redis's clock. On "go": the lease is
/// set (PX = the request timeout), the slot moves to now (rounded up to
/// the next millisecond) + spacing (the
/// larger of the caller's and the last one used: a machine that has not
/// yet read the host's Crawl-delay does not shorten it), and the previous
/// slot is kept so that an unused lease can give it back.
const ACQUIRE: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- Slots are written from the millisecond rounded up and compared with the
-- one rounded down: a slot never opens before its spacing is over.
local up = tonumber(t[1]) * 1000 + math.ceil(tonumber(t[2]) / 1000)
local function num(v) if v then return tonumber(v) or 0 end return 0 end
local h = redis.call('HMGET', KEYS[1], 'slot', 'hold_until', 'hold_cause', 'spacing')
local hold = num(h[2])
if hold > now then return {'held', tostring(hold - now), h[3] or 'backoff'} end
local pttl = redis.call('PTTL', KEYS[2])
if pttl == -1 then
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  pttl = tonumber(ARGV[3])
end
if pttl > 0 then return {'wait', tostring(math.min(pttl, math.max(num(ARGV[2]), num(h[4])))), ''} end
local slot = num(h[1])
if slot > now then return {'wait', tostring(slot - now), ''} end
local spacing = math.max(num(ARGV[2]), num(h[4]))
if not h[1] and redis.call('EXISTS', KEYS[5]) == 1 then
  local grace = num(redis.call('GET', KEYS[4])) + num(ARGV[3]) + spacing
  if grace > now then return {'wait', tostring(grace - now), ''} end
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
redis.call('HSET', KEYS[1], 'slot', tostring(up + spacing), 'prev_slot', tostring(slot))
redis.call('PEXPIRE', KEYS[1], math.max(hold, now + spacing) - now + 86400000)
redis.call('LPUSH', KEYS[3], ARGV[1] .. ' ' .. tostring(now))
redis.call('LTRIM', KEYS[3], 0, 9)
redis.call('PEXPIRE', KEYS[3], 86400000)
return {'go', '0', ''}
"#;

/// Joins the fleet's epoch: `wr:epoch` holds the instant (Redis's clock)
/// this Redis first served the fleet, set by whoever comes first. A
/// machine that remembers another epoch (ARGV[1]) knows Redis lost the
/// fleet's state (a restart without persistence): it sets `wr:epoch:lost`,
/// and from then on a host with no slot in Redis waits out, counted from
/// the epoch, the longest a request made before the loss could still
/// occupy it (a lease and a spacing) instead of going at once.
const JOIN: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('SET', KEYS[1], tostring(now), 'NX')
local id = redis.call('GET', KEYS[1])
if ARGV[1] ~= '' and ARGV[1] ~= id then redis.call('SET', KEYS[2], '1') end
return id
"#;

/// The lease was taken but no request went out (the answer came from the
/// fleet's cache, or the machine decided otherwise): the slot goes back to
/// what it was and the lease is dropped, if it is still ours.
const UNUSED: &str = r#"
if redis.call('GET', KEYS[2]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
local prev = redis.call('HGET', KEYS[1], 'prev_slot')
if prev then redis.call('HSET', KEYS[1], 'slot', prev) end
return 1
"#;

/// The request ended: its spacing counts from now (R4, measured
/// conservatively from the end of the exchange, as the local store does),
/// whether or not the lease is still ours; then the lease is dropped if
/// it is (compare-and-delete: an expired lease another machine now holds
/// is not ours to drop).
const RELEASE: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function num(v) if v then return tonumber(v) or 0 end return 0 end
local up = tonumber(t[1]) * 1000 + math.ceil(tonumber(t[2]) / 1000)
local spacing = num(ARGV[2])
local slot = math.max(num(redis.call('HGET', KEYS[1], 'slot')), up + spacing)
redis.call('HSET', KEYS[1], 'slot', tostring(slot), 'spacing', tostring(spacing))
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
return 1
"#;

/// R5: nothing goes to the host for ARGV[1] ms (never shortens a hold; a
/// server's Retry-After is also kept apart).
const HOLD: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function num(v) if v then return tonumber(v) or 0 end return 0 end
local untl = now + num(ARGV[1])
local h = redis.call('HMGET', KEYS[1], 'hold_until', 'retry_after_until')
if untl > num(h[1]) then
  redis.call('HSET', KEYS[1], 'hold_until', tostring(untl), 'hold_cause', ARGV[2])
end
if ARGV[2] == 'retry-after' and untl > num(h[2]) then
  redis.call('HSET', KEYS[1], 'retry_after_until', tostring(untl))
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl >= 0 and ttl < untl - now + 86400000 then
  redis.call('PEXPIRE', KEYS[1], untl - now + 86400000)
end
return 1
"#;

/// `reset HOST` for the fleet: lifts our own holds, keeps a server's
/// Retry-After unless ARGV[1] is '1' (R5). Returns the remaining hold
/// before, the Retry-After kept, and the one forced, in ms (-1: none).
const LIFT: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function num(v) if v then return tonumber(v) or 0 end return 0 end
local h = redis.call('HMGET', KEYS[1], 'hold_until', 'retry_after_until')
local was, server = num(h[1]), num(h[2])
if was <= now then return {-1, -1, -1} end
if server > now and ARGV[1] ~= '1' then
  redis.call('HSET', KEYS[1], 'hold_until', tostring(server), 'hold_cause', 'retry-after')
  return {was - now, server - now, -1}
end
redis.call('HDEL', KEYS[1], 'hold_until', 'hold_cause', 'retry_after_until')
if server > now then return {was - now, -1, server - now} end
return {was - now, -1, -1}
"#;

/// Stores a response with its instant on Redis's clock, for an hour.
const PUT_RESPONSE: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'at', tostring(now), 'status', ARGV[1], 'body', ARGV[2],
  'truncated', ARGV[3])
for i = 4, #ARGV, 2 do
  if ARGV[i + 1] ~= '' then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
redis.call('PEXPIRE', KEYS[1], 3600000)
return 1
"#;

/// A stored response and its age in ms.
const GET_RESPONSE: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local h = redis.call('HMGET', KEYS[1], 'at', 'status', 'body', 'truncated', 'content_type',
  'etag', 'last_modified', 'location', 'cache_control', 'expires', 'date')
if not h[1] then return {} end
h[1] = tostring(math.max(0, now - tonumber(h[1])))
return h
"#;

/// A host's state for `status`, in durations from Redis's now.
const HOST_STATE: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function num(v) if v then return tonumber(v) or 0 end return 0 end
local h = redis.call('HMGET', KEYS[1], 'slot', 'hold_until', 'hold_cause', 'retry_after_until')
local out = {tostring(math.max(0, num(h[1]) - now)), tostring(math.max(0, num(h[2]) - now)),
  h[3] or '', tostring(math.max(0, num(h[4]) - now)),
  tostring(redis.call('EXISTS', KEYS[2]))}
for _, r in ipairs(redis.call('LRANGE', KEYS[3], 0, 9)) do
  local sp = string.find(r, ' [^ ]*$')
  if sp then
    table.insert(out, string.sub(r, 1, sp - 1))
    table.insert(out, tostring(math.max(0, now - num(string.sub(r, sp + 1)))))
  end
end
return out
"#;

fn cause_word(c: HoldCause) -> &'static str {
    match c {
        HoldCause::RetryAfter => "retry-after",
        HoldCause::Backoff => "backoff",
        HoldCause::Cooldown => "cooldown",
    }
}

fn cause_of(word: &str) -> HoldCause {
    match word {
        "retry-after" => HoldCause::RetryAfter,
        "cooldown" => HoldCause::Cooldown,
        _ => HoldCause::Backoff,
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).min(MAX_MS)
}

/// `url` without its password, for messages.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("***"));
            }
            u.to_string()
        }
        Err(_) => crate::extract::clean_message(url),
    }
}

const EPOCH: &str = "wr:epoch";
const EPOCH_LOST: &str = "wr:epoch:lost";

fn host_keys(host: &str) -> [String; 3] {
    [
        format!("wr:host:{{{host}}}"),
        format!("wr:host:{{{host}}}:lease"),
        format!("wr:host:{{{host}}}:recent"),
    ]
}

fn response_key(url: &str, accept: &str) -> String {
    format!("wr:resp:{accept} {url}")
}

/// A connection to the fleet's Redis.
pub struct Coordinator {
    url: String,
    conn: redis::Connection,
    holder: String,
    lease: Duration,
    scripts: Scripts,
}

/// The scripts, hashed once (sent by SHA1, loaded on a Redis that does
/// not know them yet).
struct Scripts {
    acquire: redis::Script,
    unused: redis::Script,
    release: redis::Script,
    hold: redis::Script,
    lift: redis::Script,
    put_response: redis::Script,
    get_response: redis::Script,
    host_state: redis::Script,
    join: redis::Script,
}

impl Scripts {
    fn new() -> Scripts {
        Scripts {
            acquire: redis::Script::new(ACQUIRE),
            unused: redis::Script::new(UNUSED),
            release: redis::Script::new(RELEASE),
            hold: redis::Script::new(HOLD),
            lift: redis::Script::new(LIFT),
            put_response: redis::Script::new(PUT_RESPONSE),
            get_response: redis::Script::new(GET_RESPONSE),
            host_state: redis::Script::new(HOST_STATE),
            join: redis::Script::new(JOIN),
        }
    }
}

impl std::fmt::Debug for Coordinator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator")
            .field("url", &self.url)
            .field("holder", &self.holder)
            .finish_non_exhaustive()
    }
}

impl Coordinator {
    /// Connects to `url` (`redis://host:port/db`) and checks that it
    /// answers. `lease` is how long a slot is held at most (the request
    /// timeout): a machine that dies mid-request frees its host after it.
    /// Every later call waits at most `timeout` for Redis.
    pub fn connect(url: &str, lease: Duration, timeout: Duration) -> Result<Self, FleetError> {
        let shown = redacted(url);
        let err = |e: redis::RedisError| FleetError {
            url: shown.clone(),
            reason: crate::extract::clean_message(&e.to_string()),
        };
        let client = redis::Client::open(url).map_err(err)?;
        let mut conn = client.get_connection_with_timeout(timeout).map_err(err)?;
        conn.set_read_timeout(Some(timeout)).map_err(err)?;
        conn.set_write_timeout(Some(timeout)).map_err(err)?;
        redis::cmd("PING").query::<String>(&mut conn).map_err(err)?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let host = std::env::var("HOSTNAME")
            .ok()
            .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
            .map(|h| crate::extract::clean_message(h.trim()).replace(' ', "_"))
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "machine".into());
        Ok(Coordinator {
            url: shown,
            conn,
            holder: format!("{host}/{}/{nanos:08x}", std::process::id()),
            lease,
            scripts: Scripts::new(),
        })
    }

    /// The URL, without a password.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// This process's id in leases and in `status`'s recent slots.
    pub fn holder(&self) -> &str {
        &self.holder
    }

    fn fail(&self, e: redis::RedisError) -> FleetError {
        FleetError {
            url: self.url.clone(),
            reason: crate::extract::clean_message(&e.to_string()),
        }
    }

    fn odd(&self, what: &str) -> FleetError {
        FleetError {
            url: self.url.clone(),
            reason: format!("unexpected answer to {what}"),
        }
    }

    /// Joins the fleet's epoch (see the `JOIN` script): `remembered` is the epoch
    /// this machine's state directory saw last, if any. Returns the epoch
    /// to remember. A different one means Redis lost the fleet's slots:
    /// each host then waits out a lease and its spacing, once, before its
    /// first request of the new epoch.
    pub fn join(&mut self, remembered: Option<&str>) -> Result<String, FleetError> {
        self.scripts
            .join
            .key(EPOCH)
            .key(EPOCH_LOST)
            .arg(remembered.unwrap_or(""))
            .invoke::<String>(&mut self.conn)
            .map_err(|e| self.fail(e))
    }

    /// May a request go to `host` now? `spacing` is R4's max(1 s,
    /// Crawl-delay) as this machine knows it.
    pub fn acquire(&mut self, host: &str, spacing: Duration) -> Result<Slot, FleetError> {
        let [k, lease, recent] = host_keys(host);
        let r: Vec<String> = self
            .scripts
            .acquire
            .key(k)
            .key(lease)
            .key(recent)
            .key(EPOCH)
            .key(EPOCH_LOST)
            .arg(&self.holder)
            .arg(ms(spacing))
            .arg(ms(self.lease).max(1))
            .invoke(&mut self.conn)
            .map_err(|e| self.fail(e))?;
        let n = |i: usize| r.get(i).and_then(|v| v.parse::<u64>().ok());
        match (r.first().map(String::as_str), n(1)) {
            (Some("go"), _) => Ok(Slot::Go),
            (Some("wait"), Some(ms)) => Ok(Slot::Wait { ms }),
            (Some("held"), Some(ms)) => Ok(Slot::Held {
                ms,
                cause: cause_of(r.get(2).map_or("", String::as_str)),
            }),
            _ => Err(self.odd("the slot script")),
        }
    }

    /// The lease taken for `host` went unused: the slot goes back.
    pub fn unused(&mut self, host: &str) -> Result<(), FleetError> {
        let [k, lease, _] = host_keys(host);
        self.scripts
            .unused
            .key(k)
            .key(lease)
            .arg(&self.holder)
            .invoke::<i64>(&mut self.conn)
            .map(|_| ())
            .map_err(|e| self.fail(e))
    }

    /// The request to `host` ended now: the next may start `spacing` from
    /// now; the lease is dropped.
    pub fn release(&mut self, host: &str, spacing: Duration) -> Result<(), FleetError> {
        let [k, lease, _] = host_keys(host);
        self.scripts
            .release
            .key(k)
            .key(lease)
            .arg(&self.holder)
            .arg(ms(spacing))
            .invoke::<i64>(&mut self.conn)
            .map(|_| ())
            .map_err(|e| self.fail(e))
    }

    /// R5 for the fleet: nothing goes to `host` for `remaining`.
    pub fn hold(
        &mut self,
        host: &str,
        remaining: Duration,
        cause: HoldCause,
    ) -> Result<(), FleetError> {
        let [k, _, _] = host_keys(host);
        self.scripts
            .hold
            .key(k)
            .arg(ms(remaining))
            .arg(cause_word(cause))
            .invoke::<i64>(&mut self.conn)
            .map(|_| ())
            .map_err(|e| self.fail(e))
    }

    /// `reset HOST` for the fleet (a server's Retry-After kept unless
    /// `force`).
    pub fn lift_hold(&mut self, host: &str, force: bool) -> Result<FleetLift, FleetError> {
        let [k, _, _] = host_keys(host);
        let r: Vec<i64> = self
            .scripts
            .lift
            .key(k)
            .arg(if force { "1" } else { "0" })
            .invoke(&mut self.conn)
            .map_err(|e| self.fail(e))?;
        let at = |i: usize| r.get(i).and_then(|&v| u64::try_from(v).ok());
        Ok(FleetLift {
            was_ms: at(0),
            kept_ms: at(1),
            forced_ms: at(2),
        })
    }

    /// A response another machine fetched in the last hour for `url` with
    /// `accept`, and how old it is.
    pub fn cached(
        &mut self,
        url: &str,
        accept: &str,
    ) -> Result<Option<(Response, Duration)>, FleetError> {
        let r: Vec<Option<Vec<u8>>> = self
            .scripts
            .get_response
            .key(response_key(url, accept))
            .invoke(&mut self.conn)
            .map_err(|e| self.fail(e))?;
        if r.is_empty() {
            return Ok(None);
        }
        let text = |i: usize| {
            r.get(i)
                .cloned()
                .flatten()
                .map(|v| String::from_utf8_lossy(&v).into_owned())
        };
        let (Some(age), Some(status)) = (
            text(0).and_then(|a| a.parse::<u64>().ok()),
            text(1).and_then(|s| s.parse::<u16>().ok()),
        ) else {
            return Err(self.odd("a cached response"));
        };
        Ok(Some((
            Response {
                status,
                body: r.get(2).cloned().flatten().unwrap_or_default(),
                truncated: text(3).as_deref() == Some("1"),
                content_type: text(4),
                etag: text(5),
                last_modified: text(6),
                location: text(7),
                retry_after: None,
                // The publisher's hints (issue #23) hold for every machine
                // the answer is served to.
                cache_control: text(8),
                expires: text(9),
                date: text(10),
            },
            Duration::from_millis(age),
        )))
    }

    /// Keeps `response` for the fleet for an hour. Only answers that mean
    /// the same to every machine are kept: no R5 answer (429, 5xx: each
    /// leads to a hold the fleet shares instead) and no 304 (it has no
    /// body).
    pub fn put_cached(
        &mut self,
        url: &str,
        accept: &str,
        response: &Response,
    ) -> Result<(), FleetError> {
        if !shareable(response.status) {
            return Ok(());
        }
        let opt = |v: &Option<String>| v.clone().unwrap_or_default();
        self.scripts
            .put_response
            .key(response_key(url, accept))
            .arg(response.status.to_string())
            .arg(response.body.as_slice())
            .arg(if response.truncated { "1" } else { "0" })
            .arg("content_type")
            .arg(opt(&response.content_type))
            .arg("etag")
            .arg(opt(&response.etag))
            .arg("last_modified")
            .arg(opt(&response.last_modified))
            .arg("location")
            .arg(opt(&response.location))
            .arg("cache_control")
            .arg(opt(&response.cache_control))
            .arg("expires")
            .arg(opt(&response.expires))
            .arg("date")
            .arg(opt(&response.date))
            .invoke::<i64>(&mut self.conn)
            .map(|_| ())
            .map_err(|e| self.fail(e))
    }

    /// Every host the fleet knows, with its holds, next slot and recent
    /// slots.
    pub fn hosts(&mut self) -> Result<Vec<FleetHost>, FleetError> {
        let mut names: Vec<String> = Vec::new();
        let iter: redis::Iter<'_, String> = redis::cmd("SCAN")
            .cursor_arg(0)
            .arg("MATCH")
            .arg("wr:host:{*}")
            .arg("COUNT")
            .arg(500)
            .clone()
            .iter(&mut self.conn)
            .map_err(|e| FleetError {
                url: self.url.clone(),
                reason: e.to_string(),
            })?;
        for key in iter {
            let key = key.map_err(|e| FleetError {
                url: self.url.clone(),
                reason: e.to_string(),
            })?;
            if let Some(h) = key
                .strip_prefix("wr:host:{")
                .and_then(|k| k.strip_suffix('}'))
            {
                names.push(h.to_string());
            }
        }
        names.sort();
        names.dedup();
        let mut out = Vec::with_capacity(names.len());
        for host in names {
            let [k, lease, recent] = host_keys(&host);
            let r: Vec<String> = self
                .scripts
                .host_state
                .key(k)
                .key(lease)
                .key(recent)
                .invoke(&mut self.conn)
                .map_err(|e| self.fail(e))?;
            let n = |i: usize| r.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            let held = n(1);
            let retry = n(3);
            out.push(FleetHost {
                host: crate::extract::clean_message(&host),
                held_ms: (held > 0).then(|| (held, cause_of(r.get(2).map_or("", String::as_str)))),
                retry_after_ms: (retry > 0).then_some(retry),
                next_slot_ms: n(0),
                in_flight: n(4) == 1,
                recent: r
                    .get(5..)
                    .unwrap_or_default()
                    .chunks(2)
                    .filter_map(|c| match c {
                        [who, ago] => {
                            Some((crate::extract::clean_message(who), ago.parse().unwrap_or(0)))
                        }
                        _ => None,
                    })
                    .collect(),
            });
        }
        Ok(out)
    }
}

/// Whether a response with `status` means the same to every machine of
/// the fleet (see [`Coordinator::put_cached`]).
pub fn shareable(status: u16) -> bool {
    (200..500).contains(&status) && status != 304 && status != 429
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_answers_every_machine_reads_alike_are_shared() {
        for s in [200, 203, 301, 404, 410] {
            assert!(shareable(s), "{s}");
        }
        for s in [304, 429, 500, 503, 100] {
            assert!(!shareable(s), "{s}");
        }
    }

    #[test]
    fn a_password_never_reaches_a_message() {
        let r = redacted("redis://user:s3cret@h:6379/2");
        assert!(!r.contains("s3cret"), "{r}");
        assert!(r.contains("h:6379/2"), "{r}");
    }
}
