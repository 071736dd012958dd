//! Issue 20's known answers: the GMM gradient of LANGUAGE.md section 12's `gmm_grad`,
//! compiled, against the gradient ADBench publishes for `gmm/test.txt` and against the
//! reference interpreter on a larger file; its scratch does not grow with the points.

use super::adbench_kernels::gmm_grad;
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
    let (_, g) = gradient(&inp, &mut Region::new());
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
    let (k, d) = (inp.k, inp.d);
    assert_eq!(
        gmm_grad::gmm_grad::scratch_len(k, d, 10),
        gmm_grad::gmm_grad::scratch_len(k, d, 100_000)
    );
}
