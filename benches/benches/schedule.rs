//! Scheduling on a virtual clock (no network, no sleeping): total time of
//! the pipeline's order against the naive one-after-another order and the
//! lower bound max(sum of response times, longest per-host chain).
//!
//! The "pipeline" column uses `sched::LocalPolicy`, a LOCAL PLACEHOLDER for
//! the real scheduler in `feeds` (being written); swap it for the real
//! scheduler call when it lands.
//!
//! `cargo bench -p wr-benches --bench schedule`

use wr_benches::sched::{lower_bound, naive, scenarios, simulate, LocalPolicy, LongestChainFirst};

fn secs(ms: u64) -> String {
    format!("{:.1}", ms as f64 / 1000.0)
}

fn main() {
    // `cargo bench -- <filter>` passes arguments; this table is cheap, so it
    // always runs, except under `--list` (used by tooling).
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    println!("scheduling simulation (virtual clock; pipeline = LocalPolicy PLACEHOLDER for the feeds scheduler)");
    println!(
        "{:<32} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11}",
        "scenario",
        "N",
        "H",
        "bound s",
        "naive s",
        "pipe s",
        "pipe/lb",
        "naive/lb",
        "lcf s",
        "lcf/lb"
    );
    let mut worst: f64 = 0.0;
    for sc in scenarios() {
        let lb = lower_bound(&sc);
        let n = simulate(&sc, &mut naive);
        let p = simulate(&sc, &mut LocalPolicy);
        let l = simulate(&sc, &mut LongestChainFirst);
        let r = p.total as f64 / lb as f64;
        worst = worst.max(r);
        println!(
            "{:<32} {:>5} {:>5} {:>9} {:>9} {:>9} {:>9.3} {:>9.3} {:>9} {:>11.3}",
            sc.name,
            sc.sources.len(),
            sc.delays.len(),
            secs(lb),
            secs(n.total),
            secs(p.total),
            r,
            n.total as f64 / lb as f64,
            secs(l.total),
            l.total as f64 / lb as f64,
        );
    }
    println!(
        "goal: pipeline within 10% of the lower bound: worst pipe/lb = {worst:.3} -> {}",
        if worst <= 1.10 { "MET" } else { "MISSED" }
    );
}
