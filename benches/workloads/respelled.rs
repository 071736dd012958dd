//! Other spellings of the GMM objective, bundle adjustment's projection and reprojection
//! errors, the hand objective, the Kalman step, the Jacobi sweeps and the clamped filter
//! (LANGUAGE.md section 13: what a kernel costs depends on what it computes, not on how it
//! is spelled). Each workload's `SpellingB` and `SpellingC` call the kernels here; its
//! `Fsmooth` variant keeps the source it had.

use fsmooth::fsmooth;

// ---- GMM objective ------------------------------------------------------------------------

fsmooth! {
    /// Q v for one component, Q = diag(exp(q)) + L, L's strictly lower part packed column by
    /// column after the diagonal (ADBench's icf).
    fn qmul(q: [f64; d * (d + 1) / 2], v: [f64; d]) -> [f64; d] {
        build(d, |j| {
            ifold(j, q[j].exp() * v[j], |acc, c| acc + q[d + c * (2 * d - c - 1) / 2 + j - c - 1] * v[c])
        })
    }

    /// One point's log-likelihood term: the log-sum-exp over the components.
    fn log_likelihood(
        alphas: [f64; k],
        means: [[f64; d]; k],
        icf: [[f64; d * (d + 1) / 2]; k],
        xi: [f64; d],
    ) -> f64 {
        logsumexp(build(k, |c| {
            alphas[c] + sum(icf[c][0..d]) - 0.5 * sqnorm(qmul(icf[c], sub(xi, means[c])))
        }))
    }

    /// B: the sums as `sum(build(..))`, a helper per point, each component's `sum(q[0..d])`
    /// written where it is read.
    pub fn gmm_b(
        alphas: [f64; k],
        means: [[f64; d]; k],
        icf: [[f64; d * (d + 1) / 2]; k],
        x: [[f64; d]; n],
        gamma: f64,
        m: f64,
        constant: f64,
    ) -> f64 {
        let main = sum(build(n, |i| log_likelihood(alphas, means, icf, x[i])));
        let prior = sum(build(k, |c| {
            0.5 * gamma * gamma * (sqnorm(map(icf[c][0..d], |q| q.exp())) + sqnorm(icf[c][d..d * (d + 1) / 2]))
                - m * sum(icf[c][0..d])
        }));
        constant + main - (n as f64) * logsumexp(alphas) + prior
    }

    /// C: `sum(map(x, ..))` over the points, rows and intermediates bound by `let`, `map2`
    /// and `dot`, the log-sum-exp written out, the prior an `ifold` adding a term.
    pub fn gmm_c(
        alphas: [f64; k],
        means: [[f64; d]; k],
        icf: [[f64; d * (d + 1) / 2]; k],
        x: [[f64; d]; n],
        gamma: f64,
        m: f64,
        constant: f64,
    ) -> f64 {
        let sum_qs = map(icf, |q| sum(q[0..d]));
        let main = sum(map(x, |xi| {
            let terms = build(k, |c| {
                let q = icf[c];
                let xc = map2(xi, means[c], |a, b| a - b);
                let qxc = build(d, |j| {
                    ifold(j, q[j].exp() * xc[j], |acc, l| acc + q[d + l * (2 * d - l - 1) / 2 + j - l - 1] * xc[l])
                });
                alphas[c] + sum_qs[c] - 0.5 * dot(qxc, qxc)
            });
            let mx = vmax(terms);
            sum(map(terms, |t| (t - mx).exp())).ln() + mx
        }));
        let prior = ifold(k, 0.0, |acc, c| {
            let q = icf[c];
            let diag = map(q[0..d], |v| v.exp());
            let lower = q[d..d * (d + 1) / 2];
            acc + (0.5 * gamma * gamma * (dot(diag, diag) + dot(lower, lower)) - m * sum_qs[c])
        });
        constant + main - (n as f64) * logsumexp(alphas) + prior
    }
}

// ---- bundle adjustment --------------------------------------------------------------------

fsmooth! {
    /// The projection with every array written as a `build`, Rodrigues inline.
    fn project_built(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
        let r = cam[0..3];
        let xc = build(3, |i| x[i] - cam[3 + i]);
        let sqtheta = sum(build(3, |i| r[i] * r[i]));
        let xcam = if sqtheta != 0.0 {
            let theta = sqtheta.sqrt();
            let c = theta.cos();
            let s = theta.sin();
            let w = build(3, |i| r[i] / theta);
            let wx = cross(w, xc);
            let tmp = sum(build(3, |i| w[i] * xc[i])) * (1.0 - c);
            build(3, |i| xc[i] * c + wx[i] * s + w[i] * tmp)
        } else {
            add(xc, cross(r, xc))
        };
        let p = build(2, |i| xcam[i] / xcam[2]);
        let rsq = sum(build(2, |i| p[i] * p[i]));
        let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
        build(2, |i| p[i] * l * cam[6] + cam[7 + i])
    }

    /// The projection in scalars, the camera's parameters and the point taken apart into
    /// named scalars by tuples (the array pattern `let [r0, r1, ..] = cam;` of LANGUAGE.md
    /// section 16 is rejected: "expected a name or a tuple of names").
    fn project_scalar(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
        let (r0, r1, r2) = (cam[0], cam[1], cam[2]);
        let (y0, y1, y2) = (x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]);
        let (f, u0, v0, k1, k2) = (cam[6], cam[7], cam[8], cam[9], cam[10]);
        let sqtheta = r0 * r0 + r1 * r1 + r2 * r2;
        let (z0, z1, z2) = if sqtheta != 0.0 {
            let theta = sqtheta.sqrt();
            let (c, s) = (theta.cos(), theta.sin());
            let (w0, w1, w2) = (r0 / theta, r1 / theta, r2 / theta);
            let tmp = (w0 * y0 + w1 * y1 + w2 * y2) * (1.0 - c);
            (
                y0 * c + (w1 * y2 - w2 * y1) * s + w0 * tmp,
                y1 * c + (w2 * y0 - w0 * y2) * s + w1 * tmp,
                y2 * c + (w0 * y1 - w1 * y0) * s + w2 * tmp,
            )
        } else {
            (y0 + (r1 * y2 - r2 * y1), y1 + (r2 * y0 - r0 * y2), y2 + (r0 * y1 - r1 * y0))
        };
        let (px, py) = (z0 / z2, z1 / z2);
        let rsq = px * px + py * py;
        let l = 1.0 + k1 * rsq + k2 * rsq * rsq;
        [px * l * f + u0, py * l * f + v0]
    }

    /// B: `build`s.
    pub fn project_b(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
        project_built(cam, x)
    }

    /// C: scalars.
    pub fn project_c(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
        project_scalar(cam, x)
    }

    /// B: the error of each observation a `build` over the projection's two coordinates.
    pub fn reproj_b(
        cams: [[f64; 11]; n],
        points: [[f64; 3]; m],
        w: [f64; p],
        feats: [[f64; 2]; p],
    ) -> [[f64; 2]; p] {
        build(p, |i| {
            let e = project_built(cams[i % n], points[i % m]);
            build(2, |j| (e[j] - feats[i][j]) * w[i])
        })
    }

    /// C: scalars, the camera bound to a name, the two errors an array literal.
    pub fn reproj_c(
        cams: [[f64; 11]; n],
        points: [[f64; 3]; m],
        w: [f64; p],
        feats: [[f64; 2]; p],
    ) -> [[f64; 2]; p] {
        build(p, |i| {
            let cam = cams[i % n];
            let e = project_scalar(cam, points[i % m]);
            let wi = w[i];
            [(e[0] - feats[i][0]) * wi, (e[1] - feats[i][1]) * wi]
        })
    }
}

// ---- hand objective -----------------------------------------------------------------------

fsmooth! {
    /// Bone i's Euler angles (ADBench's `to_pose_params`): from bone 2 on, each of the five
    /// fingers has three posed bones, the first with two angles, then one at rest.
    fn pose_of(theta: [f64; 26], i: usize) -> [f64; 3] {
        let f = (i.max(2) - 2) / 4;
        let k = (i.max(2) - 2) % 4;
        if i < 2 || f >= 5 || k == 3 {
            [0.0, 0.0, 0.0]
        } else if k == 0 {
            [theta[6 + 4 * f], theta[7 + 4 * f], 0.0]
        } else {
            [theta[7 + 4 * f + k], 0.0, 0.0]
        }
    }

    /// `Rz(p[1]) Ry(p[2]) Rx(p[0])` as products of literal matrices.
    fn euler_mats(p: [f64; 3]) -> [[f64; 3]; 3] {
        let (ax, az, ay) = (p[0], p[1], p[2]);
        let rx = [[1.0, 0.0, 0.0], [0.0, ax.cos(), -ax.sin()], [0.0, ax.sin(), ax.cos()]];
        let ry = [[ay.cos(), 0.0, ay.sin()], [0.0, 1.0, 0.0], [-ay.sin(), 0.0, ay.cos()]];
        let rz = [[az.cos(), -az.sin(), 0.0], [az.sin(), az.cos(), 0.0], [0.0, 0.0, 1.0]];
        matmul(matmul(rz, ry), rx)
    }

    /// The same rotation written out.
    fn euler_written(p: [f64; 3]) -> [[f64; 3]; 3] {
        let (cx, sx) = (p[0].cos(), p[0].sin());
        let (cy, sy) = (p[2].cos(), p[2].sin());
        let (cz, sz) = (p[1].cos(), p[1].sin());
        [
            [cz * cy, -sz * cx + cz * sy * sx, sz * sx + cz * sy * cx],
            [sz * cy, cz * cx + sz * sy * sx, -cz * sx + sz * sy * cx],
            [-sy, cy * sx, cy * cx],
        ]
    }

    /// The rotation of an angle-axis vector (the identity below |r| = 1e-4, as ADBench).
    fn rotation_of(r: [f64; 3]) -> [[f64; 3]; 3] {
        let norm = norm(r);
        if norm < 0.0001 {
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        } else {
            let u = map(r, |e| e / norm);
            let (x, y, z) = (u[0], u[1], u[2]);
            let s = norm.sin();
            let c = norm.cos();
            [
                [x * x + (1.0 - x * x) * c, x * y * (1.0 - c) - z * s, x * z * (1.0 - c) + y * s],
                [x * y * (1.0 - c) + z * s, y * y + (1.0 - y * y) * c, y * z * (1.0 - c) - x * s],
                [x * z * (1.0 - c) - y * s, z * y * (1.0 - c) + x * s, z * z + (1.0 - z * z) * c]
            ]
        }
    }

    /// B: the prelude's matrix functions. A bone's posed relative is `base` times the
    /// homogeneous rotation, the skinning sums the homogeneous point's `matvec` weighted,
    /// bone by bone, and the residual is `sub(point, add(matvec(rg, s), t))`.
    pub fn hand_b(
        theta: [f64; 26],
        parents: [usize; b],
        base_relatives: [[[f64; 4]; 4]; b],
        inverse_base_absolutes: [[[f64; 4]; 4]; b],
        base_positions: [[f64; 3]; v],
        weights: [[f64; b]; v],
        correspondences: [usize; c],
        points: [[f64; 3]; c],
    ) -> [[f64; 3]; c] {
        let absolutes = ifold(
            b,
            build(b, |i| {
                let r = euler_mats(pose_of(theta, i));
                let rh = [
                    [r[0][0], r[0][1], r[0][2], 0.0],
                    [r[1][0], r[1][1], r[1][2], 0.0],
                    [r[2][0], r[2][1], r[2][2], 0.0],
                    [0.0, 0.0, 0.0, 1.0],
                ];
                matmul(base_relatives[i], rh)
            }),
            |acc, k| build(b, |j| {
                if j == k {
                    if parents[k] == k { acc[k] } else { matmul(acc[parents[k]], acc[k]) }
                } else {
                    acc[j]
                }
            }),
        );
        let transforms = build(b, |i| matmul(absolutes[i], inverse_base_absolutes[i]));
        let rg = rotation_of(theta[0..3]);
        build(c, |j| {
            let vert = correspondences[j];
            let x = base_positions[vert];
            let xh = [x[0], x[1], x[2], 1.0];
            let s = ifold(b, [0.0, 0.0, 0.0], |s, k| {
                add(s, smul(matvec(transforms[k][0..3], xh), weights[vert][k]))
            });
            sub(points[j], add(matvec(rg, s), theta[3..6]))
        })
    }

    /// C: written-out builds and sums. The Euler rotation written out, the posed relative's
    /// 3 x 3 block by sums, the update in place testing `j != k` and reading at `j`, the
    /// transforms by `map2`, one sum over the bones per coordinate.
    pub fn hand_c(
        theta: [f64; 26],
        parents: [usize; b],
        base_relatives: [[[f64; 4]; 4]; b],
        inverse_base_absolutes: [[[f64; 4]; 4]; b],
        base_positions: [[f64; 3]; v],
        weights: [[f64; b]; v],
        correspondences: [usize; c],
        points: [[f64; 3]; c],
    ) -> [[f64; 3]; c] {
        let relatives = build(b, |i| {
            let r = euler_written(pose_of(theta, i));
            let base = base_relatives[i];
            build(4, |row| build(4, |col| {
                if col == 3 { base[row][3] } else { sum(build(3, |l| base[row][l] * r[l][col])) }
            }))
        });
        let absolutes = ifold(b, relatives, |acc, k| build(b, |j| {
            if j != k {
                acc[j]
            } else if parents[j] == j {
                acc[j]
            } else {
                matmul(acc[parents[j]], acc[j])
            }
        }));
        let transforms = map2(absolutes, inverse_base_absolutes, |a, ib| matmul(a, ib));
        let rg = rotation_of(theta[0..3]);
        build(c, |j| {
            let x = base_positions[correspondences[j]];
            let wts = weights[correspondences[j]];
            let s = build(3, |r| {
                sum(build(b, |k| (dot(transforms[k][r][0..3], x) + transforms[k][r][3]) * wts[k]))
            });
            build(3, |r| points[j][r] - (sum(map2(rg[r], s, |a, e| a * e)) + theta[3 + r]))
        })
    }
}

// ---- Kalman step --------------------------------------------------------------------------

fsmooth! {
    /// B: every product a `build` of sums, the result an array literal of rows.
    pub fn kalman_b(
        x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
        h: [f64; 4], r: f64, z: f64,
    ) -> [[f64; 4]; 5] {
        let xp = build(4, |i| sum(build(4, |j| f[i][j] * x[j])));
        let fp = build(4, |i| build(4, |j| sum(build(4, |l| f[i][l] * p[l][j]))));
        let pp = build(4, |i| build(4, |j| sum(build(4, |l| fp[i][l] * f[j][l])) + q[i][j]));
        let ph = build(4, |i| sum(build(4, |j| pp[i][j] * h[j])));
        let s = sum(map2(h, ph, |a, b| a * b)) + r;
        let gain = (z - sum(map2(h, xp, |a, b| a * b))) / s;
        let inv = 1.0 / s;
        let xn = build(4, |i| xp[i] + ph[i] * gain);
        let pn = build(4, |i| build(4, |j| pp[i][j] - ph[i] * ph[j] * inv));
        [xn, pn[0], pn[1], pn[2], pn[3]]
    }

    /// C: rows bound to names, `dot`, `matvec`, `map2`, the result packed by views.
    pub fn kalman_c(
        x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
        h: [f64; 4], r: f64, z: f64,
    ) -> [[f64; 4]; 5] {
        let xp = build(4, |i| dot(f[i], x));
        let fp = matmul(f, p);
        let pp = build(4, |i| {
            let row = fp[i];
            build(4, |j| dot(row, f[j]) + q[i][j])
        });
        let ph = matvec(pp, h);
        let s = dot(h, ph) + r;
        let gain = (z - dot(h, xp)) / s;
        let inv = 1.0 / s;
        let xn = map2(xp, ph, |a, b| a + b * gain);
        let pn = build(4, |i| {
            let phi = ph[i];
            build(4, |j| pp[i][j] - phi * ph[j] * inv)
        });
        split(4, concat(xn, join(pn)))
    }
}

// ---- stencils -----------------------------------------------------------------------------

fsmooth! {
    /// B: the fixed ends and the windows by views.
    pub fn jacobi_b(a0: [f64; n], steps: usize) -> [f64; n] {
        ifold(steps, a0, |a, _t| {
            concat(concat([a[0]], build(n - 2, |i| sum(slide(3, a)[i]) / 3.0)), [a[n - 1]])
        })
    }

    /// One sweep: the inner points tested first, the window a slice.
    fn sweep(a: [f64; n]) -> [f64; n] {
        build(n, |i| if i > 0 && i + 1 < n { sum(a[i - 1..i + 2]) / 3.0 } else { a[i] })
    }

    /// C: a helper per sweep.
    pub fn jacobi_c(a0: [f64; n], steps: usize) -> [f64; n] {
        ifold(steps, a0, |a, _t| sweep(a))
    }

    /// B: the three source rows bound to names (`min` and `max` on the row index), the
    /// columns clamped the same way, the nine terms written out.
    pub fn filter_clamped_b(img: [[f64; w]; h], k: [[f64; 3]; 3], w: usize) -> [[f64; w]; h] {
        build(h, |y| {
            let up = img[y.max(1) - 1];
            let mid = img[y];
            let down = img[(y + 1).min(h - 1)];
            build(w, |x| {
                let l = x.max(1) - 1;
                let r = (x + 1).min(w - 1);
                k[0][0] * up[l] + k[0][1] * up[x] + k[0][2] * up[r]
                    + k[1][0] * mid[l] + k[1][1] * mid[x] + k[1][2] * mid[r]
                    + k[2][0] * down[l] + k[2][1] * down[x] + k[2][2] * down[r]
            })
        })
    }

    /// C: the neighbour's index clamped by `if` tests.
    pub fn filter_clamped_c(img: [[f64; w]; h], k: [[f64; 3]; 3], w: usize) -> [[f64; w]; h] {
        build(h, |y| build(w, |x| {
            ifold(3, 0.0, |acc, dy| ifold(3, acc, |acc, dx| {
                let yy = if y + dy == 0 { 0 } else if y + dy > h { h - 1 } else { y + dy - 1 };
                let xx = if x + dx == 0 { 0 } else if x + dx > w { w - 1 } else { x + dx - 1 };
                acc + k[dy][dx] * img[yy][xx]
            }))
        }))
    }
}
