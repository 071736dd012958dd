//! Derivatives (issue 20): the GMM objective's gradient on `gmm_d2_K5`, `gmm_d10_K5` and
//! `gmm_d20_K5`, and
//! bundle adjustment's Jacobian over `ba1`. The figure AD papers report is their cost over
//! the objective's (the `gmm_dD_K5` and `ba_obs` workloads' fsmooth rows).

use super::gmm::{preprocess_qs, q_times_column};
use super::hand::HandArgs;
use super::kernels;
use super::num_dual::{GmmData, GmmDualWork, HandDualWork, ba_block, gmm_gradient, hand_jacobian};
use super::{Variant, Workload};
use fsmooth::Region;
use fsmooth_testdata::reference::{self, logsumexp};
use fsmooth_testdata::{BA_NCAMPARAMS, GmmInput};
use num_dual::DualSVec64;
use std::hint::black_box;

/// The gradient of the GMM objective on `gmm_dD_K5` (D = 2, 10 or 20): fsmooth's `grad`, and
/// the gradient derived by hand in plain Rust ([`gmm_grad_hand`]).
pub struct GmmGrad<const D: usize> {
    inp: GmmInput,
    constant: f64,
    region: Region<'static>,
    grad: Vec<f64>,
    value: f64,
    ws: GmmGradWork,
    hand_grad: Vec<f64>,
    hand_value: f64,
    /// The parameters, flat (alphas, means, icf), and num-dual's workspace at d = 2 (30
    /// parameters) or 10 (330); d = 20's 1,155-wide dual numbers would not fit a stack.
    params: Vec<f64>,
    nd2: Option<GmmDualWork<DualSVec64<30>>>,
    nd10: Option<GmmDualWork<DualSVec64<330>>>,
    nd_grad: Vec<f64>,
    nd_value: f64,
    /// The gradients of the other spellings (`sum(build(n, ..))`, `sum(map(x, ..))`).
    spelled_grad: [Vec<f64>; 2],
    spelled_value: [f64; 2],
}

/// The hand-derived gradient's workspace: each component's `x - mu` and `Q (x - mu)` for
/// the current point (kept from the forward pass for the backward one), the components'
/// log-likelihood terms, their diagonals' exponentials and sums, and two rows of `d`.
pub struct GmmGradWork {
    xc: Vec<f64>,
    qxc: Vec<f64>,
    main: Vec<f64>,
    qdiags: Vec<f64>,
    sum_qs: Vec<f64>,
    dv: Vec<f64>,
    gxc: Vec<f64>,
}

impl GmmGradWork {
    /// A workspace for `k` components of dimension `d`.
    pub fn new(k: usize, d: usize) -> GmmGradWork {
        GmmGradWork {
            xc: vec![0.0; k * d],
            qxc: vec![0.0; k * d],
            main: vec![0.0; k],
            qdiags: vec![0.0; k * d],
            sum_qs: vec![0.0; k],
            dv: vec![0.0; d],
            gxc: vec![0.0; d],
        }
    }
}

/// The GMM objective and its gradient by `alphas`, `means` and `icf`, derived by hand and
/// written as ADBench's C++ objective is (the diagonals' exponentials once per call, the
/// lower triangle swept column by column), allocation-free. Per point: the forward pass
/// keeps each component's `x - mu` and `v = Q (x - mu)`; with `w` the component's weight
/// (the softmax of the log-likelihood terms), `v`'s adjoint is `-w v`, which gives the
/// triangle's (`-w v_j (x - mu)_c` at row `j`, column `c`), the diagonal's and `x - mu`'s
/// (`Q^T (-w v)`, the mean's with the opposite sign). The `- n logsumexp(alphas)` term and
/// the prior are added at the end. Returns the objective; the gradients go to `g_alphas`,
/// `g_means` and `g_icf`.
#[allow(clippy::too_many_arguments)]
pub fn gmm_grad_hand(
    ws: &mut GmmGradWork,
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    gamma: f64,
    m: f64,
    constant: f64,
    g_alphas: &mut [f64],
    g_means: &mut [f64],
    g_icf: &mut [f64],
) -> f64 {
    let (k, d) = (alphas.len(), ws.dv.len());
    let icf_len = d * (d + 1) / 2;
    let n = x.len() / d;
    let GmmGradWork {
        xc,
        qxc,
        main,
        qdiags,
        sum_qs,
        dv,
        gxc,
    } = ws;
    g_alphas.fill(0.0);
    g_means.fill(0.0);
    g_icf.fill(0.0);
    preprocess_qs(sum_qs, qdiags, icf, d);
    let mut slse = 0.0;
    for xi in x.chunks_exact(d) {
        for c in 0..k {
            let mu = &means[c * d..(c + 1) * d];
            let q = &icf[c * icf_len..(c + 1) * icf_len];
            let qd = &qdiags[c * d..(c + 1) * d];
            let v = &mut qxc[c * d..(c + 1) * d];
            q_times_column(&mut xc[c * d..(c + 1) * d], v, xi, mu, q, qd);
            main[c] = alphas[c] + sum_qs[c] - 0.5 * v.iter().map(|e| e * e).sum::<f64>();
        }
        let lse = logsumexp(main);
        slse += lse;
        for c in 0..k {
            let w = (main[c] - lse).exp();
            g_alphas[c] += w;
            let q = &icf[c * icf_len..(c + 1) * icf_len];
            let qd = &qdiags[c * d..(c + 1) * d];
            let xc = &xc[c * d..(c + 1) * d];
            let v = &qxc[c * d..(c + 1) * d];
            let gq = &mut g_icf[c * icf_len..(c + 1) * icf_len];
            for j in 0..d {
                dv[j] = -w * v[j];
                gq[j] += w + dv[j] * qd[j] * xc[j];
                gxc[j] = qd[j] * dv[j];
            }
            let mut idx = d;
            for col in 0..d {
                let below = d - col - 1;
                let (xcol, mut acc) = (xc[col], gxc[col]);
                for ((gl, l), dvj) in gq[idx..idx + below]
                    .iter_mut()
                    .zip(&q[idx..idx + below])
                    .zip(&dv[col + 1..])
                {
                    *gl += dvj * xcol;
                    acc += l * dvj;
                }
                gxc[col] = acc;
                idx += below;
            }
            for (gm, g) in g_means[c * d..(c + 1) * d].iter_mut().zip(gxc.iter()) {
                *gm -= g;
            }
        }
    }
    let lse_alphas = logsumexp(alphas);
    for (g, a) in g_alphas.iter_mut().zip(alphas) {
        *g -= n as f64 * (a - lse_alphas).exp();
    }
    let mut prior = 0.0;
    for ((q, gq), s) in icf
        .chunks_exact(icf_len)
        .zip(g_icf.chunks_exact_mut(icf_len))
        .zip(sum_qs.iter())
    {
        let (mut diag, mut lower) = (0.0, 0.0);
        for (g, e) in gq[..d].iter_mut().zip(&q[..d]) {
            let e2 = e.exp() * e.exp();
            diag += e2;
            *g += gamma * gamma * e2 - m;
        }
        for (g, l) in gq[d..].iter_mut().zip(&q[d..]) {
            lower += l * l;
            *g += gamma * gamma * l;
        }
        prior += 0.5 * gamma * gamma * (diag + lower) - m * s;
    }
    constant + slse - n as f64 * lse_alphas + prior
}

/// A gradient's three parts, as the kernel takes them: by `alphas` (`k`), by `means` (`k *
/// d`), by `icf` (the rest).
fn parts(grad: &mut [f64], k: usize, d: usize) -> (&mut [f64], &mut [f64], &mut [f64]) {
    let (ga, rest) = grad.split_at_mut(k);
    let (gm, gq) = rest.split_at_mut(k * d);
    (ga, gm, gq)
}

impl<const D: usize> Workload for GmmGrad<D> {
    const GROUP: &'static str = match D {
        2 => "gmm_grad_d2_K5",
        10 => "gmm_grad_d10_K5",
        _ => "gmm_grad_d20_K5",
    };
    const SIZE: &'static str = match D {
        2 => "d = 2, K = 5, n = 1,000",
        10 => "d = 10, K = 5, n = 1,000",
        _ => "d = 20, K = 5, n = 1,000",
    };
    const NALGEBRA: &'static str = "dynamic";

    fn new() -> Self {
        let inp = super::gmm::gmm_input(D);
        let constant = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
        let len = inp.k * (1 + inp.d + inp.icf_len());
        let mut w = GmmGrad {
            constant,
            region: Region::new(),
            grad: vec![0.0; len],
            value: f64::NAN,
            ws: GmmGradWork::new(inp.k, inp.d),
            hand_grad: vec![0.0; len],
            hand_value: f64::NAN,
            params: [&inp.alphas[..], &inp.means, &inp.icf].concat(),
            nd2: (D == 2).then(|| GmmDualWork::new(inp.k, inp.d)),
            nd10: (D == 10).then(|| GmmDualWork::new(inp.k, inp.d)),
            nd_grad: vec![0.0; len],
            nd_value: f64::NAN,
            spelled_grad: [vec![0.0; len], vec![0.0; len]],
            spelled_value: [f64::NAN; 2],
            inp,
        };
        w.fsmooth();
        w.hand();
        let want = reference::gmm_objective(&w.inp);
        assert!((w.value - want).abs() <= 1e-10 * want.abs().max(1.0));
        assert!((w.hand_value - want).abs() <= 1e-10 * want.abs().max(1.0));
        super::check(&mut w);
        w
    }

    fn variants() -> &'static [Variant] {
        match D {
            2 | 10 => &[
                Variant::Fsmooth,
                Variant::Hand,
                Variant::NumDual,
                Variant::SpellingB,
                Variant::SpellingC,
            ],
            _ => &[
                Variant::Fsmooth,
                Variant::Hand,
                Variant::SpellingB,
                Variant::SpellingC,
            ],
        }
    }

    /// The objective's sum over points as `sum(build(n, ..))` (LANGUAGE.md section 12's
    /// spelling) and as `sum(map(x, ..))`.
    #[inline]
    fn spelling<const K: usize>(&mut self) {
        let inp = black_box(&self.inp);
        let (ga, gm, gq) = parts(&mut self.spelled_grad[K - 1], inp.k, inp.d);
        let kernel = match K {
            1 => kernels::gmm_grad::gmm_grad_sum_build,
            _ => kernels::gmm_grad::gmm_grad_sum_map,
        };
        self.spelled_value[K - 1] = kernel(
            ga,
            gm,
            gq,
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
    fn fsmooth(&mut self) {
        let inp = black_box(&self.inp);
        let (ga, gm, gq) = parts(&mut self.grad, inp.k, inp.d);
        self.value = kernels::gmm_grad::gmm_grad(
            ga,
            gm,
            gq,
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
        let (ga, gm, gq) = parts(&mut self.hand_grad, inp.k, inp.d);
        self.hand_value = gmm_grad_hand(
            &mut self.ws,
            &inp.alphas,
            &inp.means,
            &inp.icf,
            &inp.x,
            inp.gamma,
            inp.m as f64,
            black_box(self.constant),
            ga,
            gm,
            gq,
        );
    }

    fn num_dual(&mut self) {
        let inp = black_box(&self.inp);
        let data = GmmData {
            x: &inp.x,
            k: inp.k,
            d: inp.d,
            gamma: inp.gamma,
            m: inp.m as f64,
            constant: black_box(self.constant),
        };
        let (params, grad) = (black_box(&self.params), &mut self.nd_grad);
        self.nd_value = match (&mut self.nd2, &mut self.nd10) {
            (Some(ws), _) => gmm_gradient(ws, params, data, grad),
            (_, Some(ws)) => on_big_stack(|| gmm_gradient(ws, params, data, grad)),
            _ => f64::NAN,
        };
    }

    fn output(&self, v: Variant) -> Vec<f64> {
        let (value, grad) = match v {
            Variant::Hand => (self.hand_value, &self.hand_grad),
            Variant::NumDual => (self.nd_value, &self.nd_grad),
            Variant::SpellingB => (self.spelled_value[0], &self.spelled_grad[0]),
            Variant::SpellingC => (self.spelled_value[1], &self.spelled_grad[1]),
            _ => (self.value, &self.grad),
        };
        let mut out = vec![value];
        out.extend(grad);
        out
    }

    fn tolerance() -> f64 {
        // The sums over points and over the triangle add in other orders.
        1e-9
    }
}

/// `f()`, in an unoptimised build on a thread of a large stack: there, num-dual's vectors of
/// 330-wide dual numbers (900 KB each, passed by value) are copied more often than the main
/// thread's stack holds (`cargo test --benches`). An optimised build calls `f` directly.
fn on_big_stack<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    if cfg!(debug_assertions) {
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(256 << 20)
                .spawn_scoped(s, f)
                .expect("a thread")
                .join()
                .expect("num-dual's gradient")
        })
    } else {
        f()
    }
}

/// Bundle adjustment's Jacobian (issue 20) over `ba1_n49_m7776_p31843`'s observations: each
/// observation's 2 x 15 block by `jvp`s over unit tangents (`ROWS` false) or by a `vjp` per
/// row over unit seeds (`ROWS` true); compared with `ba_obs`'s fsmooth row (the objective).
pub struct BaJacobian<const ROWS: bool> {
    inp: fsmooth_testdata::BaInput,
    obs: Vec<usize>,
    region: Region<'static>,
    out: Vec<f64>,
    nd_out: Vec<f64>,
}

impl<const ROWS: bool> Workload for BaJacobian<ROWS> {
    const GROUP: &'static str = if ROWS {
        "ba_jacobian_vjp"
    } else {
        "ba_jacobian"
    };
    const SIZE: &'static str = "ba1_n49_m7776_p31843, 31,843 observations (i % n, i % m)";
    const NALGEBRA: &'static str = "static";

    fn new() -> Self {
        let text =
            std::fs::read_to_string(fsmooth_testdata::data_path("ba/ba1_n49_m7776_p31843.txt"))
                .unwrap();
        let inp = fsmooth_testdata::parse_ba(&text).unwrap();
        let obs = inp.obs_flat();
        let out = vec![0.0; 30 * inp.p];
        let mut w = BaJacobian {
            inp,
            obs,
            region: Region::new(),
            nd_out: out.clone(),
            out,
        };
        w.fsmooth();
        // The weight's column is the unweighted error (nonzero here).
        assert!(w.out[14].is_finite() && w.out[14] != 0.0);
        // num-dual's blocks are the same to rounding.
        w.num_dual();
        for (k, (a, b)) in w.out.iter().zip(&w.nd_out).enumerate() {
            assert!(
                (a - b).abs() <= 1e-9 * a.abs().max(1.0),
                "{k}: {a} vs num-dual {b}"
            );
        }
        w
    }

    fn variants() -> &'static [Variant] {
        match ROWS {
            true => &[Variant::Fsmooth, Variant::NumDual],
            false => &[Variant::Fsmooth],
        }
    }

    /// Each observation's block by `num_dual::jacobian` (`DualSVec64<15>`).
    #[inline]
    fn num_dual(&mut self) {
        let inp = black_box(&self.inp);
        let obs = black_box(&self.obs);
        let blocks = self.nd_out.chunks_exact_mut(30);
        for (((o, ob), &w), feat) in blocks
            .zip(obs.chunks_exact(2))
            .zip(&inp.w)
            .zip(inp.feats.chunks_exact(2))
        {
            let cam = &inp.cams[ob[0] * BA_NCAMPARAMS..][..BA_NCAMPARAMS];
            let x = &inp.x[ob[1] * 3..][..3];
            ba_block(cam, x, w, feat, o);
        }
    }

    #[inline]
    fn fsmooth(&mut self) {
        let inp = black_box(&self.inp);
        let kernel = if ROWS {
            kernels::ba_jacobian::jacobian_rows
        } else {
            kernels::ba_jacobian::jacobian
        };
        kernel(
            &mut self.out,
            &inp.cams,
            &inp.x,
            &inp.w,
            &inp.feats,
            black_box(&self.obs),
            &mut self.region,
        )
        .unwrap();
    }

    fn hand(&mut self) {}

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::NumDual => self.nd_out.clone(),
            _ => self.out.clone(),
        }
    }
}

/// The hand-tracking residuals' Jacobian by the 26 pose parameters on `hand1_t26_c100` (100
/// points: 300 rows), one `jvp` per column (`hand::jacobian`); compared with `hand_c100`'s
/// fsmooth row (the objective).
pub struct HandJacobian {
    theta: Vec<f64>,
    parents: Vec<usize>,
    correspondences: Vec<usize>,
    /// Base relatives, inverse base absolutes, base positions, weights, points, flat.
    flat: [Vec<f64>; 5],
    region: Region<'static>,
    out: Vec<f64>,
    /// The model and input as the hand-written objective takes them, num-dual's workspace
    /// and its Jacobian.
    args: HandArgs,
    nd: HandDualWork<DualSVec64<26>>,
    nd_out: Vec<f64>,
}

impl Workload for HandJacobian {
    const GROUP: &'static str = "hand_jacobian_c100";
    const SIZE: &'static str = "hand1_t26_c100: 300 residuals by 26 parameters";
    const NALGEBRA: &'static str = "static";

    fn new() -> Self {
        use fsmooth_testdata::hand;
        let m = hand::model();
        let inp = hand::parse_input(hand::SIMPLE_SMALL, m.n_vertices()).unwrap();
        let c = inp.points.len();
        let mut w = HandJacobian {
            theta: inp.theta.clone(),
            parents: m.parents_index(),
            correspondences: inp.correspondences.clone(),
            flat: [
                m.base_relatives_flat(),
                m.inverse_base_absolutes_flat(),
                m.base_positions_flat(),
                m.weights.clone(),
                inp.points_flat(),
            ],
            region: Region::new(),
            out: vec![0.0; c * 3 * 26],
            args: HandArgs::new(&m, &inp),
            nd: HandDualWork::new(m.n_bones(), c * 3),
            nd_out: vec![0.0; c * 3 * 26],
        };
        w.fsmooth();
        // The global translation's columns: each residual moves by -1 with its coordinate.
        assert_eq!((w.out[3], w.out[26 + 4], w.out[52 + 5]), (-1.0, -1.0, -1.0));
        // num-dual's Jacobian is the same to rounding.
        w.num_dual();
        for (k, (a, b)) in w.out.iter().zip(&w.nd_out).enumerate() {
            assert!(
                (a - b).abs() <= 1e-9 * a.abs().max(1.0),
                "{k}: {a} vs num-dual {b}"
            );
        }
        w
    }

    fn variants() -> &'static [Variant] {
        &[Variant::Fsmooth, Variant::NumDual]
    }

    /// The 300 x 26 Jacobian by num-dual's forward mode (`DualSVec64<26>`).
    #[inline]
    fn num_dual(&mut self) {
        hand_jacobian(&mut self.nd, black_box(&self.args), &mut self.nd_out);
    }

    #[inline]
    fn fsmooth(&mut self) {
        let [rel, ibase, pos, weights, pts] = black_box(&self.flat);
        kernels::hand::jacobian(
            &mut self.out,
            black_box(&self.theta),
            &self.parents,
            rel,
            ibase,
            pos,
            weights,
            &self.correspondences,
            pts,
            &mut self.region,
        )
        .unwrap();
    }

    fn hand(&mut self) {}

    fn output(&self, v: Variant) -> Vec<f64> {
        match v {
            Variant::NumDual => self.nd_out.clone(),
            _ => self.out.clone(),
        }
    }
}
