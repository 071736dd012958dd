use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: [f64; n]) -> ((f64, f64), [f64; n]) {
        ((sum(x), dot(x, x)), x)
    }
}

fn main() {}
