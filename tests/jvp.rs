//! Derivatives (LANGUAGE.md section 12) through the real macros, against the reference
//! interpreter, central finite differences and derivatives by hand.

mod common;

use common::*;
use fsmooth::Region;

macro_rules! with_src {
    ($($t:tt)*) => {
        fsmooth::fsmooth! { $($t)* }
        const SRC: &str = stringify!($($t)*);
    };
}

with_src! {
    fn poly(x: f64) -> f64 { x * x * x - 2.0 * x + (x * 0.5).sin() }
    pub fn dpoly(x: f64, t: f64) -> (f64, f64) { jvp(poly, x, t) }

    fn energy(a: [f64; n], s: f64) -> f64 { ifold(n, 0.0, |acc, i| acc + (a[i] * s).exp() / (1.0 + a[i] * a[i])) }
    pub fn denergy(a: [f64; n], s: f64, ta: [f64; n], ts: f64) -> (f64, f64) { jvp(energy, (a, s), (ta, ts)) }

    pub fn dsoftmax(v: [f64; n], t: [f64; n]) -> ([f64; n], [f64; n]) {
        jvp(|x| { let m = ifold(n, x[0], |m, i| m.max(x[i])); let e = map(x, |y| (y - m).exp()); smul(e, 1.0 / sum(e)) }, v, t)
    }

    pub fn dmatvec(w: [[f64; m]; n], x: [f64; m], tw: [[f64; m]; n]) -> ([f64; n], [f64; n]) {
        jvp(|a| matvec(a, x), w, tw)
    }

    /// A pinhole camera's projection and its 2 x 6 Jacobian by (centre, point), one column
    /// per unit tangent: the forward mode of several directions at once.
    fn project(c: [f64; 3], x: [f64; 3], f: f64) -> [f64; 2] {
        let d = sub(x, c);
        [f * d[0] / d[2], f * d[1] / d[2]]
    }
    pub fn jacobian(c: [f64; 3], x: [f64; 3], f: f64) -> [[f64; 6]; 2] {
        let cols = build(6, |j| {
            let tc = build(3, |i| if i == j { 1.0 } else { 0.0 });
            let tx = build(3, |i| if i + 3 == j { 1.0 } else { 0.0 });
            jvp(|a, b| project(a, b, f), (c, x), (tc, tx)).1
        });
        build(2, |r| build(6, |j| cols[j][r]))
    }

    fn loss(w: [f64; n], x: [[f64; n]; p], y: [f64; p]) -> f64 {
        ifold(p, 0.0, |acc, i| { let e = dot(w, x[i]) - y[i]; acc + e * e })
    }
    pub fn step(w: [f64; n], x: [[f64; n]; p], y: [f64; p]) -> (f64, [f64; n]) {
        grad(|v| loss(v, x, y), w)
    }
    pub fn pullback(m: [[f64; 3]; 2], v: [f64; 3], s: [f64; 2]) -> ([f64; 2], [[f64; 3]; 2], [f64; 3]) {
        vjp(matvec, (m, v), s)
    }

    pub fn dkink(x: f64, y: f64, t: f64) -> (f64, f64) {
        jvp(|z| z.abs() + z.max(y) + z.min(0.5) + if z > 1.0 { z * z } else { 3.0 * z }, x, t)
    }
}

fn reference(name: &str, args: &[Value]) -> Vec<Vec<f64>> {
    fsmooth_eval::interp::Interp::new(SRC)
        .unwrap()
        .call(name, args)
        .unwrap()
        .parts()
        .iter()
        .map(Value::flatten)
        .collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn scalar_functions_match_the_interpreter_and_finite_differences() {
    let r = &mut Region::new();
    let mut rng = Rng::new(20);
    for _ in 0..50 {
        let x = 4.0 * rng.f64() - 2.0;
        let (p, t) = dpoly(x, 1.0, r).unwrap();
        let want = reference("dpoly", &[Value::F64(x), Value::F64(1.0)]);
        assert!(
            close(p, want[0][0], 1e-14) && close(t, want[1][0], 1e-12),
            "{x}: {p} {t} vs {want:?}"
        );
        let h = 1e-6;
        let fd = (dpoly(x + h, 0.0, r).unwrap().0 - dpoly(x - h, 0.0, r).unwrap().0) / (2.0 * h);
        assert!(close(t, fd, 1e-7), "{x}: {t} vs fd {fd}");
        let y = rng.f64();
        let (_, k) = dkink(x, y, 1.0, r).unwrap();
        let want = reference("dkink", &[Value::F64(x), Value::F64(y), Value::F64(1.0)]);
        assert!(close(k, want[1][0], 1e-14), "{x} {y}: {k} vs {want:?}");
    }
}

#[test]
fn array_functions_match_the_interpreter() {
    let r = &mut Region::new();
    let mut rng = Rng::new(21);
    for n in [1usize, 3, 8] {
        let a = rng.vec(n);
        let ta = rng.vec(n);
        let (s, ts) = (rng.f64(), rng.f64());
        let (p, t) = denergy(&a, s, &ta, ts, r).unwrap();
        let want = reference(
            "denergy",
            &[
                Value::vec(&a),
                Value::F64(s),
                Value::vec(&ta),
                Value::F64(ts),
            ],
        );
        assert!(
            close(p, want[0][0], 1e-13) && close(t, want[1][0], 1e-12),
            "{p} {t} {want:?}"
        );
        let (mut o0, mut o1) = (vec![0.0; n], vec![0.0; n]);
        dsoftmax(&mut o0, &mut o1, &a, &ta, r).unwrap();
        let want = reference("dsoftmax", &[Value::vec(&a), Value::vec(&ta)]);
        for (g, w) in o0.iter().zip(&want[0]).chain(o1.iter().zip(&want[1])) {
            assert!(close(*g, *w, 1e-13), "{g} vs {w}");
        }
        let m = 4;
        let w = rng.vec(n * m);
        let x = rng.vec(m);
        let tw = rng.vec(n * m);
        let (mut o0, mut o1) = (vec![0.0; n], vec![0.0; n]);
        dmatvec(&mut o0, &mut o1, &w, &x, &tw, r).unwrap();
        let want = reference(
            "dmatvec",
            &[Value::matrix(&w, m), Value::vec(&x), Value::matrix(&tw, m)],
        );
        for (g, w) in o0.iter().zip(&want[0]).chain(o1.iter().zip(&want[1])) {
            assert!(close(*g, *w, 1e-13), "{g} vs {w}");
        }
    }
}

#[test]
fn a_jacobian_by_unit_tangents_matches_finite_differences() {
    let r = &mut Region::new();
    let (c, x, f) = ([0.1, -0.2, -1.0], [0.5, 0.3, 2.0], 1.5);
    let mut jac = [0.0; 12];
    jacobian(&mut jac, &c, &x, f, r).unwrap();
    let project = |c: [f64; 3], x: [f64; 3]| {
        let d = [x[0] - c[0], x[1] - c[1], x[2] - c[2]];
        [f * d[0] / d[2], f * d[1] / d[2]]
    };
    let h = 1e-6;
    for j in 0..6 {
        let (mut cp, mut cm, mut xp, mut xm) = (c, c, x, x);
        if j < 3 {
            cp[j] += h;
            cm[j] -= h;
        } else {
            xp[j - 3] += h;
            xm[j - 3] -= h;
        }
        let (p, m) = (project(cp, xp), project(cm, xm));
        for row in 0..2 {
            let fd = (p[row] - m[row]) / (2.0 * h);
            assert!(
                close(jac[row * 6 + j], fd, 1e-8),
                "({row}, {j}): {} vs {fd}",
                jac[row * 6 + j]
            );
        }
    }
    let want = reference("jacobian", &[Value::vec(&c), Value::vec(&x), Value::F64(f)]);
    for (g, w) in jac.iter().zip(&want[0]) {
        assert!(close(*g, *w, 1e-14), "{g} vs {w}");
    }
}

#[test]
fn grad_and_vjp_match_derivatives_by_hand() {
    let r = &mut Region::new();
    // docs/derivatives.md's example.
    let mut g = [0.0; 2];
    let l = step(&mut g, &[0.0, 0.0], &[1.0, 2.0], &[1.0], r).unwrap();
    assert_eq!((l, g), (1.0, [-2.0, -4.0]));
    // The pullback of a matrix-vector product: s v^T by the matrix, m^T s by the vector.
    let (m, v, s) = (
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        [0.5, -1.0, 2.0],
        [3.0, -2.0],
    );
    let (mut y, mut gm, mut gv) = ([0.0; 2], [0.0; 6], [0.0; 3]);
    pullback(&mut y, &mut gm, &mut gv, &m, &v, &s, r).unwrap();
    assert_eq!(y, [4.5, 9.0]);
    assert_eq!(gm, [1.5, -3.0, 6.0, -1.0, 2.0, -4.0]);
    assert_eq!(gv, [3.0 - 8.0, 6.0 - 10.0, 9.0 - 12.0]);
}
