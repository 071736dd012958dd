//! Tests of the layout views (LANGUAGE.md section 9) on vectors and matrices, their
//! compositions, shadowing by user functions, and their errors. Expected values come from
//! Rust's own slice operations.

use super::tests::{err, f, interp, u};
use super::tuple_tests::data;
use super::*;

/// Rows of a row-major matrix as a Value.
fn mat(data: &[f64], cols: usize) -> Value {
    Value::matrix(data, cols)
}

const VIEWS_SRC: &str = "
    pub fn cat(a: [f64; n], b: [f64; m]) -> [f64; n + m] { concat(a, b) }
    pub fn mcat(a: [[f64; c]; n], b: [[f64; c]; m]) -> [[f64; c]; n + m] { concat(a, b) }
    pub fn flat(a: [[f64; c]; r]) -> [f64; r * c] { join(a) }
    pub fn rows(m: usize, a: [f64; k]) -> [[f64; m]; k / m] { split(m, a) }
    pub fn mrows(a: [[f64; c]; r]) -> [[[f64; c]; 2]; r / 2] { split(2, a) }
    pub fn rev(a: [f64; n]) -> [f64; n] { reverse(a) }
    pub fn mrev(a: [[f64; c]; n]) -> [[f64; c]; n] { reverse(a) }
    pub fn mix(a: [f64; n], b: [f64; n]) -> [f64; 2 * n] { interleave(a, b) }
    pub fn mmix(a: [[f64; c]; n], b: [[f64; c]; n]) -> [[f64; c]; 2 * n] { interleave(a, b) }
    pub fn win(w: usize, a: [f64; n]) -> [[f64; w]; n + 1 - w] { slide(w, a) }
    pub fn mwin(a: [[f64; c]; n]) -> [[[f64; c]; 2]; n - 1] { slide(2, a) }
    pub fn padded(a: [f64; n], l: usize, r: usize, v: f64) -> [f64; l + n + r] { pad(a, l, r, v) }
    pub fn mpad(a: [[f64; c]; n], v: [f64; c]) -> [[f64; c]; n + 3] { pad(a, 1, 2, v) }
";

#[test]
fn concat_vectors_and_matrices() {
    let i = interp(VIEWS_SRC);
    for (n, m) in [(0, 0), (0, 3), (2, 0), (3, 4)] {
        let (a, b) = (data(n, 1), data(m, 2));
        let want: Vec<f64> = a.iter().chain(&b).copied().collect();
        let r = i.call("cat", &[Value::vec(&a), Value::vec(&b)]);
        assert_eq!(r, Ok(Value::vec(&want)));
        let r = i.call("mcat", &[mat(&a, 1), mat(&b, 1)]);
        assert_eq!(r, Ok(mat(&want, 1)));
    }
    let (a, b) = (data(6, 3), data(9, 4));
    let want: Vec<f64> = a.iter().chain(&b).copied().collect();
    let r = i.call("mcat", &[mat(&a, 3), mat(&b, 3)]);
    assert_eq!(r, Ok(mat(&want, 3)));
}

#[test]
fn join_and_split() {
    let i = interp(VIEWS_SRC);
    let a = data(12, 5);
    for c in [1, 3, 4, 12] {
        // join is the row-major flattening
        assert_eq!(i.call("flat", &[mat(&a, c)]), Ok(Value::vec(&a)));
        let r = i.call("rows", &[u(c), Value::vec(&a)]);
        assert_eq!(r, Ok(mat(&a, c)));
    }
    // rows of no elements join to nothing
    let empty_rows = Value::Array(vec![Value::vec(&[]); 3]);
    assert_eq!(i.call("flat", &[empty_rows]), Ok(Value::vec(&[])));
    // a matrix of 4 rows of 3 into 2 blocks of 2 rows
    let want = Value::Array(a.chunks(6).map(|blk| mat(blk, 3)).collect());
    assert_eq!(i.call("mrows", &[mat(&a, 3)]), Ok(want));
    let e = err(i.call("rows", &[u(5), Value::vec(&a)]));
    assert!(
        e.contains("`split(m, a)`") && e.contains("length 12 is not a multiple of m = 5"),
        "{e}"
    );
    let e = err(i.call("rows", &[u(0), Value::vec(&a)]));
    assert!(e.contains("`m` is 0"), "{e}");
}

#[test]
fn reverse_and_interleave() {
    let i = interp(VIEWS_SRC);
    let (a, b) = (data(6, 6), data(6, 7));
    let want: Vec<f64> = a.iter().rev().copied().collect();
    assert_eq!(i.call("rev", &[Value::vec(&a)]), Ok(Value::vec(&want)));
    assert_eq!(i.call("rev", &[Value::vec(&[])]), Ok(Value::vec(&[])));
    let want: Vec<f64> = a.chunks(2).rev().flatten().copied().collect();
    assert_eq!(i.call("mrev", &[mat(&a, 2)]), Ok(mat(&want, 2)));
    let want: Vec<f64> = a.iter().zip(&b).flat_map(|(x, y)| [*x, *y]).collect();
    let r = i.call("mix", &[Value::vec(&a), Value::vec(&b)]);
    assert_eq!(r, Ok(Value::vec(&want)));
    let want: Vec<f64> = a
        .chunks(3)
        .zip(b.chunks(3))
        .flat_map(|(x, y)| x.iter().chain(y).copied())
        .collect();
    let r = i.call("mmix", &[mat(&a, 3), mat(&b, 3)]);
    assert_eq!(r, Ok(mat(&want, 3)));
}

#[test]
fn slide_windows() {
    let i = interp(VIEWS_SRC);
    let a = data(7, 8);
    for w in 1..=8 {
        let want: Vec<f64> = a.windows(w).flatten().copied().collect();
        let r = i.call("win", &[u(w), Value::vec(&a)]).unwrap();
        assert_eq!(r.flatten(), want, "w = {w}");
        let Value::Array(ws) = &r else {
            panic!("not an array: {r:?}")
        };
        assert_eq!(ws.len(), 8 - w, "w = {w}");
    }
    let m = data(8, 9);
    let want = Value::Array(
        m.chunks(2)
            .collect::<Vec<_>>()
            .windows(2)
            .map(|pair| Value::Array(pair.iter().map(|row| Value::vec(row)).collect()))
            .collect(),
    );
    assert_eq!(i.call("mwin", &[mat(&m, 2)]), Ok(want));
}

#[test]
fn pad_vectors_and_matrices() {
    let i = interp(VIEWS_SRC);
    let a = data(4, 10);
    for (l, r) in [(0, 0), (2, 0), (0, 3), (1, 2)] {
        let mut want = vec![9.0; l];
        want.extend(&a);
        want.extend(vec![9.0; r]);
        let got = i.call("padded", &[Value::vec(&a), u(l), u(r), f(9.0)]);
        assert_eq!(got, Ok(Value::vec(&want)));
    }
    let m = data(6, 11);
    let row = [7.0, 8.0];
    let mut want = row.to_vec();
    want.extend(&m);
    want.extend(row.repeat(2));
    let got = i.call("mpad", &[mat(&m, 2), Value::vec(&row)]);
    assert_eq!(got, Ok(mat(&want, 2)));
}

#[test]
fn compositions() {
    let src = "
        pub fn total(a: [f64; n], b: [f64; m]) -> f64 { sum(concat(a, b)) }
        pub fn roundtrip(k: usize, a: [f64; 3 * k]) -> [f64; 3 * k] { join(split(3, a)) }
        pub fn mround(c: usize, a: [[f64; c]; r]) -> [[f64; c]; r] { split(c, join(a)) }
        pub fn stencil(a: [f64; n]) -> [f64; n] {
            build(n, |i| sum(slide(3, pad(a, 1, 1, 0.0))[i]) / 3.0)
        }
        pub fn revmap(a: [f64; n]) -> [f64; n] { map(reverse(a), |x| x * x) }
        pub fn both(a: [f64; n], b: [f64; n]) -> [f64; 2 * n] {
            concat(map(a, |x| x + 1.0), map(b, |x| x - 1.0))
        }
        pub fn rows_of(a: [f64; n]) -> [f64; n * n] { join(build(n, |i| smul(a, a[i]))) }
    ";
    let i = interp(src);
    let (a, b) = (data(9, 12), data(5, 13));
    // the prelude's `sum` folds from -0.0
    let want = a.iter().chain(&b).fold(-0.0, |s, x| s + x);
    let r = i.call("total", &[Value::vec(&a), Value::vec(&b)]);
    assert_eq!(r, Ok(f(want)));
    assert_eq!(
        i.call("roundtrip", &[u(3), Value::vec(&a)]),
        Ok(Value::vec(&a))
    );
    assert_eq!(i.call("mround", &[u(3), mat(&a, 3)]), Ok(mat(&a, 3)));
    // the 3-point stencil with zeros beyond the ends
    let at = |k: isize| {
        usize::try_from(k)
            .ok()
            .and_then(|k| a.get(k))
            .copied()
            .unwrap_or(0.0)
    };
    let want: Vec<f64> = (0..a.len() as isize)
        .map(|k| (-0.0 + at(k - 1) + at(k) + at(k + 1)) / 3.0)
        .collect();
    assert_eq!(i.call("stencil", &[Value::vec(&a)]), Ok(Value::vec(&want)));
    let want: Vec<f64> = a.iter().rev().map(|x| x * x).collect();
    assert_eq!(i.call("revmap", &[Value::vec(&a)]), Ok(Value::vec(&want)));
    let c = data(9, 14);
    let want: Vec<f64> = a
        .iter()
        .map(|x| x + 1.0)
        .chain(c.iter().map(|x| x - 1.0))
        .collect();
    let r = i.call("both", &[Value::vec(&a), Value::vec(&c)]);
    assert_eq!(r, Ok(Value::vec(&want)));
    let want: Vec<f64> = b
        .iter()
        .flat_map(|bi| b.iter().map(move |x| x * bi))
        .collect();
    let r = i.call("rows_of", &[Value::vec(&b)]);
    assert_eq!(r, Ok(Value::vec(&want)));
}

#[test]
fn user_functions_shadow_views() {
    let src = "
        fn reverse(a: [f64; n]) -> [f64; n] { smul(a, -1.0) }
        pub fn k(a: [f64; n]) -> [f64; n] { reverse(a) }
        pub fn j(c: usize, a: [[f64; c]; r]) -> [f64; r * c] { join(a) }
    ";
    let i = interp(src);
    let a = data(4, 15);
    let neg: Vec<f64> = a.iter().map(|x| x * -1.0).collect();
    assert_eq!(i.call("k", &[Value::vec(&a)]), Ok(Value::vec(&neg)));
    // the other views are still there
    assert_eq!(i.call("j", &[u(2), mat(&a, 2)]), Ok(Value::vec(&a)));
    // a function parameter of the same name shadows a view too
    let src = "
        fn apply(a: [f64; n], pad: fn(f64) -> f64) -> f64 { pad(a[0]) }
        pub fn k(a: [f64; n]) -> f64 { apply(a, |x| x + 1.0) }
    ";
    assert_eq!(interp(src).call("k", &[Value::vec(&a)]), Ok(f(a[0] + 1.0)));
}

#[test]
fn view_errors() {
    let src = "
        pub fn cat(a: [f64; n], b: [[f64; 2]; m]) -> f64 { concat(a, b)[0] }
        pub fn mcat(a: [[f64; 3]; n], b: [[f64; 2]; m]) -> f64 { concat(a, b)[0][0] }
        pub fn cat_scalar(a: [f64; n]) -> f64 { concat(a, 1.0)[0] }
        pub fn cat_tuple(a: [f64; n]) -> f64 { concat((a, a), a)[0] }
        pub fn flat(a: [f64; n]) -> f64 { join(a)[0] }
        pub fn mix(a: [f64; n], b: [f64; m]) -> f64 { interleave(a, b)[0] }
        pub fn mmix(a: [[f64; 2]; n], b: [[f64; 3]; n]) -> f64 { interleave(a, b)[0][0] }
        pub fn win(w: usize, a: [f64; n]) -> f64 { sum(join(slide(w, a))) }
        pub fn vpad(a: [f64; n], v: [f64; 1]) -> f64 { pad(a, 1, 1, v)[0] }
        pub fn mpad(a: [[f64; 2]; n], v: [f64; 3]) -> f64 { pad(a, 1, 1, v)[0][0] }
        pub fn spad(a: [[f64; 2]; n]) -> f64 { pad(a, 1, 1, 0.0)[0][0] }
        pub fn tpad(a: [f64; n]) -> f64 { pad(a, 1, 1, (0.0, 0.0))[0] }
        pub fn bigpad(a: [f64; n], l: usize) -> f64 { pad(a, l, l, 0.0)[0] }
        pub fn fsize(a: [f64; n]) -> f64 { split(2.0, a)[0][0] }
        pub fn arity(a: [f64; n]) -> f64 { reverse(a, a)[0] }
    ";
    let i = interp(src);
    let v = |n: usize| Value::vec(&data(n, n as u64));
    let check = |name: &str, args: &[Value], parts: &[&str]| {
        let e = err(i.call(name, args));
        for p in parts {
            assert!(e.contains(p), "{name}: `{p}` not in: {e}");
        }
    };
    check(
        "cat",
        &[v(2), mat(&data(4, 1), 2)],
        &["`concat(a, b)`", "rows differ"],
    );
    check(
        "mcat",
        &[mat(&data(6, 1), 3), mat(&data(4, 1), 2)],
        &["rows differ"],
    );
    check(
        "cat_scalar",
        &[v(2)],
        &["`b` must be an array, found `{float}`"],
    );
    check(
        "cat_tuple",
        &[v(2)],
        &["`a` must be an array", "([f64; 2], [f64; 2])"],
    );
    check(
        "flat",
        &[v(3)],
        &["`join(a)`", "array of rows", "element 0 is `f64`"],
    );
    check(
        "mix",
        &[v(2), v(3)],
        &["`interleave(a, b)`", "differ in length: 2 and 3"],
    );
    let (a, b) = (mat(&data(4, 1), 2), mat(&data(6, 1), 3));
    check("mmix", &[a, b], &["elements differ in shape"]);
    check("win", &[u(0), v(3)], &["`slide(w, a)`", "w = 0"]);
    check(
        "win",
        &[u(5), v(3)],
        &["between 1 and the length + 1 = 4", "w = 5"],
    );
    let full = i.call("win", &[u(4), v(3)]);
    assert_eq!(full, Ok(f(0.0)), "w = n + 1 has no windows");
    check(
        "vpad",
        &[v(2), v(1)],
        &["`pad(a, l, r, v)`", "`v` must be an element"],
    );
    check(
        "mpad",
        &[mat(&data(4, 1), 2), v(3)],
        &["`[f64; 2]`, found `[f64; 3]`"],
    );
    check(
        "spad",
        &[mat(&data(4, 1), 2)],
        &["`[f64; 2]`, found `{float}`"],
    );
    check("tpad", &[v(2)], &["found `({float}, {float})`"]);
    check("bigpad", &[v(2), u(usize::MAX)], &["overflows"]);
    check("fsize", &[v(4)], &["`m` must be a usize, found `{float}`"]);
    check(
        "arity",
        &[v(2)],
        &["`reverse(a)` takes 1 argument, found 2"],
    );
}
