// A tangent has its argument's type.
fsmooth::fsmooth! {
    pub fn d(x: [f64; 4], t: [f64; 3]) -> (f64, f64) { jvp(|v| sum(v), x, t) }
}

fn main() {}
