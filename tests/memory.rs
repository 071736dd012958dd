//! Memory: zero heap allocations per call in steady state, and slabs of exactly
//! `scratch_len` slots. A counting global allocator makes the counts exact.

#[macro_use]
mod common;
use fsmooth::{Error, Region};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // Per thread, so tests running in parallel do not count each other's allocations.
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

fn bump() {
    ALLOCS.with(|c| c.set(c.get() + 1));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        bump();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        bump();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(p, l, n) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[macro_use]
#[path = "shared/adbench_kernels.rs"]
mod adbench_kernels;

/// Heap allocations made by `f` on this thread.
fn allocations(f: impl FnOnce()) -> usize {
    let before = ALLOCS.with(Cell::get);
    f();
    ALLOCS.with(Cell::get) - before
}

mod k {
    block! {
        pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
            add(add(a, b), c)
        }

        pub fn norm_add(a: [f64; n], b: [f64; n]) -> f64 {
            norm(add(a, b))
        }

        /// A stencil with several readers: `s` is stored once.
        pub fn blur(a: [f64; n]) -> [f64; n - 2] {
            let s = smul(a, 0.5);
            build(n - 2, |i| s[i] + s[i + 1] + s[i + 2])
        }

        /// An array used twice is stored at most once.
        pub fn twice(a: [f64; n], b: [f64; n]) -> f64 {
            let t = build(n, |i| (a[i] * b[i]).exp());
            sum(t) * vmax(t)
        }

        pub fn chain(a: [[f64; n]; n], b: [[f64; n]; n], c: [[f64; n]; n]) -> [[f64; n]; n] {
            matmul(matmul(a, b), c)
        }

        /// Fixed sizes: constants firmware can size static slabs with.
        pub fn step(x: [f64; 4], p: [[f64; 4]; 4]) -> [f64; 4] {
            matvec(matmul(p, p), x)
        }
    }
}

mod unfused {
    block! {
        #![fsmooth(fusion = false)]
        pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
            add(add(a, b), c)
        }
    }
}

#[test]
fn fusion_can_be_turned_off_for_measurements() {
    // Without fusion the inner `add` is stored: the paper's D variant against DF.
    assert_eq!(unfused::add3::scratch_len(100), 100);
    assert_eq!(k::add3::scratch_len(100), 0);
    let (a, b, c) = ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]);
    let (mut x, mut y) = ([0.0; 2], [0.0; 2]);
    let mut region = Region::new();
    unfused::add3(&mut x, &a, &b, &c, &mut region).unwrap();
    k::add3(&mut y, &a, &b, &c, &mut region).unwrap();
    assert_eq!(x, y);
}

#[test]
fn fused_kernels_need_no_scratch() {
    assert_eq!(k::add3::scratch_len(1000), 0);
    assert_eq!(k::norm_add::scratch_len(1000), 0);
}

#[test]
fn arrays_with_several_readers_are_stored_once() {
    assert_eq!(k::blur::scratch_len(10), 10);
    assert_eq!(k::twice::scratch_len(10), 10);
    assert_eq!(k::chain::scratch_len(8), 64);
    // Each element of the product is read once, as it is made: nothing is stored.
    assert_eq!(k::step::SCRATCH_LEN, 0);
    assert_eq!(k::step::OUT_LEN, 4);
    let mut out = [0.0; 3];
    k::blur(&mut out, &[1.0, 2.0, 3.0, 4.0, 5.0], &mut Region::new()).unwrap();
    assert_eq!(out, [3.0, 4.5, 6.0]);
}

#[test]
fn bump_region_stops_allocating_after_warm_up() {
    let n = 16;
    let (a, b, c) = (vec![1.0; n * n], vec![2.0; n * n], vec![0.5; n * n]);
    let mut out = vec![0.0; n * n];
    let mut region = Region::new();
    k::chain(&mut out, &a, &b, &c, &mut region).unwrap();
    let x = vec![1.0; 100];
    let mut o = vec![0.0; 98];
    let count = allocations(|| {
        for _ in 0..2000 {
            k::chain(&mut out, &a, &b, &c, &mut region).unwrap();
            k::blur(&mut o, &x, &mut region).unwrap();
            // An empty literal names its element type (LANGUAGE.md section 17: `&[]` alone
            // could be rows of any width).
            k::add3(&mut o[..0], &[0.0; 0], &[0.0; 0], &[0.0; 0], &mut region).unwrap();
            std::hint::black_box(k::twice(&x, &x, &mut region).unwrap());
        }
    });
    assert_eq!(count, 0);
    assert_eq!(out[0], 16.0 * 16.0);
}

/// `Region::in_bump`: the first call takes its frame from the caller's arena; later calls,
/// of this kernel or of smaller ones, take nothing from the arena and nothing from the heap.
#[test]
fn arena_region_takes_from_the_arena_only_until_warm() {
    let n = 16;
    let (a, b, c) = (vec![1.0; n * n], vec![2.0; n * n], vec![0.5; n * n]);
    let mut out = vec![0.0; n * n];
    let arena = bumpalo::Bump::new();
    let mut region = Region::in_bump(&arena);
    k::chain(&mut out, &a, &b, &c, &mut region).unwrap();
    let warm = arena.allocated_bytes();
    assert!(warm >= 8 * k::chain::scratch_len(n));
    let x = vec![1.0; 100];
    let mut o = vec![0.0; 98];
    let count = allocations(|| {
        for _ in 0..2000 {
            k::chain(&mut out, &a, &b, &c, &mut region).unwrap();
            k::blur(&mut o, &x, &mut region).unwrap();
            std::hint::black_box(k::twice(&x, &x, &mut region).unwrap());
        }
    });
    assert_eq!(count, 0);
    assert_eq!(arena.allocated_bytes(), warm);
    assert_eq!(out[0], 16.0 * 16.0);
    assert_eq!(o[0], 1.5);
}

#[test]
fn slab_of_exactly_scratch_len_suffices_and_never_allocates() {
    let n = 16;
    let (a, b, c) = (vec![1.0; n * n], vec![1.0; n * n], vec![1.0; n * n]);
    let mut out = vec![0.0; n * n];
    let mut slab = vec![0.0; k::chain::scratch_len(n)];
    let count = allocations(|| {
        let mut region = Region::from_slab(&mut slab);
        for _ in 0..100 {
            k::chain(&mut out, &a, &b, &c, &mut region).unwrap();
        }
    });
    assert_eq!(count, 0);
    assert!(out.iter().all(|v| *v == 256.0));

    let mut s = [0.0; k::step::SCRATCH_LEN + 1];
    let mut o = [9.0; k::step::OUT_LEN];
    let p: Vec<f64> = (0..16)
        .map(|i| if i % 5 == 0 { 2.0 } else { 0.0 })
        .collect();
    k::step(
        &mut o,
        &[1.0, 2.0, 3.0, 4.0],
        &p,
        &mut Region::from_slab(&mut s),
    )
    .unwrap();
    assert_eq!(o, [4.0, 8.0, 12.0, 16.0]);
}

#[test]
fn short_slab_is_an_error_and_out_is_untouched() {
    let n = 4;
    let (a, b, c) = (vec![1.0; n * n], vec![1.0; n * n], vec![1.0; n * n]);
    let mut out = vec![7.0; n * n];
    let mut slab = vec![0.0; k::chain::scratch_len(n) - 1];
    let e = k::chain(&mut out, &a, &b, &c, &mut Region::from_slab(&mut slab)).unwrap_err();
    assert_eq!(
        e,
        Error::Scratch {
            needed: 16,
            available: 15
        }
    );
    assert!(out.iter().all(|v| *v == 7.0));
}

/// The ablation's storage modes (`#![fsmooth(storage = ..)]`): the same kernel, with an
/// array bound in a loop body and read twice, so that it is stored in every mode.
mod storage {
    /// The paper's D: one heap allocation per array, where it is bound (here, per row).
    pub mod heap_unfused {
        block! {
            #![fsmooth(fusion = false, storage = "heap")]
            pub fn rows(a: [[f64; m]; n], m: usize) -> [f64; n] {
                build(n, |i| { let t = smul(a[i], 2.0); sum(t) * t[0] })
            }
        }
    }
    /// DFB: one frame, from the heap, per call.
    pub mod heap_frame {
        block! {
            #![fsmooth(storage = "heap_frame")]
            pub fn rows(a: [[f64; m]; n], m: usize) -> [f64; n] {
                build(n, |i| { let t = smul(a[i], 2.0); sum(t) * t[0] })
            }
        }
    }
    /// DFBS, the default: one frame, from the region.
    pub mod region {
        block! {
            pub fn rows(a: [[f64; m]; n], m: usize) -> [f64; n] {
                build(n, |i| { let t = smul(a[i], 2.0); sum(t) * t[0] })
            }
        }
    }
}

#[test]
fn storage_modes_allocate_as_the_paper_says() {
    let (n, m) = (7, 5);
    let a: Vec<f64> = (0..n * m).map(|i| i as f64 * 0.25).collect();
    let want = common::reference(
        storage::region::SRC,
        "rows",
        &[
            fsmooth_eval::interp::Value::matrix(&a, m),
            fsmooth_eval::interp::Value::Usize(m),
        ],
    );
    let mut region = Region::new();
    let mut out = vec![0.0; n];
    storage::region::rows(&mut out, &a, m, &mut region).unwrap();
    assert_eq!(out, want);
    // The heap modes need no region room.
    assert_eq!(storage::heap_unfused::rows::scratch_len(m, n), 0);
    assert_eq!(storage::heap_frame::rows::scratch_len(m, n), 0);
    assert_eq!(storage::region::rows::scratch_len(m, n), m);
    let count = |f: &mut dyn FnMut(&mut [f64], &mut Region<'static>)| {
        let mut out = vec![0.0; n];
        let mut region = Region::new();
        f(&mut out, &mut region);
        let c = allocations(|| f(&mut out, &mut region));
        assert_eq!(out, want);
        c
    };
    let d = count(&mut |o, r| storage::heap_unfused::rows(o, &a, m, r).unwrap());
    let dfb = count(&mut |o, r| storage::heap_frame::rows(o, &a, m, r).unwrap());
    let dfbs = count(&mut |o, r| storage::region::rows(o, &a, m, r).unwrap());
    assert_eq!((d, dfb, dfbs), (n, 1, 0));
}

/// Issue 18's real workloads (BA over an index array of observations on ba1, the hand
/// objective on simple_small): no allocation at all once the region has its frame.
#[test]
fn index_array_workloads_stop_allocating_after_warm_up() {
    use adbench_kernels::{ba_obs, hand as hand_k};
    use fsmooth_testdata::{data_path, hand, parse_ba};
    let text = std::fs::read_to_string(data_path("ba/ba1_n49_m7776_p31843.txt")).unwrap();
    let ba = parse_ba(&text).unwrap();
    let obs = ba.obs_flat();
    let (mut e, mut we) = (vec![0.0; ba.p * 2], vec![0.0; ba.p]);
    let m = hand::model();
    let inp = hand::parse_input(hand::SIMPLE_SMALL, m.n_vertices()).unwrap();
    let (par, cor) = (m.parents_index(), inp.correspondences.clone());
    let (rel, ibase) = (m.base_relatives_flat(), m.inverse_base_absolutes_flat());
    let (pos, pts) = (m.base_positions_flat(), inp.points_flat());
    let mut r = vec![0.0; pts.len()];
    let mut region = Region::new();
    let mut calls = |region: &mut Region| {
        ba_obs::objective(
            &mut e, &mut we, &ba.cams, &ba.x, &ba.w, &ba.feats, &obs, region,
        )
        .unwrap();
        hand_k::objective(
            &mut r, &inp.theta, &par, &rel, &ibase, &pos, &m.weights, &cor, &pts, region,
        )
        .unwrap();
    };
    calls(&mut region); // warm-up: the region takes its frame
    let count = allocations(|| {
        for _ in 0..5 {
            calls(&mut region);
        }
    });
    assert_eq!(count, 0);
    assert!(r.iter().all(|v| v.is_finite()) && e.iter().all(|v| v.is_finite()));
}

/// Derivatives (issue 20) are kernels like any other: the GMM gradient and the BA Jacobian
/// allocate nothing once the region has its frame.
#[test]
fn derivative_workloads_stop_allocating_after_warm_up() {
    use adbench_kernels::{ba_jacobian, gmm_grad};
    use fsmooth_testdata::{parse_ba, parse_gmm, reference};
    let g = parse_gmm(fsmooth_testdata::GMM_D2_K5).unwrap();
    let c = reference::gmm_constant(g.d, g.k, g.n, g.gamma, g.m);
    let (mut ga, mut gm, mut gq) = (
        vec![0.0; g.k],
        vec![0.0; g.k * g.d],
        vec![0.0; g.k * g.icf_len()],
    );
    let ba = parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let obs = ba.obs_flat();
    let mut jac = vec![0.0; 30 * ba.p];
    let mut region = Region::new();
    let mut calls = |region: &mut Region| {
        gmm_grad::gmm_grad(
            &mut ga, &mut gm, &mut gq, &g.alphas, &g.means, &g.icf, &g.x, g.gamma, g.m as f64, c,
            region,
        )
        .unwrap();
        ba_jacobian::jacobian(&mut jac, &ba.cams, &ba.x, &ba.w, &ba.feats, &obs, region).unwrap();
    };
    calls(&mut region); // warm-up: the region takes its frame
    let count = allocations(|| calls(&mut region));
    assert_eq!(count, 0);
    assert!(ga.iter().chain(&jac).all(|v| v.is_finite()));
}
