use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: [f64; n]) -> f64 {
        let t = (sum(x), dot(x, x));
        t.2
    }
}

fn main() {}
