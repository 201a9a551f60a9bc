//! `check`: the gate's answer for one URL, without requesting it.
//!
//! A dry run goes through what a GET would go through before its request:
//! the blocklist (fetched or refreshed first when R12 says so), the
//! origin's robots.txt (fetched once when the gate has no usable copy), and
//! the host's slot (R4, R5 holds). Written as a machine like the others it
//! is driven by the same loop ([`super::driver`]), so a check waits for
//! the robots.txt host's slot, takes the cross-process slot and persists
//! what it learns exactly as a run does, and tests drive it on a virtual
//! clock.
//!
//! Its output names the instant the gate had all it needed; the gate's
//! [`Decision`] at that instant is the answer, read by the driver, which
//! words it for the reader. A robots.txt that could not even be asked for
//! within the run's patience is its own answer.

use super::robots::{RobotsDeferral, RobotsFetch};
use super::{host_of, Action, Ctx, Failure, Machine, Response};
use crate::gate::{Decision, HostKey};
use crate::time::Timestamp;
use alloc::string::{String, ToString};

/// The check of one URL (in the form that would be sent).
#[derive(Debug, Clone)]
pub struct Check {
    target: String,
    robots: Option<RobotsFetch>,
    /// A robots.txt fetch already ran: a gate that still needs robots.txt
    /// answers "could not be obtained" rather than fetching again.
    robots_asked: bool,
    end: Option<Checked>,
}

/// How a [`Check`] ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// The gate knows all it needs: `Gate::check` of the target at `at`
    /// is the answer.
    Decided {
        /// The instant of the decision.
        at: Timestamp,
    },
    /// robots.txt could not be asked for within the run's patience.
    RobotsDeferred(RobotsDeferral),
}

impl Check {
    /// A check of `target`.
    pub fn new(target: &str) -> Check {
        Check {
            target: target.to_string(),
            robots: None,
            robots_asked: false,
            end: None,
        }
    }

    /// The URL checked.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// The robots.txt fetch ended: its deferral is the answer, else the
    /// gate is asked again.
    fn robots_ended(&mut self, end: Result<(), RobotsDeferral>) {
        self.robots = None;
        if let Err(d) = end {
            self.end = Some(Checked::RobotsDeferred(d));
        }
    }
}

impl Machine for Check {
    type Output = Checked;

    fn next_host(&self) -> Option<HostKey> {
        match &self.robots {
            Some(r) => r.next_host(),
            None => host_of(&self.target),
        }
    }

    fn poll(&mut self, cx: &mut Ctx<'_>) -> Action<Checked> {
        loop {
            if let Some(end) = self.end.take() {
                return Action::Done(end);
            }
            if let Some(r) = &mut self.robots {
                match r.poll(cx) {
                    Action::Done(end) => {
                        self.robots_ended(end);
                        continue;
                    }
                    Action::Send(req) => return Action::Send(req),
                    Action::NeedBlocklist => return Action::NeedBlocklist,
                    Action::Wait(t) => return Action::Wait(t),
                }
            }
            match cx.gate.check(&self.target, cx.now) {
                Decision::NeedBlocklist => return Action::NeedBlocklist,
                Decision::NeedRobots(robots) if !self.robots_asked => {
                    self.robots_asked = true;
                    self.robots = Some(RobotsFetch::new(&self.target, &robots));
                }
                _ => return Action::Done(Checked::Decided { at: cx.now }),
            }
        }
    }

    fn handle_response(&mut self, cx: &mut Ctx<'_>, response: Response, sent_kind: Option<&str>) {
        if let Some(r) = &mut self.robots {
            r.handle_response(cx, response, sent_kind);
        }
    }

    fn handle_failure(&mut self, cx: &mut Ctx<'_>, failure: Failure) {
        if let Some(r) = &mut self.robots {
            r.handle_failure(cx, failure);
        }
    }

    /// Only a deferral of robots.txt ends a check on an answer; a learnt
    /// robots.txt is judged by the next poll, when the host's schedule has
    /// been read again.
    fn take_output(&mut self) -> Option<Checked> {
        if let Some(end) = self.robots.as_mut().and_then(RobotsFetch::take_output) {
            self.robots_ended(end);
        }
        self.end.take()
    }
}
