// The seed of `vjp` has the function's result type.
fsmooth::fsmooth! {
    pub fn g(w: [f64; 3], s: [f64; 2]) -> ([f64; 3], [f64; 3]) { vjp(|v| smul(v, 2.0), w, s) }
}

fn main() {}
