//! Times `fsmooth_core::expand` on the blocks of `benches/expansion_blocks`: eighteen kernels,
//! the 4-state Kalman step, `add3`. Runs in either profile, so it measures the macro as cargo
//! builds it by default (`cargo run -p fsmooth-core --example expansion_time`, the dev
//! profile, unoptimised) and in release (`--release`). Prints, per block, the fastest and
//! the median of several expansions and a hash of the generated code (equal hashes before
//! and after a change: the change left the expansion as it was).
//!
//! `cargo run --release -p fsmooth-core --example expansion_time -- kalman 50` times only the
//! blocks whose name contains `kalman`, 50 times each; with a third argument, `passes`, it
//! also prints where an expansion of each block spends its time (the fastest of five) (the front end, each middle
//! pass summed over the block's kernels, lowering, emitting).

use fsmooth_core::front::diag::Diags;
use fsmooth_core::{emit, pipeline};
use proc_macro2::TokenStream;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

#[path = "../benches/expansion_blocks/mod.rs"]
mod expansion_blocks;

fn main() {
    let mut args = std::env::args().skip(1);
    let filter = args.next().unwrap_or_default();
    let runs: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let passes = args.next().is_some_and(|a| a == "passes");
    for block in expansion_blocks::blocks() {
        if !block.name.contains(filter.as_str()) {
            continue;
        }
        let code = fsmooth_core::expand(block.tokens.clone()).to_string();
        let mut hasher = DefaultHasher::new();
        code.hash(&mut hasher);
        // Enough runs for about two seconds, at least 5, unless a count was given.
        let started = Instant::now();
        let mut times = Vec::new();
        let enough = |done: usize| match runs {
            0 => done >= 5 && started.elapsed() >= Duration::from_secs(2),
            n => done >= n,
        };
        while !enough(times.len()) {
            let tokens = block.tokens.clone();
            let t = Instant::now();
            let out = fsmooth_core::expand(tokens);
            times.push(t.elapsed());
            drop(out);
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "{:<18} min {:>9.3} ms  median {:>9.3} ms  ({} runs)  code {:016x}",
            block.name,
            ms(times[0]),
            ms(times[times.len() / 2]),
            times.len(),
            hasher.finish()
        );
        if passes {
            // The fastest of five, phase by phase (the machine may be busy).
            let mut best = phases(block.tokens.clone());
            for _ in 0..4 {
                for ((_, time), (_, again)) in best.iter_mut().zip(phases(block.tokens.clone())) {
                    *time = (*time).min(again);
                }
            }
            for (phase, time) in best {
                println!("    {phase:<28} {:>9.3} ms", ms(time));
            }
        }
    }
}

/// One expansion of `tokens`, pass by pass: the time of each phase and middle pass, summed
/// over the block's kernels, in pipeline order.
fn phases(tokens: TokenStream) -> Vec<(String, Duration)> {
    let mut times: Vec<(String, Duration)> = Vec::new();
    let mut add = |name: &str, time: Duration| match times.iter_mut().find(|(n, _)| n == name) {
        Some((_, total)) => *total += time,
        None => times.push((name.to_string(), time)),
    };
    let t = Instant::now();
    let mut diags = Diags::default();
    let checked = pipeline::front(tokens, &mut diags).expect("the block parses");
    assert!(diags.is_empty(), "the block checks");
    add("front", t.elapsed());
    let options = checked.scope.options;
    for k in checked.kernels {
        let mut last = Instant::now();
        let mut middle_times: Vec<(String, Duration)> = Vec::new();
        let k = pipeline::middle_observed(
            k,
            options,
            Some(&mut |pass: &str, _: &fsmooth_core::middle::ir::Kernel| {
                middle_times.push((format!("middle {pass}"), last.elapsed()));
                last = Instant::now();
            }),
        )
        .expect("no internal compiler error");
        for (pass, time) in middle_times {
            add(&pass, time);
        }
        let t = Instant::now();
        let planned = pipeline::lower(&k, options);
        add("lower", t.elapsed());
        let t = Instant::now();
        drop(emit::kernel(&k, planned, options));
        add("emit", t.elapsed());
    }
    times
}
