//! An application crate's block importing from a library crate's blocks: ADBench's
//! bundle-adjustment objective over an observation index array, written with the library's
//! `project` (block `geometry`) and `reproj_error` (block `camera`, which itself imports
//! `project` from `geometry` of its own crate).

fsmooth::fsmooth! {
    use fsmooth_example_geometry::estimators::camera::reproj_error;
    use fsmooth_example_geometry::geometry::{project as project_point, rodrigues};

    /// Every observation's weighted reprojection error, and every weight's error.
    pub fn objective(
        cams: [[f64; 11]; n],
        x: [[f64; 3]; m],
        w: [f64; p],
        feats: [[f64; 2]; p],
        obs: [[usize; 2]; p],
    ) -> ([[f64; 2]; p], [f64; p]) {
        (
            build(p, |i| reproj_error(cams[obs[i][0]], x[obs[i][1]], w[i], feats[i])),
            build(p, |i| 1.0 - w[i] * w[i]),
        )
    }

    /// Each camera's projection of point 0, unweighted.
    pub fn project_first(cams: [[f64; 11]; n], x: [[f64; 3]; m]) -> [[f64; 2]; n] {
        build(n, |c| project_point(cams[c], x[0]))
    }

    /// Point `x` rotated by each camera's rotation.
    pub fn rotate_all(cams: [[f64; 11]; n], x: [f64; 3]) -> [[f64; 3]; n] {
        build(n, |c| rodrigues(cams[c][0..3], x))
    }
}
