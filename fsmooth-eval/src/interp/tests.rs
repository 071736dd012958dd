use super::*;

pub(super) fn interp(src: &str) -> Interp {
    match Interp::new(src) {
        Ok(i) => i,
        Err(e) => panic!("parse failed: {e}"),
    }
}

fn run(src: &str, name: &str, args: &[Value]) -> Result<Value, String> {
    interp(src).call(name, args)
}

fn prelude(name: &str, args: &[Value]) -> Value {
    match interp("").call(name, args) {
        Ok(v) => v,
        Err(e) => panic!("{name} failed: {e}"),
    }
}

pub(super) fn f(x: f64) -> Value {
    Value::F64(x)
}

pub(super) fn u(k: usize) -> Value {
    Value::Usize(k)
}

pub(super) fn err(r: Result<Value, String>) -> String {
    match r {
        Ok(v) => panic!("expected an error, got {v:?}"),
        Err(e) => e,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

const PAPER: &str = "
    /// Sum of three vectors.
    pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
        add(add(a, b), c)
    }

    pub fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        cross(a, b)
    }

    fn centre(v: [f64; n]) -> [f64; n] {
        let mean = sum(v) / (n as f64);
        build(n, |i| v[i] - mean)
    }
";

#[test]
fn value_helpers() {
    assert_eq!(Value::vec(&[1.0, 2.0]), Value::Array(vec![f(1.0), f(2.0)]));
    let m = Value::matrix(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3);
    assert_eq!(
        m,
        Value::Array(vec![
            Value::vec(&[1.0, 2.0, 3.0]),
            Value::vec(&[4.0, 5.0, 6.0])
        ])
    );
    assert_eq!(m.flatten(), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(
        Value::matrix(&[1.0, 2.0, 3.0], 2),
        Value::Array(vec![Value::vec(&[1.0, 2.0])])
    );
    assert_eq!(Value::matrix(&[1.0], 0), Value::Array(vec![]));
    assert_eq!(f(2.5).flatten(), vec![2.5]);
    assert_eq!(u(3).flatten(), vec![3.0]);
    assert_eq!(f(2.5).as_f64(), Some(2.5));
    assert_eq!(u(2).as_f64(), None);
    assert_eq!(Value::vec(&[1.0]).as_f64(), None);
}

#[test]
fn paper_add3_and_cross() {
    let i = interp(PAPER);
    let r = i.call(
        "add3",
        &[
            Value::vec(&[1.0, 2.0]),
            Value::vec(&[10.0, 20.0]),
            Value::vec(&[100.0, 200.0]),
        ],
    );
    assert_eq!(r, Ok(Value::vec(&[111.0, 222.0])));
    let r = i.call(
        "cross3",
        &[Value::vec(&[1.0, 0.0, 0.0]), Value::vec(&[0.0, 1.0, 0.0])],
    );
    assert_eq!(r, Ok(Value::vec(&[0.0, 0.0, 1.0])));
    let r = i.call(
        "cross",
        &[Value::vec(&[1.0, 2.0, 3.0]), Value::vec(&[4.0, 5.0, 6.0])],
    );
    assert_eq!(r, Ok(Value::vec(&[-3.0, 6.0, -3.0])));
    let r = i.call("centre", &[Value::vec(&[1.0, 2.0, 6.0])]);
    assert_eq!(r, Ok(Value::vec(&[-2.0, -1.0, 3.0])));
    // cross wants exactly 3 elements
    let e = err(i.call(
        "cross3",
        &[Value::vec(&[1.0, 0.0]), Value::vec(&[0.0, 1.0, 0.0])],
    ));
    assert!(e.contains("argument `a` of `cross3`"), "{e}");
}

#[test]
fn prelude_vectors() {
    let a = Value::vec(&[1.0, 2.0, 3.0]);
    let b = Value::vec(&[4.0, -5.0, 6.0]);
    assert_eq!(
        prelude("add", &[a.clone(), b.clone()]),
        Value::vec(&[5.0, -3.0, 9.0])
    );
    assert_eq!(
        prelude("sub", &[a.clone(), b.clone()]),
        Value::vec(&[-3.0, 7.0, -3.0])
    );
    assert_eq!(
        prelude("emul", &[a.clone(), b.clone()]),
        Value::vec(&[4.0, -10.0, 18.0])
    );
    assert_eq!(
        prelude("smul", &[a.clone(), f(2.0)]),
        Value::vec(&[2.0, 4.0, 6.0])
    );
    assert_eq!(prelude("sum", std::slice::from_ref(&a)), f(6.0));
    assert_eq!(prelude("sum", &[Value::vec(&[])]), f(0.0));
    assert_eq!(prelude("dot", &[a.clone(), b.clone()]), f(12.0));
    assert_eq!(prelude("sqnorm", std::slice::from_ref(&a)), f(14.0));
    assert_eq!(prelude("norm", &[Value::vec(&[3.0, 4.0])]), f(5.0));
    assert_eq!(prelude("vmax", std::slice::from_ref(&b)), f(6.0));
    assert_eq!(prelude("vmax", &[Value::vec(&[])]), f(f64::NEG_INFINITY));
    // ln(e^-2 + e^-1 + e^0) + 3
    let lse = prelude("logsumexp", std::slice::from_ref(&a))
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!(close(lse, 3.4076059644443806), "{lse}");
    // large inputs do not overflow thanks to the max shift
    let lse = prelude("logsumexp", &[Value::vec(&[1000.0, 1000.0])])
        .as_f64()
        .unwrap_or(f64::NAN);
    assert!(close(lse, 1000.0 + 2f64.ln()), "{lse}");
}

#[test]
fn prelude_matrices() {
    // a = [[1, 2, 3], [4, 5, 6]] (2x3), b = [[7, 8], [9, 10], [11, 12]] (3x2)
    let a = Value::matrix(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 3);
    let b = Value::matrix(&[7.0, 8.0, 9.0, 10.0, 11.0, 12.0], 2);
    assert_eq!(
        prelude("transpose", std::slice::from_ref(&a)),
        Value::matrix(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0], 2)
    );
    assert_eq!(
        prelude("matmul", &[a.clone(), b.clone()]),
        Value::matrix(&[58.0, 64.0, 139.0, 154.0], 2)
    );
    assert_eq!(
        prelude("matvec", &[a.clone(), Value::vec(&[1.0, 0.0, -1.0])]),
        Value::vec(&[-2.0, -2.0])
    );
    assert_eq!(
        prelude(
            "outer",
            &[Value::vec(&[1.0, 2.0]), Value::vec(&[3.0, 4.0, 5.0])]
        ),
        Value::matrix(&[3.0, 4.0, 5.0, 6.0, 8.0, 10.0], 3)
    );
    let c = Value::matrix(&[1.0, 1.0, 1.0, 2.0, 2.0, 2.0], 3);
    assert_eq!(
        prelude("madd", &[a.clone(), c.clone()]),
        Value::matrix(&[2.0, 3.0, 4.0, 6.0, 7.0, 8.0], 3)
    );
    assert_eq!(
        prelude("msub", &[a.clone(), c.clone()]),
        Value::matrix(&[0.0, 1.0, 2.0, 2.0, 3.0, 4.0], 3)
    );
    assert_eq!(
        prelude("msmul", &[a.clone(), f(-1.0)]),
        Value::matrix(&[-1.0, -2.0, -3.0, -4.0, -5.0, -6.0], 3)
    );
    // inner dimensions must agree
    let e = err(interp("").call("matmul", &[a.clone(), a.clone()]));
    assert!(
        // The prelude is generic in its element type `T` (LANGUAGE.md section 11).
        e.contains("argument `b` of `matmul`") && e.contains("[[T; m]; k]"),
        "{e}"
    );
    // a ragged matrix is rejected
    let ragged = Value::Array(vec![Value::vec(&[1.0, 2.0]), Value::vec(&[3.0])]);
    let e = err(interp("").call("transpose", &[ragged]));
    assert!(e.contains("argument `m` of `transpose`"), "{e}");
}

#[test]
fn map_and_map2_with_closures_and_functions() {
    let src = "
        fn scale(v: [f64; n], s: f64) -> [f64; n] { map(v, |x| x * s) }
        fn blend(a: [f64; n], b: [f64; n], t: f64) -> [f64; n] {
            map2(a, b, |x, y| x * (1.0 - t) + y * t)
        }
        fn sq(x: f64) -> f64 { x * x }
        fn squares(v: [f64; n]) -> [f64; n] { map(v, sq) }
        fn twice(f: fn(f64) -> f64, x: f64) -> f64 { f(f(x)) }
        fn quad(x: f64) -> f64 { twice(sq, x) }
        fn nested(v: [f64; n], w: [f64; m]) -> [f64; n] {
            map(v, |x| sum(map(w, |y| x * y)))
        }
    ";
    let i = interp(src);
    assert_eq!(
        i.call("scale", &[Value::vec(&[1.0, -2.0]), f(3.0)]),
        Ok(Value::vec(&[3.0, -6.0]))
    );
    assert_eq!(
        i.call(
            "blend",
            &[Value::vec(&[0.0, 10.0]), Value::vec(&[4.0, 20.0]), f(0.25)]
        ),
        Ok(Value::vec(&[1.0, 12.5]))
    );
    assert_eq!(
        i.call("squares", &[Value::vec(&[2.0, 3.0])]),
        Ok(Value::vec(&[4.0, 9.0]))
    );
    assert_eq!(i.call("quad", &[f(3.0)]), Ok(f(81.0)));
    assert_eq!(
        i.call(
            "nested",
            &[Value::vec(&[1.0, 2.0]), Value::vec(&[1.0, 2.0, 3.0])]
        ),
        Ok(Value::vec(&[6.0, 12.0]))
    );
    // a closure of the wrong type is caught: `map` is generic, so at the result it gives
    let e = err(run(
        "fn g(v: [f64; n]) -> [f64; n] { map(v, |x| x < 1.0) }",
        "g",
        &[Value::vec(&[1.0])],
    ));
    assert!(e.contains("the result of `g`"), "{e}");
    // a kernel entry cannot receive a function
    let e = err(i.call("twice", &[f(1.0), f(1.0)]));
    assert!(e.contains("argument `f` of `twice`"), "{e}");
}

#[test]
fn ifold_with_array_accumulator() {
    let src = "
        fn colsum(m: [[f64; c]; r]) -> [f64; c] {
            ifold(r, build(c, |j| 0.0), |acc, i| add(acc, m[i]))
        }
        fn prefix(v: [f64; n]) -> [f64; n] {
            ifold(n, build(n, |j| 0.0), |acc, i| build(n, |j| if j < i { acc[j] } else { acc[j] + v[i] }))
        }
        fn bad(v: [f64; n]) -> [f64; n] {
            ifold(2, v, |acc, i| acc[0..1])
        }
    ";
    let i = interp(src);
    let m = Value::matrix(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], 2);
    assert_eq!(i.call("colsum", &[m]), Ok(Value::vec(&[9.0, 12.0])));
    assert_eq!(
        i.call("prefix", &[Value::vec(&[1.0, 2.0, 3.0])]),
        Ok(Value::vec(&[1.0, 3.0, 6.0]))
    );
    let e = err(i.call("bad", &[Value::vec(&[1.0, 2.0])]));
    assert!(e.contains("accumulator's shape"), "{e}");
}

#[test]
fn slices() {
    let src = "
        fn mid(v: [f64; n]) -> [f64; 2] { v[1..3] }
        fn head(v: [f64; n]) -> [f64; 2] { v[..2] }
        fn tail(v: [f64; n]) -> [f64; n - 1] { v[1..] }
        fn all(v: [f64; n]) -> [f64; n] { v[..] }
        fn window(v: [f64; n], a: usize, b: usize) -> f64 { sum(v[a..b]) }
        fn row_part(m: [[f64; c]; r]) -> [f64; 1] { m[1][1..2] }
    ";
    let i = interp(src);
    let v = Value::vec(&[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        i.call("mid", std::slice::from_ref(&v)),
        Ok(Value::vec(&[2.0, 3.0]))
    );
    assert_eq!(
        i.call("head", std::slice::from_ref(&v)),
        Ok(Value::vec(&[1.0, 2.0]))
    );
    assert_eq!(
        i.call("tail", std::slice::from_ref(&v)),
        Ok(Value::vec(&[2.0, 3.0, 4.0]))
    );
    assert_eq!(i.call("all", std::slice::from_ref(&v)), Ok(v.clone()));
    assert_eq!(i.call("window", &[v.clone(), u(1), u(4)]), Ok(f(9.0)));
    assert_eq!(i.call("window", &[v.clone(), u(2), u(2)]), Ok(f(0.0)));
    let m = Value::matrix(&[1.0, 2.0, 3.0, 4.0], 2);
    assert_eq!(i.call("row_part", &[m]), Ok(Value::vec(&[4.0])));
    let e = err(i.call("window", &[v.clone(), u(3), u(2)]));
    assert!(e.contains("slice 3..2"), "{e}");
    let e = err(i.call("window", &[v.clone(), u(0), u(5)]));
    assert!(e.contains("slice 0..5"), "{e}");
    let e = err(i.call("tail", &[Value::vec(&[])]));
    assert!(e.contains("slice 1..0"), "{e}");
    // mid of a short vector is out of range
    let e = err(i.call("mid", &[Value::vec(&[1.0, 2.0])]));
    assert!(e.contains("slice 1..3"), "{e}");
}

#[test]
fn size_arithmetic() {
    let src = "
        fn extend(a: [f64; n], b: [f64; n + 1]) -> [f64; n + 1] {
            build(n + 1, |i| if i < n { a[i] + b[i] } else { b[i] })
        }
        fn pairs(v: [f64; 2 * n]) -> [[f64; 2]; n] { build(n, |i| [v[2 * i], v[2 * i + 1]]) }
        fn pairs2(n: usize, v: [f64; 2 * n]) -> [[f64; 2]; n] { pairs(v) }
        fn halves(n: usize, v: [f64; 2 * n]) -> [[f64; 2]; n] { build(n, |i| v[2 * i..2 * i + 2]) }
        fn shrink(v: [f64; n]) -> [f64; n - 1] { v[1..] }
        fn tri(d: usize, p: [f64; d * (d + 1) / 2]) -> f64 { sum(p) + (d as f64) }
        fn dup(v: [f64; n]) -> [f64; n + n] { build(2 * n, |i| v[i % n]) }
    ";
    let i = interp(src);
    assert_eq!(
        i.call(
            "extend",
            &[Value::vec(&[1.0, 2.0]), Value::vec(&[10.0, 20.0, 30.0])]
        ),
        Ok(Value::vec(&[11.0, 22.0, 30.0]))
    );
    let e = err(i.call(
        "extend",
        &[Value::vec(&[1.0, 2.0]), Value::vec(&[10.0, 20.0])],
    ));
    assert!(
        e.contains("argument `b` of `extend`") && e.contains("[f64; n + 1]"),
        "{e}"
    );
    // composite sizes are checked, not solved: nothing pins `n` of `pairs`, even when
    // it is called from a function that knows it
    let e = err(i.call("pairs", &[Value::vec(&[1.0, 2.0])]));
    assert!(e.contains("size `n` is not known"), "{e}");
    let e = err(i.call("pairs2", &[u(1), Value::vec(&[1.0, 2.0])]));
    assert!(
        e.contains("size `n` is not known") && e.contains("in `pairs2`"),
        "{e}"
    );
    // the declared result `[f64; n - 1]` underflows for n = 0 (the slice is fine)
    assert_eq!(
        i.call("shrink", &[Value::vec(&[1.0, 2.0])]),
        Ok(Value::vec(&[2.0]))
    );
    assert_eq!(
        i.call("halves", &[u(2), Value::vec(&[1.0, 2.0, 3.0, 4.0])]),
        Ok(Value::matrix(&[1.0, 2.0, 3.0, 4.0], 2))
    );
    assert_eq!(
        i.call("tri", &[u(2), Value::vec(&[1.0, 2.0, 3.0])]),
        Ok(f(8.0))
    );
    let e = err(i.call("tri", &[u(3), Value::vec(&[1.0, 2.0, 3.0])]));
    assert!(e.contains("d * (d + 1) / 2"), "{e}");
    assert_eq!(
        i.call("dup", &[Value::vec(&[1.0, 2.0])]),
        Ok(Value::vec(&[1.0, 2.0, 1.0, 2.0]))
    );
}

#[test]
fn usize_parameter_as_size() {
    let src = "
        pub fn iota(n: usize) -> [f64; n] { build(n, |i| i as f64) }
        pub fn grid(r: usize, c: usize) -> [[f64; c]; r] { build(r, |i| build(c, |j| (i * c + j) as f64)) }
        fn wrong(n: usize) -> [f64; n] { build(n + 1, |i| 0.0) }
        fn pinned(n: usize, v: [f64; n]) -> f64 { sum(v) * (n as f64) }
    ";
    let i = interp(src);
    assert_eq!(i.call("iota", &[u(3)]), Ok(Value::vec(&[0.0, 1.0, 2.0])));
    assert_eq!(i.call("iota", &[u(0)]), Ok(Value::vec(&[])));
    assert_eq!(
        i.call("grid", &[u(2), u(2)]),
        Ok(Value::matrix(&[0.0, 1.0, 2.0, 3.0], 2))
    );
    let e = err(i.call("wrong", &[u(2)]));
    assert!(e.contains("the result of `wrong`"), "{e}");
    assert_eq!(
        i.call("pinned", &[u(2), Value::vec(&[1.0, 2.0])]),
        Ok(f(6.0))
    );
    let e = err(i.call("pinned", &[u(3), Value::vec(&[1.0, 2.0])]));
    assert!(e.contains("argument `v` of `pinned`"), "{e}");
    let e = err(i.call("iota", &[f(3.0)]));
    assert!(e.contains("argument `n` of `iota`"), "{e}");
}

#[test]
fn runtime_faults() {
    let src = "
        fn at(v: [f64; n], i: usize) -> f64 { v[i] }
        fn at2(m: [[f64; c]; r], i: usize, j: usize) -> f64 { m[i][j] }
        fn inner(v: [f64; w]) -> f64 { sum(build(w - 2, |i| v[i + 1])) }
        fn wrap(v: [f64; n], i: usize) -> f64 { v[i % n] }
        fn half(v: [f64; n], k: usize) -> usize { n / k }
        fn big(k: usize) -> usize { k * k }
        fn mixed(x: f64) -> f64 { x + 1 }
    ";
    let i = interp(src);
    let v = Value::vec(&[1.0, 2.0, 3.0]);
    assert_eq!(i.call("at", &[v.clone(), u(2)]), Ok(f(3.0)));
    let e = err(i.call("at", &[v.clone(), u(3)]));
    assert!(
        e.contains("index 3 out of range") && e.contains("in `at`"),
        "{e}"
    );
    let m = Value::matrix(&[1.0, 2.0, 3.0, 4.0], 2);
    assert_eq!(i.call("at2", &[m.clone(), u(1), u(0)]), Ok(f(3.0)));
    assert!(err(i.call("at2", &[m.clone(), u(0), u(2)])).contains("index 2 out of range"));
    assert!(err(i.call("at2", &[m, u(2), u(0)])).contains("index 2 out of range"));
    assert_eq!(i.call("inner", std::slice::from_ref(&v)), Ok(f(2.0)));
    let e = err(i.call("inner", &[Value::vec(&[1.0])]));
    assert!(e.contains("usize `1 - 2` underflows"), "{e}");
    assert_eq!(i.call("wrap", &[v.clone(), u(4)]), Ok(f(2.0)));
    let e = err(i.call("wrap", &[Value::vec(&[]), u(4)]));
    assert!(e.contains("usize `4 % 0` divides by zero"), "{e}");
    let e = err(i.call("half", &[v.clone(), u(0)]));
    assert!(e.contains("divides by zero"), "{e}");
    assert!(err(i.call("big", &[u(usize::MAX)])).contains("overflows"));
    assert!(err(i.call("mixed", &[f(1.0)])).contains("two floats of one type or two usize"));
    // shape mismatch
    let e = err(i.call(
        "add",
        &[Value::vec(&[1.0, 2.0]), Value::vec(&[1.0, 2.0, 3.0])],
    ));
    assert!(
        e.contains("argument `b` of `add`") && e.contains("[f64; 3]"),
        "{e}"
    );
    // wrong argument count, unknown function
    assert!(err(i.call("add", &[Value::vec(&[1.0])])).contains("takes 2 arguments"));
    assert!(err(i.call("ad", &[])).contains("no function `ad`"));
    assert!(err(i.call("tranpose", &[])).contains("did you mean `transpose`"));
}

#[test]
fn runaway_recursion_is_an_error() {
    let src = "
        fn f(x: f64) -> f64 { g(x) + 1.0 }
        fn g(x: f64) -> f64 { f(x) * 2.0 }
        fn h(x: f64) -> f64 { apply(h, x) }
        fn apply(k: fn(f64) -> f64, x: f64) -> f64 { k(x) }
    ";
    let i = interp(src);
    let e = err(i.call("f", &[f(1.0)]));
    assert!(e.contains("recursion"), "{e}");
    let e = err(i.call("h", &[f(1.0)]));
    assert!(e.contains("recursion"), "{e}");
    // recursion under several expression levels per call
    let src = "fn r(v: [f64; n]) -> [f64; n] { build(n, |i| (r(v)[i] + 1.0) * 2.0) }";
    let e = err(run(src, "r", &[Value::vec(&[1.0])]));
    assert!(e.contains("recursion"), "{e}");
}

#[test]
fn deep_but_finite_nesting_is_fine() {
    // a chain of 40 helpers, each calling the next through a closure
    let mut src = String::from("fn c0(x: f64) -> f64 { x + 1.0 }\n");
    for k in 1..40 {
        src += &format!(
            "fn c{k}(x: f64) -> f64 {{ sum(map([x], |y| c{}(y))) + 1.0 }}\n",
            k - 1
        );
    }
    assert_eq!(run(&src, "c39", &[f(0.0)]), Ok(f(40.0)));
    // a long left-nested sum (parse.rs itself overflows a 2 MiB debug stack near 300)
    let terms: Vec<String> = (0..150).map(|_| "x".to_string()).collect();
    let src = format!("fn s(x: f64) -> f64 {{ {} }}", terms.join(" + "));
    assert_eq!(run(&src, "s", &[f(1.0)]), Ok(f(150.0)));
}

#[test]
fn scalars_casts_and_math() {
    let src = "
        fn cast(x: f64) -> usize { x as usize }
        fn rem(x: f64, y: f64) -> f64 { x % y }
        fn pw(x: f64, k: usize) -> [f64; 4] { [x.powi(k), x.powi(-2), x.powi(0), x.powf(0.5)] }
        fn math(x: f64) -> [f64; 8] {
            [x.sqrt(), x.exp().ln(), x.abs(), (-x).abs(), x.floor(), x.ceil(), x.min(1.0), x.max(1.0)]
        }
        fn trig(x: f64) -> [f64; 4] { [x.sin(), x.cos(), x.tan(), x.tanh()] }
        fn guard(v: [f64; n], i: usize) -> bool { i < n && v[i] > 0.0 }
        fn either(v: [f64; n], i: usize) -> bool { i >= n || v[i] > 0.0 }
        fn sign(x: f64) -> f64 { if x < 0.0 { -1.0 } else if x == 0.0 { 0.0 } else { 1.0 } }
        fn not(b: bool) -> bool { !b }
        fn lets(x: f64) -> f64 {
            let y: f64 = x * 2.0;
            let v: [f64; 2] = [y, x];
            let k = v.len();
            let z = length(v);
            v[0] + v[1] + ((k + z) as f64)
        }
        fn badlet(x: f64) -> f64 { let v: [f64; 3] = [x, x]; x }
        fn shadow(v: [f64; n]) -> f64 { sum(v) }
        fn sum(v: [f64; n]) -> f64 { 42.0 }
        fn cmp_bool(a: bool) -> bool { a == a }
        fn lit_shape(x: f64) -> [[f64; 2]; 2] { [[x, x], [x]] }
    ";
    let i = interp(src);
    assert_eq!(i.call("cast", &[f(2.9)]), Ok(u(2)));
    assert_eq!(i.call("cast", &[f(-1.5)]), Ok(u(0)));
    assert_eq!(i.call("cast", &[f(f64::NAN)]), Ok(u(0)));
    assert_eq!(i.call("cast", &[f(1e300)]), Ok(u(usize::MAX)));
    assert_eq!(i.call("rem", &[f(-7.5), f(2.0)]), Ok(f(-1.5)));
    assert_eq!(
        i.call("pw", &[f(2.0), u(3)]),
        Ok(Value::vec(&[8.0, 0.25, 1.0, 2.0f64.sqrt()]))
    );
    assert_eq!(
        i.call("math", &[f(2.5)]),
        Ok(Value::vec(&[
            2.5f64.sqrt(),
            2.5f64.exp().ln(),
            2.5,
            2.5,
            2.0,
            3.0,
            1.0,
            2.5
        ]))
    );
    assert_eq!(
        i.call("trig", &[f(0.5)]),
        Ok(Value::vec(&[
            0.5f64.sin(),
            0.5f64.cos(),
            0.5f64.tan(),
            0.5f64.tanh()
        ]))
    );
    let v = Value::vec(&[1.0, -1.0]);
    assert_eq!(i.call("guard", &[v.clone(), u(0)]), Ok(Value::Bool(true)));
    assert_eq!(i.call("guard", &[v.clone(), u(1)]), Ok(Value::Bool(false)));
    assert_eq!(i.call("guard", &[v.clone(), u(2)]), Ok(Value::Bool(false)));
    assert_eq!(i.call("either", &[v.clone(), u(2)]), Ok(Value::Bool(true)));
    assert_eq!(i.call("either", &[v.clone(), u(1)]), Ok(Value::Bool(false)));
    assert_eq!(i.call("sign", &[f(-3.0)]), Ok(f(-1.0)));
    assert_eq!(i.call("sign", &[f(0.0)]), Ok(f(0.0)));
    assert_eq!(i.call("sign", &[f(3.0)]), Ok(f(1.0)));
    assert_eq!(i.call("not", &[Value::Bool(false)]), Ok(Value::Bool(true)));
    assert_eq!(i.call("lets", &[f(1.0)]), Ok(f(7.0)));
    assert!(err(i.call("badlet", &[f(1.0)])).contains("`let v`"));
    // a user function replaces the prelude's in the block, but not inside the prelude's own
    // functions (`dot` is the prelude's `sum(mul(a, b))`)
    assert_eq!(i.call("shadow", &[Value::vec(&[1.0])]), Ok(f(42.0)));
    assert_eq!(
        i.call("dot", &[Value::vec(&[2.0]), Value::vec(&[3.0])]),
        Ok(f(6.0))
    );
    assert!(
        err(i.call("cmp_bool", &[Value::Bool(true)]))
            .contains("two floats of one type or two usize")
    );
    assert!(err(i.call("lit_shape", &[f(1.0)])).contains("differ in shape"));
}

#[test]
fn parse_errors() {
    let e = Interp::new("fn f(x: f64) -> f64 { x +* }")
        .err()
        .unwrap_or_default();
    assert!(!e.is_empty());
    let e = Interp::new("fn f(x: f64) -> f64 { for i in 0..3 {} }")
        .err()
        .unwrap_or_default();
    assert!(e.contains("`for` loops are not part of fsmooth"), "{e}");
    let e = Interp::new("fn f(x: f64) -> f64 { x } fn f(x: f64) -> f64 { x }")
        .err()
        .unwrap_or_default();
    assert!(e.contains("defined twice"), "{e}");
    let e = Interp::new("fn f(x: f64) -> f64 { \"x\" }")
        .err()
        .unwrap_or_default();
    assert!(e.contains("literals"), "{e}");
    let e = Interp::new("fn f( -> f64 { 1.0 }")
        .err()
        .unwrap_or_default();
    assert!(!e.is_empty());
    let e = Interp::new("fn f(x: f64) -> f64 { (x }")
        .err()
        .unwrap_or_default();
    assert!(!e.is_empty());
}

#[test]
fn doc_comments_and_stringify_text() {
    // stringify! of a block renders `///` as `#[doc = ..]`
    let i = interp("#[doc = \" docs \"] pub fn one() -> f64 { 1.0 }");
    assert_eq!(i.call("one", &[]), Ok(f(1.0)));
}

#[test]
fn imported_functions_resolve_names_in_their_own_block() {
    // `geo`'s `norm2` calls `sq`, which the importing block defines differently; and the
    // importing block's `dot` shadows the prelude's only there (`geo` still has the prelude's).
    let geo = "pub mod geo; fn sq(x: f64) -> f64 { x * x } pub fn norm2(v: [f64; n]) -> f64 { ifold(n, 0.0, |a, i| a + sq(v[i])) } pub fn dot2(a: [f64; n]) -> f64 { dot(a, a) }";
    let user = "use crate::geo::{norm2, dot2 as d2}; fn sq(x: f64) -> f64 { 10.0 * x } fn dot(a: [f64; n], b: [f64; n]) -> f64 { 0.0 }
        pub fn k(v: [f64; 2]) -> f64 { norm2(v) + sq(1.0) }
        pub fn j(v: [f64; 2]) -> f64 { d2(v) + dot(v, v) }
        pub fn m(v: [f64; 2]) -> f64 { sum(map(v, |x| sq(x))) }";
    let it = Interp::linked(user, &[("crate::geo", geo)]).unwrap();
    let v = Value::vec(&[1.0, 2.0]);
    assert_eq!(it.call("k", std::slice::from_ref(&v)), Ok(f(5.0 + 10.0)));
    assert_eq!(it.call("j", std::slice::from_ref(&v)), Ok(f(5.0)));
    // A closure passed into the prelude's `map` calls the block's `sq`.
    assert_eq!(it.call("m", &[v]), Ok(f(30.0)));
}

#[test]
fn imports_of_missing_modules_or_names_are_errors() {
    let geo = "pub mod geo; fn sq(x: f64) -> f64 { x * x }";
    let e = Interp::linked(
        "use crate::geo::cube; pub fn k() -> f64 { 1.0 }",
        &[("crate::geo", geo)],
    );
    assert!(e.is_err_and(|e| e.contains("`cube` is not a function of the block `crate::geo`")));
    let e = Interp::new("use crate::geo::sq; pub fn k() -> f64 { sq(1.0) }");
    assert!(e.is_err_and(|e| e.contains("no block is module `crate::geo`")));
    // A glob brings every function of the block; the block's own names win.
    let it = Interp::linked(
        "use crate::geo::*; fn sq(x: f64) -> f64 { 2.0 * x } pub fn k() -> f64 { sq(3.0) }",
        &[("crate::geo", geo)],
    )
    .unwrap();
    assert_eq!(it.call("k", &[]), Ok(f(6.0)));
}
