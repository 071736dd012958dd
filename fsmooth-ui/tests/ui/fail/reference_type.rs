use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: &[f64; 3]) -> f64 {
        sum(v)
    }
}

fn main() {}
