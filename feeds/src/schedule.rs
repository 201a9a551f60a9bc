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
//!   `ready_at` (the `until` of the gate's `Decision::Wait`, or "now").
//! * [`Schedule::next`]`(now)` removes and returns the ready job that has
//!   been ready the longest (smallest `ready_at`, then first pushed), or
//!   says how long to sleep ([`Next::Sleep`]) or that nothing is left
//!   ([`Next::Idle`]). The caller steps the job (at most one request) and
//!   pushes it back with its next `ready_at` unless it finished.
//! * [`simulate`] runs a whole workload against a virtual clock and
//!   returns the makespan: handy to compare with naive serial waiting.

use std::time::Duration;
use wr_core::time::Timestamp;

/// What to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next<K> {
    /// Step this job now.
    Run(K),
    /// Nothing is ready; sleep until this instant.
    Sleep(Timestamp),
    /// The queue is empty.
    Idle,
}

#[derive(Debug, Clone)]
struct Entry<K> {
    ready_at: Timestamp,
    seq: u64,
    job: K,
}

/// The queue of jobs waiting to take a step.
#[derive(Debug, Clone)]
pub struct Schedule<K> {
    entries: Vec<Entry<K>>,
    seq: u64,
}

impl<K> Default for Schedule<K> {
    fn default() -> Self {
        Schedule {
            entries: Vec::new(),
            seq: 0,
        }
    }
}

impl<K> Schedule<K> {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues `job`, runnable from `ready_at`.
    pub fn push(&mut self, job: K, ready_at: Timestamp) {
        self.seq += 1;
        self.entries.push(Entry {
            ready_at,
            seq: self.seq,
            job,
        });
    }

    /// Jobs queued.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The next job to step at `now`, or how long to wait.
    pub fn next(&mut self, now: Timestamp) -> Next<K> {
        let best = self
            .entries
            .iter()
            .enumerate()
            .min_by_key(|(_, e)| (e.ready_at, e.seq))
            .map(|(i, e)| (i, e.ready_at));
        match best {
            None => Next::Idle,
            Some((i, ready_at)) if ready_at <= now => Next::Run(self.entries.remove(i).job),
            Some((_, ready_at)) => Next::Sleep(ready_at),
        }
    }
}

/// Simulates a workload: `jobs[i]` is a list of requests `(host, cost)` run
/// in order; every host needs `spacing` between the *starts* of two of its
/// requests, the first request to a host is not delayed, and requests are
/// serial. Returns the virtual makespan with this scheduler.
pub fn simulate(jobs: &[Vec<(&str, Duration)>], spacing: Duration) -> Duration {
    use std::collections::HashMap;
    let mut last: HashMap<&str, Timestamp> = HashMap::new();
    let mut pos = vec![0usize; jobs.len()];
    let mut s = Schedule::new();
    for (i, job) in jobs.iter().enumerate() {
        if !job.is_empty() {
            s.push(i, Timestamp(0));
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
                    Some(t) if t > now => s.push(i, t),
                    _ => {
                        last.insert(host, now);
                        now = now.saturating_add(cost);
                        pos[i] += 1;
                        if pos[i] < jobs[i].len() {
                            s.push(i, now);
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
}
