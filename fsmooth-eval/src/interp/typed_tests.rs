//! f32 values, untyped literals, casts, usize arrays (gathers, usize locals and results),
//! the math methods on both float types and on usize, and element-type parameters
//! (LANGUAGE.md sections 10 and 11).

use super::tests::{err, f, interp, u};
use super::*;

fn g(x: f32) -> Value {
    Value::F32(x)
}

fn run(src: &str, args: &[Value]) -> Result<Value, String> {
    interp(src).call("k", args)
}

fn ok(src: &str, args: &[Value]) -> Value {
    match run(src, args) {
        Ok(v) => v,
        Err(e) => panic!("{src}: {e}"),
    }
}

/// f32 arithmetic is done in f32: `x * y + z` rounds after each operation in f32, which
/// differs from computing in f64 and rounding once at the end.
#[test]
fn f32_arithmetic_is_done_in_f32() {
    let src = "pub fn k(x: f32, y: f32, z: f32) -> f32 { x * y + z - x / y }";
    let (x, y, z) = (0.1f32, 0.1f32, 0.2f32);
    let want = x * y + z - x / y;
    let via_f64 = (f64::from(x) * f64::from(y) + f64::from(z) - f64::from(x) / f64::from(y)) as f32;
    assert_ne!(want, via_f64, "the inputs must tell the two apart");
    assert_eq!(ok(src, &[g(x), g(y), g(z)]), g(want));
    // Comparisons and `%` too.
    let src = "pub fn k(x: f32, y: f32) -> (bool, f32) { (x < y, x % y) }";
    assert_eq!(
        ok(src, &[g(7.5), g(2.0)]),
        Value::Tuple(vec![Value::Bool(false), g(1.5)])
    );
    assert_eq!(ok("pub fn k(x: f32) -> f32 { -x }", &[g(1.5)]), g(-1.5));
}

/// An unsuffixed literal takes the type of the typed float it meets, and a literal-only
/// expression is computed in that type throughout (`0.1 + 2.3` in f32 is not the f64 sum
/// rounded to f32); with nothing to meet, it is an f64.
#[test]
fn literals_take_the_type_they_meet() {
    let (a, b) = (0.1f32 + 2.3f32, (0.1f64 + 2.3f64) as f32);
    assert_ne!(a, b);
    let x = 1.25f32;
    for src in [
        "pub fn k(x: f32) -> f32 { x * (0.1 + 2.3) }",
        "pub fn k(x: f32) -> f32 { (0.1 + 2.3) * x }",
        "pub fn k(x: f32) -> f32 { let c = 0.1 + 2.3; c * x }",
        "pub fn k(x: f32) -> f32 { let c: f32 = 0.1 + 2.3; c * x }",
        "pub fn k(x: f32) -> f32 { (if x > 0.0 { 0.1 + 2.3 } else { x }) * x }",
        "pub fn k(x: f32) -> f32 { (0.1 + 2.3).max(x) * x }",
        "pub fn k(x: f32) -> f32 { x.max(0.1 + 2.3) * x }",
    ] {
        assert_eq!(ok(src, &[g(x)]), g(a * x), "{src}");
    }
    // A declared f32 result, parameter or `let` type settles a literal-only value.
    assert_eq!(ok("pub fn k() -> f32 { 0.1 + 2.3 }", &[]), g(a));
    let src = "fn h(c: f32) -> f32 { c } pub fn k() -> f32 { h(0.1 + 2.3) }";
    assert_eq!(ok(src, &[]), g(a));
    // In an f64 context, or none, the f64 value.
    assert_eq!(
        ok("pub fn k(x: f64) -> f64 { x * (0.1 + 2.3) }", &[f(2.0)]),
        f(2.0 * (0.1 + 2.3))
    );
    assert_eq!(ok("pub fn k() -> f64 { 0.1 + 2.3 }", &[]), f(0.1 + 2.3));
    assert_eq!(
        interp("fn h() -> f64 { 1.0 } fn id(x: T) -> T { x } pub fn k() -> f64 { id(2.0) }")
            .call("id", &[Value::Untyped(0.1, 0.1)])
            .unwrap(),
        f(0.1),
        "an untyped result that met nothing is an f64"
    );
    // Two untyped floats compare as f64: 0.1 + 0.2 > 0.3 in f64, not in f32.
    let sum = |x: f64, y: f64| (x + y, x as f32 + y as f32);
    assert!(sum(0.1, 0.2).0 > 0.3 && sum(0.1, 0.2).1 <= 0.3);
    let src = "pub fn k() -> f64 { if 0.1 + 0.2 > 0.3 { 1.0 } else { 0.0 } }";
    assert_eq!(ok(src, &[]), f(1.0));
    // A cast of a literal-only value casts its f64 value.
    let src = "pub fn k() -> f32 { (0.1 + 2.3) as f32 }";
    assert_eq!(ok(src, &[]), g(b));
}

/// `2.0f32` is an f32 and `2.0f64` an f64 wherever they are; mixing f32 and f64 is an error
/// that names both types.
#[test]
fn suffixed_literals_and_mixing() {
    assert_eq!(ok("pub fn k() -> f32 { 0.1f32 }", &[]), g(0.1));
    assert_eq!(ok("pub fn k() -> f32 { 2f32 * 0.5 }", &[]), g(1.0));
    assert_eq!(
        ok("pub fn k(x: f32) -> f32 { x + 0.1f32 + 2.3f32 }", &[g(0.5)]),
        g(0.5f32 + 0.1 + 2.3)
    );
    for (src, args) in [
        ("pub fn k(x: f64) -> f64 { x + 2.0f32 }", vec![f(1.0)]),
        (
            "pub fn k(x: f32, y: f64) -> f64 { y * x }",
            vec![g(1.0), f(1.0)],
        ),
        (
            "pub fn k(x: f32, y: f64) -> bool { x < y }",
            vec![g(1.0), f(1.0)],
        ),
        (
            "pub fn k(x: f32, y: f64) -> f64 { y.min(x) }",
            vec![g(1.0), f(1.0)],
        ),
        (
            "pub fn k(x: f32) -> f32 { x.mul_add(1.0f64, 2.0) }",
            vec![g(1.0)],
        ),
        (
            "pub fn k(x: f32) -> f64 { let y: f64 = x; y }",
            vec![g(1.0)],
        ),
    ] {
        let e = err(run(src, &args));
        assert!(e.contains("f32") && e.contains("f64"), "{src}: {e}");
    }
    let e = err(run("pub fn k(x: f32) -> f32 { x + 1 }", &[g(1.0)]));
    assert!(e.contains("usize"), "{e}");
    // An f32 where an f64 is declared, and the other way round.
    assert!(err(run("pub fn k(x: f64) -> f64 { x }", &[g(1.0)])).contains("argument `x`"));
    assert!(err(run("pub fn k(x: f32) -> f64 { x }", &[g(1.0)])).contains("result"));
}

/// Casts between f64, f32 and usize follow Rust: float to usize truncates toward zero,
/// saturates, and NaN is 0; to f32 rounds to nearest.
#[test]
fn casts_follow_rust() {
    let to_usize64 = "pub fn k(x: f64) -> usize { x as usize }";
    let to_usize32 = "pub fn k(x: f32) -> usize { x as usize }";
    for x in [
        3.7,
        -1.5,
        0.0,
        f64::NAN,
        1e30,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ] {
        assert_eq!(ok(to_usize64, &[f(x)]), u(x as usize), "{x}");
        assert_eq!(ok(to_usize32, &[g(x as f32)]), u(x as f32 as usize), "{x}");
    }
    assert_eq!(ok(to_usize64, &[f(f64::NAN)]), u(0));
    assert_eq!(ok(to_usize64, &[f(1e30)]), u(usize::MAX));
    let src = "pub fn k(x: f64, y: f32, n: usize) -> (f32, f64, f32, f64, f32, f64) {
        (x as f32, y as f64, n as f32, n as f64, y as f32, x as f64)
    }";
    let n = (1 << 24) + 1;
    assert_eq!(
        ok(src, &[f(0.1), g(0.1), u(n)]),
        Value::Tuple(vec![
            g(0.1f32),
            f(f64::from(0.1f32)),
            g(n as f32),
            f(n as f64),
            g(0.1),
            f(0.1)
        ])
    );
    assert_ne!(n as f32 as usize, n, "the cast must round");
    // A bool is not cast.
    assert!(err(run("pub fn k() -> f64 { true as f64 }", &[])).contains("bool"));
}

/// The math methods: every one on f64 and on f32 against Rust's own methods of that type,
/// bit for bit (an f32 method runs in f32, not through f64).
#[test]
fn math_methods_on_f64_and_f32() {
    type M64 = fn(f64, f64, f64) -> f64;
    type M32 = fn(f32, f32, f32) -> f32;
    let table: [(&str, usize, M64, M32); 27] = [
        ("sqrt", 0, |x, _, _| x.sqrt(), |x, _, _| x.sqrt()),
        ("exp", 0, |x, _, _| x.exp(), |x, _, _| x.exp()),
        ("ln", 0, |x, _, _| x.ln(), |x, _, _| x.ln()),
        ("sin", 0, |x, _, _| x.sin(), |x, _, _| x.sin()),
        ("cos", 0, |x, _, _| x.cos(), |x, _, _| x.cos()),
        ("tan", 0, |x, _, _| x.tan(), |x, _, _| x.tan()),
        ("tanh", 0, |x, _, _| x.tanh(), |x, _, _| x.tanh()),
        ("abs", 0, |x, _, _| x.abs(), |x, _, _| x.abs()),
        ("floor", 0, |x, _, _| x.floor(), |x, _, _| x.floor()),
        ("ceil", 0, |x, _, _| x.ceil(), |x, _, _| x.ceil()),
        ("powf", 1, |x, y, _| x.powf(y), |x, y, _| x.powf(y)),
        ("min", 1, |x, y, _| x.min(y), |x, y, _| x.min(y)),
        ("max", 1, |x, y, _| x.max(y), |x, y, _| x.max(y)),
        ("atan2", 1, |x, y, _| x.atan2(y), |x, y, _| x.atan2(y)),
        ("asin", 0, |x, _, _| x.asin(), |x, _, _| x.asin()),
        ("acos", 0, |x, _, _| x.acos(), |x, _, _| x.acos()),
        ("atan", 0, |x, _, _| x.atan(), |x, _, _| x.atan()),
        ("sinh", 0, |x, _, _| x.sinh(), |x, _, _| x.sinh()),
        ("cosh", 0, |x, _, _| x.cosh(), |x, _, _| x.cosh()),
        ("hypot", 1, |x, y, _| x.hypot(y), |x, y, _| x.hypot(y)),
        ("cbrt", 0, |x, _, _| x.cbrt(), |x, _, _| x.cbrt()),
        ("exp2", 0, |x, _, _| x.exp2(), |x, _, _| x.exp2()),
        ("log2", 0, |x, _, _| x.log2(), |x, _, _| x.log2()),
        ("log10", 0, |x, _, _| x.log10(), |x, _, _| x.log10()),
        ("signum", 0, |x, _, _| x.signum(), |x, _, _| x.signum()),
        (
            "mul_add",
            2,
            |x, y, z| x.mul_add(y, z),
            |x, y, z| x.mul_add(y, z),
        ),
        // Never `f64::clamp`, which panics when lo > hi (and keeps a NaN).
        (
            "clamp",
            2,
            |x, y, z| x.max(y).min(z),
            |x, y, z| x.max(y).min(z),
        ),
    ];
    let same64 = |a: &Value, b: f64| matches!(a, Value::F64(x) if x.to_bits() == b.to_bits());
    let same32 = |a: &Value, b: f32| matches!(a, Value::F32(x) if x.to_bits() == b.to_bits());
    let inputs = [
        (0.3, 0.7, -0.2),
        (-0.45, 2.5, 1.5),
        (2.75, -1.25, 0.5),
        (0.0, -0.0, 3.0),
        (5.0, 3.0, 1.0), // clamp with lo > hi
        (f64::NAN, 1.0, 2.0),
        (1e-3, 1e3, -7.0),
    ];
    for (name, arity, m64, m32) in table {
        let args = ["y", "y, z"];
        let call = if arity == 0 {
            format!("x.{name}()")
        } else {
            format!("x.{name}({})", args[arity - 1])
        };
        let src64 = format!("pub fn k(x: f64, y: f64, z: f64) -> f64 {{ {call} }}");
        let src32 = format!("pub fn k(x: f32, y: f32, z: f32) -> f32 {{ {call} }}");
        for (x, y, z) in inputs {
            let got = ok(&src64, &[f(x), f(y), f(z)]);
            assert!(
                same64(&got, m64(x, y, z)),
                "{name}({x}, {y}, {z}) = {got:?}"
            );
            let (x, y, z) = (x as f32, y as f32, z as f32);
            let got = ok(&src32, &[g(x), g(y), g(z)]);
            assert!(
                same32(&got, m32(x, y, z)),
                "{name}({x}, {y}, {z}) f32 = {got:?}"
            );
        }
    }
    // powi in either type; a literal receiver takes the argument's type.
    let src =
        "pub fn k(x: f32, y: f64) -> (f32, f64, f32) { (x.powi(3), y.powi(-2), (1.5).atan2(x)) }";
    assert_eq!(
        ok(src, &[g(1.1), f(1.1)]),
        Value::Tuple(vec![
            g(1.1f32.powi(3)),
            f(1.1f64.powi(-2)),
            g(1.5f32.atan2(1.1))
        ])
    );
    // A method that takes no float.
    assert!(err(run("pub fn k(x: usize) -> usize { x.sqrt() }", &[u(4)])).contains("usize"));
}

/// `min`, `max` and `clamp` on usize; `clamp` is `max` then `min`, so a `lo` above `hi`
/// gives `hi` rather than a panic.
#[test]
fn usize_min_max_clamp() {
    let src = "pub fn k(x: usize, lo: usize, hi: usize) -> (usize, usize, usize) {
        (x.min(lo), x.max(hi), x.clamp(lo, hi))
    }";
    for (x, lo, hi) in [(5, 2, 9), (1, 2, 9), (12, 2, 9), (5, 7, 3), (0, 0, 0)] {
        assert_eq!(
            ok(src, &[u(x), u(lo), u(hi)]),
            Value::Tuple(vec![u(x.min(lo)), u(x.max(hi)), u(x.max(lo).min(hi))])
        );
    }
    // `(i + 1).min(n - 1)`: a neighbour index that stays in range.
    let src = "pub fn k(a: [f64; n]) -> [f64; n] { build(n, |i| a[(i + 1).min(n - 1)] - a[i]) }";
    assert_eq!(
        ok(src, &[Value::vec(&[1.0, 4.0, 9.0])]),
        Value::vec(&[3.0, 5.0, 0.0])
    );
    let e = err(run(
        "pub fn k(x: usize, y: f64) -> usize { x.min(y) }",
        &[u(1), f(2.0)],
    ));
    assert!(e.contains("usize") && e.contains("f64"), "{e}");
}

/// usize arrays: index-array parameters used as gathers (a bad index is an error where it
/// is used, naming the index and the length), a column of an `[[usize; 2]; p]`, usize
/// locals, usize results (an argmax per row).
#[test]
fn usize_arrays_and_gathers() {
    let src = "pub fn k(a: [f64; n], idx: [usize; p]) -> [f64; p] { build(p, |j| a[idx[j]]) }";
    let a = Value::vec(&[10.0, 20.0, 30.0]);
    assert_eq!(
        ok(src, &[a.clone(), Value::usizes(&[2, 0, 2, 1])]),
        Value::vec(&[30.0, 10.0, 30.0, 20.0])
    );
    assert_eq!(
        ok(src, &[a.clone(), Value::usizes(&[])]),
        Value::Array(vec![])
    );
    let e = err(run(src, &[a.clone(), Value::usizes(&[0, 3])]));
    assert!(e.contains("index 3") && e.contains("3 elements"), "{e}");
    // Two columns of an observation table, each gathering from its own array.
    let src = "pub fn k(cams: [[f64; 2]; nc], pts: [f64; np], obs: [[usize; 2]; p]) -> [f64; p] {
        build(p, |j| cams[obs[j][0]][1] * pts[obs[j][1]])
    }";
    let cams = Value::matrix(&[1.0, 2.0, 3.0, 4.0], 2);
    let pts = Value::vec(&[5.0, 6.0, 7.0]);
    let obs = Value::usize_matrix(&[1, 2, 0, 0, 1, 1], 2);
    assert_eq!(
        ok(src, &[cams.clone(), pts.clone(), obs]),
        Value::vec(&[28.0, 10.0, 24.0])
    );
    let bad = Value::usize_matrix(&[1, 2, 2, 0], 2);
    assert!(err(run(src, &[cams, pts, bad])).contains("index 2"));
    // usize results and locals: the argmax of each row, and a gather through it.
    let src = "fn argmax(v: [f64; c]) -> usize { ifold(c, 0, |best, j| if v[j] > v[best] { j } else { best }) }
        pub fn k(m: [[f64; c]; r]) -> ([usize; r], [f64; r]) {
            let am = build(r, |i| argmax(m[i]));
            (am, build(r, |i| m[i][am[i]]))
        }";
    let m = Value::matrix(&[1.0, 5.0, 2.0, 9.0, 0.0, 3.0], 3);
    assert_eq!(
        ok(src, &[m]),
        Value::Tuple(vec![Value::usizes(&[1, 0]), Value::vec(&[5.0, 9.0])])
    );
    // `x as usize` of a bounded float as an index; a usize array from a build.
    let src = "pub fn k(a: [f64; n], x: [f64; n]) -> [usize; n] {
        let ks = build(n, |i| (x[i].abs().min(((n - 1) as f64))) as usize);
        build(n, |i| ks[i] + (a[ks[i]] as usize))
    }";
    assert_eq!(
        ok(
            src,
            &[
                Value::vec(&[7.5, 1.0, 2.0]),
                Value::vec(&[-1.9, 9.0, f64::NAN])
            ]
        ),
        Value::usizes(&[1 + 1, 2 + 2, 2 + 2])
    );
    assert_eq!(Value::usizes(&[3, 1]).flatten(), vec![3.0, 1.0]);
    assert_eq!(u(4).as_usize(), Some(4));
}

/// Parameter types are checked against the values given: `[f32; n]` takes f32 elements
/// (or untyped ones, which become f32), `[usize; n]` usize ones, `[f64; n]` f64 ones.
#[test]
fn typed_array_parameters_are_checked() {
    let f32s = "pub fn k(a: [f32; n]) -> f32 { a[0] }";
    assert_eq!(ok(f32s, &[Value::vec_f32(&[0.5, 1.0])]), g(0.5));
    assert_eq!(
        ok(f32s, &[Value::Array(vec![Value::Untyped(0.1, 0.1)])]),
        g(0.1)
    );
    assert!(err(run(f32s, &[Value::vec(&[0.5])])).contains("[f32; n]"));
    let idx = "pub fn k(a: [usize; n]) -> usize { a[0] }";
    assert_eq!(ok(idx, &[Value::usizes(&[4])]), u(4));
    assert!(err(run(idx, &[Value::vec(&[4.0])])).contains("[usize; n]"));
    assert!(err(run(idx, &[Value::vec_f32(&[4.0])])).contains("[usize; n]"));
    let f64s = "pub fn k(a: [f64; n]) -> f64 { a[0] }";
    assert!(err(run(f64s, &[Value::vec_f32(&[4.0])])).contains("[f64; n]"));
    assert!(err(run(f64s, &[Value::usizes(&[4])])).contains("[f64; n]"));
    let m = "pub fn k(m: [[f32; 2]; r]) -> f32 { m[1][0] }";
    assert_eq!(
        ok(m, &[Value::matrix_f32(&[1.0, 2.0, 3.0, 4.0], 2)]),
        g(3.0)
    );
    assert_eq!(Value::matrix_f32(&[1.0, 2.0], 2).flatten(), vec![1.0, 2.0]);
    assert_eq!(g(0.1).as_f32(), Some(0.1));
    // Results are checked the same way.
    let e = err(run(
        "pub fn k(a: [f64; n]) -> [f32; n] { a }",
        &[Value::vec(&[1.0])],
    ));
    assert!(e.contains("result"), "{e}");
}

/// Element-type parameters: a helper generic in `T` works on f32, f64 and usize arrays, and
/// a literal in it takes the element type it meets (a fold from `-0.0` over f32 is an f32
/// fold; over no elements, the kernel's declared type settles it).
#[test]
fn element_type_parameters() {
    let src = "fn gsum(v: [T; n]) -> T { ifold(n, -0.0, |acc, i| acc + v[i]) }
        fn gadd(a: [T; n], b: [T; n]) -> [T; n] { build(n, |i| a[i] + b[i]) }
        fn first(v: [T; n]) -> T { v[0] }
        pub fn k(a: [f32; n], b: [f32; n], x: [f64; n], ks: [usize; n]) -> (f32, [f32; n], f64, usize, f32) {
            (gsum(a), gadd(a, b), gsum(x), first(ks), gsum(gadd(a, [0.25, 0.5])))
        }";
    let (a, b) = ([0.1f32, 2.3], [1.5f32, -0.7]);
    let got = ok(
        src,
        &[
            Value::vec_f32(&a),
            Value::vec_f32(&b),
            Value::vec(&[0.1, 2.3]),
            Value::usizes(&[7, 8]),
        ],
    );
    assert_eq!(
        got,
        Value::Tuple(vec![
            g(-0.0 + a[0] + a[1]),
            Value::vec_f32(&[a[0] + b[0], a[1] + b[1]]),
            f(-0.0 + 0.1 + 2.3),
            u(7),
            g(-0.0 + (a[0] + 0.25) + (a[1] + 0.5)),
        ])
    );
    let empty = [
        Value::vec_f32(&[]),
        Value::vec_f32(&[]),
        Value::vec(&[]),
        Value::usizes(&[]),
    ];
    let src0 = "fn gsum(v: [T; n]) -> T { ifold(n, -0.0, |acc, i| acc + v[i]) }
        pub fn k(a: [f32; n], b: [f32; n], x: [f64; n], ks: [usize; n]) -> (f32, f64) { (gsum(a), gsum(x)) }";
    assert_eq!(ok(src0, &empty), Value::Tuple(vec![g(-0.0), f(-0.0)]));
    // A generic fold over usize elements needs a usize init, as in Rust.
    let e = err(run(
        "fn gsum(v: [T; n]) -> T { ifold(n, 0.0, |acc, i| acc + v[i]) } pub fn k(ks: [usize; n]) -> usize { gsum(ks) }",
        &[Value::usizes(&[1])],
    ));
    assert!(e.contains("usize"), "{e}");
}

/// Untyped literals inside arrays, folds, scans and views take the element type of the
/// typed values they are put with.
#[test]
fn literals_in_arrays_folds_scans_and_views() {
    let src = "pub fn k(x: f32) -> [f32; 3] { [x, 0.1 + 2.3, 0.5] }";
    assert_eq!(ok(src, &[g(1.0)]), Value::vec_f32(&[1.0, 0.1 + 2.3, 0.5]));
    // The array alone, before a declared type settles it: its literals are f32 already.
    let v = interp("fn lit(x: T) -> [T; 3] { [0.5, x, 0.1 + 2.3] }")
        .call("lit", &[g(1.0)])
        .unwrap();
    assert_eq!(v, Value::vec_f32(&[0.5, 1.0, 0.1 + 2.3]));
    let v = interp("fn lit(x: T) -> [T; 2] { [0.5, 0.25] }")
        .call("lit", &[g(1.0)])
        .unwrap();
    assert_eq!(v, Value::vec(&[0.5, 0.25]), "what meets nothing is f64");
    let src = "pub fn k(a: [f32; n]) -> ([f32; n], f32) {
        (scan(n, 0.0, |acc, i| if i < 1 { 0.1 + 2.3 } else { acc * 0.5 + a[i] }), ifold(n, 0.1, |acc, i| acc + a[i]))
    }";
    let a = [1.5f32, 0.25, -2.0];
    let s1 = 0.1f32 + 2.3;
    let s2 = s1 * 0.5 + a[1];
    let s3 = s2 * 0.5 + a[2];
    assert_eq!(
        ok(src, &[Value::vec_f32(&a)]),
        Value::Tuple(vec![
            Value::vec_f32(&[s1, s2, s3]),
            g(0.1 + a[0] + a[1] + a[2])
        ])
    );
    let src = "pub fn k(a: [f32; n], k: [usize; m]) -> ([f32; n + 2], [usize; m], [f32; 2 * n]) {
        (pad(a, 1, 1, 0.1 + 2.3), reverse(k), interleave(a, build(n, |i| 0.5)))
    }";
    assert_eq!(
        ok(src, &[Value::vec_f32(&[1.0]), Value::usizes(&[4, 5])]),
        Value::Tuple(vec![
            Value::vec_f32(&[s1, 1.0, s1]),
            Value::usizes(&[5, 4]),
            Value::vec_f32(&[1.0, 0.5]),
        ])
    );
    // An f32 state cannot become an f64 one.
    let e = err(run(
        "pub fn k(a: [f32; n], x: f64) -> f32 { ifold(n, a[0], |acc, i| x) }",
        &[Value::vec_f32(&[1.0]), f(1.0)],
    ));
    assert!(e.contains("shape"), "{e}");
}
