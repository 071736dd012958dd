//! num-dual (issue 20's comparison): the crate a Rust user picks for forward-mode
//! derivatives. Its `jacobian` and `gradient` evaluate a function written generically over
//! the number type once, every value carrying its derivatives by all the inputs
//! (`DualSVec64<N>`: N tangents on the stack). The functions below are the hand-written
//! objectives of `ba.rs` and `gmm.rs` over such numbers; the workloads' buffers of dual
//! numbers are made once, so a call allocates nothing.

use fsmooth_testdata::BA_NCAMPARAMS;
use nalgebra::SVector;
use num_dual::{DualNum, DualSVec64, gradient, jacobian};
use std::cell::RefCell;

/// A dual number of any width, as the generic objectives take it.
pub trait Number: DualNum<Primitive = f64> + Copy {}
impl<T: DualNum<Primitive = f64> + Copy> Number for T {}

fn cross<T: Number>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Rodrigues' rotation, as `ba::rodrigues_hand` (first order where |r| is 0).
fn rodrigues<T: Number>(r: &[T; 3], x: &[T; 3]) -> [T; 3] {
    let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    if sqtheta.re() != 0.0 {
        let theta = sqtheta.sqrt();
        let (sin, cos) = theta.sin_cos();
        let w = [r[0] / theta, r[1] / theta, r[2] / theta];
        let wx = cross(&w, x);
        let tmp = (w[0] * x[0] + w[1] * x[1] + w[2] * x[2]) * (-cos + 1.0);
        [0, 1, 2].map(|k| x[k] * cos + wx[k] * sin + w[k] * tmp)
    } else {
        let rx = cross(r, x);
        [x[0] + rx[0], x[1] + rx[1], x[2] + rx[2]]
    }
}

/// ADBench's projection, as `ba::project_hand`.
fn project<T: Number>(cam: &[T], x: &[T; 3]) -> [T; 2] {
    let r = [cam[0], cam[1], cam[2]];
    let xc = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let xr = rodrigues(&r, &xc);
    let p = [xr[0] / xr[2], xr[1] / xr[2]];
    let rsq = p[0] * p[0] + p[1] * p[1];
    let l = cam[9] * rsq + cam[10] * rsq * rsq + 1.0;
    [p[0] * l * cam[6] + cam[7], p[1] * l * cam[6] + cam[8]]
}

/// One observation's 2 x 15 block of bundle adjustment's Jacobian (by the camera's 11
/// parameters, the point's 3 and the weight), row-major into `out`, by `num_dual::jacobian`.
pub fn ba_block(cam: &[f64], x: &[f64], w: f64, feat: &[f64], out: &mut [f64]) {
    let mut at = SVector::<f64, 15>::zeros();
    at.as_mut_slice()[..BA_NCAMPARAMS].copy_from_slice(cam);
    at.as_mut_slice()[BA_NCAMPARAMS..14].copy_from_slice(x);
    at[14] = w;
    let (f0, f1) = (feat[0], feat[1]);
    let (_, jac) = jacobian(
        |v: SVector<DualSVec64<15>, 15>| {
            let p = project(&v.as_slice()[..BA_NCAMPARAMS], &[v[11], v[12], v[13]]);
            SVector::from([(p[0] - f0) * v[14], (p[1] - f1) * v[14]])
        },
        &at,
    );
    for (r, row) in out.chunks_exact_mut(15).enumerate() {
        for (c, o) in row.iter_mut().enumerate() {
            *o = jac[(r, c)];
        }
    }
}

/// `ln(sum(exp(v - max)))+ max`, the maximum taken by the values' real parts.
fn logsumexp<T: Number>(v: &[T]) -> T {
    let mx = v
        .iter()
        .copied()
        .fold(None, |m: Option<T>, x| match m {
            Some(m) if m.re() >= x.re() => Some(m),
            _ => Some(x),
        })
        .unwrap_or_else(|| T::from(0.0));
    v.iter().map(|&x| (x - mx).exp()).sum::<T>().ln() + mx
}

/// The workspace of [`gmm_objective`]: `x - mu`, `Q (x - mu)`, the components' terms, the
/// diagonals' exponentials and the sums of `q`, in dual numbers.
pub struct GmmDualWork<T> {
    xc: Vec<T>,
    qxc: Vec<T>,
    main: Vec<T>,
    qdiags: Vec<T>,
    sum_qs: Vec<T>,
}

impl<T: Number> GmmDualWork<T> {
    /// For `k` components of dimension `d`.
    pub fn new(k: usize, d: usize) -> Self {
        GmmDualWork {
            xc: vec![T::from(0.0); d],
            qxc: vec![T::from(0.0); d],
            main: vec![T::from(0.0); k],
            qdiags: vec![T::from(0.0); k * d],
            sum_qs: vec![T::from(0.0); k],
        }
    }
}

/// The GMM objective of `gmm::gmm_hand` over dual numbers: `params` holds the alphas, the
/// means and the `icf` rows, in the order of fsmooth's gradient.
#[allow(clippy::too_many_arguments)]
pub fn gmm_objective<T: Number>(
    ws: &mut GmmDualWork<T>,
    params: &[T],
    x: &[f64],
    k: usize,
    d: usize,
    gamma: f64,
    m: f64,
    constant: f64,
) -> T {
    let icf_len = d * (d + 1) / 2;
    let (alphas, rest) = params.split_at(k);
    let (means, icf) = rest.split_at(k * d);
    let GmmDualWork {
        xc,
        qxc,
        main,
        qdiags,
        sum_qs,
    } = ws;
    for ((s, qd), q) in sum_qs
        .iter_mut()
        .zip(qdiags.chunks_exact_mut(d))
        .zip(icf.chunks_exact(icf_len))
    {
        *s = q[..d].iter().copied().sum();
        for (e, v) in qd.iter_mut().zip(&q[..d]) {
            *e = v.exp();
        }
    }
    let mut slse = T::from(0.0);
    for xi in x.chunks_exact(d) {
        for c in 0..k {
            let (mu, q) = (&means[c * d..][..d], &icf[c * icf_len..][..icf_len]);
            let qd = &qdiags[c * d..][..d];
            for j in 0..d {
                xc[j] = -mu[j] + xi[j];
                qxc[j] = qd[j] * xc[j];
            }
            let mut idx = d;
            for col in 0..d {
                for row in col + 1..d {
                    qxc[row] += q[idx] * xc[col];
                    idx += 1;
                }
            }
            let sq: T = qxc.iter().map(|&v| v * v).sum();
            main[c] = alphas[c] + sum_qs[c] - sq * 0.5;
        }
        slse += logsumexp(main);
    }
    let mut prior = T::from(0.0);
    for (q, &s) in icf.chunks_exact(icf_len).zip(sum_qs.iter()) {
        let diag: T = q[..d].iter().map(|v| v.exp() * v.exp()).sum();
        let lower: T = q[d..].iter().map(|&v| v * v).sum();
        prior += (diag + lower) * (0.5 * gamma * gamma) - s * m;
    }
    slse - logsumexp(alphas) * (x.len() / d) as f64 + prior + constant
}

/// The GMM objective's value and gradient by `num_dual::gradient` over `P` parameters
/// (`k (1 + d + d (d + 1) / 2)`), the gradient into `grad`.
#[allow(clippy::too_many_arguments)]
pub fn gmm_gradient<const P: usize>(
    ws: &mut GmmDualWork<DualSVec64<P>>,
    params: &[f64],
    x: &[f64],
    k: usize,
    d: usize,
    gamma: f64,
    m: f64,
    constant: f64,
    grad: &mut [f64],
) -> f64 {
    let at = SVector::<f64, P>::from_column_slice(params);
    // (`gradient` takes a `Fn`: the workspace is borrowed inside it.)
    let ws = RefCell::new(ws);
    let (value, g) = gradient(
        |v: SVector<DualSVec64<P>, P>| {
            gmm_objective(
                &mut ws.borrow_mut(),
                v.as_slice(),
                x,
                k,
                d,
                gamma,
                m,
                constant,
            )
        },
        &at,
    );
    grad.copy_from_slice(g.as_slice());
    value
}
