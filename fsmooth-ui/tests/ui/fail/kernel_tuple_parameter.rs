use fsmooth::fsmooth;

fsmooth! {
    pub fn k(p: (f64, f64), x: [f64; n]) -> f64 {
        p.0 * sum(x) + p.1
    }
}

fn main() {}
