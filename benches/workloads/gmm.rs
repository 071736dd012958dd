//! The ADBench GMM objective on `gmm_d2_K5` and `gmm_d10_K5` (K = 5 components, 1,000
//! points). The lgamma constant does not depend on the parameters: every variant gets it
//! precomputed, as the fsmooth kernel does.

use super::{Variant, Workload, kernels, naive, respelled};
use fsmooth::Region;
use fsmooth_testdata::{GmmInput, parse_gmm, reference};
use nalgebra::{DMatrix, DVector};
use ndarray::{Array1, Array2, s};
use std::hint::black_box;

// ---- hand-written -------------------------------------------------------------------------

fn logsumexp(v: &[f64]) -> f64 {
    let mx = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    v.iter().map(|x| (x - mx).exp()).sum::<f64>().ln() + mx
}

/// The workspace of the hand-written objective, made once.
pub struct GmmWork {
    xc: Vec<f64>,
    qxc: Vec<f64>,
    main: Vec<f64>,
    sum_qs: Vec<f64>,
    qdiags: Vec<f64>,
}

impl GmmWork {
    pub fn new(d: usize, k: usize) -> GmmWork {
        GmmWork {
            xc: vec![0.0; d],
            qxc: vec![0.0; d],
            main: vec![0.0; k],
            sum_qs: vec![0.0; k],
            qdiags: vec![0.0; k * d],
        }
    }
}

/// Once per call, as ADBench's `preprocess_qs`: each component's diagonal `exp(q)` (`d` a
/// component in `qdiags`) and the sum of its `q` (in `sum_qs`).
#[inline(always)]
pub fn preprocess_qs(sum_qs: &mut [f64], qdiags: &mut [f64], icf: &[f64], d: usize) {
    let icf_len = d * (d + 1) / 2;
    for ((s, qd), row) in sum_qs
        .iter_mut()
        .zip(qdiags.chunks_exact_mut(d))
        .zip(icf.chunks_exact(icf_len))
    {
        *s = row[..d].iter().sum();
        for (e, q) in qd.iter_mut().zip(&row[..d]) {
            *e = q.exp();
        }
    }
}

/// One component's `xc = xi - mu` and `v = Q xc`, `Q` from its `icf` row `q` and its
/// diagonal's exponentials `qd`: the diagonal's part, then the strictly lower part column by
/// column (column `col` holds rows `col + 1..d`), as ADBench's C++ does.
#[inline(always)]
pub fn q_times_column(
    xc: &mut [f64],
    v: &mut [f64],
    xi: &[f64],
    mu: &[f64],
    q: &[f64],
    qd: &[f64],
) {
    let d = xc.len();
    for j in 0..d {
        xc[j] = xi[j] - mu[j];
        v[j] = qd[j] * xc[j];
    }
    let mut idx = d;
    for col in 0..d {
        let below = d - col - 1;
        for (o, l) in v[col + 1..].iter_mut().zip(&q[idx..idx + below]) {
            *o += l * xc[col];
        }
        idx += below;
    }
}

/// The objective in loops over slices (after ADBench's C++: the diagonal's exponentials once
/// per call, the lower triangle swept column by column), allocation-free.
pub fn gmm_hand(
    ws: &mut GmmWork,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: f64,
    constant: f64,
) -> f64 {
    let (k, d) = (alphas.len(), ws.xc.len());
    let icf_len = d * (d + 1) / 2;
    let n = x.len() / d;
    let GmmWork {
        xc,
        qxc,
        main,
        sum_qs,
        qdiags,
    } = ws;
    preprocess_qs(sum_qs, qdiags, icf, d);
    let mut slse = 0.0;
    for xi in x.chunks_exact(d) {
        for c in 0..k {
            let mu = &means[c * d..(c + 1) * d];
            let q = &icf[c * icf_len..(c + 1) * icf_len];
            let qd = &qdiags[c * d..(c + 1) * d];
            q_times_column(xc, qxc, xi, mu, q, qd);
            main[c] = alphas[c] + sum_qs[c] - 0.5 * qxc.iter().map(|v| v * v).sum::<f64>();
        }
        slse += logsumexp(main);
    }
    let mut prior = 0.0;
    for (q, s) in icf.chunks_exact(icf_len).zip(sum_qs.iter()) {
        let diag: f64 = q[..d].iter().map(|v| v.exp() * v.exp()).sum();
        let lower: f64 = q[d..].iter().map(|v| v * v).sum();
        prior += 0.5 * gamma * gamma * (diag + lower) - m * s;
    }
    constant + slse - n as f64 * logsumexp(alphas) + prior
}

// ---- nalgebra (dynamic sizes) -------------------------------------------------------------

/// GMM inputs as nalgebra matrices: one column per component or point.
pub struct GmmNa {
    alphas: DVector<f64>,
    means: DMatrix<f64>,
    icf: DMatrix<f64>,
    x: DMatrix<f64>,
}

fn logsumexp_na(v: &DVector<f64>) -> f64 {
    let mx = v.max();
    v.map(|x| (x - mx).exp()).sum().ln() + mx
}

/// The objective as a nalgebra user writes it: the Q matrices built from `icf`, then
/// `Q * (x - mu)` for every point and component.
pub fn gmm_na(inp: &GmmNa, gamma: f64, m: f64, constant: f64) -> f64 {
    let (d, k) = inp.means.shape();
    let icf_len = inp.icf.nrows();
    let sum_qs = DVector::from_fn(k, |c, _| inp.icf.column(c).rows(0, d).sum());
    let qs: Vec<DMatrix<f64>> = (0..k)
        .map(|c| {
            let col = inp.icf.column(c);
            let mut q = DMatrix::from_diagonal(&col.rows(0, d).map(f64::exp));
            let mut idx = d;
            for j in 0..d {
                for i in j + 1..d {
                    q[(i, j)] = col[idx];
                    idx += 1;
                }
            }
            q
        })
        .collect();
    let mut slse = 0.0;
    for xi in inp.x.column_iter() {
        let main = DVector::from_fn(k, |c, _| {
            let xc = xi - inp.means.column(c);
            inp.alphas[c] + sum_qs[c] - 0.5 * (&qs[c] * xc).norm_squared()
        });
        slse += logsumexp_na(&main);
    }
    let prior: f64 = (0..k)
        .map(|c| {
            let col = inp.icf.column(c);
            let frob = col.rows(0, d).map(f64::exp).norm_squared()
                + col.rows(d, icf_len - d).norm_squared();
            0.5 * gamma * gamma * frob - m * sum_qs[c]
        })
        .sum();
    constant + slse - inp.x.ncols() as f64 * logsumexp_na(&inp.alphas) + prior
}

// ---- ndarray ------------------------------------------------------------------------------

/// GMM inputs as ndarray arrays: one row per component or point.
pub struct GmmNd {
    alphas: Array1<f64>,
    means: Array2<f64>,
    icf: Array2<f64>,
    x: Array2<f64>,
}

fn logsumexp_nd(v: &Array1<f64>) -> f64 {
    let mx = v.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    v.mapv(|x| (x - mx).exp()).sum().ln() + mx
}

/// The objective as an ndarray user writes it.
pub fn gmm_nd(inp: &GmmNd, gamma: f64, m: f64, constant: f64) -> f64 {
    let (k, d) = inp.means.dim();
    let sum_qs = Array1::from_shape_fn(k, |c| inp.icf.slice(s![c, ..d]).sum());
    let qs: Vec<Array2<f64>> = (0..k)
        .map(|c| {
            let row = inp.icf.row(c);
            let mut q = Array2::from_diag(&row.slice(s![..d]).mapv(f64::exp));
            let mut idx = d;
            for j in 0..d {
                for i in j + 1..d {
                    q[[i, j]] = row[idx];
                    idx += 1;
                }
            }
            q
        })
        .collect();
    let mut slse = 0.0;
    for xi in inp.x.rows() {
        let main = Array1::from_shape_fn(k, |c| {
            let xc = &xi - &inp.means.row(c);
            let qx = qs[c].dot(&xc);
            inp.alphas[c] + sum_qs[c] - 0.5 * qx.dot(&qx)
        });
        slse += logsumexp_nd(&main);
    }
    let prior: f64 = (0..k)
        .map(|c| {
            let row = inp.icf.row(c);
            let diag = row.slice(s![..d]).mapv(f64::exp);
            let lower = row.slice(s![d..]);
            0.5 * gamma * gamma * (diag.dot(&diag) + lower.dot(&lower)) - m * sum_qs[c]
        })
        .sum();
    constant + slse - inp.x.nrows() as f64 * logsumexp_nd(&inp.alphas) + prior
}

// ---- naive: the fsmooth source, a Vec per array operation ---------------------------------

fn q_times_naive(icf_k: &[f64], xc: &[f64]) -> Vec<f64> {
    let d = xc.len();
    (0..d)
        .map(|j| {
            let mut acc = icf_k[j].exp() * xc[j];
            for c in 0..j {
                acc += icf_k[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * xc[c];
            }
            acc
        })
        .collect()
}

/// The objective, a `Vec` per array operation.
pub fn gmm_naive(inp: &GmmInput, constant: f64) -> f64 {
    use naive::*;
    let (d, k) = (inp.d, inp.k);
    let icf_len = d * (d + 1) / 2;
    let icf = |c: usize| &inp.icf[c * icf_len..(c + 1) * icf_len];
    let sum_qs: Vec<f64> = (0..k).map(|c| sum(&icf(c)[..d])).collect();
    let mut main = 0.0;
    for xi in inp.x.chunks_exact(d) {
        let terms: Vec<f64> = (0..k)
            .map(|c| {
                let xc = sub(xi, &inp.means[c * d..(c + 1) * d]);
                inp.alphas[c] + sum_qs[c] - 0.5 * sqnorm(&q_times_naive(icf(c), &xc))
            })
            .collect();
        main += logsumexp(&terms);
    }
    let mut prior = 0.0;
    for c in 0..k {
        let frob = sqnorm(&map(&icf(c)[..d], f64::exp)) + sqnorm(&icf(c)[d..]);
        prior += 0.5 * inp.gamma * inp.gamma * frob - inp.m as f64 * sum_qs[c];
    }
    constant + main - inp.n as f64 * logsumexp(&inp.alphas) + prior
}

// ---- workload -----------------------------------------------------------------------------

/// ADBench's `gmm_dD_K5` file (D = 2, 10 or 20), parsed.
pub fn gmm_input(d: usize) -> GmmInput {
    let text = match d {
        2 => fsmooth_testdata::GMM_D2_K5,
        10 => fsmooth_testdata::GMM_D10_K5,
        20 => fsmooth_testdata::GMM_D20_K5,
        _ => unreachable!("no gmm_d{d}_K5 workload"),
    };
    parse_gmm(text).unwrap()
}

/// The GMM objective on `gmm_dD_K5` (D = 2, 10 or 20).
pub struct Gmm<const D: usize> {
    inp: GmmInput,
    constant: f64,
    region: Region<'static>,
    ws: GmmWork,
    na: GmmNa,
    nd: GmmNd,
    out: [f64; 11],
}

impl<const D: usize> Gmm<D> {
    /// The standard variants and the ablation's, then the reassociated kernel and the
    /// other two spellings.
    const SLOT: [Variant; 11] = {
        let mut slot = [Variant::Reassociated; 11];
        let mut k = 0;
        while k < super::WITH_ABLATION.len() {
            slot[k] = super::WITH_ABLATION[k];
            k += 1;
        }
        slot[9] = Variant::SpellingB;
        slot[10] = Variant::SpellingC;
        slot
    };

    fn slot(v: Variant) -> usize {
        Self::SLOT.iter().position(|s| *s == v).unwrap()
    }
}

impl<const D: usize> Workload for Gmm<D> {
    const GROUP: &'static str = match D {
        2 => "gmm_d2_K5",
        10 => "gmm_d10_K5",
        _ => "gmm_d20_K5",
    };
    const SIZE: &'static str = match D {
        2 => "d = 2, K = 5, n = 1,000",
        10 => "d = 10, K = 5, n = 1,000",
        _ => "d = 20, K = 5, n = 1,000",
    };
    const NALGEBRA: &'static str = "dynamic";

    fn new() -> Self {
        let inp = gmm_input(D);
        let (d, k, n) = (inp.d, inp.k, inp.n);
        let icf_len = inp.icf_len();
        let constant = reference::gmm_constant(d, k, n, inp.gamma, inp.m);
        let na = GmmNa {
            alphas: DVector::from_column_slice(&inp.alphas),
            means: DMatrix::from_column_slice(d, k, &inp.means),
            icf: DMatrix::from_column_slice(icf_len, k, &inp.icf),
            x: DMatrix::from_column_slice(d, n, &inp.x),
        };
        let nd = GmmNd {
            alphas: Array1::from(inp.alphas.clone()),
            means: Array2::from_shape_vec((k, d), inp.means.clone()).unwrap(),
            icf: Array2::from_shape_vec((k, icf_len), inp.icf.clone()).unwrap(),
            x: Array2::from_shape_vec((n, d), inp.x.clone()).unwrap(),
        };
        let mut w = Gmm {
            ws: GmmWork::new(d, k),
            constant,
            region: Region::new(),
            na,
            nd,
            out: [f64::NAN; 11],
            inp,
        };
        super::check(&mut w);
        let want = reference::gmm_objective(&w.inp);
        assert!((w.out[0] - want).abs() <= 1e-10 * want.abs().max(1.0));
        w
    }

    fn variants() -> &'static [Variant] {
        &Self::SLOT
    }

    #[inline]
    fn reassociated(&mut self) {
        let inp = black_box(&self.inp);
        let (gamma, m, constant) = (inp.gamma, inp.m as f64, black_box(self.constant));
        let (a, mu, icf, x) = (&inp.alphas, &inp.means, &inp.icf, &inp.x);
        let r = kernels::reassoc::objective(a, mu, icf, x, gamma, m, constant, &mut self.region);
        self.out[8] = r.unwrap();
    }

    /// B: the sums as `sum(build(..))`, a helper per point, `sum(q[0..d])` written where it
    /// is read; C: `sum(map(x, ..))`, `let`-bound rows and intermediates, `map2`, `dot`, the
    /// log-sum-exp written out (`respelled::gmm_b`, `gmm_c`).
    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let inp = black_box(&self.inp);
        let (gamma, m, constant) = (inp.gamma, inp.m as f64, black_box(self.constant));
        let (a, mu, icf, x) = (&inp.alphas, &inp.means, &inp.icf, &inp.x);
        let r = match K {
            1 => respelled::gmm_b(a, mu, icf, x, gamma, m, constant, &mut self.region),
            _ => respelled::gmm_c(a, mu, icf, x, gamma, m, constant, &mut self.region),
        };
        self.out[8 + K] = r.unwrap();
    }

    #[inline]
    fn ablation<const STEP: usize>(&mut self) {
        let inp = black_box(&self.inp);
        let (gamma, m, constant) = (inp.gamma, inp.m as f64, black_box(self.constant));
        let (a, mu, icf, x) = (&inp.alphas, &inp.means, &inp.icf, &inp.x);
        let r = match STEP {
            0 => kernels::d::objective(a, mu, icf, x, gamma, m, constant, &mut self.region),
            1 => kernels::df::objective(a, mu, icf, x, gamma, m, constant, &mut self.region),
            _ => kernels::dfb::objective(a, mu, icf, x, gamma, m, constant, &mut self.region),
        };
        self.out[5 + STEP] = r.unwrap();
    }

    #[inline]
    fn fsmooth(&mut self) {
        let inp = black_box(&self.inp);
        self.out[0] = kernels::gmm_objective(
            &inp.alphas,
            &inp.means,
            &inp.icf,
            &inp.x,
            inp.gamma,
            inp.m as f64,
            black_box(self.constant),
            &mut self.region,
        )
        .unwrap();
    }

    #[inline]
    fn hand(&mut self) {
        let inp = black_box(&self.inp);
        self.out[1] = gmm_hand(
            &mut self.ws,
            &inp.alphas,
            &inp.means,
            &inp.icf,
            &inp.x,
            inp.gamma,
            inp.m as f64,
            black_box(self.constant),
        );
    }

    #[inline]
    fn nalgebra(&mut self) {
        let (na, m) = black_box((&self.na, self.inp.m as f64));
        self.out[2] = gmm_na(na, self.inp.gamma, m, black_box(self.constant));
    }

    #[inline]
    fn ndarray(&mut self) {
        let (nd, m) = black_box((&self.nd, self.inp.m as f64));
        self.out[3] = gmm_nd(nd, self.inp.gamma, m, black_box(self.constant));
    }

    #[inline]
    fn naive(&mut self) {
        let inp = black_box(&self.inp);
        self.out[4] = gmm_naive(inp, black_box(self.constant));
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        vec![self.out[Self::slot(v)]]
    }

    fn tolerance() -> f64 {
        1e-10
    }
}
