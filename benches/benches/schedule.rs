//! Scheduling on a virtual clock (no network, no sleeping): total time of
//! the pipeline's order — the real `wr_feeds::schedule::Schedule`, driving
//! the real fetch machines (`wr_core::fetch::SourceFetch` over a real
//! `Gate`, see `wr_benches::sched`) — against the
//! naive one-source-after-another order and the lower bound
//! max(sum of response times, longest per-host chain).
//!
//! `cargo bench -p wr-benches --bench schedule`

use wr_benches::sched::{
    check_rules, lower_bound, scenarios, simulate, FirstReady, Naive, Outcome, Pipeline, Scenario,
};

fn secs(ms: u64) -> String {
    format!("{:.1}", ms as f64 / 1000.0)
}

fn checked(sc: &Scenario, what: &str, o: Outcome) -> Outcome {
    if let Err(e) = check_rules(sc, &o) {
        panic!("{} / {what}: rules broken: {e}", sc.name);
    }
    o
}

fn main() {
    // `cargo bench -- <filter>` passes arguments; this table is cheap, so it
    // always runs, except under `--list` (used by tooling).
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("scheduling simulation (virtual clock; pipeline = wr_feeds::schedule::Schedule driving wr_core::fetch::SourceFetch machines over a real Gate)");
    println!(
        "{:<30} {:>4} {:>4} {:>5} {:>6} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "scenario",
        "N",
        "H",
        "extra",
        "steps",
        "bound s",
        "naive s",
        "pipe s",
        "pipe/lb",
        "naive/lb",
        "fr s",
        "fr/lb"
    );
    let mut worst: f64 = 0.0;
    let mut worst_warm: f64 = 0.0;
    for sc in scenarios() {
        let lb = lower_bound(&sc);
        let n = checked(&sc, "naive", simulate(&sc, &mut Naive::default()));
        let p = checked(&sc, "pipeline", simulate(&sc, &mut Pipeline::default()));
        let l = checked(
            &sc,
            "first-ready",
            simulate(&sc, &mut FirstReady::default()),
        );
        let r = p.total as f64 / lb as f64;
        worst = worst.max(r);
        if sc.robots.is_none() {
            worst_warm = worst_warm.max(r);
        }
        println!(
            "{:<30} {:>4} {:>4} {:>5} {:>6} {:>8} {:>8} {:>8} {:>8.3} {:>8.3} {:>8} {:>8.3}",
            sc.name,
            sc.sources.len(),
            sc.delays.len(),
            p.extra_requests(&sc),
            p.steps,
            secs(lb),
            secs(n.total),
            secs(p.total),
            r,
            n.total as f64 / lb as f64,
            secs(l.total),
            l.total as f64 / lb as f64,
        );
    }
    println!("extra = pipeline requests beyond the necessary ones (duplicate robots.txt fetches)");
    println!("fr = first-ready: the same Schedule told no hosts (the rule before the pipeline named them)");
    println!("steps = pipeline job steps (gate evaluations, one store transaction each)");
    let verdict = |w: f64| if w <= 1.10 { "MET" } else { "MISSED" };
    println!(
        "goal: pipeline within 10% of the lower bound: worst pipe/lb = {worst:.3} -> {} \
         (robots.txt cached: {worst_warm:.3} -> {})",
        verdict(worst),
        verdict(worst_warm)
    );
}
