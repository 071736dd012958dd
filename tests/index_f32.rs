//! End-to-end kernels with index arrays, `usize` data and `f32` (LANGUAGE.md sections 10 and
//! 11): each compiled kernel against plain Rust, and against the executor of its loop IR
//! (which models f32 arithmetic and usize buffers exactly). f32 literals carry their suffix
//! (`2.0f32`) while the checker's literal typing is done elsewhere.

#[macro_use]
mod common;
use common::*;
use fsmooth::{Error, Region};
use fsmooth_eval::exec::{Arg, Outputs, Scalar, call};

block! {
    /// A dense layer in single precision: tanh(W x + b).
    pub fn dense(w: [[f32; i]; o], b: [f32; o], x: [f32; i]) -> [f32; o] {
        build(o, |r| (ifold(i, 0.0f32, |acc, k| acc + w[r][k] * x[k]) + b[r]).tanh())
    }

    /// A matrix product in single precision (taken in tiles of columns, as in f64).
    pub fn mm(a: [[f32; k]; n], b: [[f32; m]; k], k: usize) -> [[f32; m]; n] {
        build(n, |i| build(m, |j| ifold(k, 0.0f32, |acc, l| acc + a[i][l] * b[l][j])))
    }

    /// Each v2 math method on f32, one row of 14 per element.
    pub fn math32(x: [f32; n], y: [f32; n]) -> [[f32; 14]; n] {
        build(n, |i| [x[i].atan2(y[i]), x[i].asin(), x[i].acos(), x[i].atan(), x[i].sinh(),
                      x[i].cosh(), x[i].hypot(y[i]), x[i].cbrt(), x[i].exp2(), x[i].log2(),
                      x[i].log10(), x[i].signum(), x[i].mul_add(y[i], 1.5f32),
                      x[i].clamp(-0.5f32, 0.25f32)])
    }

    /// The same methods on f64.
    pub fn math64(x: [f64; n], y: [f64; n]) -> [[f64; 14]; n] {
        build(n, |i| [x[i].atan2(y[i]), x[i].asin(), x[i].acos(), x[i].atan(), x[i].sinh(),
                      x[i].cosh(), x[i].hypot(y[i]), x[i].cbrt(), x[i].exp2(), x[i].log2(),
                      x[i].log10(), x[i].signum(), x[i].mul_add(y[i], 1.5),
                      x[i].clamp(-0.5, 0.25)])
    }

    /// Casts between the three scalar types.
    pub fn casts(x: [f32; n], k: usize) -> [f64; n] {
        build(n, |i| (x[i] as f64) * 0.5 + (k as f32 as f64) + ((x[i] * 2.0f32) as usize as f64))
    }

    /// A gather through an index array: observation j reads a camera and a point.
    pub fn gather(cams: [[f64; 3]; nc], pts: [f64; np], obs: [[usize; 2]; p]) -> [f64; p] {
        build(p, |j| cams[obs[j][0]][1] * pts[obs[j][1]])
    }

    /// A gather of f32 values by a whole index array.
    pub fn pick(x: [f32; n], idx: [usize; m]) -> [f32; m] {
        build(m, |i| x[idx[i]] * 2.0f32)
    }

    /// The index of the largest element of each row: a `[usize; n]` result.
    pub fn argmax(m: [[f64; k]; n], k: usize) -> [usize; n] {
        build(n, |r| ifold(k, 0, |best, j| if m[r][j] > m[r][best] { j } else { best }))
    }

    /// f64, f32 and usize intermediates in one frame; `u` is a computed index array, checked
    /// where it is used.
    pub fn mixed(a: [f64; n], b: [f32; n], idx: [usize; n], r: usize) -> f64 {
        let s = build(n, |i| a[i].exp());
        let t = build(n, |i| b[i].exp());
        let u = ifold(r, idx, |acc, k| build(n, |i| acc[(i + k) % n]));
        ifold(n, 0.0, |acc, i| acc + s[u[i]] + s[i] + (t[n - 1 - i] as f64) + (t[i] as f64))
    }

    /// The windows of a signal: `n - w + 1` of them, none for n = w - 1.
    pub fn windows(w: usize, a: [f64; n]) -> [[f64; w]; n - w + 1] {
        slide(w, a)
    }

    /// The sum of each window.
    pub fn wsum(w: usize, a: [f64; n]) -> [f64; n - w + 1] {
        build(n - w + 1, |i| sum(slide(w, a)[i]))
    }
}

/// The executor's run of kernel `name` of the block: its outputs and scalars, or the
/// kernel's error (a fault of the executor fails the test).
fn executed(name: &str, params: &[(&str, Arg)], outs: &[(&str, usize)]) -> Result<Outputs, String> {
    let planned = fsmooth_core::plan_block(SRC.parse().unwrap()).unwrap();
    let (_, p) = planned
        .iter()
        .find(|(k, _)| k.name.text == name)
        .unwrap_or_else(|| panic!("no kernel {name}"));
    match call(&p.func, params, outs) {
        Ok(r) => r,
        Err(fault) => panic!("{name}: executor fault: {fault}"),
    }
}

/// The generated code of the block.
fn expanded() -> String {
    fsmooth_core::expand(SRC.parse().unwrap()).to_string()
}

/// The text of kernel `name`'s function in the expansion.
fn kernel_text(name: &str) -> String {
    let all = expanded();
    let start = all
        .find(&format!("pub fn {name} ("))
        .unwrap_or_else(|| panic!("no kernel {name}"));
    let end = all[start..]
        .find("pub mod ")
        .map_or(all.len(), |e| start + e);
    all[start..end].to_string()
}

fn f32s(rng: &mut Rng, n: usize, scale: f64) -> Vec<f32> {
    (0..n).map(|_| rng.f64() as f32 * scale as f32).collect()
}

fn widen(v: &[f32]) -> Vec<f64> {
    v.iter().map(|x| f64::from(*x)).collect()
}

/// Equal bit for bit, NaNs equal to NaNs.
fn same_f32(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()))
}

#[test]
fn an_f32_dense_layer_computes_in_f32() {
    let mut rng = Rng::new(3);
    // Rows taken 8 and 4 at a time, and the rows left over.
    for (i, o) in [(0, 0), (1, 1), (3, 5), (16, 9), (33, 2), (5, 17)] {
        let (w, b, x) = (
            f32s(&mut rng, i * o, 1.0),
            f32s(&mut rng, o, 1.0),
            f32s(&mut rng, i, 1.0),
        );
        let mut out = vec![0.0f32; dense::out_len(i, o)];
        dense(&mut out, &w, &b, &x, &mut Region::new()).unwrap();
        // Plain Rust in f32, the terms in the order written.
        let want: Vec<f32> = (0..o)
            .map(|r| {
                let mut acc = 0.0f32;
                for k in 0..i {
                    acc += w[r * i + k] * x[k];
                }
                (acc + b[r]).tanh()
            })
            .collect();
        assert!(same_f32(&out, &want), "{i}x{o}: {out:?} against {want:?}");
        let got = executed(
            "dense",
            &[
                ("w", Arg::F32s(w.clone())),
                ("b", Arg::F32s(b.clone())),
                ("x", Arg::F32s(x.clone())),
            ],
            &[("out", o)],
        )
        .unwrap();
        assert_eq!(got.arrays[0], widen(&out), "executor, {i}x{o}");
    }
    // An f32 kernel names no f64 anywhere in its body.
    let text = kernel_text("dense");
    assert!(!text.contains("f64"), "{text}");
}

#[test]
fn an_f32_matrix_product_adds_its_terms_in_order() {
    let mut rng = Rng::new(4);
    for (n, k, m) in [(1, 1, 1), (3, 4, 5), (2, 7, 21), (9, 3, 16), (0, 2, 3)] {
        let (a, b) = (f32s(&mut rng, n * k, 1.0), f32s(&mut rng, k * m, 1.0));
        let mut out = vec![0.0f32; mm::out_len(k, n, m)];
        mm(&mut out, &a, &b, k, &mut Region::new()).unwrap();
        let want: Vec<f32> = (0..n * m)
            .map(|e| {
                let (i, j) = (e / m, e % m);
                (0..k).fold(0.0f32, |acc, l| acc + a[i * k + l] * b[l * m + j])
            })
            .collect();
        assert!(same_f32(&out, &want), "{n}x{k}x{m}");
        let got = executed(
            "mm",
            &[
                ("a", Arg::F32s(a.clone())),
                ("b", Arg::F32s(b.clone())),
                ("k", Arg::Usize(k)),
            ],
            &[("out", n * m)],
        )
        .unwrap();
        assert_eq!(got.arrays[0], widen(&out), "executor, {n}x{k}x{m}");
    }
    assert!(!kernel_text("mm").contains("f64"));
}

#[test]
fn f32_math_methods_are_rusts_f32_methods() {
    let mut rng = Rng::new(5);
    let n = 40;
    let mut x = f32s(&mut rng, n, 1.2);
    let y = f32s(&mut rng, n, 3.0);
    x[0] = 0.0;
    x[1] = -0.0;
    x[2] = f32::NAN;
    x[3] = 1.0;
    let mut out = vec![0.0f32; math32::out_len(n)];
    math32(&mut out, &x, &y, &mut Region::new()).unwrap();
    let want: Vec<f32> = (0..n)
        .flat_map(|i| {
            let (a, b) = (x[i], y[i]);
            [
                a.atan2(b),
                a.asin(),
                a.acos(),
                a.atan(),
                a.sinh(),
                a.cosh(),
                a.hypot(b),
                a.cbrt(),
                a.exp2(),
                a.log2(),
                a.log10(),
                a.signum(),
                a.mul_add(b, 1.5),
                // The language's clamp (never panics; a NaN gives lo), not Rust's.
                #[allow(clippy::manual_clamp)]
                a.max(-0.5).min(0.25),
            ]
        })
        .collect();
    assert!(same_f32(&out, &want), "{out:?}\n{want:?}");
    let got = executed(
        "math32",
        &[("x", Arg::F32s(x.clone())), ("y", Arg::F32s(y.clone()))],
        &[("out", n * 14)],
    )
    .unwrap();
    let (g, w) = (&got.arrays[0], widen(&out));
    assert!(
        g.iter()
            .zip(&w)
            .all(|(a, b)| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()),
        "executor"
    );
    // The same methods in f64.
    let (x64, y64) = (widen(&x), widen(&y));
    let mut out = vec![0.0; math64::out_len(n)];
    math64(&mut out, &x64, &y64, &mut Region::new()).unwrap();
    let want: Vec<f64> = (0..n)
        .flat_map(|i| {
            let (a, b) = (x64[i], y64[i]);
            [
                a.atan2(b),
                a.asin(),
                a.acos(),
                a.atan(),
                a.sinh(),
                a.cosh(),
                a.hypot(b),
                a.cbrt(),
                a.exp2(),
                a.log2(),
                a.log10(),
                a.signum(),
                a.mul_add(b, 1.5),
                // The language's clamp (never panics; a NaN gives lo), not Rust's.
                #[allow(clippy::manual_clamp)]
                a.max(-0.5).min(0.25),
            ]
        })
        .collect();
    assert!(
        out.iter()
            .zip(&want)
            .all(|(a, b)| a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan()),
        "{out:?}\n{want:?}"
    );
}

#[test]
fn casts_between_f32_f64_and_usize_follow_rust() {
    let x = vec![0.3f32, -2.7, 1e9, f32::NAN, 3.5];
    let mut out = vec![0.0; 5];
    casts(&mut out, &x, 7, &mut Region::new()).unwrap();
    let k = 7usize;
    let want: Vec<f64> = x
        .iter()
        .map(|&v| (v as f64) * 0.5 + (k as f32 as f64) + ((v * 2.0) as usize as f64))
        .collect();
    assert_close(&out, &want, 0.0);
    assert!(out[3].is_nan());
    let got = executed(
        "casts",
        &[("x", Arg::F32s(x)), ("k", Arg::Usize(7))],
        &[("out", 5)],
    )
    .unwrap();
    assert_eq!(got.arrays[0][..3], out[..3]);
}

#[test]
fn index_arrays_are_checked_once_at_entry() {
    let cams: Vec<f64> = (0..12).map(|v| v as f64).collect(); // 4 cameras of 3
    let pts = vec![10.0, 20.0, 30.0];
    let obs = vec![0, 2, 3, 1, 1, 0, 2, 2];
    let mut out = vec![0.0; 4];
    gather(&mut out, &cams, &pts, &obs, &mut Region::new()).unwrap();
    assert_eq!(out, [1.0 * 30.0, 10.0 * 20.0, 4.0 * 10.0, 7.0 * 30.0]);
    // The loop uses the elements unchecked: the columns are checked at entry, each against
    // the length of the array it indexes.
    let text = kernel_text("gather");
    assert_eq!(text.matches("check_column").count(), 2, "{text}");
    assert!(!text.contains(":: check ("), "{text}");
    // A bad camera in the last observation: the error names it and the cameras' count,
    // and nothing is written (the loop would have written the first three).
    for (bad, at, len) in [(4, 6, 4), (3, 7, 3), (usize::MAX, 1, 3)] {
        let mut obs = obs.clone();
        obs[at] = bad;
        let mut out = vec![-1.0; 4];
        assert_eq!(
            gather(&mut out, &cams, &pts, &obs, &mut Region::new()),
            Err(Error::Index { index: bad, len })
        );
        assert_eq!(out, [-1.0; 4], "out untouched");
        let got = executed(
            "gather",
            &[
                ("cams", Arg::Array(cams.clone())),
                ("pts", Arg::Array(pts.clone())),
                ("obs", Arg::Usizes(obs)),
            ],
            &[("out", 4)],
        );
        assert_eq!(
            got,
            Err(Error::Index { index: bad, len }.to_string()),
            "executor"
        );
    }
    // A whole index array, of f32 values.
    let x = vec![1.5f32, -2.0, 4.25];
    let mut out = vec![0.0f32; 4];
    pick(&mut out, &x, &[2, 0, 0, 1], &mut Region::new()).unwrap();
    assert_eq!(out, [8.5, 3.0, 3.0, -4.0]);
    let mut out = vec![9.0f32; 2];
    assert_eq!(
        pick(&mut out, &x, &[0, 3], &mut Region::new()),
        Err(Error::Index { index: 3, len: 3 })
    );
    assert_eq!(out, [9.0; 2]);
    // No element, no check to fail.
    // Empty literals name their element type (`&[]` alone could be rows of any width).
    pick(&mut [0.0; 0], &[0.0; 0], &[0; 0], &mut Region::new()).unwrap();
}

#[test]
fn a_kernel_returns_usize_data() {
    let mut rng = Rng::new(7);
    for (n, k) in [(0, 3), (1, 1), (5, 4), (9, 17)] {
        let m: Vec<f64> = (0..n * k).map(|_| rng.f64()).collect();
        let mut out = vec![usize::MAX; argmax::out_len(k, n)];
        argmax(&mut out, &m, k, &mut Region::new()).unwrap();
        let want: Vec<usize> = (0..n)
            .map(|r| {
                let row = &m[r * k..(r + 1) * k];
                (0..k).fold(0, |best, j| if row[j] > row[best] { j } else { best })
            })
            .collect();
        assert_eq!(out, want);
        let got = executed(
            "argmax",
            &[("m", Arg::Array(m.clone())), ("k", Arg::Usize(k))],
            &[("out", n)],
        )
        .unwrap();
        let as_f64: Vec<f64> = want.iter().map(|&v| v as f64).collect();
        assert_eq!(got.arrays[0], as_f64);
    }
}

#[test]
fn f64_f32_and_usize_intermediates_share_one_exact_frame() {
    let mut rng = Rng::new(11);
    for n in [1usize, 2, 3, 7, 10] {
        // s: n f64; t: n f32 (ceil(n / 2) slots); u (where the fold's state ends) and the
        // fold's other buffer: 2n usize.
        let slots = n + n.div_ceil(2) + 2 * n;
        assert_eq!(mixed::scratch_len(n), slots, "n = {n}");
        let a: Vec<f64> = (0..n).map(|_| rng.f64()).collect();
        let b = f32s(&mut rng, n, 1.0);
        let idx: Vec<usize> = (0..n).map(|i| (i * 5 + 2) % n).collect();
        let want = {
            let s: Vec<f64> = a.iter().map(|v| v.exp()).collect();
            let t: Vec<f32> = b.iter().map(|v| v.exp()).collect();
            let u: Vec<usize> = (0..n).map(|i| idx[(i + 1) % n]).collect();
            (0..n).fold(0.0, |acc, i| {
                acc + s[u[i]] + s[i] + (t[n - 1 - i] as f64) + (t[i] as f64)
            })
        };
        // Exactly scratch_len slots suffice; one fewer is an error.
        let mut slab = vec![0.0; slots];
        let got = mixed(&a, &b, &idx, 2, &mut Region::from_slab(&mut slab)).unwrap();
        assert_eq!(got, want, "n = {n}");
        let mut short = vec![0.0; slots - 1];
        assert_eq!(
            mixed(&a, &b, &idx, 2, &mut Region::from_slab(&mut short)),
            Err(Error::Scratch {
                needed: slots,
                available: slots - 1
            })
        );
        let ran = executed(
            "mixed",
            &[
                ("a", Arg::Array(a.clone())),
                ("b", Arg::F32s(b.clone())),
                ("idx", Arg::Usizes(idx.clone())),
                ("r", Arg::Usize(2)),
            ],
            &[],
        )
        .unwrap();
        assert_eq!(ran.scalars, [Scalar::F64(want)]);
        // A computed index out of range is an error where it is used.
        let mut bad = idx.clone();
        bad[1 % n] = n;
        assert_eq!(
            mixed(&a, &b, &bad, 2, &mut Region::new()),
            Err(Error::Index { index: n, len: n })
        );
    }
    assert_eq!(mixed::scratch_len(0), 0);
}

#[test]
fn window_counts_are_sizes_checked_as_wholes() {
    for (w, n) in [(1, 0), (3, 2), (5, 4), (3, 3), (2, 7)] {
        let a: Vec<f64> = (0..n).map(|v| v as f64).collect();
        let count = n + 1 - w;
        assert_eq!(windows::out_len(w, n), count * w);
        assert_eq!(wsum::out_len(w, n), count);
        let mut out = vec![0.0; count * w];
        windows(&mut out, w, &a, &mut Region::new()).unwrap();
        let want: Vec<f64> = (0..count).flat_map(|i| a[i..i + w].to_vec()).collect();
        assert_eq!(out, want);
        let mut sums = vec![0.0; count];
        wsum(&mut sums, w, &a, &mut Region::new()).unwrap();
        let want: Vec<f64> = (0..count).map(|i| a[i..i + w].iter().sum()).collect();
        assert_eq!(sums, want, "w = {w}, n = {n}");
        let got = executed(
            "wsum",
            &[("w", Arg::Usize(w)), ("a", Arg::Array(a.clone()))],
            &[("out", count)],
        )
        .unwrap();
        assert_eq!(got.arrays[0], want);
    }
    // Fewer than w - 1 elements: a negative count, an error before anything is written.
    let mut out = vec![5.0; 0];
    assert!(matches!(
        windows(&mut out, 4, &[1.0, 2.0], &mut Region::new()),
        Err(Error::Arithmetic { .. })
    ));
    assert_eq!(windows::out_len(4, 2), 0, "saturates in the const fn");
}
