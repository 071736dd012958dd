//! Derivatives (issue 20): the GMM objective's gradient on `gmm_d2_K5`, `gmm_d10_K5` and
//! `gmm_d20_K5`, and
//! bundle adjustment's Jacobian over `ba1`. The figure AD papers report is their cost over
//! the objective's (the `gmm_dD_K5` and `ba_obs` workloads' fsmooth rows).

use super::kernels;
use super::{Variant, Workload};
use fsmooth::Region;
use fsmooth_testdata::{GmmInput, reference};
use std::hint::black_box;

/// The gradient of the GMM objective on `gmm_dD_K5` (D = 2, 10 or 20), fsmooth only.
pub struct GmmGrad<const D: usize> {
    inp: GmmInput,
    constant: f64,
    region: Region<'static>,
    grad: Vec<f64>,
    value: f64,
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
            inp,
        };
        w.fsmooth();
        let want = reference::gmm_objective(&w.inp);
        assert!((w.value - want).abs() <= 1e-10 * want.abs().max(1.0));
        w
    }

    fn variants() -> &'static [Variant] {
        &[Variant::Fsmooth]
    }

    #[inline]
    fn fsmooth(&mut self) {
        let inp = black_box(&self.inp);
        let (k, d) = (inp.k, inp.d);
        let (ga, rest) = self.grad.split_at_mut(k);
        let (gm, gq) = rest.split_at_mut(k * d);
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

    fn hand(&mut self) {}

    fn output(&self, _v: Variant) -> Vec<f64> {
        let mut out = vec![self.value];
        out.extend(&self.grad);
        out
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
            out,
        };
        w.fsmooth();
        // The weight's column is the unweighted error (nonzero here).
        assert!(w.out[14].is_finite() && w.out[14] != 0.0);
        w
    }

    fn variants() -> &'static [Variant] {
        &[Variant::Fsmooth]
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

    fn output(&self, _v: Variant) -> Vec<f64> {
        self.out.clone()
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
        };
        w.fsmooth();
        // The global translation's columns: each residual moves by -1 with its coordinate.
        assert_eq!((w.out[3], w.out[26 + 4], w.out[52 + 5]), (-1.0, -1.0, -1.0));
        w
    }

    fn variants() -> &'static [Variant] {
        &[Variant::Fsmooth]
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

    fn output(&self, _v: Variant) -> Vec<f64> {
        self.out.clone()
    }
}
