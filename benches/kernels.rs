//! Wall times: one criterion group per workload, every variant side by side.
//!
//! `cargo bench --bench kernels` (add `-- GROUP` to run one group). Under `cargo test
//! --benches` every benchmark runs once as a smoke test, after each workload has checked that
//! its variants agree.

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

mod workloads;
use workloads::{Variant, Workload, each_workload};

fn group<W: Workload>(c: &mut Criterion) {
    let mut w = W::new();
    let mut g = c.benchmark_group(W::GROUP);
    for &v in W::variants() {
        g.bench_function(v.name(), |b| match v {
            Variant::Fsmooth => b.iter(|| w.fsmooth()),
            Variant::Hand => b.iter(|| w.hand()),
            Variant::HandIjk => b.iter(|| w.hand_ijk()),
            Variant::Nalgebra => b.iter(|| w.nalgebra()),
            Variant::Ndarray => b.iter(|| w.ndarray()),
            Variant::Naive => b.iter(|| w.naive()),
            Variant::D => b.iter(|| w.ablation::<0>()),
            Variant::DF => b.iter(|| w.ablation::<1>()),
            Variant::DFB => b.iter(|| w.ablation::<2>()),
            Variant::NoViews => b.iter(|| w.no_views()),
            Variant::Reassociated => b.iter(|| w.reassociated()),
            Variant::NumDual => b.iter(|| w.num_dual()),
            Variant::SpellingB => b.iter(|| w.spelling::<1>()),
            Variant::SpellingC => b.iter(|| w.spelling::<2>()),
            Variant::HandDyn => b.iter(|| w.hand_dyn()),
        });
    }
    g.finish();
}

fn all(c: &mut Criterion) {
    each_workload!(group(c));
}

criterion_group! {
    name = benches;
    // Short by default: the machine is shared. Command-line options override these.
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30);
    targets = all
}
criterion_main!(benches);
