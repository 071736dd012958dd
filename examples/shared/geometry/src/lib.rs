//! A library of fsmooth kernels shared with other crates: ADBench's camera model (bundle
//! adjustment) as the block `geometry`, and a block `camera` in another module that imports
//! from it. The crate `fsmooth-example-reproj` imports both.
#![no_std]

fsmooth::fsmooth! {
    /// Rotations and ADBench's camera projection.
    pub mod geometry;

    /// `a x b`.
    fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    }

    /// Rotates `x` by the angle-axis vector `r` (Rodrigues); first-order when |r|^2 == 0.
    pub fn rodrigues(r: [f64; 3], x: [f64; 3]) -> [f64; 3] {
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

    /// ADBench's radial distortion of a projected point.
    fn radial_distort(k: [f64; 2], p: [f64; 2]) -> [f64; 2] {
        let rsq = sqnorm(p);
        smul(p, 1.0 + k[0] * rsq + k[1] * rsq * rsq)
    }

    /// ADBench's camera projection: `cam` is rotation (3), centre (3), focal length,
    /// principal point (2) and distortion (2).
    pub fn project(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
        let xcam = rodrigues(cam[0..3], sub(x, cam[3..6]));
        let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
        add(smul(radial_distort(cam[9..11], p), cam[6]), cam[7..9])
    }
}

/// A second module of the same crate, whose block imports from `geometry`.
pub mod estimators {
    fsmooth::fsmooth! {
        /// The reprojection error of one observation, and what uses it.
        pub mod camera;

        use crate::geometry::{project};

        /// The weighted reprojection error of feature `feat` of point `x` seen by `cam`.
        pub fn reproj_error(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [f64; 2] {
            smul(sub(project(cam, x), feat), w)
        }
    }
}
