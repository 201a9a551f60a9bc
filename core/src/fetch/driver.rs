//! The one driver loop of the fetch machines, generic over what it runs on.
//!
//! Every machine of [`crate::fetch`] is driven the same way: poll it, send
//! what it asks for and tell it the answer, persist what it queued on the
//! [`Run`](super::Run), fetch the blocklist when it asks, wait until the
//! instant it names. Written out by each driver, that loop existed three
//! times (the `feeds` pipeline, the benches' scheduler simulation, the
//! core tests' harness) and the copies drifted. Here it is written once,
//! over a [`Runtime`] that supplies the three things it cannot decide
//! itself, in the manner of quinn's `Runtime` (the endpoint is written
//! once; tokio or async-std is plugged in):
//!
//! * a **clock**: [`Runtime::now`] and [`Runtime::wait_until`], the system
//!   clock with a real sleep in `feeds`, a virtual instant that jumps in
//!   the benches and tests;
//! * a **transport**: [`Runtime::send`] answers a [`Request`] with a
//!   [`Response`] or a [`Failure`] (ureq in `feeds`, scripted answers in
//!   the benches and tests);
//! * a **store**: [`Runtime::persist`] makes an [`Effect`] last (SQLite
//!   and the fleet in `feeds`, a log or nothing in the simulations), and
//!   [`Runtime::refresh_blocklist`] runs R12's block-on-refresh.
//!
//! The runtime also lends the machines their [`Ctx`] (it owns the gate
//! and the run, and the random values for jitter), and may wrap a poll
//! ([`Runtime::poll`]: the pipeline takes the host's cross-process slot
//! around it, R4a) or act once an answer is in ([`Runtime::answered`]).
//! No I/O happens here: the loop only calls the runtime, so wr-core stays
//! sans-I/O and the loop is the same on a simulated clock as on the wire.
//!
//! [`step`] is one poll and at most one request; [`finish`] steps one
//! machine to its output, waiting through its waits; [`drive`] gives the
//! machines of a run their turns in the order a scheduler says ([`Jobs`]),
//! waiting when none is ready. The pipeline and the benches' simulation
//! drive a run's sources with [`drive`], each with its own scheduler.

use super::{Action, Ctx, Effect, Failure, Machine, Request, Response};
use crate::time::Timestamp;
use alloc::string::String;
use alloc::vec::Vec;

/// What a [`Runtime::send`] came back with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The response, or why there was none.
    pub result: Result<Response, Failure>,
    /// The representation kind stored with the validators that were sent,
    /// if any were (see [`Machine::handle_response`]).
    pub sent_kind: Option<String>,
    /// The instant the machine is told the answer at: `None` for now; an
    /// answer taken from a cache is as old as it is.
    pub at: Option<Timestamp>,
}

impl Answer {
    /// An answer that came off the wire just now, without validators.
    pub fn now(result: Result<Response, Failure>) -> Answer {
        Answer {
            result,
            sent_kind: None,
            at: None,
        }
    }
}

/// What the driver loop runs on: a clock, a transport and a store, and the
/// gate and run the machines share.
pub trait Runtime {
    /// Why the loop stops (the store failed, a coordinator was lost).
    type Error;

    /// The current instant.
    fn now(&self) -> Timestamp;

    /// Returns no earlier than `until` (a virtual clock jumps there).
    fn wait_until(&mut self, until: Timestamp);

    /// Runs `f` with the machines' context at `at`: the gate, the run and
    /// a fresh random value in `[0, 1)`.
    fn lend<T>(&mut self, at: Timestamp, f: impl FnOnce(&mut Ctx<'_>) -> T) -> T;

    /// The effects the machines queued since the last call, oldest first.
    fn take_effects(&mut self) -> Vec<Effect>;

    /// Polls `m` now. A runtime shared with other processes overrides
    /// this to take the slot of [`Machine::next_host`] around the poll.
    fn poll<M: Machine>(&mut self, m: &mut M) -> Result<Action<M::Output>, Self::Error> {
        let now = self.now();
        Ok(self.lend(now, |cx| m.poll(cx)))
    }

    /// Sends `req` (the transport).
    fn send(&mut self, req: &Request) -> Result<Answer, Self::Error>;

    /// The answer to `req` was told and its effects persisted.
    fn answered(&mut self, _req: &Request) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Makes one effect last (the store).
    fn persist(&mut self, effect: Effect) -> Result<(), Self::Error>;

    /// Fetches or refreshes the blocklist now ([`Action::NeedBlocklist`]).
    fn refresh_blocklist(&mut self) -> Result<(), Self::Error>;
}

/// What one [`step`] left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step<T> {
    /// Step the machine again at this instant.
    Again(Timestamp),
    /// The machine's output.
    Done(T),
}

/// Persists every effect queued so far.
pub fn settle<R: Runtime>(rt: &mut R) -> Result<(), R::Error> {
    for effect in rt.take_effects() {
        rt.persist(effect)?;
    }
    Ok(())
}

/// Sends `req` for `m` and tells `m` the answer. The runtime hears
/// [`Runtime::answered`] even when persisting the answer's effects failed.
pub fn exchange<R: Runtime, M: Machine>(
    rt: &mut R,
    m: &mut M,
    req: &Request,
) -> Result<(), R::Error> {
    let answer = rt.send(req)?;
    let at = answer.at.unwrap_or_else(|| rt.now());
    let kind = answer.sent_kind;
    rt.lend(at, |cx| match answer.result {
        Ok(response) => m.handle_response(cx, response, kind.as_deref()),
        Err(failure) => m.handle_failure(cx, failure),
    });
    let settled = settle(rt);
    let answered = rt.answered(req);
    settled.and(answered)
}

/// One poll of `m` and at most one request: `Again(t)` to be stepped
/// again at `t`, or its output.
pub fn step<R: Runtime, M: Machine>(rt: &mut R, m: &mut M) -> Result<Step<M::Output>, R::Error> {
    let action = rt.poll(m)?;
    settle(rt)?;
    Ok(match action {
        Action::Send(req) => {
            exchange(rt, m, &req)?;
            match m.take_output() {
                Some(out) => Step::Done(out),
                None => Step::Again(rt.now()),
            }
        }
        Action::NeedBlocklist => {
            rt.refresh_blocklist()?;
            Step::Again(rt.now())
        }
        Action::Wait(t) => Step::Again(t),
        Action::Done(out) => Step::Done(out),
    })
}

/// Steps `m` to its output, waiting through its waits.
pub fn finish<R: Runtime, M: Machine>(rt: &mut R, m: &mut M) -> Result<M::Output, R::Error> {
    loop {
        match step(rt, m)? {
            Step::Again(t) => {
                if t > rt.now() {
                    rt.wait_until(t);
                }
            }
            Step::Done(out) => return Ok(out),
        }
    }
}

/// What a scheduler says to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next<J> {
    /// Give this job its turn now.
    Run(J),
    /// Nothing is ready; wait until this instant.
    Sleep(Timestamp),
    /// Nothing is left.
    Idle,
}

/// The machines of a run and the order they take turns in (the caller's
/// scheduler: which job goes next is an ordering choice, never a rule;
/// every machine asks the gate itself).
pub trait Jobs<R: Runtime> {
    /// Which job takes its turn next, seen at `now`.
    fn next(&mut self, now: Timestamp) -> Next<usize>;

    /// Job `j`'s turn: usually one [`step`] of its machine, then queued
    /// again or finished.
    fn turn(&mut self, rt: &mut R, j: usize) -> Result<(), R::Error>;
}

/// Gives `jobs` their turns in the order they say, waiting while none is
/// ready, until none is left.
pub fn drive<R: Runtime, J: Jobs<R>>(rt: &mut R, jobs: &mut J) -> Result<(), R::Error> {
    loop {
        match jobs.next(rt.now()) {
            Next::Idle => return Ok(()),
            Next::Sleep(t) => rt.wait_until(t),
            Next::Run(j) => jobs.turn(rt, j)?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backoff::Backoff;
    use crate::blocklist::Blocklist;
    use crate::fetch::{FailureKind, Get, GetOutcome, Run};
    use crate::gate::{Gate, GateConfig};
    use crate::url::Url;
    use alloc::string::ToString;
    use alloc::vec;
    use core::time::Duration;

    const T0: Timestamp = Timestamp(1_700_000_000_000);

    /// A runtime that answers every request with `answers` in turn, after
    /// 10 ms, and logs what the loop asked of it.
    struct Log {
        gate: Gate,
        run: Run,
        now: Timestamp,
        answers: Vec<Answer>,
        calls: Vec<String>,
        /// Whether persisting fails.
        store_broken: bool,
    }

    impl Log {
        fn new(answers: Vec<Answer>) -> Log {
            let mut gate = Gate::new(GateConfig::default());
            gate.blocklist_adopted(Blocklist::empty(), T0);
            gate.robots_not_found(&Url::parse("https://a.test/").unwrap(), T0);
            Log {
                gate,
                run: Run::new(Duration::from_secs(300), Backoff::default()),
                now: T0,
                answers,
                calls: Vec::new(),
                store_broken: false,
            }
        }
    }

    impl Runtime for Log {
        type Error = &'static str;

        fn now(&self) -> Timestamp {
            self.now
        }

        fn wait_until(&mut self, until: Timestamp) {
            self.calls.push(alloc::format!("wait {}", until.0 - T0.0));
            self.now = until;
        }

        fn lend<T>(&mut self, at: Timestamp, f: impl FnOnce(&mut Ctx<'_>) -> T) -> T {
            let ms = at.0 as i64 - T0.0 as i64;
            self.calls.push(alloc::format!("lend {ms}"));
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

        fn send(&mut self, req: &Request) -> Result<Answer, Self::Error> {
            self.calls.push(alloc::format!("send {}", req.url()));
            self.now = self.now.saturating_add(Duration::from_millis(10));
            Ok(self.answers.remove(0))
        }

        fn answered(&mut self, req: &Request) -> Result<(), Self::Error> {
            self.calls.push(alloc::format!("answered {}", req.url()));
            Ok(())
        }

        fn persist(&mut self, _effect: Effect) -> Result<(), Self::Error> {
            self.calls.push("persist".to_string());
            match self.store_broken {
                true => Err("store"),
                false => Ok(()),
            }
        }

        fn refresh_blocklist(&mut self) -> Result<(), Self::Error> {
            Err("no blocklist refresh in this test")
        }
    }

    fn ok() -> Answer {
        Answer::now(Ok(Response {
            status: 200,
            ..Response::default()
        }))
    }

    #[test]
    fn a_step_sends_once_tells_the_machine_at_the_answers_end_and_persists() {
        let mut rt = Log::new(vec![ok()]);
        let mut get = Get::new("https://a.test/feed", None);
        let out = step(&mut rt, &mut get).unwrap();
        assert!(matches!(out, Step::Done(GetOutcome::Response { .. })));
        // Polled at 0, told at 10 ms (after the exchange), its end persisted
        // before the runtime hears the answer is in.
        assert_eq!(
            rt.calls,
            [
                "lend 0",
                "send https://a.test/feed",
                "lend 10",
                "persist",
                "answered https://a.test/feed"
            ]
        );
    }

    #[test]
    fn finish_waits_through_the_machines_waits() {
        // A 503 is retried after R5's backoff: the loop waits, then sends.
        let unavailable = Answer::now(Ok(Response {
            status: 503,
            ..Response::default()
        }));
        let mut rt = Log::new(vec![unavailable, ok()]);
        let mut get = Get::new("https://a.test/feed", None);
        let out = finish(&mut rt, &mut get).unwrap();
        assert!(matches!(out, GetOutcome::Response { .. }));
        // Backoff, then R4's spacing from the end of the first exchange:
        // the retry goes only once both are over.
        let sends: Vec<_> = (0..rt.calls.len())
            .filter(|&i| rt.calls[i].starts_with("send"))
            .collect();
        assert_eq!(sends.len(), 2, "{:?}", rt.calls);
        assert_eq!(rt.calls[sends[1] - 2], "wait 1011", "{:?}", rt.calls);
        assert_eq!(rt.calls[sends[1] - 1], "lend 1011", "{:?}", rt.calls);
    }

    #[test]
    fn an_answer_from_a_cache_is_told_at_its_own_instant() {
        let cached = Answer {
            at: Some(Timestamp(T0.0 - 5_000)),
            ..ok()
        };
        let mut rt = Log::new(vec![cached]);
        step(&mut rt, &mut Get::new("https://a.test/feed", None)).unwrap();
        assert_eq!(rt.calls[2], "lend -5000", "{:?}", rt.calls);
    }

    #[test]
    fn the_runtime_hears_the_answer_is_in_even_when_persisting_fails() {
        let failed = Answer::now(Err(crate::fetch::Failure {
            kind: FailureKind::Local,
            reason: "refused".into(),
        }));
        let mut rt = Log::new(vec![failed]);
        rt.store_broken = true;
        let mut get = Get::new("https://a.test/feed", None);
        assert_eq!(step(&mut rt, &mut get), Err("store"));
        assert_eq!(rt.calls.last().unwrap(), "answered https://a.test/feed");
    }

    /// A scheduler of made-up jobs: ready instants, turns taken.
    struct Turns {
        queue: Vec<(Timestamp, usize)>,
        turns: Vec<(usize, u64)>,
    }

    impl Jobs<Log> for Turns {
        fn next(&mut self, now: Timestamp) -> Next<usize> {
            self.queue.sort();
            match self.queue.first() {
                None => Next::Idle,
                Some(&(t, j)) if t <= now => {
                    self.queue.remove(0);
                    Next::Run(j)
                }
                Some(&(t, _)) => Next::Sleep(t),
            }
        }

        fn turn(&mut self, rt: &mut Log, j: usize) -> Result<(), &'static str> {
            self.turns.push((j, rt.now.0 - T0.0));
            Ok(())
        }
    }

    #[test]
    fn drive_gives_turns_in_the_schedulers_order_and_waits_when_none_is_ready() {
        let mut rt = Log::new(Vec::new());
        let mut jobs = Turns {
            queue: vec![(Timestamp(T0.0 + 500), 1), (T0, 0)],
            turns: Vec::new(),
        };
        drive(&mut rt, &mut jobs).unwrap();
        assert_eq!(jobs.turns, [(0, 0), (1, 500)]);
        assert_eq!(rt.calls, ["wait 500"]);
    }
}
