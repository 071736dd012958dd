use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> f64 {
        let s = s + v[0];
        s
    }
}

fn main() {}
