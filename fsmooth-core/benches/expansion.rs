//! Expansion time: `fsmooth_core::expand` on eighteen kernels in one block, the 4-state Kalman
//! step alone, and `add3` alone (the blocks of `expansion_blocks`).
//!
//! `cargo bench -p fsmooth-core --bench expansion` measures the compiler built in release, as
//! a user who optimises proc macros gets it. The unoptimised build cargo gives proc macros by
//! default is measured by `cargo run -p fsmooth-core --example expansion_time`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

mod expansion_blocks;

fn expansion(c: &mut Criterion) {
    let mut g = c.benchmark_group("expansion");
    for block in expansion_blocks::blocks() {
        g.bench_function(block.name, |b| {
            b.iter(|| fsmooth_core::expand(block.tokens.clone()))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    // Short by default: the machine is shared. Command-line options override these.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20);
    targets = expansion
}
criterion_main!(benches);
