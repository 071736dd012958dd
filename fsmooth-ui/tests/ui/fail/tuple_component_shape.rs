use fsmooth::fsmooth;

fsmooth! {
    // `b` has its own length `m`, but the result says both components are `n` long.
    pub fn k(a: [f64; n], b: [f64; m]) -> ([f64; n], [f64; n]) {
        (a, b)
    }
}

fn main() {}
