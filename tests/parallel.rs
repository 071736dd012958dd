//! The `parallel` feature (issue 21): top-level sums over many steps run in chunks on
//! rayon's pool, added in a fixed tree, so a result is the same for any number of threads;
//! without the feature (or with `#![fsmooth(parallel = false)]`) nothing changes.
//! `cargo test --features parallel --test parallel`.
#![cfg(feature = "parallel")]

use fsmooth::{Error, Region, fsmooth};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Allocations by every thread (rayon's workers included).
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

/// Held by every test: the count above is global, so the tests run one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

struct Counting;

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fsmooth! {
    /// A sum whose steps use the frame: each point's scaled copy is an array.
    pub fn energy(x: [[f64; d]; n], w: [f64; d]) -> f64 {
        ifold(n, 0.5, |acc, i| {
            let v = build(d, |j| x[i][j] * w[j]);
            acc + (sum(v) * 0.01).exp()
        })
    }

    /// The same sum through an index array: a bad index is an error.
    pub fn gathered(x: [f64; m], at: [usize; n]) -> f64 {
        ifold(n, 0.0, |acc, i| acc + x[at[i]] * x[at[i]])
    }

    /// A sum reading a table in the frame (`p` slots: the running sums of `w`).
    pub fn weighted(x: [f64; n], w: [f64; p]) -> f64 {
        let s = scan(p, 0.0, |a, j| a + w[j]);
        ifold(n, 0.0, |acc, i| acc + x[i] * s[i % p])
    }

    /// A row per point, each from an array in the frame.
    pub fn rows(x: [[f64; d]; n], w: [f64; d]) -> [[f64; 2]; n] {
        build(n, |i| {
            let v = build(d, |j| x[i][j] * w[j]);
            [sum(v), v[0] * 2.0 + v[d - 1]]
        })
    }

    /// A scalar per point, at an index computed from an index array (checked where used).
    pub fn picked(x: [f64; m], at: [usize; n]) -> [f64; n] {
        build(n, |i| x[at[i] * 2].exp())
    }
}

mod in_order {
    fsmooth::fsmooth! {
        #![fsmooth(parallel = false)]
        pub fn rows(x: [[f64; d]; n], w: [f64; d]) -> [[f64; 2]; n] {
            build(n, |i| {
                let v = build(d, |j| x[i][j] * w[j]);
                [sum(v), v[0] * 2.0 + v[d - 1]]
            })
        }

        pub fn energy(x: [[f64; d]; n], w: [f64; d]) -> f64 {
            ifold(n, 0.5, |acc, i| {
                let v = build(d, |j| x[i][j] * w[j]);
                acc + (sum(v) * 0.01).exp()
            })
        }
    }
}

const D: usize = 3;

fn points(n: usize) -> Vec<f64> {
    (0..n * D)
        .map(|k| ((k * 7919) % 1000) as f64 / 250.0 - 2.0)
        .collect()
}

/// Step `i`'s term, as the kernel computes it.
fn term(x: &[f64], w: &[f64], i: usize) -> f64 {
    let v: Vec<f64> = (0..D).map(|j| x[i * D + j] * w[j]).collect();
    (v.iter().fold(-0.0, |s, t| s + t) * 0.01).exp()
}

/// The documented order: chunks of 1024 steps summed in order from -0.0, the chunks' sums
/// in a binary tree split at the midpoint of the chunk numbers, then the first value plus it.
fn chunked(x: &[f64], w: &[f64], n: usize) -> f64 {
    fn tree(x: &[f64], w: &[f64], n: usize, a: usize, b: usize) -> f64 {
        if b - a == 1 {
            return (a * 1024..(b * 1024).min(n)).fold(-0.0, |s, i| s + term(x, w, i));
        }
        let mid = a + (b - a) / 2;
        tree(x, w, n, a, mid) + tree(x, w, n, mid, b)
    }
    0.5 + tree(x, w, n, 0, n.div_ceil(1024))
}

fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

#[test]
fn a_large_sum_is_the_same_on_any_number_of_threads_and_adds_in_the_documented_order() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 50_000;
    let (x, w) = (points(n), [0.3, -0.2, 0.1]);
    let one = on_threads(1, || energy(&x, &w, &mut Region::new()).unwrap());
    for threads in [2, 3, 4] {
        let got = on_threads(threads, || energy(&x, &w, &mut Region::new()).unwrap());
        assert_eq!(got.to_bits(), one.to_bits(), "{threads} threads");
    }
    assert_eq!(one.to_bits(), chunked(&x, &w, n).to_bits());
    // In order, the additions differ: the block that asks for it keeps them.
    let seq = (0..n).fold(0.5, |s, i| s + term(&x, &w, i));
    let kept = in_order::energy(&x, &w, &mut Region::new()).unwrap();
    assert_eq!(kept.to_bits(), seq.to_bits());
    assert!((one - seq).abs() <= 1e-9 * seq.abs(), "{one} vs {seq}");
}

#[test]
fn a_sum_of_few_steps_runs_in_order() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 4095;
    let (x, w) = (points(n), [0.3, -0.2, 0.1]);
    let seq = (0..n).fold(0.5, |s, i| s + term(&x, &w, i));
    let got = on_threads(2, || energy(&x, &w, &mut Region::new()).unwrap());
    assert_eq!(got.to_bits(), seq.to_bits());
}

#[test]
fn the_first_bad_index_is_the_error_whatever_the_threads() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let x = vec![1.0; 10];
    let mut at = vec![3usize; 20_000];
    at[17_000] = 12;
    at[9_000] = 11;
    for threads in [1, 2, 4] {
        let got = on_threads(threads, || gathered(&x, &at, &mut Region::new()));
        assert_eq!(
            got,
            Err(Error::Index { index: 11, len: 10 }),
            "{threads} threads"
        );
    }
    at[9_000] = 3;
    at[17_000] = 3;
    assert_eq!(gathered(&x, &at, &mut Region::new()), Ok(20_000.0));
}

#[test]
fn a_warm_call_allocates_nothing() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 50_000;
    let (x, w) = (points(n), [0.3, -0.2, 0.1]);
    on_threads(2, || {
        let mut slab = vec![0.0; energy::scratch_len(D, n)];
        let mut region = Region::from_slab(&mut slab);
        // Warm-up: rayon's pool and each worker's frame.
        for _ in 0..3 {
            energy(&x, &w, &mut region).unwrap();
        }
        let before = ALLOCS.load(Ordering::Relaxed);
        for _ in 0..5 {
            energy(&x, &w, &mut region).unwrap();
        }
        assert_eq!(ALLOCS.load(Ordering::Relaxed) - before, 0);
    });
}

#[test]
fn a_large_build_writes_every_row_as_in_order_on_any_number_of_threads() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 10_000;
    let (x, w) = (points(n), [0.3, -0.2, 0.1]);
    let mut want = vec![0.0; 2 * n];
    in_order::rows(&mut want, &x, &w, &mut Region::new()).unwrap();
    for (i, row) in want.chunks(2).enumerate() {
        let v: Vec<f64> = (0..D).map(|j| x[i * D + j] * w[j]).collect();
        assert_eq!(
            row,
            [v.iter().fold(-0.0, |s, t| s + t), v[0] * 2.0 + v[D - 1]]
        );
    }
    for threads in [1, 2, 4] {
        let mut got = vec![f64::NAN; 2 * n];
        on_threads(threads, || rows(&mut got, &x, &w, &mut Region::new())).unwrap();
        assert!(
            got.iter()
                .zip(&want)
                .all(|(a, b)| a.to_bits() == b.to_bits()),
            "{threads} threads"
        );
    }
}

#[test]
fn a_large_build_s_bad_index_is_the_first_in_order() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let x = vec![0.5; 10];
    let mut at = vec![2usize; 9_000];
    at[8_500] = 7;
    at[5_000] = 6;
    for threads in [1, 2, 4] {
        let mut out = vec![0.0; 9_000];
        let got = on_threads(threads, || picked(&mut out, &x, &at, &mut Region::new()));
        assert_eq!(
            got,
            Err(Error::Index { index: 12, len: 10 }),
            "{threads} threads"
        );
        // Every row before the bad one is written.
        assert!(out[..5_000].iter().all(|v| *v == 0.5f64.exp()));
    }
    at[5_000] = 2;
    at[8_500] = 2;
    let mut out = vec![0.0; 9_000];
    picked(&mut out, &x, &at, &mut Region::new()).unwrap();
    assert!(out.iter().all(|v| *v == 0.5f64.exp()));
}

#[test]
fn a_sum_whose_frame_is_larger_than_a_chunk_runs_in_order() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let n = 20_000;
    let x: Vec<f64> = (0..n).map(|i| ((i * 31) % 97) as f64 / 97.0).collect();
    for p in [10, 2_000] {
        let w: Vec<f64> = (0..p).map(|j| j as f64 / p as f64 - 0.5).collect();
        assert!(
            weighted::scratch_len(n, p) >= p,
            "the table is in the frame"
        );
        let sums: Vec<f64> = w
            .iter()
            .scan(0.0, |a, v| {
                *a += v;
                Some(*a)
            })
            .collect();
        let term = |i: usize| x[i] * sums[i % p];
        let want = if p <= 1024 {
            // Chunks of 1,024 in their tree.
            fn tree(t: &dyn Fn(usize) -> f64, n: usize, a: usize, b: usize) -> f64 {
                if b - a == 1 {
                    return (a * 1024..(b * 1024).min(n)).fold(-0.0, |s, i| s + t(i));
                }
                let mid = a + (b - a) / 2;
                tree(t, n, a, mid) + tree(t, n, mid, b)
            }
            0.0 + tree(&term, n, 0, n.div_ceil(1024))
        } else {
            // Each chunk would copy 2,000 slots: in order.
            (0..n).fold(0.0, |s, i| s + term(i))
        };
        for threads in [1, 2] {
            let got = on_threads(threads, || weighted(&x, &w, &mut Region::new()).unwrap());
            assert_eq!(got.to_bits(), want.to_bits(), "p = {p}, {threads} threads");
        }
    }
}
