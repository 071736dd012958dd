use fsmooth::fsmooth;

fsmooth! {
    pub fn k(x: [f64; 2]) -> f64 {
        let (a, b) = x;
        a * b
    }
}

fn main() {}
