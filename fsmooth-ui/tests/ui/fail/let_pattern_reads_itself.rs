use fsmooth::fsmooth;

fsmooth! {
    pub fn k(v: [f64; n]) -> f64 {
        let (a, s) = (v[0], s + 1.0);
        a + s
    }
}

fn main() {}
