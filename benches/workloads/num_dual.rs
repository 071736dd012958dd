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

/// What the GMM objective does not differentiate by: the points (`n` rows of `d`), the
/// component count, the prior's `gamma` and `m`, and the lgamma constant.
#[derive(Clone, Copy)]
pub struct GmmData<'a> {
    pub x: &'a [f64],
    pub k: usize,
    pub d: usize,
    pub gamma: f64,
    pub m: f64,
    pub constant: f64,
}

/// The GMM objective of `gmm::gmm_hand` over dual numbers: `params` holds the alphas, the
/// means and the `icf` rows, in the order of fsmooth's gradient.
pub fn gmm_objective<T: Number>(ws: &mut GmmDualWork<T>, params: &[T], data: GmmData<'_>) -> T {
    let GmmData {
        x,
        k,
        d,
        gamma,
        m,
        constant,
    } = data;
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
pub fn gmm_gradient<const P: usize>(
    ws: &mut GmmDualWork<DualSVec64<P>>,
    params: &[f64],
    data: GmmData<'_>,
    grad: &mut [f64],
) -> f64 {
    let at = SVector::<f64, P>::from_column_slice(params);
    // (`gradient` takes a `Fn`: the workspace is borrowed inside it.)
    let ws = RefCell::new(ws);
    let (value, g) = gradient(
        |v: SVector<DualSVec64<P>, P>| gmm_objective(&mut ws.borrow_mut(), v.as_slice(), data),
        &at,
    );
    grad.copy_from_slice(g.as_slice());
    value
}

type Mat3<T> = [[T; 3]; 3];
type Mat4<T> = [[T; 4]; 4];

fn mat3_mul<T: Number>(a: &Mat3<T>, b: &Mat3<T>) -> Mat3<T> {
    [0, 1, 2].map(|i| [0, 1, 2].map(|j| a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j]))
}

fn mat4_mul<T: Number>(a: &Mat4<T>, b: &Mat4<T>) -> Mat4<T> {
    [0, 1, 2, 3].map(|i| {
        [0, 1, 2, 3]
            .map(|j| a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] + a[i][3] * b[3][j])
    })
}

/// `fsmooth_testdata::hand::euler_to_rotation` over dual numbers.
fn euler_to_rotation<T: Number>(p: &[T; 3]) -> Mat3<T> {
    let (zero, one) = (T::from(0.0), T::from(1.0));
    let (sx, cx) = p[0].sin_cos();
    let (sy, cy) = p[2].sin_cos();
    let (sz, cz) = p[1].sin_cos();
    let rx = [[one, zero, zero], [zero, cx, -sx], [zero, sx, cx]];
    let ry = [[cy, zero, sy], [zero, one, zero], [-sy, zero, cy]];
    let rz = [[cz, -sz, zero], [sz, cz, zero], [zero, zero, one]];
    mat3_mul(&mat3_mul(&rz, &ry), &rx)
}

/// `fsmooth_testdata::hand::angle_axis_to_rotation` over dual numbers.
fn angle_axis_to_rotation<T: Number>(r: &[T; 3]) -> Mat3<T> {
    let (zero, one) = (T::from(0.0), T::from(1.0));
    let norm = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
    if norm.re() < 1e-4 {
        return [[one, zero, zero], [zero, one, zero], [zero, zero, one]];
    }
    let (x, y, z) = (r[0] / norm, r[1] / norm, r[2] / norm);
    let (s, c) = norm.sin_cos();
    let d = -c + 1.0;
    [
        [
            x * x + (-(x * x) + 1.0) * c,
            x * y * d - z * s,
            x * z * d + y * s,
        ],
        [
            x * y * d + z * s,
            y * y + (-(y * y) + 1.0) * c,
            y * z * d - x * s,
        ],
        [
            x * z * d - y * s,
            z * y * d + x * s,
            z * z + (-(z * z) + 1.0) * c,
        ],
    ]
}

/// The workspace of [`hand_jacobian`]: the pose and the residuals as dual numbers, and each
/// bone's absolute and skinning transforms.
pub struct HandDualWork<T> {
    theta: Vec<T>,
    residuals: Vec<T>,
    abs: Vec<Mat4<T>>,
    transforms: Vec<Mat4<T>>,
}

impl<T: Number> HandDualWork<T> {
    /// For `bones` bones and `rows` residuals.
    pub fn new(bones: usize, rows: usize) -> Self {
        let zero = [[T::from(0.0); 4]; 4];
        HandDualWork {
            theta: vec![T::from(0.0); 26],
            residuals: vec![T::from(0.0); rows],
            abs: vec![zero; bones],
            transforms: vec![zero; bones],
        }
    }
}

/// Bone `i`'s Euler angles from `theta`, as `hand::pose`.
fn pose<T: Number>(theta: &[T], i: usize) -> [T; 3] {
    let zero = T::from(0.0);
    if i < 2 || (i - 2) / 4 >= 5 {
        return [zero; 3];
    }
    let (f, k) = ((i - 2) / 4, (i - 2) % 4);
    match k {
        0 => [theta[6 + 4 * f], theta[7 + 4 * f], zero],
        3 => [zero; 3],
        _ => [theta[7 + 4 * f + k], zero, zero],
    }
}

/// The hand residuals' Jacobian by the 26 pose parameters (row-major, a row of 26 per
/// residual, into `out`): `hand::objective_hand` over `DualSVec64<26>`, each parameter
/// seeded with its unit tangent (what `num_dual::jacobian` does, with the residuals in the
/// workspace rather than a fixed-size vector).
pub fn hand_jacobian(
    ws: &mut HandDualWork<DualSVec64<26>>,
    a: &super::hand::HandArgs,
    out: &mut [f64],
) {
    let nb = a.parents.len();
    let HandDualWork {
        theta,
        residuals,
        abs,
        transforms,
    } = ws;
    for (i, (t, &v)) in theta.iter_mut().zip(&a.theta).enumerate() {
        *t = DualSVec64::from_re(v).derivative(i);
    }
    for b in 0..nb {
        let r = euler_to_rotation(&pose(theta, b));
        let base = &a.base_relatives[b];
        let mut rel = [[DualSVec64::from_re(0.0); 4]; 4];
        for i in 0..4 {
            for j in 0..3 {
                rel[i][j] = r[0][j] * base[i][0] + r[1][j] * base[i][1] + r[2][j] * base[i][2];
            }
            rel[i][3] = DualSVec64::from_re(base[i][3]);
        }
        let p = a.parents[b];
        abs[b] = if p == b { rel } else { mat4_mul(&abs[p], &rel) };
        let ibase = a.inverse_base_absolutes[b].map(|row| row.map(DualSVec64::from_re));
        transforms[b] = mat4_mul(&abs[b], &ibase);
    }
    let g = angle_axis_to_rotation(&[theta[0], theta[1], theta[2]]);
    let rows = residuals.chunks_exact_mut(3).zip(&a.correspondences);
    for ((o, &v), pt) in rows.zip(&a.points) {
        let x = &a.base_positions[v];
        let mut s = [DualSVec64::from_re(0.0); 3];
        for (t, &w) in transforms.iter().zip(&a.weights[v * nb..(v + 1) * nb]) {
            for r in 0..3 {
                s[r] += (t[r][0] * x[0] + t[r][1] * x[1] + t[r][2] * x[2] + t[r][3]) * w;
            }
        }
        for r in 0..3 {
            o[r] = -(g[r][0] * s[0] + g[r][1] * s[1] + g[r][2] * s[2] + theta[3 + r]) + pt[r];
        }
    }
    for (row, res) in out.chunks_exact_mut(26).zip(residuals.iter()) {
        let eps = res
            .eps
            .unwrap_generic(nalgebra::Const::<26>, nalgebra::Const::<1>);
        row.copy_from_slice(eps.as_slice());
    }
}
