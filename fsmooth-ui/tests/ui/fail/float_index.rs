use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n], x: f64) -> f64 {
        v[x]
    }
}

fn main() {}
