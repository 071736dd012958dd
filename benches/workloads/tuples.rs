//! Tuples and several results: a Kalman step with a 2-D measurement returning state and
//! covariance as two results, and one-pass mean and variance (a tuple-state `ifold`).

use super::{Rng, Variant, WITH_NO_VIEWS, Workload, kernels_v2 as k2};
use fsmooth::Region;
use std::hint::black_box;

// ---- Kalman step, 2-D measurement ---------------------------------------------------------

type M4 = [[f64; 4]; 4];

/// Inputs of one step.
pub struct Kalman2In {
    pub x: [f64; 4],
    pub p: M4,
    pub f: M4,
    pub q: M4,
    pub h: [[f64; 4]; 2],
    pub r: [[f64; 2]; 2],
    pub z: [f64; 2],
}

/// `a b`.
#[inline]
fn mul<const N: usize, const K: usize, const M: usize>(
    a: &[[f64; K]; N],
    b: &[[f64; M]; K],
) -> [[f64; M]; N] {
    let mut c = [[0.0; M]; N];
    for i in 0..N {
        for j in 0..M {
            let mut s = 0.0;
            for l in 0..K {
                s += a[i][l] * b[l][j];
            }
            c[i][j] = s;
        }
    }
    c
}

/// `a b^T`.
#[inline]
fn mul_bt<const N: usize, const K: usize, const M: usize>(
    a: &[[f64; K]; N],
    b: &[[f64; K]; M],
) -> [[f64; M]; N] {
    let mut c = [[0.0; M]; N];
    for i in 0..N {
        for j in 0..M {
            c[i][j] = dot(&a[i], &b[j]);
        }
    }
    c
}

#[inline]
fn dot<const K: usize>(a: &[f64; K], b: &[f64; K]) -> f64 {
    let mut s = 0.0;
    for l in 0..K {
        s += a[l] * b[l];
    }
    s
}

/// One Kalman step on stack arrays, the formulas of the fsmooth kernel in the same order:
/// `K = P H^T S^-1` with `S^-1` the closed-form 2x2 inverse, `P' = P - K (P H^T)^T`.
#[inline]
pub fn kalman2_hand(xo: &mut [f64; 4], po: &mut M4, k: &Kalman2In) {
    let xp: [f64; 4] = std::array::from_fn(|i| dot(&k.f[i], &k.x));
    let mut pp = mul_bt(&mul(&k.f, &k.p), &k.f);
    for (row, qrow) in pp.iter_mut().zip(&k.q) {
        for (v, qv) in row.iter_mut().zip(qrow) {
            *v += qv;
        }
    }
    let pht = mul_bt(&pp, &k.h); // 4 x 2
    let mut s = mul(&k.h, &pht); // 2 x 2
    for (row, rrow) in s.iter_mut().zip(&k.r) {
        for (v, rv) in row.iter_mut().zip(rrow) {
            *v += rv;
        }
    }
    let det = s[0][0] * s[1][1] - s[0][1] * s[1][0];
    let si = [
        [s[1][1] / det, -s[0][1] / det],
        [-s[1][0] / det, s[0][0] / det],
    ];
    let gain = mul(&pht, &si); // 4 x 2
    let y = [k.z[0] - dot(&k.h[0], &xp), k.z[1] - dot(&k.h[1], &xp)];
    for i in 0..4 {
        xo[i] = xp[i] + dot(&gain[i], &y);
    }
    let kp = mul_bt(&gain, &pht);
    for i in 0..4 {
        for j in 0..4 {
            po[i][j] = pp[i][j] - kp[i][j];
        }
    }
}

/// One Kalman step of a constant-velocity 2-D tracker (4 states, 2-D position measured).
pub struct Kalman2 {
    k: Kalman2In,
    region: Region<'static>,
    /// New state and covariance of fsmooth, hand-written, fsmooth without views.
    out: [([f64; 4], M4); 3],
}

/// A symmetric positive definite 4 x 4 matrix: `scale a a^T + c I`.
pub(crate) fn spd(rng: &mut Rng, scale: f64, c: f64) -> M4 {
    let a: [[f64; 4]; 4] = std::array::from_fn(|_| std::array::from_fn(|_| rng.f64()));
    let mut m = mul_bt(&a, &a);
    for (i, row) in m.iter_mut().enumerate() {
        for v in row.iter_mut() {
            *v *= scale;
        }
        row[i] += c;
    }
    m
}

/// One call of the kernel `$kernel` on the workload's inputs, into `out[$slot]` (a macro, so
/// that each variant calls its kernel directly, not through a function pointer).
macro_rules! kalman2_call {
    ($w:expr, $kernel:path, $slot:expr) => {{
        let w = $w;
        // Array references through `black_box`: constant lengths, as a caller with arrays.
        let ((xo, po), k): (&mut ([f64; 4], M4), &Kalman2In) = black_box((&mut w.out[$slot], &w.k));
        $kernel(
            xo,
            po.as_flattened_mut(),
            &k.x,
            k.p.as_flattened(),
            k.f.as_flattened(),
            k.q.as_flattened(),
            k.h.as_flattened(),
            k.r.as_flattened(),
            &k.z,
            &mut w.region,
        )
        .unwrap();
    }};
}

impl Workload for Kalman2 {
    const GROUP: &'static str = "kalman2";
    const SIZE: &'static str = "4 states, 2-D measurement, two results";
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        let mut rng = Rng::new(17);
        let dt = 0.1;
        let f = [
            [1.0, 0.0, dt, 0.0],
            [0.0, 1.0, 0.0, dt],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ];
        let (p, q) = (spd(&mut rng, 1.0, 1.0), spd(&mut rng, 0.01, 0.001));
        let k = Kalman2In {
            x: std::array::from_fn(|_| rng.f64()),
            p,
            f,
            q,
            h: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]],
            r: [[0.25, 0.05], [0.05, 0.3]],
            z: [rng.f64(), rng.f64()],
        };
        let mut w = Kalman2 {
            k,
            region: Region::new(),
            out: [([0.0; 4], [[0.0; 4]; 4]); 3],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_NO_VIEWS
    }

    #[inline]
    fn fsmooth(&mut self) {
        kalman2_call!(self, k2::kalman2, 0);
    }

    #[inline]
    fn hand(&mut self) {
        let ((xo, po), k): (&mut ([f64; 4], M4), &Kalman2In) =
            black_box((&mut self.out[1], &self.k));
        kalman2_hand(xo, po, k);
    }

    #[inline]
    fn no_views(&mut self) {
        kalman2_call!(self, k2::no_views::kalman2, 2);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let (x, p) = &self.out[slot(v)];
        x.iter().chain(p.as_flattened()).copied().collect()
    }

    fn tolerance() -> f64 {
        0.0
    }
}

/// Where variant `v` of a [`WITH_NO_VIEWS`] workload keeps its result.
pub fn slot(v: Variant) -> usize {
    match v {
        Variant::Fsmooth => 0,
        Variant::Hand => 1,
        Variant::NoViews => 2,
        _ => unreachable!("not a variant of this workload"),
    }
}

// ---- mean and variance --------------------------------------------------------------------

/// Mean and population variance in one pass over `x`: sum and sum of squares.
#[inline]
pub fn mean_var_hand(x: &[f64]) -> (f64, f64) {
    let (mut s, mut q) = (0.0, 0.0);
    for &v in x {
        s += v;
        q += v * v;
    }
    let n = x.len() as f64;
    let mean = s / n;
    (mean, q / n - mean * mean)
}

/// One-pass mean and variance of `N` samples.
pub struct MeanVar<const N: usize> {
    x: Vec<f64>,
    region: Region<'static>,
    out: [(f64, f64); 3],
}

impl<const N: usize> Workload for MeanVar<N> {
    const GROUP: &'static str = if N == 10_000 {
        "mean_var_1e4"
    } else {
        "mean_var_1e6"
    };
    const SIZE: &'static str = if N == 10_000 { "n = 10^4" } else { "n = 10^6" };
    const NALGEBRA: &'static str = "";

    fn new() -> Self {
        // Samples around 3, so that the variance is not the mean square.
        let x = Rng::new(18).vec(N).iter().map(|v| 3.0 + v).collect();
        let mut w = MeanVar {
            x,
            region: Region::new(),
            out: [(0.0, 0.0); 3],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &WITH_NO_VIEWS
    }

    #[inline]
    fn fsmooth(&mut self) {
        self.out[0] = k2::mean_var(black_box(&self.x), &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        self.out[1] = mean_var_hand(black_box(&self.x));
    }

    #[inline]
    fn no_views(&mut self) {
        self.out[2] = k2::no_views::mean_var(black_box(&self.x), &mut self.region).unwrap();
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let (m, var) = self.out[slot(v)];
        vec![m, var]
    }

    fn tolerance() -> f64 {
        0.0
    }
}
