// The same from a library crate's block: ADBench's camera has 11 parameters.
fsmooth::fsmooth! {
    use fsmooth_example_geometry::geometry::project;
    pub fn k(cam: [f64; 10], x: [f64; 3]) -> [f64; 2] { project(cam, x) }
}

fn main() {}
