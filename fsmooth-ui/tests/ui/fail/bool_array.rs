use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> f64 {
        let b = build(n, |i| v[i] > 0.0);
        0.0
    }
}

fn main() {}
