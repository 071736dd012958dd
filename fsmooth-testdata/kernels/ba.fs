// Bundle adjustment (ADBench), fsmooth draft written from LANGUAGE.md.
// Not compiled by this crate: the compiler team pastes it into a `fsmooth! { ... }` block.
// Reference: fsmooth_testdata::reference::{rodrigues_rotate, ba_project, ba_reproj_error,
// ba_weight_error}; operations are in the same order, so results should agree to the last
// bit or nearly. A camera is 11 values: rotation r[0..3] (angle-axis), centre C[3..6],
// focal length f[6], principal point x0[7..9], radial distortion k[9..11].

/// Rotates `x` by the angle-axis vector `r` (Rodrigues); first-order form when |r|^2 == 0.
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

/// p * (1 + k0 |p|^2 + k1 |p|^4)
fn radial_distort(k: [f64; 2], p: [f64; 2]) -> [f64; 2] {
    let rsq = sqnorm(p);
    smul(p, 1.0 + k[0] * rsq + k[1] * rsq * rsq)
}

/// distort(k, (R (X - C))[0..2] / (R (X - C))[2]) * f + x0
fn project(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] {
    let xcam = rodrigues(cam[0..3], sub(x, cam[3..6]));
    let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
    add(smul(radial_distort(cam[9..11], p), cam[6]), cam[7..9])
}

/// w * (project(cam, x) - feat)
fn reproj_error(cam: [f64; 11], x: [f64; 3], w: f64, feat: [f64; 2]) -> [f64; 2] {
    smul(sub(project(cam, x), feat), w)
}

/// Reprojection errors of p observations, camera and point gathered per observation
/// (BaInput::obs_cams() and BaInput::obs_points() build these arguments).
pub fn ba_reproj_errors(
    cams: [[f64; 11]; p],
    points: [[f64; 3]; p],
    w: [f64; p],
    feats: [[f64; 2]; p],
) -> [[f64; 2]; p] {
    build(p, |i| reproj_error(cams[i], points[i], w[i], feats[i]))
}

/// The same without gathering, as ADBench replicates its input: observation i uses
/// camera i % n and point i % m (BaInput::cams and BaInput::x as they are).
pub fn ba_reproj_errors_mod(
    cams: [[f64; 11]; n],
    points: [[f64; 3]; m],
    w: [f64; p],
    feats: [[f64; 2]; p],
) -> [[f64; 2]; p] {
    build(p, |i| reproj_error(cams[i % n], points[i % m], w[i], feats[i]))
}

/// Weight errors 1 - w^2.
pub fn ba_weight_errors(w: [f64; p]) -> [f64; p] {
    build(p, |i| 1.0 - w[i] * w[i])
}
