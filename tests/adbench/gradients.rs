//! Issue 20's known answers: the GMM gradient of LANGUAGE.md section 12's `gmm_grad`,
//! compiled, against the gradient ADBench publishes for `gmm/test.txt` and against the
//! reference interpreter on a larger file; its scratch does not grow with the points.

use super::adbench_kernels::{ba_jacobian, gmm, gmm_grad};
use super::common::*;
use fsmooth::Region;
use fsmooth_testdata::{GmmInput, parse_gmm, reference};

/// The objective and its gradient (alphas, means, icf, flat), compiled.
fn gradient(inp: &GmmInput, region: &mut Region) -> (f64, Vec<f64>) {
    let c = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
    let (mut ga, mut gm, mut gq) = (
        vec![0.0; inp.k],
        vec![0.0; inp.k * inp.d],
        vec![0.0; inp.k * inp.icf_len()],
    );
    let v = gmm_grad::gmm_grad(
        &mut ga,
        &mut gm,
        &mut gq,
        &inp.alphas,
        &inp.means,
        &inp.icf,
        &inp.x,
        inp.gamma,
        inp.m as f64,
        c,
        region,
    )
    .unwrap();
    (v, [ga, gm, gq].concat())
}

#[test]
fn gmm_gradient_matches_adbench_on_its_test_file() {
    let inp = parse_gmm(fsmooth_testdata::GMM_TEST).unwrap();
    let (v, g) = gradient(&inp, &mut Region::new());
    assert!(close(v, 8.07380408004975791, 1e-12), "{v}");
    assert_eq!(g.len(), 18);
    for (j, (got, want)) in g
        .iter()
        .zip(fsmooth_testdata::GMM_TEST_GRADIENT)
        .enumerate()
    {
        assert!((got - want).abs() <= 1e-8, "element {j}: {got} vs {want}");
    }
}

#[test]
fn gmm_gradient_matches_the_interpreter_and_its_scratch_does_not_grow_with_the_points() {
    let inp = parse_gmm(fsmooth_testdata::GMM_D2_K5).unwrap();
    let (v, g) = gradient(&inp, &mut Region::new());
    let src = format!(
        "{}\n{}",
        super::adbench_kernels::gmm::SRC,
        "pub fn gmm_grad(alphas: [f64; k], means: [[f64; d]; k], icf: [[f64; d * (d + 1) / 2]; k], x: [[f64; d]; n], gamma: f64, m: f64, c: f64) -> (f64, [f64; k], [[f64; d]; k], [[f64; d * (d + 1) / 2]; k]) { grad(|a, mu, q| objective(a, mu, q, x, gamma, m, c), alphas, means, icf) }"
    );
    let c = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
    let want = fsmooth_eval::interp::Interp::new(&src)
        .unwrap()
        .call(
            "gmm_grad",
            &[
                Value::vec(&inp.alphas),
                Value::matrix(&inp.means, inp.d),
                Value::matrix(&inp.icf, inp.icf_len()),
                Value::matrix(&inp.x, inp.d),
                Value::F64(inp.gamma),
                Value::F64(inp.m as f64),
                Value::F64(c),
            ],
        )
        .unwrap();
    let want: Vec<f64> = want.parts()[1..].iter().flat_map(Value::flatten).collect();
    for (j, (got, w)) in g.iter().zip(&want).enumerate() {
        assert!(close(*got, *w, 1e-10), "element {j}: {got} vs {w}");
    }
    // The value, summed by the reverse sweep beside the adjoints, is the objective's to the bit.
    let objective = gmm::objective(
        &inp.alphas,
        &inp.means,
        &inp.icf,
        &inp.x,
        inp.gamma,
        inp.m as f64,
        c,
        &mut Region::new(),
    )
    .unwrap();
    assert_eq!(v.to_bits(), objective.to_bits(), "{v} vs {objective}");
    let (k, d) = (inp.k, inp.d);
    assert_eq!(
        gmm_grad::gmm_grad::scratch_len(k, d, 10),
        gmm_grad::gmm_grad::scratch_len(k, d, 100_000)
    );
}

#[test]
fn gmm_gradient_spelled_with_sum_build_or_sum_map_is_the_same_gradient_and_scratch() {
    // LANGUAGE.md section 13: the sum over points as `sum(build(n, ..))` (section 12's
    // spelling) or `sum(map(x, ..))` keeps nothing per point, as the `ifold` does.
    let inp = parse_gmm(fsmooth_testdata::GMM_D2_K5).unwrap();
    let (v, g) = gradient(&inp, &mut Region::new());
    let c = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
    type Grad = fn(
        &mut [f64],
        &mut [f64],
        &mut [f64],
        &[f64],
        &[f64],
        &[f64],
        &[f64],
        f64,
        f64,
        f64,
        &mut Region<'_>,
    ) -> Result<f64, fsmooth::Error>;
    for f in [
        gmm_grad::gmm_grad_sum_build as Grad,
        gmm_grad::gmm_grad_sum_map,
    ] {
        let mut out = vec![0.0; g.len()];
        let (ga, rest) = out.split_at_mut(inp.k);
        let (gm, gq) = rest.split_at_mut(inp.k * inp.d);
        let value = f(
            ga,
            gm,
            gq,
            &inp.alphas,
            &inp.means,
            &inp.icf,
            &inp.x,
            inp.gamma,
            inp.m as f64,
            c,
            &mut Region::new(),
        )
        .unwrap();
        assert_eq!(value.to_bits(), v.to_bits());
        assert_eq!(out, g);
    }
    let (k, d) = (inp.k, inp.d);
    for n in [10, 1_000_000] {
        let fold = gmm_grad::gmm_grad::scratch_len(k, d, n);
        assert_eq!(gmm_grad::gmm_grad_sum_build::scratch_len(k, d, n), fold);
        assert_eq!(gmm_grad::gmm_grad_sum_map::scratch_len(k, d, n), fold);
    }
}

/// ADBench's BA Jacobian on `ba/test.txt`: the first 13 values of its first row (observation
/// 0's reprojection error's x component by the camera's 11 parameters and the point's first
/// two coordinates), from its C++ module tests (`test/cpp/modules/common/BaTests.cpp`,
/// `JacobianCalculationCorrectness`), digit for digit as published.
const ADBENCH_BA_TEST_JACOBIAN_ROW0: [f64; 13] = [
    2.28877202208246757e+02,
    6.34574811495545418e+02,
    -7.82222866259340549e+02,
    2.42892615607159668e+00,
    -1.17828079628011313e+01,
    2.54169312487743460e+00,
    -1.03657084958518086e+00,
    4.17022000000000004e-01,
    0.,
    -3.50739521096005205e+02,
    -9.12107773668008576e+02,
    -2.42892615607159668e+00,
    1.17828079628011313e+01,
];

#[test]
fn ba_jacobian_by_unit_tangents_matches_adbench_on_its_test_file() {
    let inp = fsmooth_testdata::parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let (c, p) = inp.obs[0];
    let cam = &inp.cams[11 * c..11 * c + 11];
    let x = &inp.x[3 * p..3 * p + 3];
    let mut jac = [0.0; 30];
    ba_jacobian::reproj_jacobian(
        &mut jac,
        cam,
        x,
        inp.w[0],
        &inp.feats[..2],
        &mut Region::new(),
    )
    .unwrap();
    for (j, want) in ADBENCH_BA_TEST_JACOBIAN_ROW0.iter().enumerate() {
        let got = jac[j];
        assert!(
            (got - want).abs() <= 1e-8 * want.abs().max(1.0),
            "J[0][{j}]: {got} vs {want}"
        );
    }
    // The point's derivatives are the centre's, negated; by the weight, the unweighted error.
    for r in 0..2 {
        for k in 0..3 {
            assert_eq!(jac[r * 15 + 11 + k], -jac[r * 15 + 3 + k]);
        }
    }
    let unweighted = reference::ba_reproj_error(cam, x, 1.0, &inp.feats[..2]);
    assert!((jac[14] - unweighted[0]).abs() <= 1e-12 && (jac[29] - unweighted[1]).abs() <= 1e-12);
}

#[test]
fn the_jacobian_over_observations_is_each_observation_s_block() {
    let inp = fsmooth_testdata::parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let r = &mut Region::new();
    let mut all = vec![0.0; 30 * inp.p];
    let obs = inp.obs_flat();
    ba_jacobian::jacobian(&mut all, &inp.cams, &inp.x, &inp.w, &inp.feats, &obs, r).unwrap();
    for (k, &(c, p)) in inp.obs.iter().enumerate() {
        let mut one = [0.0; 30];
        let (cam, x) = (&inp.cams[11 * c..11 * c + 11], &inp.x[3 * p..3 * p + 3]);
        ba_jacobian::reproj_jacobian(&mut one, cam, x, inp.w[k], &inp.feats[2 * k..2 * k + 2], r)
            .unwrap();
        assert_eq!(all[30 * k..30 * k + 30], one);
    }
}

#[test]
fn the_jacobian_by_rows_of_vjp_is_the_one_by_columns_of_jvp() {
    let inp = fsmooth_testdata::parse_ba(fsmooth_testdata::BA_TEST).unwrap();
    let r = &mut Region::new();
    let obs = inp.obs_flat();
    let mut by_rows = vec![0.0; 30 * inp.p];
    let mut by_cols = vec![0.0; 30 * inp.p];
    ba_jacobian::jacobian_rows(&mut by_rows, &inp.cams, &inp.x, &inp.w, &inp.feats, &obs, r)
        .unwrap();
    ba_jacobian::jacobian(&mut by_cols, &inp.cams, &inp.x, &inp.w, &inp.feats, &obs, r).unwrap();
    for (j, want) in ADBENCH_BA_TEST_JACOBIAN_ROW0.iter().enumerate() {
        let got = by_rows[j];
        assert!(
            (got - want).abs() <= 1e-8 * want.abs().max(1.0),
            "J[0][{j}]: {got} vs {want}"
        );
    }
    for (k, (a, b)) in by_rows.iter().zip(&by_cols).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "element {k}: {a} by rows, {b} by columns"
        );
    }
}

/// ADBench's hand Jacobian on `hand/test.txt` (its `handtestsmall.txt`: 2 points, 6 residuals
/// by 26 pose parameters, column by column), from its C++ module tests
/// (`test/cpp/modules/common/HandTests.cpp`, `SimpleJacobianCalculationCorrectness`).
#[rustfmt::skip]
const ADBENCH_HAND_TEST_JACOBIAN: [f64; 156] = [
    -1.95512959341282745e-02, -6.81027576369377941e-03, -4.09359630708754085e-02, -7.10032003143440671e-02, -2.81346929141111299e-02, -2.54484136783155838e-02,
    1.18421319736437044e-02, 1.74108797580776152e-03, 2.57836165362687400e-02, 5.14892578985870278e-02, -4.50591977492771356e-02, 6.23981738234076627e-02,
    -1.08140043450366714e-02, -6.54731655106268462e-02, 2.95529253068245066e-03, -6.33408854067304267e-02, -8.98189200086859235e-02, 2.07440902671436785e-02,
    -1.0, 0.0, 0.0, -1.0, 0.0, 0.0,
    0.0, -1.0, 0.0, 0.0, -1.0, 0.0,
    0.0, 0.0, -1.0, 0.0, 0.0, -1.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, -3.45326893768281365e-02, 2.42024596962444292e-02, -3.10675692993888850e-03,
    0.0, 0.0, 0.0, -1.95437595587887036e-02, -1.84392814127634017e-02, 6.52740542794425036e-03,
    0.0, 0.0, 0.0, -1.29102628630682510e-02, 9.76606245804552756e-03, 8.49553578389919579e-03,
    0.0, 0.0, 0.0, 1.99738182488361877e-03, -1.42570914120403679e-03, -4.35490319929073976e-04,
    -2.21537299179855318e-02, 1.42669175415592216e-02, -3.12350905279757118e-02, 0.0, 0.0, 0.0,
    2.98023294354714807e-02, 2.58519935565392558e-02, -9.40429974684049881e-03, 0.0, 0.0, 0.0,
    -8.89718384720838799e-03, 2.30412622537484605e-03, -1.84753145105870202e-02, 0.0, 0.0, 0.0,
    -2.24887887916698764e-03, 3.09895230315512067e-03, -3.09211880497457705e-04, 0.0, 0.0, 0.0,
];

#[test]
fn hand_jacobian_matches_adbench_on_its_test_file() {
    use fsmooth_testdata::hand;
    let m = hand::model();
    let inp = hand::parse_input(hand::TEST, m.n_vertices()).unwrap();
    let rows = 3 * inp.correspondences.len();
    let mut jac = vec![0.0; rows * 26];
    super::adbench_kernels::hand::jacobian(
        &mut jac,
        &inp.theta,
        &m.parents_index(),
        &m.base_relatives_flat(),
        &m.inverse_base_absolutes_flat(),
        &m.base_positions_flat(),
        &m.weights,
        &inp.correspondences,
        &inp.points_flat(),
        &mut Region::new(),
    )
    .unwrap();
    assert_eq!(rows * 26, ADBENCH_HAND_TEST_JACOBIAN.len());
    for row in 0..rows {
        for col in 0..26 {
            let (got, want) = (
                jac[row * 26 + col],
                ADBENCH_HAND_TEST_JACOBIAN[col * rows + row],
            );
            assert!(
                (got - want).abs() <= 1e-8 * want.abs().max(1.0),
                "J[{row}][{col}]: {got} vs {want}"
            );
        }
    }
}
