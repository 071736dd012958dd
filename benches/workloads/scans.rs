//! Scans: a biquad IIR filter (direct form II transposed, tuple state) and an exponential
//! moving average, over 10^4 and 10^6 samples; a running mean over 10^4 in three spellings
//! (a scan read by a `build` at its own index).

use super::tuples::slot;
use super::{Rng, Variant, WITH_NO_VIEWS, Workload, kernels_v2 as k2};
use fsmooth::Region;
use std::hint::black_box;

/// A second-order Butterworth low-pass at a tenth of the sample rate: stable, so the outputs
/// stay of the inputs' size over 10^6 samples.
pub const BIQUAD_B: [f64; 3] = [0.067_455_27, 0.134_910_55, 0.067_455_27];
/// Its feedback coefficients `a1`, `a2` (`a0 = 1`).
pub const BIQUAD_A: [f64; 2] = [-1.142_980_5, 0.412_801_6];

/// Biquad, direct form II transposed: `y = b0 x + s1`, `s1 = b1 x - a1 y + s2`,
/// `s2 = b2 x - a2 y`, from a zero state.
#[inline]
pub fn biquad_hand(out: &mut [f64], x: &[f64], b: &[f64; 3], a: &[f64; 2]) {
    let (mut s1, mut s2) = (0.0, 0.0);
    for (o, &xi) in out.iter_mut().zip(x) {
        let y = b[0] * xi + s1;
        s1 = b[1] * xi - a[0] * y + s2;
        s2 = b[2] * xi - a[1] * y;
        *o = y;
    }
}

/// Exponential moving average seeded with the first sample.
#[inline]
pub fn ema_hand(out: &mut [f64], x: &[f64], alpha: f64) {
    let Some(&first) = x.first() else { return };
    let mut s = first;
    for (o, &xi) in out.iter_mut().zip(x) {
        s += alpha * (xi - s);
        *o = s;
    }
}

/// A biquad over `N` samples. `PROJ`: fsmooth's kernel takes the output with `.0`
/// (`biquad_proj`) instead of `let (y, _, _) = scan(..); y` (`biquad`).
pub struct Biquad<const N: usize, const PROJ: bool> {
    x: Vec<f64>,
    region: Region<'static>,
    out: [Vec<f64>; 3],
}

impl<const N: usize, const PROJ: bool> Workload for Biquad<N, PROJ> {
    const GROUP: &'static str = match (N, PROJ) {
        (10_000, false) => "biquad_1e4",
        (10_000, true) => "biquad_proj_1e4",
        (_, false) => "biquad_1e6",
        (_, true) => "biquad_proj_1e6",
    };
    const SIZE: &'static str = if N == 10_000 { "n = 10^4" } else { "n = 10^6" };
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = Biquad {
            x: Rng::new(19).vec(N),
            region: Region::new(),
            out: [vec![0.0; N], vec![0.0; N], vec![0.0; N]],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_NO_VIEWS
    }

    #[inline]
    fn fsmooth(&mut self) {
        // Coefficients through `black_box` too: a filter's are run-time values.
        let (out, x, b, a) = black_box((&mut self.out[0], &self.x, &BIQUAD_B, &BIQUAD_A));
        let r = if PROJ {
            k2::biquad_proj(out, x, b, a, &mut self.region)
        } else {
            k2::biquad(out, x, b, a, &mut self.region)
        };
        r.unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        // Coefficients through `black_box` too: a filter's are run-time values.
        let (out, x, b, a) = black_box((&mut self.out[1], &self.x, &BIQUAD_B, &BIQUAD_A));
        biquad_hand(out, x, b, a);
    }

    #[inline]
    fn no_views(&mut self) {
        // Coefficients through `black_box` too: a filter's are run-time values.
        let (out, x, b, a) = black_box((&mut self.out[2], &self.x, &BIQUAD_B, &BIQUAD_A));
        let r = if PROJ {
            k2::no_views::biquad_proj(out, x, b, a, &mut self.region)
        } else {
            k2::no_views::biquad(out, x, b, a, &mut self.region)
        };
        r.unwrap();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        0.0
    }
}

/// An exponential moving average over `N` samples.
pub struct Ema<const N: usize> {
    x: Vec<f64>,
    region: Region<'static>,
    out: [Vec<f64>; 3],
}

/// The EMA's smoothing factor.
pub const EMA_ALPHA: f64 = 0.05;

impl<const N: usize> Workload for Ema<N> {
    const GROUP: &'static str = if N == 10_000 { "ema_1e4" } else { "ema_1e6" };
    const SIZE: &'static str = if N == 10_000 { "n = 10^4" } else { "n = 10^6" };
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = Ema {
            x: Rng::new(20).vec(N),
            region: Region::new(),
            out: [vec![0.0; N], vec![0.0; N], vec![0.0; N]],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_NO_VIEWS
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (out, x, alpha) = black_box((&mut self.out[0], &self.x, EMA_ALPHA));
        k2::ema(out, x, alpha, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let (out, x, alpha) = black_box((&mut self.out[1], &self.x, EMA_ALPHA));
        ema_hand(out, x, alpha);
    }

    #[inline]
    fn no_views(&mut self) {
        let (out, x, alpha) = black_box((&mut self.out[2], &self.x, EMA_ALPHA));
        k2::no_views::ema(out, x, alpha, &mut self.region).unwrap();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[slot(v)].clone()
    }

    fn tolerance() -> f64 {
        0.0
    }
}

// ---- a running mean: a scan read by a build at its own index -------------------------------

fsmooth::fsmooth! {
    /// Spelling A: the scan of (sum, count) bound by a pattern, then their ratio.
    pub fn running_mean_a(x: [f64; n]) -> [f64; n] {
        let (s, c) = scan(n, (0.0, 0.0), |(s, c), i| (s + x[i], c + 1.0));
        build(n, |i| s[i] / c[i])
    }

    /// Spelling B: the scan of the means written out, the mean a third state.
    pub fn running_mean_b(x: [f64; n]) -> [f64; n] {
        let (_, _, m) = scan(n, (0.0, 0.0, 0.0), |(s, c, _), i| {
            let s1 = s + x[i];
            let c1 = c + 1.0;
            (s1, c1, s1 / c1)
        });
        m
    }

    /// Spelling C: the running sums alone, the count from the index, `map2` over them.
    pub fn running_mean_c(x: [f64; n]) -> [f64; n] {
        let sums = scan(n, 0.0, |acc, i| acc + x[i]);
        map2(sums, build(n, |i| (i + 1) as f64), |s, c| s / c)
    }
}

/// The running mean by hand: the sum and count in locals, one pass.
#[inline]
pub fn running_mean_hand(out: &mut [f64], x: &[f64]) {
    let (mut s, mut c) = (0.0, 0.0);
    for (o, &v) in out.iter_mut().zip(x) {
        s += v;
        c += 1.0;
        *o = s / c;
    }
}

/// Samples of [`RunningMean`].
pub const RM_N: usize = 10_000;

/// The mean of each prefix of 10^4 samples. A: a tuple scan bound by a pattern, then a
/// `build` of the ratios; B: the scan of the means written out; C: a scan of sums and
/// `map2` with the counts.
pub struct RunningMean {
    x: Vec<f64>,
    region: Region<'static>,
    out: [Vec<f64>; 4],
}

impl Workload for RunningMean {
    const GROUP: &'static str = "running_mean_1e4";
    const SIZE: &'static str = "n = 10^4";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut w = RunningMean {
            x: Rng::new(21).vec(RM_N),
            region: Region::new(),
            out: std::array::from_fn(|_| vec![0.0; RM_N]),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &super::SPELLED
    }

    #[inline]
    fn fsmooth(&mut self) {
        let (out, x) = black_box((&mut self.out[0], &self.x));
        running_mean_a(out, x, &mut self.region).unwrap();
    }

    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (out, x) = black_box((&mut self.out[K], &self.x));
        match K {
            1 => running_mean_b(out, x, &mut self.region).unwrap(),
            _ => running_mean_c(out, x, &mut self.region).unwrap(),
        }
    }

    #[inline]
    fn hand(&mut self) {
        let (out, x) = black_box((&mut self.out[3], &self.x));
        running_mean_hand(out, x);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        self.out[super::spelled_slot(v)].clone()
    }

    fn tolerance() -> f64 {
        // The same operations in the same order.
        0.0
    }
}
