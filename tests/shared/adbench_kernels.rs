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

/// The bundle-adjustment block: ADBench's projection and its helpers, then the kernels given.
macro_rules! ba_block {
    ($($kernels:tt)*) => {
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

            $($kernels)*
        }
    };
}

pub mod ba {
    ba_block! {
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

/// ADBench's bundle-adjustment objective with the observations as data, `obs[i]` being the
/// camera and the point of observation `i`: the reprojection error of every observation
/// and the weight error of every weight (`out0` and `out1`). The observations are an index
/// array whose elements are checked once at entry (issue 18), so the gathers need no check.
pub mod ba_obs {
    ba_block! {
        pub fn objective(
            cams: [[f64; 11]; n],
            x: [[f64; 3]; m],
            w: [f64; p],
            feats: [[f64; 2]; p],
            obs: [[usize; 2]; p],
        ) -> ([[f64; 2]; p], [f64; p]) {
            // Written in the tuple, not `let`-bound first: a `let`-bound array returned
            // as a tuple component is stored in the frame and copied (p * 2 slots).
            (
                build(p, |i| reproj_error(cams[obs[i][0]], x[obs[i][1]], w[i], feats[i])),
                build(p, |i| 1.0 - w[i] * w[i]),
            )
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

/// ADBench's hand-tracking objective, "simple" variant (the plain-Rust reference is
/// `fsmooth_testdata::hand::objective`, whose documentation gives the steps; the formulas
/// are those of ADBench's `src/cpp/shared/hand_light_matrix.h`). The bone parents (a root is
/// its own parent) and the data points' vertices are index arrays: `parents[i]` gathers the
/// parent's absolute transform, `correspondences[j]` the vertex's rest position and
/// weights. Both are checked once at entry, so the gathers need no check.
pub mod hand {
    with_src! {
        /// Euler angles in ADBench's "xzy" order: `R = Rz(p[1]) Ry(p[2]) Rx(p[0])`.
        fn euler(p: [f64; 3]) -> [[f64; 3]; 3] {
            let cx = p[0].cos();
            let sx = p[0].sin();
            let cy = p[2].cos();
            let sy = p[2].sin();
            let cz = p[1].cos();
            let sz = p[1].sin();
            let rx = [[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]];
            let ry = [[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]];
            let rz = [[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]];
            matmul(matmul(rz, ry), rx)
        }

        /// Bone i's Euler angles from theta (ADBench's `to_pose_params`, column i + 3):
        /// from bone 2 on, each of the five fingers has three posed bones, the first
        /// with two angles, then one bone left at rest.
        fn pose(theta: [f64; 26], i: usize) -> [f64; 3] {
            if i < 2 {
                [0.0, 0.0, 0.0]
            } else {
                let f = (i - 2) / 4;
                let k = (i - 2) % 4;
                if f >= 5 || k == 3 {
                    [0.0, 0.0, 0.0]
                } else if k == 0 {
                    [theta[6 + 4 * f], theta[7 + 4 * f], 0.0]
                } else {
                    [theta[7 + 4 * f + k], 0.0, 0.0]
                }
            }
        }

        /// `base * [[r, 0], [0, 1]]`: a bone's posed transform relative to its parent.
        fn posed_relative(base: [[f64; 4]; 4], r: [[f64; 3]; 3]) -> [[f64; 4]; 4] {
            build(4, |row| build(4, |col| {
                if col < 3 {
                    base[row][0] * r[0][col] + base[row][1] * r[1][col] + base[row][2] * r[2][col]
                } else {
                    base[row][3]
                }
            }))
        }

        /// The rotation of an angle-axis vector (the identity below |r| = 1e-4, as ADBench).
        fn angle_axis(r: [f64; 3]) -> [[f64; 3]; 3] {
            let norm = sqnorm(r).sqrt();
            if norm < 0.0001 {
                [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
            } else {
                let x = r[0] / norm;
                let y = r[1] / norm;
                let z = r[2] / norm;
                let s = norm.sin();
                let c = norm.cos();
                [
                    [x * x + (1.0 - x * x) * c, x * y * (1.0 - c) - z * s, x * z * (1.0 - c) + y * s],
                    [x * y * (1.0 - c) + z * s, y * y + (1.0 - y * y) * c, y * z * (1.0 - c) - x * s],
                    [x * z * (1.0 - c) - y * s, z * y * (1.0 - c) + x * s, z * z + (1.0 - z * z) * c]
                ]
            }
        }

        /// The residuals `points[j] - posed vertex correspondences[j]`, 3 per point.
        pub fn objective(
            theta: [f64; 26],
            parents: [usize; b],
            base_relatives: [[[f64; 4]; 4]; b],
            inverse_base_absolutes: [[[f64; 4]; 4]; b],
            base_positions: [[f64; 3]; v],
            weights: [[f64; b]; v],
            correspondences: [usize; c],
            points: [[f64; 3]; c],
        ) -> [[f64; 3]; c] {
            // The absolute transforms, bone by bone as ADBench's `relatives_to_absolutes`,
            // starting from the posed relatives: bone k's is its parent's (final already: a
            // parent precedes its children) times its relative; a root (its own parent)
            // keeps its relative. Each step replaces one row of the state, which the
            // compiler updates in place (issue 21): 16 slots a step, not the whole state.
            // (The relatives written as the fold's start, not bound first: a bound array
            // lives, in the frame, until the end of the block.)
            let absolutes = ifold(
                b,
                build(b, |i| posed_relative(base_relatives[i], euler(pose(theta, i)))),
                |acc, k| build(b, |j| {
                    if j == k {
                        if parents[k] == k { acc[k] } else { matmul(acc[parents[k]], acc[k]) }
                    } else {
                        acc[j]
                    }
                }),
            );
            let transforms = build(b, |i| matmul(absolutes[i], inverse_base_absolutes[i]));
            let rg = angle_axis(theta[0..3]);
            build(c, |j| {
                let x = base_positions[correspondences[j]];
                // Linear blend skinning, the three coordinates summed in one loop.
                let (s0, s1, s2) = ifold(b, (0.0, 0.0, 0.0), |(s0, s1, s2), k| {
                    let t = transforms[k];
                    let w = weights[correspondences[j]][k];
                    (
                        s0 + (t[0][0] * x[0] + t[0][1] * x[1] + t[0][2] * x[2] + t[0][3]) * w,
                        s1 + (t[1][0] * x[0] + t[1][1] * x[1] + t[1][2] * x[2] + t[1][3]) * w,
                        s2 + (t[2][0] * x[0] + t[2][1] * x[1] + t[2][2] * x[2] + t[2][3]) * w,
                    )
                });
                let s = [s0, s1, s2];
                build(3, |r| points[j][r] - (dot(rg[r], s) + theta[3 + r]))
            })
        }

        /// The residuals' Jacobian by the 26 pose parameters (issue 20), one `jvp` per
        /// column over unit tangents: row `3 j + r` is point j's coordinate r.
        pub fn jacobian(
            theta: [f64; 26],
            parents: [usize; b],
            base_relatives: [[[f64; 4]; 4]; b],
            inverse_base_absolutes: [[[f64; 4]; 4]; b],
            base_positions: [[f64; 3]; v],
            weights: [[f64; b]; v],
            correspondences: [usize; c],
            points: [[f64; 3]; c],
        ) -> [[[f64; 26]; 3]; c] {
            let cols = build(26, |k| {
                let unit = build(26, |i| if i == k { 1.0 } else { 0.0 });
                jvp(
                    |t| objective(t, parents, base_relatives, inverse_base_absolutes, base_positions, weights, correspondences, points),
                    theta,
                    unit,
                ).1
            });
            build(c, |j| build(3, |r| build(26, |k| cols[k][j][r])))
        }
    }
}

/// The GMM objective's gradient by its parameters, LANGUAGE.md section 12's `gmm_grad`
/// (issue 20): `grad` of a closure holding the data and the constants.
///
/// `gmm_grad_sum_build` and `gmm_grad_sum_map` differentiate the same objective with its sum
/// over points spelled as a user would write it (LANGUAGE.md section 13): `sum(build(n, ..))`,
/// as section 12 does, and `sum(map(x, ..))`. All three need the same scratch and code.
pub mod gmm_grad {
    gmm_block!(
        fn objective_sum_build(
            alphas: [f64; k],
            means: [[f64; d]; k],
            icf: [[f64; d * (d + 1) / 2]; k],
            x: [[f64; d]; n],
            gamma: f64,
            m: f64,
            constant: f64,
        ) -> f64 {
            let sum_qs = build(k, |c| sum(icf[c][0..d]));
            let main = sum(build(n, |i| {
                logsumexp(build(k, |c| {
                    alphas[c] + sum_qs[c] - 0.5 * sqnorm(q_times(icf[c], sub(x[i], means[c])))
                }))
            }));
            let prior = ifold(k, 0.0, |acc, c| {
                let frob =
                    sqnorm(map(icf[c][0..d], |q| q.exp())) + sqnorm(icf[c][d..d * (d + 1) / 2]);
                acc + (0.5 * gamma * gamma * frob - m * sum_qs[c])
            });
            constant + main - (n as f64) * logsumexp(alphas) + prior
        }

        fn objective_sum_map(
            alphas: [f64; k],
            means: [[f64; d]; k],
            icf: [[f64; d * (d + 1) / 2]; k],
            x: [[f64; d]; n],
            gamma: f64,
            m: f64,
            constant: f64,
        ) -> f64 {
            let sum_qs = build(k, |c| sum(icf[c][0..d]));
            let main = sum(map(x, |xi| {
                logsumexp(build(k, |c| {
                    alphas[c] + sum_qs[c] - 0.5 * sqnorm(q_times(icf[c], sub(xi, means[c])))
                }))
            }));
            let prior = ifold(k, 0.0, |acc, c| {
                let frob =
                    sqnorm(map(icf[c][0..d], |q| q.exp())) + sqnorm(icf[c][d..d * (d + 1) / 2]);
                acc + (0.5 * gamma * gamma * frob - m * sum_qs[c])
            });
            constant + main - (n as f64) * logsumexp(alphas) + prior
        }

        pub fn gmm_grad_sum_build(
            alphas: [f64; k],
            means: [[f64; d]; k],
            icf: [[f64; d * (d + 1) / 2]; k],
            x: [[f64; d]; n],
            gamma: f64,
            m: f64,
            c: f64,
        ) -> (f64, [f64; k], [[f64; d]; k], [[f64; d * (d + 1) / 2]; k]) {
            grad(
                |a, mu, q| objective_sum_build(a, mu, q, x, gamma, m, c),
                alphas,
                means,
                icf,
            )
        }

        pub fn gmm_grad_sum_map(
            alphas: [f64; k],
            means: [[f64; d]; k],
            icf: [[f64; d * (d + 1) / 2]; k],
            x: [[f64; d]; n],
            gamma: f64,
            m: f64,
            c: f64,
        ) -> (f64, [f64; k], [[f64; d]; k], [[f64; d * (d + 1) / 2]; k]) {
            grad(
                |a, mu, q| objective_sum_map(a, mu, q, x, gamma, m, c),
                alphas,
                means,
                icf,
            )
        }

        pub fn gmm_grad(
            alphas: [f64; k],
            means: [[f64; d]; k],
            icf: [[f64; d * (d + 1) / 2]; k],
            x: [[f64; d]; n],
            gamma: f64,
            m: f64,
            c: f64,
        ) -> (f64, [f64; k], [[f64; d]; k], [[f64; d * (d + 1) / 2]; k]) {
            grad(
                |a, mu, q| objective(a, mu, q, x, gamma, m, c),
                alphas,
                means,
                icf,
            )
        }
    );
}

/// Bundle adjustment's Jacobian (issue 20): each observation's weighted reprojection error by
/// its camera (11), point (3) and weight, 2 x 15, one `jvp` per column over unit tangents,
/// as LANGUAGE.md section 12 writes a Jacobian.
pub mod ba_jacobian {
    ba_block! {
        pub fn reproj_jacobian(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [[f64; 15]; 2] {
            let cols = build(15, |j| {
                let tc = build(11, |i| if i == j { 1.0 } else { 0.0 });
                let tx = build(3, |i| if i + 11 == j { 1.0 } else { 0.0 });
                let tw = if j == 14 { 1.0 } else { 0.0 };
                jvp(|c, p, v| reproj_error(c, p, v, feat), (cam, x, w), (tc, tx, tw)).1
            });
            build(2, |r| build(15, |j| cols[j][r]))
        }

        /// The same block by rows: one `vjp` per row over unit seeds (reverse mode).
        pub fn reproj_rows(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [[f64; 15]; 2] {
            build(2, |r| {
                let seed = build(2, |q| if q == r { 1.0 } else { 0.0 });
                let g = vjp(|c, p, v| reproj_error(c, p, v, feat), (cam, x, w), seed);
                concat(concat(g.1, g.2), [g.3])
            })
        }

        /// Every observation's 2 x 15 block by rows (`vjp`), the observations as data.
        pub fn jacobian_rows(
            cams: [[f64; 11]; n],
            x: [[f64; 3]; m],
            w: [f64; p],
            feats: [[f64; 2]; p],
            obs: [[usize; 2]; p],
        ) -> [[[f64; 15]; 2]; p] {
            build(p, |i| reproj_rows(cams[obs[i][0]], x[obs[i][1]], w[i], feats[i]))
        }

        /// Every observation's 2 x 15 block, the observations as data.
        pub fn jacobian(
            cams: [[f64; 11]; n],
            x: [[f64; 3]; m],
            w: [f64; p],
            feats: [[f64; 2]; p],
            obs: [[usize; 2]; p],
        ) -> [[[f64; 15]; 2]; p] {
            build(p, |i| reproj_jacobian(cams[obs[i][0]], x[obs[i][1]], w[i], feats[i]))
        }
    }
}
