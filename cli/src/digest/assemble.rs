//! Assembly: from a run's reports and the store to the day's digest
//! sections. The run's report says what this run found; the store holds
//! what today's earlier digests delivered, and the robots.txt signals;
//! the sources file says how each section is filtered and cut. The words
//! of the result are [`super`]'s.

use super::{DigestItem, SourceReport, Status};
use crate::sources;
use crate::ui::Ui;
use wr_core::time::Timestamp;
use wr_feeds::store::{DigestSource, Store};
use wr_feeds::SourceStatus;

/// The day's digest so far, per source: the items earlier digests of
/// today delivered come first, in the order they were delivered, then
/// this run's, each once. A rerun never writes a poorer digest, whatever
/// R8 or a 304 says of the source now. With `all`, this run's alone.
pub(crate) fn day_so_far(
    store: &Store,
    run: &[wr_feeds::SourceReport],
    all: bool,
    day: &str,
    ui: &Ui,
) -> Vec<wr_feeds::SourceReport> {
    let today = super::parse_day(day).ok().map(|d| super::days(d, d, d));
    // A digest day stored after today, by a clock that was ahead, is
    // today's (issue #20), written back as the pipeline wrote back the
    // schedule's instants when it opened.
    if let Err(e) = store.clamp_days(day) {
        ui.warn(&format!(
            "digest days stored after today could not be moved to today ({e})"
        ));
    }
    let mut day_sources = run.to_vec();
    if all {
        return day_sources;
    }
    for r in &mut day_sources {
        let Some(today) = &today else { break };
        match store.day_items(&r.key, today) {
            Ok(mut earlier) if !earlier.is_empty() => {
                let listed: std::collections::HashSet<String> =
                    earlier.iter().map(|e| e.id.clone()).collect();
                r.items.retain(|i| !listed.contains(&i.id));
                earlier.append(&mut r.items);
                r.items = earlier;
            }
            Ok(_) => {}
            Err(e) => ui.warn(&format!(
                "today's earlier items of `{}` could not be read ({e}); this digest lists \
                 only this run's",
                r.name
            )),
        }
    }
    day_sources
}

/// The digest's sections, and their heads as the store keeps them for
/// `show`.
pub(crate) struct Sections {
    /// Each section whole (before filters and `max_items`), as `show`
    /// reads it back.
    pub heads: Vec<DigestSource>,
    /// Each section filtered, cut to its `max_items`, each link listed
    /// once (under the first source).
    pub reports: Vec<SourceReport>,
}

/// The sections of `active` (the enabled sources, in the file's order)
/// from `day_sources` (theirs, in the same order).
pub(crate) fn sections(
    store: &Store,
    active: &[&sources::Source],
    day_sources: &[wr_feeds::SourceReport],
    filters: &crate::filters::Filters,
    ui: &Ui,
) -> Sections {
    // Each section whole, as the store keeps it for `show`, then cut to
    // the source's max_items.
    let whole: Vec<SourceReport> = active
        .iter()
        .copied()
        .zip(day_sources)
        .map(|(s, r)| {
            let mut w = to_report(s, r);
            // The publisher's usage preferences, from the robots.txt of
            // the origin the source was read from (or would be).
            match wr_feeds::pipeline::source_signals(store, &r.key) {
                Ok(signals) => w.signals = signals,
                Err(e) => ui.warn(&format!(
                    "the robots.txt signals of `{}` could not be read ({e})",
                    s.name
                )),
            }
            w
        })
        .collect();
    let heads: Vec<DigestSource> = whole
        .iter()
        .zip(day_sources)
        .zip(active)
        .map(|((w, r), s)| DigestSource {
            source: r.key.clone(),
            name: w.name.clone(),
            url: w.url.clone(),
            tags: w.tags.clone(),
            status: w.status.as_str().to_string(),
            reason: w.reason.clone(),
            outcome: Some(wr_feeds::store::SectionOutcome {
                status: r.status.clone(),
                notes: r.notes.clone(),
            }),
            method: w.method.clone(),
            max_items: s.max_items.and_then(|n| u64::try_from(n).ok()),
            written_at: Timestamp(0),
        })
        .collect();
    // Then filtered (`[filters]`, the source's keep/drop), cut to its
    // max_items, and each link listed once, under the first source.
    let mut reports: Vec<SourceReport> = whole
        .into_iter()
        .zip(active)
        .map(|(w, s)| filtered(w, filters, s).capped(s.max_items))
        .collect();
    super::list_once(&mut reports);
    Sections { heads, reports }
}

/// A source's section of the digest, with every item `r` holds (cut to
/// its `max_items` by [`SourceReport::capped`]).
pub(crate) fn to_report(src: &sources::Source, r: &wr_feeds::SourceReport) -> SourceReport {
    let status = match &r.status {
        SourceStatus::Ok { .. } => Status::Ok,
        SourceStatus::Skipped { .. } => Status::Skipped,
        SourceStatus::DeniedBlocklist { .. } | SourceStatus::DeniedRobots { .. } => Status::Denied,
        SourceStatus::Deferred { .. } => Status::Deferred,
        SourceStatus::LeftOut { .. } => Status::LeftOut,
        SourceStatus::Failed { .. } => Status::Failed,
    };
    let reason = wr_feeds::words::digest_reason(&r.status, &r.notes);
    SourceReport {
        name: src.name.clone(),
        url: src.url.clone(),
        tags: src.tags.clone(),
        status,
        reason,
        method: r.method.map(|m| m.as_str().to_string()),
        items: r.items.iter().map(DigestItem::from).collect(),
        not_listed: 0,
        filtered: Vec::new(),
        listed_elsewhere: 0,
        signals: Vec::new(),
    }
}

/// The section with only the items the filters keep, and what each
/// filter left out.
pub(crate) fn filtered(
    mut r: SourceReport,
    global: &crate::filters::Filters,
    src: &sources::Source,
) -> SourceReport {
    use crate::filters::{apply, Scope};
    let items = std::mem::take(&mut r.items);
    let (kept, counts) = apply(
        items,
        [(global, Scope::Global), (&src.filters, Scope::Source)],
        |i: &DigestItem| (i.title.as_str(), i.url.as_str()),
    );
    r.items = kept;
    r.filtered = counts;
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(status: SourceStatus) -> SourceReport {
        let src = sources::Source {
            name: "denied by robots.txt (R2): a name".into(),
            url: "https://denied.example/".into(),
            feed: None,
            tags: vec![],
            enabled: true,
            max_items: None,
            filters: Default::default(),
        };
        let r = wr_feeds::SourceReport {
            name: src.name.clone(),
            key: src.url.clone(),
            status,
            items: vec![],
            method: None,
            fetched_url: None,
            notes: vec!["denied by the operator blocklist (R3): a note".into()],
        };
        to_report(&src, &r)
    }

    /// A denied source's reason is written from the denial's facts, not
    /// cut out of the status's sentence: words of the label in the URL,
    /// the rule, the source's name or its notes change nothing.
    #[test]
    fn a_denial_is_carried_as_data_not_read_back_from_its_words() {
        let r = section(SourceStatus::DeniedRobots {
            url: "https://denied.example/denied by robots.txt (R2): x".into(),
            rule: "Disallow: /denied by ".into(),
            line: 7,
        });
        assert_eq!(r.status, Status::Denied);
        assert_eq!(
            r.reason.as_deref(),
            Some(
                "robots.txt (R2): https://denied.example/denied by robots.txt (R2): x \
                 (Disallow: /denied by , line 7)"
            )
        );
        let r = section(SourceStatus::DeniedBlocklist {
            url: "https://denied.example/".into(),
            domain: "denied.example".into(),
        });
        assert_eq!(r.status, Status::Denied);
        assert_eq!(
            r.reason.as_deref(),
            Some("the operator blocklist (R3): https://denied.example/ (denied.example is listed)")
        );
    }
}
