//! Scheduling simulation on a virtual clock: no network, no sleeping.
//!
//! N sources over H hosts, each with a response time; each host has a
//! Crawl-delay. Requests are serial (one in flight at a time, R4). What is
//! measured is the real thing: every job is a `wr_core::fetch::SourceFetch`
//! over a real `wr_core::gate::Gate`, driven as `Pipeline::run` drives it
//! (one poll and at most one request per step; the job is queued with the
//! host of its next request and that host's spacing, and after a request
//! the scheduler hears the host's next slot). Each step is the pipeline's
//! own loop, [`wr_core::fetch::driver::step`], on a runtime whose clock is
//! virtual and whose network is scripted: a request takes its scenario's
//! response time on the virtual clock and answers 200 (robots.txt with the
//! host's Crawl-delay, the feed with an empty body). R4 spacing is the machines' own: the slot is
//! taken when the request starts and the host's last request moves to the
//! end of the response + 1 ms.
//!
//! The same steps are driven by three queues: the real scheduler
//! ([`Pipeline`], i.e. [`wr_feeds::schedule::Schedule`] as the pipeline
//! drives it), the [`Naive`] order (sources one after another, each to the
//! end) and [`FirstReady`] (the same `Schedule` told no hosts: the
//! earlier first-ready rule, for comparison). Every run is compared with
//! [`lower_bound`] = `max(sum of the necessary requests' response times,
//! longest per-host chain)`, and [`check_rules`] verifies the request log.

use std::convert::Infallible;
use std::time::Duration;
use wr_core::backoff::Backoff;
use wr_core::blocklist::Blocklist;
use wr_core::constants::MIN_REQUEST_INTERVAL;
use wr_core::fetch::driver::{self, Answer, Jobs, Next, Runtime, Step};
use wr_core::fetch::{self, Ctx, Effect, Response, Run, SourceEvent, SourceFetch, SourceOutcome};
use wr_core::gate::{Gate, GateConfig};
use wr_core::time::Timestamp;
use wr_core::url::Url as CoreUrl;
use wr_feeds::config::DEFAULT_MAX_WAIT;
use wr_feeds::schedule::Schedule;

/// Milliseconds on the virtual clock.
pub type Ms = u64;

fn ms(d: Duration) -> Ms {
    u64::try_from(d.as_millis()).unwrap_or(Ms::MAX)
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
    /// Crawl-delay per host (index = host); 0 = none.
    pub delays: Vec<Ms>,
    /// Sources in the order they are listed (the naive order).
    pub sources: Vec<Source>,
    /// `None`: every host's robots.txt is cached and fresh (a run within
    /// 24 h of the previous one). `Some(r)`: no fresh copy, fetching host
    /// `h`'s robots.txt takes `r[h]`.
    pub robots: Option<Vec<Ms>>,
}

impl Scenario {
    /// R4: `max(1 s, Crawl-delay)` between two requests to `host`.
    pub fn spacing(&self, host: usize) -> Ms {
        self.delays[host].max(ms(MIN_REQUEST_INTERVAL))
    }

    /// Hosts that have at least one source.
    fn used_hosts(&self) -> Vec<bool> {
        let mut used = vec![false; self.delays.len()];
        for s in &self.sources {
            used[s.host] = true;
        }
        used
    }

    /// Requests no order can avoid: one per source, plus one robots.txt
    /// per used host when the cache is cold.
    pub fn necessary_requests(&self) -> usize {
        let robots = match self.robots {
            Some(_) => self.used_hosts().iter().filter(|&&u| u).count(),
            None => 0,
        };
        self.sources.len() + robots
    }
}

/// What [`Queue::next`] says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Step this job now.
    Run(usize),
    /// Nothing is ready before this instant.
    Sleep(Ms),
    /// Nothing is queued.
    Idle,
}

/// A queue of jobs waiting to take a step (the shape of
/// [`wr_feeds::schedule::Schedule`]).
pub trait Queue {
    /// Queues `job`, ready at `ready_at`; its next request goes to `host`,
    /// which needs `spacing` between requests.
    fn push(&mut self, job: usize, ready_at: Ms, host: usize, spacing: Ms);
    /// `host`'s next slot frees at `at` (after a request to it).
    fn host_free_at(&mut self, _host: usize, _at: Ms) {}
    fn next(&mut self, now: Ms) -> Pick;
}

fn host_name(host: usize) -> String {
    format!("h{host}.test")
}

fn pick(n: Next<usize>) -> Pick {
    match n {
        Next::Run(j) => Pick::Run(j),
        Next::Sleep(t) => Pick::Sleep(t.0),
        Next::Idle => Pick::Idle,
    }
}

/// The pipeline's scheduler, told what `Pipeline::run` tells it.
#[derive(Debug, Default, Clone)]
pub struct Pipeline(Schedule<usize>);

impl Queue for Pipeline {
    fn push(&mut self, job: usize, ready_at: Ms, host: usize, spacing: Ms) {
        self.0.push_on(
            job,
            Timestamp(ready_at),
            &host_name(host),
            Duration::from_millis(spacing),
        );
    }
    fn host_free_at(&mut self, host: usize, at: Ms) {
        self.0.host_free_at(&host_name(host), Timestamp(at));
    }
    fn next(&mut self, now: Ms) -> Pick {
        pick(self.0.next(Timestamp(now)))
    }
}

/// The same scheduler told nothing about hosts: jobs take turns by
/// readiness (the pipeline's rule before it named hosts).
#[derive(Debug, Default, Clone)]
pub struct FirstReady(Schedule<usize>);

impl Queue for FirstReady {
    fn push(&mut self, job: usize, ready_at: Ms, _host: usize, _spacing: Ms) {
        self.0.push(job, Timestamp(ready_at));
    }
    fn next(&mut self, now: Ms) -> Pick {
        pick(self.0.next(Timestamp(now)))
    }
}

/// The naive order: the first unfinished source, stepped to its end
/// (sleeping whenever its host is not ready), then the next one.
#[derive(Debug, Default, Clone)]
pub struct Naive {
    queued: Vec<(usize, Ms)>,
}

impl Queue for Naive {
    fn push(&mut self, job: usize, ready_at: Ms, _host: usize, _spacing: Ms) {
        self.queued.push((job, ready_at));
    }
    fn next(&mut self, now: Ms) -> Pick {
        let Some(k) = (0..self.queued.len()).min_by_key(|&k| self.queued[k].0) else {
            return Pick::Idle;
        };
        match self.queued[k] {
            (j, t) if t <= now => {
                self.queued.swap_remove(k);
                Pick::Run(j)
            }
            (_, t) => Pick::Sleep(t),
        }
    }
}

/// What a request fetched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Robots,
    Target,
}

/// One request on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// The job (source index) that sent it.
    pub source: usize,
    pub host: usize,
    pub kind: Kind,
    pub start: Ms,
    pub end: Ms,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Virtual time at which the last response ended.
    pub total: Ms,
    /// Every request, in the order sent.
    pub log: Vec<Request>,
    /// Time spent with nothing in flight.
    pub idle: Ms,
    /// Job steps taken (each is one gate evaluation, i.e. one store
    /// transaction in the pipeline).
    pub steps: usize,
    /// Sources deferred because their wait exceeded `max_wait`.
    pub deferred: Vec<usize>,
}

impl Outcome {
    /// Requests beyond [`Scenario::necessary_requests`].
    pub fn extra_requests(&self, sc: &Scenario) -> usize {
        self.log.len().saturating_sub(sc.necessary_requests())
    }
}

/// The robots.txt a host of `sc` serves: its Crawl-delay, nothing else.
fn robots_body(sc: &Scenario, host: usize) -> Vec<u8> {
    let d = sc.delays[host];
    match d {
        0 => b"User-agent: *\nDisallow:\n".to_vec(),
        d if d % 1000 == 0 => format!("User-agent: *\nCrawl-delay: {}\n", d / 1000).into_bytes(),
        d => format!("User-agent: *\nCrawl-delay: {}.{:03}\n", d / 1000, d % 1000).into_bytes(),
    }
}

fn page(host: usize) -> String {
    format!("https://{}/", host_name(host))
}

/// A gate as a run finds it: a fresh blocklist (nothing listed) and, when
/// the scenario's cache is warm, every host's robots.txt.
fn gate_for(sc: &Scenario) -> Gate {
    let mut gate = Gate::new(GateConfig::default());
    let list = Blocklist::new(
        "walsh-research-blocklist/v1",
        Some("P7D"),
        std::iter::empty(),
    )
    .expect("an empty list is valid");
    gate.blocklist_adopted(list, Timestamp(0));
    if sc.robots.is_none() {
        for h in 0..sc.delays.len() {
            if let Ok(u) = CoreUrl::parse(&page(h)) {
                gate.robots_fetched(&u, &robots_body(sc, h), Timestamp(0));
            }
        }
    }
    gate
}

/// The simulation as the runtime of the one driver loop
/// ([`wr_core::fetch::driver`], the loop `Pipeline::run` runs): a virtual
/// clock, a network that answers 200 after the scenario's response time,
/// no store (the effects are already in the gate).
struct Sim<'s> {
    sc: &'s Scenario,
    gate: Gate,
    run: Run,
    now: Ms,
    /// The job being stepped.
    job: usize,
    log: Vec<Request>,
    /// The host the step sent a request to.
    sent_to: Option<usize>,
    /// Time spent with nothing in flight.
    idle: Ms,
}

impl Runtime for Sim<'_> {
    type Error = Infallible;

    fn now(&self) -> Timestamp {
        Timestamp(self.now)
    }

    fn wait_until(&mut self, until: Timestamp) {
        assert!(until.0 > self.now, "Sleep({}) at {}", until.0, self.now);
        self.idle += until.0 - self.now;
        self.now = until.0;
    }

    fn lend<T>(&mut self, at: Timestamp, f: impl FnOnce(&mut Ctx<'_>) -> T) -> T {
        f(&mut Ctx {
            gate: &mut self.gate,
            run: &mut self.run,
            now: at,
            jitter: 0.5,
        })
    }

    fn take_effects(&mut self) -> Vec<Effect> {
        self.run.take_effects()
    }

    fn send(&mut self, req: &fetch::Request) -> Result<Answer, Infallible> {
        let (sc, j) = (self.sc, self.job);
        let h = sc.sources[j].host;
        let kind = if req.url().ends_with("/robots.txt") {
            Kind::Robots
        } else {
            Kind::Target
        };
        let r = match kind {
            Kind::Robots => sc.robots.as_ref().map_or(0, |r| r[h]),
            Kind::Target => sc.sources[j].response,
        };
        self.log.push(Request {
            source: j,
            host: h,
            kind,
            start: self.now,
            end: self.now + r,
        });
        self.now += r;
        self.sent_to = Some(h);
        Ok(Answer::now(Ok(Response {
            status: 200,
            content_type: Some(match kind {
                Kind::Robots => "text/plain".into(),
                Kind::Target => "application/rss+xml".into(),
            }),
            body: match kind {
                Kind::Robots => robots_body(sc, h),
                Kind::Target => Vec::new(),
            },
            ..Response::default()
        })))
    }

    fn persist(&mut self, _effect: Effect) -> Result<(), Infallible> {
        Ok(())
    }

    fn refresh_blocklist(&mut self) -> Result<(), Infallible> {
        panic!("{}: the blocklist is fresh", self.sc.name)
    }
}

/// The sources of a scenario as the driver loop's [`Jobs`], in the order
/// `queue` gives them turns.
struct SimJobs<'q> {
    queue: &'q mut dyn Queue,
    machines: Vec<SourceFetch>,
    done: Vec<bool>,
    steps: usize,
    /// Far more steps than any order needs: a safety net against a queue
    /// that never lets a job finish.
    budget: usize,
    deferred: Vec<usize>,
}

impl Jobs<Sim<'_>> for SimJobs<'_> {
    fn next(&mut self, now: Timestamp) -> Next<usize> {
        match self.queue.next(now.0) {
            Pick::Run(j) => Next::Run(j),
            Pick::Sleep(t) => Next::Sleep(Timestamp(t)),
            Pick::Idle => Next::Idle,
        }
    }

    /// One step, as `Pipeline::run` takes it: the scheduler hears the
    /// next slot of the host just asked, and the job is queued again with
    /// the host and spacing of its next request.
    fn turn(&mut self, rt: &mut Sim<'_>, j: usize) -> Result<(), Infallible> {
        let sc = rt.sc;
        assert!(!self.done[j], "job {j} stepped after it finished");
        self.steps += 1;
        assert!(self.steps <= self.budget, "{}: no progress", sc.name);
        rt.job = j;
        let step = driver::step(rt, &mut self.machines[j])?;
        let h = sc.sources[j].host;
        let sent = rt.sent_to.take();
        if let Some(at) = sent.and_then(|h| rt.gate.next_slot(&host_name(h))) {
            self.queue.host_free_at(h, at.0);
        }
        match step {
            Step::Again(t) => {
                let spacing = ms(rt.gate.spacing(&host_name(h)));
                self.queue.push(j, t.0, h, spacing);
            }
            Step::Done(SourceEvent::Extract(_)) => self.done[j] = true,
            Step::Done(SourceEvent::Finished(SourceOutcome::Deferred { .. })) if sent.is_none() => {
                self.deferred.push(j);
                self.done[j] = true;
            }
            Step::Done(other) => panic!("{}: job {j} ended with {other:?}", sc.name),
        }
        Ok(())
    }
}

/// Runs every source of `sc` through the real fetch machines
/// ([`SourceFetch`] over a real [`Gate`]), driven by the pipeline's loop
/// (one poll and at most one request per turn, the scheduler told each
/// job's next host and each host's next slot), ordered by `queue`. Only
/// the network is simulated: a request takes its scenario's response time
/// on the virtual clock and answers 200.
pub fn simulate(sc: &Scenario, queue: &mut dyn Queue) -> Outcome {
    let mut rt = Sim {
        sc,
        gate: gate_for(sc),
        run: Run::new(DEFAULT_MAX_WAIT, Backoff::default()),
        now: 0,
        job: 0,
        log: Vec::new(),
        sent_to: None,
        idle: 0,
    };
    for (j, s) in sc.sources.iter().enumerate() {
        queue.push(j, 0, s.host, ms(rt.gate.spacing(&host_name(s.host))));
    }
    let mut jobs = SimJobs {
        queue,
        machines: sc
            .sources
            .iter()
            .enumerate()
            .map(|(j, s)| {
                let base = page(s.host);
                let feed = format!("{base}feed/{j}");
                SourceFetch::new(&base, Some(&feed), &format!("{base}llms.txt"))
            })
            .collect(),
        done: vec![false; sc.sources.len()],
        steps: 0,
        budget: 100 * (sc.sources.len() + 1) * (sc.delays.len() + 1),
        deferred: Vec::new(),
    };
    if let Err(never) = driver::drive(&mut rt, &mut jobs) {
        match never {}
    }
    assert!(
        jobs.done.iter().all(|&d| d),
        "{}: a job never finished",
        sc.name
    );
    Outcome {
        total: rt.log.iter().map(|r| r.end).max().unwrap_or(0),
        log: rt.log,
        idle: rt.idle,
        steps: jobs.steps,
        deferred: jobs.deferred,
    }
}

/// `max(sum of response times, longest per-host chain)` over the necessary
/// requests (the sources, plus one robots.txt per host when the cache is
/// cold): no serial order that respects R4 can finish earlier. A host's
/// chain of `k` requests is `(k−1)·max(1 s, delay) + the sum of its
/// responses` (end-to-start spacing, as the pipeline measures it; the
/// pipeline's extra 1 ms per gap is not in the bound).
pub fn lower_bound(sc: &Scenario) -> Ms {
    let hosts = sc.delays.len();
    let mut work = vec![0; hosts];
    let mut count = vec![0; hosts];
    for s in &sc.sources {
        work[s.host] += s.response;
        count[s.host] += 1;
    }
    if let Some(r) = &sc.robots {
        for h in 0..hosts {
            if count[h] > 0 {
                work[h] += r[h];
                count[h] += 1;
            }
        }
    }
    let sum: Ms = work.iter().sum();
    let chain = (0..hosts)
        .filter(|&h| count[h] > 0)
        .map(|h| (count[h] - 1) * sc.spacing(h) + work[h])
        .max()
        .unwrap_or(0);
    sum.max(chain)
}

/// Checks a run's request log against the rules: requests serial; per host,
/// each request starts at least `max(1 s, Crawl-delay)` after the previous
/// one ended; every source's target fetched exactly once, none deferred; on
/// a cold cache a host's robots.txt fetched before its first target; the
/// total is the last end and not below the [`lower_bound`].
pub fn check_rules(sc: &Scenario, o: &Outcome) -> Result<(), String> {
    for w in o.log.windows(2) {
        if w[1].start < w[0].end {
            return Err(format!("not serial: {:?} overlaps {:?}", w[1], w[0]));
        }
    }
    let mut last_end: Vec<Option<Ms>> = vec![None; sc.delays.len()];
    let mut robots_seen = vec![sc.robots.is_none(); sc.delays.len()];
    let mut targets = vec![0usize; sc.sources.len()];
    for r in &o.log {
        if r.host >= sc.delays.len() || r.source >= sc.sources.len() {
            return Err(format!("unknown host or source: {r:?}"));
        }
        if r.end < r.start {
            return Err(format!("ends before it starts: {r:?}"));
        }
        if let Some(e) = last_end[r.host] {
            if r.start < e + sc.spacing(r.host) {
                return Err(format!(
                    "host {} spaced {} ms < {} ms: {r:?}",
                    r.host,
                    r.start.saturating_sub(e),
                    sc.spacing(r.host)
                ));
            }
        }
        last_end[r.host] = Some(r.end);
        match r.kind {
            Kind::Robots => robots_seen[r.host] = true,
            Kind::Target => {
                if sc.sources[r.source].host != r.host {
                    return Err(format!("target on the wrong host: {r:?}"));
                }
                if !robots_seen[r.host] {
                    return Err(format!("target before its robots.txt: {r:?}"));
                }
                if r.end - r.start != sc.sources[r.source].response {
                    return Err(format!("wrong response time: {r:?}"));
                }
                targets[r.source] += 1;
            }
        }
    }
    if let Some(i) = targets.iter().position(|&n| n != 1) {
        return Err(format!("source {i} fetched {} times", targets[i]));
    }
    if !o.deferred.is_empty() {
        return Err(format!("deferred: {:?}", o.deferred));
    }
    let last = o.log.last().map_or(0, |r| r.end);
    if o.total != last {
        return Err(format!("total {} != last end {last}", o.total));
    }
    if o.total < lower_bound(sc) {
        return Err(format!(
            "total {} below the lower bound {}",
            o.total,
            lower_bound(sc)
        ));
    }
    Ok(())
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
            robots: None,
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
            robots: None,
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
            robots: None,
        });
    }
    // Balanced and tight: 10 hosts x 20 sources, 5 s delay, 500 ms
    // responses: sum of responses (100 s) ~ each host's chain (105 s).
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
            robots: None,
        });
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
            robots: None,
        });
    }
    // Cold robots.txt cache (first run, or the daily run after the 24 h
    // copies went stale): every host's robots.txt (80..400 ms) first.
    for base in [0, 2] {
        let mut sc = out[base].clone();
        sc.name = match base {
            0 => "feeds-zipf-300x30-cold",
            _ => "feeds-zipf-bighost-5s-cold",
        };
        sc.robots = Some((0..sc.delays.len()).map(|_| rng.range(80, 400)).collect());
        out.push(sc);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(host: usize, response: Ms) -> Source {
        Source { host, response }
    }

    fn runs(sc: &Scenario) -> [(&'static str, Outcome); 3] {
        [
            ("naive", simulate(sc, &mut Naive::default())),
            ("pipeline", simulate(sc, &mut Pipeline::default())),
            ("first-ready", simulate(sc, &mut FirstReady::default())),
        ]
    }

    #[test]
    fn every_order_respects_the_rules_in_every_scenario() {
        for sc in scenarios() {
            for (name, o) in runs(&sc) {
                if let Err(e) = check_rules(&sc, &o) {
                    panic!("{} / {name}: {e}", sc.name);
                }
            }
        }
    }

    #[test]
    fn naive_sends_only_the_necessary_requests() {
        for sc in scenarios() {
            let o = simulate(&sc, &mut Naive::default());
            assert_eq!(o.log.len(), sc.necessary_requests(), "{}", sc.name);
            let order: Vec<usize> = o
                .log
                .iter()
                .filter(|r| r.kind == Kind::Target)
                .map(|r| r.source)
                .collect();
            assert!(order.windows(2).all(|w| w[0] < w[1]), "{}", sc.name);
        }
    }

    /// Hand-computed: host 0 (1 s) has sources 0 and 1, host 1 has source 2,
    /// 100 ms each. Naive: 0 at 0..100, 1 waits for 100 + 1 + 1000,
    /// 1101..1201, then 2 at 1201..1301. Pipeline: 0 at 0..100, 1 must wait
    /// until 1101, 2 goes at 100..200, 1 at 1101..1201.
    #[test]
    fn small_case_by_hand() {
        let sc = Scenario {
            name: "hand",
            delays: vec![0, 0],
            sources: vec![src(0, 100), src(0, 100), src(1, 100)],
            robots: None,
        };
        assert_eq!(lower_bound(&sc), 1200);
        let n = simulate(&sc, &mut Naive::default());
        assert_eq!(n.total, 1301);
        let p = simulate(&sc, &mut Pipeline::default());
        let starts: Vec<(usize, Ms)> = p.log.iter().map(|r| (r.source, r.start)).collect();
        assert_eq!(starts, vec![(0, 0), (2, 100), (1, 1101)]);
        assert_eq!(p.total, 1201);
        assert_eq!(p.idle, 901);
        for o in [&n, &p] {
            check_rules(&sc, o).unwrap();
        }
    }

    /// Cold cache, two sources on one host: both jobs meet `NeedRobots`
    /// before either fetch ran; the second finds the copy the first
    /// fetched and goes on without fetching it again.
    #[test]
    fn cold_cache_fetches_each_robots_txt_once() {
        let sc = Scenario {
            name: "cold",
            delays: vec![0],
            sources: vec![src(0, 100), src(0, 100)],
            robots: Some(vec![50]),
        };
        let n = simulate(&sc, &mut Naive::default());
        // robots 0..50, target 1051..1151, target 2152..2252.
        assert_eq!(n.total, 2252);
        for q in [
            &mut Pipeline::default() as &mut dyn Queue,
            &mut FirstReady::default(),
        ] {
            let p = simulate(&sc, q);
            let kinds: Vec<Kind> = p.log.iter().map(|r| r.kind).collect();
            assert_eq!(kinds, vec![Kind::Robots, Kind::Target, Kind::Target]);
            assert_eq!(p.extra_requests(&sc), 0);
            assert_eq!(p.total, n.total);
            check_rules(&sc, &p).unwrap();
        }
    }

    #[test]
    fn the_pipeline_sends_only_the_necessary_requests_and_sleeps_through_waits() {
        for sc in scenarios() {
            let p = simulate(&sc, &mut Pipeline::default());
            assert_eq!(p.extra_requests(&sc), 0, "{}", sc.name);
            // Told when each host frees, a job wakes at most once for
            // nothing (the NeedRobots step, then the cached copy found).
            let per_source = if sc.robots.is_some() { 4 } else { 2 };
            assert!(
                p.steps <= per_source * sc.sources.len(),
                "{}: {} steps",
                sc.name,
                p.steps
            );
        }
    }

    /// Twenty one-source hosts listed before a host with ten sources and a
    /// 5 s Crawl-delay: the big host's 45 s chain is the bound. First-ready
    /// order serves the list in turn and starts the chain late; the
    /// pipeline starts it at once.
    #[test]
    fn the_bottleneck_host_is_served_first() {
        let mut sources: Vec<Source> = (1..=20).map(|h| src(h, 500)).collect();
        sources.extend((0..10).map(|_| src(0, 100)));
        let mut delays = vec![1_000; 21];
        delays[0] = 5_000;
        let sc = Scenario {
            name: "bottleneck",
            delays,
            sources,
            robots: None,
        };
        let lb = lower_bound(&sc);
        assert_eq!(lb, 9 * 5_000 + 10 * 100);
        let p = simulate(&sc, &mut Pipeline::default());
        let f = simulate(&sc, &mut FirstReady::default());
        check_rules(&sc, &p).unwrap();
        check_rules(&sc, &f).unwrap();
        assert!(p.total <= lb + 1_000, "pipeline {} vs bound {lb}", p.total);
        assert!(
            f.total >= lb + 5_000,
            "first-ready {} vs bound {lb}",
            f.total
        );
    }

    fn ok_run() -> (Scenario, Outcome) {
        let sc = Scenario {
            name: "check",
            delays: vec![2_000, 0],
            sources: vec![src(0, 10), src(0, 10), src(1, 10)],
            robots: None,
        };
        let o = simulate(&sc, &mut Pipeline::default());
        check_rules(&sc, &o).unwrap();
        (sc, o)
    }

    #[test]
    fn the_checker_rejects_broken_logs() {
        let (sc, good) = ok_run();
        let mut bad = good.clone();
        // Two requests in flight at once.
        bad.log[1].start = bad.log[0].end - 1;
        bad.log[1].end = bad.log[1].start + 10;
        assert!(check_rules(&sc, &bad).unwrap_err().contains("serial"));
        // Host 0 asked again 1 ms too early (spacing 2 s, not 1 s).
        let mut bad = good.clone();
        let i = bad.log.iter().rposition(|r| r.host == 0).unwrap();
        let prev = bad.log[..i].iter().rposition(|r| r.host == 0).unwrap();
        bad.log[i].start = bad.log[prev].end + 1_999;
        bad.log[i].end = bad.log[i].start + 10;
        assert!(check_rules(&sc, &bad).unwrap_err().contains("spaced"));
        // A source fetched twice, and one never.
        let mut bad = good.clone();
        let first = bad.log[0];
        let last = bad.log.last().unwrap().end;
        bad.log.push(Request {
            start: last + 10_000,
            end: last + 10_010,
            ..first
        });
        bad.total = last + 10_010;
        assert!(check_rules(&sc, &bad).unwrap_err().contains("2 times"));
        let mut bad = good.clone();
        bad.log.pop();
        bad.total = bad.log.last().unwrap().end;
        assert!(check_rules(&sc, &bad).unwrap_err().contains("0 times"));
        // Deferred sources are a failure, too.
        let mut bad = good.clone();
        bad.deferred.push(0);
        assert!(check_rules(&sc, &bad).unwrap_err().contains("deferred"));
    }

    #[test]
    fn the_checker_wants_robots_before_targets_on_a_cold_cache() {
        let (mut sc, o) = ok_run();
        sc.robots = Some(vec![10, 10]);
        assert!(check_rules(&sc, &o).unwrap_err().contains("robots.txt"));
    }

    #[test]
    fn bound_counts_robots_and_end_to_start_chains() {
        let mut sc = Scenario {
            name: "bound",
            delays: vec![5_000, 0, 0],
            sources: vec![src(0, 100), src(0, 200), src(1, 300)],
            robots: None,
        };
        // chain of host 0: 5 s + 100 + 200; sum: 600.
        assert_eq!(lower_bound(&sc), 5_300);
        sc.robots = Some(vec![40, 50, 60_000]);
        // host 2 has no source: its robots.txt is not needed.
        assert_eq!(sc.necessary_requests(), 5);
        assert_eq!(lower_bound(&sc), 2 * 5_000 + 340);
    }
}
