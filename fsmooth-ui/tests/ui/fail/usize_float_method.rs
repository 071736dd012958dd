use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> f64 {
        v[n.sqrt()]
    }
}

fn main() {}
