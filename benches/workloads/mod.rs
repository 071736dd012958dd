//! The benchmark workloads, shared by the three bench targets (`kernels`: criterion wall
//! times, `memory`: heap allocations, peak bytes and peak RSS, `instructions`: callgrind
//! instruction counts).
//!
//! Every workload holds its inputs prepared once, in each variant's own types, and one
//! method per variant that makes one call and keeps the result in the workload:
//!
//! - `fsmooth`: the kernel compiled by `fsmooth!` ([`kernels`]), writing into a buffer made
//!   once, with one `Region::new()` reused across calls;
//! - `hand`: idiomatic hand-written Rust loops over slices (the paper's hand-written C),
//!   writing into buffers made once, with any workspace made once too;
//! - `nalgebra`: nalgebra as its users write it, operators and methods, static sizes where
//!   the workload's sizes are static and dynamic (`DMatrix`, `DVector`) otherwise;
//! - `ndarray`: ndarray as its users write it, operators, `dot` and slicing;
//! - `naive`: the fsmooth source transcribed operation by operation into Rust functions
//!   that each return a fresh `Vec` (the paper's unfused code without DPS), scalar
//!   reductions not allocating;
//! - `num-dual`: a derivative by the num-dual crate's forward mode ([`num_dual`]).
//!
//! Inputs pass through `black_box` on every call, so no variant's work can be hoisted out of
//! the measuring loop. [`check`] runs every variant once and compares the results with
//! the hand-written one.

// Hand-written kernels index matrices the way C does.
#![allow(clippy::needless_range_loop, clippy::too_many_arguments, dead_code)]

pub mod ba;
pub mod ba_obs;
pub mod folds;
pub mod gmm;
pub mod gmm_grad;
pub mod hand;
pub mod images;
pub mod kernels;
pub mod kernels_v2;
pub mod linalg;
pub mod meshes;
pub mod micro;
pub mod naive;
pub mod num_dual;
pub mod respelled;
pub mod results;
pub mod scans;
pub mod scatters;
pub mod spelled;
pub mod stencils;
pub mod tuples;
pub mod views;

/// One implementation of a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// D, DF, DFB: the paper's names for the steps of its ablation.
#[allow(clippy::upper_case_acronyms)]
pub enum Variant {
    /// The fsmooth kernel.
    Fsmooth,
    /// Hand-written loops.
    Hand,
    /// Hand-written loops in the loop order fsmooth's prelude uses (matrix chains only).
    HandIjk,
    /// nalgebra.
    Nalgebra,
    /// ndarray.
    Ndarray,
    /// A fresh `Vec` per array operation.
    Naive,
    /// The paper's ablation, step D: fsmooth without fusion, every intermediate array a
    /// heap allocation of its own (`#![fsmooth(fusion = false, storage = "heap")]`).
    D,
    /// Step DF: D with fusion (`#![fsmooth(storage = "heap")]`).
    DF,
    /// Step DFB: DF with the buffer optimisations, one frame with static offsets, but taken
    /// from the heap on every call (`#![fsmooth(storage = "heap_frame")]`). The full
    /// pipeline, DFBS, takes the frame from the caller's region: that is [`Variant::Fsmooth`].
    DFB,
    /// The same fsmooth source compiled with `#![fsmooth(views = false)]`: a view written
    /// into a destination is built in scratch and copied (the tuples, scans and views
    /// workloads).
    NoViews,
    /// The same fsmooth source compiled with `#![fsmooth(reassociate = true)]`: float sums
    /// in lanes (the dot product, the layer, the matrix chain).
    Reassociated,
    /// num-dual, the forward-mode crate (the derivative workloads).
    NumDual,
    /// The same computation spelled another way a user would write it (LANGUAGE.md section
    /// 13: a sum as `sum(build(..))` instead of an `ifold`, ..); each workload says which.
    SpellingB,
    /// A third spelling.
    SpellingC,
    /// Hand-written loops over the sizes at run time, where a spelling takes a size as a
    /// name (`d: usize`) and the hand version has it as a literal: what a Rust programmer
    /// writes for the size name's kernel.
    HandDyn,
}

impl Variant {
    /// The name used in criterion ids and tables.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Fsmooth => "fsmooth",
            Variant::Hand => "hand",
            Variant::HandIjk => "hand-ijk",
            Variant::Nalgebra => "nalgebra",
            Variant::Ndarray => "ndarray",
            Variant::Naive => "naive",
            Variant::D => "fsmooth-D",
            Variant::DF => "fsmooth-DF",
            Variant::DFB => "fsmooth-DFB",
            Variant::NoViews => "fsmooth-noviews",
            Variant::Reassociated => "fsmooth-reassoc",
            Variant::NumDual => "num-dual",
            Variant::SpellingB => "fsmooth-spelling-b",
            Variant::SpellingC => "fsmooth-spelling-c",
            Variant::HandDyn => "hand-dyn",
        }
    }

    /// The variant of a name.
    pub fn from_name(s: &str) -> Option<Variant> {
        ALL.iter().copied().find(|v| v.name() == s)
    }
}

/// The variants of a workload written in three spellings (LANGUAGE.md section 13) beside a
/// hand-written version.
pub const SPELLED: [Variant; 4] = [
    Variant::Fsmooth,
    Variant::Hand,
    Variant::SpellingB,
    Variant::SpellingC,
];

/// [`SPELLED`] and the hand-written version over run-time sizes ([`Variant::HandDyn`]).
pub const SPELLED_DYN: [Variant; 5] = [
    Variant::Fsmooth,
    Variant::Hand,
    Variant::SpellingB,
    Variant::SpellingC,
    Variant::HandDyn,
];

/// Where a workload of [`SPELLED`] keeps variant `v`'s result: A, B, C, hand (and
/// [`SPELLED_DYN`]'s hand over run-time sizes).
pub fn spelled_slot(v: Variant) -> usize {
    match v {
        Variant::Fsmooth => 0,
        Variant::SpellingB => 1,
        Variant::SpellingC => 2,
        Variant::Hand => 3,
        Variant::HandDyn => 4,
        _ => unreachable!("not a variant of this workload"),
    }
}

/// Every variant, in table order.
pub const ALL: [Variant; 15] = [
    Variant::Fsmooth,
    Variant::Hand,
    Variant::HandIjk,
    Variant::Nalgebra,
    Variant::Ndarray,
    Variant::Naive,
    Variant::D,
    Variant::DF,
    Variant::DFB,
    Variant::NoViews,
    Variant::Reassociated,
    Variant::NumDual,
    Variant::SpellingB,
    Variant::SpellingC,
    Variant::HandDyn,
];

/// The standard variants and the steps of the paper's ablation.
pub const WITH_ABLATION: [Variant; 8] = [
    Variant::Fsmooth,
    Variant::Hand,
    Variant::Nalgebra,
    Variant::Ndarray,
    Variant::Naive,
    Variant::D,
    Variant::DF,
    Variant::DFB,
];

/// The variants every workload has.
pub const STANDARD: [Variant; 5] = [
    Variant::Fsmooth,
    Variant::Hand,
    Variant::Nalgebra,
    Variant::Ndarray,
    Variant::Naive,
];

/// fsmooth, hand-written, and fsmooth without destination views: the workloads of the
/// tuples, several results, scans and views (issue 17), which have no nalgebra, ndarray or
/// naive variant.
pub const WITH_NO_VIEWS: [Variant; 3] = [Variant::Fsmooth, Variant::Hand, Variant::NoViews];

/// A benchmark workload with its inputs and one method per variant.
pub trait Workload: Sized {
    /// Criterion group name.
    const GROUP: &'static str;
    /// Sizes, for the tables.
    const SIZE: &'static str;
    /// `"static"` or `"dynamic"`: which nalgebra types the nalgebra variant uses.
    const NALGEBRA: &'static str;
    /// Makes the inputs of every variant and runs each variant once (warm-up: the
    /// fsmooth region gets its memory, every output buffer exists).
    fn new() -> Self;
    /// The variants this workload has.
    fn variants() -> &'static [Variant] {
        &STANDARD
    }
    /// One call of each variant; the result stays in `self`.
    fn fsmooth(&mut self);
    fn hand(&mut self);
    fn hand_ijk(&mut self) {}
    /// Hand-written over run-time sizes; only workloads listing [`Variant::HandDyn`] have it.
    fn hand_dyn(&mut self) {}
    /// A step of the ablation (0 = D, 1 = DF, 2 = DFB); only workloads listing
    /// [`WITH_ABLATION`] have them.
    fn ablation<const STEP: usize>(&mut self) {}
    /// The kernel compiled with `#![fsmooth(views = false)]`; only workloads listing
    /// [`WITH_NO_VIEWS`] have it.
    fn no_views(&mut self) {}
    /// The kernel compiled with `#![fsmooth(reassociate = true)]`; only workloads listing
    /// [`Variant::Reassociated`] have it.
    fn reassociated(&mut self) {}
    /// The derivative by num-dual; only workloads listing [`Variant::NumDual`] have it.
    fn num_dual(&mut self) {}
    /// Spelling `K` (1: [`Variant::SpellingB`], 2: [`Variant::SpellingC`]); only workloads
    /// listing them have them.
    fn spelling<const K: usize>(&mut self) {}
    fn nalgebra(&mut self) {}
    fn ndarray(&mut self) {}
    fn naive(&mut self) {}
    /// The last result of variant `v`, flat and row-major.
    fn output(&self, v: Variant) -> Vec<f64>;
    /// Relative tolerance between variants (they round differently).
    fn tolerance() -> f64 {
        1e-12
    }
}

/// One call of variant `v` (dispatch outside any measuring loop).
pub fn call<W: Workload>(w: &mut W, v: Variant) {
    match v {
        Variant::Fsmooth => w.fsmooth(),
        Variant::Hand => w.hand(),
        Variant::HandIjk => w.hand_ijk(),
        Variant::Nalgebra => w.nalgebra(),
        Variant::Ndarray => w.ndarray(),
        Variant::Naive => w.naive(),
        Variant::D => w.ablation::<0>(),
        Variant::DF => w.ablation::<1>(),
        Variant::DFB => w.ablation::<2>(),
        Variant::NoViews => w.no_views(),
        Variant::Reassociated => w.reassociated(),
        Variant::NumDual => w.num_dual(),
        Variant::SpellingB => w.spelling::<1>(),
        Variant::SpellingC => w.spelling::<2>(),
        Variant::HandDyn => w.hand_dyn(),
    }
}

/// `iters` calls of variant `v`, the dispatch hoisted out of the loop so that each loop
/// calls one variant directly.
#[inline(never)]
pub fn repeat<W: Workload>(w: &mut W, v: Variant, iters: u64) {
    match v {
        Variant::Fsmooth => (0..iters).for_each(|_| w.fsmooth()),
        Variant::Hand => (0..iters).for_each(|_| w.hand()),
        Variant::HandIjk => (0..iters).for_each(|_| w.hand_ijk()),
        Variant::Nalgebra => (0..iters).for_each(|_| w.nalgebra()),
        Variant::Ndarray => (0..iters).for_each(|_| w.ndarray()),
        Variant::Naive => (0..iters).for_each(|_| w.naive()),
        Variant::D => (0..iters).for_each(|_| w.ablation::<0>()),
        Variant::DF => (0..iters).for_each(|_| w.ablation::<1>()),
        Variant::DFB => (0..iters).for_each(|_| w.ablation::<2>()),
        Variant::NoViews => (0..iters).for_each(|_| w.no_views()),
        Variant::Reassociated => (0..iters).for_each(|_| w.reassociated()),
        Variant::NumDual => (0..iters).for_each(|_| w.num_dual()),
        Variant::SpellingB => (0..iters).for_each(|_| w.spelling::<1>()),
        Variant::SpellingC => (0..iters).for_each(|_| w.spelling::<2>()),
        Variant::HandDyn => (0..iters).for_each(|_| w.hand_dyn()),
    }
}

/// Runs every variant once and compares its result with the hand-written one.
///
/// # Panics
///
/// If a variant's result differs (relative tolerance [`Workload::tolerance`]).
pub fn check<W: Workload>(w: &mut W) {
    let tol = W::tolerance();
    w.hand();
    let want = w.output(Variant::Hand);
    assert!(!want.is_empty() && want.iter().all(|v| v.is_finite()));
    for &v in W::variants() {
        call(w, v);
        let got = w.output(v);
        assert_eq!(got.len(), want.len(), "{}/{}: length", W::GROUP, v.name());
        for (k, (g, e)) in got.iter().zip(&want).enumerate() {
            let scale = g.abs().max(e.abs()).max(1.0);
            assert!(
                (g - e).abs() <= tol * scale,
                "{}/{}: element {k}: {g} vs hand-written {e}",
                W::GROUP,
                v.name()
            );
        }
    }
}

/// Calls `$f::<W>($args)` for every workload type, in table order.
macro_rules! each_workload {
    ($f:ident ( $($arg:expr),* )) => {{
        $f::<$crate::workloads::micro::Add3>($($arg),*);
        $f::<$crate::workloads::micro::Cross>($($arg),*);
        $f::<$crate::workloads::micro::Dot>($($arg),*);
        $f::<$crate::workloads::ba::Project>($($arg),*);
        $f::<$crate::workloads::ba::Reproj>($($arg),*);
        $f::<$crate::workloads::ba_obs::BaObs<false>>($($arg),*);
        $f::<$crate::workloads::ba_obs::BaObs<true>>($($arg),*);
        $f::<$crate::workloads::hand::Hand<false>>($($arg),*);
        $f::<$crate::workloads::hand::Hand<true>>($($arg),*);
        $f::<$crate::workloads::gmm::Gmm<2>>($($arg),*);
        $f::<$crate::workloads::gmm::Gmm<10>>($($arg),*);
        $f::<$crate::workloads::gmm::Gmm<20>>($($arg),*);
        $f::<$crate::workloads::gmm_grad::GmmGrad<2>>($($arg),*);
        $f::<$crate::workloads::gmm_grad::GmmGrad<10>>($($arg),*);
        $f::<$crate::workloads::gmm_grad::GmmGrad<20>>($($arg),*);
        $f::<$crate::workloads::gmm_grad::BaJacobian<false>>($($arg),*);
        $f::<$crate::workloads::gmm_grad::BaJacobian<true>>($($arg),*);
        $f::<$crate::workloads::gmm_grad::HandJacobian>($($arg),*);
        $f::<$crate::workloads::linalg::MatChain<16>>($($arg),*);
        $f::<$crate::workloads::linalg::MatChain<64>>($($arg),*);
        $f::<$crate::workloads::linalg::Blur>($($arg),*);
        $f::<$crate::workloads::linalg::Layer>($($arg),*);
        $f::<$crate::workloads::linalg::Kalman>($($arg),*);
        $f::<$crate::workloads::tuples::Kalman2>($($arg),*);
        $f::<$crate::workloads::tuples::MeanVar<10_000>>($($arg),*);
        $f::<$crate::workloads::tuples::MeanVar<1_000_000>>($($arg),*);
        $f::<$crate::workloads::scans::Biquad<10_000, false>>($($arg),*);
        $f::<$crate::workloads::scans::Biquad<1_000_000, false>>($($arg),*);
        $f::<$crate::workloads::scans::Biquad<10_000, true>>($($arg),*);
        $f::<$crate::workloads::scans::Biquad<1_000_000, true>>($($arg),*);
        $f::<$crate::workloads::scans::Ema<10_000>>($($arg),*);
        $f::<$crate::workloads::scans::Ema<1_000_000>>($($arg),*);
        $f::<$crate::workloads::scans::RunningMean>($($arg),*);
        $f::<$crate::workloads::views::ConcatMaps<1_000>>($($arg),*);
        $f::<$crate::workloads::views::ConcatMaps<1_000_000>>($($arg),*);
        $f::<$crate::workloads::views::Smooth3<10_000>>($($arg),*);
        $f::<$crate::workloads::views::Smooth3<1_000_000>>($($arg),*);
        $f::<$crate::workloads::views::Filter3x3>($($arg),*);
        $f::<$crate::workloads::stencils::Jacobi>($($arg),*);
        $f::<$crate::workloads::stencils::FilterClamped>($($arg),*);
        $f::<$crate::workloads::spelled::MlpLoss>($($arg),*);
        $f::<$crate::workloads::spelled::MlpGrad>($($arg),*);
        $f::<$crate::workloads::spelled::Histogram>($($arg),*);
        $f::<$crate::workloads::spelled::KMeans>($($arg),*);
        $f::<$crate::workloads::spelled::CgPoisson>($($arg),*);
        $f::<$crate::workloads::folds::Welford>($($arg),*);
        $f::<$crate::workloads::folds::Goertzel>($($arg),*);
        $f::<$crate::workloads::folds::CholeskySolve>($($arg),*);
        $f::<$crate::workloads::images::Downsample>($($arg),*);
        $f::<$crate::workloads::images::Pyramid>($($arg),*);
        $f::<$crate::workloads::folds::KalmanPacked>($($arg),*);
        $f::<$crate::workloads::folds::GaussSeidel>($($arg),*);
        $f::<$crate::workloads::scatters::Resample>($($arg),*);
        $f::<$crate::workloads::scatters::ScatterHistogram>($($arg),*);
        $f::<$crate::workloads::scatters::CentroidSums>($($arg),*);
        $f::<$crate::workloads::meshes::MeshEdges>($($arg),*);
        $f::<$crate::workloads::meshes::MeshFaces>($($arg),*);
    }};
}
pub(crate) use each_workload;

pub use fsmooth_testdata::Rng;
