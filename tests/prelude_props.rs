//! Every prelude function, called as a kernel with arguments of random (often wrong)
//! lengths and random data including NaN, infinities and subnormals: a consistent call
//! matches the reference interpreter (IEEE semantics included), an inconsistent one is
//! `Err(Error::Shape)` with `out` untouched. Never a panic.

#[macro_use]
mod common;
use common::*;
use fsmooth::{Error, Region};

mod p {
    block! {
        pub fn add_k(a: [f64; n], b: [f64; n]) -> [f64; n] { add(a, b) }
        pub fn sub_k(a: [f64; n], b: [f64; n]) -> [f64; n] { sub(a, b) }
        pub fn emul_k(a: [f64; n], b: [f64; n]) -> [f64; n] { emul(a, b) }
        pub fn smul_k(a: [f64; n], s: f64) -> [f64; n] { smul(a, s) }
        pub fn sum_k(a: [f64; n]) -> f64 { sum(a) }
        pub fn dot_k(a: [f64; n], b: [f64; n]) -> f64 { dot(a, b) }
        pub fn sqnorm_k(a: [f64; n]) -> f64 { sqnorm(a) }
        pub fn norm_k(a: [f64; n]) -> f64 { norm(a) }
        pub fn vmax_k(a: [f64; n]) -> f64 { vmax(a) }
        pub fn logsumexp_k(a: [f64; n]) -> f64 { logsumexp(a) }
        pub fn cross_k(a: [f64; 3], b: [f64; 3]) -> [f64; 3] { cross(a, b) }
        pub fn map_k(a: [f64; n], s: f64) -> [f64; n] { map(a, |x| x * s + 1.0) }
        pub fn map2_k(a: [f64; n], b: [f64; n]) -> [f64; n] { map2(a, b, |x, y| x.max(y)) }
        pub fn transpose_k(m: [[f64; c]; r], c: usize) -> [[f64; r]; c] { transpose(m) }
        pub fn matmul_k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }
        pub fn matvec_k(a: [[f64; m]; n], v: [f64; m]) -> [f64; n] { matvec(a, v) }
        pub fn outer_k(a: [f64; n], b: [f64; m]) -> [[f64; m]; n] { outer(a, b) }
        pub fn madd_k(a: [[f64; m]; n], b: [[f64; m]; n], m: usize) -> [[f64; m]; n] { madd(a, b) }
        pub fn msub_k(a: [[f64; m]; n], b: [[f64; m]; n], m: usize) -> [[f64; m]; n] { msub(a, b) }
        pub fn msmul_k(a: [[f64; m]; n], s: f64, m: usize) -> [[f64; m]; n] { msmul(a, s) }
    }
}

fn data(rng: &mut Rng, len: usize) -> Vec<f64> {
    (0..len)
        .map(|_| match rng.below(12) {
            0 => f64::NAN,
            1 => f64::INFINITY,
            2 => f64::NEG_INFINITY,
            3 => 5e-324,
            4 => -0.0,
            _ => rng.f64() * 10.0,
        })
        .collect()
}

/// Data of a length that is usually `want`, sometimes off.
fn rdata(rng: &mut Rng, want: usize) -> Vec<f64> {
    let l = len(rng, want);
    data(rng, l)
}

/// A length: usually `want`, sometimes off.
fn len(rng: &mut Rng, want: usize) -> usize {
    if rng.below(3) == 0 {
        rng.below(want + 3)
    } else {
        want
    }
}

/// Compare a call's result with the interpreter's, or check it failed cleanly.
#[track_caller]
fn check(
    name: &str,
    got: Result<Vec<f64>, Error>,
    out_before: &[f64],
    out_after: &[f64],
    consistent: bool,
    args: &[Value],
) {
    match got {
        Ok(v) => {
            assert!(consistent, "{name}: inconsistent lengths accepted");
            let want = reference(p::SRC, name, args);
            assert_close(&v, &want, 1e-12);
        }
        Err(e) => {
            assert!(!consistent, "{name}: consistent call failed: {e}");
            assert!(matches!(e, Error::Shape { .. }), "{name}: {e:?}");
            assert_eq!(
                out_before.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                out_after.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                "{name}: out touched on error"
            );
        }
    }
}

#[test]
fn vector_functions() {
    let mut rng = Rng::new(41);
    let mut region = Region::new();
    type Bin = fn(&mut [f64], &[f64], &[f64], &mut Region) -> Result<(), Error>;
    let bins: [(&str, Bin); 4] = [
        ("add_k", p::add_k),
        ("sub_k", p::sub_k),
        ("emul_k", p::emul_k),
        ("map2_k", p::map2_k),
    ];
    for _ in 0..300 {
        let n = rng.below(5);
        let (la, lb, lo) = (len(&mut rng, n), len(&mut rng, n), len(&mut rng, n));
        let (a, b) = (data(&mut rng, la), data(&mut rng, lb));
        let args = [Value::vec(&a), Value::vec(&b)];
        for (name, f) in bins {
            let mut out = vec![7.0; lo];
            let before = out.clone();
            let r = f(&mut out, &a, &b, &mut region).map(|_| out.clone());
            check(name, r, &before, &out, la == lb && lb == lo, &args);
        }
        let s = rng.f64();
        let mut out = vec![7.0; lo];
        let r = p::smul_k(&mut out, &a, s, &mut region).map(|_| out.clone());
        check(
            "smul_k",
            r,
            &[7.0].repeat(lo),
            &out,
            la == lo,
            &[Value::vec(&a), Value::F64(s)],
        );
        let mut out = vec![7.0; lo];
        let r = p::map_k(&mut out, &a, s, &mut region).map(|_| out.clone());
        check(
            "map_k",
            r,
            &[7.0].repeat(lo),
            &out,
            la == lo,
            &[Value::vec(&a), Value::F64(s)],
        );
        type Red = fn(&[f64], &mut Region) -> Result<f64, Error>;
        let reds: [(&str, Red); 5] = [
            ("sum_k", p::sum_k),
            ("sqnorm_k", p::sqnorm_k),
            ("norm_k", p::norm_k),
            ("vmax_k", p::vmax_k),
            ("logsumexp_k", p::logsumexp_k),
        ];
        for (name, f) in reds {
            let r = f(&a, &mut region).map(|v| vec![v]);
            check(name, r, &[], &[], true, &[Value::vec(&a)]);
        }
        let r = p::dot_k(&a, &b, &mut region).map(|v| vec![v]);
        check("dot_k", r, &[], &[], la == lb, &args);
        let (a3, b3) = (rdata(&mut rng, 3), rdata(&mut rng, 3));
        let l3 = len(&mut rng, 3);
        let mut out = vec![7.0; l3];
        let before = out.clone();
        let ok = a3.len() == 3 && b3.len() == 3 && out.len() == 3;
        let r = p::cross_k(&mut out, &a3, &b3, &mut region).map(|_| out.clone());
        check(
            "cross_k",
            r,
            &before,
            &out,
            ok,
            &[Value::vec(&a3), Value::vec(&b3)],
        );
    }
}

#[test]
fn matrix_functions() {
    let mut rng = Rng::new(42);
    let mut region = Region::new();
    for _ in 0..300 {
        let (n, m, k) = (rng.below(4) + 1, rng.below(4) + 1, rng.below(4) + 1);
        let a = rdata(&mut rng, n * k);
        let b = rdata(&mut rng, k * m);
        let mut out = vec![7.0; len(&mut rng, n * m)];
        let before = out.clone();
        // n is read from a's length given k; m from b's given k.
        let ok = a.len().is_multiple_of(k)
            && b.len().is_multiple_of(k)
            && out.len() == (a.len() / k) * (b.len() / k);
        let r = p::matmul_k(&mut out, &a, &b, k, &mut region).map(|_| out.clone());
        let args = [
            Value::matrix(&a, k),
            Value::matrix(&b, b.len() / k),
            Value::Usize(k),
        ];
        if ok && a.len() / k > 0 && b.len() / k > 0 {
            check("matmul_k", r, &before, &out, ok, &args);
        } else if !ok {
            assert!(matches!(r, Err(Error::Shape { .. })), "{r:?}");
            assert_eq!(before.len(), out.len());
        }
        let c = m;
        let mm = rdata(&mut rng, n * c);
        let mut out = vec![7.0; len(&mut rng, n * c)];
        let before = out.clone();
        let ok = mm.len().is_multiple_of(c) && out.len() == mm.len();
        let r = p::transpose_k(&mut out, &mm, c, &mut region).map(|_| out.clone());
        if ok && !mm.is_empty() {
            check(
                "transpose_k",
                r,
                &before,
                &out,
                ok,
                &[Value::matrix(&mm, c), Value::Usize(c)],
            );
        } else if !ok {
            assert!(matches!(r, Err(Error::Shape { .. })));
            assert_eq!(
                out.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                before.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
        }
        let v = rdata(&mut rng, m);
        let mut out = vec![7.0; len(&mut rng, n)];
        let before = out.clone();
        let ok =
            !v.is_empty() && mm.len().is_multiple_of(v.len()) && out.len() == mm.len() / v.len();
        let r = p::matvec_k(&mut out, &mm, &v, &mut region).map(|_| out.clone());
        if ok {
            check(
                "matvec_k",
                r,
                &before,
                &out,
                ok,
                &[Value::matrix(&mm, v.len()), Value::vec(&v)],
            );
        } else if !v.is_empty() {
            assert!(matches!(r, Err(Error::Shape { .. })), "{r:?}");
        }
        let (x, y) = (data(&mut rng, n), data(&mut rng, m));
        let mut out = vec![7.0; len(&mut rng, n * m)];
        let before = out.clone();
        let r = p::outer_k(&mut out, &x, &y, &mut region).map(|_| out.clone());
        check(
            "outer_k",
            r,
            &before,
            &out,
            out.len() == n * m,
            &[Value::vec(&x), Value::vec(&y)],
        );
        let (ma, mb) = (rdata(&mut rng, n * m), rdata(&mut rng, n * m));
        for name in ["madd_k", "msub_k"] {
            let mut out = vec![7.0; len(&mut rng, n * m)];
            let before = out.clone();
            let f = if name == "madd_k" {
                p::madd_k
            } else {
                p::msub_k
            };
            let ok = ma.len().is_multiple_of(m) && mb.len() == ma.len() && out.len() == ma.len();
            let r = f(&mut out, &ma, &mb, m, &mut region).map(|_| out.clone());
            let args = [
                Value::matrix(&ma, m),
                Value::matrix(&mb, m),
                Value::Usize(m),
            ];
            if ok && !ma.is_empty() {
                check(name, r, &before, &out, ok, &args);
            } else if !ok {
                assert!(matches!(r, Err(Error::Shape { .. })));
            }
        }
        let s = rng.f64();
        let mut out = vec![7.0; len(&mut rng, n * m)];
        let before = out.clone();
        let ok = ma.len().is_multiple_of(m) && out.len() == ma.len();
        let r = p::msmul_k(&mut out, &ma, s, m, &mut region).map(|_| out.clone());
        if ok && !ma.is_empty() {
            check(
                "msmul_k",
                r,
                &before,
                &out,
                ok,
                &[Value::matrix(&ma, m), Value::F64(s), Value::Usize(m)],
            );
        } else if !ok {
            assert!(matches!(r, Err(Error::Shape { .. })));
        }
    }
}
