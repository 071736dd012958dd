use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: [f64; n]) -> f64 {
        let (s, q, c) = (sum(x), dot(x, x));
        q / c - s * s
    }
}

fn main() {}
