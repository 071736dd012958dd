// `grad` differentiates a function with a scalar float result; `vjp` takes a seed for others.
fsmooth::fsmooth! {
    pub fn g(w: [f64; n]) -> ([f64; n], [f64; n]) { grad(|v| smul(v, 2.0), w) }
}

fn main() {}
