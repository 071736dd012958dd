//! ADBench's bundle adjustment and GMM objective in fsmooth, shared by the tests
//! (`tests/adbench.rs`) and the benches (`benches/workloads/kernels.rs`) so that both
//! measure and check the same kernels.

/// A block compiled by `fsmooth!`, with its source kept for the reference interpreter.
macro_rules! with_src {
    ($($t:tt)*) => {
        fsmooth::fsmooth! { $($t)* }
        /// The block's source, for `fsmooth_eval::interp`.
        #[allow(dead_code)]
        pub const SRC: &str = stringify!($($t)*);
    };
}

pub mod ba {
    with_src! {
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

        /// ADBench's camera projection.
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

        pub fn weight_errors(w: [f64; p]) -> [f64; p] {
            build(p, |i| 1.0 - w[i] * w[i])
        }
    }
}

/// The GMM block, with the block options given (the benches compile it once per step of
/// the paper's ablation).
macro_rules! gmm_block {
    ($($options:tt)*) => {
        with_src! {
            $($options)*

            /// Q (x - mu) for one component, Q = diag(exp(q)) + L, from its icf row.
            fn q_times(icf_k: [f64; d * (d + 1) / 2], xc: [f64; d]) -> [f64; d] {
                build(d, |j| {
                    ifold(j, icf_k[j].exp() * xc[j], |acc, c| {
                        acc + icf_k[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * xc[c]
                    })
                })
            }

            /// The ADBench GMM objective; `constant` holds the lgamma terms computed in Rust.
            pub fn objective(
                alphas: [f64; k],
                means: [[f64; d]; k],
                icf: [[f64; d * (d + 1) / 2]; k],
                x: [[f64; d]; n],
                gamma: f64,
                m: f64,
                constant: f64,
            ) -> f64 {
                let sum_qs = build(k, |c| sum(icf[c][0..d]));
                let main = ifold(n, 0.0, |acc, i| {
                    acc + logsumexp(build(k, |c| {
                        alphas[c] + sum_qs[c] - 0.5 * sqnorm(q_times(icf[c], sub(x[i], means[c])))
                    }))
                });
                let prior = ifold(k, 0.0, |acc, c| {
                    let frob = sqnorm(map(icf[c][0..d], |q| q.exp())) + sqnorm(icf[c][d..d * (d + 1) / 2]);
                    acc + (0.5 * gamma * gamma * frob - m * sum_qs[c])
                });
                constant + main - (n as f64) * logsumexp(alphas) + prior
            }
        }
    };
}

pub mod gmm {
    gmm_block!();
}
