//! Derivatives of random programs (`fsmooth_testdata::progen`): `jvp` against central
//! finite differences, and the dot-product identity `<vjp(s), t> == <s, jvp(t)>`. Each
//! generated kernel `k(a, b, c, s, p, ..)` is differentiated by its floats `a, b, c, s`
//! through a closure capturing the rest, by two kernels added to its block:
//!
//! ```text
//! pub fn ad_jvp(a.., p.., ta: [F; n], tb: [F; m], tc: [[F; m]; n], ts: F) -> (R, R) {
//!     jvp(|a, b, c, s| k(a, b, c, s, p..), (a, b, c, s), (ta, tb, tc, ts))
//! }
//! pub fn ad_vjp(a.., p.., sd: R) -> (R, [F; n], [F; m], [[F; m]; n], F) {
//!     vjp(|a, b, c, s| k(a, b, c, s, p..), (a, b, c, s), sd)
//! }
//! ```
//!
//! Programs with a `usize` result are skipped (only float results are differentiated), and
//! so are inputs the kernel fails on (a bad index).

use super::*;
use fsmooth_testdata::Rng;
use fsmooth_testdata::progen::{self, ArgValue, Config, Elem, Inputs, Program};

/// A parameter's type as the generated kernel writes it.
fn param_ty(name: &str, fl: &str) -> String {
    match name {
        "a" => format!("[{fl}; n]"),
        "b" => format!("[{fl}; m]"),
        "c" => format!("[[{fl}; m]; n]"),
        "s" => fl.to_string(),
        "p" => "usize".to_string(),
        "ix" => "[usize; g]".to_string(),
        "jx" => "[[usize; 2]; g]".to_string(),
        other => panic!("no parameter `{other}`"),
    }
}

/// The program's block with `ad_jvp` and `ad_vjp` added (see the module's documentation).
fn with_derivatives(p: &Program) -> String {
    let fl = p.fl.text();
    let params: Vec<String> = p
        .params
        .iter()
        .map(|q| format!("{}: {}", q.name, param_ty(q.name, fl)))
        .collect();
    let params = params.join(", ");
    let names: Vec<&str> = p.params.iter().map(|q| q.name).collect();
    let call = format!("|a, b, c, s| k({})", names.join(", "));
    let r = &p.ret;
    let grads = ["a", "b", "c", "s"].map(|n| param_ty(n, fl)).join(", ");
    let tangents = ["a", "b", "c", "s"]
        .map(|n| format!("t{n}: {}", param_ty(n, fl)))
        .join(", ");
    format!(
        "{}\npub fn ad_jvp({params}, {tangents}) -> ({r}, {r}) {{\n    \
         jvp({call}, (a, b, c, s), (ta, tb, tc, ts))\n}}\n\
         pub fn ad_vjp({params}, sd: {r}) -> ({r}, {grads}) {{\n    \
         vjp({call}, (a, b, c, s), sd)\n}}\n",
        p.src
    )
}

/// The kernel's arguments on inputs `i` (matrices as rows).
fn values(p: &Program, i: &Inputs) -> Vec<Value> {
    p.params
        .iter()
        .map(|q| match (q.value(i), q.cols(i)) {
            (ArgValue::F64(x), _) => Value::F64(x),
            (ArgValue::F32(x), _) => Value::F32(x),
            (ArgValue::Usize(k), _) => Value::Usize(k),
            (ArgValue::F64s(v), None) => Value::vec(&v),
            (ArgValue::F64s(v), Some(c)) => Value::matrix(&v, c),
            (ArgValue::F32s(v), None) => Value::vec_f32(&v),
            (ArgValue::F32s(v), Some(c)) => Value::matrix_f32(&v, c),
            (ArgValue::Usizes(v), None) => Value::usizes(&v),
            (ArgValue::Usizes(v), Some(c)) => Value::usize_matrix(&v, c),
        })
        .collect()
}

/// A value of `v`'s shape and float types, each float uniform in [-1, 1).
fn random_like(v: &Value, r: &mut Rng) -> Value {
    match v {
        Value::F64(_) => Value::F64(2.0 * r.f64() - 1.0),
        Value::F32(_) => Value::F32((2.0 * r.f64() - 1.0) as f32),
        Value::Array(xs) => Value::Array(xs.iter().map(|x| random_like(x, r)).collect()),
        Value::Tuple(xs) => Value::Tuple(xs.iter().map(|x| random_like(x, r)).collect()),
        other => panic!("not a float value: {other:?}"),
    }
}

/// `x + h t` for f64 values of one shape.
fn step(x: &Value, h: f64, t: &Value) -> Value {
    match (x, t) {
        (Value::F64(x), Value::F64(t)) => Value::F64(x + h * t),
        (Value::Array(xs), Value::Array(ts)) => {
            Value::Array(xs.iter().zip(ts).map(|(x, t)| step(x, h, t)).collect())
        }
        (x, t) => panic!("cannot step {x:?} along {t:?}"),
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A generated program ready to differentiate on one trial's inputs.
struct Case {
    prog: Program,
    interp: Interp,
    args: Vec<Value>,
    /// `k(args)`.
    value: Value,
}

/// Program `seed` on trial `trial`'s inputs (small sizes), unless its result holds a
/// `usize` or it fails on those inputs.
fn case(seed: u64, trial: u64) -> Option<Case> {
    let prog = progen::program_with(seed, Config { typed: true });
    if prog.parts.iter().any(|part| part.elem == Elem::Usize) {
        return None;
    }
    let src = with_derivatives(&prog);
    let interp = Interp::new(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let args = values(&prog, &progen::inputs(seed, trial));
    let value = interp.call("k", &args).ok()?;
    Some(Case {
        prog,
        interp,
        args,
        value,
    })
}

impl Case {
    /// `ad_jvp` along tangents `ts` of a, b, c, s: f's value and tangent.
    fn jvp(&self, ts: &[Value]) -> (Value, Value) {
        let mut args = self.args.clone();
        args.extend(ts.iter().cloned());
        match self.interp.call("ad_jvp", &args) {
            Ok(Value::Tuple(mut vt)) if vt.len() == 2 => {
                let t = vt.pop().unwrap_or(Value::Bool(false));
                (vt.pop().unwrap_or(Value::Bool(false)), t)
            }
            other => panic!("ad_jvp: {other:?}\n{}", self.prog.src),
        }
    }

    /// `ad_vjp` with seed `sd`: f's value and the gradients by a, b, c, s.
    fn vjp(&self, sd: &Value) -> (Value, Vec<Value>) {
        let mut args = self.args.clone();
        args.push(sd.clone());
        match self.interp.call("ad_vjp", &args) {
            Ok(Value::Tuple(mut vg)) if vg.len() == 5 => {
                let g = vg.split_off(1);
                (vg.pop().unwrap_or(Value::Bool(false)), g)
            }
            other => panic!("ad_vjp: {other:?}\n{}", self.prog.src),
        }
    }

    /// `k` at `x + h t` (f64 programs), flattened; `None` if it fails.
    fn at(&self, h: f64, ts: &[Value]) -> Option<Vec<f64>> {
        let mut args = self.args.clone();
        for (x, t) in args.iter_mut().zip(ts) {
            *x = step(x, h, t);
        }
        self.interp.call("k", &args).ok().map(|v| v.flatten())
    }

    /// Random tangents of a, b, c, s.
    fn tangents(&self, r: &mut Rng) -> Vec<Value> {
        self.args[..4].iter().map(|x| random_like(x, r)).collect()
    }
}

/// How the finite differences went.
#[derive(Default, Debug)]
struct FdStats {
    programs: usize,
    compared: usize,
    kinks: usize,
    non_finite: usize,
    /// Checked to the differences' own rounding only, not counted in the errors.
    noisy: usize,
    max_err: f64,
    errs: Vec<f64>,
}

const H: f64 = 1e-5;

/// `jvp` agrees with central differences `(f(x + h t) - f(x - h t)) / 2h` on every result
/// float where f is differentiable within the step: finite, and its one-sided differences
/// agree (else a kink, a jump or a branch lies within h of x, and the float is skipped).
/// They agree to 1e-6 relative (absolute below 1), plus the differences' own rounding
/// where f is large beside its derivative; the errors reported are those of the floats
/// where that rounding is below 1e-9.
#[test]
fn jvp_agrees_with_central_differences_on_random_programs() {
    let mut st = FdStats::default();
    for seed in 0..200 {
        // Sizes up to 4, and for every third program up to 19.
        let trials: &[u64] = if seed % 3 == 0 { &[0, 1, 3] } else { &[0, 1] };
        for &trial in trials {
            let Some(case) = case(seed, trial) else {
                continue;
            };
            // f64 programs only (an f32 program's differences are f32 rounding), and none
            // that rounds to f32 on the way.
            if case.prog.fl != Elem::F64 || case.prog.src.contains("f32") {
                continue;
            }
            st.programs += 1;
            let mut r = Rng::new(seed * 31 + trial + 1);
            let ts = case.tangents(&mut r);
            let (value, tangent) = case.jvp(&ts);
            assert_eq!(value, case.value, "the primal of jvp is f's value");
            let (Some(fp), Some(fm)) = (case.at(H, &ts), case.at(-H, &ts)) else {
                continue;
            };
            let f0 = case.value.flatten();
            for (k, d) in tangent.flatten().into_iter().enumerate() {
                let (fwd, bwd) = ((fp[k] - f0[k]) / H, (f0[k] - fm[k]) / H);
                if !(fwd.is_finite() && bwd.is_finite() && d.is_finite()) {
                    st.non_finite += 1;
                    continue;
                }
                if (fwd - bwd).abs() > 1e-3 * fwd.abs().max(bwd.abs()).max(1.0) {
                    st.kinks += 1;
                    continue;
                }
                let fd = (fp[k] - fm[k]) / (2.0 * H);
                // The differences' own rounding: f's values are rounded to eps |f|, which
                // divided by 2h dominates where |f| is large beside its derivative.
                let noise = f64::EPSILON * fp[k].abs().max(fm[k].abs()) / H;
                let scale = fd.abs().max(1.0);
                let err = (d - fd).abs() / scale;
                assert!(
                    err <= 1e-6 + 4.0 * noise / scale,
                    "seed {seed} trial {trial} float {k}: jvp {d}, differences {fd} \
                     (one-sided {fwd}, {bwd})\n{}",
                    case.prog.src
                );
                if noise > 1e-9 * scale {
                    st.noisy += 1;
                    continue;
                }
                st.compared += 1;
                st.max_err = st.max_err.max(err);
                st.errs.push(err);
            }
        }
    }
    st.errs.sort_by(f64::total_cmp);
    let median = st.errs.get(st.errs.len() / 2).copied().unwrap_or(0.0);
    eprintln!(
        "finite differences: {} runs of programs, {} floats compared (median error {median:.1e}, \
         max {:.1e}), {} more to the differences' rounding, {} skipped at kinks, {} non-finite",
        st.programs, st.compared, st.max_err, st.noisy, st.kinks, st.non_finite
    );
    assert!(st.programs >= 40 && st.compared >= 400, "{st:?}");
}

/// `<vjp(s), t> == <s, jvp(t)>` for random s and t: to 1e-10 relative in f64 programs, to
/// f32 rounding in f32 ones and in f64 ones that compute in f32 on the way (their tangents
/// are f32 there); and both forms' primal is f's value.
#[test]
fn vjp_and_jvp_satisfy_the_dot_product_identity_on_random_programs() {
    let (mut worst64, mut worst32, mut n64, mut n32) = (0.0f64, 0.0f64, 0, 0);
    for seed in 0..200 {
        let Some(case) = case(seed, seed % 3) else {
            continue;
        };
        // A value that is not finite (a generated `iterate` halving an infinity) compares
        // unequal to itself, and its products say nothing.
        if case.value.flatten().iter().any(|x| !x.is_finite()) {
            continue;
        }
        let mut r = Rng::new(seed * 17 + 5);
        let ts = case.tangents(&mut r);
        let sd = random_like(&case.value, &mut r);
        let (v1, tangent) = case.jvp(&ts);
        let (v2, grads) = case.vjp(&sd);
        assert_eq!(v1, case.value, "the primal of jvp is f's value");
        assert_eq!(v2, case.value, "the primal of vjp is f's value");
        let lhs: f64 = grads
            .iter()
            .zip(&ts)
            .map(|(g, t)| dot(&g.flatten(), &t.flatten()))
            .sum();
        let rhs = dot(&sd.flatten(), &tangent.flatten());
        if !(lhs.is_finite() && rhs.is_finite()) {
            continue;
        }
        let err = (lhs - rhs).abs() / lhs.abs().max(rhs.abs()).max(1e-300);
        if case.prog.fl == Elem::F64 && !case.prog.src.contains("f32") {
            n64 += 1;
            worst64 = worst64.max(err);
            assert!(
                err < 1e-10,
                "seed {seed}: <vjp(s), t> = {lhs}, <s, jvp(t)> = {rhs}\n{}",
                case.prog.src
            );
        } else {
            n32 += 1;
            worst32 = worst32.max(err);
            assert!(
                err < 1e-4,
                "seed {seed} (in f32): <vjp(s), t> = {lhs}, <s, jvp(t)> = {rhs}\n{}",
                case.prog.src
            );
        }
    }
    eprintln!(
        "dot-product identity: {n64} f64 programs (worst relative error {worst64:.1e}), \
         {n32} programs computing in f32 (worst {worst32:.1e})"
    );
    assert!(n64 >= 60 && n32 >= 20, "{n64} f64 and {n32} f32 programs");
}
