use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; 3]) -> f64 {
        v[0] + v[3]
    }
}

fn main() {}
