// A block's imports are its own: importing `project` from `camera`, which imports it from
// `geometry`, names no function of `camera`.
fsmooth::fsmooth! {
    use fsmooth_example_geometry::estimators::camera::{project};
    pub fn k(cam: [f64; 11], x: [f64; 3]) -> [f64; 2] { project(cam, x) }
}

fn main() {}
