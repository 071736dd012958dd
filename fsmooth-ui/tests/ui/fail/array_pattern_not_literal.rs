use fsmooth::fsmooth;

fsmooth! {
    pub fn k(q: [f64; n]) -> f64 {
        let [a, b] = q;
        a + b
    }
}

fn main() {}
