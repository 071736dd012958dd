//! Deterministic multicore (issue 21): ADBench's GMM objective on its 2.5-million-point file
//! (d = 2, K = 5), with the `parallel` feature on one thread, on two, and on rayon's global
//! pool (`RAYON_NUM_THREADS`), beside the same source kept in order
//! (`#![fsmooth(parallel = false)]`); and BA's residuals over `ba1`'s 31,843 observations
//! (a `build` per output) on one, two and all threads. Before timing, the results on 1, 2
//! and all threads are checked to be the same to the bit.
//!
//! `cargo bench --features parallel --bench parallel`.

use criterion::{Criterion, criterion_group, criterion_main};
use fsmooth::Region;
use fsmooth_testdata::{GmmInput, data_path, parse_ba, parse_gmm, reference};
use std::hint::black_box;
use std::time::Duration;

#[macro_use]
#[path = "../tests/shared/adbench_kernels.rs"]
#[allow(dead_code)]
mod adbench;

/// The same objective with its sums in order.
mod in_order {
    gmm_block!(#![fsmooth(parallel = false)]);
}

fn objective(inp: &GmmInput, c: f64, in_order: bool) -> f64 {
    let f = if in_order {
        in_order::objective
    } else {
        adbench::gmm::objective
    };
    f(
        black_box(&inp.alphas),
        &inp.means,
        &inp.icf,
        &inp.x,
        inp.gamma,
        inp.m as f64,
        c,
        &mut Region::new(),
    )
    .unwrap()
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn gmm_2_5m(c: &mut Criterion) {
    let inp = parse_gmm(fsmooth_testdata::GMM_2_5M_D2_K5).unwrap();
    gmm_group(c, "gmm_2.5M_d2_K5", &inp);
    // d = 10: ADBench has no 2.5M file of it here; its 1,000 points repeated 2,500 times.
    let mut inp = parse_gmm(fsmooth_testdata::GMM_D10_K5).unwrap();
    inp.x = inp.x.repeat(2_500);
    inp.n *= 2_500;
    gmm_group(c, "gmm_2.5M_d10_K5", &inp);
}

fn gmm_group(c: &mut Criterion, name: &str, inp: &GmmInput) {
    let k = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
    let all = objective(inp, k, false);
    let (one, two) = (pool(1), pool(2));
    let on_one = one.install(|| objective(inp, k, false));
    let on_two = two.install(|| objective(inp, k, false));
    assert_eq!(
        on_one.to_bits(),
        all.to_bits(),
        "1 thread vs the global pool"
    );
    assert_eq!(
        on_two.to_bits(),
        all.to_bits(),
        "2 threads vs the global pool"
    );
    let kept = objective(inp, k, true);
    assert!((kept - all).abs() <= 1e-9 * kept.abs(), "{kept} vs {all}");
    let mut g = c.benchmark_group(name);
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("in_order", |b| b.iter(|| objective(inp, k, true)));
    g.bench_function("parallel_1_thread", |b| {
        b.iter(|| one.install(|| objective(inp, k, false)))
    });
    g.bench_function("parallel_2_threads", |b| {
        b.iter(|| two.install(|| objective(inp, k, false)))
    });
    g.bench_function("parallel_global_pool", |b| {
        b.iter(|| objective(inp, k, false))
    });
    g.finish();
}

/// BA's two outputs over `ba1`, on the pool the caller installs.
fn ba(inp: &fsmooth_testdata::BaInput, obs: &[usize], out: &mut (Vec<f64>, Vec<f64>)) {
    adbench::ba_obs::objective(
        &mut out.0,
        &mut out.1,
        black_box(&inp.cams),
        &inp.x,
        &inp.w,
        &inp.feats,
        obs,
        &mut Region::new(),
    )
    .unwrap();
}

fn ba_obs(c: &mut Criterion) {
    let text = std::fs::read_to_string(data_path("ba/ba1_n49_m7776_p31843.txt")).unwrap();
    let inp = parse_ba(&text).unwrap();
    let obs = inp.obs_flat();
    let fresh = || (vec![0.0; 2 * inp.p], vec![0.0; inp.p]);
    let (one, two) = (pool(1), pool(2));
    let (mut a, mut b, mut all) = (fresh(), fresh(), fresh());
    one.install(|| ba(&inp, &obs, &mut a));
    two.install(|| ba(&inp, &obs, &mut b));
    ba(&inp, &obs, &mut all);
    assert!(
        a == b && b == all,
        "the same residuals on 1, 2 and all threads"
    );
    let mut out = fresh();
    let mut g = c.benchmark_group("ba_obs_ba1");
    g.sample_size(20);
    g.bench_function("parallel_1_thread", |bn| {
        bn.iter(|| one.install(|| ba(&inp, &obs, &mut out)))
    });
    g.bench_function("parallel_2_threads", |bn| {
        bn.iter(|| two.install(|| ba(&inp, &obs, &mut out)))
    });
    g.bench_function("parallel_global_pool", |bn| {
        bn.iter(|| ba(&inp, &obs, &mut out))
    });
    g.finish();
}

criterion_group!(benches, gmm_2_5m, ba_obs);
criterion_main!(benches);
