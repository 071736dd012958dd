// An import from a module that does not exist: rustc's error, on the path.
fsmooth::fsmooth! {
    use crate::geometry::project;
    pub fn k(x: [f64; 3]) -> [f64; 2] { project(x) }
}

fn main() {}
