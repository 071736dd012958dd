//! LANGUAGE.md section 13 ("The same program, however it is written") as a new user reads it,
//! written from the contract alone: every kernel below is run at two data sizes, its results
//! checked against plain Rust, and its `scratch_len` (section 5: "the exact number of f64
//! scratch slots the call needs") checked against what section 13 says the program costs.
//! Every call runs in a slab of exactly `scratch_len` slots, so an under-estimate shows up as
//! `Error::Scratch`.
//!
//! Expectations that the contract does not state are marked "(not in the contract:
//! expectation)".

use fsmooth::{Region, fsmooth};

mod k {
    use super::fsmooth;

    fsmooth! {
        // ------------------------------------------------------------------ helpers
        fn axpy_step(x: [f64; n], p: [f64; n], a: f64) -> [f64; n] {
            build(n, |i| x[i] + a * p[i])
        }

        fn ema_step(s: [f64; d], yk: [f64; d], beta: f64) -> [f64; d] {
            build(d, |j| beta * yk[j] + (1.0 - beta) * s[j])
        }

        fn wf_step(mean: [f64; d], m2: [f64; d], xk: [f64; d], c: f64) -> ([f64; d], [f64; d]) {
            let delta = sub(xk, mean);
            let mean2 = build(d, |j| mean[j] + delta[j] / c);
            (mean2, build(d, |j| m2[j] + delta[j] * (xk[j] - mean2[j])))
        }

        fn vmax2(a: [f64; d], b: [f64; d]) -> [f64; d] {
            map2(a, b, |u, v| u.max(v))
        }

        /// The 1-D Poisson matrix tridiag(-1, 2, -1) times p.
        fn poisson(p: [f64; n]) -> [f64; n] {
            build(n, |i| {
                let l = if i > 0 { p[i - 1] } else { 0.0 };
                let r = if i + 1 < n { p[i + 1] } else { 0.0 };
                2.0 * p[i] - l - r
            })
        }

        fn cg_step(x: [f64; n], r: [f64; n], p: [f64; n], rs: f64)
            -> ([f64; n], [f64; n], [f64; n], f64) {
            let ap = poisson(p);
            let alpha = rs / dot(p, ap);
            let r2 = sub(r, smul(ap, alpha));
            let rs2 = dot(r2, r2);
            (add(x, smul(p, alpha)), r2, add(r2, smul(p, rs2 / rs)), rs2)
        }

        /// Periodic diffusion: a 3-point stencil.
        fn diffuse(u: [f64; n], c: f64) -> [f64; n] {
            build(n, |i| u[i] + c * (u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]))
        }

        fn half(v: [f64; m]) -> [f64; m / 2] {
            build(m / 2, |i| 0.5 * (v[2 * i] + v[2 * i + 1]))
        }

        fn sqdist(a: [f64; n], b: [f64; n]) -> f64 {
            sum(build(n, |i| (a[i] - b[i]) * (a[i] - b[i])))
        }

        fn row_term(row: [f64; d], mu: [f64; d]) -> f64 {
            let e = sub(row, mu);
            dot(e, e)
        }

        fn gauss(row: [f64; d], mu: [f64; d]) -> f64 {
            let e = sub(row, mu);
            (-0.5 * dot(e, e)).exp()
        }

        /// A normalising step: reads the whole old state through a scalar, then each element
        /// of the new state reads only the same element of the old one.
        fn nstep(x: [f64; n], p: [f64; n]) -> [f64; n] {
            let s = 1.0 / norm(x);
            build(n, |i| x[i] * s + p[i])
        }

        // ------------------------------------------------------------------ x + alpha * p
        pub fn axpy_prelude(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> [f64; n] {
            ifold(steps, x0, |x, _| add(x, smul(p, alpha)))
        }
        pub fn axpy_build(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> [f64; n] {
            ifold(steps, x0, |x, _| build(n, |i| x[i] + alpha * p[i]))
        }
        pub fn axpy_map2(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> [f64; n] {
            ifold(steps, x0, |x, _| map2(x, p, |a, b| a + alpha * b))
        }
        pub fn axpy_helper(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> [f64; n] {
            ifold(steps, x0, |x, _| axpy_step(x, p, alpha))
        }
        pub fn axpy_lets(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> [f64; n] {
            ifold(steps, x0, |x, _| {
                let d = smul(p, alpha);
                let y = add(x, d);
                y
            })
        }
        pub fn axpy_let_outside(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> [f64; n] {
            let d = smul(p, alpha);
            ifold(steps, x0, |x, _| add(x, d))
        }

        pub fn axpy_nr_prelude(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> f64 {
            sqnorm(ifold(steps, x0, |x, _| add(x, smul(p, alpha))))
        }
        pub fn axpy_nr_build(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> f64 {
            sqnorm(ifold(steps, x0, |x, _| build(n, |i| x[i] + alpha * p[i])))
        }
        pub fn axpy_nr_map2(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> f64 {
            sqnorm(ifold(steps, x0, |x, _| map2(x, p, |a, b| a + alpha * b)))
        }
        pub fn axpy_nr_helper(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> f64 {
            sqnorm(ifold(steps, x0, |x, _| axpy_step(x, p, alpha)))
        }
        pub fn axpy_nr_lets(x0: [f64; n], p: [f64; n], alpha: f64, steps: usize) -> f64 {
            let xf = ifold(steps, x0, |x, _| {
                let d = smul(p, alpha);
                let y = add(x, d);
                y
            });
            sqnorm(xf)
        }

        // ------------------------------------------------------------------ exponential smoothing
        pub fn ema_build(d: usize, y: [[f64; d]; t], beta: f64) -> [f64; d] {
            ifold(t, y[0], |s, k| build(d, |j| beta * y[k][j] + (1.0 - beta) * s[j]))
        }
        pub fn ema_prelude(d: usize, y: [[f64; d]; t], beta: f64) -> [f64; d] {
            ifold(t, y[0], |s, k| add(smul(y[k], beta), smul(s, 1.0 - beta)))
        }
        pub fn ema_map2(d: usize, y: [[f64; d]; t], beta: f64) -> [f64; d] {
            ifold(t, y[0], |s, k| map2(s, y[k], |a, b| beta * b + (1.0 - beta) * a))
        }
        pub fn ema_helper(d: usize, y: [[f64; d]; t], beta: f64) -> [f64; d] {
            ifold(t, y[0], |s, k| ema_step(s, y[k], beta))
        }
        pub fn ema_lets(d: usize, y: [[f64; d]; t], beta: f64) -> [f64; d] {
            ifold(t, y[0], |s, k| {
                let keep = 1.0 - beta;
                let yk = y[k];
                let fresh = smul(yk, beta);
                build(d, |j| fresh[j] + keep * s[j])
            })
        }
        pub fn ema_nr_build(d: usize, y: [[f64; d]; t], beta: f64) -> f64 {
            sum(ifold(t, y[0], |s, k| build(d, |j| beta * y[k][j] + (1.0 - beta) * s[j])))
        }
        pub fn ema_nr_prelude(d: usize, y: [[f64; d]; t], beta: f64) -> f64 {
            sum(ifold(t, y[0], |s, k| add(smul(y[k], beta), smul(s, 1.0 - beta))))
        }
        pub fn ema_nr_helper(d: usize, y: [[f64; d]; t], beta: f64) -> f64 {
            let s = ifold(t, y[0], |s, k| ema_step(s, y[k], beta));
            sum(s)
        }

        // ------------------------------------------------------------------ Welford per feature
        pub fn wf_pattern(d: usize, x: [[f64; d]; t]) -> ([f64; d], [f64; d]) {
            ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), k| {
                let c = (k + 1) as f64;
                let delta = build(d, |j| x[k][j] - mean[j]);
                let mean2 = build(d, |j| mean[j] + delta[j] / c);
                let m22 = build(d, |j| m2[j] + delta[j] * (x[k][j] - mean2[j]));
                (mean2, m22)
            })
        }
        pub fn wf_proj(d: usize, x: [[f64; d]; t]) -> ([f64; d], [f64; d]) {
            ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |st, k| {
                let c = (k + 1) as f64;
                let mean2 = build(d, |j| st.0[j] + (x[k][j] - st.0[j]) / c);
                (mean2, build(d, |j| st.1[j] + (x[k][j] - st.0[j]) * (x[k][j] - mean2[j])))
            })
        }
        pub fn wf_prelude(d: usize, x: [[f64; d]; t]) -> ([f64; d], [f64; d]) {
            ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), k| {
                let delta = sub(x[k], mean);
                let mean2 = add(mean, smul(delta, 1.0 / ((k + 1) as f64)));
                (mean2, add(m2, emul(delta, sub(x[k], mean2))))
            })
        }
        pub fn wf_helper(d: usize, x: [[f64; d]; t]) -> ([f64; d], [f64; d]) {
            ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), k| {
                wf_step(mean, m2, x[k], (k + 1) as f64)
            })
        }
        /// The new state written inline in the tuple: its second component reads the OLD mean.
        pub fn wf_inline(d: usize, x: [[f64; d]; t]) -> ([f64; d], [f64; d]) {
            ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), k| (
                build(d, |j| mean[j] + (x[k][j] - mean[j]) / ((k + 1) as f64)),
                build(d, |j| m2[j] + (x[k][j] - mean[j])
                    * (x[k][j] - (mean[j] + (x[k][j] - mean[j]) / ((k + 1) as f64))))
            ))
        }

        pub fn wf_var_pattern(d: usize, x: [[f64; d]; t]) -> ([f64; d], [f64; d]) {
            let (mean, m2) = ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), k| {
                wf_step(mean, m2, x[k], (k + 1) as f64)
            });
            (mean, build(d, |j| m2[j] / (t as f64)))
        }
        pub fn wf_var_proj(d: usize, x: [[f64; d]; t]) -> ([f64; d], [f64; d]) {
            let w = ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |st, k| {
                let c = (k + 1) as f64;
                let mean2 = build(d, |j| st.0[j] + (x[k][j] - st.0[j]) / c);
                (mean2, build(d, |j| st.1[j] + (x[k][j] - st.0[j]) * (x[k][j] - mean2[j])))
            });
            (w.0, build(d, |j| w.1[j] / (t as f64)))
        }
        pub fn wf_var_inline(d: usize, x: [[f64; d]; t]) -> ([f64; d], [f64; d]) {
            let (mean, m2) = ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), k| (
                build(d, |j| mean[j] + (x[k][j] - mean[j]) / ((k + 1) as f64)),
                build(d, |j| m2[j] + (x[k][j] - mean[j])
                    * (x[k][j] - (mean[j] + (x[k][j] - mean[j]) / ((k + 1) as f64))))
            ));
            (mean, build(d, |j| m2[j] / (t as f64)))
        }

        pub fn wf_nr_pattern(d: usize, x: [[f64; d]; t]) -> f64 {
            let (mean, m2) = ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), k| {
                wf_step(mean, m2, x[k], (k + 1) as f64)
            });
            sum(mean) + sum(m2) / (t as f64)
        }
        pub fn wf_nr_build(d: usize, x: [[f64; d]; t]) -> f64 {
            let w = ifold(t, (build(d, |_| 0.0), build(d, |_| 0.0)), |(mean, m2), k| {
                let c = (k + 1) as f64;
                let delta = build(d, |j| x[k][j] - mean[j]);
                let mean2 = build(d, |j| mean[j] + delta[j] / c);
                let m22 = build(d, |j| m2[j] + delta[j] * (x[k][j] - mean2[j]));
                (mean2, m22)
            });
            sum(w.0) + sum(w.1) / (t as f64)
        }

        // ------------------------------------------------------------------ running max
        pub fn rmax_build(d: usize, x: [[f64; d]; t]) -> [f64; d] {
            ifold(t, x[0], |m, k| build(d, |j| m[j].max(x[k][j])))
        }
        pub fn rmax_map2(d: usize, x: [[f64; d]; t]) -> [f64; d] {
            ifold(t, x[0], |m, k| map2(m, x[k], |a, b| a.max(b)))
        }
        pub fn rmax_if(d: usize, x: [[f64; d]; t]) -> [f64; d] {
            ifold(t, x[0], |m, k| build(d, |j| if x[k][j] > m[j] { x[k][j] } else { m[j] }))
        }
        pub fn rmax_helper(d: usize, x: [[f64; d]; t]) -> [f64; d] {
            ifold(t, x[0], |m, k| vmax2(m, x[k]))
        }
        pub fn rmax_nr_build(d: usize, x: [[f64; d]; t]) -> f64 {
            sum(ifold(t, x[0], |m, k| build(d, |j| m[j].max(x[k][j]))))
        }
        pub fn rmax_nr_helper(d: usize, x: [[f64; d]; t]) -> f64 {
            let m = ifold(t, x[0], |m, k| vmax2(m, x[k]));
            sum(m)
        }

        // ------------------------------------------------------------------ conjugate gradient
        pub fn cg_pattern(b: [f64; n], iters: usize) -> [f64; n] {
            let (x, _, _, _) = ifold(iters, (build(n, |_| 0.0), b, b, dot(b, b)), |(x, r, p, rs), _| {
                let ap = poisson(p);
                let alpha = rs / dot(p, ap);
                let x2 = add(x, smul(p, alpha));
                let r2 = sub(r, smul(ap, alpha));
                let rs2 = dot(r2, r2);
                let p2 = add(r2, smul(p, rs2 / rs));
                (x2, r2, p2, rs2)
            });
            x
        }
        pub fn cg_proj(b: [f64; n], iters: usize) -> [f64; n] {
            ifold(iters, (build(n, |_| 0.0), b, b, dot(b, b)), |s, _| {
                let ap = poisson(s.2);
                let alpha = s.3 / dot(s.2, ap);
                let r2 = sub(s.1, smul(ap, alpha));
                let rs2 = dot(r2, r2);
                (add(s.0, smul(s.2, alpha)), r2, add(r2, smul(s.2, rs2 / s.3)), rs2)
            }).0
        }
        pub fn cg_build(b: [f64; n], iters: usize) -> [f64; n] {
            ifold(iters, (build(n, |_| 0.0), b, b, sum(build(n, |i| b[i] * b[i]))), |(x, r, p, rs), _| {
                let ap = build(n, |i| 2.0 * p[i]
                    - (if i > 0 { p[i - 1] } else { 0.0 })
                    - (if i + 1 < n { p[i + 1] } else { 0.0 }));
                let alpha = rs / sum(build(n, |i| p[i] * ap[i]));
                let r2 = build(n, |i| r[i] - alpha * ap[i]);
                let rs2 = ifold(n, 0.0, |acc, i| acc + r2[i] * r2[i]);
                let beta = rs2 / rs;
                (build(n, |i| x[i] + alpha * p[i]), r2, build(n, |i| r2[i] + beta * p[i]), rs2)
            }).0
        }
        pub fn cg_helper(b: [f64; n], iters: usize) -> [f64; n] {
            ifold(iters, (build(n, |_| 0.0), b, b, dot(b, b)), |(x, r, p, rs), _| cg_step(x, r, p, rs)).0
        }
        /// `A p` written where it is read, twice, instead of `let`-bound.
        pub fn cg_ap_inline(b: [f64; n], iters: usize) -> [f64; n] {
            ifold(iters, (build(n, |_| 0.0), b, b, dot(b, b)), |(x, r, p, rs), _| {
                let alpha = rs / dot(p, poisson(p));
                let r2 = sub(r, smul(poisson(p), alpha));
                let rs2 = dot(r2, r2);
                (add(x, smul(p, alpha)), r2, add(r2, smul(p, rs2 / rs)), rs2)
            }).0
        }
        pub fn cg_xr(b: [f64; n], iters: usize) -> ([f64; n], [f64; n]) {
            let (x, r, _, _) = ifold(iters, (build(n, |_| 0.0), b, b, dot(b, b)), |(x, r, p, rs), _| {
                cg_step(x, r, p, rs)
            });
            (x, r)
        }

        // ------------------------------------------------------------------ stencil states
        pub fn heat_build(u0: [f64; n], c: f64, steps: usize) -> [f64; n] {
            ifold(steps, u0, |u, _| build(n, |i| u[i] + c * (u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n])))
        }
        pub fn heat_helper(u0: [f64; n], c: f64, steps: usize) -> [f64; n] {
            ifold(steps, u0, |u, _| diffuse(u, c))
        }
        pub fn heat_nr_build(u0: [f64; n], c: f64, steps: usize) -> f64 {
            sum(ifold(steps, u0, |u, _| build(n, |i| u[i] + c * (u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]))))
        }
        pub fn heat_nr_helper(u0: [f64; n], c: f64, steps: usize) -> f64 {
            let u = ifold(steps, u0, |u, _| diffuse(u, c));
            sum(u)
        }
        pub fn heat0_if(u0: [f64; n], c: f64, steps: usize) -> [f64; n] {
            ifold(steps, u0, |u, _| build(n, |i| {
                let l = if i > 0 { u[i - 1] } else { 0.0 };
                let r = if i + 1 < n { u[i + 1] } else { 0.0 };
                u[i] + c * (l - 2.0 * u[i] + r)
            }))
        }
        pub fn heat0_pad(u0: [f64; n], c: f64, steps: usize) -> [f64; n] {
            ifold(steps, u0, |u, _| {
                let q = pad(u, 1, 1, 0.0);
                build(n, |i| u[i] + c * (q[i] - 2.0 * u[i] + q[i + 2]))
            })
        }
        /// A stencil component beside an in-place component that is the result.
        pub fn heat_acc(u0: [f64; n], c: f64, steps: usize) -> [f64; n] {
            ifold(steps, (u0, build(n, |_| 0.0)), |(u, acc), _| (diffuse(u, c), add(acc, u))).1
        }

        // ------------------------------------------------------------------ literal-size states
        pub fn lit_sum3(x: [[f64; 3]; t]) -> f64 {
            sqnorm(ifold(t, [0.0, 0.0, 0.0], |s, k| add(s, x[k])))
        }
        pub fn lit_sum3_build(x: [[f64; 3]; t]) -> f64 {
            sqnorm(ifold(t, build(3, |_| 0.0), |s, k| build(3, |j| s[j] + x[k][j])))
        }
        pub fn lit_rot3(x: [[f64; 3]; t]) -> f64 {
            sum(ifold(t, [1.0, 2.0, 3.0], |s, k| build(3, |j| 0.5 * s[(j + 1) % 3] + x[k][j])))
        }
        pub fn lit_welford4(x: [[f64; 4]; t]) -> f64 {
            let (_, m2) = ifold(t, ([0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]), |(mean, m2), k| {
                wf_step(mean, m2, x[k], (k + 1) as f64)
            });
            sum(m2) / (t as f64)
        }
        pub fn lit_beside(x: [[f64; 3]; t], v: [f64; n]) -> f64 {
            let (s, a) = ifold(t, ([0.0, 0.0, 0.0], v), |(s, a), k| {
                (add(s, x[k]), build(n, |i| 0.5 * a[i] + x[k][i % 3]))
            });
            sum(s) + sum(a)
        }

        // ------------------------------------------------------------------ results where they live
        pub fn pyramid(img: [f64; n]) -> ([f64; n / 2], [f64; n / 2 / 2]) {
            let l1 = half(img);
            (l1, half(l1))
        }
        pub fn pyramid_inline(img: [f64; n]) -> ([f64; n / 2], [f64; n / 2 / 2]) {
            (half(img), half(half(img)))
        }
        pub fn resid_sqnorm(a: [[f64; n]; m], x: [f64; n], b: [f64; m]) -> ([f64; m], f64) {
            let r = build(m, |i| dot(a[i], x) - b[i]);
            (r, sqnorm(r))
        }
        pub fn resid_dot(a: [[f64; n]; m], x: [f64; n], b: [f64; m]) -> ([f64; m], f64) {
            let r = build(m, |i| dot(a[i], x) - b[i]);
            (r, dot(r, r))
        }
        pub fn resid_map(a: [[f64; n]; m], x: [f64; n], b: [f64; m]) -> ([f64; m], f64) {
            let r = build(m, |i| dot(a[i], x) - b[i]);
            (r, sum(map(r, |v| v * v)))
        }
        pub fn resid_ifold(a: [[f64; n]; m], x: [f64; n], b: [f64; m]) -> ([f64; m], f64) {
            let r = build(m, |i| dot(a[i], x) - b[i]);
            (r, ifold(m, 0.0, |acc, i| acc + r[i] * r[i]))
        }
        pub fn smooth_pair(x: [f64; n]) -> ([f64; n], [f64; n]) {
            let y = build(n, |i| x[i].exp() / (1.0 + x[i].exp()));
            (y, build(n, |i| 0.5 * (y[i] + y[(i + 1) % n])))
        }

        // ------------------------------------------------------------------ sum spellings
        pub fn ss_build(x: [f64; n], y: [f64; n]) -> f64 {
            sum(build(n, |i| (x[i] - y[i]) * (x[i] - y[i])))
        }
        pub fn ss_map2(x: [f64; n], y: [f64; n]) -> f64 {
            sum(map2(x, y, |a, b| (a - b) * (a - b)))
        }
        pub fn ss_map(x: [f64; n], y: [f64; n]) -> f64 {
            sum(map(sub(x, y), |e| e * e))
        }
        pub fn ss_dot_let(x: [f64; n], y: [f64; n]) -> f64 {
            let e = sub(x, y);
            dot(e, e)
        }
        pub fn ss_dot_inline(x: [f64; n], y: [f64; n]) -> f64 {
            dot(sub(x, y), sub(x, y))
        }
        pub fn ss_ifold(x: [f64; n], y: [f64; n]) -> f64 {
            ifold(n, 0.0, |acc, i| acc + (x[i] - y[i]) * (x[i] - y[i]))
        }
        pub fn ss_helper(x: [f64; n], y: [f64; n]) -> f64 {
            sqdist(x, y)
        }

        pub fn rows_build(x: [[f64; d]; n], mu: [f64; d]) -> f64 {
            sum(build(n, |i| sqnorm(sub(x[i], mu))))
        }
        pub fn rows_map(x: [[f64; d]; n], mu: [f64; d]) -> f64 {
            sum(map(x, |row| sqnorm(sub(row, mu))))
        }
        pub fn rows_ifold(x: [[f64; d]; n], mu: [f64; d]) -> f64 {
            ifold(n, 0.0, |acc, i| acc + sqnorm(sub(x[i], mu)))
        }
        pub fn rows_helper(x: [[f64; d]; n], mu: [f64; d]) -> f64 {
            sum(build(n, |i| row_term(x[i], mu)))
        }

        // ------------------------------------------------------------------ sums under grad
        pub fn gx_build(x: [f64; n], y: [f64; n]) -> (f64, [f64; n]) {
            grad(|v| sum(build(n, |i| (v[i] - y[i]) * (v[i] - y[i]))), x)
        }
        pub fn gx_map2(x: [f64; n], y: [f64; n]) -> (f64, [f64; n]) {
            grad(|v| sum(map2(v, y, |a, b| (a - b) * (a - b))), x)
        }
        pub fn gx_dot(x: [f64; n], y: [f64; n]) -> (f64, [f64; n]) {
            grad(|v| {
                let e = sub(v, y);
                dot(e, e)
            }, x)
        }
        pub fn gx_ifold(x: [f64; n], y: [f64; n]) -> (f64, [f64; n]) {
            grad(|v| ifold(n, 0.0, |acc, i| acc + (v[i] - y[i]) * (v[i] - y[i])), x)
        }
        pub fn gx_helper(x: [f64; n], y: [f64; n]) -> (f64, [f64; n]) {
            grad(|v| sqdist(v, y), x)
        }
        pub fn gx_sqnorm(x: [f64; n], y: [f64; n]) -> (f64, [f64; n]) {
            grad(|v| sqnorm(sub(v, y)), x)
        }

        pub fn gm_build(mu: [f64; d], x: [[f64; d]; n]) -> (f64, [f64; d]) {
            grad(|m| sum(build(n, |i| (-0.5 * sqnorm(sub(x[i], m))).exp())), mu)
        }
        pub fn gm_map(mu: [f64; d], x: [[f64; d]; n]) -> (f64, [f64; d]) {
            grad(|m| sum(map(x, |row| (-0.5 * sqnorm(sub(row, m))).exp())), mu)
        }
        pub fn gm_ifold(mu: [f64; d], x: [[f64; d]; n]) -> (f64, [f64; d]) {
            grad(|m| ifold(n, 0.0, |acc, i| acc + (-0.5 * sqnorm(sub(x[i], m))).exp()), mu)
        }
        pub fn gm_ifold_let(mu: [f64; d], x: [[f64; d]; n]) -> (f64, [f64; d]) {
            grad(|m| ifold(n, 0.0, |acc, i| {
                let e = sub(x[i], m);
                acc + (-0.5 * dot(e, e)).exp()
            }), mu)
        }
        pub fn gm_helper(mu: [f64; d], x: [[f64; d]; n]) -> (f64, [f64; d]) {
            grad(|m| sum(build(n, |i| gauss(x[i], m))), mu)
        }

        // ------------------------------------------------------------------ in-place row update
        pub fn row_at_j(c: usize, m0: [[f64; c]; h], steps: usize) -> [[f64; c]; h] {
            ifold(steps, m0, |m, k| {
                let r = k % h;
                build(h, |j| if j == r { build(c, |l| 0.5 * m[j][l] + 1.0) } else { m[j] })
            })
        }
        pub fn row_at_r(c: usize, m0: [[f64; c]; h], steps: usize) -> [[f64; c]; h] {
            ifold(steps, m0, |m, k| {
                let r = k % h;
                build(h, |j| if j == r { build(c, |l| 0.5 * m[r][l] + 1.0) } else { m[j] })
            })
        }
        pub fn row_map_at_j(c: usize, m0: [[f64; c]; h], steps: usize) -> [[f64; c]; h] {
            ifold(steps, m0, |m, k| {
                let r = k % h;
                build(h, |j| if j == r { map(m[j], |v| 0.5 * v + 1.0) } else { m[j] })
            })
        }
        pub fn row_map_at_r(c: usize, m0: [[f64; c]; h], steps: usize) -> [[f64; c]; h] {
            ifold(steps, m0, |m, k| {
                let r = k % h;
                build(h, |j| if j == r { map(m[r], |v| 0.5 * v + 1.0) } else { m[j] })
            })
        }
        pub fn row_nr_at_j(c: usize, m0: [[f64; c]; h], steps: usize) -> f64 {
            let m = ifold(steps, m0, |m, k| {
                let r = k % h;
                build(h, |j| if j == r { build(c, |l| 0.5 * m[j][l] + 1.0) } else { m[j] })
            });
            ifold(h, 0.0, |acc, j| acc + sum(m[j]))
        }
        pub fn row_nr_at_r(c: usize, m0: [[f64; c]; h], steps: usize) -> f64 {
            let m = ifold(steps, m0, |m, k| {
                let r = k % h;
                build(h, |j| if j == r { build(c, |l| 0.5 * m[r][l] + 1.0) } else { m[j] })
            });
            ifold(h, 0.0, |acc, j| acc + sum(m[j]))
        }
        pub fn row_flipped(c: usize, m0: [[f64; c]; h], steps: usize) -> [[f64; c]; h] {
            ifold(steps, m0, |m, k| {
                let r = k % h;
                build(h, |j| if r == j { build(c, |l| 0.5 * m[r][l] + 1.0) } else { m[j] })
            })
        }

        // ------------------------------------------------------------------ literal count, unrolled or not
        pub fn un_fold3(x0: [f64; n], p: [f64; n]) -> [f64; n] {
            ifold(3, x0, |x, _| nstep(x, p))
        }
        pub fn un_fold_rt(x0: [f64; n], p: [f64; n], steps: usize) -> [f64; n] {
            ifold(steps, x0, |x, _| nstep(x, p))
        }
        pub fn un_lets(x0: [f64; n], p: [f64; n]) -> [f64; n] {
            let x1 = nstep(x0, p);
            let x2 = nstep(x1, p);
            nstep(x2, p)
        }
        pub fn un_nested(x0: [f64; n], p: [f64; n]) -> [f64; n] {
            nstep(nstep(nstep(x0, p), p), p)
        }
        pub fn un_inline(x0: [f64; n], p: [f64; n]) -> [f64; n] {
            let s0 = 1.0 / norm(x0);
            let x1 = build(n, |i| x0[i] * s0 + p[i]);
            let s1 = 1.0 / norm(x1);
            let x2 = build(n, |i| x1[i] * s1 + p[i]);
            let s2 = 1.0 / norm(x2);
            build(n, |i| x2[i] * s2 + p[i])
        }
        pub fn un_nr_fold3(x0: [f64; n], p: [f64; n]) -> f64 {
            sum(ifold(3, x0, |x, _| nstep(x, p)))
        }
        pub fn un_nr_fold_rt(x0: [f64; n], p: [f64; n], steps: usize) -> f64 {
            sum(ifold(steps, x0, |x, _| nstep(x, p)))
        }
        pub fn un_nr_lets(x0: [f64; n], p: [f64; n]) -> f64 {
            let x1 = nstep(x0, p);
            let x2 = nstep(x1, p);
            sum(nstep(x2, p))
        }
        pub fn un_nr_nested(x0: [f64; n], p: [f64; n]) -> f64 {
            sum(nstep(nstep(nstep(x0, p), p), p))
        }
    }
}

// ====================================================================== test support

/// Deterministic data in [-1, 1).
fn data(len: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x2545_F491_4F6C_DD1D);
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

fn close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{what}: element {i}: got {g}, want {w}"
        );
    }
}

fn close1(got: f64, want: f64, tol: f64, what: &str) {
    close(&[got], &[want], tol, what);
}

/// A slab of exactly `len` slots: an under-estimated `scratch_len` gives `Error::Scratch`.
fn slab(len: usize) -> Vec<f64> {
    vec![f64::NAN; len]
}

/// Runs `$body` once per spelling, with `$kern` naming the kernel (function and `mod`) and
/// `$name` its name.
macro_rules! spellings {
    ([$($f:ident),+ $(,)?], |$kern:ident, $name:ident| $body:block) => {
        $({
            #[allow(unused_imports)]
            use crate::k::$f as $kern;
            let $name: &str = stringify!($f);
            $body
        })+
    };
}

/// Asserts every (spelling, size) scratch is `want(size)`, listing them all when one is not.
fn all_equal(got: &[(&str, usize, usize)], want: impl Fn(usize) -> usize, rule: &str) {
    let bad: Vec<_> = got
        .iter()
        .filter(|(_, size, s)| *s != want(*size))
        .collect();
    assert!(
        bad.is_empty(),
        "{rule}\n  (spelling, size, scratch_len) got: {got:?}\n  expected scratch_len(size) = want(size), e.g. {:?}",
        got.iter()
            .map(|(n, size, _)| (n, size, want(*size)))
            .collect::<Vec<_>>()
    );
}

// ====================================================================== plain-Rust references

fn ref_axpy(x0: &[f64], p: &[f64], alpha: f64, steps: usize) -> Vec<f64> {
    let mut x = x0.to_vec();
    for _ in 0..steps {
        for i in 0..x.len() {
            x[i] += alpha * p[i];
        }
    }
    x
}

fn ref_ema(y: &[f64], d: usize, t: usize, beta: f64) -> Vec<f64> {
    let mut s = y[..d].to_vec();
    for k in 0..t {
        for j in 0..d {
            s[j] = beta * y[k * d + j] + (1.0 - beta) * s[j];
        }
    }
    s
}

fn ref_welford(x: &[f64], d: usize, t: usize) -> (Vec<f64>, Vec<f64>) {
    let mut mean = vec![0.0; d];
    let mut m2 = vec![0.0; d];
    for k in 0..t {
        let c = (k + 1) as f64;
        for j in 0..d {
            let xv = x[k * d + j];
            let delta = xv - mean[j];
            mean[j] += delta / c;
            m2[j] += delta * (xv - mean[j]);
        }
    }
    (mean, m2)
}

fn ref_rmax(x: &[f64], d: usize, t: usize) -> Vec<f64> {
    let mut m = x[..d].to_vec();
    for k in 0..t {
        for j in 0..d {
            m[j] = m[j].max(x[k * d + j]);
        }
    }
    m
}

fn ref_poisson(p: &[f64]) -> Vec<f64> {
    let n = p.len();
    (0..n)
        .map(|i| {
            let l = if i > 0 { p[i - 1] } else { 0.0 };
            let r = if i + 1 < n { p[i + 1] } else { 0.0 };
            2.0 * p[i] - l - r
        })
        .collect()
}

fn rdot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn ref_cg(b: &[f64], iters: usize) -> (Vec<f64>, Vec<f64>) {
    let n = b.len();
    let mut x = vec![0.0; n];
    let mut r = b.to_vec();
    let mut p = b.to_vec();
    let mut rs = rdot(b, b);
    for _ in 0..iters {
        let ap = ref_poisson(&p);
        let alpha = rs / rdot(&p, &ap);
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        let rs2 = rdot(&r, &r);
        for i in 0..n {
            p[i] = r[i] + (rs2 / rs) * p[i];
        }
        rs = rs2;
    }
    (x, r)
}

fn ref_diffuse(u: &[f64], c: f64) -> Vec<f64> {
    let n = u.len();
    (0..n)
        .map(|i| u[i] + c * (u[(i + n - 1) % n] - 2.0 * u[i] + u[(i + 1) % n]))
        .collect()
}

fn ref_heat(u0: &[f64], c: f64, steps: usize) -> Vec<f64> {
    let mut u = u0.to_vec();
    for _ in 0..steps {
        u = ref_diffuse(&u, c);
    }
    u
}

fn ref_heat0(u0: &[f64], c: f64, steps: usize) -> Vec<f64> {
    let n = u0.len();
    let mut u = u0.to_vec();
    for _ in 0..steps {
        u = (0..n)
            .map(|i| {
                let l = if i > 0 { u[i - 1] } else { 0.0 };
                let r = if i + 1 < n { u[i + 1] } else { 0.0 };
                u[i] + c * (l - 2.0 * u[i] + r)
            })
            .collect();
    }
    u
}

fn ref_half(v: &[f64]) -> Vec<f64> {
    (0..v.len() / 2)
        .map(|i| 0.5 * (v[2 * i] + v[2 * i + 1]))
        .collect()
}

fn ref_rows(m0: &[f64], c: usize, h: usize, steps: usize) -> Vec<f64> {
    let mut m = m0.to_vec();
    for k in 0..steps {
        let r = k % h;
        for l in 0..c {
            m[r * c + l] = 0.5 * m[r * c + l] + 1.0;
        }
    }
    m
}

fn ref_nstep(x: &[f64], p: &[f64]) -> Vec<f64> {
    let s = 1.0 / rdot(x, x).sqrt();
    x.iter().zip(p).map(|(a, b)| a * s + b).collect()
}

// ====================================================================== x + alpha * p

/// Section 13: "Fold states are updated in place when each element of the new state reads, of
/// the old state, only the same element (`x + alpha * p`, ..): one buffer, no copy per step,
/// and `let`s inside the step cost nothing." and "An array state of an `ifold` that is the
/// result iterates in its output." So a result state needs no scratch at all, in every spelling.
#[test]
fn axpy_state_that_is_the_result_iterates_in_out_in_every_spelling() {
    let mut got = vec![];
    for n in [7usize, 300] {
        let (x0, p, alpha, steps) = (data(n, 1), data(n, 2), 0.3, 6);
        let want = ref_axpy(&x0, &p, alpha, steps);
        spellings!(
            [axpy_prelude, axpy_build, axpy_map2, axpy_helper, axpy_lets],
            |kern, name| {
                let mut s = slab(kern::scratch_len(n));
                let mut out = vec![f64::NAN; n];
                kern(
                    &mut out,
                    &x0,
                    &p,
                    alpha,
                    steps,
                    &mut Region::from_slab(&mut s),
                )
                .unwrap();
                close(&out, &want, 1e-12, name);
                got.push((name, n, kern::scratch_len(n)));
            }
        );
    }
    all_equal(
        &got,
        |_| 0,
        "x + alpha * p, state is the result: no scratch",
    );
}

/// Same step, state not the result: "one buffer" of n.
#[test]
fn axpy_state_not_the_result_keeps_one_buffer_in_every_spelling() {
    let mut got = vec![];
    for n in [7usize, 300] {
        let (x0, p, alpha, steps) = (data(n, 3), data(n, 4), -0.2, 5);
        let want = rdot(
            &ref_axpy(&x0, &p, alpha, steps),
            &ref_axpy(&x0, &p, alpha, steps),
        );
        spellings!(
            [
                axpy_nr_prelude,
                axpy_nr_build,
                axpy_nr_map2,
                axpy_nr_helper,
                axpy_nr_lets
            ],
            |kern, name| {
                let mut s = slab(kern::scratch_len(n));
                let v = kern(&x0, &p, alpha, steps, &mut Region::from_slab(&mut s)).unwrap();
                close1(v, want, 1e-12, name);
                got.push((name, n, kern::scratch_len(n)));
            }
        );
    }
    all_equal(
        &got,
        |n| n,
        "x + alpha * p, state not the result: one buffer of n",
    );
}

/// "a `let` that names an array, or the expression written where it is read" cost the same:
/// `let d = smul(p, alpha)` before the fold and `smul(p, alpha)` inside the step.
#[test]
fn axpy_step_vector_let_bound_before_the_fold_costs_the_same() {
    for n in [7usize, 300] {
        let (x0, p, alpha, steps) = (data(n, 5), data(n, 6), 0.7, 4);
        let mut out = vec![f64::NAN; n];
        let mut s = slab(k::axpy_let_outside::scratch_len(n));
        k::axpy_let_outside(
            &mut out,
            &x0,
            &p,
            alpha,
            steps,
            &mut Region::from_slab(&mut s),
        )
        .unwrap();
        close(
            &out,
            &ref_axpy(&x0, &p, alpha, steps),
            1e-12,
            "axpy_let_outside",
        );
        assert_eq!(
            k::axpy_let_outside::scratch_len(n),
            k::axpy_prelude::scratch_len(n),
            "n = {n}: `let d = smul(p, alpha)` outside vs written in the step"
        );
    }
}

// ====================================================================== exponential smoothing

#[test]
fn ema_state_that_is_the_result_iterates_in_out_in_every_spelling() {
    let mut got = vec![];
    for (d, t) in [(3usize, 9usize), (17, 40)] {
        let (y, beta) = (data(d * t, 7), 0.25);
        let want = ref_ema(&y, d, t, beta);
        spellings!(
            [ema_build, ema_prelude, ema_map2, ema_helper, ema_lets],
            |kern, name| {
                let mut s = slab(kern::scratch_len(d, t));
                let mut out = vec![f64::NAN; d];
                kern(&mut out, d, &y, beta, &mut Region::from_slab(&mut s)).unwrap();
                close(&out, &want, 1e-12, name);
                got.push((name, d, kern::scratch_len(d, t)));
            }
        );
    }
    all_equal(
        &got,
        |_| 0,
        "exponential smoothing, state is the result: no scratch",
    );
}

#[test]
fn ema_state_not_the_result_keeps_one_buffer() {
    let mut got = vec![];
    for (d, t) in [(3usize, 9usize), (17, 40)] {
        let (y, beta) = (data(d * t, 8), 0.6);
        let want: f64 = ref_ema(&y, d, t, beta).iter().sum();
        spellings!(
            [ema_nr_build, ema_nr_prelude, ema_nr_helper],
            |kern, name| {
                let mut s = slab(kern::scratch_len(d, t));
                let v = kern(d, &y, beta, &mut Region::from_slab(&mut s)).unwrap();
                close1(v, want, 1e-12, name);
                got.push((name, d, kern::scratch_len(d, t)));
            }
        );
    }
    all_equal(
        &got,
        |d| d,
        "exponential smoothing, state not the result: one buffer of d",
    );
}

// ====================================================================== Welford

/// Welford's mean and M2 per feature, both results: each iterates in its output, the `let`s
/// (`delta`, `mean2`) cost nothing. The inline spelling also checks the second component
/// reads the OLD mean although the first is updated in place.
#[test]
fn welford_mean_and_m2_as_results_need_no_scratch_in_every_spelling() {
    let mut got = vec![];
    for (d, t) in [(3usize, 9usize), (17, 40)] {
        let x: Vec<f64> = data(d * t, 9).iter().map(|v| 3.0 + 2.0 * v).collect();
        let (wm, wm2) = ref_welford(&x, d, t);
        spellings!(
            [wf_pattern, wf_proj, wf_prelude, wf_helper, wf_inline],
            |kern, name| {
                let mut s = slab(kern::scratch_len(d, t));
                let (mut mean, mut m2) = (vec![f64::NAN; d], vec![f64::NAN; d]);
                kern(&mut mean, &mut m2, d, &x, &mut Region::from_slab(&mut s)).unwrap();
                close(&mean, &wm, 1e-12, name);
                close(&m2, &wm2, 1e-10, name);
                got.push((name, d, kern::scratch_len(d, t)));
            }
        );
    }
    all_equal(&got, |_| 0, "Welford (mean, m2) both results: no scratch");
}

/// `let (mean, m2) = ifold(..); (mean, m2 / t)`: the mean iterates in out0; m2, read after
/// the fold only by the variance element by element, iterates in out1 and is divided there:
/// no scratch (it was one buffer of d).
#[test]
fn welford_mean_result_and_variance_iterate_in_their_outputs() {
    let mut got = vec![];
    for (d, t) in [(3usize, 9usize), (17, 40)] {
        let x = data(d * t, 10);
        let (wm, wm2) = ref_welford(&x, d, t);
        let wvar: Vec<f64> = wm2.iter().map(|v| v / t as f64).collect();
        spellings!([wf_var_pattern, wf_var_inline], |kern, name| {
            let mut s = slab(kern::scratch_len(d, t));
            let (mut mean, mut var) = (vec![f64::NAN; d], vec![f64::NAN; d]);
            kern(&mut mean, &mut var, d, &x, &mut Region::from_slab(&mut s)).unwrap();
            close(&mean, &wm, 1e-12, name);
            close(&var, &wvar, 1e-10, name);
            got.push((name, d, kern::scratch_len(d, t)));
        });
    }
    all_equal(
        &got,
        |_| 0,
        "Welford, mean is the result, m2 divided into the variance: no scratch",
    );
}

/// `let w = ifold(..); (w.0, build(d, |j| w.1[j] / t))`: `.0`/`.1` projections of the
/// `let`-bound state instead of a tuple pattern. Same program: mean in out0, m2 in out1.
#[test]
fn welford_projections_of_the_fold_cost_the_same_as_a_pattern() {
    for (d, t) in [(3usize, 9usize), (17, 40)] {
        let x = data(d * t, 10);
        let (wm, wm2) = ref_welford(&x, d, t);
        let wvar: Vec<f64> = wm2.iter().map(|v| v / t as f64).collect();
        let mut s = slab(k::wf_var_proj::scratch_len(d, t));
        let (mut mean, mut var) = (vec![f64::NAN; d], vec![f64::NAN; d]);
        k::wf_var_proj(&mut mean, &mut var, d, &x, &mut Region::from_slab(&mut s)).unwrap();
        close(&mean, &wm, 1e-12, "wf_var_proj");
        close(&var, &wvar, 1e-10, "wf_var_proj");
        assert_eq!(
            k::wf_var_proj::scratch_len(d, t),
            k::wf_var_pattern::scratch_len(d, t),
            "d = {d}: `w.0` vs `let (mean, m2)`"
        );
        assert_eq!(k::wf_var_proj::scratch_len(d, t), 0, "d = {d}");
    }
}

#[test]
fn welford_neither_state_the_result_keeps_one_buffer_each() {
    let mut got = vec![];
    for (d, t) in [(3usize, 9usize), (17, 40)] {
        let x = data(d * t, 11);
        let (wm, wm2) = ref_welford(&x, d, t);
        let want = wm.iter().sum::<f64>() + wm2.iter().sum::<f64>() / t as f64;
        spellings!([wf_nr_pattern, wf_nr_build], |kern, name| {
            let mut s = slab(kern::scratch_len(d, t));
            let v = kern(d, &x, &mut Region::from_slab(&mut s)).unwrap();
            close1(v, want, 1e-10, name);
            got.push((name, d, kern::scratch_len(d, t)));
        });
    }
    all_equal(
        &got,
        |d| 2 * d,
        "Welford, neither state the result: one buffer each (2d)",
    );
}

// ====================================================================== running max

#[test]
fn running_max_result_iterates_in_out_in_every_spelling() {
    let mut got = vec![];
    for (d, t) in [(3usize, 9usize), (17, 40)] {
        let x = data(d * t, 12);
        let want = ref_rmax(&x, d, t);
        spellings!(
            [rmax_build, rmax_map2, rmax_if, rmax_helper],
            |kern, name| {
                let mut s = slab(kern::scratch_len(d, t));
                let mut out = vec![f64::NAN; d];
                kern(&mut out, d, &x, &mut Region::from_slab(&mut s)).unwrap();
                assert_eq!(out, want, "{name}");
                got.push((name, d, kern::scratch_len(d, t)));
            }
        );
    }
    all_equal(&got, |_| 0, "running max per feature, result: no scratch");
}

#[test]
fn running_max_not_the_result_keeps_one_buffer() {
    let mut got = vec![];
    for (d, t) in [(3usize, 9usize), (17, 40)] {
        let x = data(d * t, 13);
        let want: f64 = ref_rmax(&x, d, t).iter().sum();
        spellings!([rmax_nr_build, rmax_nr_helper], |kern, name| {
            let mut s = slab(kern::scratch_len(d, t));
            let v = kern(d, &x, &mut Region::from_slab(&mut s)).unwrap();
            close1(v, want, 1e-12, name);
            got.push((name, d, kern::scratch_len(d, t)));
        });
    }
    all_equal(&got, |d| d, "running max, not the result: one buffer of d");
}

// ====================================================================== conjugate gradient

/// CG on the 1-D Poisson matrix, state (x, r, p, rs), x the result. x, r and p are each
/// updated reading only the same element of their old value (p's neighbours are read through
/// `ap`, a `let` computed before any state changes). Expected: x in out (0), one buffer for r,
/// one for p, and `ap` (a stencil of p read by `dot` and by `r2`, so it is stored): 3n.
/// (not in the contract: expectation) the exact count 3n, and that `ap` takes n slots.
#[test]
fn cg_state_updated_in_place_in_every_spelling() {
    let mut got = vec![];
    for (n, iters) in [(7usize, 5usize), (120, 30)] {
        let b: Vec<f64> = data(n, 14);
        let (wx, _) = ref_cg(&b, iters);
        spellings!([cg_pattern, cg_proj, cg_build, cg_helper], |kern, name| {
            let mut s = slab(kern::scratch_len(n));
            let mut out = vec![f64::NAN; n];
            kern(&mut out, &b, iters, &mut Region::from_slab(&mut s)).unwrap();
            close(&out, &wx, 1e-9, name);
            got.push((name, n, kern::scratch_len(n)));
        });
    }
    all_equal(&got, |n| 3 * n, "CG (x, r, p, rs), x the result: r, p, ap");
}

/// `A p` written where it is read (twice) instead of `let`-bound: same program, same scratch.
#[test]
fn cg_with_ap_written_where_read_costs_the_same_as_let() {
    for (n, iters) in [(7usize, 5usize), (120, 30)] {
        let b = data(n, 15);
        let mut s = slab(k::cg_ap_inline::scratch_len(n));
        let mut out = vec![f64::NAN; n];
        k::cg_ap_inline(&mut out, &b, iters, &mut Region::from_slab(&mut s)).unwrap();
        close(&out, &ref_cg(&b, iters).0, 1e-9, "cg_ap_inline");
        assert_eq!(
            k::cg_ap_inline::scratch_len(n),
            k::cg_pattern::scratch_len(n),
            "n = {n}: `poisson(p)` written twice vs `let ap = poisson(p)`"
        );
    }
}

/// (x, r) both results: "none for a state that is the result": p and ap only, 2n.
#[test]
fn cg_x_and_r_as_results_iterate_in_their_outputs() {
    for (n, iters) in [(7usize, 5usize), (120, 30)] {
        let b = data(n, 16);
        let (wx, wr) = ref_cg(&b, iters);
        let mut s = slab(k::cg_xr::scratch_len(n));
        let (mut x, mut r) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        k::cg_xr(&mut x, &mut r, &b, iters, &mut Region::from_slab(&mut s)).unwrap();
        close(&x, &wx, 1e-9, "x");
        close(&r, &wr, 1e-9, "r");
        assert_eq!(k::cg_xr::scratch_len(n), 2 * n, "n = {n}: p and ap only");
        assert_eq!(k::cg_xr::scratch_len(n) + n, k::cg_pattern::scratch_len(n));
    }
}

// ====================================================================== stencil states

/// "A step that reads other elements of the old state (a stencil) keeps two buffers", and the
/// result state "iterates in its output": the output and one buffer, n slots.
#[test]
fn stencil_state_that_is_the_result_keeps_out_and_one_buffer() {
    let mut got = vec![];
    for n in [7usize, 300] {
        let (u0, c, steps) = (data(n, 17), 0.2, 9);
        let want = ref_heat(&u0, c, steps);
        spellings!([heat_build, heat_helper], |kern, name| {
            let mut s = slab(kern::scratch_len(n));
            let mut out = vec![f64::NAN; n];
            kern(&mut out, &u0, c, steps, &mut Region::from_slab(&mut s)).unwrap();
            close(&out, &want, 1e-12, name);
            got.push((name, n, kern::scratch_len(n)));
        });
    }
    all_equal(&got, |n| n, "stencil state, result: out + one buffer (n)");
}

#[test]
fn stencil_state_not_the_result_keeps_two_buffers() {
    let mut got = vec![];
    for n in [7usize, 300] {
        let (u0, c, steps) = (data(n, 18), 0.2, 9);
        let want: f64 = ref_heat(&u0, c, steps).iter().sum();
        spellings!([heat_nr_build, heat_nr_helper], |kern, name| {
            let mut s = slab(kern::scratch_len(n));
            let v = kern(&u0, c, steps, &mut Region::from_slab(&mut s)).unwrap();
            close1(v, want, 1e-12, name);
            got.push((name, n, kern::scratch_len(n)));
        });
    }
    all_equal(
        &got,
        |n| 2 * n,
        "stencil state, not the result: two buffers (2n)",
    );
}

/// Zero-boundary stencil spelled with `if` at the edges or with a `pad` view (a source view,
/// section 9: never copies).
#[test]
fn zero_boundary_stencil_spellings_cost_the_same() {
    let mut got = vec![];
    for n in [7usize, 300] {
        let (u0, c, steps) = (data(n, 19), 0.3, 7);
        let want = ref_heat0(&u0, c, steps);
        spellings!([heat0_if, heat0_pad], |kern, name| {
            let mut s = slab(kern::scratch_len(n));
            let mut out = vec![f64::NAN; n];
            kern(&mut out, &u0, c, steps, &mut Region::from_slab(&mut s)).unwrap();
            close(&out, &want, 1e-12, name);
            got.push((name, n, kern::scratch_len(n)));
        });
    }
    all_equal(
        &got,
        |n| n,
        "zero-boundary stencil, result: out + one buffer (n)",
    );
}

/// Tuple state (u, acc): u a stencil (two buffers), acc += u in place and the result (in
/// out): 2n.
#[test]
fn stencil_component_beside_in_place_result_component() {
    for n in [7usize, 300] {
        let (u0, c, steps) = (data(n, 20), 0.2, 6);
        let mut u = u0.clone();
        let mut acc = vec![0.0; n];
        for _ in 0..steps {
            for i in 0..n {
                acc[i] += u[i];
            }
            u = ref_diffuse(&u, c);
        }
        let mut s = slab(k::heat_acc::scratch_len(n));
        let mut out = vec![f64::NAN; n];
        k::heat_acc(&mut out, &u0, c, steps, &mut Region::from_slab(&mut s)).unwrap();
        close(&out, &acc, 1e-12, "heat_acc");
        assert_eq!(
            k::heat_acc::scratch_len(n),
            2 * n,
            "n = {n}: u's two buffers, acc in out"
        );
    }
}

// ====================================================================== literal-size states

/// "A small state of literal size lives in locals, not the frame."
#[test]
fn literal_size_state_lives_in_locals() {
    for t in [5usize, 300] {
        let x = data(3 * t, 21);
        let mut sum3 = [0.0; 3];
        for k in 0..t {
            for j in 0..3 {
                sum3[j] += x[3 * k + j];
            }
        }
        let want = rdot(&sum3, &sum3);
        spellings!([lit_sum3, lit_sum3_build], |kern, name| {
            let mut s = slab(kern::scratch_len(t));
            let v = kern(&x, &mut Region::from_slab(&mut s)).unwrap();
            close1(v, want, 1e-12, name);
            assert_eq!(
                kern::scratch_len(t),
                0,
                "{name}, t = {t}: [f64; 3] state in locals"
            );
        });
    }
}

/// A literal-size state read at other elements (a rotation): the two copies are locals too.
#[test]
fn literal_size_stencil_state_lives_in_locals() {
    for t in [5usize, 300] {
        let x = data(3 * t, 22);
        let mut st = [1.0, 2.0, 3.0];
        for k in 0..t {
            st = core::array::from_fn(|j| 0.5 * st[(j + 1) % 3] + x[3 * k + j]);
        }
        let mut s = slab(k::lit_rot3::scratch_len(t));
        let v = k::lit_rot3(&x, &mut Region::from_slab(&mut s)).unwrap();
        close1(v, st.iter().sum(), 1e-12, "lit_rot3");
        assert_eq!(k::lit_rot3::scratch_len(t), 0, "t = {t}");
    }
}

#[test]
fn literal_size_welford_state_lives_in_locals() {
    for t in [5usize, 300] {
        let x = data(4 * t, 23);
        let (_, m2) = ref_welford(&x, 4, t);
        let mut s = slab(k::lit_welford4::scratch_len(t));
        let v = k::lit_welford4(&x, &mut Region::from_slab(&mut s)).unwrap();
        close1(v, m2.iter().sum::<f64>() / t as f64, 1e-10, "lit_welford4");
        assert_eq!(
            k::lit_welford4::scratch_len(t),
            0,
            "t = {t}: ([f64; 4], [f64; 4]) in locals"
        );
    }
}

/// A literal-size component beside a size-named one: only the latter takes frame room (n).
#[test]
fn literal_size_component_beside_sized_component() {
    for (t, n) in [(5usize, 7usize), (40, 300)] {
        let (x, v) = (data(3 * t, 24), data(n, 25));
        let mut s3 = [0.0; 3];
        let mut a = v.clone();
        for k in 0..t {
            for i in 0..n {
                a[i] = 0.5 * a[i] + x[3 * k + i % 3];
            }
            for j in 0..3 {
                s3[j] += x[3 * k + j];
            }
        }
        let want = s3.iter().sum::<f64>() + a.iter().sum::<f64>();
        let mut s = slab(k::lit_beside::scratch_len(t, n));
        let got = k::lit_beside(&x, &v, &mut Region::from_slab(&mut s)).unwrap();
        close1(got, want, 1e-12, "lit_beside");
        assert_eq!(k::lit_beside::scratch_len(t, n), n, "(t, n) = ({t}, {n})");
    }
}

// ====================================================================== results where they live

/// "`let l1 = half(img); (l1, half(l1))` ... need no scratch for `l1`".
#[test]
fn pyramid_levels_are_written_where_they_live() {
    for n in [10usize, 257] {
        let img = data(n, 26);
        let (w1, w2) = (ref_half(&img), ref_half(&ref_half(&img)));
        let mut s = slab(k::pyramid::scratch_len(n));
        let (mut l1, mut l2) = (vec![f64::NAN; n / 2], vec![f64::NAN; n / 2 / 2]);
        k::pyramid(&mut l1, &mut l2, &img, &mut Region::from_slab(&mut s)).unwrap();
        close(&l1, &w1, 1e-15, "pyramid l1");
        close(&l2, &w2, 1e-15, "pyramid l2");
        assert_eq!(k::pyramid::scratch_len(n), 0, "n = {n}");
    }
}

/// The same pyramid with `l1` written where it is read, `(half(img), half(half(img)))`: "a
/// `let` that names an array, or the expression written where it is read" cost the same, 0.
#[test]
fn pyramid_written_without_the_let_costs_the_same() {
    for n in [10usize, 257] {
        let img = data(n, 26);
        let (w1, w2) = (ref_half(&img), ref_half(&ref_half(&img)));
        let mut s = slab(k::pyramid_inline::scratch_len(n));
        let (mut l1, mut l2) = (vec![f64::NAN; n / 2], vec![f64::NAN; n / 2 / 2]);
        k::pyramid_inline(&mut l1, &mut l2, &img, &mut Region::from_slab(&mut s)).unwrap();
        close(&l1, &w1, 1e-15, "pyramid_inline l1");
        close(&l2, &w2, 1e-15, "pyramid_inline l2");
        assert_eq!(
            k::pyramid_inline::scratch_len(n),
            k::pyramid::scratch_len(n),
            "n = {n}: vs the `let l1` spelling"
        );
        assert_eq!(k::pyramid_inline::scratch_len(n), 0, "n = {n}");
    }
}

/// "`let r = build(p, ..); (r, sqnorm(r))` need no scratch for `r`", whichever way the norm
/// is spelled.
#[test]
fn residual_and_its_squared_norm_need_no_scratch() {
    for (n, m) in [(4usize, 6usize), (30, 200)] {
        let (a, x, b) = (data(n * m, 27), data(n, 28), data(m, 29));
        let r: Vec<f64> = (0..m)
            .map(|i| rdot(&a[i * n..(i + 1) * n], &x) - b[i])
            .collect();
        let want = rdot(&r, &r);
        spellings!(
            [resid_sqnorm, resid_dot, resid_map, resid_ifold],
            |kern, name| {
                let mut s = slab(kern::scratch_len(n, m));
                let mut out = vec![f64::NAN; m];
                let v = kern(&mut out, &a, &x, &b, &mut Region::from_slab(&mut s)).unwrap();
                close(&out, &r, 1e-12, name);
                close1(v, want, 1e-12, name);
                assert_eq!(kern::scratch_len(n, m), 0, "{name}, (n, m) = ({n}, {m})");
            }
        );
    }
}

/// "every later read of it inside the kernel reads it there": a result read again at other
/// indexes is read from out0, not kept in the frame.
#[test]
fn result_read_again_at_other_indexes_is_read_from_its_output() {
    for n in [7usize, 300] {
        let x = data(n, 30);
        let y: Vec<f64> = x.iter().map(|v| v.exp() / (1.0 + v.exp())).collect();
        let z: Vec<f64> = (0..n).map(|i| 0.5 * (y[i] + y[(i + 1) % n])).collect();
        let mut s = slab(k::smooth_pair::scratch_len(n));
        let (mut o0, mut o1) = (vec![f64::NAN; n], vec![f64::NAN; n]);
        k::smooth_pair(&mut o0, &mut o1, &x, &mut Region::from_slab(&mut s)).unwrap();
        close(&o0, &y, 1e-15, "y");
        close(&o1, &z, 1e-15, "z");
        assert_eq!(k::smooth_pair::scratch_len(n), 0, "n = {n}");
    }
}

// ====================================================================== sums

/// "a sum written `sum(build(n, |i| t))`, `sum(map(v, f))`, `dot(a, b)`, or
/// `ifold(n, 0.0, |acc, i| acc + t)`; a `let` that names an array, or the expression written
/// where it is read; a helper, or its body written in place" compile to the same loops and
/// the same scratch (the `ifold`'s: none). Same loops, so the same bits for a non-zero sum.
#[test]
fn sum_spellings_have_the_same_scratch_and_the_same_value() {
    let mut got = vec![];
    for n in [7usize, 300] {
        let (x, y) = (data(n, 31), data(n, 32));
        let want: f64 = x.iter().zip(&y).map(|(a, b)| (a - b) * (a - b)).sum();
        let reference = k::ss_ifold(&x, &y, &mut Region::new()).unwrap();
        close1(reference, want, 1e-12, "ss_ifold");
        spellings!(
            [
                ss_build,
                ss_map2,
                ss_map,
                ss_dot_let,
                ss_dot_inline,
                ss_ifold,
                ss_helper
            ],
            |kern, name| {
                let mut s = slab(kern::scratch_len(n));
                let v = kern(&x, &y, &mut Region::from_slab(&mut s)).unwrap();
                assert_eq!(
                    v.to_bits(),
                    reference.to_bits(),
                    "{name}: {v} vs ifold's {reference}"
                );
                got.push((name, n, kern::scratch_len(n)));
            }
        );
    }
    all_equal(
        &got,
        |_| 0,
        "sum spellings: the scratch of ifold(n, 0.0, ..), none",
    );
}

#[test]
fn sum_of_row_terms_spellings_have_the_same_scratch() {
    let mut got = vec![];
    for (d, n) in [(3usize, 9usize), (16, 400)] {
        let (x, mu) = (data(d * n, 33), data(d, 34));
        let want: f64 = (0..n)
            .map(|i| (0..d).map(|j| (x[i * d + j] - mu[j]).powi(2)).sum::<f64>())
            .sum();
        spellings!(
            [rows_build, rows_map, rows_ifold, rows_helper],
            |kern, name| {
                let mut s = slab(kern::scratch_len(d, n));
                let v = kern(&x, &mu, &mut Region::from_slab(&mut s)).unwrap();
                close1(v, want, 1e-12, name);
                got.push((name, d * 1000 + n, kern::scratch_len(d, n)));
            }
        );
    }
    let reference = |key: usize| k::rows_ifold::scratch_len(key / 1000, key % 1000);
    all_equal(
        &got,
        reference,
        "sum of row terms: the scratch of the ifold spelling",
    );
    all_equal(
        &got,
        |_| 0,
        "sum of row terms: nothing stored (each row term fused)",
    );
}

/// "Reverse mode keeps nothing per term of a sum of independent terms, however the sum is
/// written: `grad` of `sum(build(n, ..))` needs the scratch of `ifold(n, 0.0, ..)`, which does
/// not grow with `n`."
#[test]
fn grad_of_elementwise_sum_spellings_keeps_nothing_per_term() {
    let mut got = vec![];
    for n in [7usize, 3000] {
        let (x, y) = (data(n, 35), data(n, 36));
        let want: f64 = x.iter().zip(&y).map(|(a, b)| (a - b) * (a - b)).sum();
        let wg: Vec<f64> = x.iter().zip(&y).map(|(a, b)| 2.0 * (a - b)).collect();
        spellings!(
            [gx_build, gx_map2, gx_dot, gx_ifold, gx_helper, gx_sqnorm],
            |kern, name| {
                let mut s = slab(kern::scratch_len(n));
                let mut g = vec![f64::NAN; n];
                let v = kern(&mut g, &x, &y, &mut Region::from_slab(&mut s)).unwrap();
                close1(v, want, 1e-12, name);
                close(&g, &wg, 1e-12, name);
                got.push((name, n, kern::scratch_len(n)));
            }
        );
    }
    let small = k::gx_ifold::scratch_len(7);
    assert_eq!(
        small,
        k::gx_ifold::scratch_len(3000),
        "ifold under grad grows with n"
    );
    all_equal(
        &got,
        |_| small,
        "grad of a sum, any spelling: the ifold's scratch, constant in n",
    );
}

#[test]
fn grad_of_sum_of_row_terms_spellings_keeps_nothing_per_term() {
    let mut got = vec![];
    let d = 5;
    for n in [9usize, 2000] {
        let (mu, x) = (data(d, 37), data(d * n, 38));
        let mut want = 0.0;
        let mut wg = vec![0.0; d];
        for i in 0..n {
            let e: Vec<f64> = (0..d).map(|j| x[i * d + j] - mu[j]).collect();
            let t = (-0.5 * rdot(&e, &e)).exp();
            want += t;
            for j in 0..d {
                wg[j] += t * e[j];
            }
        }
        spellings!(
            [gm_build, gm_map, gm_ifold, gm_ifold_let, gm_helper],
            |kern, name| {
                let mut s = slab(kern::scratch_len(d, n));
                let mut g = vec![f64::NAN; d];
                let v = kern(&mut g, &mu, &x, &mut Region::from_slab(&mut s)).unwrap();
                close1(v, want, 1e-12, name);
                close(&g, &wg, 1e-10, name);
                got.push((name, n, kern::scratch_len(d, n)));
            }
        );
    }
    let small = k::gm_ifold::scratch_len(d, 9);
    assert_eq!(
        small,
        k::gm_ifold::scratch_len(d, 2000),
        "ifold under grad grows with n"
    );
    all_equal(
        &got,
        |_| small,
        "grad of a sum of row terms, any spelling: constant in n",
    );
}

// ====================================================================== in-place row update

/// "inside `if j == r { e }`, a read at `j` and the same read at `r` (the branch knows its
/// condition: an in-place row update is recognised whichever index its new row reads)".
/// The state is the result: it iterates in out, no scratch.
#[test]
fn row_update_reading_at_j_or_at_r_is_in_place() {
    let mut got = vec![];
    for (c, h) in [(3usize, 4usize), (9, 25)] {
        let (m0, steps) = (data(c * h, 39), 2 * h + 1);
        let want = ref_rows(&m0, c, h, steps);
        spellings!(
            [row_at_j, row_at_r, row_map_at_j, row_map_at_r],
            |kern, name| {
                let mut s = slab(kern::scratch_len(c, h));
                let mut out = vec![f64::NAN; c * h];
                kern(&mut out, c, &m0, steps, &mut Region::from_slab(&mut s)).unwrap();
                close(&out, &want, 1e-15, name);
                got.push((name, c * h, kern::scratch_len(c, h)));
            }
        );
    }
    all_equal(
        &got,
        |_| 0,
        "row update in place, result: no scratch, read at j or at r",
    );
}

/// Same update, state not the result: one buffer (h * c), read at j or at r.
#[test]
fn row_update_not_the_result_keeps_one_buffer_whichever_index_it_reads() {
    let mut got = vec![];
    for (c, h) in [(3usize, 4usize), (9, 25)] {
        let (m0, steps) = (data(c * h, 40), 2 * h + 1);
        let want: f64 = ref_rows(&m0, c, h, steps).iter().sum();
        spellings!([row_nr_at_j, row_nr_at_r], |kern, name| {
            let mut s = slab(kern::scratch_len(c, h));
            let v = kern(c, &m0, steps, &mut Region::from_slab(&mut s)).unwrap();
            close1(v, want, 1e-12, name);
            got.push((name, c * h, kern::scratch_len(c, h)));
        });
    }
    all_equal(
        &got,
        |ch| ch,
        "row update in place, not the result: one buffer of h * c",
    );
}

/// (not in the contract: expectation) `if r == j` is the same condition as `if j == r`.
#[test]
fn row_update_with_the_condition_written_r_eq_j() {
    for (c, h) in [(3usize, 4usize), (9, 25)] {
        let (m0, steps) = (data(c * h, 41), 2 * h + 1);
        let mut s = slab(k::row_flipped::scratch_len(c, h));
        let mut out = vec![f64::NAN; c * h];
        k::row_flipped(&mut out, c, &m0, steps, &mut Region::from_slab(&mut s)).unwrap();
        close(&out, &ref_rows(&m0, c, h, steps), 1e-15, "row_flipped");
        assert_eq!(
            k::row_flipped::scratch_len(c, h),
            k::row_at_j::scratch_len(c, h)
        );
        assert_eq!(k::row_flipped::scratch_len(c, h), 0, "(c, h) = ({c}, {h})");
    }
}

// ====================================================================== literal count, unrolled or not

/// "a loop with a literal count, unrolled or not: unrolling never turns an update in place
/// into a copy." `ifold(3, ..)`, a run-time count, and the three steps written out (lets,
/// nested calls, inlined bodies) all iterate in out: no scratch.
#[test]
fn literal_count_loop_unrolled_or_not_result_in_place() {
    let mut got = vec![];
    for n in [7usize, 300] {
        let (x0, p) = (data(n, 42), data(n, 43));
        let want = ref_nstep(&ref_nstep(&ref_nstep(&x0, &p), &p), &p);
        let mut s = slab(k::un_fold_rt::scratch_len(n));
        let mut out = vec![f64::NAN; n];
        k::un_fold_rt(&mut out, &x0, &p, 3, &mut Region::from_slab(&mut s)).unwrap();
        close(&out, &want, 1e-12, "un_fold_rt");
        got.push(("un_fold_rt", n, k::un_fold_rt::scratch_len(n)));
        spellings!([un_fold3, un_lets, un_nested, un_inline], |kern, name| {
            let mut s = slab(kern::scratch_len(n));
            let mut out = vec![f64::NAN; n];
            kern(&mut out, &x0, &p, &mut Region::from_slab(&mut s)).unwrap();
            close(&out, &want, 1e-12, name);
            got.push((name, n, kern::scratch_len(n)));
        });
    }
    all_equal(
        &got,
        |_| 0,
        "literal count, unrolled or not, result: no scratch",
    );
}

/// The same, state not the result: one buffer (n), unrolled or not.
#[test]
fn literal_count_loop_unrolled_or_not_keeps_one_buffer() {
    let mut got = vec![];
    for n in [7usize, 300] {
        let (x0, p) = (data(n, 44), data(n, 45));
        let want: f64 = ref_nstep(&ref_nstep(&ref_nstep(&x0, &p), &p), &p)
            .iter()
            .sum();
        let mut s = slab(k::un_nr_fold_rt::scratch_len(n));
        let v = k::un_nr_fold_rt(&x0, &p, 3, &mut Region::from_slab(&mut s)).unwrap();
        close1(v, want, 1e-12, "un_nr_fold_rt");
        got.push(("un_nr_fold_rt", n, k::un_nr_fold_rt::scratch_len(n)));
        spellings!([un_nr_fold3, un_nr_lets, un_nr_nested], |kern, name| {
            let mut s = slab(kern::scratch_len(n));
            let v = kern(&x0, &p, &mut Region::from_slab(&mut s)).unwrap();
            close1(v, want, 1e-12, name);
            got.push((name, n, kern::scratch_len(n)));
        });
    }
    all_equal(
        &got,
        |n| n,
        "literal count, unrolled or not, not the result: one buffer of n",
    );
}
