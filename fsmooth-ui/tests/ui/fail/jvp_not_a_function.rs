// `jvp` differentiates a function: its name or a closure.
fsmooth::fsmooth! {
    pub fn d(x: f64) -> (f64, f64) { jvp(x * 2.0, x, 1.0) }
}

fn main() {}
