//! Pure ordering of serial work across hosts (no I/O, no clock).
//!
//! The pipeline is strictly serial (R4: one request at a time), but it
//! should not idle while one host's slot is not yet free: a ready request
//! to another host goes first, so a run over many hosts costs about the
//! sum of the request times, not the sum of the waits. Each *job* (one
//! source's chain of requests: robots.txt, the target, redirect hops,
//! retries, fallbacks) is sequential on its own, so the order of one URL's
//! gates never changes; only whole jobs are interleaved.
//!
//! # Which ready job goes first
//!
//! Taking turns in order of readiness is not enough: when one host carries
//! many sources (or a long Crawl-delay), its chain of spacings is the
//! bottleneck, and every turn given to another host while the bottleneck's
//! slot is free stretches the run. So a job may name the host its next
//! request goes to and that host's spacing ([`Schedule::push_on`]); among
//! the ready jobs, the one whose host has the **longest remaining chain**
//! (the sum of the spacings of that host's queued jobs) goes first, then
//! the one ready longest, then the first pushed. On the benchmark's
//! workloads this keeps a run within a few percent of the lower bound where
//! plain first-ready order was up to 24% over (docs/performance.md).
//!
//! The caller may also say when a host's slot frees
//! ([`Schedule::host_free_at`]): its queued jobs then count as ready only
//! from that instant, so a slot taken by one job does not wake every other
//! job of that host just to hear "wait" from the gate (one gate evaluation
//! is one store transaction in the pipeline).
//!
//! None of this is a gate. The schedule only proposes an order; every step
//! still asks the gate (R3 -> R2 -> R4), so a wrong hint costs time, never
//! a rule.
//!
//! # API (also used by the benches with a virtual clock)
//!
//! ```
//! use wr_feeds::schedule::{Next, Schedule};
//! use wr_core::time::Timestamp;
//!
//! let mut s = Schedule::new();
//! s.push("a", Timestamp(0));      // ready now
//! s.push("b", Timestamp(1_000));  // its host's slot frees at t = 1 s
//! assert_eq!(s.next(Timestamp(0)), Next::Run("a"));
//! assert_eq!(s.next(Timestamp(0)), Next::Sleep(Timestamp(1_000)));
//! assert_eq!(s.next(Timestamp(1_000)), Next::Run("b"));
//! assert_eq!(s.next(Timestamp(1_000)), Next::Idle);
//! ```
//!
//! * [`Schedule::push`]`(job, ready_at)` queues a job that may run at
//!   `ready_at` (the `until` of the gate's `Decision::Wait`, or "now");
//!   [`Schedule::push_on`] does the same and names the job's host.
//! * [`Schedule::next`]`(now)` removes and returns the ready job that goes
//!   first (see above), or says how long to sleep ([`Next::Sleep`]) or that
//!   nothing is left ([`Next::Idle`]). The caller steps the job (at most
//!   one request) and pushes it back with its next `ready_at` unless it
//!   finished.
//! * [`simulate`] runs a whole workload against a virtual clock and
//!   returns the makespan: handy to compare with naive serial waiting.

use std::collections::HashMap;
use std::time::Duration;
use wr_core::time::Timestamp;

/// What to do next: the driver loop's own answer
/// ([`wr_core::fetch::driver::drive`] asks the scheduler for it).
pub use wr_core::fetch::driver::Next;

#[derive(Debug, Clone)]
struct Entry<K> {
    ready_at: Timestamp,
    seq: u64,
    job: K,
    /// Index into `Schedule::hosts`, and this entry's share of its chain.
    host: Option<(usize, u64)>,
}

#[derive(Debug, Clone, Default)]
struct HostLoad {
    /// Sum of the spacings (ms) of this host's queued jobs.
    chain: u64,
    /// When the caller last said this host's slot frees.
    free_at: Option<Timestamp>,
}

/// The queue of jobs waiting to take a step.
#[derive(Debug, Clone)]
pub struct Schedule<K> {
    entries: Vec<Entry<K>>,
    seq: u64,
    host_index: HashMap<String, usize>,
    hosts: Vec<HostLoad>,
}

impl<K> Default for Schedule<K> {
    fn default() -> Self {
        Schedule {
            entries: Vec::new(),
            seq: 0,
            host_index: HashMap::new(),
            hosts: Vec::new(),
        }
    }
}

impl<K> Schedule<K> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues `job`, runnable from `ready_at`, with no host named: it takes
    /// its turn by readiness only.
    pub fn push(&mut self, job: K, ready_at: Timestamp) {
        self.seq += 1;
        self.entries.push(Entry {
            ready_at,
            seq: self.seq,
            job,
            host: None,
        });
    }

    /// Queues `job`, runnable from `ready_at`, whose next request goes to
    /// `host`, which needs `spacing` between two requests (R4).
    pub fn push_on(&mut self, job: K, ready_at: Timestamp, host: &str, spacing: Duration) {
        let h = self.host(host);
        let share = u64::try_from(spacing.as_millis()).unwrap_or(u64::MAX);
        self.hosts[h].chain = self.hosts[h].chain.saturating_add(share);
        self.seq += 1;
        self.entries.push(Entry {
            ready_at,
            seq: self.seq,
            job,
            host: Some((h, share)),
        });
    }

    /// `host`'s next slot frees at `at` (the gate's answer after the last
    /// request or hold): its queued jobs are not proposed before then.
    /// Replaces what was said before.
    pub fn host_free_at(&mut self, host: &str, at: Timestamp) {
        let h = self.host(host);
        self.hosts[h].free_at = Some(at);
    }

    /// Removes the jobs queued on `host` and returns them with their
    /// `ready_at`, so the caller can queue them again once it knows more
    /// (a robots.txt just learnt may answer some of them without a request).
    pub fn take_host(&mut self, host: &str) -> Vec<(K, Timestamp)> {
        let Some(&h) = self.host_index.get(host) else {
            return Vec::new();
        };
        let mut taken = Vec::new();
        let mut kept = Vec::with_capacity(self.entries.len());
        for e in self.entries.drain(..) {
            match e.host {
                Some((eh, share)) if eh == h => {
                    self.hosts[h].chain = self.hosts[h].chain.saturating_sub(share);
                    taken.push((e.job, e.ready_at));
                }
                _ => kept.push(e),
            }
        }
        self.entries = kept;
        taken
    }

    fn host(&mut self, host: &str) -> usize {
        if let Some(&h) = self.host_index.get(host) {
            return h;
        }
        self.hosts.push(HostLoad::default());
        self.host_index
            .insert(host.to_string(), self.hosts.len() - 1);
        self.hosts.len() - 1
    }

    /// Jobs queued.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn ready_at(&self, e: &Entry<K>) -> Timestamp {
        match e.host.and_then(|(h, _)| self.hosts[h].free_at) {
            Some(free) => e.ready_at.max(free),
            None => e.ready_at,
        }
    }

    /// The next job to step at `now`, or how long to wait.
    pub fn next(&mut self, now: Timestamp) -> Next<K> {
        // (index, (chain, Reverse((ready, seq)))): the largest key goes.
        type Key = (u64, std::cmp::Reverse<(Timestamp, u64)>);
        let mut best: Option<(usize, Key)> = None;
        let mut earliest: Option<Timestamp> = None;
        for (i, e) in self.entries.iter().enumerate() {
            let ready = self.ready_at(e);
            if ready > now {
                earliest = Some(earliest.map_or(ready, |t| t.min(ready)));
                continue;
            }
            let chain = e.host.map_or(0, |(h, _)| self.hosts[h].chain);
            let key = (chain, std::cmp::Reverse((ready, e.seq)));
            if best.as_ref().is_none_or(|(_, k)| key > *k) {
                best = Some((i, key));
            }
        }
        match (best, earliest) {
            (Some((i, _)), _) => {
                let e = self.entries.remove(i);
                if let Some((h, share)) = e.host {
                    self.hosts[h].chain = self.hosts[h].chain.saturating_sub(share);
                }
                Next::Run(e.job)
            }
            (None, Some(t)) => Next::Sleep(t),
            (None, None) => Next::Idle,
        }
    }
}

/// Simulates a workload: `jobs[i]` is a list of requests `(host, cost)` run
/// in order; every host needs `spacing` between the *starts* of two of its
/// requests, the first request to a host is not delayed, and requests are
/// serial. Returns the virtual makespan with this scheduler.
pub fn simulate(jobs: &[Vec<(&str, Duration)>], spacing: Duration) -> Duration {
    let mut last: HashMap<&str, Timestamp> = HashMap::new();
    let mut pos = vec![0usize; jobs.len()];
    let mut s = Schedule::new();
    for (i, job) in jobs.iter().enumerate() {
        if let Some(&(host, _)) = job.first() {
            s.push_on(i, Timestamp(0), host, spacing);
        }
    }
    let mut now = Timestamp(0);
    loop {
        match s.next(now) {
            Next::Idle => return Duration::from_millis(now.0),
            Next::Sleep(t) => now = t,
            Next::Run(i) => {
                let (host, cost) = jobs[i][pos[i]];
                let slot = last.get(host).map(|t| t.saturating_add(spacing));
                match slot {
                    Some(t) if t > now => s.push_on(i, t, host, spacing),
                    _ => {
                        last.insert(host, now);
                        s.host_free_at(host, now.saturating_add(spacing));
                        now = now.saturating_add(cost);
                        pos[i] += 1;
                        if let Some(&(next_host, _)) = jobs[i].get(pos[i]) {
                            s.push_on(i, now, next_host, spacing);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_job_to_another_host_goes_first() {
        let mut s = Schedule::new();
        s.push("slow-host", Timestamp(2_000));
        s.push("fast-host", Timestamp(100));
        assert_eq!(s.next(Timestamp(0)), Next::Sleep(Timestamp(100)));
        assert_eq!(s.next(Timestamp(100)), Next::Run("fast-host"));
        assert_eq!(s.next(Timestamp(100)), Next::Sleep(Timestamp(2_000)));
    }

    #[test]
    fn fifo_among_equally_ready() {
        let mut s = Schedule::new();
        for j in ["a", "b", "c"] {
            s.push(j, Timestamp(5));
        }
        assert_eq!(s.next(Timestamp(9)), Next::Run("a"));
        s.push("a", Timestamp(9));
        assert_eq!(s.next(Timestamp(9)), Next::Run("b"));
        assert_eq!(s.next(Timestamp(9)), Next::Run("c"));
        assert_eq!(s.next(Timestamp(9)), Next::Run("a"));
        assert_eq!(s.next(Timestamp(9)), Next::Idle);
    }

    #[test]
    fn interleaving_costs_about_the_sum_of_requests() {
        // Ten hosts, three requests each (robots.txt, feed, retry), 50 ms
        // each, 1 s spacing: waits overlap with other hosts' requests.
        let ms = Duration::from_millis;
        let hosts: Vec<String> = (0..10).map(|i| format!("h{i}")).collect();
        let jobs: Vec<Vec<(&str, Duration)>> = hosts
            .iter()
            .map(|h| vec![(h.as_str(), ms(50)); 3])
            .collect();
        let t = simulate(&jobs, Duration::from_secs(1));
        // Naive serial waiting would take ~ 10 * (2 s + 150 ms) = 21.5 s.
        assert!(t <= Duration::from_millis(2_600), "{t:?}");
    }

    #[test]
    fn the_host_with_the_longest_chain_goes_first() {
        let mut s = Schedule::new();
        let sec = Duration::from_secs(1);
        s.push_on("small", Timestamp(0), "s.example", sec);
        s.push_on("big-1", Timestamp(0), "b.example", sec);
        s.push_on("big-2", Timestamp(0), "b.example", sec);
        s.push_on("slow", Timestamp(0), "c.example", Duration::from_secs(5));
        // Chains: c = 5 s, b = 2 s, s = 1 s.
        assert_eq!(s.next(Timestamp(0)), Next::Run("slow"));
        assert_eq!(s.next(Timestamp(0)), Next::Run("big-1"));
        // b's chain is now 1 s, equal to s's: the one ready longest, then
        // the first pushed.
        assert_eq!(s.next(Timestamp(0)), Next::Run("small"));
        assert_eq!(s.next(Timestamp(0)), Next::Run("big-2"));
        assert_eq!(s.next(Timestamp(0)), Next::Idle);
    }

    #[test]
    fn only_ready_jobs_run_however_long_their_chain() {
        let mut s = Schedule::new();
        let sec = Duration::from_secs(1);
        for j in ["b1", "b2", "b3"] {
            s.push_on(j, Timestamp(500), "b.example", sec);
        }
        s.push_on("s", Timestamp(0), "s.example", sec);
        assert_eq!(s.next(Timestamp(0)), Next::Run("s"));
        assert_eq!(s.next(Timestamp(0)), Next::Sleep(Timestamp(500)));
    }

    #[test]
    fn a_busy_host_does_not_wake_its_jobs() {
        let mut s = Schedule::new();
        let sec = Duration::from_secs(1);
        s.push_on("a", Timestamp(0), "h.example", sec);
        s.push_on("b", Timestamp(0), "h.example", sec);
        s.push("no-host", Timestamp(0));
        s.host_free_at("h.example", Timestamp(1_000));
        assert_eq!(s.next(Timestamp(0)), Next::Run("no-host"));
        assert_eq!(s.next(Timestamp(0)), Next::Sleep(Timestamp(1_000)));
        assert_eq!(s.next(Timestamp(1_000)), Next::Run("a"));
        // A later answer replaces the earlier one.
        s.host_free_at("h.example", Timestamp(2_000));
        assert_eq!(s.next(Timestamp(1_000)), Next::Sleep(Timestamp(2_000)));
        assert_eq!(s.next(Timestamp(2_000)), Next::Run("b"));
    }

    #[test]
    fn the_bottleneck_host_never_waits_behind_the_others() {
        // One host with ten sources (1 s spacing, 10 ms each) listed after
        // twenty one-source hosts (400 ms each). Lower bound: the big
        // host's chain, 9 s + 100 ms. Taking turns by readiness would serve
        // the twenty first (8 s) and only then start the 9 s chain: 17 s.
        // Requests are not preempted, so each slot of the big host can be
        // late by up to one small response (about 1.2 s per 1 s gap here
        // until the small hosts run out): 10.3 s.
        let ms = Duration::from_millis;
        let small: Vec<String> = (0..20).map(|i| format!("s{i}")).collect();
        let mut jobs: Vec<Vec<(&str, Duration)>> =
            small.iter().map(|h| vec![(h.as_str(), ms(400))]).collect();
        jobs.extend((0..10).map(|_| vec![("big", ms(10))]));
        let t = simulate(&jobs, Duration::from_secs(1));
        assert!(t >= ms(9_100), "{t:?} is below the lower bound");
        assert!(t <= ms(10_500), "{t:?}");
    }
}
