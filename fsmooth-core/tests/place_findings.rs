//! Arrays written over a place still read (docs/internals.md, bugs 9 and 10), found by the
//! executor differential at 10^5 programs (generated programs 14213, 16330, 25724 and
//! 18261): the smallest kernels that show them, run in the executor and the reference
//! interpreter, and the four programs as the main test runs them.

// The executor differential's helpers; those this file does not use are dead here.
#[allow(dead_code)]
mod shared;
use fsmooth_eval::exec::{Arg, Outputs, Scalar, call};
use fsmooth_eval::interp::{Interp, Value};
use fsmooth_testdata::Rng;
use fsmooth_testdata::progen::{inputs, program};
use shared::{program_args, program_values, same_results};

/// Kernel `k` of `src` on `args` in the executor, and the interpreter's result.
fn both(src: &str, args: &[(&'static str, Arg, Value)]) -> (Outputs, Value) {
    let interp = Interp::new(src).unwrap();
    let v: Vec<Value> = args.iter().map(|(_, _, v)| v.clone()).collect();
    let want = interp.call("k", &v).unwrap();
    let planned = fsmooth_core::plan_block(src.parse().unwrap()).unwrap();
    let (_, plan) = planned.iter().find(|(k, _)| k.name.text == "k").unwrap();
    let lens: Vec<usize> = want
        .parts()
        .iter()
        .filter(|p| matches!(p, Value::Array(_)))
        .map(|p| p.flatten().len())
        .collect();
    let names = ["out0", "out1", "out2", "out3"];
    let outs: Vec<(&str, usize)> = match lens.len() {
        1 => vec![("out", lens[0])],
        _ => names.iter().copied().zip(lens).collect(),
    };
    let a: Vec<(&str, Arg)> = args.iter().map(|(n, a, _)| (*n, a.clone())).collect();
    let got = call(&plan.func, &a, &outs)
        .expect("no fault")
        .expect("no error");
    (got, want)
}

/// Every array and scalar of `got` equals the interpreter's `want`, part by part.
fn assert_same(src: &str, got: &Outputs, want: &Value) {
    let close = |a: f64, b: f64| a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0);
    let (mut arrays, mut scalars) = (got.arrays.iter(), got.scalars.iter());
    for part in want.parts() {
        let w = part.flatten();
        let g: Vec<f64> = match part {
            Value::Array(_) => arrays.next().unwrap().clone(),
            _ => match scalars.next().unwrap() {
                Scalar::F64(x) => vec![*x],
                Scalar::F32(x) => vec![f64::from(*x)],
                Scalar::Usize(k) => vec![*k as f64],
                Scalar::Bool(b) => vec![f64::from(u8::from(*b))],
            },
        };
        assert!(
            g.len() == w.len() && g.iter().zip(&w).all(|(a, b)| close(*a, *b)),
            "{src}\nexecutor: {got:?}\ninterpreter: {want:?}"
        );
    }
}

/// `a` of `n` values, `b` of `m`, `c` of `n` rows of `m` (values below 0.6, so that the
/// cubic steps below stay finite) and `s`.
fn inputs_of(rng: &mut Rng, n: usize, m: usize) -> Vec<(&'static str, Arg, Value)> {
    let small = |v: Vec<f64>| v.into_iter().map(|x| x * 0.3).collect::<Vec<f64>>();
    let (a, b, c) = (small(rng.vec(n)), small(rng.vec(m)), small(rng.vec(n * m)));
    let s = rng.f64();
    vec![
        ("a", Arg::Array(a.clone()), Value::vec(&a)),
        ("b", Arg::Array(b.clone()), Value::vec(&b)),
        ("c", Arg::Array(c.clone()), Value::matrix(&c, m)),
        ("s", Arg::F64(s), Value::F64(s)),
    ]
}

/// Kernel `k(a, b, c, s)` returning `ret` with body `body`, on sizes 1 to 4.
fn check(ret: &str, body: &str) {
    let src = format!(
        "pub fn k(a: [f64; n], b: [f64; m], c: [[f64; m]; n], s: f64) -> {ret} {{ {body} }}"
    );
    let mut rng = Rng::new(17);
    for n in 1..5 {
        for m in 1..5 {
            let (got, want) = both(&src, &inputs_of(&mut rng, n, m));
            assert_same(&src, &got, &want);
        }
    }
}

/// Bug 9 (program 16330): the unrolled fold's chain `let x1 = ifold(n, a, ..); let acc =
/// add(a, x1); let x2 = ifold(n, acc, ..); add(acc, x2)` goes to `v`'s frame buffer. `x1`
/// and `x2` were computed there before the result (`homes_before`), and `acc`, written over
/// `x1` (`overwrite::plan`), landed there too: `x2` then overwrote `acc`, which the result
/// still reads.
#[test]
fn an_array_written_over_one_computed_in_a_frame_destination_keeps_its_own_place() {
    check(
        "[f64; n]",
        "let v = if s < 5.0 { ifold(2, a, |x, _| add(x, ifold(n, x, |y, _| smul(y, 2.0)))) } \
         else { a }; build(n, |i| v[i] * s)",
    );
}

/// Bug 9 in a fold's step (programs 14213 and 25724): the step's chain goes to the state's
/// buffer; `x` and `z` were computed there before the new state, `y`, written over `x`, too,
/// and `z` overwrote `y` before `transpose(y)` read it.
#[test]
fn an_array_written_over_one_computed_in_a_fold_state_keeps_its_own_place() {
    check(
        "[[f64; m]; n]",
        "ifold(m, c, |acc, _| { let x = matmul(acc, matmul(transpose(c), c)); \
         let y = matmul(acc, matmul(transpose(c), x)); let z = scan(n, b, |v, _| v); \
         madd(acc, matmul(acc, matmul(transpose(y), z))) })",
    );
}

/// Bug 10 (program 18261): the unrolled step reads both components of the tuple `(s, (u,
/// u))` (one array, shared by the `sin`s) through projections; the first new component was
/// written over `u`, read only by the tuple's `let` as far as `overwrite::plan` saw, and the
/// second then read the first's values.
#[test]
fn an_array_read_through_a_tuple_is_not_written_over() {
    check(
        "([f64; n], [f64; n])",
        "(ifold(2, (s, (s, (build(n, |i| a[i].sin()), build(n, |i| a[i].sin())))), |t, _| \
         (t.0, (t.1.0, (add(smul(t.1.1.0, 0.5), t.1.1.1), add(smul(t.1.1.1, 0.5), t.1.1.0))))).1).1",
    );
}

/// The generated programs that found bugs 9 and 10, as the main test runs them (default
/// options), every trial.
#[test]
fn the_programs_that_found_them_match_the_interpreter() {
    for j in [14213, 16330, 25724, 18261] {
        let p = program(j);
        let interp = Interp::new(&p.src).unwrap();
        let planned = fsmooth_core::plan_block(p.src.parse().unwrap()).unwrap();
        let (kernel, plan) = planned.iter().find(|(k, _)| k.name.text == "k").unwrap();
        for t in 0..4 {
            let i = inputs(j, t);
            let names = fsmooth_core::emit::results(&kernel.ret).arrays;
            let outs: Vec<(&str, usize)> = names
                .iter()
                .map(|(n, _)| n.as_str())
                .zip(p.out_lens(&i))
                .collect();
            let want = interp.call("k", &program_values(&p, &i));
            let got = call(&plan.func, &program_args(&p, &i), &outs);
            let ok = match (&got, &want) {
                (Ok(Ok(g)), Ok(w)) => same_results(g, w, &p.parts),
                _ => false,
            };
            assert!(
                ok,
                "program {j}, inputs {t}:\nexecutor: {got:?}\ninterpreter: {want:?}"
            );
        }
    }
}
