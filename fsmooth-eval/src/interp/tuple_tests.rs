//! Tests of tuples, patterns, tuple-state `ifold` and `scan` (LANGUAGE.md section 8). The
//! expected values are computed by plain Rust loops doing the same operations in the same
//! order, so they compare exactly.

use super::tests::{err, f, interp, u};
use super::*;

/// Deterministic test data: n values in [-1, 1) from a linear congruential generator.
pub(super) fn data(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn tuple(xs: Vec<Value>) -> Value {
    Value::Tuple(xs)
}

#[test]
fn tuple_values_parts_and_flatten() {
    let t = tuple(vec![f(1.5), Value::vec(&[2.0, 3.0]), u(4)]);
    assert_eq!(t.parts().len(), 3);
    assert_eq!(t.parts()[1].flatten(), vec![2.0, 3.0]);
    assert_eq!(t.flatten(), vec![1.5, 2.0, 3.0, 4.0]);
    // a non-tuple is its own only part
    assert_eq!(f(2.0).parts(), &[f(2.0)]);
    assert_eq!(super::value::describe(&t), "(f64, [f64; 2], usize)");
}

#[test]
fn tuple_expressions_and_projections() {
    let src = "
        pub fn pair(x: f64, v: [f64; n]) -> (f64, [f64; n]) { (x * 2.0, smul(v, x)) }
        fn second(x: f64) -> f64 { let t = (x, x + 1.0, (x + 2.0, x + 3.0)); t.1 + t.2.1 }
        fn not_tuple(x: f64) -> f64 { x.0 }
        fn too_far(x: f64) -> f64 { let t = (x, x); t.2 }
        fn holds_fn(x: f64) -> f64 { let t = (x, |y| y); t.0 }
    ";
    let i = interp(src);
    let v = data(4, 1);
    let r = i.call("pair", &[f(3.0), Value::vec(&v)]);
    let want: Vec<f64> = v.iter().map(|x| x * 3.0).collect();
    assert_eq!(r, Ok(tuple(vec![f(6.0), Value::vec(&want)])));
    assert_eq!(i.call("second", &[f(1.0)]), Ok(f(2.0 + 4.0)));
    let e = err(i.call("not_tuple", &[f(1.0)]));
    assert!(
        e.contains("`.0` takes a component of a tuple") && e.contains("f64"),
        "{e}"
    );
    let e = err(i.call("too_far", &[f(1.0)]));
    assert!(
        e.contains("no component `.2`") && e.contains("2 components"),
        "{e}"
    );
    let e = err(i.call("holds_fn", &[f(1.0)]));
    assert!(e.contains("function"), "{e}");
}

#[test]
fn patterns_nested_wildcard_and_typed() {
    let src = "
        fn nested(x: f64) -> f64 {
            let ((a, b), c) = ((x, x * 10.0), x * 100.0);
            a + b + c
        }
        fn wild(x: f64) -> f64 { let (_, b, _) = (x, x + 1.0, x + 2.0); b }
        fn typed(v: [f64; n]) -> f64 { let (s, w): (f64, [f64; n]) = (sum(v), v); s + w[0] }
        fn mistyped(v: [f64; n]) -> f64 { let (s, w): (f64, [f64; 2]) = (sum(v), v); s }
        fn shadow(x: f64) -> f64 { let (a, b) = (x, 1.0); let (a, b) = (b, a); a - b }
        fn closure_pattern(v: [f64; n]) -> f64 {
            ifold(n, ((0.0, 1.0), 0.0), |((s, p), _), i| ((s + v[i], p * v[i]), 0.0)).0.1
        }
    ";
    let i = interp(src);
    assert_eq!(i.call("nested", &[f(2.0)]), Ok(f(2.0 + 20.0 + 200.0)));
    assert_eq!(i.call("wild", &[f(2.0)]), Ok(f(3.0)));
    let v = data(3, 2);
    assert_eq!(
        i.call("typed", &[Value::vec(&v)]),
        Ok(f(v.iter().fold(-0.0, |s, x| s + x) + v[0]))
    );
    let e = err(i.call("mistyped", &[Value::vec(&v)]));
    assert!(
        e.contains("component `.1`") && e.contains("size `2` is 2"),
        "{e}"
    );
    assert_eq!(i.call("shadow", &[f(5.0)]), Ok(f(1.0 - 5.0)));
    let prod = v.iter().fold(1.0, |p, x| p * x);
    assert_eq!(i.call("closure_pattern", &[Value::vec(&v)]), Ok(f(prod)));
}

/// The one-pass mean and variance the `stats` kernels compute, in the same order.
fn mean_var(x: &[f64]) -> (f64, f64) {
    let (mut s, mut q) = (0.0, 0.0);
    for &xi in x {
        s += xi;
        q += xi * xi;
    }
    let n = x.len() as f64;
    let m = s / n;
    (m, q / n - m * m)
}

#[test]
fn tuple_state_ifold_mean_and_variance() {
    let src = "
        pub fn stats(x: [f64; n]) -> (f64, f64) {
            let (s, q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + x[i], q + x[i] * x[i]));
            let m = s / (n as f64);
            (m, q / (n as f64) - m * m)
        }
        pub fn centred(x: [f64; n]) -> (f64, f64, [f64; n]) {
            let (m, var) = stats(x);
            (m, var, build(n, |i| x[i] - m))
        }
        fn grows(x: [f64; n]) -> (f64, [f64; 1]) {
            ifold(n, (0.0, [0.0]), |(s, v), i| (s, [v[0], x[i]]))
        }
        fn flips(x: [f64; n]) -> (f64, f64) {
            ifold(n, (0.0, 0.0), |t, i| if i == 0 { t } else { (t.0, [t.1]) })
        }
    ";
    let i = interp(src);
    for n in [1, 2, 7, 30] {
        let x = data(n, n as u64);
        let (m, var) = mean_var(&x);
        assert_eq!(
            i.call("stats", &[Value::vec(&x)]),
            Ok(tuple(vec![f(m), f(var)]))
        );
        let r = i.call("centred", &[Value::vec(&x)]).unwrap();
        let c: Vec<f64> = x.iter().map(|xi| xi - m).collect();
        assert_eq!(r.parts(), &[f(m), f(var), Value::vec(&c)]);
    }
    let e = err(i.call("grows", &[Value::vec(&[1.0])]));
    assert!(
        e.contains("accumulator's shape") && e.contains("[f64; 2])"),
        "{e}"
    );
    let e = err(i.call("flips", &[Value::vec(&[1.0, 2.0])]));
    assert!(e.contains("step 1") && e.contains(", [{float}; 1])"), "{e}");
}

#[test]
fn tuples_through_helpers_and_if() {
    let src = "
        fn minmax(v: [f64; n]) -> (f64, f64) {
            ifold(n, (v[0], v[0]), |(lo, hi), i| (lo.min(v[i]), hi.max(v[i])))
        }
        fn swap(p: (f64, [f64; m])) -> ([f64; m], f64) { (p.1, p.0) }
        fn scale(p: ([f64; m], f64), k: usize) -> [f64; m] {
            build(m, |j| p.0[j] * p.1 + (k as f64))
        }
        pub fn range(v: [f64; n]) -> f64 { let (lo, hi) = minmax(v); hi - lo }
        pub fn via(v: [f64; n], x: f64) -> [f64; n] { scale(swap((x, v)), n) }
        pub fn pick(v: [f64; n], c: bool) -> (f64, [f64; n]) {
            if c { (sum(v), v) } else { (0.0, smul(v, 2.0)) }
        }
        fn bad_ret(x: f64) -> (f64, [f64; 2]) { (x, [x]) }
        fn bad_arity(x: f64) -> (f64, f64) { (x, x, x) }
        fn wants(p: (f64, f64)) -> f64 { p.0 }
        pub fn bad_arg(x: f64) -> f64 { wants(x) }
    ";
    let i = interp(src);
    let v = data(6, 3);
    let lo = v.iter().fold(v[0], |a, &b| a.min(b));
    let hi = v.iter().fold(v[0], |a, &b| a.max(b));
    assert_eq!(i.call("range", &[Value::vec(&v)]), Ok(f(hi - lo)));
    let want: Vec<f64> = v.iter().map(|x| x * 0.5 + 6.0).collect();
    assert_eq!(
        i.call("via", &[Value::vec(&v), f(0.5)]),
        Ok(Value::vec(&want))
    );
    let s = v.iter().fold(-0.0, |s, x| s + x);
    let twice: Vec<f64> = v.iter().map(|x| x * 2.0).collect();
    let r = i.call("pick", &[Value::vec(&v), Value::Bool(true)]);
    assert_eq!(r, Ok(tuple(vec![f(s), Value::vec(&v)])));
    let r = i.call("pick", &[Value::vec(&v), Value::Bool(false)]);
    assert_eq!(r, Ok(tuple(vec![f(0.0), Value::vec(&twice)])));
    let e = err(i.call("bad_ret", &[f(1.0)]));
    assert!(
        e.contains("the result of `bad_ret`") && e.contains("component `.1`"),
        "{e}"
    );
    let e = err(i.call("bad_arity", &[f(1.0)]));
    assert!(e.contains("a tuple of 3 components is not one of 2"), "{e}");
    let e = err(i.call("bad_arg", &[f(1.0)]));
    assert!(e.contains("argument `p` of `wants`"), "{e}");
}

#[test]
fn arrays_do_not_hold_tuples() {
    let src = "
        fn built(n: usize) -> f64 { build(n, |i| (1.0, 2.0))[0].0 }
        fn literal(x: f64) -> f64 { [(x, x)][0].0 }
    ";
    let i = interp(src);
    let e = err(i.call("built", &[u(2)]));
    assert!(
        e.contains("`build` element 0") && e.contains("do not hold tuples"),
        "{e}"
    );
    let e = err(i.call("literal", &[f(1.0)]));
    assert!(e.contains("array literal element 0"), "{e}");
}

#[test]
fn scan_cumulative_sum() {
    let src = "
        pub fn cumsum(x: [f64; n]) -> [f64; n] { scan(n, 0.0, |s, i| s + x[i]) }
        pub fn last(x: [f64; n]) -> f64 { ifold(n, 0.0, |s, i| s + x[i]) }
    ";
    let i = interp(src);
    for n in [0, 1, 5, 40] {
        let x = data(n, 10 + n as u64);
        let mut s = 0.0;
        let want: Vec<f64> = x
            .iter()
            .map(|xi| {
                s += xi;
                s
            })
            .collect();
        let got = i.call("cumsum", &[Value::vec(&x)]).unwrap();
        assert_eq!(got, Value::vec(&want));
        // state n - 1 of a scan is what ifold returns
        if n > 0 {
            let last = i.call("last", &[Value::vec(&x)]).unwrap();
            assert_eq!(got.flatten().last().copied(), last.as_f64());
        }
    }
}

#[test]
fn scan_biquad_with_tuple_state() {
    // Direct form II transposed: the state is the output and the two delays.
    let src = "
        pub fn biquad(x: [f64; n], b: [f64; 3], a: [f64; 2]) -> [f64; n] {
            scan(n, (0.0, 0.0, 0.0), |(_, z1, z2), i| {
                let y = b[0] * x[i] + z1;
                (y, b[1] * x[i] - a[0] * y + z2, b[2] * x[i] - a[1] * y)
            }).0
        }
        pub fn all(x: [f64; n], b: [f64; 3], a: [f64; 2]) -> ([f64; n], [f64; n], [f64; n]) {
            scan(n, (0.0, 0.0, 0.0), |(_, z1, z2), i| {
                let y = b[0] * x[i] + z1;
                (y, b[1] * x[i] - a[0] * y + z2, b[2] * x[i] - a[1] * y)
            })
        }
    ";
    let (b, a) = ([0.2, 0.3, 0.2], [-0.5, 0.25]);
    let i = interp(src);
    for n in [0, 1, 3, 50] {
        let x = data(n, 20 + n as u64);
        let (mut z1, mut z2) = (0.0, 0.0);
        let mut cols = [Vec::new(), Vec::new(), Vec::new()];
        for xi in &x {
            let y = b[0] * xi + z1;
            z1 = b[1] * xi - a[0] * y + z2;
            z2 = b[2] * xi - a[1] * y;
            cols[0].push(y);
            cols[1].push(z1);
            cols[2].push(z2);
        }
        let args = [Value::vec(&x), Value::vec(&b), Value::vec(&a)];
        assert_eq!(i.call("biquad", &args), Ok(Value::vec(&cols[0])));
        let all = i.call("all", &args).unwrap();
        let want: Vec<Value> = cols.iter().map(|c| Value::vec(c)).collect();
        assert_eq!(all, tuple(want));
    }
}

#[test]
fn scan_array_and_tuple_states() {
    let src = "
        pub fn rows(x: [f64; n]) -> [[f64; 2]; n] {
            scan(n, [0.0, 0.0], |s, i| [s[0] + x[i], s[1] * 0.5 + x[i]])
        }
        pub fn mixed(x: [f64; n], k: usize) -> ([f64; k], [[f64; 2]; k]) {
            scan(k, (0.0, [1.0, 2.0]), |(a, v), i| (a + v[0], [v[1], v[0] + x[i % n]]))
        }
        fn changes(n: usize) -> [f64; n] { scan(n, 0.0, |s, i| if i < 1 { s } else { 1 }) }
        fn nested(n: usize) -> ((f64, f64), f64) {
            let r = scan(n, ((0.0, 1.0), 2.0), |((a, b), c), i| ((a + 1.0, b * 2.0), c - 1.0));
            ((r.0.0[n - 1], r.0.1[n - 1]), r.1[0])
        }
    ";
    let i = interp(src);
    let x = data(7, 30);
    let (mut s0, mut s1) = (0.0, 0.0);
    let mut want = Vec::new();
    for xi in &x {
        (s0, s1) = (s0 + xi, s1 * 0.5 + xi);
        want.extend([s0, s1]);
    }
    let r = i.call("rows", &[Value::vec(&x)]).unwrap();
    assert_eq!(r, Value::matrix(&want, 2));
    for k in [0, 1, 9] {
        let (mut a, mut v) = (0.0, [1.0, 2.0]);
        let (mut col_a, mut col_v) = (Vec::new(), Vec::new());
        for step in 0..k {
            (a, v) = (a + v[0], [v[1], v[0] + x[step % x.len()]]);
            col_a.push(a);
            col_v.extend(v);
        }
        let r = i.call("mixed", &[Value::vec(&x), u(k)]).unwrap();
        assert_eq!(r, tuple(vec![Value::vec(&col_a), Value::matrix(&col_v, 2)]));
    }
    let e = err(i.call("changes", &[u(3)]));
    assert!(
        e.contains("`scan` body changes") && e.contains("step 1"),
        "{e}"
    );
    let r = i.call("nested", &[u(3)]).unwrap();
    assert_eq!(r, tuple(vec![tuple(vec![f(3.0), f(8.0)]), f(1.0)]));
}
