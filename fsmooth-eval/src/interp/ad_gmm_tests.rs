//! ADBench's GMM objective (the fsmooth source of `tests/shared/adbench_kernels.rs`)
//! differentiated by `grad`, written as LANGUAGE.md section 12 writes it, against the
//! gradient ADBench publishes for `gmm/test.txt` and against finite differences.

use super::ad_tests::assert_close;
use super::*;
use fsmooth_testdata::{GmmInput, parse_gmm, reference};

/// The tests' and benches' shared kernels, whose GMM block is taken from its text.
const KERNELS: &str = include_str!("../../../tests/shared/adbench_kernels.rs");

/// The GMM block's functions (`q_times` and `objective`), from the text of `gmm_block!`.
fn gmm_src() -> String {
    let block = &KERNELS[KERNELS.find("macro_rules! gmm_block").expect("gmm_block")..];
    let start = block.find("fn q_times").expect("q_times");
    let objective = block.find("pub fn objective(").expect("objective");
    // The end of `objective`: the brace closing the first one opened after its signature.
    let body = objective + block[objective..].find("-> f64 {").expect("signature") + 7;
    let mut depth = 0;
    let mut end = body;
    for (k, ch) in block[body..].char_indices() {
        match ch {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    end = body + k + 1;
                    break;
                }
            }
            _ => {}
        }
    }
    block[start..end].to_string()
}

/// The GMM block with section 12's `gmm_grad` added.
fn gmm_with_grad() -> Interp {
    let src = format!(
        "{}
        pub fn gmm_grad(alphas: [f64; k], means: [[f64; d]; k], icf: [[f64; d * (d + 1) / 2]; k],
                        x: [[f64; d]; n], gamma: f64, m: f64, c: f64)
                        -> (f64, [f64; k], [[f64; d]; k], [[f64; d * (d + 1) / 2]; k]) {{
            grad(|a, mu, q| objective(a, mu, q, x, gamma, m, c), alphas, means, icf)
        }}",
        gmm_src()
    );
    Interp::new(&src).unwrap_or_else(|e| panic!("{e}\n{src}"))
}

/// The arguments of `gmm_grad` (and of `objective`) for `inp`.
fn args(inp: &GmmInput) -> Vec<Value> {
    let c = reference::gmm_constant(inp.d, inp.k, inp.n, inp.gamma, inp.m);
    vec![
        Value::vec(&inp.alphas),
        Value::matrix(&inp.means, inp.d),
        Value::matrix(&inp.icf, inp.icf_len()),
        Value::matrix(&inp.x, inp.d),
        Value::F64(inp.gamma),
        Value::F64(inp.m as f64),
        Value::F64(c),
    ]
}

/// ADBench's objective on `gmm/test.txt` (`data/adbench/README.md`).
#[allow(clippy::excessive_precision)]
const ADBENCH_GMM_TEST_OBJECTIVE: f64 = 8.07380408004975791;

#[test]
fn gmm_gradient_matches_adbench_on_its_test_file() {
    let inp = parse_gmm(fsmooth_testdata::GMM_TEST).unwrap();
    let v = gmm_with_grad().call("gmm_grad", &args(&inp)).unwrap();
    let parts = v.parts();
    assert_eq!(parts.len(), 4);
    // The objective: ADBench's known answer, and the same as `objective` alone.
    let objective = parts[0].as_f64().unwrap();
    assert!(
        (objective - ADBENCH_GMM_TEST_OBJECTIVE).abs() < 1e-12,
        "{objective}"
    );
    let plain = gmm_with_grad().call("objective", &args(&inp)).unwrap();
    assert_eq!(parts[0], plain);
    let grad: Vec<f64> = parts[1..].iter().flat_map(Value::flatten).collect();
    let worst = grad
        .iter()
        .zip(fsmooth_testdata::GMM_TEST_GRADIENT)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max);
    eprintln!("GMM gradient on gmm/test.txt: largest difference from ADBench's {worst:.1e}");
    assert!(worst < 1e-8, "{grad:?}");
}

/// On the first points of `gmm/1k/gmm_d2_K5.txt` (d = 2, K = 5), the gradient agrees with
/// central differences of the objective, coordinate by coordinate.
#[test]
fn gmm_gradient_agrees_with_finite_differences() {
    let mut inp = parse_gmm(fsmooth_testdata::GMM_D2_K5).unwrap();
    inp.n = 20;
    inp.x.truncate(inp.n * inp.d);
    let interp = gmm_with_grad();
    let v = interp.call("gmm_grad", &args(&inp)).unwrap();
    let grad: Vec<f64> = v.parts()[1..].iter().flat_map(Value::flatten).collect();
    let h = 1e-6;
    let mut fd = Vec::new();
    let (k, icf_len) = (inp.k, inp.icf_len());
    for j in 0..grad.len() {
        let at = |delta: f64| {
            let mut p = inp.clone();
            let (alphas, rest) = (j < k, j - j.min(k));
            if alphas {
                p.alphas[j] += delta;
            } else if rest < k * p.d {
                p.means[rest] += delta;
            } else {
                p.icf[rest - k * p.d] += delta;
            }
            let v = interp.call("objective", &args(&p)).unwrap();
            v.as_f64().unwrap()
        };
        fd.push((at(h) - at(-h)) / (2.0 * h));
    }
    assert_eq!(grad.len(), k * (1 + inp.d + icf_len));
    let worst = grad
        .iter()
        .zip(&fd)
        .map(|(g, f)| (g - f).abs() / f.abs().max(1.0))
        .fold(0.0, f64::max);
    eprintln!(
        "GMM gradient on 20 points of gmm_d2_K5: largest relative difference from central differences {worst:.1e}"
    );
    assert_close(&grad, &fd, 1e-6);
}
