use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> [f64; n] {
        map(v, |x| x > 0.0)
    }
}

fn main() {}
