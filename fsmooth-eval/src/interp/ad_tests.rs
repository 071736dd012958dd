//! Derivatives (LANGUAGE.md section 12) against derivatives known by hand: the scalar
//! rules one by one, then each construct (`build`, `ifold`, `scan`, slices, views, `if`,
//! tuples, the prelude), f32, and the forms' own rules (arities, untyped literals, errors).

use super::tests::{err, f, interp, u};
use super::*;

/// `name(args)` of `src`, which must succeed.
pub(super) fn run(src: &str, name: &str, args: &[Value]) -> Value {
    match interp(src).call(name, args) {
        Ok(v) => v,
        Err(e) => panic!("{name} failed: {e}\nin {src}"),
    }
}

/// Each of `got` within `tol` (relative, absolute below 1) of `want`.
#[track_caller]
pub(super) fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "element {k}: got {g}, want {w}\n{got:?}\nvs {want:?}"
        );
    }
}

/// The flattened parts of a result (the components of a tuple, flattened one by one).
fn parts(v: &Value) -> Vec<Vec<f64>> {
    v.parts().iter().map(Value::flatten).collect()
}

/// `(d/dx, d/dy)` of `expr` (in x and y) at (x, y), by two `jvp`s.
fn partials(expr: &str, x: f64, y: f64) -> [f64; 2] {
    let src = format!(
        "pub fn dx(x: f64, y: f64) -> f64 {{ jvp(|x, y| {expr}, (x, y), (1.0, 0.0)).1 }}
         pub fn dy(x: f64, y: f64) -> f64 {{ jvp(|x, y| {expr}, (x, y), (0.0, 1.0)).1 }}"
    );
    let i = interp(&src);
    let d = |name: &str| match i.call(name, &[f(x), f(y)]) {
        Ok(Value::F64(d)) => d,
        other => panic!("{expr}: {name} gave {other:?}"),
    };
    [d("dx"), d("dy")]
}

#[test]
fn scalar_rules_match_derivatives_by_hand() {
    let (x, y) = (0.7_f64, 1.3_f64);
    let r2 = x * x + y * y;
    let cases: Vec<(&str, f64, f64, [f64; 2])> = vec![
        ("x + y", x, y, [1.0, 1.0]),
        ("x - y", x, y, [1.0, -1.0]),
        ("-x * y", x, y, [-y, -x]),
        ("x / y", x, y, [1.0 / y, -x / (y * y)]),
        ("x % y", 7.5, 2.0, [1.0, -3.0]),
        (
            "x * x * x + 2.0 * x * y - y",
            x,
            y,
            [3.0 * x * x + 2.0 * y, 2.0 * x - 1.0],
        ),
        ("x.sqrt()", 2.0, y, [0.5 / 2f64.sqrt(), 0.0]),
        ("x.exp()", x, y, [x.exp(), 0.0]),
        ("x.ln()", x, y, [1.0 / x, 0.0]),
        ("x.sin()", x, y, [x.cos(), 0.0]),
        ("x.cos()", x, y, [-x.sin(), 0.0]),
        ("x.tan()", x, y, [1.0 / (x.cos() * x.cos()), 0.0]),
        ("x.tanh()", x, y, [1.0 - x.tanh() * x.tanh(), 0.0]),
        ("x.asin()", x, y, [1.0 / (1.0 - x * x).sqrt(), 0.0]),
        ("x.acos()", x, y, [-1.0 / (1.0 - x * x).sqrt(), 0.0]),
        ("x.atan()", x, y, [1.0 / (1.0 + x * x), 0.0]),
        ("x.sinh()", x, y, [x.cosh(), 0.0]),
        ("x.cosh()", x, y, [x.sinh(), 0.0]),
        (
            "x.cbrt()",
            2.0,
            y,
            [1.0 / (3.0 * 2f64.powf(2.0 / 3.0)), 0.0],
        ),
        ("x.exp2()", x, y, [x.exp2() * 2f64.ln(), 0.0]),
        ("x.log2()", x, y, [1.0 / (x * 2f64.ln()), 0.0]),
        ("x.log10()", x, y, [1.0 / (x * 10f64.ln()), 0.0]),
        ("x.powi(3)", x, y, [3.0 * x * x, 0.0]),
        ("x.powi(-2)", x, y, [-2.0 / (x * x * x), 0.0]),
        ("x.powi(0)", x, y, [0.0, 0.0]),
        (
            "x.powf(y)",
            1.5,
            2.5,
            [2.5 * 1.5f64.powf(1.5), 1.5f64.powf(2.5) * 1.5f64.ln()],
        ),
        // `x.atan2(y)`: the angle of the point (y, x).
        ("x.atan2(y)", x, y, [y / r2, -x / r2]),
        ("x.hypot(y)", x, y, [x / r2.sqrt(), y / r2.sqrt()]),
        ("x.mul_add(y, 3.0 * y)", x, y, [y, x + 3.0]),
        ("x.abs()", -1.5, y, [-1.0, 0.0]),
        ("x.abs()", 1.5, y, [1.0, 0.0]),
        ("x.floor() + x.ceil() + x.signum()", x, y, [0.0, 0.0]),
        ("x.min(y)", x, y, [1.0, 0.0]),
        ("x.min(y)", y, x, [0.0, 1.0]),
        ("x.max(y)", x, y, [0.0, 1.0]),
        ("x.max(y)", y, x, [1.0, 0.0]),
        ("x.clamp(y, 2.0)", 1.5, 1.0, [1.0, 0.0]),
        ("x.clamp(y, 2.0)", 0.5, 1.0, [0.0, 1.0]),
        ("x.clamp(y, 2.0)", 2.5, 1.0, [0.0, 0.0]),
        ("(x * y) as usize as f64 + y", x, y, [0.0, 1.0]),
        ("((x as f32) * 2.0) as f64", x, y, [2.0, 0.0]),
        (
            "if x > y { x * x } else { y * y * y }",
            2.0,
            1.0,
            [4.0, 0.0],
        ),
        (
            "if x > y { x * x } else { y * y * y }",
            1.0,
            2.0,
            [0.0, 12.0],
        ),
        ("if x > 0.5 && y < 2.0 { x * y } else { 1.0 }", x, y, [y, x]),
        (
            "if x > 0.5 && y < 1.0 { x * y } else { 1.0 }",
            x,
            y,
            [0.0, 0.0],
        ),
    ];
    for (expr, x, y, want) in cases {
        let got = partials(expr, x, y);
        assert_close(&got, &want, 1e-14);
        let _ = expr;
    }
}

#[test]
fn kinks_take_the_branch_taken_and_ties_the_first_argument() {
    // Ties of min and max: the receiver's tangent.
    assert_eq!(partials("x.min(y)", 1.0, 1.0), [1.0, 0.0]);
    assert_eq!(partials("x.max(y)", 1.0, 1.0), [1.0, 0.0]);
    assert_eq!(partials("y.max(x)", 1.0, 1.0), [0.0, 1.0]);
    // clamp = x.max(lo).min(hi): at lo, then at hi, x's.
    assert_eq!(partials("x.clamp(y, 2.0)", 1.0, 1.0), [1.0, 0.0]);
    assert_eq!(partials("x.clamp(y, 2.0)", 2.0, 1.0), [1.0, 0.0]);
    assert_eq!(partials("x.clamp(0.0, y)", 1.0, 1.0), [1.0, 0.0]);
    // abs is `-x` below 0 and `x` from 0 on.
    assert_eq!(partials("x.abs()", 0.0, 1.0), [1.0, 0.0]);
    assert_eq!(partials("x.abs()", -0.0, 1.0), [1.0, 0.0]);
    // A NaN receiver of min or max gives the argument (Rust's min and max), and its tangent.
    assert_eq!(partials("(x / x - x / x).min(y)", 0.0, 1.0), [0.0, 1.0]);
    // A constant's infinite partial derivative contributes nothing along a direction that
    // does not move it.
    assert_eq!(partials("x.sqrt() + y", 0.0, 1.0), [f64::INFINITY, 1.0]);
    // vmax (an ifold of max from -inf): the tangent of the largest, the first on a tie.
    let src = "pub fn k(v: [f64; 3], t: [f64; 3]) -> f64 { jvp(vmax, v, t).1 }";
    let t = Value::vec(&[1.0, 10.0, 100.0]);
    for (v, want) in [
        ([1.0, 3.0, 2.0], 10.0),
        ([3.0, 1.0, 3.0], 1.0),
        ([0.0, 1.0, 2.0], 100.0),
    ] {
        assert_eq!(run(src, "k", &[Value::vec(&v), t.clone()]), f(want));
    }
}

#[test]
fn jvp_results_are_tuples_of_the_value_and_the_tangent() {
    let v = run(
        "pub fn k(x: f64) -> (f64, f64) { jvp(|y| y * y * y, x, 1.0) }",
        "k",
        &[f(2.0)],
    );
    assert_eq!(v, Value::Tuple(vec![f(8.0), f(12.0)]));
    // Several arguments and tangents, as tuples; a result that is a tuple, and holds a
    // float that does not depend on the arguments (tangent 0).
    let src = "pub fn k(x: f64, y: [f64; 2]) -> ((f64, [f64; 2]), (f64, [f64; 2])) {
                   jvp(|a, b| (a * b[0], [b[1] * b[1], 3.0]), (x, y), (2.0, [1.0, 10.0]))
               }";
    let v = run(src, "k", &[f(3.0), Value::vec(&[5.0, 7.0])]);
    let want = Value::Tuple(vec![
        Value::Tuple(vec![f(15.0), Value::vec(&[49.0, 3.0])]),
        Value::Tuple(vec![f(2.0 * 5.0 + 3.0 * 1.0), Value::vec(&[140.0, 0.0])]),
    ]);
    assert_eq!(v, want);
}

#[test]
fn grad_and_vjp_of_a_dot_product_and_a_matrix_vector_product() {
    let src = "pub fn g(a: [f64; n], b: [f64; n]) -> (f64, [f64; n], [f64; n]) { grad(dot, a, b) }
               pub fn mv(m: [[f64; 3]; 2], v: [f64; 3], s: [f64; 2])
                   -> ([f64; 2], [[f64; 3]; 2], [f64; 3]) {
                   vjp(|m, v| matvec(m, v), (m, v), s)
               }
               pub fn jmv(m: [[f64; 3]; 2], v: [f64; 3], tm: [[f64; 3]; 2], tv: [f64; 3])
                   -> ([f64; 2], [f64; 2]) {
                   jvp(matvec, (m, v), (tm, tv))
               }";
    let (a, b) = ([1.0, 2.0, 3.0], [4.0, -5.0, 6.0]);
    let v = run(src, "g", &[Value::vec(&a), Value::vec(&b)]);
    assert_eq!(parts(&v), vec![vec![12.0], b.to_vec(), a.to_vec()]);
    let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let (x, s) = ([0.5, -1.0, 2.0], [3.0, -2.0]);
    let v = run(
        src,
        "mv",
        &[Value::matrix(&m, 3), Value::vec(&x), Value::vec(&s)],
    );
    // The gradient by m is the outer product s v^T, by v it is m^T s.
    let gm: Vec<f64> = (0..6).map(|k| s[k / 3] * x[k % 3]).collect();
    let gv: Vec<f64> = (0..3).map(|j| m[j] * s[0] + m[3 + j] * s[1]).collect();
    assert_eq!(parts(&v), vec![vec![4.5, 9.0], gm, gv]);
    let (tm, tv) = ([1.0, 0.0, 0.0, 0.0, 0.0, 2.0], [0.0, 1.0, 0.0]);
    let v = run(
        src,
        "jmv",
        &[
            Value::matrix(&m, 3),
            Value::vec(&x),
            Value::matrix(&tm, 3),
            Value::vec(&tv),
        ],
    );
    // tm v + m tv.
    assert_eq!(parts(&v)[1], vec![0.5 + 2.0, 4.0 + 5.0]);
}

#[test]
fn folds_builds_and_scans() {
    let src = "
        fn prod(x: [f64; n]) -> f64 { ifold(n, 1.0, |acc, i| acc * x[i]) }
        pub fn gprod(x: [f64; n]) -> (f64, [f64; n]) { grad(prod, x) }
        fn moments(x: [f64; n]) -> [f64; 2] {
            ifold(n, [0.0, 0.0], |acc, i| [acc[0] + x[i], acc[1] + x[i] * x[i]])
        }
        pub fn vmoments(x: [f64; n], s: [f64; 2]) -> ([f64; 2], [f64; n]) { vjp(moments, x, s) }
        fn sp(x: [f64; n]) -> (f64, f64) { ifold(n, (0.0, 1.0), |(s, p), i| (s + x[i], p * x[i])) }
        pub fn jsp(x: [f64; n], t: [f64; n]) -> ((f64, f64), (f64, f64)) { jvp(sp, x, t) }
        pub fn vcumsum(x: [f64; n], s: [f64; n]) -> ([f64; n], [f64; n]) {
            vjp(|x| scan(n, 0.0, |acc, i| acc + x[i]), x, s)
        }
        pub fn jcumprod(x: [f64; n], t: [f64; n]) -> ([f64; n], [f64; n]) {
            jvp(|x| scan(n, 1.0, |acc, i| acc * x[i]), x, t)
        }
        pub fn jcyc(x: [f64; n], t: [f64; n]) -> ([f64; n], [f64; n]) {
            jvp(|x| build(n, |i| x[i] * x[(i + 1) % n]), x, t)
        }
        pub fn gmat(a: [[f64; 2]; 2]) -> (f64, [[f64; 2]; 2]) {
            grad(|a| sum(build(2, |i| sum(build(2, |j| a[i][j] * a[j][i])))), a)
        }";
    let x = [2.0, 3.0, 5.0];
    let xv = Value::vec(&x);
    let t = Value::vec(&[1.0, 10.0, 100.0]);
    assert_eq!(
        parts(&run(src, "gprod", std::slice::from_ref(&xv))),
        vec![vec![30.0], vec![15.0, 10.0, 6.0]]
    );
    let v = run(src, "vmoments", &[xv.clone(), Value::vec(&[1.0, 0.5])]);
    assert_eq!(parts(&v), vec![vec![10.0, 38.0], vec![3.0, 4.0, 6.0]]);
    let v = run(src, "jsp", &[xv.clone(), t.clone()]);
    let want = Value::Tuple(vec![
        Value::Tuple(vec![f(10.0), f(30.0)]),
        Value::Tuple(vec![f(111.0), f(15.0 + 100.0 + 600.0)]),
    ]);
    assert_eq!(v, want);
    let v = run(src, "vcumsum", &[xv.clone(), Value::vec(&[1.0, 2.0, 4.0])]);
    assert_eq!(parts(&v), vec![vec![2.0, 5.0, 10.0], vec![7.0, 6.0, 4.0]]);
    let v = run(src, "jcumprod", &[xv.clone(), t.clone()]);
    assert_eq!(
        parts(&v),
        vec![
            vec![2.0, 6.0, 30.0],
            vec![1.0, 3.0 + 20.0, 15.0 + 100.0 + 600.0]
        ]
    );
    let v = run(src, "jcyc", &[xv.clone(), t]);
    // d(x_i x_{i+1}) = t_i x_{i+1} + x_i t_{i+1}.
    assert_eq!(parts(&v)[1], vec![3.0 + 20.0, 50.0 + 300.0, 200.0 + 5.0]);
    let v = run(src, "gmat", &[Value::matrix(&[1.0, 2.0, 3.0, 4.0], 2)]);
    // sum_ij a_ij a_ji: the gradient is 2 a^T.
    assert_eq!(
        parts(&v),
        vec![vec![1.0 + 12.0 + 16.0], vec![2.0, 6.0, 4.0, 8.0]]
    );
}

#[test]
fn scans_with_tuple_and_array_states() {
    let src = "
        pub fn vsp(x: [f64; n], s: ([f64; n], [f64; n])) -> (([f64; n], [f64; n]), [f64; n]) {
            vjp(|x| scan(n, (0.0, 1.0), |(s, p), i| (s + x[i], p * x[i])), x, s)
        }
        pub fn jrot(x: [f64; 2], w: f64, t: f64) -> ([[f64; 2]; 3], [[f64; 2]; 3]) {
            jvp(|x, w| scan(3, x, |v, i| [v[0] * w.cos() - v[1] * w.sin(),
                                         v[0] * w.sin() + v[1] * w.cos()]), (x, w), ([0.0, 0.0], t))
        }";
    let x = [2.0, 3.0, 5.0];
    let seed = Value::Tuple(vec![
        Value::vec(&[1.0, 0.0, 1.0]),
        Value::vec(&[0.0, 0.0, 1.0]),
    ]);
    let v = run(src, "vsp", &[Value::vec(&x), seed]);
    // s1 + s3 = x0 + (x0 + x1 + x2) and p3 = x0 x1 x2.
    let want = vec![2.0 + 15.0, 1.0 + 10.0, 1.0 + 6.0];
    assert_eq!(parts(&v)[1], want);
    // Rotations by w of (1, 0): states at angles w, 2w, 3w, whose derivatives by w are
    // k times the state turned a quarter.
    let w = 0.3f64;
    let v = run(src, "jrot", &[Value::vec(&[1.0, 0.0]), f(w), f(1.0)]);
    let want: Vec<f64> = (1..=3)
        .flat_map(|k| {
            let a = k as f64 * w;
            [-(k as f64) * a.sin(), k as f64 * a.cos()]
        })
        .collect();
    assert_close(&parts(&v)[1], &want, 1e-14);
}

#[test]
fn slices_and_views() {
    let src = "
        pub fn gslice(x: [f64; 4]) -> (f64, [f64; 4]) { grad(|x| sum(x[1..3]) * x[3], x) }
        pub fn vconcat(a: [f64; 2], b: [f64; 3], s: [f64; 5]) -> ([f64; 5], [f64; 2], [f64; 3]) {
            vjp(|a, b| concat(a, b), (a, b), s)
        }
        pub fn grev(x: [f64; 3], w: [f64; 3]) -> (f64, [f64; 3]) {
            grad(|x| dot(reverse(x), w), x)
        }
        pub fn gslide(x: [f64; 4]) -> (f64, [f64; 4]) {
            grad(|x| sum(map(slide(2, x), |win| win[0] * win[1])), x)
        }
        pub fn gpad(x: [f64; 2], v: f64) -> (f64, [f64; 2], f64) {
            grad(|x, v| sum(map(pad(x, 1, 2, v), |e| e * e)), x, v)
        }
        pub fn ginter(a: [f64; 2], b: [f64; 2], w: [f64; 4]) -> (f64, [f64; 2], [f64; 2]) {
            grad(|a, b| dot(interleave(a, b), w), a, b)
        }
        pub fn gsplit(x: [f64; 4]) -> (f64, [f64; 4]) {
            grad(|x| sqnorm(join(split(2, x))) + split(2, x)[1][0], x)
        }";
    let v = run(src, "gslice", &[Value::vec(&[1.0, 2.0, 3.0, 4.0])]);
    assert_eq!(parts(&v), vec![vec![20.0], vec![0.0, 4.0, 4.0, 5.0]]);
    let s = [1.0, 2.0, 3.0, 4.0, 5.0];
    let v = run(
        src,
        "vconcat",
        &[
            Value::vec(&[9.0, 8.0]),
            Value::vec(&[7.0, 6.0, 5.0]),
            Value::vec(&s),
        ],
    );
    assert_eq!(parts(&v)[1..], [s[..2].to_vec(), s[2..].to_vec()]);
    let v = run(
        src,
        "grev",
        &[Value::vec(&[1.0, 2.0, 3.0]), Value::vec(&[4.0, 5.0, 6.0])],
    );
    assert_eq!(parts(&v), vec![vec![28.0], vec![6.0, 5.0, 4.0]]);
    let v = run(src, "gslide", &[Value::vec(&[1.0, 2.0, 3.0, 4.0])]);
    // x0 x1 + x1 x2 + x2 x3.
    assert_eq!(parts(&v), vec![vec![20.0], vec![2.0, 4.0, 6.0, 3.0]]);
    let v = run(src, "gpad", &[Value::vec(&[1.0, 2.0]), f(3.0)]);
    // x0^2 + x1^2 + 3 v^2.
    assert_eq!(parts(&v), vec![vec![32.0], vec![2.0, 4.0], vec![18.0]]);
    let w = Value::vec(&[1.0, 10.0, 100.0, 1000.0]);
    let ab = [Value::vec(&[1.0, 2.0]), Value::vec(&[3.0, 4.0])];
    let v = run(src, "ginter", &[ab[0].clone(), ab[1].clone(), w]);
    assert_eq!(parts(&v)[1..], [vec![1.0, 100.0], vec![10.0, 1000.0]]);
    let v = run(src, "gsplit", &[Value::vec(&[1.0, 2.0, 3.0, 4.0])]);
    assert_eq!(parts(&v), vec![vec![33.0], vec![2.0, 4.0, 7.0, 8.0]]);
}

#[test]
fn forms_anywhere_named_functions_and_captures() {
    let src = "
        fn energy(x: [f64; n]) -> f64 { sum(map(x, |v| v * v * v)) }
        pub fn genergy(x: [f64; 3]) -> (f64, [f64; 3]) { grad(energy, x) }
        fn field(x: [f64; 3]) -> [f64; 2] { [x[0] * x[1], x[1] * x[2].exp()] }
        pub fn jacobian(x: [f64; 3]) -> [[f64; 2]; 3] {
            build(3, |t| jvp(field, x, build(3, |j| if j == t { 1.0 } else { 0.0 })).1)
        }
        pub fn rows(x: [f64; 3]) -> [[f64; 3]; 2] {
            build(2, |r| vjp(field, x, build(2, |j| if j == r { 1.0 } else { 0.0 })).1)
        }
        pub fn scaled(x: f64, c: f64) -> (f64, f64) { grad(|a| a * c * c, x) }
        fn apply(g: fn(f64) -> f64, x: f64) -> (f64, f64) { jvp(g, x, 1.0) }
        pub fn through(x: f64) -> (f64, f64) { apply(|y| y.sin(), x) }";
    let v = run(src, "genergy", &[Value::vec(&[1.0, 2.0, 3.0])]);
    assert_eq!(parts(&v), vec![vec![36.0], vec![3.0, 12.0, 27.0]]);
    let x = [2.0f64, 3.0, 0.5];
    let e = x[2].exp();
    // Column t of the Jacobian, for each t: J^T.
    let jt = run(src, "jacobian", &[Value::vec(&x)]).flatten();
    assert_eq!(jt, vec![x[1], 0.0, x[0], e, 0.0, x[1] * e]);
    // Row r, for each r: J.
    let j = run(src, "rows", &[Value::vec(&x)]).flatten();
    assert_eq!(j, vec![x[1], x[0], 0.0, 0.0, e, x[1] * e]);
    assert_eq!(
        run(src, "scaled", &[f(2.0), f(3.0)]),
        Value::Tuple(vec![f(18.0), f(9.0)])
    );
    let v = run(src, "through", &[f(0.5)]);
    assert_eq!(v, Value::Tuple(vec![f(0.5f64.sin()), f(0.5f64.cos())]));
}

#[test]
fn tuple_arguments_and_seeds() {
    let src = "
        fn area(p: (f64, f64)) -> f64 { p.0 * p.1 }
        pub fn garea(a: f64, b: f64) -> (f64, (f64, f64)) { grad(area, (a, b)) }
        pub fn vtup(x: f64, s: (f64, [f64; 2])) -> ((f64, [f64; 2]), f64) {
            vjp(|y| (y * y, [y, 2.0 * y]), x, s)
        }";
    let v = run(src, "garea", &[f(3.0), f(4.0)]);
    assert_eq!(
        v,
        Value::Tuple(vec![f(12.0), Value::Tuple(vec![f(4.0), f(3.0)])])
    );
    let s = Value::Tuple(vec![f(1.0), Value::vec(&[10.0, 100.0])]);
    let v = run(src, "vtup", &[f(3.0), s]);
    assert_eq!(parts(&v)[1], vec![6.0 + 10.0 + 200.0]);
}

#[test]
fn f32_tangents_are_f32() {
    let src = "
        pub fn j(x: f32) -> (f32, f32) { jvp(|y| y * y * 3.0, x, 1.0) }
        pub fn g(x: [f32; 2]) -> (f32, [f32; 2]) { grad(|v| v[0].sin() * v[1], x) }
        pub fn wide(x: f32) -> (f64, f32) { grad(|y| (y as f64).exp(), x) }";
    let x = 0.1f32;
    let v = run(src, "j", &[Value::F32(x)]);
    assert_eq!(
        v,
        Value::Tuple(vec![Value::F32(x * x * 3.0), Value::F32(3.0 * (x + x))])
    );
    let v = run(src, "g", &[Value::vec_f32(&[0.5, 2.0])]);
    let want = Value::Tuple(vec![
        Value::F32(0.5f32.sin() * 2.0),
        Value::vec_f32(&[0.5f32.cos() * 2.0, 0.5f32.sin()]),
    ]);
    assert_eq!(v, want);
    // An f64 result of an f32 argument: the gradient is the argument's type.
    let v = run(src, "wide", &[Value::F32(x)]);
    let e = f64::from(x).exp();
    assert_eq!(v, Value::Tuple(vec![f(e), Value::F32(e as f32)]));
}

#[test]
fn untyped_literal_arguments_take_a_type() {
    let src = "
        pub fn lit() -> (f64, f64) { jvp(|x| x * x, 3.0, 1.0) }
        fn sq32(x: f32) -> f32 { x * x }
        pub fn lit32() -> (f32, f32) { jvp(sq32, 3.0, 1.0) }
        pub fn lit32t() -> (f32, f32) { jvp(|x| x * x, 3.0, 1.0f32) }
        pub fn glit() -> (f64, [f64; 2]) { grad(|v| v[0] * v[1], [2.0, 5.0]) }";
    assert_eq!(run(src, "lit", &[]), Value::Tuple(vec![f(9.0), f(6.0)]));
    let want32 = Value::Tuple(vec![Value::F32(9.0), Value::F32(6.0)]);
    assert_eq!(run(src, "lit32", &[]), want32);
    assert_eq!(run(src, "lit32t", &[]), want32);
    assert_eq!(
        parts(&run(src, "glit", &[])),
        vec![vec![10.0], vec![5.0, 2.0]]
    );
}

#[test]
fn derivative_errors() {
    let src = "
        fn two(a: f64, b: f64) -> f64 { a * b }
        fn idx(k: usize, x: f64) -> f64 { x }
        fn vecf(x: f64) -> [f64; 2] { [x, x] }
        pub fn not_fn(x: f64) -> f64 { grad(x, x).0 }
        pub fn grad_arity(x: f64) -> f64 { grad(two, x).0 }
        pub fn jvp_arity(x: f64) -> f64 { jvp(two, x, x).0 }
        pub fn jvp_count(x: f64) -> f64 { jvp(two, (x, x, x), (x, x, x)).0 }
        pub fn tangent_shape(x: [f64; 2]) -> f64 { jvp(|v| sum(v), x, [1.0, 2.0, 3.0]).0 }
        pub fn tangent_type(x: f64) -> f64 { jvp(|v| v, x, 1.0f32).0 }
        pub fn seed_shape(x: f64) -> [f64; 2] { vjp(vecf, x, 1.0).0 }
        pub fn by_usize(k: usize, x: f64) -> f64 { grad(idx, k, x).0 }
        pub fn by_bool(x: f64) -> f64 { jvp(|b, y| y, (true, x), (1.0, 1.0)).1 }
        pub fn by_index(x: f64) -> f64 { grad(|y, p| y, x, (x, [1, 2])).0 }
        pub fn not_scalar(x: f64) -> [f64; 2] { grad(vecf, x).0 }
        pub fn usize_result(x: f64) -> usize { jvp(|y| y as usize, x, 1.0).0 }
        pub fn nested(x: f64) -> f64 { grad(|y| grad(|z| z * y, y).1, x).1 }
        pub fn no_params(x: f64) -> f64 { jvp(|| 1.0, x, x).0 }
        pub fn few(x: f64) -> f64 { jvp(|y| y, x).0 }";
    let i = interp(src);
    let e = |name: &str, args: &[Value]| err(i.call(name, args));
    let x = [f(2.0)];
    let cases = [
        ("not_fn", "`f` must be a function, found `f64`"),
        ("grad_arity", "`f` takes 2 arguments, given 1"),
        (
            "jvp_arity",
            "write the arguments as a tuple `(a1, .., a2)`, found `f64`",
        ),
        ("jvp_count", "found `(f64, f64, f64)`"),
        (
            "tangent_type",
            "tangent 1 must have the shape of argument 1, `f64`, found `f32`",
        ),
        (
            "seed_shape",
            "the seed `s` must have the shape of the result of `f`, `[f64; 2]`",
        ),
        (
            "by_bool",
            "argument 1 is a `bool`: `f` is differentiated by floats only",
        ),
        (
            "by_index",
            "argument 2, `(f64, [usize; 2])`, holds a `usize`",
        ),
        (
            "not_scalar",
            "`f` must return a float scalar, found `[f64; 2]`",
        ),
        (
            "usize_result",
            "the result of `f` is a `usize`: only float results are differentiated",
        ),
        (
            "nested",
            "`grad(f, a1, .., ak)`: inside a function being differentiated: higher \
             derivatives are not supported by the interpreter\n  in `grad`\n  in `nested`",
        ),
        ("no_params", "`f` has no parameters to differentiate by"),
        ("few", "takes three arguments, found 2 arguments"),
    ];
    for (name, want) in cases {
        let got = e(name, &x);
        assert!(got.contains(want), "{name}: {got}");
    }
    let got = e("tangent_shape", &[Value::vec(&[1.0, 2.0])]);
    assert!(got.contains("`[f64; 2]`, found `[f64; 3]`"), "{got}");
    let got = e("by_usize", &[u(1), f(2.0)]);
    assert!(
        got.starts_with("`grad(f, a1, .., ak)`: argument 1 is a `usize`"),
        "{got}"
    );
    assert!(got.contains("capture it in a closure"), "{got}");
}

#[test]
fn a_function_of_the_name_shadows_the_form() {
    let src = "fn grad(x: f64, y: f64) -> f64 { x - y }
               pub fn k(x: f64) -> f64 { grad(x, 1.0) }";
    assert_eq!(run(src, "k", &[f(3.0)]), f(2.0));
}
