//! One declared source through R9: a declared feed, else the page with
//! `Accept: text/markdown`, else `/llms.txt` at the host root, else left
//! out. Never a scrape.
//!
//! Decisions where the spec is silent (docs/conformance.md):
//!
//! * **A declared feed is the only path for that source**: if it fails the
//!   source fails (no silent switch to the page), and a feed URL that
//!   answers HTML fails ("never scraped").
//! * **The page's answer**: markdown → markdown; a feed type → parsed as a
//!   feed (and on to `/llms.txt` if it is not one); anything else (HTML,
//!   text/plain, no type) → `/llms.txt`. A page 4xx/5xx (after retries)
//!   fails the source. A page denied by R2 or R3 ends the source there.
//! * **`/llms.txt`**: markdown or text/plain is read as markdown; anything
//!   else, a denial, or an error status leaves the source out.
//! * **R7**: a 304 means "the representation of the validators sent": a 304
//!   for a page known to be neither markdown nor a feed goes on to
//!   `/llms.txt`.

use super::get::{Get, GetOutcome};
use super::{content_kind, Action, ContentKind, Ctx, Effect, Failure, Machine, Response};
use crate::outcome::{Cause, Deferral, LeftOut, RobotsDenial, SourceFailure};
use crate::time::Timestamp;
use alloc::string::{String, ToString};

/// `Accept` for a declared feed.
pub const FEED_ACCEPT: &str = "application/atom+xml, application/rss+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, */*;q=0.1";
/// `Accept` for a page (R9 content negotiation).
pub const MARKDOWN_ACCEPT: &str = "text/markdown";
/// `Accept` for `/llms.txt`.
pub const LLMS_ACCEPT: &str = "text/markdown, text/plain;q=0.9";

/// Where a source is in R9, and how its items were obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The declared feed (RSS, Atom, JSON Feed), or a feed the page served.
    Feed,
    /// The page, asked for markdown.
    Markdown,
    /// `/llms.txt` at the host root.
    LlmsTxt,
}

impl Stage {
    /// Stable name (`feed`, `markdown`, `llms-txt`), also the kind stored
    /// with validators.
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Feed => "feed",
            Stage::Markdown => "markdown",
            Stage::LlmsTxt => "llms-txt",
        }
    }

    /// The stage a stored kind names.
    pub fn parse(s: &str) -> Option<Stage> {
        match s {
            "feed" => Some(Stage::Feed),
            "markdown" => Some(Stage::Markdown),
            "llms-txt" => Some(Stage::LlmsTxt),
            _ => None,
        }
    }
}

/// Which extractor a body goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parser {
    /// RSS, Atom or JSON Feed.
    Feed,
    /// Markdown links (markdown pages and `/llms.txt`).
    Markdown,
}

/// A body to extract items from. If extraction fails the driver says so
/// with [`SourceFetch::extract_failed`]; R9 may still go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extract {
    /// The extractor.
    pub parser: Parser,
    /// How the items were obtained, for the digest and the validators.
    pub method: Stage,
    /// The URL that answered.
    pub url: String,
    /// The `Accept` it was asked with (validators are stored per URL and
    /// `Accept`).
    pub accept: &'static str,
    /// The response.
    pub response: Response,
}

/// How a source ended without items to extract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceOutcome {
    /// 304: nothing new on the wire (R7).
    NotModified {
        /// How the items were obtained the last time.
        method: Stage,
        /// The URL that answered.
        url: String,
        /// The 304 itself: its `Cache-Control` and `Expires` are the
        /// publisher's hints for the next fetch.
        response: Response,
    },
    /// R3 refused `url`.
    DeniedBlocklist {
        /// The URL refused (maybe a redirect target).
        url: String,
        /// The listed domain.
        domain: String,
    },
    /// R2 refused `url`.
    DeniedRobots {
        /// The URL refused (maybe a redirect target).
        url: String,
        /// What in robots.txt denied it.
        denial: RobotsDenial,
    },
    /// Not this run; tried again next run (R8 does not count it).
    Deferred {
        /// The URL held back.
        url: String,
        /// Why.
        why: Deferral,
        /// Not before, when known.
        until: Option<Timestamp>,
    },
    /// No feed, no markdown, no `/llms.txt`: left out, never scraped (R9).
    LeftOut(LeftOut),
    /// The transfer or the document failed.
    Failed(SourceFailure),
}

/// What a [`SourceFetch`] has to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceEvent {
    /// Extract items from this body; the source is done if it works.
    Extract(Extract),
    /// The source ended without items.
    Finished(SourceOutcome),
}

/// One source through R9.
#[derive(Debug, Clone)]
pub struct SourceFetch {
    page: String,
    /// `/llms.txt` at the page's origin.
    llms: String,
    stage: Stage,
    get: Get,
    /// The page answered a feed type; if it does not parse, go on.
    pending: Option<(Stage, String)>,
    end: Option<SourceEvent>,
}

impl SourceFetch {
    /// A source whose page is `page` and whose declared feed, if any, is
    /// `feed`; both absolute and in the form that is sent, and `llms` the
    /// `/llms.txt` URL of the page's origin.
    pub fn new(page: &str, feed: Option<&str>, llms: &str) -> SourceFetch {
        let (stage, get) = match feed {
            Some(f) => (Stage::Feed, Get::new(f, Some(FEED_ACCEPT))),
            None => (Stage::Markdown, Get::new(page, Some(MARKDOWN_ACCEPT))),
        };
        SourceFetch {
            page: page.to_string(),
            llms: llms.to_string(),
            stage,
            get,
            pending: None,
            end: None,
        }
    }

    /// Where the source is in R9.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The URL the next request goes to.
    pub fn url(&self) -> &str {
        self.get.url()
    }

    /// The body handed out with [`SourceEvent::Extract`] could not be read
    /// (`detail` is the extractor's words). A feed the page served goes on
    /// to `/llms.txt`; a declared feed or `/llms.txt` fails the source.
    pub fn extract_failed(&mut self, detail: &str) {
        match self.pending.take() {
            Some((Stage::Markdown, _)) => self.next_llms(),
            Some((_, url)) => {
                self.end = Some(SourceEvent::Finished(SourceOutcome::Failed(
                    SourceFailure::Unreadable {
                        url,
                        detail: detail.to_string(),
                    },
                )))
            }
            None => {}
        }
    }

    fn next_llms(&mut self) {
        self.stage = Stage::LlmsTxt;
        self.get = Get::new(&self.llms, Some(LLMS_ACCEPT));
    }

    fn extract(
        &mut self,
        parser: Parser,
        method: Stage,
        url: String,
        response: Response,
    ) -> SourceEvent {
        self.pending = Some((self.stage, url.clone()));
        SourceEvent::Extract(Extract {
            parser,
            method,
            url,
            accept: self.get.accept().unwrap_or(""),
            response,
        })
    }

    /// R9's decision for one finished GET: an event, or `None` to go on
    /// with the next stage. A GET refused or failed is decided here; one
    /// with a response in [`SourceFetch::answered`].
    fn decide(&mut self, cx: &mut Ctx<'_>, outcome: GetOutcome) -> Option<SourceEvent> {
        let leftout = |why: LeftOut| Some(SourceEvent::Finished(SourceOutcome::LeftOut(why)));
        let finished = |o: SourceOutcome| Some(SourceEvent::Finished(o));
        let failed = |f: SourceFailure| finished(SourceOutcome::Failed(f));
        let (response, url, sent_kind) = match outcome {
            GetOutcome::Response {
                response,
                url,
                sent_kind,
            } => (response, url, sent_kind),
            GetOutcome::DeniedRobots { url, denial } if self.stage == Stage::LlmsTxt => {
                return leftout(LeftOut::DeniedRobots { url, denial })
            }
            GetOutcome::DeniedBlocklist { url, domain, .. } if self.stage == Stage::LlmsTxt => {
                return leftout(LeftOut::DeniedBlocklist { url, domain })
            }
            GetOutcome::DeniedRobots { url, denial } => {
                return finished(SourceOutcome::DeniedRobots { url, denial })
            }
            GetOutcome::DeniedBlocklist { url, domain, .. } => {
                return finished(SourceOutcome::DeniedBlocklist { url, domain })
            }
            GetOutcome::Deferred { url, why, until } => {
                return finished(SourceOutcome::Deferred { url, why, until })
            }
            GetOutcome::Invalid { url, error } => {
                return failed(SourceFailure::Invalid { url, error })
            }
            GetOutcome::Failed { url, cause } => {
                return failed(SourceFailure::Fetch { url, cause })
            }
        };
        self.answered(cx, response, url, sent_kind)
    }

    /// R9's decision for a GET that got a response: by the stage it
    /// answers and its status and content, an event, or `None` to go on
    /// with the next stage.
    fn answered(
        &mut self,
        cx: &mut Ctx<'_>,
        response: Response,
        url: String,
        sent_kind: Option<String>,
    ) -> Option<SourceEvent> {
        let leftout = |why: LeftOut| Some(SourceEvent::Finished(SourceOutcome::LeftOut(why)));
        let finished = |o: SourceOutcome| Some(SourceEvent::Finished(o));
        let kind = content_kind(response.content_type.as_deref());
        match (self.stage, response.status) {
            (Stage::Markdown, 304) if matches!(sent_kind.as_deref(), Some("other") | None) => {
                self.next_llms();
                None
            }
            (stage, 304) => finished(SourceOutcome::NotModified {
                method: sent_kind.as_deref().and_then(Stage::parse).unwrap_or(stage),
                url,
                response,
            }),
            (Stage::Feed, 200..=299) if kind == ContentKind::Html => {
                finished(SourceOutcome::Failed(SourceFailure::FeedIsHtml { url }))
            }
            (Stage::Feed, 200..=299) => {
                Some(self.extract(Parser::Feed, Stage::Feed, url, response))
            }
            (Stage::Markdown, 200..=299) => match kind {
                ContentKind::Markdown => {
                    Some(self.extract(Parser::Markdown, Stage::Markdown, url, response))
                }
                ContentKind::Feed => Some(self.extract(Parser::Feed, Stage::Feed, url, response)),
                _ => {
                    cx.run.push(Effect::PageIsOther {
                        url,
                        accept: self.get.accept().unwrap_or(""),
                        etag: response.etag,
                        last_modified: response.last_modified,
                    });
                    self.next_llms();
                    None
                }
            },
            (Stage::LlmsTxt, 200..=299) => match kind {
                ContentKind::Markdown | ContentKind::PlainText => {
                    Some(self.extract(Parser::Markdown, Stage::LlmsTxt, url, response))
                }
                ContentKind::Html => leftout(LeftOut::Html { url }),
                _ => leftout(LeftOut::Type {
                    url,
                    content_type: response.content_type,
                }),
            },
            (Stage::LlmsTxt, status) => leftout(LeftOut::Status { url, status }),
            (_, status) => finished(SourceOutcome::Failed(SourceFailure::Fetch {
                url,
                cause: Cause::Status { status },
            })),
        }
    }
}

impl Machine for SourceFetch {
    type Output = SourceEvent;

    fn next_host(&self) -> Option<crate::gate::HostKey> {
        self.get.next_host()
    }

    fn poll(&mut self, cx: &mut Ctx<'_>) -> Action<SourceEvent> {
        loop {
            if let Some(end) = self.end.take() {
                return Action::Done(end);
            }
            match self.get.poll(cx) {
                Action::Done(outcome) => {
                    if let Some(event) = self.decide(cx, outcome) {
                        return Action::Done(event);
                    }
                }
                Action::Send(r) => return Action::Send(r),
                Action::NeedBlocklist => return Action::NeedBlocklist,
                Action::Wait(t) => return Action::Wait(t),
            }
        }
    }

    fn handle_response(&mut self, cx: &mut Ctx<'_>, response: Response, sent_kind: Option<&str>) {
        self.get.handle_response(cx, response, sent_kind);
        self.settle(cx);
    }

    fn handle_failure(&mut self, cx: &mut Ctx<'_>, failure: Failure) {
        self.get.handle_failure(cx, failure);
        self.settle(cx);
    }

    fn take_output(&mut self) -> Option<SourceEvent> {
        self.end.take()
    }
}

impl SourceFetch {
    /// Decides at once when the GET just ended, so the driver can take the
    /// event without polling (a poll would admit the next stage's request).
    fn settle(&mut self, cx: &mut Ctx<'_>) {
        if let Some(outcome) = self.get.take_output() {
            self.end = self.decide(cx, outcome);
        }
    }

    /// The page URL.
    pub fn page(&self) -> &str {
        &self.page
    }
}
