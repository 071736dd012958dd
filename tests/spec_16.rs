//! LANGUAGE.md section 16 ("What Rust users reach for first") as a user reads it: each test
//! writes what a bullet says and compares the kernel with plain Rust and with the reference
//! interpreter.

#[macro_use]
mod common;

use common::{Value, reference};
use fsmooth::{Error, Region};

mod k {
    block! {
        use std::f64::consts::PI;
        use core::f32::consts::{TAU, FRAC_1_SQRT_2 as H};

        /// Constants by path and by name, at f64 and f32.
        pub fn circle(r: [f64; n]) -> [f64; n] {
            map(r, |x| PI * x * x + std::f64::consts::E - core::f64::consts::LN_2)
        }

        pub fn turns(x: [f32; n]) -> [f32; n] {
            map(x, |t| (t * TAU).sin() * H + f32::consts::FRAC_PI_2)
        }

        /// Array patterns: a quaternion's parts, rows of a matrix, a closure's rows, nested
        /// in a tuple pattern, with `_`.
        pub fn qnorm(q: [f64; 4]) -> f64 {
            let [w, x, y, z] = q;
            (w * w + x * x + y * y + z * z).sqrt()
        }

        pub fn rows(m: [[f64; 3]; 2]) -> [f64; 3] {
            let [r0, r1] = m;
            build(3, |j| r0[j] * r1[j])
        }

        pub fn cross2(p: [[f64; 2]; n], s: f64) -> [f64; n] {
            map(p, |[x, y]| {
                let ([a, _], t) = ([y, x], s);
                a * x - t * y
            })
        }

        pub fn det2(m: [[f64; 2]; 2]) -> f64 {
            let [[a, b], [c, d]] = m;
            a * d - b * c
        }

        /// Rust's division: `n / 2` rounds down (n = 5 gives 2 elements).
        pub fn half(x: [f64; n]) -> [f64; n / 2] {
            build(n / 2, |i| x[2 * i] + x[2 * i + 1])
        }

        pub fn chunks(x: [f64; n], k: usize) -> [f64; n / k] {
            build(n / k, |i| x[k * i])
        }

        pub fn mid(n: usize) -> usize {
            n / 2 + 7 / 2
        }

        /// Rust's associated float constants (where section 16 is silent, as Rust has them):
        /// a running maximum from `f64::NEG_INFINITY`, a minimum from `std::f64::INFINITY`,
        /// a tolerance of `f32::EPSILON`, the largest finite values.
        pub fn extremes(x: [f64; n]) -> (f64, f64, f64) {
            let hi = ifold(n, f64::NEG_INFINITY, |m, i| m.max(x[i]));
            let lo = ifold(n, std::f64::INFINITY, |m, i| m.min(x[i]));
            (hi, lo, f64::MAX.min(hi) + core::f64::MIN_POSITIVE * 0.0 - f64::EPSILON * 0.0)
        }

        pub fn near_one(x: [f32; n]) -> [f32; n] {
            map(x, |t| if (t - 1.0).abs() < f32::EPSILON { 1.0 } else { t.min(f32::MAX) })
        }

        /// Sizes from the simplest length: `no` from `b`, not from `w` (empty for ni = 0).
        pub fn dense(x: [f32; ni], w: [[f32; ni]; no], b: [f32; no]) -> [f32; no] {
            build(no, |o| b[o] + ifold(ni, 0.0, |acc, i| acc + w[o][i] * x[i]))
        }

        /// `n` from the data, `x`, not from the index array listed first.
        pub fn labelled_sum(labels: [usize; n], x: [f64; n], k: usize) -> [f64; k] {
            scatter_add(k, n, |i| (labels[i], x[i]))
        }

        /// `no` only from `w`'s length: for ni = 0 it cannot be read.
        pub fn dense_nobias(x: [f32; ni], w: [[f32; ni]; no]) -> [f32; no] {
            build(no, |o| ifold(ni, 0.0, |acc, i| acc + w[o][i] * x[i]))
        }

        /// Literal arrays take the f32 their context needs.
        pub fn lit_fold(x: [f32; 8]) -> ([f32; 8], f32) {
            let (a, s) = ifold(3, (build(8, |_| 0.0), 0.0), |(a, s), t| {
                (build(8, |j| a[j] + x[j] * (t as f32)), s + x[t])
            });
            (a, s)
        }

        fn first(v: [f32; 8]) -> f32 {
            v[0]
        }

        pub fn lit_mix(x: [f32; 8]) -> [f32; 8] {
            let z = build(8, |_| 1.5);
            let w = add(z, x);
            build(8, |j| if z[j] < x[j] { w[j] } else { first(build(8, |_| 0.25)) })
        }

        /// A size pinned by a product still works.
        pub fn row_sums(v: [[f64; 3]; n]) -> [f64; n] {
            map(v, |r| sum(r))
        }
    }
}

fn f64s(v: &[f64]) -> Value {
    Value::Array(v.iter().map(|x| Value::F64(*x)).collect())
}

fn f32s(v: &[f32]) -> Value {
    Value::Array(v.iter().map(|x| Value::F32(*x)).collect())
}

fn rows_of(v: &[f64], m: usize) -> Value {
    Value::Array(v.chunks(m).map(f64s).collect())
}

#[test]
fn associated_float_constants_are_rusts() {
    for x in [&[][..], &[1.5, -2.0, 7.25][..]] {
        let got = k::extremes(x, &mut Region::new()).unwrap();
        let hi = x.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let lo = x.iter().fold(f64::INFINITY, |m, &v| m.min(v));
        let third = f64::MAX.min(hi) + f64::MIN_POSITIVE * 0.0 - f64::EPSILON * 0.0;
        assert_eq!(got, (hi, lo, third));
    }
    let t = [1.0f32 + f32::EPSILON / 2.0, 1.5, f32::INFINITY];
    let mut out = [0f32; 3];
    k::near_one(&mut out, &t, &mut Region::new()).unwrap();
    assert_eq!(out, [1.0, 1.5, f32::MAX]);
    let interp = reference(k::SRC, "near_one", &[f32s(&t)]);
    let got: Vec<f64> = out.iter().map(|x| f64::from(*x)).collect();
    assert_eq!(got, interp);
}

#[test]
fn constants_are_rusts() {
    let r = [0.5, 1.0, 2.0];
    let mut out = [0.0; 3];
    k::circle(&mut out, &r, &mut Region::new()).unwrap();
    for (o, x) in out.iter().zip(r) {
        let want = std::f64::consts::PI * x * x + std::f64::consts::E - std::f64::consts::LN_2;
        assert_eq!(*o, want);
    }
    assert_eq!(out.to_vec(), reference(k::SRC, "circle", &[f64s(&r)]));

    let t = [0.125f32, 0.3, -0.7];
    let mut out = [0f32; 3];
    k::turns(&mut out, &t, &mut Region::new()).unwrap();
    for (o, x) in out.iter().zip(t) {
        let want = (x * std::f32::consts::TAU).sin() * std::f32::consts::FRAC_1_SQRT_2
            + std::f32::consts::FRAC_PI_2;
        assert_eq!(o.to_bits(), want.to_bits());
    }
    let interp = reference(k::SRC, "turns", &[f32s(&t)]);
    let got: Vec<f64> = out.iter().map(|x| f64::from(*x)).collect();
    assert_eq!(got, interp);
}

#[test]
fn array_patterns_name_elements() {
    let q = [1.0, 2.0, 3.0, 4.0];
    let n = k::qnorm(&q, &mut Region::new()).unwrap();
    assert_eq!(n, (1.0f64 + 4.0 + 9.0 + 16.0).sqrt());
    assert_eq!(vec![n], reference(k::SRC, "qnorm", &[f64s(&q)]));

    let m = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut out = [0.0; 3];
    k::rows(&mut out, &m, &mut Region::new()).unwrap();
    assert_eq!(out, [4.0, 10.0, 18.0]);
    assert_eq!(out.to_vec(), reference(k::SRC, "rows", &[rows_of(&m, 3)]));

    let p = [1.0, 2.0, 3.0, 5.0, -1.0, 0.5];
    let mut out = [0.0; 3];
    k::cross2(&mut out, &p, 2.0, &mut Region::new()).unwrap();
    let want: Vec<f64> = p.chunks(2).map(|r| r[1] * r[0] - 2.0 * r[1]).collect();
    assert_eq!(out.to_vec(), want);
    assert_eq!(
        out.to_vec(),
        reference(k::SRC, "cross2", &[rows_of(&p, 2), Value::F64(2.0)])
    );

    let m = [2.0, 3.0, 5.0, 7.0];
    assert_eq!(
        k::det2(&m, &mut Region::new()).unwrap(),
        2.0 * 7.0 - 3.0 * 5.0
    );
}

#[test]
fn division_rounds_down() {
    for n in [5usize, 205, 0, 1, 4] {
        let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 1.0).collect();
        assert_eq!(k::half::out_len(n), n / 2);
        let mut out = vec![0.0; n / 2];
        k::half(&mut out, &x, &mut Region::new()).unwrap();
        let want: Vec<f64> = (0..n / 2).map(|i| x[2 * i] + x[2 * i + 1]).collect();
        assert_eq!(out, want, "n = {n}");
        assert_eq!(out, reference(k::SRC, "half", &[f64s(&x)]), "n = {n}");
        // The length rounds down: one more is the wrong length.
        let mut long = vec![0.0; n / 2 + 1];
        assert_eq!(
            k::half(&mut long, &x, &mut Region::new()),
            Err(Error::Shape {
                arg: "out",
                expected: n / 2,
                found: n / 2 + 1
            })
        );
    }
    let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
    let mut out = [0.0; 2];
    k::chunks(&mut out, &x, 3, &mut Region::new()).unwrap();
    assert_eq!(out, [1.0, 4.0]);
    // By zero: an error, outputs untouched.
    let mut out: [f64; 0] = [];
    assert_eq!(
        k::chunks(&mut out, &x, 0, &mut Region::new()),
        Err(Error::Arithmetic { expr: "n / k" })
    );
    assert_eq!(k::mid(9, &mut Region::new()), Ok(4 + 3));
}

#[test]
fn sizes_come_from_the_data_before_an_index_array() {
    let x = [1.0, 2.0, 3.0];
    let mut out = [0.0; 2];
    k::labelled_sum(&mut out, &[1, 0, 1], &x, 2, &mut Region::new()).unwrap();
    assert_eq!(out, [2.0, 4.0]);
    // A label missing: the error names the labels, with the length the data gives.
    let mut out = [7.0; 2];
    assert_eq!(
        k::labelled_sum(&mut out, &[1, 0], &x, 2, &mut Region::new()),
        Err(Error::Shape {
            arg: "labels",
            expected: 3,
            found: 2
        })
    );
    assert_eq!(out, [7.0; 2]);
}

#[test]
fn sizes_come_from_the_simplest_length() {
    // The bug report: ni = 0, no = 1.
    let mut out = [9f32; 1];
    k::dense(&mut out, &[0f32; 0], &[0f32; 0], &[0.5], &mut Region::new()).unwrap();
    assert_eq!(out, [0.5]);
    let interp = reference(
        k::SRC,
        "dense",
        // One row of no elements (the flat `w` is empty).
        &[f32s(&[]), Value::Array(vec![f32s(&[])]), f32s(&[0.5])],
    );
    assert_eq!(interp, [0.5]);
    // The usual case still works, and `w`'s length is checked against ni * no.
    let (x, w, b) = (
        [1f32, 2.0],
        [1f32, 0.0, 0.0, 1.0, 1.0, 1.0],
        [0f32, 0.5, 1.0],
    );
    let mut out = [0f32; 3];
    k::dense(&mut out, &x, &w, &b, &mut Region::new()).unwrap();
    assert_eq!(out, [1.0, 2.5, 4.0]);
    assert_eq!(
        k::dense(&mut out, &x, &w[..4], &b, &mut Region::new()),
        Err(Error::Shape {
            arg: "w",
            expected: 6,
            found: 4
        })
    );
    // Only `w` pins `no`, and ni = 0: a clear error, not a size made up.
    let mut out = [7f32; 1];
    let e = k::dense_nobias(&mut out, &[0f32; 0], &[0f32; 0], &mut Region::new()).unwrap_err();
    assert!(matches!(e, Error::Arithmetic { .. }), "{e:?}");
    assert!(e.to_string().contains("w.len()"), "{e}");
    assert_eq!(out, [7.0]);
    let mut out = [0f32; 2];
    k::dense_nobias(&mut out, &[1.0], &[2.0, 3.0], &mut Region::new()).unwrap();
    assert_eq!(out, [2.0, 3.0]);
    // A size pinned by a product alone, as before.
    let mut out = [0.0; 2];
    k::row_sums(
        &mut out,
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        &mut Region::new(),
    )
    .unwrap();
    assert_eq!(out, [6.0, 15.0]);
}

#[test]
fn literal_arrays_are_f32_where_f32_is_needed() {
    let x: [f32; 8] = [0.5, -1.0, 2.0, 3.5, 0.0, 1.25, -0.75, 4.0];
    let (mut a, mut s) = ([0f32; 8], 0f32);
    for t in 0..3 {
        for j in 0..8 {
            a[j] += x[j] * t as f32;
        }
        s += x[t];
    }
    let mut out = [0f32; 8];
    let got = k::lit_fold(&mut out, &x, &mut Region::new()).unwrap();
    assert_eq!((out, got), (a, s));
    let mut out = [0f32; 8];
    k::lit_mix(&mut out, &x, &mut Region::new()).unwrap();
    let want: Vec<f32> = x
        .iter()
        .map(|v| if 1.5 < *v { 1.5 + v } else { 0.25 })
        .collect();
    assert_eq!(out.to_vec(), want);
    let interp = reference(k::SRC, "lit_mix", &[f32s(&x)]);
    assert_eq!(
        interp,
        want.iter().map(|v| f64::from(*v)).collect::<Vec<_>>()
    );
}
