use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> f64 {
        let mut s = 0.0;
        for i in 0..n {
            s += v[i];
        }
        s
    }
}

fn main() {}
