// One tangent per argument.
fsmooth::fsmooth! {
    pub fn d(x: f64, y: f64) -> (f64, f64) { jvp(|a, b| a * b, (x, y), 1.0) }
}

fn main() {}
