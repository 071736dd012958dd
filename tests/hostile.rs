//! Hostile calls at run time: wrong lengths, short slabs, sizes whose arithmetic underflows,
//! `%` by a zero size, non-finite data. Each gives a clear `Err` with `out` untouched, or
//! IEEE-correct values; never a panic.

#[macro_use]
mod common;
use common::*;
use fsmooth::{Error, Region};

mod k {
    block! {
        pub fn inner(img: [f64; w]) -> [f64; w - 2] {
            build(w - 2, |x| img[x + 2] - img[x])
        }

        pub fn wrap(v: [f64; m], n: usize) -> [f64; m] {
            build(m, |i| v[i % n])
        }

        pub fn pick(v: [f64; n], i: usize) -> f64 {
            v[i]
        }

        pub fn first(v: [f64; n]) -> f64 {
            if n > 0 { v[0] } else { 0.0 }
        }

        pub fn halves(v: [f64; 2 * h]) -> [f64; h] {
            build(h, |i| v[i] + v[i + h])
        }

        pub fn grid(a: [[f64; c]; r], c: usize) -> [f64; r] {
            build(r, |i| sum(a[i]))
        }

        pub fn stats(v: [f64; n]) -> [f64; 3] {
            [sum(v), vmax(v), logsumexp(v)]
        }
    }
}

#[test]
fn size_underflow_is_an_error_not_a_panic() {
    let mut region = Region::new();
    let mut out: [f64; 0] = [];
    let e = k::inner(&mut out, &[1.0], &mut region).unwrap_err();
    assert_eq!(e, Error::Arithmetic { expr: "w - 2" });
    assert!(e.to_string().contains("w - 2"));
    assert_eq!(k::inner::out_len(1), 0); // saturating in the const fn
    let mut out = [0.0; 1];
    k::inner(&mut out, &[1.0, 5.0, 4.0], &mut region).unwrap();
    assert_eq!(out, [3.0]);
}

#[test]
fn remainder_by_a_zero_size_is_an_error() {
    let mut region = Region::new();
    let mut out = [9.0; 3];
    let e = k::wrap(&mut out, &[1.0, 2.0, 3.0], 0, &mut region).unwrap_err();
    assert!(matches!(e, Error::Arithmetic { .. }), "{e:?}");
    k::wrap(&mut out, &[1.0, 2.0, 3.0], 2, &mut region).unwrap();
    assert_eq!(out, [1.0, 2.0, 1.0]);
    // An index past the array from `%` by a large size is caught where it happens.
    let e = k::wrap(&mut out, &[1.0, 2.0, 3.0], 7, &mut region);
    assert!(e.is_ok(), "{e:?}"); // i % 7 < 3 for i < 3
}

#[test]
fn unproven_indexes_return_index_errors() {
    let mut region = Region::new();
    assert_eq!(k::pick(&[1.0, 2.0], 1, &mut region), Ok(2.0));
    assert_eq!(
        k::pick(&[1.0, 2.0], 2, &mut region),
        Err(Error::Index { index: 2, len: 2 })
    );
    assert_eq!(k::first(&[0.0; 0], &mut region), Ok(0.0));
    assert_eq!(k::first(&[4.0], &mut region), Ok(4.0));
}

#[test]
fn lengths_that_fit_no_size_are_shape_errors() {
    let mut region = Region::new();
    let mut out = [7.0; 2];
    // 2 * h must be even.
    let e = k::halves(&mut out, &[1.0; 5], &mut region).unwrap_err();
    assert!(
        matches!(e, Error::Shape { arg: "v", .. } | Error::Arithmetic { .. }),
        "{e:?}"
    );
    assert_eq!(out, [7.0; 2]);
    k::halves(&mut out, &[1.0, 2.0, 3.0, 4.0], &mut region).unwrap();
    assert_eq!(out, [4.0, 6.0]);
    // 7 values are not rows of 3.
    let mut rows = [7.0; 2];
    let e = k::grid(&mut rows, &[1.0; 7], 3, &mut region).unwrap_err();
    assert_eq!(
        e,
        Error::Shape {
            arg: "a",
            expected: 6,
            found: 7
        }
    );
    assert_eq!(rows, [7.0; 2]);
    // Zero columns: the rows cannot be counted, and a length with a zero factor never
    // decides the other (LANGUAGE.md section 16): an error naming the division, not a
    // size made up (v2 took it for zero rows).
    let mut none: [f64; 0] = [];
    assert_eq!(
        k::grid(&mut none, &[0.0; 0], 0, &mut region),
        Err(Error::Arithmetic {
            expr: "a.len() / (c)"
        })
    );
}

#[test]
fn every_wrong_length_of_every_argument() {
    let mut rng = Rng::new(31);
    let mut region = Region::new();
    for _ in 0..200 {
        let n = rng.below(6);
        let bad = |rng: &mut Rng, len: usize| {
            let mut l = rng.below(8);
            if l == len {
                l += 1;
            }
            l
        };
        let (a, b, c) = (rng.vec(n), rng.vec(n), rng.vec(n));
        let which = rng.below(4);
        let lens = [n, n, n, n];
        let mut l = lens;
        l[which] = bad(&mut rng, n);
        let (a2, b2, c2) = (&rng.vec(l[0])[..], &rng.vec(l[1])[..], &rng.vec(l[2])[..]);
        let mut out = vec![-1.0; l[3]];
        let before = out.clone();
        let e = paper_add3(&mut out, a2, b2, c2, &mut region);
        assert!(matches!(e, Err(Error::Shape { .. })), "{e:?}");
        assert_eq!(out, before, "out touched on error");
        let _ = (&a, &b, &c);
    }
}

fn paper_add3(
    out: &mut [f64],
    a: &[f64],
    b: &[f64],
    c: &[f64],
    r: &mut Region,
) -> Result<(), Error> {
    mod p {
        block! {
            pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
                add(add(a, b), c)
            }
        }
    }
    p::add3(out, a, b, c, r)
}

#[test]
fn short_slabs_for_every_size() {
    mod s {
        block! {
            pub fn blur(a: [f64; n]) -> [f64; n] {
                let t = smul(a, 0.5);
                build(n, |i| t[i] + t[(i + 1) % n])
            }
        }
    }
    for n in 1..20 {
        let need = s::blur::scratch_len(n);
        assert_eq!(need, n);
        let a = vec![1.0; n];
        let mut out = vec![3.0; n];
        let mut slab = vec![0.0; need - 1];
        let e = s::blur(&mut out, &a, &mut Region::from_slab(&mut slab)).unwrap_err();
        assert_eq!(
            e,
            Error::Scratch {
                needed: need,
                available: need - 1
            }
        );
        assert!(out.iter().all(|v| *v == 3.0));
        let mut slab = vec![0.0; need];
        s::blur(&mut out, &a, &mut Region::from_slab(&mut slab)).unwrap();
        assert!(out.iter().all(|v| *v == 1.0));
    }
}

#[test]
fn non_finite_data_follows_ieee() {
    let mut region = Region::new();
    let mut out = [0.0; 3];
    k::stats(&mut out, &[1.0, f64::NAN, 3.0], &mut region).unwrap();
    assert!(out[0].is_nan());
    // f64::max ignores NaN, as Rust's does.
    assert_eq!(out[1], 3.0);
    k::stats(&mut out, &[f64::INFINITY, 1.0], &mut region).unwrap();
    assert_eq!(out[0], f64::INFINITY);
    assert_eq!(out[1], f64::INFINITY);
    k::stats(&mut out, &[0.0; 0], &mut region).unwrap();
    assert_eq!(out[0], 0.0);
    assert_eq!(out[1], f64::NEG_INFINITY);
    k::stats(&mut out, &[5e-324, 1e-310], &mut region).unwrap();
    assert_eq!(out[0], 5e-324 + 1e-310);
    let want = reference(k::SRC, "stats", &[Value::vec(&[5e-324, 1e-310])]);
    assert_close(&out, &want, 1e-12);
}
