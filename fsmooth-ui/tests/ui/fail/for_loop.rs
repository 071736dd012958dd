use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> f64 {
        for i in 0..n {}
        0.0
    }
}

fn main() {}
