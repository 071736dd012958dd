//! The workloads in fsmooth: the paper's micro benchmarks, ADBench's bundle adjustment, GMM
//! and hand objectives (as in `tests/adbench.rs`), and the kernels of `tests/differential.rs`.

use fsmooth::fsmooth;

#[macro_use]
#[path = "../../tests/shared/adbench_kernels.rs"]
mod adbench;
pub use adbench::ba::{project, reproj_errors};
pub use adbench::gmm::objective as gmm_objective;
pub use adbench::{ba_jacobian, ba_obs, gmm_grad, hand};

/// The kernels whose sums reassociation changes, with the block options given (compiled
/// as written here and in [`reassoc`]).
macro_rules! sums_block {
    ($($options:tt)*) => {
        fsmooth! {
            $($options)*

            /// A dot product.
            pub fn dot_product(a: [f64; n], b: [f64; n]) -> f64 {
                dot(a, b)
            }

            /// A matrix product chain: one n*n intermediate.
            pub fn chain(a: [[f64; n]; n], b: [[f64; n]; n], c: [[f64; n]; n]) -> [[f64; n]; n] {
                matmul(matmul(a, b), c)
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
        }
    };
}

sums_block!();

fsmooth! {
    /// The paper's add3: one fused loop, no intermediate array.
    pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
        add(add(a, b), c)
    }

    /// The paper's cross.
    pub fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        cross(a, b)
    }

    /// Separable 3x3 box blur.
    pub fn blur(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h - 2] {
        let rows = build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 1] + img[y][x + 2]));
        build(h - 2, |y| build(w - 2, |x| (rows[y][x] + rows[y + 1][x] + rows[y + 2][x]) / 9.0))
    }

    fn predict_p(p: [[f64; n]; n], f: [[f64; n]; n], q: [[f64; n]; n]) -> [[f64; n]; n] {
        madd(matmul(matmul(f, p), transpose(f)), q)
    }

    /// One Kalman step of a 4-state filter with a scalar measurement z = h . x + noise(r):
    /// row 0 of the result is the new state, rows 1..5 the new covariance.
    pub fn kalman(
        x: [f64; 4], p: [[f64; 4]; 4], f: [[f64; 4]; 4], q: [[f64; 4]; 4],
        h: [f64; 4], r: f64, z: f64,
    ) -> [[f64; 4]; 5] {
        let xp = matvec(f, x);
        let pp = predict_p(p, f, q);
        let ph = matvec(pp, h);
        let s = dot(h, ph) + r;
        let xn = add(xp, smul(ph, (z - dot(h, xp)) / s));
        let pn = msub(pp, msmul(outer(ph, ph), 1.0 / s));
        build(5, |i| if i == 0 { xn } else { pn[i - 1] })
    }
}

/// The kernels of [`crate::workloads::Variant::Reassociated`]: the same sources with their
/// float sums in lanes.
pub mod reassoc {
    use fsmooth::fsmooth;

    gmm_block!(#![fsmooth(reassociate = true)]);
    sums_block!(#![fsmooth(reassociate = true)]);
}

/// add3 and the GMM objective, once per step of the paper's ablation (the kernels above are
/// the full pipeline, DFBS). The GMM source is `adbench_kernels.rs`'s, with the options put in
/// front.
macro_rules! ablation_step {
    ($($options:tt)*) => {
        fsmooth! {
            $($options)*

            pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] {
                add(add(a, b), c)
            }
        }
        gmm_block!($($options)*);
    };
}

/// D: no fusion, a heap allocation per intermediate array.
pub mod d {
    use fsmooth::fsmooth;
    ablation_step!(#![fsmooth(fusion = false, storage = "heap")]);
}

/// DF: fusion, a heap allocation per intermediate array.
pub mod df {
    use fsmooth::fsmooth;
    ablation_step!(#![fsmooth(storage = "heap")]);
}

/// DFB: fusion and one frame with static offsets, taken from the heap on every call.
pub mod dfb {
    use fsmooth::fsmooth;
    ablation_step!(#![fsmooth(storage = "heap_frame")]);
}
