//! The workloads of tuples, several results, scans and layout views (issue 17) in fsmooth,
//! written as a user would from `docs/language.md`, once as the default pipeline and once
//! with `#![fsmooth(views = false)]` ([`no_views`]): the same source, so the two differ only
//! in how a view written into a destination is stored.

/// The block's source, after the block options `$options`.
macro_rules! v2_block {
    ($($options:tt)*) => {
        fsmooth::fsmooth! {
            $($options)*

            /// One step of a constant-velocity 2-D tracker: predict with `f`, `q`, then update
            /// with a 2-D measurement `z = h x + noise(r)`, the innovation covariance inverted
            /// in closed form. New state and covariance as two results.
            pub fn kalman2(
                x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
                h: [[f64; 4]; 2], r: [[f64; 2]; 2], z: [f64; 2],
            ) -> ([f64; 4], [[f64; 4]; 4]) {
                let xp = matvec(f, x);
                let pp = madd(matmul(matmul(f, p), transpose(f)), q);
                let pht = matmul(pp, transpose(h));
                let s = madd(matmul(h, pht), r);
                let det = s[0][0] * s[1][1] - s[0][1] * s[1][0];
                let si = [[s[1][1] / det, -s[0][1] / det], [-s[1][0] / det, s[0][0] / det]];
                let k = matmul(pht, si);
                let y = sub(z, matvec(h, xp));
                (add(xp, matvec(k, y)), msub(pp, matmul(k, transpose(pht))))
            }

            /// Mean and (population) variance in one pass: sum and sum of squares.
            pub fn mean_var(x: [f64; n]) -> (f64, f64) {
                let (s, q) = ifold(n, (0.0, 0.0), |(s, q), i| (s + x[i], q + x[i] * x[i]));
                let mean = s / (n as f64);
                (mean, q / (n as f64) - mean * mean)
            }

            /// Biquad, direct form II transposed, as `docs/language.md` section 9 writes it.
            pub fn biquad(x: [f64; n], b: [f64; 3], a: [f64; 2]) -> [f64; n] {
                let (y, _, _) = scan(n, (0.0, 0.0, 0.0), |(_, s1, s2), i| {
                    let yi = b[0] * x[i] + s1;
                    (yi, b[1] * x[i] - a[0] * yi + s2, b[2] * x[i] - a[1] * yi)
                });
                y
            }

            /// The same biquad, its output taken with `.0` instead of a pattern.
            pub fn biquad_proj(x: [f64; n], b: [f64; 3], a: [f64; 2]) -> [f64; n] {
                scan(n, (0.0, 0.0, 0.0), |(_, s1, s2), i| {
                    let yi = b[0] * x[i] + s1;
                    (yi, b[1] * x[i] - a[0] * yi + s2, b[2] * x[i] - a[1] * yi)
                }).0
            }

            /// Exponential moving average seeded with the first sample (section 9).
            pub fn ema(x: [f64; n], alpha: f64) -> [f64; n] {
                scan(n, 0.0, |s, i| if i == 0 { x[0] } else { s + alpha * (x[i] - s) })
            }

            /// Two maps written one after the other into one result.
            pub fn concat_maps(a: [f64; n], b: [f64; m]) -> [f64; n + m] {
                concat(map(a, |v| 2.0 * v + 1.0), map(b, |v| v * v))
            }

            /// 3-point moving average with zero edges (section 10's `smooth3`).
            pub fn smooth3(a: [f64; n]) -> [f64; n] {
                build(n, |i| sum(slide(3, pad(a, 1, 1, 0.0))[i]) / 3.0)
            }

            /// A 3x3 filter with weights `k` over a zero-padded image: same size out.
            pub fn filter3x3(img: [[f64; w]; h], w: usize, k: [[f64; 3]; 3]) -> [[f64; w]; h] {
                let p = pad(build(h, |y| pad(img[y], 1, 1, 0.0)), 1, 1, build(w + 2, |_j| 0.0));
                build(h, |y| build(w, |x| {
                    sum(build(3, |dy| dot(k[dy], slide(3, p[y + dy])[x])))
                }))
            }
        }
    };
}

v2_block!();

/// The same kernels with destination views off.
pub mod no_views {
    v2_block!(#![fsmooth(views = false)]);
}
