use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; 4]) -> f64 {
        sum(v[1..5])
    }
}

fn main() {}
