use fsmooth::fsmooth;

fsmooth! {
    pub fn k(a: [f64; n]) -> f64 {
        a.0
    }
}

fn main() {}
