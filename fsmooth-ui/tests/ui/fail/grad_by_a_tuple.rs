// A gradient by a tuple argument: its components are passed as arguments of their own.
fsmooth::fsmooth! {
    pub fn g(a: f64, b: f64) -> (f64, f64) {
        let r = grad(|t| t.0 * t.1, (a, b));
        (r.0, r.0)
    }
}

fn main() {}
