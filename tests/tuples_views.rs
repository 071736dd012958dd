//! End-to-end kernels with tuples, several results, scans and views (LANGUAGE.md sections 8
//! and 9): generated code against plain Rust and the reference interpreter, edge sizes
//! included, and the same kernels without destination views.

#[macro_use]
mod common;
use common::*;
use fsmooth::{Error, Region};

mod with_views {
    block! {
        /// Mean, variance (one pass) and the centred signal.
        pub fn stats(v: [f64; n]) -> (f64, f64, [f64; n]) {
            let (s, q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + v[i], q + v[i] * v[i]));
            let mean = s / (n as f64);
            (mean, q / (n as f64) - mean * mean, build(n, |i| v[i] - mean))
        }

        fn swap_scale(t: ([f64; n], f64)) -> (f64, [f64; n]) {
            (t.1, map(t.0, |x| x * t.1))
        }

        /// A tuple through a helper and an `if`, nested patterns.
        pub fn routed(a: [f64; n], b: [f64; n], s: f64) -> ([f64; n], f64) {
            let (k, (u, w)) = if s > 0.0 { (1.0, (a, b)) } else { (2.0, (b, a)) };
            let (g, scaled) = swap_scale((u, s + k));
            (add(scaled, w), g)
        }

        /// Running sum and running maximum of a signal: a tuple scan, both results.
        pub fn running(x: [f64; n]) -> ([f64; n], [f64; n]) {
            scan(n, (0.0, -1.0 / 0.0), |(s, m), i| (s + x[i], m.max(x[i])))
        }

        /// Fibonacci pairs: an array-state scan.
        pub fn fib(k: usize) -> [[f64; 2]; k] {
            scan(k, [0.0, 1.0], |a, _i| [a[1], a[0] + a[1]])
        }

        pub fn cat(a: [f64; n], b: [f64; m]) -> [f64; n + m] {
            concat(map(a, |x| x * 2.0), reverse(b))
        }

        pub fn cat_sum(a: [f64; n], b: [f64; m]) -> f64 {
            sum(concat(a, b)) + concat(b, a)[0 % (n + m)]
        }

        pub fn rows(a: [f64; n * 3]) -> [[f64; 3]; n] {
            map(split(3, a), |r| [r[2], r[1], r[0]])
        }

        pub fn flat(m: [[f64; 3]; n]) -> [f64; n * 3] {
            join(build(n, |i| [m[i][0] + 1.0, m[i][1], m[i][2] * 2.0]))
        }

        pub fn weave(a: [[f64; 2]; n], b: [[f64; 2]; n]) -> [[f64; 2]; 2 * n] {
            interleave(a, b)
        }

        pub fn smooth3(a: [f64; n]) -> [f64; n] {
            build(n, |i| sum(slide(3, pad(a, 1, 1, 0.0))[i]) / 3.0)
        }

        pub fn movsum(x: [f64; n], w: usize) -> [f64; n + 1 - w] {
            build(n + 1 - w, |i| sum(slide(w, x)[i]))
        }

        pub fn framed(m: [[f64; 2]; n]) -> [[f64; 2]; n + 2] {
            pad(m, 1, 1, [0.0, -1.0])
        }

        /// Tuple folds with literal counts (written out by unrolling).
        pub fn rot(a: [f64; 3]) -> ([f64; 3], f64) {
            ifold(4, (a, 0.0), |(v, t), _i| (build(3, |j| v[(j + 1) % 3]), t + v[0]))
        }

        pub fn powers(x: f64) -> (f64, f64) {
            ifold(3, (1.0, 0.0), |(p, s), _i| (p * x, s + p))
        }

        /// A scan stored in the frame whose step reads another stored array: the loop cannot
        /// hold the frame while the step reads it (a borrow rustc rejected).
        pub fn scan_in_frame(a: [f64; n]) -> [f64; n] {
            let t = build(n, |i| a[i] * 2.0);
            let s = scan(n, 0.0, |acc, i| acc + t[i] * t[(i + 1) % n]);
            build(n, |i| s[i] + s[n - 1 - i])
        }

        /// A scan's result placed by a concat: the scan writes into the first part.
        pub fn prefix_then(x: [f64; n], y: [f64; m]) -> [f64; n + m] {
            concat(scan(n, 0.0, |acc, i| acc + x[i]), y)
        }
    }
}

mod without_views {
    block! {
        #![fsmooth(views = false)]

        pub fn cat(a: [f64; n], b: [f64; m]) -> [f64; n + m] {
            concat(map(a, |x| x * 2.0), reverse(b))
        }

        pub fn flat(m: [[f64; 3]; n]) -> [f64; n * 3] {
            join(build(n, |i| [m[i][0] + 1.0, m[i][1], m[i][2] * 2.0]))
        }

        pub fn prefix_then(x: [f64; n], y: [f64; m]) -> [f64; n + m] {
            concat(scan(n, 0.0, |acc, i| acc + x[i]), y)
        }
    }
}

use with_views as k;

#[test]
fn stats_gives_two_scalars_and_one_array() {
    let mut rng = Rng::new(7);
    let mut region = Region::new();
    for n in [1, 2, 9, 100] {
        let v = rng.vec(n);
        let mut centred = vec![0.0; k::stats::out2_len(n)];
        let (mean, var) = k::stats(&mut centred, &v, &mut region).unwrap();
        let (s, q) = v.iter().fold((0.0, 0.0), |(s, q), x| (s + x, q + x * x));
        let m = s / n as f64;
        assert_eq!(mean, m);
        assert_eq!(var, q / n as f64 - m * m);
        let want: Vec<f64> = v.iter().map(|x| x - m).collect();
        assert_eq!(centred, want);
        let got = reference(k::SRC, "stats", &[Value::vec(&v)]);
        assert_eq!(got, [vec![mean, var], centred].concat());
        assert_eq!(k::stats::scratch_len(n), 0);
    }
}

#[test]
fn a_wrong_output_length_leaves_every_output_untouched() {
    let mut region = Region::new();
    let (a, b) = ([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
    let mut out0 = [7.0; 2];
    let r = k::routed(&mut out0, &a, &b, 1.0, &mut region);
    assert_eq!(
        r,
        Err(Error::Shape {
            arg: "out0",
            expected: 3,
            found: 2
        })
    );
    assert_eq!(out0, [7.0; 2]);
    let (mut s, mut m) = ([7.0; 3], [7.0; 4]);
    let r = k::running(&mut s, &mut m, &a, &mut region);
    assert!(matches!(r, Err(Error::Shape { arg: "out1", .. })), "{r:?}");
    assert_eq!((s, m), ([7.0; 3], [7.0; 4]));
}

#[test]
fn tuples_route_through_helpers_and_ifs() {
    let mut region = Region::new();
    let (a, b) = ([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]);
    for s in [0.5, -0.5] {
        let mut out0 = [0.0; 3];
        let g = k::routed(&mut out0, &a, &b, s, &mut region).unwrap();
        let (kk, u, w) = if s > 0.0 { (1.0, a, b) } else { (2.0, b, a) };
        let g_want = s + kk;
        assert_eq!(g, g_want);
        let want: Vec<f64> = (0..3).map(|i| u[i] * g_want + w[i]).collect();
        assert_eq!(out0.to_vec(), want);
        let args = [Value::vec(&a), Value::vec(&b), Value::F64(s)];
        assert_eq!(reference(k::SRC, "routed", &args), [want, vec![g]].concat());
    }
}

#[test]
fn scans_keep_every_state() {
    let mut rng = Rng::new(3);
    let mut region = Region::new();
    for n in [0, 1, 2, 50] {
        let x = rng.vec(n);
        let (mut s, mut m) = (vec![0.0; n], vec![0.0; n]);
        k::running(&mut s, &mut m, &x, &mut region).unwrap();
        let (mut acc, mut mx) = (0.0, f64::NEG_INFINITY);
        for i in 0..n {
            acc += x[i];
            mx = mx.max(x[i]);
            assert_eq!((s[i], m[i]), (acc, mx), "step {i}");
        }
        assert_eq!(k::running::scratch_len(n), 0);
    }
    for kk in [0, 1, 2, 12] {
        let mut out = vec![0.0; k::fib::out_len(kk)];
        k::fib(&mut out, kk, &mut region).unwrap();
        let (mut a, mut b) = (0.0, 1.0);
        for i in 0..kk {
            (a, b) = (b, a + b);
            assert_eq!(&out[2 * i..2 * i + 2], &[a, b]);
        }
        assert_eq!(
            reference(k::SRC, "fib", &[Value::Usize(kk)]),
            out,
            "k = {kk}"
        );
    }
}

#[test]
fn views_read_and_write_in_place() {
    let mut rng = Rng::new(11);
    let mut region = Region::new();
    for (n, m) in [(0, 0), (0, 3), (4, 0), (5, 3)] {
        let (a, b) = (rng.vec(n), rng.vec(m));
        let mut out = vec![0.0; n + m];
        k::cat(&mut out, &a, &b, &mut region).unwrap();
        let want: Vec<f64> = a
            .iter()
            .map(|x| x * 2.0)
            .chain(b.iter().rev().copied())
            .collect();
        assert_eq!(out, want);
        assert_eq!(k::cat::scratch_len(n, m), 0);
        let mut plain = vec![0.0; n + m];
        without_views::cat(&mut plain, &a, &b, &mut region).unwrap();
        assert_eq!(plain, want);
        assert!(without_views::cat::scratch_len(n, m) >= n);
        let mut out = vec![0.0; n + m];
        k::prefix_then(&mut out, &a, &b, &mut region).unwrap();
        let mut acc = 0.0;
        let mut want: Vec<f64> = a
            .iter()
            .map(|x| {
                acc += x;
                acc
            })
            .collect();
        want.extend(&b);
        assert_eq!(out, want);
        assert_eq!(k::prefix_then::scratch_len(n, m), 0);
        without_views::prefix_then(&mut plain, &a, &b, &mut region).unwrap();
        assert_eq!(plain, want);
        if n + m > 0 {
            let got = k::cat_sum(&a, &b, &mut region).unwrap();
            let first = b.first().or(a.first()).copied().unwrap_or(0.0);
            let total = a.iter().chain(&b).fold(-0.0, |s, x| s + x);
            assert_eq!(got, total + first);
        }
    }
    let a: Vec<f64> = (0..12).map(|x| x as f64).collect();
    let mut out = vec![0.0; 12];
    k::rows(&mut out, &a, &mut region).unwrap();
    let want: Vec<f64> = a.chunks(3).flat_map(|r| [r[2], r[1], r[0]]).collect();
    assert_eq!(out, want);
    let mut flat = vec![0.0; 12];
    k::flat(&mut flat, &a, &mut region).unwrap();
    let want: Vec<f64> = a
        .chunks(3)
        .flat_map(|r| [r[0] + 1.0, r[1], r[2] * 2.0])
        .collect();
    assert_eq!(flat, want);
    without_views::flat(&mut out, &a, &mut region).unwrap();
    assert_eq!(out, want);
    assert_eq!(k::flat::scratch_len(4), 0);
}

#[test]
fn interleave_pad_and_slide_follow_their_definitions() {
    let mut region = Region::new();
    let a = [1.0, 2.0, 3.0, 4.0];
    let b = [5.0, 6.0, 7.0, 8.0];
    let mut out = [0.0; 8];
    k::weave(&mut out, &a, &b, &mut region).unwrap();
    assert_eq!(out, [1.0, 2.0, 5.0, 6.0, 3.0, 4.0, 7.0, 8.0]);
    let mut framed = [0.0; 8];
    k::framed(&mut framed, &a, &mut region).unwrap();
    assert_eq!(framed, [0.0, -1.0, 1.0, 2.0, 3.0, 4.0, 0.0, -1.0]);
    for n in [0, 1, 2, 6] {
        let x: Vec<f64> = (0..n).map(|i| (i * i) as f64).collect();
        let mut out = vec![0.0; n];
        k::smooth3(&mut out, &x, &mut region).unwrap();
        let at = |i: isize| {
            if i < 0 || i >= n as isize {
                0.0
            } else {
                x[i as usize]
            }
        };
        for i in 0..n as isize {
            let want = (-0.0 + at(i - 1) + at(i) + at(i + 1)) / 3.0;
            assert_eq!(out[i as usize], want, "n = {n}, i = {i}");
        }
        assert_eq!(k::smooth3::scratch_len(n), 0);
        for w in 1..=n + 1 {
            let mut out = vec![0.0; n + 1 - w];
            k::movsum(&mut out, &x, w, &mut region).unwrap();
            let want: Vec<f64> = x
                .windows(w)
                .map(|s| s.iter().fold(-0.0, |a, b| a + b))
                .collect();
            assert_eq!(out, want, "n = {n}, w = {w}");
        }
    }
    // A window of 0, or wider than the length + 1: an error before anything is written.
    let x = [1.0, 2.0];
    for (w, len) in [(0, 3), (4, 0)] {
        let mut out = vec![7.0; len];
        let r = k::movsum(&mut out, &x, w, &mut region);
        assert!(matches!(r, Err(Error::Arithmetic { .. })), "w = {w}: {r:?}");
        assert!(out.iter().all(|&v| v == 7.0));
        if w == 0 {
            // The error names the window, not an arithmetic the program does not write.
            let Err(Error::Arithmetic { expr }) = r else {
                unreachable!()
            };
            assert!(
                expr.starts_with("slide(") && expr.ends_with("= 0"),
                "{expr}"
            );
        }
    }
}

#[test]
fn written_out_tuple_folds_agree() {
    let mut region = Region::new();
    let a = [1.0, 2.0, 3.0];
    let mut out0 = [0.0; 3];
    let t = k::rot(&mut out0, &a, &mut region).unwrap();
    // Four rotations by one: back to a rotated once; t sums a[0], a[1], a[2], a[0].
    assert_eq!(out0, [2.0, 3.0, 1.0]);
    assert_eq!(t, 1.0 + 2.0 + 3.0 + 1.0);
    assert_eq!(k::powers(2.0, &mut region).unwrap(), (8.0, 7.0));
    let args = [Value::vec(&a)];
    assert_eq!(reference(k::SRC, "rot", &args), vec![2.0, 3.0, 1.0, 7.0]);
}

#[test]
fn a_scan_in_the_frame_reads_the_frame() {
    let mut region = Region::new();
    for n in [1, 2, 5] {
        let a: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
        let mut out = vec![0.0; n];
        k::scan_in_frame(&mut out, &a, &mut region).unwrap();
        let t: Vec<f64> = a.iter().map(|x| x * 2.0).collect();
        let mut s = Vec::new();
        let mut acc = 0.0;
        for i in 0..n {
            acc += t[i] * t[(i + 1) % n];
            s.push(acc);
        }
        let want: Vec<f64> = (0..n).map(|i| s[i] + s[n - 1 - i]).collect();
        assert_eq!(out, want, "n = {n}");
    }
}
