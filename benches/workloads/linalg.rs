//! Matrix product chains (16 x 16 and 64 x 64), a separable 3x3 blur over 256 x 256, a
//! dense layer with softmax (256 inputs, 64 outputs) and a Kalman step (4 states).

use super::{Rng, Variant, Workload, kernels, naive, respelled};
use fsmooth::Region;
use nalgebra::{DMatrix, DVector, Matrix4, Vector4};
use ndarray::{Array1, Array2, Axis, s};
use std::hint::black_box;

// ---- matrix chains ------------------------------------------------------------------------

/// `c = a b` for n x n row-major matrices: for each row of `a`, rows of `b` scaled and
/// accumulated (i-k-j order, the inner loop contiguous).
#[inline]
pub fn matmul_hand(c: &mut [f64], a: &[f64], b: &[f64], n: usize) {
    for (ci, ai) in c.chunks_exact_mut(n).zip(a.chunks_exact(n)) {
        ci.fill(0.0);
        for (&aik, bk) in ai.iter().zip(b.chunks_exact(n)) {
            for (cij, bkj) in ci.iter_mut().zip(bk) {
                *cij += aik * bkj;
            }
        }
    }
}

/// `c = a b`, one dot product of a row of `a` and a column of `b` per element (i-j-k order,
/// the order fsmooth's prelude `matmul` has).
#[inline]
pub fn matmul_ijk(c: &mut [f64], a: &[f64], b: &[f64], n: usize) {
    for (ci, ai) in c.chunks_exact_mut(n).zip(a.chunks_exact(n)) {
        for (j, cij) in ci.iter_mut().enumerate() {
            *cij = ai
                .iter()
                .zip(b[j..].iter().step_by(n))
                .map(|(x, y)| x * y)
                .sum();
        }
    }
}

/// `a b c` for N x N matrices.
pub struct MatChain<const N: usize> {
    m: [Vec<f64>; 3],
    region: Region<'static>,
    out: Vec<f64>,
    hand_tmp: Vec<f64>,
    hand_out: Vec<f64>,
    ijk_out: Vec<f64>,
    reassoc_out: Vec<f64>,
    na: [DMatrix<f64>; 3],
    na_out: DMatrix<f64>,
    nd: [Array2<f64>; 3],
    nd_out: Array2<f64>,
    naive_out: Vec<f64>,
}

impl<const N: usize> Workload for MatChain<N> {
    const GROUP: &'static str = if N == 16 {
        "matchain_16"
    } else {
        "matchain_64"
    };
    const SIZE: &'static str = if N == 16 {
        "(A B) C, 16 x 16"
    } else {
        "(A B) C, 64 x 64"
    };
    const NALGEBRA: &'static str = "dynamic";

    fn new() -> Self {
        let mut rng = Rng::new(3 + N as u64);
        let m = [rng.vec(N * N), rng.vec(N * N), rng.vec(N * N)];
        let mut w = MatChain {
            na: m.clone().map(|v| DMatrix::from_row_slice(N, N, &v)),
            nd: m
                .clone()
                .map(|v| Array2::from_shape_vec((N, N), v).unwrap()),
            m,
            region: Region::new(),
            out: vec![0.0; N * N],
            hand_tmp: vec![0.0; N * N],
            hand_out: vec![0.0; N * N],
            ijk_out: vec![0.0; N * N],
            reassoc_out: vec![0.0; N * N],
            na_out: DMatrix::zeros(0, 0),
            nd_out: Array2::zeros((0, 0)),
            naive_out: Vec::new(),
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &[
            Variant::Fsmooth,
            Variant::Hand,
            Variant::HandIjk,
            Variant::Nalgebra,
            Variant::Ndarray,
            Variant::Naive,
            Variant::Reassociated,
        ]
    }

    #[inline]
    fn fsmooth(&mut self) {
        let [a, b, c] = black_box(&self.m);
        kernels::chain(black_box(&mut self.out), a, b, c, &mut self.region).unwrap();
    }

    #[inline]
    fn reassociated(&mut self) {
        let [a, b, c] = black_box(&self.m);
        let out = black_box(&mut self.reassoc_out);
        kernels::reassoc::chain(out, a, b, c, &mut self.region).unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        // The size at run time, as fsmooth, nalgebra and ndarray have it.
        let ([a, b, c], n) = black_box((&self.m, N));
        matmul_hand(&mut self.hand_tmp, a, b, n);
        matmul_hand(black_box(&mut self.hand_out), &self.hand_tmp, c, n);
    }

    #[inline]
    fn hand_ijk(&mut self) {
        let ([a, b, c], n) = black_box((&self.m, N));
        matmul_ijk(&mut self.hand_tmp, a, b, n);
        matmul_ijk(black_box(&mut self.ijk_out), &self.hand_tmp, c, n);
    }

    #[inline]
    fn nalgebra(&mut self) {
        let [a, b, c] = black_box(&self.na);
        self.na_out = a * b * c;
    }

    #[inline]
    fn ndarray(&mut self) {
        let [a, b, c] = black_box(&self.nd);
        self.nd_out = a.dot(b).dot(c);
    }

    #[inline]
    fn naive(&mut self) {
        let ([a, b, c], n) = black_box((&self.m, N));
        self.naive_out = naive::matmul(&naive::matmul(a, b, n, n, n), c, n, n, n);
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.clone(),
            Variant::Hand => self.hand_out.clone(),
            Variant::HandIjk => self.ijk_out.clone(),
            Variant::Reassociated => self.reassoc_out.clone(),
            Variant::D
            | Variant::DF
            | Variant::DFB
            | Variant::NoViews
            | Variant::NumDual
            | Variant::SpellingB
            | Variant::SpellingC
            | Variant::HandDyn => unreachable!(),
            Variant::Nalgebra => self.na_out.transpose().as_slice().to_vec(),
            Variant::Ndarray => self.nd_out.iter().copied().collect(),
            Variant::Naive => self.naive_out.clone(),
        }
    }

    fn tolerance() -> f64 {
        1e-11
    }
}

// ---- blur ---------------------------------------------------------------------------------

pub const BLUR_W: usize = 256;
pub const BLUR_H: usize = 256;

/// Separable 3x3 box blur of an h x w row-major image into (h-2) x (w-2), through a
/// workspace `rows` of h x (w-2) horizontal sums.
pub fn blur_hand(out: &mut [f64], rows: &mut [f64], img: &[f64], w: usize) {
    let w2 = w - 2;
    for (r, line) in rows.chunks_exact_mut(w2).zip(img.chunks_exact(w)) {
        for (o, win) in r.iter_mut().zip(line.windows(3)) {
            *o = win[0] + win[1] + win[2];
        }
    }
    for (y, o) in out.chunks_exact_mut(w2).enumerate() {
        let r0 = &rows[y * w2..(y + 1) * w2];
        let r1 = &rows[(y + 1) * w2..(y + 2) * w2];
        let r2 = &rows[(y + 2) * w2..(y + 3) * w2];
        for (((o, a), b), c) in o.iter_mut().zip(r0).zip(r1).zip(r2) {
            *o = (a + b + c) / 9.0;
        }
    }
}

/// The blur, a `Vec` per array operation (the horizontal sums, then the result).
pub fn blur_naive(img: &[f64], w: usize) -> Vec<f64> {
    let (h, w2) = (img.len() / w, w - 2);
    let rows: Vec<f64> = (0..h * w2)
        .map(|k| {
            let (y, x) = (k / w2, k % w2);
            img[y * w + x] + img[y * w + x + 1] + img[y * w + x + 2]
        })
        .collect();
    (0..(h - 2) * w2)
        .map(|k| {
            let (y, x) = (k / w2, k % w2);
            (rows[y * w2 + x] + rows[(y + 1) * w2 + x] + rows[(y + 2) * w2 + x]) / 9.0
        })
        .collect()
}

/// Separable 3x3 box blur over a 256 x 256 image.
pub struct Blur {
    img: Vec<f64>,
    region: Region<'static>,
    out: Vec<f64>,
    hand_rows: Vec<f64>,
    hand_out: Vec<f64>,
    na: DMatrix<f64>,
    na_out: DMatrix<f64>,
    nd: Array2<f64>,
    nd_out: Array2<f64>,
    naive_out: Vec<f64>,
}

impl Workload for Blur {
    const GROUP: &'static str = "blur_256";
    const SIZE: &'static str = "256 x 256 image";
    const NALGEBRA: &'static str = "dynamic";

    fn new() -> Self {
        let (w, h) = (BLUR_W, BLUR_H);
        let img = Rng::new(5).vec(w * h);
        let mut b = Blur {
            na: DMatrix::from_row_slice(h, w, &img),
            nd: Array2::from_shape_vec((h, w), img.clone()).unwrap(),
            img,
            region: Region::new(),
            out: vec![0.0; (w - 2) * (h - 2)],
            hand_rows: vec![0.0; h * (w - 2)],
            hand_out: vec![0.0; (w - 2) * (h - 2)],
            na_out: DMatrix::zeros(0, 0),
            nd_out: Array2::zeros((0, 0)),
            naive_out: Vec::new(),
        };
        super::check(&mut b);
        b
    }

    #[inline]
    fn fsmooth(&mut self) {
        // The width at run time in every variant.
        kernels::blur(
            black_box(&mut self.out),
            black_box(&self.img),
            black_box(BLUR_W),
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        blur_hand(
            black_box(&mut self.hand_out),
            &mut self.hand_rows,
            black_box(&self.img),
            black_box(BLUR_W),
        );
    }

    #[inline]
    fn nalgebra(&mut self) {
        let img = black_box(&self.na);
        let (h, w) = img.shape();
        let rows = img.columns(0, w - 2) + img.columns(1, w - 2) + img.columns(2, w - 2);
        self.na_out = (rows.rows(0, h - 2) + rows.rows(1, h - 2) + rows.rows(2, h - 2)) / 9.0;
    }

    #[inline]
    fn ndarray(&mut self) {
        let img = black_box(&self.nd);
        let (h, w) = img.dim();
        let rows =
            &img.slice(s![.., 0..w - 2]) + &img.slice(s![.., 1..w - 1]) + img.slice(s![.., 2..w]);
        self.nd_out = (&rows.slice(s![0..h - 2, ..])
            + &rows.slice(s![1..h - 1, ..])
            + rows.slice(s![2..h, ..]))
            / 9.0;
    }

    #[inline]
    fn naive(&mut self) {
        self.naive_out = blur_naive(black_box(&self.img), black_box(BLUR_W));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.clone(),
            Variant::Hand => self.hand_out.clone(),
            Variant::Nalgebra => self.na_out.transpose().as_slice().to_vec(),
            Variant::Ndarray => self.nd_out.iter().copied().collect(),
            Variant::Naive => self.naive_out.clone(),
            _ => unreachable!("not a variant of this workload"),
        }
    }
}

// ---- dense layer with softmax -------------------------------------------------------------

pub const LAYER_IN: usize = 256;
pub const LAYER_OUT: usize = 64;

/// `softmax(w x + b)` written into `out`.
pub fn layer_hand(out: &mut [f64], w: &[f64], b: &[f64], x: &[f64]) {
    for ((o, row), bi) in out.iter_mut().zip(w.chunks_exact(x.len())).zip(b) {
        *o = row.iter().zip(x).map(|(a, v)| a * v).sum::<f64>() + bi;
    }
    let mx = out.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for o in out.iter_mut() {
        *o = (*o - mx).exp();
        sum += *o;
    }
    let inv = 1.0 / sum;
    for o in out.iter_mut() {
        *o *= inv;
    }
}

fn softmax_naive(v: &[f64]) -> Vec<f64> {
    let mx = naive::vmax(v);
    let e = naive::map(v, |x| (x - mx).exp());
    naive::smul(&e, 1.0 / naive::sum(&e))
}

/// A dense layer with softmax, 256 inputs and 64 outputs.
pub struct Layer {
    w: Vec<f64>,
    b: Vec<f64>,
    x: Vec<f64>,
    region: Region<'static>,
    out: Vec<f64>,
    hand_out: Vec<f64>,
    reassoc_out: Vec<f64>,
    na: (DMatrix<f64>, DVector<f64>, DVector<f64>),
    na_out: DVector<f64>,
    nd: (Array2<f64>, Array1<f64>, Array1<f64>),
    nd_out: Array1<f64>,
    naive_out: Vec<f64>,
}

impl Workload for Layer {
    const GROUP: &'static str = "layer_softmax";
    const SIZE: &'static str = "64 x 256 weights";
    const NALGEBRA: &'static str = "dynamic";

    fn variants() -> &'static [Variant] {
        &[
            Variant::Fsmooth,
            Variant::Hand,
            Variant::Nalgebra,
            Variant::Ndarray,
            Variant::Naive,
            Variant::Reassociated,
        ]
    }

    fn new() -> Self {
        let mut rng = Rng::new(6);
        let (w, b, x) = (
            rng.vec(LAYER_OUT * LAYER_IN),
            rng.vec(LAYER_OUT),
            rng.vec(LAYER_IN),
        );
        let mut l = Layer {
            na: (
                DMatrix::from_row_slice(LAYER_OUT, LAYER_IN, &w),
                DVector::from_column_slice(&b),
                DVector::from_column_slice(&x),
            ),
            nd: (
                Array2::from_shape_vec((LAYER_OUT, LAYER_IN), w.clone()).unwrap(),
                Array1::from(b.clone()),
                Array1::from(x.clone()),
            ),
            w,
            b,
            x,
            region: Region::new(),
            out: vec![0.0; LAYER_OUT],
            hand_out: vec![0.0; LAYER_OUT],
            reassoc_out: vec![0.0; LAYER_OUT],
            na_out: DVector::zeros(0),
            nd_out: Array1::zeros(0),
            naive_out: Vec::new(),
        };
        super::check(&mut l);
        l
    }

    #[inline]
    fn fsmooth(&mut self) {
        kernels::layer(
            black_box(&mut self.out),
            black_box(&self.w),
            black_box(&self.b),
            black_box(&self.x),
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn reassociated(&mut self) {
        kernels::reassoc::layer(
            black_box(&mut self.reassoc_out),
            black_box(&self.w),
            black_box(&self.b),
            black_box(&self.x),
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        layer_hand(
            black_box(&mut self.hand_out),
            black_box(&self.w),
            black_box(&self.b),
            black_box(&self.x),
        );
    }

    #[inline]
    fn nalgebra(&mut self) {
        let (w, b, x) = black_box(&self.na);
        let y = w * x + b;
        let mx = y.max();
        let e = y.map(|v| (v - mx).exp());
        let sum = e.sum();
        self.na_out = e / sum;
    }

    #[inline]
    fn ndarray(&mut self) {
        let (w, b, x) = black_box(&self.nd);
        let y = w.dot(x) + b;
        let mx = y.fold(f64::NEG_INFINITY, |a, &v| a.max(v));
        let e = y.mapv(|v| (v - mx).exp());
        let sum = e.sum();
        self.nd_out = e / sum;
    }

    #[inline]
    fn naive(&mut self) {
        let (w, b, x) = black_box((&self.w, &self.b, &self.x));
        self.naive_out = softmax_naive(&naive::add(&naive::matvec(w, x), b));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.clone(),
            Variant::Hand => self.hand_out.clone(),
            Variant::Nalgebra => self.na_out.as_slice().to_vec(),
            Variant::Ndarray => self.nd_out.to_vec(),
            Variant::Naive => self.naive_out.clone(),
            Variant::Reassociated => self.reassoc_out.clone(),
            Variant::HandIjk
            | Variant::D
            | Variant::DF
            | Variant::DFB
            | Variant::NoViews
            | Variant::NumDual
            | Variant::SpellingB
            | Variant::SpellingC
            | Variant::HandDyn => unreachable!(),
        }
    }
}

// ---- Kalman step --------------------------------------------------------------------------

/// Inputs of one Kalman step, flat and row-major.
#[derive(Clone)]
pub struct KalmanIn {
    x: [f64; 4],
    p: [f64; 16],
    f: [f64; 16],
    q: [f64; 16],
    h: [f64; 4],
    r: f64,
    z: f64,
}

/// One Kalman step on stack arrays: the new state in `out[..4]`, the new covariance in
/// `out[4..]`.
#[inline]
pub fn kalman_hand(out: &mut [f64; 20], k: &KalmanIn) {
    let (x, p, f, q, h) = (&k.x, &k.p, &k.f, &k.q, &k.h);
    let mut xp = [0.0; 4];
    let mut fp = [0.0; 16];
    let mut pp = [0.0; 16];
    let mut ph = [0.0; 4];
    for i in 0..4 {
        xp[i] = (0..4).map(|j| f[i * 4 + j] * x[j]).sum();
        for j in 0..4 {
            fp[i * 4 + j] = (0..4).map(|l| f[i * 4 + l] * p[l * 4 + j]).sum();
        }
    }
    for i in 0..4 {
        for j in 0..4 {
            let fpft: f64 = (0..4).map(|l| fp[i * 4 + l] * f[j * 4 + l]).sum();
            pp[i * 4 + j] = fpft + q[i * 4 + j];
        }
    }
    for i in 0..4 {
        ph[i] = (0..4).map(|j| pp[i * 4 + j] * h[j]).sum();
    }
    let s = (0..4).map(|i| h[i] * ph[i]).sum::<f64>() + k.r;
    let hx: f64 = (0..4).map(|i| h[i] * xp[i]).sum();
    let gain = (k.z - hx) / s;
    let inv = 1.0 / s;
    let (xo, po) = out.split_at_mut(4);
    for i in 0..4 {
        xo[i] = xp[i] + ph[i] * gain;
        for j in 0..4 {
            po[i * 4 + j] = pp[i * 4 + j] - ph[i] * ph[j] * inv;
        }
    }
}

/// One Kalman step, a `Vec` per array operation.
pub fn kalman_naive(k: &KalmanIn) -> Vec<f64> {
    use naive::*;
    let xp = matvec(&k.f, &k.x);
    let pp = add(
        &matmul(
            &matmul(&k.f, &k.p, 4, 4, 4),
            &transpose(&k.f, 4, 4),
            4,
            4,
            4,
        ),
        &k.q,
    );
    let ph = matvec(&pp, &k.h);
    let s = dot(&k.h, &ph) + k.r;
    let xn = add(&xp, &smul(&ph, (k.z - dot(&k.h, &xp)) / s));
    let pn = sub(&pp, &smul(&outer(&ph, &ph), 1.0 / s));
    (0..20)
        .map(|i| if i < 4 { xn[i] } else { pn[i - 4] })
        .collect()
}

type V4 = Vector4<f64>;
type M4 = Matrix4<f64>;
type A1 = Array1<f64>;
type A2 = Array2<f64>;

/// One Kalman step of a constant-velocity 2-D tracker (4 states, scalar measurement).
pub struct Kalman {
    k: KalmanIn,
    region: Region<'static>,
    out: [f64; 20],
    hand_out: [f64; 20],
    /// x, p, f, q, h, r, z.
    na: (V4, M4, M4, M4, V4, f64, f64),
    na_out: (Vector4<f64>, Matrix4<f64>),
    /// x, p, f, q, h.
    nd: (A1, A2, A2, A2, A1),
    nd_out: (Array1<f64>, Array2<f64>),
    naive_out: Vec<f64>,
    /// Spellings B and C.
    spelled_out: [[f64; 20]; 2],
}

impl Workload for Kalman {
    const GROUP: &'static str = "kalman";
    const SIZE: &'static str = "4 states, scalar measurement";
    const NALGEBRA: &'static str = "static";

    fn new() -> Self {
        let mut rng = Rng::new(7);
        let dt = 0.1;
        let f = [
            1.0, 0.0, dt, 0.0, //
            0.0, 1.0, 0.0, dt, //
            0.0, 0.0, 1.0, 0.0, //
            0.0, 0.0, 0.0, 1.0,
        ];
        // Symmetric positive definite covariances: a a^T + c I.
        let mut spd = |scale: f64, c: f64| {
            let a = rng.vec(16);
            let mut m = [0.0; 16];
            for i in 0..4 {
                for j in 0..4 {
                    let aat: f64 = (0..4).map(|l| a[i * 4 + l] * a[j * 4 + l]).sum();
                    m[i * 4 + j] = scale * aat + if i == j { c } else { 0.0 };
                }
            }
            m
        };
        let (p, q) = (spd(1.0, 1.0), spd(0.01, 0.001));
        let x: [f64; 4] = rng.vec(4).try_into().unwrap();
        let k = KalmanIn {
            x,
            p,
            f,
            q,
            h: [1.0, 0.5, 0.0, 0.0],
            r: 0.25,
            z: 0.7,
        };
        let m4 = |m: &[f64; 16]| Matrix4::from_row_slice(m);
        let a2 = |m: &[f64; 16]| Array2::from_shape_vec((4, 4), m.to_vec()).unwrap();
        let mut w = Kalman {
            na: (
                Vector4::from(k.x),
                m4(&k.p),
                m4(&k.f),
                m4(&k.q),
                Vector4::from(k.h),
                k.r,
                k.z,
            ),
            nd: (
                Array1::from(k.x.to_vec()),
                a2(&k.p),
                a2(&k.f),
                a2(&k.q),
                Array1::from(k.h.to_vec()),
            ),
            k,
            region: Region::new(),
            out: [0.0; 20],
            hand_out: [0.0; 20],
            na_out: (Vector4::zeros(), Matrix4::zeros()),
            nd_out: (Array1::zeros(0), Array2::zeros((0, 0))),
            naive_out: Vec::new(),
            spelled_out: [[0.0; 20]; 2],
        };
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        &[
            Variant::Fsmooth,
            Variant::Hand,
            Variant::Nalgebra,
            Variant::Ndarray,
            Variant::Naive,
            Variant::SpellingB,
            Variant::SpellingC,
        ]
    }

    /// B: every product a `build` of sums, the result an array literal of rows; C: rows bound
    /// to names, `dot`, `matvec`, `map2`, the result `split(4, concat(xn, join(pn)))`
    /// (`respelled::kalman_b`, `kalman_c`).
    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let (out, k): (&mut [f64; 20], &KalmanIn) =
            black_box((&mut self.spelled_out[K - 1], &self.k));
        let kernel = match K {
            1 => respelled::kalman_b,
            _ => respelled::kalman_c,
        };
        let (x, p, f, q, h) = (&k.x, &k.p, &k.f, &k.q, &k.h);
        kernel(out, x, p, f, q, h, k.r, k.z, &mut self.region).unwrap();
    }

    #[inline]
    fn fsmooth(&mut self) {
        // Array references through `black_box`: constant lengths, as a caller with arrays.
        let (out, k): (&mut [f64; 20], &KalmanIn) = black_box((&mut self.out, &self.k));
        kernels::kalman(
            out,
            &k.x,
            &k.p,
            &k.f,
            &k.q,
            &k.h,
            k.r,
            k.z,
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        kalman_hand(black_box(&mut self.hand_out), black_box(&self.k));
    }

    #[inline]
    fn nalgebra(&mut self) {
        // Output and inputs through `black_box`, as fsmooth's are.
        let (out, (x, p, f, q, h, r, z)) = black_box((&mut self.na_out, &self.na));
        let (r, z) = (*r, *z);
        let xp = f * x;
        let pp = f * p * f.transpose() + q;
        let ph = pp * h;
        let s = h.dot(&ph) + r;
        let xn = xp + ph * ((z - h.dot(&xp)) / s);
        let pn = pp - ph * ph.transpose() * (1.0 / s);
        *out = (xn, pn);
    }

    #[inline]
    fn ndarray(&mut self) {
        let (x, p, f, q, h) = black_box(&self.nd);
        let (r, z) = (self.k.r, self.k.z);
        let xp = f.dot(x);
        let pp = f.dot(p).dot(&f.t()) + q;
        let ph = pp.dot(h);
        let s = h.dot(&ph) + r;
        let xn = &xp + &(&ph * ((z - h.dot(&xp)) / s));
        let col = ph.view().insert_axis(Axis(1));
        let pn = &pp - &(col.dot(&col.t()) * (1.0 / s));
        self.nd_out = (xn, pn);
    }

    #[inline]
    fn naive(&mut self) {
        self.naive_out = kalman_naive(black_box(&self.k));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::Fsmooth => self.out.to_vec(),
            Variant::Hand => self.hand_out.to_vec(),
            Variant::Nalgebra => {
                let (x, p) = &self.na_out;
                x.iter().chain(p.transpose().iter()).copied().collect()
            }
            Variant::Ndarray => {
                let (x, p) = &self.nd_out;
                x.iter().chain(p.iter()).copied().collect()
            }
            Variant::Naive => self.naive_out.clone(),
            Variant::SpellingB => self.spelled_out[0].to_vec(),
            Variant::SpellingC => self.spelled_out[1].to_vec(),
            _ => unreachable!("not a variant of this workload"),
        }
    }
}
