//! The firmware's kernels: ADBench's bundle-adjustment projection, a Kalman step (as two
//! kernels, and as one with two results), a softmax layer and a tanh network, an `ifold`
//! smoother and the `scan` that keeps its every state. All but `reproj_errors` have fixed sizes
//! (no size names), so each comes with `SCRATCH_LEN`/`OUT_LEN` constants for static slabs;
//! `reproj_errors` shows a sized kernel, whose `scratch_len(n, m, p)` is a `const fn`.
//!
//! The second block holds single-precision kernels (LANGUAGE.md section 11): the layer, the
//! network, the smoother and the two-result Kalman step again in `f32`, a quaternion rotation
//! and an attitude estimator (a complementary filter, an `ifold` with a tuple state). The
//! Cortex-M4F's FPU does f32 in hardware, so these must call no soft-float f64 routine:
//! `.ci/firmware.sh` checks every kernel whose signature names only `f32` for that.
//!
//! `unroll = false`: on this soft-float core, writing out the 4 x 4 products trades a few
//! hundred bytes of slab for kilobytes of flash and more stack (docs/EMBEDDED.md). The f32
//! block keeps the same setting, so that f32 and f64 compare the same code.

use fsmooth::fsmooth;

fsmooth! {
    #![fsmooth(unroll = false)]

    /// Rotates `x` by the angle-axis vector `r` (Rodrigues); first-order when |r|^2 == 0.
    fn rodrigues(r: [f64; 3], x: [f64; 3]) -> [f64; 3] {
        let sqtheta = sqnorm(r);
        if sqtheta != 0.0 {
            let theta = sqtheta.sqrt();
            let costheta = theta.cos();
            let sintheta = theta.sin();
            let w = map(r, |v| v / theta);
            let tmp = dot(w, x) * (1.0 - costheta);
            add(add(smul(x, costheta), smul(cross(w, x), sintheta)), smul(w, tmp))
        } else {
            add(x, cross(r, x))
        }
    }

    fn radial_distort(k: [f64; 2], p: [f64; 2]) -> [f64; 2] {
        let rsq = sqnorm(p);
        smul(p, 1.0 + k[0] * rsq + k[1] * rsq * rsq)
    }

    /// ADBench's camera projection of the point `x` through the 11-parameter camera `cam`.
    pub fn project(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
        let xcam = rodrigues(cam[0..3], sub(x, cam[3..6]));
        let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
        add(smul(radial_distort(cam[9..11], p), cam[6]), cam[7..9])
    }

    fn reproj_error(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [f64; 2] {
        smul(sub(project(cam, x), feat), w)
    }

    /// Reprojection errors: observation i uses camera i % n and point i % m.
    pub fn reproj_errors(
        cams: [[f64; 11]; n],
        points: [[f64; 3]; m],
        w: [f64; p],
        feats: [[f64; 2]; p],
    ) -> [[f64; 2]; p] {
        build(p, |i| reproj_error(cams[i % n], points[i % m], w[i], feats[i]))
    }

    fn predict_p(p: [[f64; n]; n], f: [[f64; n]; n], q: [[f64; n]; n]) -> [[f64; n]; n] {
        madd(matmul(matmul(f, p), transpose(f)), q)
    }

    /// Kalman step (4 states, scalar measurement z = h . x + noise(r)): the new state.
    pub fn kalman_x(
        x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
        h: [f64; 4], r: f64, z: f64,
    ) -> [f64; 4] {
        let xp = matvec(f, x);
        let pp = predict_p(p, f, q);
        let ph = matvec(pp, h);
        let s = dot(h, ph) + r;
        add(xp, smul(ph, (z - dot(h, xp)) / s))
    }

    /// The same Kalman step: the new covariance.
    pub fn kalman_p(
        p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4], h: [f64; 4], r: f64,
    ) -> [[f64; 4]; 4] {
        let pp = predict_p(p, f, q);
        let ph = matvec(pp, h);
        let s = dot(h, ph) + r;
        msub(pp, msmul(outer(ph, ph), 1.0 / s))
    }

    /// The whole Kalman step as one kernel with two results (LANGUAGE.md section 8): the new
    /// state goes to `out0`, the new covariance to `out1`, and the shared work is done once.
    pub fn kalman(
        x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
        h: [f64; 4], r: f64, z: f64,
    ) -> ([f64; 4], [[f64; 4]; 4]) {
        let xp = matvec(f, x);
        let pp = predict_p(p, f, q);
        let ph = matvec(pp, h);
        let s = dot(h, ph) + r;
        (add(xp, smul(ph, (z - dot(h, xp)) / s)), msub(pp, msmul(outer(ph, ph), 1.0 / s)))
    }

    fn softmax(v: [f64; n]) -> [f64; n] {
        let mx = vmax(v);
        let e = map(v, |x| (x - mx).exp());
        smul(e, 1.0 / sum(e))
    }

    /// A dense layer with softmax: 8 inputs, 4 outputs.
    pub fn layer(w: [[f64; 8]; 4], b: [f64; 4], x: [f64; 8]) -> [f64; 4] {
        softmax(add(matvec(w, x), b))
    }

    /// Two tanh layers: 8 inputs, 6 hidden units, 3 outputs.
    pub fn mlp(w1: [[f64; 8]; 6], w2: [[f64; 6]; 3], x: [f64; 8]) -> [f64; 3] {
        let h1 = map(matvec(w1, x), |v| v.tanh());
        map(matvec(w2, h1), |v| v.tanh())
    }

    /// `ifold` with an array state: exponential smoothing over 16 samples of 3 channels.
    pub fn smooth(x: [[f64; 3]; 16], alpha: f64) -> [f64; 3] {
        ifold(16, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha)))
    }

    /// The same smoother as a `scan`: every state, row i after sample i, each written into
    /// its row of `out` and read back from there by the next step.
    pub fn smooth_all(x: [[f64; 3]; 16], alpha: f64) -> [[f64; 3]; 16] {
        scan(16, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha)))
    }
}

fsmooth! {
    #![fsmooth(unroll = false)]

    fn softmax32(v: [f32; n]) -> [f32; n] {
        let mx = vmax(v);
        let e = map(v, |x| (x - mx).exp());
        smul(e, 1.0 / sum(e))
    }

    /// `layer` in single precision: a dense layer with softmax, 8 inputs, 4 outputs.
    pub fn layer_f32(w: [[f32; 8]; 4], b: [f32; 4], x: [f32; 8]) -> [f32; 4] {
        softmax32(add(matvec(w, x), b))
    }

    /// `mlp` in single precision: two tanh layers, 8 inputs, 6 hidden units, 3 outputs.
    pub fn mlp_f32(w1: [[f32; 8]; 6], w2: [[f32; 6]; 3], x: [f32; 8]) -> [f32; 3] {
        let h1 = map(matvec(w1, x), |v| v.tanh());
        map(matvec(w2, h1), |v| v.tanh())
    }

    /// The mean squared error of a linear model over 8 samples of 4 features.
    fn mse32(w: [f32; 4], b: f32, x: [[f32; 4]; 8], y: [f32; 8]) -> f32 {
        ifold(8, 0.0, |acc, i| {
            let e = dot(w, x[i]) + b - y[i];
            acc + e * e
        }) / 8.0
    }

    /// One gradient-descent step of that model, the gradient by `grad` (issue 20): the loss
    /// before the step, the new weights and the new bias.
    pub fn sgd_f32(w: [f32; 4], b: f32, x: [[f32; 4]; 8], y: [f32; 8], lr: f32) -> (f32, [f32; 4], f32) {
        let (l, gw, gb) = grad(|v, c| mse32(v, c, x, y), w, b);
        (l, sub(w, smul(gw, lr)), b - lr * gb)
    }

    /// `smooth` in single precision: exponential smoothing over 16 samples of 3 channels.
    pub fn smooth_f32(x: [[f32; 3]; 16], alpha: f32) -> [f32; 3] {
        ifold(16, x[0], |s, i| add(smul(s, 1.0 - alpha), smul(x[i], alpha)))
    }

    fn predict_p32(p: [[f32; n]; n], f: [[f32; n]; n], q: [[f32; n]; n]) -> [[f32; n]; n] {
        madd(matmul(matmul(f, p), transpose(f)), q)
    }

    /// `kalman` in single precision: the new state in `out0`, the new covariance in `out1`.
    pub fn kalman_f32(
        x: [f32; 4], p: [[f32; 4]; 4], f: [[f32; 4]; 4], q: [[f32; 4]; 4],
        h: [f32; 4], r: f32, z: f32,
    ) -> ([f32; 4], [[f32; 4]; 4]) {
        let xp = matvec(f, x);
        let pp = predict_p32(p, f, q);
        let ph = matvec(pp, h);
        let s = dot(h, ph) + r;
        (add(xp, smul(ph, (z - dot(h, xp)) / s)), msub(pp, msmul(outer(ph, ph), 1.0 / s)))
    }

    /// Rotates `v` by the unit quaternion `q = (w, x, y, z)`: with `u = (x, y, z)` and
    /// `t = 2 u x v`, the result is `v + w t + u x t` (no trigonometry: 15 multiplications).
    pub fn quat_rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
        let u = q[1..4];
        let t = smul(cross(u, v), 2.0);
        add(add(v, smul(t, q[0])), cross(u, t))
    }

    /// Roll and pitch of a body at rest from its accelerometer's reading of gravity.
    fn tilt(a: [f32; 3]) -> (f32, f32) {
        (a[1].atan2(a[2]), (-a[0]).atan2((a[1] * a[1] + a[2] * a[2]).sqrt()))
    }

    /// Attitude estimation, a complementary filter over 32 samples: each step integrates the
    /// gyro's roll and pitch rates over `dt` and blends in the accelerometer's tilt with
    /// weight `1 - k`. An `ifold` whose state is the tuple (roll, pitch), started from the
    /// first sample's tilt; both are returned.
    pub fn attitude(gyro: [[f32; 3]; 32], acc: [[f32; 3]; 32], dt: f32, k: f32) -> (f32, f32) {
        ifold(32, tilt(acc[0]), |(roll, pitch), i| {
            let (ar, ap) = tilt(acc[i]);
            (
                k * (roll + gyro[i][0] * dt) + (1.0 - k) * ar,
                k * (pitch + gyro[i][1] * dt) + (1.0 - k) * ap,
            )
        })
    }
}

fsmooth! {
    #![fsmooth(unroll = false, reassociate = true)]

    /// The root mean square of a window of 64 samples, its sum of squares in eight lanes
    /// (`reassociate = true`, issue 21): eight partial sums side by side, added in another
    /// order than the loop as written (within the f32 check's tolerance).
    pub fn rms_f32(x: [f32; 64]) -> f32 {
        (dot(x, x) / 64.0).sqrt()
    }
}

/// With feature `canary-f64`: `quat_rotate` with one value taken through f64
/// (`(w as f64).sin() as f32`). The firmware calls it instead of the real one, and
/// `.ci/firmware.sh`'s soft-double check must reject the build (it checks the check).
#[cfg(feature = "canary-f64")]
pub mod canary {
    use fsmooth::fsmooth;

    fsmooth! {
        /// `quat_rotate`, polluted with an f64 sine.
        pub fn quat_rotate(q: [f32; 4], v: [f32; 3]) -> [f32; 3] {
            let u = q[1..4];
            let t = smul(cross(u, v), 2.0);
            add(add(v, smul(t, (q[0] as f64).sin() as f32)), cross(u, t))
        }
    }
}
