//! Scheduling simulation on a virtual clock: no network, no sleeping.
//!
//! N sources over H hosts, each with a response time; each host has a
//! Crawl-delay. Requests are serial (one in flight at a time). A
//! [`PickNext`] chooses which pending request goes next; the harness
//! advances the clock (waiting when the chosen request's host is not ready
//! yet) and reports the total time, which is compared with
//!
//! * the naive order: sources one after another, waiting out each delay;
//! * the lower bound `max(sum of response times, longest per-host chain)`.
//!
//! **Placeholder:** [`LocalPolicy`] is a local stand-in for the pipeline's
//! scheduler, which is being written in `feeds`. Replace its use in
//! `benches/schedule.rs` by a call to the real scheduler once it exists
//! (implement [`PickNext`] for an adapter around it).

/// Milliseconds on the virtual clock.
pub type Ms = u64;

/// How a Crawl-delay spaces two requests to the same host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spacing {
    /// Start of the next request >= start of the previous one + delay.
    StartToStart,
    /// Start of the next request >= end of the previous one + delay.
    EndToStart,
}

/// One feed source: the host it lives on and how long its response takes.
#[derive(Debug, Clone, Copy)]
pub struct Source {
    pub host: usize,
    pub response: Ms,
}

/// A workload.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: &'static str,
    /// Crawl-delay per host (index = host).
    pub delays: Vec<Ms>,
    /// Sources in the order they are listed (the naive order).
    pub sources: Vec<Source>,
    pub spacing: Spacing,
}

/// A request the picker may choose: one per source not fetched yet, in
/// source order.
#[derive(Debug, Clone, Copy)]
pub struct Pending {
    /// Index into [`Scenario::sources`].
    pub source: usize,
    pub host: usize,
    /// Earliest virtual time the host accepts this request.
    pub ready_at: Ms,
    /// Crawl-delay of the host (known from its robots.txt).
    pub delay: Ms,
}

/// "Pick the next request": returns a position in `pending` (never empty).
/// The response time is deliberately not shown: a scheduler cannot know it.
pub trait PickNext {
    fn pick(&mut self, now: Ms, pending: &[Pending]) -> usize;
}

impl<F: FnMut(Ms, &[Pending]) -> usize> PickNext for F {
    fn pick(&mut self, now: Ms, pending: &[Pending]) -> usize {
        self(now, pending)
    }
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Virtual time at which the last response ended.
    pub total: Ms,
    /// Sources in the order they were fetched.
    pub order: Vec<usize>,
    /// Time spent with nothing in flight.
    pub idle: Ms,
}

/// Runs `picker` over `sc` and checks the rules as it goes (serial
/// requests, per-host spacing).
pub fn simulate(sc: &Scenario, picker: &mut dyn PickNext) -> Outcome {
    let hosts = sc.delays.len();
    let mut last_start: Vec<Option<Ms>> = vec![None; hosts];
    let mut last_end: Vec<Option<Ms>> = vec![None; hosts];
    let mut left: Vec<usize> = (0..sc.sources.len()).collect();
    let mut now: Ms = 0;
    let mut idle: Ms = 0;
    let mut order = Vec::with_capacity(left.len());
    let mut pending = Vec::with_capacity(left.len());
    while !left.is_empty() {
        pending.clear();
        pending.extend(left.iter().map(|&i| {
            let h = sc.sources[i].host;
            let d = sc.delays[h];
            let ready_at = match sc.spacing {
                Spacing::StartToStart => last_start[h].map_or(0, |s| s + d),
                Spacing::EndToStart => last_end[h].map_or(0, |e| e + d),
            };
            Pending {
                source: i,
                host: h,
                ready_at,
                delay: d,
            }
        }));
        let k = picker.pick(now, &pending);
        assert!(
            k < pending.len(),
            "picker returned {k} of {}",
            pending.len()
        );
        let p = pending[k];
        let start = now.max(p.ready_at);
        idle += start - now;
        now = start + sc.sources[p.source].response;
        last_start[p.host] = Some(start);
        last_end[p.host] = Some(now);
        order.push(p.source);
        left.remove(k);
    }
    Outcome {
        total: now,
        order,
        idle,
    }
}

/// `max(sum of response times, longest per-host chain)`: no serial order
/// can finish earlier. A host's chain with k requests is
/// `(k-1)·delay + its shortest response` (start-to-start spacing) or
/// `(k-1)·delay + sum of its responses` (end-to-start).
pub fn lower_bound(sc: &Scenario) -> Ms {
    let sum: Ms = sc.sources.iter().map(|s| s.response).sum();
    let mut chain: Ms = 0;
    for (h, &d) in sc.delays.iter().enumerate() {
        let rs: Vec<Ms> = sc
            .sources
            .iter()
            .filter(|s| s.host == h)
            .map(|s| s.response)
            .collect();
        if rs.is_empty() {
            continue;
        }
        let k = rs.len() as Ms;
        let c = match sc.spacing {
            Spacing::StartToStart => (k - 1) * d + rs.iter().min().unwrap(),
            Spacing::EndToStart => (k - 1) * d + rs.iter().sum::<Ms>(),
        };
        chain = chain.max(c);
    }
    sum.max(chain)
}

/// The naive order: sources one after another as listed.
pub fn naive(_now: Ms, _pending: &[Pending]) -> usize {
    0
}

/// Positions in `pending` of each host's first pending request (per-host
/// FIFO: only these may go next).
fn heads(pending: &[Pending]) -> impl Iterator<Item = usize> + '_ {
    let mut seen: Vec<usize> = Vec::new();
    pending.iter().enumerate().filter_map(move |(i, p)| {
        if seen.contains(&p.host) {
            None
        } else {
            seen.push(p.host);
            Some(i)
        }
    })
}

/// PLACEHOLDER for the pipeline's scheduler (being written in `feeds`):
/// requests stay serial; per host FIFO; while one host must wait, a ready
/// request to another host goes first (the first ready one in source
/// order); when nothing is ready, the earliest-ready request goes first.
/// To be replaced by the real scheduler call.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalPolicy;

impl PickNext for LocalPolicy {
    fn pick(&mut self, now: Ms, pending: &[Pending]) -> usize {
        let mut earliest: Option<usize> = None;
        for i in heads(pending) {
            if pending[i].ready_at <= now {
                return i;
            }
            if earliest.is_none_or(|e| pending[i].ready_at < pending[e].ready_at) {
                earliest = Some(i);
            }
        }
        earliest.unwrap_or(0)
    }
}

/// Not the specified policy; shown for comparison only. Like
/// [`LocalPolicy`], but among ready hosts the one with the longest
/// remaining chain (`pending requests × delay`) goes first, so the
/// bottleneck host never waits behind others.
#[derive(Debug, Default, Clone, Copy)]
pub struct LongestChainFirst;

impl PickNext for LongestChainFirst {
    fn pick(&mut self, now: Ms, pending: &[Pending]) -> usize {
        let chain = |host: usize| -> Ms {
            let n = pending.iter().filter(|p| p.host == host).count() as Ms;
            n * pending
                .iter()
                .find(|p| p.host == host)
                .map_or(0, |p| p.delay)
        };
        let hs: Vec<usize> = heads(pending).collect();
        let ready: Vec<usize> = hs
            .iter()
            .copied()
            .filter(|&i| pending[i].ready_at <= now)
            .collect();
        let pool = if ready.is_empty() { &hs } else { &ready };
        if ready.is_empty() {
            // Nothing ready: earliest ready first, longest chain breaks ties.
            return *pool
                .iter()
                .min_by_key(|&&i| {
                    (
                        pending[i].ready_at,
                        core::cmp::Reverse(chain(pending[i].host)),
                    )
                })
                .unwrap();
        }
        *pool
            .iter()
            .max_by_key(|&&i| (chain(pending[i].host), core::cmp::Reverse(i)))
            .unwrap()
    }
}

/// Deterministic pseudo-random numbers (64-bit LCG), so every run sees the
/// same workloads.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Lcg {
        Lcg(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    }
}

/// The workloads reported in `docs/performance.md`.
pub fn scenarios() -> Vec<Scenario> {
    let mut out = Vec::new();
    let mut rng = Lcg::new(0x5eed_0001);

    // Feed-like: 300 sources over 30 hosts, Zipf-ish sizes (host h gets
    // ~1/(h+1) of the sources), Crawl-delay 1 s (the minimum interval)
    // except a few hosts at 5 s and 10 s; responses 100..1500 ms; listed
    // in shuffled order. Response-bound (sum of responses > any chain).
    let zipf = |rng: &mut Lcg, n: usize, hosts: usize| -> Vec<usize> {
        let weights: Vec<f64> = (0..hosts).map(|h| 1.0 / (h as f64 + 1.0)).collect();
        let total: f64 = weights.iter().sum();
        let mut v = Vec::with_capacity(n);
        for (h, w) in weights.iter().enumerate() {
            let k = ((w / total) * n as f64).round() as usize;
            v.extend(std::iter::repeat_n(h, k.max(1)));
        }
        v.truncate(n);
        while v.len() < n {
            v.push(hosts - 1);
        }
        rng.shuffle(&mut v);
        v
    };
    {
        let hosts = 30;
        let delays: Vec<Ms> = (0..hosts)
            .map(|h| match h {
                3 | 7 => 5_000,
                11 => 10_000,
                _ => 1_000,
            })
            .collect();
        let sources = zipf(&mut rng, 300, hosts)
            .into_iter()
            .map(|host| Source {
                host,
                response: rng.range(100, 1500),
            })
            .collect();
        out.push(Scenario {
            name: "feeds-zipf-300x30",
            delays,
            sources,
            spacing: Spacing::StartToStart,
        });
    }
    // The same hosts and responses listed grouped by host (a list sorted by
    // URL): the naive order's worst case.
    {
        let mut sc = out[0].clone();
        sc.name = "feeds-zipf-300x30-grouped";
        sc.sources.sort_by_key(|s| s.host);
        out.push(sc);
    }
    // The same, but the biggest host (~75 sources) asks Crawl-delay 5 s:
    // chain-bound, so the big host must never wait behind the others.
    {
        let mut sc = out[0].clone();
        sc.name = "feeds-zipf-bighost-5s";
        sc.delays[0] = 5_000;
        out.push(sc);
        let mut sc = out[2].clone();
        sc.name = "feeds-zipf-bighost-5s-grouped";
        sc.sources.sort_by_key(|s| s.host);
        out.push(sc);
    }
    // One slow host dominates: 40 of 100 sources on a host with
    // Crawl-delay 30 s, the rest on 20 hosts at 1 s. Chain-bound.
    {
        let mut hosts_of: Vec<usize> = (0..60).map(|i| 1 + i % 20).collect();
        hosts_of.extend(std::iter::repeat_n(0, 40));
        rng.shuffle(&mut hosts_of);
        let mut delays = vec![1_000; 21];
        delays[0] = 30_000;
        let sources = hosts_of
            .into_iter()
            .map(|host| Source {
                host,
                response: rng.range(200, 1200),
            })
            .collect();
        out.push(Scenario {
            name: "one-slow-host-100",
            delays,
            sources,
            spacing: Spacing::StartToStart,
        });
    }
    // Response-bound: 200 sources over 100 hosts, 1 s delays.
    {
        let sources = (0..200)
            .map(|i| Source {
                host: i % 100,
                response: rng.range(200, 800),
            })
            .collect();
        out.push(Scenario {
            name: "many-hosts-200x100",
            delays: vec![1_000; 100],
            sources,
            spacing: Spacing::StartToStart,
        });
    }
    // Balanced and tight: 10 hosts x 20 sources, 5 s delay, 500 ms
    // responses: sum of responses (100 s) ~ each host's chain (95.5 s).
    {
        let mut hosts_of: Vec<usize> = (0..200).map(|i| i / 20).collect();
        rng.shuffle(&mut hosts_of);
        let sources = hosts_of
            .into_iter()
            .map(|host| Source {
                host,
                response: 500,
            })
            .collect();
        out.push(Scenario {
            name: "balanced-tight-200x10",
            delays: vec![5_000; 10],
            sources,
            spacing: Spacing::StartToStart,
        });
    }
    // The feed-like workload again with end-to-start spacing (the delay
    // counted from the end of the previous response).
    {
        let mut sc = out[0].clone();
        sc.name = "feeds-zipf-300x30-end-to-start";
        sc.spacing = Spacing::EndToStart;
        out.push(sc);
    }
    // A single host: nothing to interleave.
    {
        let sources = (0..50)
            .map(|_| Source {
                host: 0,
                response: rng.range(100, 1500),
            })
            .collect();
        out.push(Scenario {
            name: "single-host-50",
            delays: vec![5_000],
            sources,
            spacing: Spacing::StartToStart,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_rules(sc: &Scenario, o: &Outcome) {
        assert_eq!(o.order.len(), sc.sources.len());
        let mut sorted = o.order.clone();
        sorted.sort();
        assert!(sorted.iter().enumerate().all(|(i, &s)| i == s));
        assert!(o.total >= lower_bound(sc));
    }

    #[test]
    fn every_picker_respects_the_bound_and_fetches_everything() {
        for sc in scenarios() {
            for o in [
                simulate(&sc, &mut naive),
                simulate(&sc, &mut LocalPolicy),
                simulate(&sc, &mut LongestChainFirst),
            ] {
                check_rules(&sc, &o);
            }
        }
    }

    #[test]
    fn local_policy_keeps_per_host_fifo() {
        for sc in scenarios() {
            let o = simulate(&sc, &mut LocalPolicy);
            for h in 0..sc.delays.len() {
                let got: Vec<usize> = o
                    .order
                    .iter()
                    .copied()
                    .filter(|&s| sc.sources[s].host == h)
                    .collect();
                let mut want = got.clone();
                want.sort();
                assert_eq!(got, want, "{}: host {h} out of FIFO order", sc.name);
            }
        }
    }

    #[test]
    fn interleaving_beats_naive_on_two_hosts() {
        let sc = Scenario {
            name: "two",
            delays: vec![10, 10],
            sources: vec![
                Source {
                    host: 0,
                    response: 1,
                },
                Source {
                    host: 0,
                    response: 1,
                },
                Source {
                    host: 1,
                    response: 1,
                },
            ],
            spacing: Spacing::StartToStart,
        };
        // naive: 0 at 0..1, 1 waits until 10..11, then 2 at 11..12.
        assert_eq!(simulate(&sc, &mut naive).total, 12);
        // local: 0 at 0..1, 2 at 1..2, 1 at 10..11.
        assert_eq!(simulate(&sc, &mut LocalPolicy).total, 11);
        assert_eq!(lower_bound(&sc), 11);
    }
}
