//! Generated code against the reference interpreter (`fsmooth_eval::interp`), on random
//! inputs of several sizes: stencils, a network layer, a Kalman step, `ifold` with an array
//! state, slices, size arithmetic, closures.

#[macro_use]
mod common;
use common::*;
use fsmooth::Region;

mod k {
    block! {
        /// Three-point stencil: `s` has several readers, so it is stored once.
        pub fn stencil(a: [f64; n]) -> [f64; n - 2] {
            let s = smul(a, 0.5);
            build(n - 2, |i| s[i] + 2.0 * s[i + 1] + s[i + 2])
        }

        /// Separable 3x3 box blur.
        pub fn blur(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h - 2] {
            let rows = build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 1] + img[y][x + 2]));
            build(h - 2, |y| build(w - 2, |x| (rows[y][x] + rows[y + 1][x] + rows[y + 2][x]) / 9.0))
        }

        fn softmax(v: [f64; n]) -> [f64; n] {
            let mx = vmax(v);
            let e = map(v, |x| (x - mx).exp());
            smul(e, 1.0 / sum(e))
        }

        /// A dense layer with softmax.
        pub fn layer(w: [[f64; i]; o], b: [f64; o], x: [f64; i]) -> [f64; o] {
            softmax(add(matvec(w, x), b))
        }

        /// Two tanh layers.
        pub fn mlp(w1: [[f64; i]; hid], w2: [[f64; hid]; o], x: [f64; i]) -> [f64; o] {
            let h1 = map(matvec(w1, x), |v| v.tanh());
            map(matvec(w2, h1), |v| v.tanh())
        }

        fn predict_p(p: [[f64; n]; n], f: [[f64; n]; n], q: [[f64; n]; n]) -> [[f64; n]; n] {
            madd(matmul(matmul(f, p), transpose(f)), q)
        }

        /// Kalman filter step with a scalar measurement z = h . x + noise(r): the state.
        pub fn kalman_x(
            x: [f64; n], p: [[f64; n]; n], f: [[f64; n]; n], q: [[f64; n]; n],
            h: [f64; n], r: f64, z: f64,
        ) -> [f64; n] {
            let xp = matvec(f, x);
            let pp = predict_p(p, f, q);
            let ph = matvec(pp, h);
            let s = dot(h, ph) + r;
            add(xp, smul(ph, (z - dot(h, xp)) / s))
        }

        /// The same step: the covariance.
        pub fn kalman_p(
            p: [[f64; n]; n], f: [[f64; n]; n], q: [[f64; n]; n], h: [f64; n], r: f64,
        ) -> [[f64; n]; n] {
            let pp = predict_p(p, f, q);
            let ph = matvec(pp, h);
            let s = dot(h, ph) + r;
            msub(pp, msmul(outer(ph, ph), 1.0 / s))
        }

        /// `ifold` with an array state: exponential smoothing over the rows of `x`.
        pub fn smooth(x: [[f64; d]; t], d: usize, alpha: f64) -> [f64; d] {
            ifold(t, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha)))
        }

        /// Power iteration, `iters` given as a size.
        pub fn power(a: [[f64; n]; n], v0: [f64; n], iters: usize) -> [f64; n] {
            ifold(iters, v0, |v, _it| {
                let u = matvec(a, v);
                smul(u, 1.0 / norm(u))
            })
        }

        /// Sliding-window sums: slices whose bounds move with the loop.
        pub fn windows(v: [f64; n], w: usize) -> [f64; n + 1 - w] {
            build(n + 1 - w, |i| sum(v[i..i + w]))
        }

        /// Rotation by one with `%`; array literals; nested literals.
        pub fn rotate(v: [f64; n]) -> [f64; n] {
            build(n, |i| v[(i + 1) % n])
        }

        pub fn pairs(a: [f64; 2], b: [f64; 2]) -> [[f64; 2]; 2] {
            [[a[0], b[0]], [a[1] * 2.0, b[1].powi(3)]]
        }

        /// Closures capturing a scalar; the math methods.
        pub fn affine(a: [f64; n], b: [f64; n], s: f64) -> [f64; n] {
            map2(a, b, |x, y| (x * s + y).abs().sqrt().min(2.0).max(-1.0) + x.sin() * y.cos())
        }

        /// `if` on sizes and data, `else if` chains.
        pub fn clamp_sum(a: [f64; n], lo: f64, hi: f64) -> f64 {
            let clamped = build(n, |i| if a[i] < lo { lo } else if a[i] > hi { hi } else { a[i] });
            if n > 3 { sum(clamped) } else { 0.0 - sum(clamped) }
        }

        /// Size arithmetic in types and a helper generic in its sizes.
        fn concat(a: [f64; n], b: [f64; m]) -> [f64; n + m] {
            build(n + m, |i| if i < n { a[i] } else { b[i - n] })
        }

        pub fn twice_concat(a: [f64; n], b: [f64; m]) -> [f64; 2 * (n + m)] {
            concat(concat(a, b), concat(a, b))
        }

        /// Lower triangle packing: sizes divided exactly.
        pub fn tri(m: [[f64; d]; d]) -> [f64; d * (d + 1) / 2] {
            build(d * (d + 1) / 2, |k| {
                let row = ifold(d, 0, |r, j| if (j + 1) * (j + 2) / 2 <= k { j + 1 } else { r });
                m[row][k - row * (row + 1) / 2]
            })
        }

        /// A cubic array.
        pub fn trace3(t: [[[f64; n]; n]; n]) -> f64 {
            ifold(n, 0.0, |acc, i| acc + t[i][i][i])
        }

        /// Logsumexp of rows, and data-dependent indexing checked at run time.
        pub fn lse_rows(m: [[f64; c]; r], c: usize, pick: f64) -> [f64; r] {
            build(r, |i| logsumexp(m[i]) + m[i][(pick as usize) % c])
        }
    }
}

fn mat(rng: &mut Rng, rows: usize, cols: usize) -> (Vec<f64>, Value) {
    let v = rng.vec(rows * cols);
    let val = Value::matrix(&v, cols);
    (v, val)
}

#[test]
fn stencils_and_blur() {
    let mut rng = Rng::new(21);
    let mut region = Region::new();
    for n in [2, 3, 10, 33] {
        let a = rng.vec(n);
        let mut out = vec![0.0; n - 2];
        k::stencil(&mut out, &a, &mut region).unwrap();
        assert_close(
            &out,
            &reference(k::SRC, "stencil", &[Value::vec(&a)]),
            1e-12,
        );
    }
    for (w, h) in [(3, 3), (5, 4), (17, 9)] {
        let (img, val) = mat(&mut rng, h, w);
        let mut out = vec![0.0; (w - 2) * (h - 2)];
        k::blur(&mut out, &img, w, &mut region).unwrap();
        assert_close(
            &out,
            &reference(k::SRC, "blur", &[val, Value::Usize(w)]),
            1e-12,
        );
    }
}

#[test]
fn network_layers() {
    let mut rng = Rng::new(22);
    let mut region = Region::new();
    for (i, o) in [(1, 1), (4, 3), (16, 10)] {
        let (w, wv) = mat(&mut rng, o, i);
        let (b, x) = (rng.vec(o), rng.vec(i));
        let mut out = vec![0.0; o];
        k::layer(&mut out, &w, &b, &x, &mut region).unwrap();
        let want = reference(k::SRC, "layer", &[wv, Value::vec(&b), Value::vec(&x)]);
        assert_close(&out, &want, 1e-12);
        assert!((out.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let hid = 5;
        let (w1, w1v) = mat(&mut rng, hid, i);
        let (w2, w2v) = mat(&mut rng, o, hid);
        k::mlp(&mut out, &w1, &w2, &x, &mut region).unwrap();
        let want = reference(k::SRC, "mlp", &[w1v, w2v, Value::vec(&x)]);
        assert_close(&out, &want, 1e-12);
    }
}

#[test]
fn kalman_step() {
    let mut rng = Rng::new(23);
    let mut region = Region::new();
    for n in [1, 2, 4, 6] {
        let x = rng.vec(n);
        let (p, pv) = mat(&mut rng, n, n);
        let (f, fv) = mat(&mut rng, n, n);
        let (q, qv) = mat(&mut rng, n, n);
        let h = rng.vec(n);
        let (r, z) = (2.0 + rng.f64(), rng.f64());
        let mut xo = vec![0.0; n];
        k::kalman_x(&mut xo, &x, &p, &f, &q, &h, r, z, &mut region).unwrap();
        let args = [
            Value::vec(&x),
            pv.clone(),
            fv.clone(),
            qv.clone(),
            Value::vec(&h),
            Value::F64(r),
            Value::F64(z),
        ];
        assert_close(&xo, &reference(k::SRC, "kalman_x", &args), 1e-10);
        let mut po = vec![0.0; n * n];
        k::kalman_p(&mut po, &p, &f, &q, &h, r, &mut region).unwrap();
        let args = [pv, fv, qv, Value::vec(&h), Value::F64(r)];
        assert_close(&po, &reference(k::SRC, "kalman_p", &args), 1e-10);
    }
}

#[test]
fn ifold_with_array_state() {
    let mut rng = Rng::new(24);
    let mut region = Region::new();
    for (d, t) in [(1, 1), (3, 5), (8, 20)] {
        let (x, xv) = mat(&mut rng, t, d);
        let mut out = vec![0.0; d];
        k::smooth(&mut out, &x, d, 0.3, &mut region).unwrap();
        assert_close(
            &out,
            &reference(k::SRC, "smooth", &[xv, Value::Usize(d), Value::F64(0.3)]),
            1e-12,
        );
        // Each new element reads only its own old one: the state updated in place in the
        // output, no scratch whatever the number of steps.
        assert_eq!(k::smooth::scratch_len(d, t), 0);
    }
    for (n, iters) in [(2, 0), (3, 1), (5, 30)] {
        let (a, av) = mat(&mut rng, n, n);
        let v0 = rng.vec(n);
        let mut out = vec![0.0; n];
        k::power(&mut out, &a, &v0, iters, &mut region).unwrap();
        let want = reference(k::SRC, "power", &[av, Value::vec(&v0), Value::Usize(iters)]);
        assert_close(&out, &want, 1e-10);
    }
}

#[test]
fn slices_literals_rotation_closures() {
    let mut rng = Rng::new(25);
    let mut region = Region::new();
    for (n, w) in [(1, 1), (5, 2), (9, 9), (12, 4)] {
        let v = rng.vec(n);
        let mut out = vec![0.0; n + 1 - w];
        k::windows(&mut out, &v, w, &mut region).unwrap();
        assert_close(
            &out,
            &reference(k::SRC, "windows", &[Value::vec(&v), Value::Usize(w)]),
            1e-12,
        );
        let mut rot = vec![0.0; n];
        k::rotate(&mut rot, &v, &mut region).unwrap();
        assert_close(&rot, &reference(k::SRC, "rotate", &[Value::vec(&v)]), 0.0);
        let b = rng.vec(n);
        k::affine(&mut rot, &v, &b, 1.5, &mut region).unwrap();
        let want = reference(
            k::SRC,
            "affine",
            &[Value::vec(&v), Value::vec(&b), Value::F64(1.5)],
        );
        assert_close(&rot, &want, 1e-12);
        let s = k::clamp_sum(&v, -0.5, 0.5, &mut region).unwrap();
        let want = reference(
            k::SRC,
            "clamp_sum",
            &[Value::vec(&v), Value::F64(-0.5), Value::F64(0.5)],
        );
        assert_close(&[s], &want, 1e-12);
    }
    let mut p = [0.0; 4];
    k::pairs(&mut p, &[1.0, 2.0], &[3.0, 4.0], &mut region).unwrap();
    assert_eq!(p, [1.0, 3.0, 4.0, 64.0]);
}

#[test]
fn size_arithmetic_and_higher_rank() {
    let mut rng = Rng::new(26);
    let mut region = Region::new();
    for (n, m) in [(0, 1), (2, 3), (4, 0)] {
        let (a, b) = (rng.vec(n), rng.vec(m));
        let mut out = vec![0.0; 2 * (n + m)];
        k::twice_concat(&mut out, &a, &b, &mut region).unwrap();
        let want = reference(k::SRC, "twice_concat", &[Value::vec(&a), Value::vec(&b)]);
        assert_close(&out, &want, 0.0);
        assert_eq!(k::twice_concat::out_len(n, m), 2 * (n + m));
    }
    for d in [1, 2, 5] {
        let (m, mv) = mat(&mut rng, d, d);
        let mut out = vec![0.0; d * (d + 1) / 2];
        k::tri(&mut out, &m, &mut region).unwrap();
        assert_close(&out, &reference(k::SRC, "tri", &[mv]), 0.0);
    }
    let n = 3;
    let t = rng.vec(n * n * n);
    let tv = Value::Array(
        (0..n)
            .map(|i| Value::matrix(&t[i * n * n..(i + 1) * n * n], n))
            .collect(),
    );
    let got = k::trace3(&t, &mut region).unwrap();
    assert_close(&[got], &reference(k::SRC, "trace3", &[tv]), 1e-12);
    let (m, mv) = mat(&mut rng, 4, 3);
    let mut out = vec![0.0; 4];
    k::lse_rows(&mut out, &m, 3, 7.0, &mut region).unwrap();
    assert_close(
        &out,
        &reference(k::SRC, "lse_rows", &[mv, Value::Usize(3), Value::F64(7.0)]),
        1e-12,
    );
}

/// Compiler bugs the executor's 10^5-program run found (`fsmooth-core/tests/exec_differential.rs`
/// runs the same sources through the executor).
mod found {
    block! {
        /// Fusion dropped `v2`'s binding: its reads index with the outer loop's `i1`, and the
        /// same-element rule looked for that loop inside the `let` (the compiler then
        /// recursed until the stack overflowed).
        pub fn outer_index(a: [f64; n], b: [f64; m]) -> [[f64; m]; n] {
            build(n, |i1| (outer({ let v2 = map(a, |_q3| b[0 % m]); emul(v2, v2) }, b))[i1])
        }

        /// A fill of the frame read the frame through an outer loop's stream (`acc7[i9]`),
        /// a borrow rustc rejects.
        pub fn fill_reads_its_buffer(b: [f64; m], s: f64, p: usize) -> [f64; m] {
            ifold(m, b, |acc7, _i8| add(smul(acc7, 0.5), build(m, |i9| {
                let r = if s < 2.5 { map(build(p, |_z| s), |_q10| acc7[i9]) } else { build(p, |_z| s) };
                dot(r, build(p, |_z| s + 1.0))
            })))
        }
    }
}

/// Compiler bugs the run of the generator with tuples, scans and views found.
mod found_v2 {
    block! {
        /// `map` over rows `[f64; n]` (of `transpose(c)`): the checker renamed the caller's
        /// `n` inside the rows' type to the `m` that `map`'s own `n` stands for, and
        /// rejected the argument.
        pub fn rows_of_transpose(c: [[f64; m]; n], m: usize) -> [f64; m] {
            map(transpose(c), |row| sum(row) * row[0])
        }

        /// A costly call on a scan's state, inside a build, was taken for invariant and
        /// moved out of the build, out of its variable's scope.
        pub fn scan_state_call(b: [f64; m], n: usize) -> [[f64; m]; n] {
            build(n, |_i| scan(m, 1.5, |x, l| x * 0.5 + x.cos() * b[l]))
        }

        /// A `concat` read at an index that binds a variable of its own: the choice of
        /// part copied the index, and with it the binding (bound twice, found by the rustc
        /// run of issue 18's typed programs).
        pub fn concat_index_binds(a: [f64; n], b: [f64; m]) -> [f64; m] {
            build(m, |i| concat(a, b)[build(m, |z| z * 2)[(i + 1) % m] % (n + m)])
        }

        /// A load whose index stores into the buffer it loads from (both literals are in
        /// the frame): `ld(scratch, ..)` borrowed the frame while the index wrote it.
        pub fn index_writes_its_buffer(a: [f64; n], s: f64) -> f64 {
            [s, 1.5, -0.5][(([s, 1.5, -0.5][n % 3]).abs().min(2.0) as usize) % 3] + a[0]
        }
    }
}

/// The same run, unfused.
mod found_v2_unfused {
    block! {
        #![fsmooth(fusion = false)]
        /// Zero windows mapped into a buffer of no slots: the code filling and reading it
        /// named a frame that was never taken (`scratch`, an unknown name to rustc).
        pub fn zero_windows(c: [[f64; m]; n], m: usize, s: f64) -> f64 {
            sum(map(slide(3, [s, 0.5]), |_w| c[0][0])) + s
        }
    }
}

#[test]
fn regressions_from_the_executor_run() {
    let mut rng = Rng::new(99);
    let mut region = Region::new();
    for (n, m, p) in [(1, 1, 0), (3, 2, 2), (4, 5, 3)] {
        let (a, b) = (rng.vec(n), rng.vec(m));
        let mut out = vec![0.0; n * m];
        found::outer_index(&mut out, &a, &b, &mut region).unwrap();
        let args = [Value::vec(&a), Value::vec(&b)];
        assert_close(&out, &reference(found::SRC, "outer_index", &args), 1e-12);
        let mut out = vec![0.0; m];
        let s = if p == 2 { 3.0 } else { 0.5 };
        found::fill_reads_its_buffer(&mut out, &b, s, p, &mut region).unwrap();
        let args = [Value::vec(&b), Value::F64(s), Value::Usize(p)];
        assert_close(
            &out,
            &reference(found::SRC, "fill_reads_its_buffer", &args),
            1e-12,
        );
    }
    for (n, m) in [(1, 1), (3, 2), (2, 5)] {
        let (c, cv) = mat(&mut rng, n, m);
        let mut out = vec![0.0; m];
        found_v2::rows_of_transpose(&mut out, &c, m, &mut region).unwrap();
        let args = [cv.clone(), Value::Usize(m)];
        assert_close(
            &out,
            &reference(found_v2::SRC, "rows_of_transpose", &args),
            1e-12,
        );
        let b = rng.vec(m);
        let mut out = vec![0.0; n * m];
        found_v2::scan_state_call(&mut out, &b, n, &mut region).unwrap();
        let args = [Value::vec(&b), Value::Usize(n)];
        assert_close(
            &out,
            &reference(found_v2::SRC, "scan_state_call", &args),
            1e-12,
        );
        assert_eq!(found_v2_unfused::zero_windows::scratch_len(m, n), 0);
        let got = found_v2_unfused::zero_windows(&c, m, 0.25, &mut region).unwrap();
        let args = [cv, Value::Usize(m), Value::F64(0.25)];
        assert_close(
            &[got],
            &reference(found_v2_unfused::SRC, "zero_windows", &args),
            0.0,
        );
        let a = rng.vec(n);
        let mut out = vec![0.0; m];
        found_v2::concat_index_binds(&mut out, &a, &b, &mut region).unwrap();
        let args = [Value::vec(&a), Value::vec(&b)];
        assert_close(
            &out,
            &reference(found_v2::SRC, "concat_index_binds", &args),
            0.0,
        );
        let got = found_v2::index_writes_its_buffer(&a, -0.75, &mut region).unwrap();
        let args = [Value::vec(&a), Value::F64(-0.75)];
        assert_close(
            &[got],
            &reference(found_v2::SRC, "index_writes_its_buffer", &args),
            0.0,
        );
    }
}

/// Index arrays, usize results and f32 kernels (LANGUAGE.md sections 10 and 11), called with
/// `&[usize]`, `&[f32]`, `&mut [f32]` and `&mut [usize]`, against the interpreter: usize
/// results exactly, f32 ones within a tolerance suited to f32.
mod typed {
    block! {
        /// A gather, and one through the two columns of an observation table.
        pub fn gather(a: [f64; n], idx: [usize; g]) -> [f64; g] { build(g, |j| a[idx[j]]) }

        pub fn reproj(cams: [[f64; 3]; nc], pts: [f64; np], obs: [[usize; 2]; p]) -> [f64; p] {
            build(p, |j| cams[obs[j][0]][1] * pts[obs[j][1]] - cams[obs[j][0]][2])
        }

        /// The argmax of each row, and the row's value there.
        pub fn argmax(m: [[f64; c]; r], c: usize) -> ([usize; r], [f64; r]) {
            let am = build(r, |i| ifold(c, 0, |best, j| if m[i][j] > m[i][best] { j } else { best }));
            (am, build(r, |i| m[i][am[i]]))
        }

        /// Neighbours that stay in range, and bounded floats as indexes.
        pub fn neighbours(a: [f64; n], x: [f64; n]) -> ([f64; n], [usize; n]) {
            (build(n, |i| a[(i + 1).min(n - 1)] - a[(i * 2).clamp(1, n - 1)]),
             build(n, |i| (x[i].abs().min((n - 1) as f64)) as usize))
        }

        /// f32 throughout: literals by context and suffixed, math methods, a scan.
        pub fn saxpy(x: [f32; n], y: [f32; n], a: f32) -> [f32; n] {
            build(n, |i| a * x[i] + y[i] * 0.5 + 0.25f32)
        }

        pub fn biquad(x: [f32; n], b0: f32, b1: f32, a1: f32) -> [f32; n] {
            scan(n, (0.0, 0.0), |(y, xp), i| (b0 * x[i] + b1 * xp - a1 * y, x[i])).0
        }

        pub fn shape(y: [f32; n], x: [f32; n]) -> (f32, [f32; n]) {
            (sum(map(x, |v| v.abs().sqrt() * 2.0)),
             map2(y, x, |a, b| a.atan2(b).clamp(-1.0, 1.0) + a.hypot(b).cbrt() + a.mul_add(b, 1.0)))
        }

        /// f32 and f64 side by side, through casts.
        pub fn mixed(x: [f32; n], s: f64) -> (f64, [f32; n]) {
            ((sum(x) as f64) * s, map(x, |v| ((v as f64).exp() * s) as f32))
        }
    }
}

#[test]
fn index_arrays_usize_results_and_f32_kernels() {
    let mut rng = Rng::new(27);
    let mut region = Region::new();
    let f32s = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<f32>>();
    let widen = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<f64>>();
    let usizes = |v: &[usize]| v.iter().map(|&k| k as f64).collect::<Vec<f64>>();
    for n in [1, 2, 5, 17] {
        let a = rng.vec(n);
        let idx: Vec<usize> = (0..2 * n).map(|k| (k * 7) % n).collect();
        let mut out = vec![0.0; idx.len()];
        typed::gather(&mut out, &a, &idx, &mut region).unwrap();
        let want = reference(typed::SRC, "gather", &[Value::vec(&a), Value::usizes(&idx)]);
        assert_close(&out, &want, 0.0);
        // A bad index is an error before anything is written.
        let bad = [0, n];
        let mut out = vec![7.0; 2];
        let e = typed::gather(&mut out, &a, &bad, &mut region).unwrap_err();
        assert!(
            matches!(e, fsmooth::Error::Index { index, len } if index == n && len == n),
            "{e:?}"
        );
        assert_eq!(out, [7.0, 7.0]);

        let (cams, pts) = (rng.vec(3 * n), rng.vec(n + 1));
        let obs: Vec<usize> = (0..n).flat_map(|j| [j % n, (j * 3) % (n + 1)]).collect();
        let mut out = vec![0.0; n];
        typed::reproj(&mut out, &cams, &pts, &obs, &mut region).unwrap();
        let args = [
            Value::matrix(&cams, 3),
            Value::vec(&pts),
            Value::usize_matrix(&obs, 2),
        ];
        assert_close(&out, &reference(typed::SRC, "reproj", &args), 1e-12);

        let m = rng.vec(n * 3);
        let (mut am, mut at) = (vec![0usize; n], vec![0.0; n]);
        typed::argmax(&mut am, &mut at, &m, 3, &mut region).unwrap();
        let want = reference_parts(
            typed::SRC,
            "argmax",
            &[Value::matrix(&m, 3), Value::Usize(3)],
        )
        .unwrap();
        assert_eq!(usizes(&am), want[0]);
        assert_eq!(at, want[1]);

        let x: Vec<f64> = rng.vec(n).iter().map(|v| v * 3.0 * n as f64).collect();
        let (mut nb, mut ks) = (vec![0.0; n], vec![0usize; n]);
        typed::neighbours(&mut nb, &mut ks, &a, &x, &mut region).unwrap();
        let want =
            reference_parts(typed::SRC, "neighbours", &[Value::vec(&a), Value::vec(&x)]).unwrap();
        assert_close(&nb, &want[0], 0.0);
        assert_eq!(usizes(&ks), want[1]);

        let (x32, y32) = (f32s(&rng.vec(n)), f32s(&rng.vec(n)));
        let mut out = vec![0.0f32; n];
        typed::saxpy(&mut out, &x32, &y32, 1.5, &mut region).unwrap();
        let want = reference(
            typed::SRC,
            "saxpy",
            &[Value::vec_f32(&x32), Value::vec_f32(&y32), Value::F32(1.5)],
        );
        assert_close(&widen(&out), &want, 1e-5);
        typed::biquad(&mut out, &x32, 0.5, 0.25, -0.5, &mut region).unwrap();
        let args = [
            Value::vec_f32(&x32),
            Value::F32(0.5),
            Value::F32(0.25),
            Value::F32(-0.5),
        ];
        assert_close(&widen(&out), &reference(typed::SRC, "biquad", &args), 1e-5);
        let s = typed::shape(&mut out, &y32, &x32, &mut region).unwrap();
        let want = reference_parts(
            typed::SRC,
            "shape",
            &[Value::vec_f32(&y32), Value::vec_f32(&x32)],
        )
        .unwrap();
        assert_close(&[f64::from(s)], &want[0], 1e-5);
        assert_close(&widen(&out), &want[1], 1e-5);
        let t = typed::mixed(&mut out, &x32, 0.75, &mut region).unwrap();
        let want = reference_parts(
            typed::SRC,
            "mixed",
            &[Value::vec_f32(&x32), Value::F64(0.75)],
        )
        .unwrap();
        assert_close(&[t], &want[0], 1e-12);
        assert_close(&widen(&out), &want[1], 1e-5);
    }
}
